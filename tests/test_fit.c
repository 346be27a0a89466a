/* Streaming least-squares fits against known laws and against GSL. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <headalloc/fit.h>
#include <headalloc/solver.h>
#include "alloc/solver_internal.h"
#include "fit/fit_internal.h"

/* n_i log-spaced from lo to hi, both ends included. */
static double log_spaced(double lo, double hi, size_t i, size_t points)
{
	return exp(log(lo) + (log(hi) - log(lo)) * (double)i /
	                             (double)(points - 1));
}

static struct ha_fit *make(enum ha_fit_kind kind, size_t cap)
{
	struct ha_fit *fit = NULL;
	cr_assert_eq(ha_fit_new(kind, cap, &fit), HA_OK);
	cr_assert_not_null(fit);
	return fit;
}

Test(fit, exact_line)
{
	struct ha_fit *fit = make(HA_FIT_LINEAR, HA_FIT_STORE_DEFAULT);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(ha_fit_add(fit, i, 3.0 - 0.5 * i), HA_OK);
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
	cr_expect_eq(r.count, 10);
	cr_expect(fabs(r.slope + 0.5) < 1e-14);
	cr_expect(fabs(r.intercept - 3.0) < 1e-14);
	cr_expect(fabs(r.r2 - 1.0) < 1e-14);
	cr_expect_eq(r.r2_defined, 1);
	cr_expect(r.max_residual_known);
	cr_expect(r.max_abs_residual < 1e-14);
	cr_expect(r.slope_low <= r.slope && r.slope <= r.slope_high);
	ha_fit_free(fit);
}

/* ln x* = ln a + b ln ln n, exactly, over n = 1e4 .. 1e12. */
Test(fit, exact_power_law_in_ln_n_recovers_b)
{
	const double a = 1.7, b = 0.7123456789;
	struct ha_fit *fit = make(HA_FIT_POWER_LOGLN, HA_FIT_STORE_DEFAULT);
	for (size_t i = 0; i < 500; i++) {
		double n = log_spaced(1e4, 1e12, i, 500);
		cr_assert_eq(ha_fit_add(fit, n, a * pow(log(n), b)), HA_OK);
	}
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
	cr_expect(fabs(r.slope - b) < 1e-12, "b = %.17g", r.slope);
	cr_expect(fabs(r.intercept - log(a)) < 1e-12);
	cr_expect(r.max_abs_residual < 1e-13);
	cr_expect(r.r2 > 1.0 - 1e-12);
	cr_expect(r.slope_low <= b + 1e-12 && b - 1e-12 <= r.slope_high);
	ha_fit_free(fit);
}

struct sweep {
	double a, b;
	size_t points;
	size_t calls;
};

static enum ha_status sweep_point(void *ctx, size_t i, double *x, double *y)
{
	struct sweep *s = ctx;
	s->calls++;
	*x = log_spaced(1e4, 1e12, i, s->points);
	*y = s->a * pow(log(*x), s->b);
	return HA_OK;
}

/* A million points with no store: O(1) memory; the largest residual comes
 * from the replay. */
Test(fit, million_point_stream_with_replay)
{
	struct sweep s = {.a = 2.5, .b = 1.0 / 3.0, .points = 1000000};
	struct ha_fit *fit = make(HA_FIT_POWER_LOGLN, 0);
	for (size_t i = 0; i < s.points; i++) {
		double x, y;
		sweep_point(&s, i, &x, &y);
		cr_assert_eq(ha_fit_add(fit, x, y), HA_OK);
	}
	s.calls = 0;
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
	cr_expect_eq(r.max_residual_known, 0);
	cr_expect(fabs(r.slope - s.b) < 1e-12, "b = %.17g", r.slope);

	cr_assert_eq(ha_fit_result(fit, sweep_point, &s, &r), HA_OK);
	cr_expect_eq(s.calls, s.points);
	cr_expect_eq(r.max_residual_known, 1);
	cr_expect(r.max_abs_residual < 1e-12);
	cr_expect(fabs(r.slope - s.b) < 1e-12, "b = %.17g", r.slope);
	ha_fit_free(fit);
}

