/* The fitted curves of a calibration and their bootstrap bands
 * (ha_cal_log_loss, ha_cal_band, the kept refits): against the fit's own
 * residuals, the allocator's model (ha_model_eval, ha_model_log_relaxed_ln:
 * another implementation of the same formula), and quantiles taken here
 * by sorting every refit's value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/calibrate.h>
#include "alloc/model_internal.h"
#include "calibrate/calibrate_internal.h"

/* Noisy runs of three budgets and three n, from the seeds' law. */
static size_t noisy_runs(struct ha_run *runs)
{
	static const uint64_t dims[] = {8, 12, 16, 24, 32};
	static const uint64_t budgets[] = {192, 384, 768};
	static const double samples[] = {1e6, 1e7, 1e8};
	double th[HA_CAL_PARAMS] = {1.8, log(40.0), 2.0, -40.8, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	uint64_t state = 7;
	size_t m = 0;
	for (size_t b = 0; b < 3; b++)
		for (size_t s = 0; s < 3; s++)
			for (size_t k = 0; k < 5; k++) {
				if ((b + s + k) % 2)
					continue;
				double n_samples = samples[s];
				struct ha_model model = ha_cal_model_of(th);
				struct ha_terms t;
				cr_assert_eq(ha_model_eval(&model, n_samples, budgets[b], dims[k], &t), HA_OK);
				state = state * UINT64_C(6364136223846793005) + 1;
				double u = (double)(state >> 11) / 9007199254740992.0 - 0.5;
				runs[m++] = (struct ha_run){budgets[b] / dims[k], dims[k], samples[s],
				                            t.mse * exp(0.02 * u),
				                            k % 2 ? 0.01 * t.mse : NAN, 0};
			}
	return m;
}

static struct ha_calibration *calibrate(const struct ha_run *runs, size_t m,
                                        size_t bootstrap)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = bootstrap;
	o.compare = 0;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	return c;
}

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n): linear between the order statistics
 * at q (n - 1). */
static double sorted_quantile(const double *v, size_t n, double q)
{
	double at = q * (double)(n - 1);
	size_t i = (size_t)floor(at);
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (at - (double)i) * (v[i + 1] - v[i]);
}

Test(band, the_curve_passes_through_every_runs_fitted_value)
{
	struct ha_run runs[64];
	size_t m = noisy_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 0);
	for (size_t i = 0; i < m; i++) {
		const struct ha_cal_residual *r = &c->fit.residuals[i];
		struct ha_cal_point pt = {(double)(r->heads * r->head_dim), (double)r->head_dim,
		                          r->samples};
		cr_assert_eq(ha_cal_log_loss(c->fit.law.value, &pt), r->log_fitted, "run %zu", i);
		/* the residual keeps the run's standard error */
		if (isnan(runs[i].loss_se))
			cr_assert(isnan(r->loss_se));
		else
			cr_assert_eq(r->loss_se, runs[i].loss_se);
	}
	ha_calibration_free(c);
}

Test(band, the_curve_is_the_allocators_model)
{
	/* E, c_b far from a double's range in one direction, c_v in the
	 * other, hdi < 1: every term of the formula matters somewhere */
	double th[HA_CAL_PARAMS] = {0.25, 3.0, 1.5, -1578.0, 0.5, 0.7, 0.6, 0.0, 0.28, 1.0};
	static const double samples[] = {1e3, 1e9};
	for (size_t s = 0; s < 2; s++) {
		double n_samples = samples[s];
		struct ha_model m = ha_cal_model_of(th);
		for (uint64_t d = 1; d <= 4096; d *= 2) {
			struct ha_terms t;
			cr_assert_eq(ha_model_eval(&m, n_samples, 4096, d, &t), HA_OK);
			struct ha_cal_point pt = {4096.0, (double)d, samples[s]};
			double got = ha_cal_log_loss(th, &pt);
			cr_assert(isfinite(got));
			cr_assert(fabs(got - t.log_mse) <= 1e-12 * fmax(1.0, fabs(t.log_mse)),
			          "d = %llu: %.17g against %.17g", (unsigned long long)d, got,
			          t.log_mse);
			/* between divisors: the relaxed objective, H = D/d real */
			pt.head_dim = 1.37 * (double)d;
			if (pt.head_dim > 4096.0)
				continue;
			double want = ha_model_log_relaxed_ln(&m, n_samples, 4096.0, log(pt.head_dim), NULL);
			got = ha_cal_log_loss(th, &pt);
			cr_assert(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want)), "d = %g", pt.head_dim);
		}
	}
	/* d^(d/2) at d = 4096 is e^17035: beyond a double, finite in logs */
	struct ha_cal_point far = {4096.0, 4096.0, 1e3};
	cr_assert_gt(ha_cal_log_loss(th, &far), 700.0);
}

