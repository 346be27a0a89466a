/* How the sweep table spells its numbers: the fits written as raw YAML
 * text are the bytes libyaml's emitter writes for every kind of value, and
 * the text columns' %.Pg and %.Pf (format_double.c) are snprintf's, byte
 * for byte. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "test_random.h"
#include "yaml_memory.h"

#include "report/report_internal.h"
#include "report/format_double.h"

static struct ha_sweep_fit random_fit(uint64_t *rng, enum report_law *law)
{
	static const enum ha_status failures[] = {
		HA_EDEGENERATE, HA_ENUMERIC, HA_EINVAL, HA_ENOMEM,
	};
	struct ha_sweep_fit f;
	memset(&f, 0, sizeof f);
	*law = (enum report_law)(next_random(rng) % 3);
	f.status = next_random(rng) % 5 ? HA_OK : failures[next_random(rng) % 4];
	f.points = next_random(rng) % 3 ? next_random(rng) % 100 : next_random(rng);
	double *values[] = {
		&f.result.intercept, &f.result.slope, &f.result.se_intercept,
		&f.result.se_slope, &f.result.slope_low, &f.result.slope_high,
		&f.result.r2, &f.result.max_abs_residual, &f.largest_at, &f.claimed,
	};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		*values[i] = random_value(rng);
	f.result.max_residual_known = (int)(next_random(rng) % 3 != 0);
	f.largest_budget = next_random(rng) % 2 ? next_random(rng) : 512;
	return f;
}

/* A list of maps {samples, heads_law: FIT} in a map, as fits.by_samples:
 * the first item and the failed fits through the emitter, the others
 * (with raw != 0) as report_raw_fit's raw text. */
static char *fits_document(const struct ha_sweep_fit *fits, const enum report_law *laws,
                           const double *samples, size_t count, int raw)
{
	struct yaml_memory m;
	struct ha_yaml_writer *w = yaml_memory_open(&m);
	ha_yaml_key(w, "fits");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "by_samples");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < count; i++) {
		if (raw && i > 0 && fits[i].status == HA_OK) {
			char item[REPORT_RAW_FIT_MAX + 96], buf[32];
			int n = snprintf(item, sizeof item, "\n  - samples: %s\n    heads_law:",
			                 ha_yaml_double_text(samples[i], buf));
			char *end = report_raw_fit(item + n, 6, laws[i], &fits[i]);
			cr_assert_not_null(end);
			cr_assert_leq((size_t)(end - item - n), REPORT_RAW_FIT_MAX);
			yaml_writer_raw(w, item, (size_t)(end - item));
			continue;
		}
		cr_assert(i == 0 || fits[i].status != HA_OK || !raw);
		if (fits[i].status != HA_OK)
			cr_assert_null(report_raw_fit(NULL, 6, laws[i], &fits[i]));
		ha_yaml_begin_map(w, 0);
		ha_yaml_key(w, "samples");
		ha_yaml_double(w, samples[i]);
		ha_yaml_key(w, "heads_law");
		report_yaml_fit(w, laws[i], &fits[i]);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
	return yaml_memory_close(&m);
}

/* Fits of every law with every kind of value (.inf, .nan, 0, huge,
 * tiny, unknown residuals, no claim), OK and failed ones mixed: the raw
 * text is the emitter's, byte for byte. */
Test(table_numbers, raw_fits_are_the_bytes_the_emitter_writes)
{
	uint64_t rng = 99;
	for (int c = 0; c < 200; c++) {
		enum { COUNT = 40 };
		struct ha_sweep_fit fits[COUNT];
		enum report_law laws[COUNT];
		double samples[COUNT];
		for (size_t i = 0; i < COUNT; i++) {
			fits[i] = random_fit(&rng, &laws[i]);
			samples[i] = c % 2 ? random_value(&rng) : log_uniform(&rng, 1.0001, 1e300);
		}
		char *emitted = fits_document(fits, laws, samples, COUNT, 0);
		char *raw = fits_document(fits, laws, samples, COUNT, 1);
		cr_assert_str_eq(raw, emitted);
		free(emitted);
		free(raw);
	}
}

/* Doubles of every kind: any bit pattern, log-uniform magnitudes, small
 * integers and halves (exact decimal ties), values next to powers of ten
 * and to their rounding boundaries at 6 digits, subnormals. */
static double any_double(uint64_t *rng)
{
	uint64_t r = next_random(rng);
	double v;
	switch (r % 8) {
	case 0:
		memcpy(&v, &r, sizeof v);
		return v;
	case 1:
		return (double)(next_random(rng) % 100000000) / (double)(1u << (r >> 8) % 16);
	case 2: {
		double p = pow(10.0, (double)((int)(next_random(rng) % 40) - 20));
		return (r >> 8) % 2 ? nextafter(p, 0) : nextafter(p, INFINITY);
	}
	case 3: {
		/* d.dddddd5 10^k and its neighbours: the 6-digit ties. */
		double k = (double)((int)(next_random(rng) % 600) - 300);
		v = ((double)(next_random(rng) % 1000000) + 100000.5) * pow(10.0, k - 5);
		return (r >> 8) % 3 == 0 ? v : (r >> 8) % 3 == 1 ? nextafter(v, 0)
		                                                : nextafter(v, INFINITY);
	}
	case 4:
		return ldexp((double)(next_random(rng) >> 12), -1074);
	default:
		return ((r >> 8) % 2 ? -1 : 1) * exp(uniform(rng, -745, 709));
	}
}

/* %.Pg and %.Pf from format_double.c against snprintf, byte for byte,
 * for every precision the reports use and the others. */
Test(table_numbers, the_text_formats_are_snprintfs, .timeout = 600)
{
	uint64_t rng = 2718281828;
	size_t fixed = 0, fixed_small = 0;
	for (int i = 0; i < 400000; i++) {
		double v = any_double(&rng);
		char got[64], want[400];
		for (int p = 1; p <= 17; p++) {
			if (p > 8 && p < 17 && i % 8)
				continue; /* the reports use 2, 3 and 6 digits */
			size_t n = ha_fd_format_g(v, p, got);
			snprintf(want, sizeof want, "%.*g", p, v);
			cr_assert(n == strlen(got) && strcmp(got, want) == 0,
			          "%%.%dg of %a: %s, not %s", p, v, got, want);
		}
		for (int p = 0; p <= 17; p++) {
			if (p != 6 && i % 8)
				continue;
			size_t n = ha_fd_format_f(v, p, got);
			if (n == 0)
				continue;
			snprintf(want, sizeof want, "%.*f", p, v);
			cr_assert(n == strlen(got) && strcmp(got, want) == 0,
			          "%%.%df of %a: %s, not %s", p, v, got, want);
			fixed++;
			fixed_small += fabs(v) < 1.0;
		}
	}
	/* Most of the values %.6f is asked for (log10 of an error) are
	 * taken here. */
	cr_assert_gt(fixed, 100000);
	cr_assert_gt(fixed_small, 10000);
	/* Every k / 2048 and k / 2000 in [-1000, 1000]: exact ties at the
	 * sixth decimal, and their neighbours. */
	for (long k = -2048000; k <= 2048000; k++) {
		char got[64], want[64];
		double v = k % 2 ? (double)k / 2048.0 : (double)k / 2000.0;
		if (k == 0)
			continue;
		cr_assert_neq(ha_fd_format_f(v, 6, got), 0, "%a", v);
		snprintf(want, sizeof want, "%.6f", v);
		cr_assert_str_eq(got, want);
	}
}