static enum ha_status failing_replay(void *ctx, size_t i, double *x,
                                     double *y)
{
	(void)ctx;
	*x = *y = 2.0;
	return i == 3 ? HA_EIO : HA_OK;
}

Test(fit, replay_status_is_returned)
{
	struct ha_fit *fit = make(HA_FIT_LINEAR, 2);
	for (int i = 0; i < 5; i++)
		ha_fit_add(fit, i, i * i);
	struct ha_fit_result r;
	cr_expect_eq(ha_fit_result(fit, failing_replay, NULL, &r), HA_EIO);
	ha_fit_free(fit);
}

Test(fit, log_law_and_budget_law)
{
	struct ha_fit *lg = make(HA_FIT_LOG, 16);
	struct ha_fit *pw = make(HA_FIT_POWER, 16);
	for (size_t i = 0; i < 9; i++) {
		double n = log_spaced(1e4, 1e12, i, 9);
		double budget = 64.0 * pow(2.0, (double)i);
		ha_fit_add(lg, n, 1.25 + 0.375 * log(n));
		ha_fit_add(pw, budget, 0.125 * pow(budget, 0.98));
	}
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(lg, NULL, NULL, &r), HA_OK);
	cr_expect(fabs(r.slope - 0.375) < 1e-13);
	cr_expect(fabs(r.intercept - 1.25) < 1e-12);
	cr_assert_eq(ha_fit_result(pw, NULL, NULL, &r), HA_OK);
	cr_expect(fabs(r.slope - 0.98) < 1e-13);
	cr_expect(fabs(r.intercept - log(0.125)) < 1e-12);
	ha_fit_free(lg);
	ha_fit_free(pw);
}

/* Noisy line: agrees with gsl_fit_linear, and the 95% interval covers the
 * true slope about 95% of the time. */
Test(fit, noisy_agrees_with_gsl_and_covers_truth)
{
	enum { TRIALS = 400, POINTS = 30 };
	const double alpha = -0.3, beta = 0.71;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 12345);
	struct ha_fit *fit = make(HA_FIT_LINEAR, POINTS);
	int covered = 0;
	for (int trial = 0; trial < TRIALS; trial++) {
		double xs[POINTS], ys[POINTS];
		ha_fit_reset(fit);
		for (int i = 0; i < POINTS; i++) {
			xs[i] = 2.0 + 0.05 * i;
			ys[i] = alpha + beta * xs[i] +
			        gsl_ran_gaussian(rng, 0.02);
			ha_fit_add(fit, xs[i], ys[i]);
		}
		struct ha_fit_result r;
		cr_assert_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
		double c0, c1, cov00, cov01, cov11, sumsq;
		gsl_fit_linear(xs, 1, ys, 1, POINTS, &c0, &c1, &cov00, &cov01,
		               &cov11, &sumsq);
		cr_assert(fabs(r.slope - c1) < 1e-12);
		cr_assert(fabs(r.intercept - c0) < 1e-12);
		cr_assert(fabs(r.se_slope - sqrt(cov11)) < 1e-12);
		cr_assert(fabs(r.se_intercept - sqrt(cov00)) < 1e-12);
		cr_assert(fabs(r.residual_sd - sqrt(sumsq / (POINTS - 2))) <
		          1e-14);
		double mx = 0.0;
		for (int i = 0; i < POINTS; i++)
			mx = fmax(mx, fabs(ys[i] - c0 - c1 * xs[i]));
		cr_assert(fabs(r.max_abs_residual - mx) < 1e-14);
		if (r.slope_low <= beta && beta <= r.slope_high)
			covered++;
	}
	cr_expect(covered >= 0.92 * TRIALS && covered <= 0.98 * TRIALS,
	          "covered %d of %d", covered, TRIALS);
	ha_fit_free(fit);
	gsl_rng_free(rng);
}

Test(fit, t_quantile_matches_tables)
{
	struct ha_fit *fit = make(HA_FIT_LINEAR, 0);
	ha_fit_add(fit, 0, 0);
	ha_fit_add(fit, 1, 1);
	ha_fit_add(fit, 2, 1);
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
	cr_expect(fabs(r.t_quantile - 12.7062047361747) < 1e-9); /* 1 dof */
	ha_fit_free(fit);
}