Test(band, points_out_of_their_domain_are_nan)
{
	double th[HA_CAL_PARAMS] = {0.0, 0.0, 2.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	const struct ha_cal_point bad[] = {
		{512.0, 0.5, 1e6}, {512.0, 1024.0, 1e6}, {512.0, 8.0, 1.0},
		{0.5, 1.0, 1e6},   {INFINITY, 8.0, 1e6}, {512.0, NAN, 1e6},
		{512.0, 8.0, INFINITY},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert(isnan(ha_cal_log_loss(th, &bad[i])), "point %zu", i);
	cr_assert(isnan(ha_cal_log_loss(NULL, &bad[0])));
	cr_assert(isnan(ha_cal_log_loss(th, NULL)));
}

Test(band, the_refits_are_kept_and_give_the_intervals)
{
	struct ha_run runs[64];
	size_t m = noisy_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 150);
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	cr_assert_gt(b->fitted, 100);
	cr_assert_not_null(b->refits);
	double *column = malloc(b->fitted * sizeof *column);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &c->fit.param[p];
		for (size_t r = 0; r < b->fitted; r++)
			column[r] = b->refits[r * HA_CAL_PARAMS + p];
		if (!e->free) {
			/* a fixed parameter is its value in every refit */
			for (size_t r = 0; r < b->fitted; r++)
				cr_assert_eq(column[r], e->value);
			continue;
		}
		qsort(column, b->fitted, sizeof *column, ascending);
		cr_assert_float_eq(sorted_quantile(column, b->fitted, 0.025), e->ci95[0],
		                   1e-12 * fmax(1.0, fabs(e->ci95[0])), "%s", e->name);
		cr_assert_float_eq(sorted_quantile(column, b->fitted, 0.975), e->ci95[1],
		                   1e-12 * fmax(1.0, fabs(e->ci95[1])), "%s", e->name);
	}
	free(column);
	ha_calibration_free(c);
}

Test(band, each_point_is_the_quantile_of_every_refits_value)
{
	struct ha_run runs[64];
	size_t m = noisy_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 200);
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	const struct ha_cal_point pts[] = {
		{384.0, 8.0, 1e7}, {384.0, 24.0, 1e7}, {768.0, 32.0, 1e8},
		{768.0, 19.3, 1e6}, {4096.0, 64.0, 1e10}, {192.0, 1.0, 1e6},
	};
	enum { P = sizeof pts / sizeof *pts };
	const double levels[][2] = {{0.025, 0.975}, {0.0, 1.0}, {0.5, 0.5}, {0.1, 0.3}};
	double *v = malloc(b->fitted * sizeof *v);
	for (size_t q = 0; q < sizeof levels / sizeof *levels; q++) {
		double lo[P], hi[P];
		cr_assert_eq(ha_cal_band(c, pts, P, levels[q][0], levels[q][1], lo, hi, NULL), HA_OK);
		for (size_t i = 0; i < P; i++) {
			/* every refit through the allocator's model */
			for (size_t r = 0; r < b->fitted; r++) {
				struct ha_model model = ha_cal_model_of(b->refits + r * HA_CAL_PARAMS);
				v[r] = ha_model_log_relaxed_ln(&model, pts[i].samples, pts[i].budget,
				                               log(pts[i].head_dim), NULL);
			}
			qsort(v, b->fitted, sizeof *v, ascending);
			double want_lo = sorted_quantile(v, b->fitted, levels[q][0]);
			double want_hi = sorted_quantile(v, b->fitted, levels[q][1]);
			cr_assert(fabs(lo[i] - want_lo) <= 1e-11 * fmax(1.0, fabs(want_lo)),
			          "point %zu, level %g: %.17g against %.17g", i, levels[q][0], lo[i],
			          want_lo);
			cr_assert(fabs(hi[i] - want_hi) <= 1e-11 * fmax(1.0, fabs(want_hi)),
			          "point %zu, level %g: %.17g against %.17g", i, levels[q][1], hi[i],
			          want_hi);
			cr_assert_leq(lo[i], hi[i]);
		}
	}
	/* the 95% band holds the fitted curve where the runs are */
	double lo[1], hi[1];
	const struct ha_cal_point at_run = {384.0, 24.0, 1e7};
	double fitted = ha_cal_log_loss(c->fit.law.value, &at_run);
	cr_assert_eq(ha_cal_band(c, &at_run, 1, 0.025, 0.975, lo, hi, NULL), HA_OK);
	cr_assert(lo[0] <= fitted && fitted <= hi[0], "%g not in [%g, %g]", fitted, lo[0], hi[0]);
	free(v);
	ha_calibration_free(c);
}

Test(band, refusals_leave_the_outputs_alone)
{
	struct ha_run runs[64];
	size_t m = noisy_runs(runs);
	struct ha_calibration *none = calibrate(runs, m, 0);
	cr_assert_null(none->bootstrap.refits);
	const struct ha_cal_point pt = {384.0, 8.0, 1e7}, bad = {384.0, 500.0, 1e7};
	double lo = 42.0, hi = 43.0;
	struct ha_error err;
	cr_assert_eq(ha_cal_band(none, &pt, 1, 0.025, 0.975, &lo, &hi, &err), HA_EDEGENERATE);
	cr_assert_str_eq(err.message, "a band needs at least two bootstrap refits, found 0");
	ha_calibration_free(none);

	struct ha_calibration *c = calibrate(runs, m, 20);
	cr_assert_eq(ha_cal_band(c, &bad, 1, 0.025, 0.975, &lo, &hi, &err), HA_EINVAL);
	cr_assert_eq(ha_cal_band(c, &pt, 1, 0.9, 0.1, &lo, &hi, &err), HA_EINVAL);
	cr_assert_eq(ha_cal_band(c, &pt, 1, -0.1, 0.5, &lo, &hi, &err), HA_EINVAL);
	cr_assert_eq(ha_cal_band(c, &pt, 1, 0.5, NAN, &lo, &hi, &err), HA_EINVAL);
	cr_assert_eq(ha_cal_band(c, NULL, 1, 0.025, 0.975, &lo, &hi, &err), HA_EINVAL);
	cr_assert_eq(ha_cal_band(NULL, &pt, 1, 0.025, 0.975, &lo, &hi, &err), HA_EINVAL);
	cr_assert_eq(lo, 42.0);
	cr_assert_eq(hi, 43.0);
	/* no points: nothing to do */
	cr_assert_eq(ha_cal_band(c, NULL, 0, 0.025, 0.975, NULL, NULL, &err), HA_OK);
	ha_calibration_free(c);
}
