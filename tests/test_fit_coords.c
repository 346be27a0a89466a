/* The fits fed by a sweep (fit/fit_internal.h): the logarithms given,
 * the second pass read from the coordinates kept, against the public
 * ha_fit_add and ha_fit_result_pair with a replay of the raw points
 * -- the same fits and results, bit for bit, failures included. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/fit.h>

#include "fit/fit_internal.h"

struct points {
	size_t count, failing; /* the index a replay fails at (count: none) */
	double *x, *y, *coords;
};

static enum ha_status raw(void *ctx, size_t i, double *x, double *y)
{
	struct points *p = ctx;
	*x = p->x[i];
	*y = p->y[i];
	return i == p->failing ? HA_EIO : HA_OK;
}

static enum ha_status kept(void *ctx, size_t i, double c[FIT_PAIR_COORDS])
{
	struct points *p = ctx;
	memcpy(c, p->coords + FIT_PAIR_COORDS * i, FIT_PAIR_COORDS * sizeof *c);
	return i == p->failing ? HA_EIO : HA_OK;
}

static struct ha_fit *make(enum ha_fit_kind kind)
{
	struct ha_fit *fit = NULL;
	cr_assert_eq(ha_fit_new(kind, 0, &fit), HA_OK);
	return fit;
}

/* The fields of two results the same, the doubles bit for bit (a
 * struct's padding is not compared). */
static int same(const struct ha_fit_result *a, const struct ha_fit_result *b)
{
	double x[] = {a->slope, a->intercept, a->se_slope, a->se_intercept,
	              a->residual_sd, a->r2, a->max_abs_residual, a->slope_low,
	              a->slope_high, a->t_quantile};
	double y[] = {b->slope, b->intercept, b->se_slope, b->se_intercept,
	              b->residual_sd, b->r2, b->max_abs_residual, b->slope_low,
	              b->slope_high, b->t_quantile};
	return memcmp(x, y, sizeof x) == 0 && a->kind == b->kind && a->count == b->count &&
	       a->max_residual_index == b->max_residual_index &&
	       a->max_residual_known == b->max_residual_known &&
	       a->r2_defined == b->r2_defined;
}

Test(fit_coords, kept_coordinates_give_the_fits_of_a_replay)
{
	uint64_t state = 0x5eed;
	for (int trial = 0; trial < 40; trial++) {
		struct points p = {.count = 3 + (size_t)trial * 53};
		p.failing = trial % 4 == 3 ? p.count / 3 : p.count;
		p.x = malloc(p.count * sizeof *p.x);
		p.y = malloc(p.count * sizeof *p.y);
		p.coords = malloc(p.count * FIT_PAIR_COORDS * sizeof *p.coords);
		cr_assert(p.x && p.y && p.coords);
		struct ha_fit *a = make(HA_FIT_POWER_LOGLN), *b = make(HA_FIT_LOG);
		struct ha_fit *ref_a = make(HA_FIT_POWER_LOGLN), *ref_b = make(HA_FIT_LOG);
		for (size_t i = 0; i < p.count; i++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			double t = (double)(state >> 11) / 9007199254740992.0;
			p.x[i] = exp(1.0 + 40.0 * (double)i / (double)p.count);
			p.y[i] = 2.0 + 10.0 * t;
			/* the logs given, or (every fifth point) left to the fits */
			double lx = i % 5 ? log(p.x[i]) : NAN, ly = i % 5 ? log(p.y[i]) : NAN;
			enum ha_status sa, sb;
			fit_add_pair_logs(a, b, p.x[i], p.y[i], lx, ly, &sa, &sb,
			                  p.coords + FIT_PAIR_COORDS * i);
			cr_assert_eq(sa, HA_OK);
			cr_assert_eq(sb, HA_OK);
			ha_fit_add(ref_a, p.x[i], p.y[i]);
			ha_fit_add(ref_b, p.x[i], p.y[i]);
		}
		struct ha_fit_result got_a, got_b, want_a, want_b;
		memset(&got_a, 0x5a, sizeof got_a);
		memcpy(&got_b, &got_a, sizeof got_a);
		memcpy(&want_a, &got_a, sizeof got_a);
		memcpy(&want_b, &got_a, sizeof got_a);
		enum ha_status ga, gb, wa, wb;
		cr_assert_eq(fit_result_pair_coords(a, b, kept, &p, &got_a, &ga, &got_b, &gb),
		             HA_OK);
		ha_fit_result_pair(ref_a, ref_b, raw, &p, &want_a, &wa, &want_b, &wb);
		cr_assert_eq(ga, wa, "trial %d", trial);
		cr_assert_eq(gb, wb, "trial %d", trial);
		cr_assert(same(&got_a, &want_a), "trial %d", trial);
		cr_assert(same(&got_b, &want_b), "trial %d", trial);
		if (p.failing == p.count)
			cr_assert_eq(ga, HA_OK, "trial %d", trial);
		else
			cr_assert_eq(ga, HA_EIO, "trial %d", trial);
		ha_fit_free(a);
		ha_fit_free(b);
		ha_fit_free(ref_a);
		ha_fit_free(ref_b);
		free(p.x);
		free(p.y);
		free(p.coords);
	}
}

Test(fit_coords, fits_that_do_not_qualify_are_refused)
{
	struct ha_fit *a = make(HA_FIT_POWER_LOGLN), *b = make(HA_FIT_LOG), *stored = NULL;
	cr_assert_eq(ha_fit_new(HA_FIT_LOG, 8, &stored), HA_OK);
	struct points p = {.count = 0};
	struct ha_fit_result r1, r2;
	enum ha_status s1, s2;
	fit_add_pair_logs(a, b, 5.0, 2.0, NAN, NAN, NULL, NULL, NULL);
	cr_assert_eq(fit_result_pair_coords(a, stored, kept, &p, &r1, &s1, &r2, &s2),
	             HA_EINVAL, "a fit with a store");
	fit_add_pair_logs(a, NULL, 6.0, 2.0, NAN, NAN, NULL, NULL, NULL);
	cr_assert_eq(fit_result_pair_coords(a, b, kept, &p, &r1, &s1, &r2, &s2),
	             HA_EINVAL, "counts differ");
	ha_fit_free(a);
	ha_fit_free(b);
	ha_fit_free(stored);
}