Test(fit, fewer_than_three_distinct_x_is_degenerate)
{
	struct ha_fit *fit = make(HA_FIT_LINEAR, 8);
	struct ha_fit_result r;
	cr_expect_eq(ha_fit_result(fit, NULL, NULL, &r), HA_EDEGENERATE);
	for (int i = 0; i < 6; i++)
		ha_fit_add(fit, i % 2, i);
	cr_expect_eq(ha_fit_count(fit), 6);
	cr_expect_eq(ha_fit_result(fit, NULL, NULL, &r), HA_EDEGENERATE);
	ha_fit_add(fit, 7, 1);
	cr_expect_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
	ha_fit_free(fit);
}

Test(fit, constant_y_has_undefined_r2_reported_as_exact)
{
	struct ha_fit *fit = make(HA_FIT_LINEAR, 0);
	for (int i = 0; i < 5; i++)
		ha_fit_add(fit, i, 4.25);
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(fit, NULL, NULL, &r), HA_OK);
	cr_expect_eq(r.r2_defined, 0);
	cr_expect_eq(r.r2, 1.0);
	cr_expect_eq(r.slope, 0.0);
	cr_expect_eq(r.intercept, 4.25);
	cr_expect_eq(r.se_slope, 0.0);
	cr_expect_eq(r.slope_low, 0.0);
	cr_expect_eq(r.slope_high, 0.0);
	ha_fit_free(fit);
}

Test(fit, domain_errors_leave_fit_untouched)
{
	struct ha_fit *fit = make(HA_FIT_POWER_LOGLN, 4);
	cr_expect_eq(ha_fit_add(fit, 1.0, 2.0), HA_EINVAL);
	cr_expect_eq(ha_fit_add(fit, 0.5, 2.0), HA_EINVAL);
	cr_expect_eq(ha_fit_add(fit, 10.0, 0.0), HA_EINVAL);
	cr_expect_eq(ha_fit_add(fit, NAN, 2.0), HA_EINVAL);
	cr_expect_eq(ha_fit_add(fit, 10.0, INFINITY), HA_EINVAL);
	cr_expect_eq(ha_fit_count(fit), 0);
	cr_expect_eq(ha_fit_add(NULL, 10.0, 1.0), HA_EINVAL);
	ha_fit_free(fit);

	struct ha_fit *out = (struct ha_fit *)1;
	cr_expect_eq(ha_fit_new((enum ha_fit_kind)42, 0, &out), HA_EINVAL);
	cr_expect_null(out);
	cr_expect_eq(ha_fit_new(HA_FIT_LINEAR, 0, NULL), HA_EINVAL);
	ha_fit_free(NULL);
}

Test(fit, overflowing_sums_are_numeric_errors)
{
	struct ha_fit *fit = make(HA_FIT_LINEAR, 0);
	ha_fit_add(fit, -1e300, 1e300);
	ha_fit_add(fit, 1e300, -1e300);
	ha_fit_add(fit, 0, 0);
	struct ha_fit_result r;
	cr_expect_eq(ha_fit_result(fit, NULL, NULL, &r), HA_ENUMERIC);
	ha_fit_free(fit);
}

Test(fit, seed_exponent_and_status_words)
{
	cr_expect(fabs(ha_fit_seed_exponent(2.0) - 1.0 / 3.0) < 1e-16);
	cr_expect_str_eq(ha_status_str(HA_EDEGENERATE),
	                 "too few distinct points to fit");
}

/* headalloc-model(7), SCALING LAWS (The known discrepancy): over n = 1e4 .. 1e12 at D = 512 the relaxed
 * optimum gives b near 0.71, and the seeds' 1/3 is far outside the
 * interval. */
