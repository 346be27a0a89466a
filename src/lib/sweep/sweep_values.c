/* The values of a logarithmic sweep (scenario.h): `samples: {from, to,
 * points}` in a scenario file and `--samples FROM:TO:POINTS` on the
 * command line name the same points, computed here once for both. */
#include <math.h>

#include "sweep/sweep_values.h"

void ha_log_sweep_init(struct ha_log_sweep *s, double from, double to,
                       size_t points)
{
	s->from = from;
	s->to = to;
	s->points = points;
	s->log_from = log10(from);
	s->log_to = log10(to);
}

double ha_log_sweep_value(const struct ha_log_sweep *s, size_t i)
{
	if (i == 0)
		return s->from;
	if (i + 1 >= s->points)
		return s->to;
	/* In decades: sweeps between powers of ten, the usual kind, then land
	 * exactly on the powers of ten (1e5, not 100000.00000000001). */
	double lo = s->log_from, hi = s->log_to;
	return pow(10.0, lo + (hi - lo) * ((double)i / (double)(s->points - 1)));
}

double ha_scenario_sweep_value(double from, double to, size_t points, size_t i)
{
	struct ha_log_sweep s;
	ha_log_sweep_init(&s, from, to, points);
	return ha_log_sweep_value(&s, i);
}
