/* The values of n of a sweep (sweep.h): an explicit list, or the
 * log-spaced range that `--samples FROM:TO:POINTS` on the command line,
 * `samples: {from, to, points}` in a scenario file and Python's
 * geomspace all name, computed here once for all three. */
#include <math.h>

#include "alloc/model_internal.h"
#include "sweep/sweep_internal.h"

void samples_reader_init(struct samples_reader *r, const struct ha_samples *s)
{
	r->samples = s;
	r->log_from = s->values ? 0.0 : log10(s->from);
	r->log_to = s->values ? 0.0 : log10(s->to);
}

double samples_read(const struct samples_reader *r, size_t i)
{
	const struct ha_samples *s = r->samples;
	if (s->values)
		return s->values[i];
	if (i == 0)
		return s->from;
	if (i + 1 >= s->count)
		return s->to;
	/* In decades: ranges between powers of ten, the usual kind, then land
	 * exactly on the powers of ten (1e5, not 100000.00000000001). */
	double lo = r->log_from, hi = r->log_to;
	return pow(10.0, lo + (hi - lo) * ((double)i / (double)(s->count - 1)));
}

double ha_samples_value(const struct ha_samples *s, size_t i)
{
	struct samples_reader r;
	samples_reader_init(&r, s);
	return samples_read(&r, i);
}

enum ha_status ha_samples_check(const struct ha_samples *s, size_t *bad)
{
	if (!s || !bad)
		return HA_EINVAL;
	*bad = s->count;
	if (s->count == 0 || s->count > HA_SWEEP_MAX_ROWS)
		return HA_EINVAL;
	if (!s->values)
		return s->count >= 2 && ha_samples_valid(s->from) &&
		       ha_samples_valid(s->to) && s->from < s->to ? HA_OK : HA_EINVAL;
	for (size_t i = 0; i < s->count; i++)
		if (!ha_samples_valid(s->values[i])) {
			*bad = i;
			return HA_EINVAL;
		}
	return HA_OK;
}