Test(fit, relaxed_sweep_reproduces_known_discrepancy)
{
	struct ha_solver *solver = NULL;
	cr_assert_eq(ha_solver_new(512, NULL, &solver), HA_OK);
	struct ha_fit *pl = make(HA_FIT_POWER_LOGLN, HA_FIT_STORE_DEFAULT);
	struct ha_fit *lg = make(HA_FIT_LOG, HA_FIT_STORE_DEFAULT);
	struct ha_model m = ha_model_defaults();
	for (size_t i = 0; i < 81; i++) {
		double n_samples = log_spaced(1e4, 1e12, i, 81);
		struct ha_relaxed x;
		cr_assert_eq(ha_solver_solve_relaxed(solver, &m, n_samples, &x), HA_OK);
		cr_assert_eq(ha_fit_add(pl, n_samples, x.head_dim), HA_OK);
		cr_assert_eq(ha_fit_add(lg, n_samples, x.head_dim), HA_OK);
	}
	struct ha_fit_result r;
	cr_assert_eq(ha_fit_result(pl, NULL, NULL, &r), HA_OK);
	cr_expect(fabs(r.slope - 0.71) < 0.03, "b = %g", r.slope);
	cr_expect(r.r2 > 0.99);
	double claim = ha_fit_seed_exponent(m.smoothness);
	cr_expect(claim < r.slope_low, "claim %g in [%g, %g]", claim,
	          r.slope_low, r.slope_high);
	cr_assert_eq(ha_fit_result(lg, NULL, NULL, &r), HA_OK);
	cr_expect(r.slope > 0.0 && r.r2 > 0.99, "q = %g, R2 = %g", r.slope,
	          r.r2);
	ha_fit_free(pl);
	ha_fit_free(lg);
	ha_solver_free(solver);
}

/* A replay of noisy points (x_i, y_i) from a seed, with a point outside
 * the power law's domain (x <= 1) or a failing status at chosen indices. */
struct noisy {
	unsigned long long seed;
	size_t bad_x, failing; /* indices; beyond the points for none */
	size_t calls;
};

static enum ha_status noisy_point(void *ctx, size_t i, double *x, double *y)
{
	struct noisy *p = ctx;
	unsigned long long h = p->seed + i * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ULL, h ^= h >> 29;
	p->calls++;
	*x = i == p->bad_x ? 0.5 : 1.5 + (double)i * 3.0;
	*y = 2.0 + (double)(h >> 11) / 9007199254740992.0;
	return i == p->failing ? HA_EIO : HA_OK;
}

/* Every field the same, the doubles bit for bit (padding aside). */
static int same_result(const struct ha_fit_result *a, const struct ha_fit_result *b)
{
	const double da[] = {a->intercept, a->slope, a->se_intercept, a->se_slope,
	                     a->t_quantile, a->slope_low, a->slope_high,
	                     a->residual_sd, a->r2, a->max_abs_residual};
	const double db[] = {b->intercept, b->slope, b->se_intercept, b->se_slope,
	                     b->t_quantile, b->slope_low, b->slope_high,
	                     b->residual_sd, b->r2, b->max_abs_residual};
	return a->kind == b->kind && a->count == b->count &&
	       a->r2_defined == b->r2_defined &&
	       a->max_residual_known == b->max_residual_known &&
	       a->max_residual_index == b->max_residual_index &&
	       memcmp(da, db, sizeof da) == 0;
}

/* ha_fit_result_pair against two calls of ha_fit_result, bit for bit,
 * with one replay call a point where both fits replay. */
Test(fit, a_pair_of_results_is_two_results)
{
	for (int trial = 0; trial < 60; trial++) {
		size_t points = 3 + (size_t)trial * 37;
		struct noisy p = {0x1234ULL + (unsigned long long)trial, SIZE_MAX, SIZE_MAX, 0};
		size_t cap = trial % 5 == 4 ? points : 0; /* stored: no joint pass */
		if (trial % 3 == 1)
			p.bad_x = (size_t)trial % points; /* the power law refuses it */
		if (trial % 7 == 2)
			p.failing = points / 2;
		struct ha_fit *a = make(HA_FIT_POWER_LOGLN, cap), *b = make(HA_FIT_LOG, cap);
		struct noisy first = p;
		first.bad_x = SIZE_MAX;
		first.failing = SIZE_MAX;
		for (size_t i = 0; i < points; i++) {
			double x, y;
			noisy_point(&first, i, &x, &y);
			cr_assert_eq(ha_fit_add(a, x, y), HA_OK);
			cr_assert_eq(ha_fit_add(b, x, y), HA_OK);
		}
		struct ha_fit_result want_a, want_b, got_a, got_b;
		memset(&want_a, 0x5a, sizeof want_a);
		memcpy(&want_b, &want_a, sizeof want_a);
		memcpy(&got_a, &want_a, sizeof want_a);
		memcpy(&got_b, &want_a, sizeof want_a);
		enum ha_status sa = ha_fit_result(a, noisy_point, &p, &want_a);
		enum ha_status sb = ha_fit_result(b, noisy_point, &p, &want_b);
		p.calls = 0;
		enum ha_status ga, gb;
		ha_fit_result_pair(a, b, noisy_point, &p, &got_a, &ga, &got_b, &gb);
		cr_assert_eq(ga, sa, "trial %d", trial);
		cr_assert_eq(gb, sb, "trial %d", trial);
		cr_assert(same_result(&got_a, &want_a), "trial %d", trial);
		cr_assert(same_result(&got_b, &want_b), "trial %d", trial);
		if (cap == 0 && p.failing == SIZE_MAX)
			cr_assert_eq(p.calls, points, "trial %d: %zu calls", trial, p.calls);
		ha_fit_free(a);
		ha_fit_free(b);
	}
}

/* fit_add_pair_logs (the logarithms left to the fits) against two calls
 * of ha_fit_add, for every pair of
 * kinds, on points inside and outside each kind's domain: the same
 * statuses and, bit for bit, the same results. */
Test(fit, a_pair_of_adds_is_two_adds)
{
	const enum ha_fit_kind kinds[] = {HA_FIT_LINEAR, HA_FIT_POWER_LOGLN, HA_FIT_LOG,
	                                  HA_FIT_POWER};
	const double odd_x[] = {0.5, 1.0, -2.0, 0.0, NAN, INFINITY};
	const double odd_y[] = {-1.0, 0.0, NAN, -INFINITY};
	for (size_t ka = 0; ka < 4; ka++) {
		for (size_t kb = 0; kb < 4; kb++) {
			struct ha_fit *a = make(kinds[ka], 64), *b = make(kinds[kb], 64);
			struct ha_fit *ref_a = make(kinds[ka], 64), *ref_b = make(kinds[kb], 64);
			struct noisy p = {0x77ULL + ka * 4 + kb, SIZE_MAX, SIZE_MAX, 0};
			for (size_t i = 0; i < 40; i++) {
				double x, y;
				noisy_point(&p, i, &x, &y);
				if (i % 5 == 3)
					x = odd_x[i / 5 % 6];
				if (i % 7 == 4)
					y = odd_y[i / 7 % 4];
				enum ha_status sa = HA_ENOMEM, sb = HA_ENOMEM;
				fit_add_pair_logs(a, b, x, y, NAN, NAN, &sa, &sb, NULL);
				cr_assert_eq(sa, ha_fit_add(ref_a, x, y), "kinds %zu %zu point %zu", ka, kb, i);
				cr_assert_eq(sb, ha_fit_add(ref_b, x, y), "kinds %zu %zu point %zu", ka, kb, i);
			}
			struct ha_fit_result got, want;
			memset(&got, 0x5a, sizeof got);
			memcpy(&want, &got, sizeof got);
			cr_assert_eq(ha_fit_result(a, NULL, NULL, &got), ha_fit_result(ref_a, NULL, NULL, &want));
			cr_assert(same_result(&got, &want), "kinds %zu %zu", ka, kb);
			memset(&got, 0x5a, sizeof got);
			memcpy(&want, &got, sizeof got);
			cr_assert_eq(ha_fit_result(b, NULL, NULL, &got), ha_fit_result(ref_b, NULL, NULL, &want));
			cr_assert(same_result(&got, &want), "kinds %zu %zu", ka, kb);
			ha_fit_free(a);
			ha_fit_free(b);
			ha_fit_free(ref_a);
			ha_fit_free(ref_b);
		}
	}
	/* NULL fits and NULL statuses: the other fit still takes the point. */
	struct ha_fit *a = make(HA_FIT_LOG, 8);
	enum ha_status sb = HA_OK;
	fit_add_pair_logs(a, NULL, 2.0, 3.0, NAN, NAN, NULL, &sb, NULL);
	cr_assert_eq(sb, HA_EINVAL);
	cr_assert_eq(ha_fit_count(a), 1);
	ha_fit_free(a);
}
