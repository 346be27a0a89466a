/* The calibration's refusals and warnings (headalloc-model(7),
 * CALIBRATION): bad runs and options refused naming the run and field,
 * what cannot be fitted, the warnings of identifiability and
 * extrapolation, and the resamples that cannot be fitted counted. */
#include "calibrate_truth.h"
#include "calibrate/calibrate_internal.h"

/* ---- refusals and errors ---------------------------------------------- */

static void expect_error(const struct ha_run *runs, size_t m,
                         const struct ha_cal_options *o, enum ha_status want,
                         const char *fragment)
{
	struct ha_calibration *c = (struct ha_calibration *)1;
	struct ha_error err;
	enum ha_status st = ha_calibrate(runs, m, o, &c, &err);
	cr_assert_eq(st, want, "status %d (%s), want %d", st, err.message, want);
	cr_assert_null(c);
	cr_assert_eq(err.status, want);
	cr_assert(strstr(err.message, fragment) != NULL, "message '%s' lacks '%s'",
	          err.message, fragment);
}

Test(calibrate, bad_runs_are_refused_with_the_run_and_field)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.0);
	struct ha_cal_options o = quick_options();
	struct ha_run bad[MAX_RUNS];
	memcpy(bad, runs, sizeof bad);
	bad[2].heads = 0;
	expect_error(bad, m, &o, HA_EINVAL, "run 3: heads");
	memcpy(bad, runs, sizeof bad);
	bad[0].head_dim = 0;
	expect_error(bad, m, &o, HA_EINVAL, "run 1: head_dim");
	memcpy(bad, runs, sizeof bad);
	bad[1].heads = UINT64_C(1) << 62;
	bad[1].head_dim = 4;
	expect_error(bad, m, &o, HA_EINVAL, "run 2: heads x head_dim");
	double bad_samples[] = {1.0, 0.5, NAN, INFINITY};
	for (size_t i = 0; i < 4; i++) {
		memcpy(bad, runs, sizeof bad);
		bad[4].samples = bad_samples[i];
		expect_error(bad, m, &o, HA_EINVAL, "run 5: samples");
	}
	double bad_loss[] = {0.0, -1.0, NAN, INFINITY};
	for (size_t i = 0; i < 4; i++) {
		memcpy(bad, runs, sizeof bad);
		bad[0].loss = bad_loss[i];
		expect_error(bad, m, &o, HA_EINVAL, "run 1: loss must");
	}
	double bad_se[] = {0.0, -0.1, INFINITY};
	for (size_t i = 0; i < 3; i++) {
		memcpy(bad, runs, sizeof bad);
		bad[6].loss_se = bad_se[i];
		expect_error(bad, m, &o, HA_EINVAL, "run 7: loss_se");
	}
	expect_error(NULL, 3, &o, HA_EINVAL, "no runs");
	expect_error(runs, 0, &o, HA_EINVAL, "no runs");
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, NULL, NULL, &err), HA_EINVAL);
	cr_assert_eq(ha_calibrate(runs, m, NULL, &(struct ha_calibration *){NULL}, &err),
	             HA_EINVAL);
	cr_assert_eq(ha_cal_validate_runs(runs, m, &err), HA_OK);
}

Test(calibrate, bad_options_are_refused)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.0);
	double bad_delta[] = {0.0, -1.0, NAN};
	for (size_t i = 0; i < 3; i++) {
		struct ha_cal_options o = quick_options();
		o.huber_delta = bad_delta[i];
		expect_error(runs, m, &o, HA_EINVAL, "huber_delta");
	}
	struct {
		int param;
		double value;
	} fixed[] = {
		{HA_CAL_HDI, 1.5}, {HA_CAL_HDI, -0.1}, {HA_CAL_SMOOTHNESS, 0.0},
		{HA_CAL_VAR_RATE, -1.0}, {HA_CAL_VAR_POWER, -0.5},
		{HA_CAL_IRREDUCIBLE, -0.1}, {HA_CAL_VAR_COEF, INFINITY},
		{HA_CAL_BIAS_COEF, NAN},
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
		struct ha_cal_options o = quick_options();
		o.law.free[fixed[i].param] = 0;
		o.law.value[fixed[i].param] = fixed[i].value;
		expect_error(runs, m, &o, HA_EINVAL,
		             ha_cal_param_str((enum ha_cal_param)fixed[i].param));
	}
	struct ha_cal_options o = quick_options();
	o.collinear = 0.0;
	expect_error(runs, m, &o, HA_EINVAL, "collinear");
	o = quick_options();
	o.target = (struct ha_cal_target){UINT64_MAX, 1e5, {0}};
	expect_error(runs, m, &o, HA_EINVAL, "target budget");
	o.target = (struct ha_cal_target){96, 1.0, {0}};
	expect_error(runs, m, &o, HA_EINVAL, "target samples");
	o.target = (struct ha_cal_target){96, NAN, {0}};
	expect_error(runs, m, &o, HA_EINVAL, "target samples");
	o.target = (struct ha_cal_target){96, 1e5, {.min_heads = 8, .max_heads = 2}};
	expect_error(runs, m, &o, HA_EINVAL, "constraints");
	o.target = (struct ha_cal_target){97, 1e5, {.head_dim_multiple = 2}};
	expect_error(runs, m, &o, HA_EINFEASIBLE, "no allocation");
}

Test(calibrate, what_cannot_be_fitted_is_refused)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.0);
	struct ha_cal_options o = quick_options(); /* 4 free parameters */
	expect_error(runs, 4, &o, HA_EDEGENERATE, "4 runs cannot fit 4 free parameters");
	/* Five runs suffice for the count. */
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, 5, &o, &c, &err), HA_OK, "%s", err.message);
	ha_calibration_free(c);
	/* One head dimension: bias and variance cannot be told apart. */
	static const uint64_t one_dim[] = {16};
	static const uint64_t heads[] = {1, 2, 4, 8, 16};
	m = make_runs(runs, th, one_dim, 1, heads, 5, samples_a, 3, 1, 0.0);
	expect_error(runs, m, &o, HA_EDEGENERATE, "every run has head_dim 16");
	struct ha_cal_fit fit;
	cr_assert_eq(ha_cal_fit_runs(runs, m, &o.law, 1e-3, &fit, &err), HA_EDEGENERATE);
	cr_assert_null(fit.residuals);
}

/* ---- warnings ------------------------------------------------------------ */

Test(calibrate, warnings_of_identifiability_and_extrapolation)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	struct ha_run runs[MAX_RUNS];
	/* One n for every run. */
	static const double one_n[] = {1e5};
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, one_n, 1, 1, 0.01);
	struct ha_cal_options o = quick_options();
	o.target = (struct ha_cal_target){4096, 1e9, {0}};
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(warned(c, HA_CAL_WARN_ONE_SAMPLES, "every run has samples 100000"));
	cr_assert(warned(c, HA_CAL_WARN_BUDGET_OUTSIDE, "target budget 4096 lies outside the runs' budgets [8, 128]"));
	cr_assert(warned(c, HA_CAL_WARN_SAMPLES_OUTSIDE, "target samples 1e+09"));
	ha_calibration_free(c);

	/* Inside the runs' range: no extrapolation warning; several n. */
	m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.01);
	o.target = (struct ha_cal_target){48, 1e5, {0}};
	o.collinear = 0.98;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(!warned(c, HA_CAL_WARN_ONE_SAMPLES, NULL));
	cr_assert(!warned(c, HA_CAL_WARN_BUDGET_OUTSIDE, NULL));
	cr_assert(!warned(c, HA_CAL_WARN_SAMPLES_OUTSIDE, NULL));
	/* E, c_b and s over d in [4, 16] are nearly collinear: exactly the
	 * pairs of the fit's correlation matrix at or past 0.98 are named. */
	cr_assert(c->fit.has_covariance);
	size_t pairs = 0;
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		for (int q = p + 1; q < HA_CAL_PARAMS; q++) {
			double r = c->fit.correlation[p][q];
			cr_assert(fabs(r - c->fit.correlation[q][p]) < 1e-12);
			cr_assert_leq(fabs(r), 1.0);
			char text[128];
			snprintf(text, sizeof text, "%s and %s are nearly collinear (correlation %.4f)",
			         ha_cal_param_str((enum ha_cal_param)p),
			         ha_cal_param_str((enum ha_cal_param)q), r);
			int big = c->fit.param[p].free && c->fit.param[q].free && fabs(r) >= 0.98;
			cr_assert_eq(warned(c, HA_CAL_WARN_COLLINEAR, text), big, "%s", text);
			pairs += (size_t)big;
		}
	cr_assert_geq(pairs, 1);
	cr_assert_geq(fabs(c->fit.correlation[HA_CAL_IRREDUCIBLE][HA_CAL_SMOOTHNESS]), 0.98);
	ha_calibration_free(c);
	o.collinear = 1.0; /* no pair is exactly collinear */
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(!warned(c, HA_CAL_WARN_COLLINEAR, NULL));
	ha_calibration_free(c);
}

Test(calibrate, no_standard_errors_says_why)
{
	/* hdi free, but every run has one head: hdi changes nothing. */
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	static const uint64_t one_head[] = {1};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, one_head, 1, samples_a, 3, 1, 0.01);
	struct ha_cal_options o = quick_options();
	o.law.free[HA_CAL_HDI] = 1;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(!c->fit.has_covariance);
	cr_assert(strstr(c->fit.no_covariance, "rank-deficient") != NULL, "%s",
	          c->fit.no_covariance);
	cr_assert(strstr(c->fit.no_covariance, "hdi") != NULL, "%s", c->fit.no_covariance);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		cr_assert(!c->fit.param[p].has_se);
	cr_assert(warned(c, HA_CAL_WARN_NO_COVARIANCE, "no standard errors: the Jacobian"));
	ha_calibration_free(c);
}

Test(calibrate, unfittable_and_unconverged_resamples_are_counted)
{
	/* Ten noisy runs under four free parameters: some resamples hold
	 * fewer than five distinct runs, and on this nearly flat objective
	 * some refits are still improving at their step cap. */
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	rng_state = 3;
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.01);
	m = 10;
	struct ha_cal_options o = quick_options();
	o.bootstrap = 1000;
	o.seed = 7;
	o.target = (struct ha_cal_target){96, 1e5, {0}};
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	cr_assert_eq(b->resamples, 1000);
	cr_assert_eq(b->seed, 7);
	cr_assert_eq(b->fitted + b->unfittable + b->failed, 1000);
	cr_assert_gt(b->unfittable, 0);
	cr_assert_gt(b->fitted, 900);
	cr_assert(warned(c, HA_CAL_WARN_UNFITTABLE, "bootstrap resamples could not be fitted"));
	cr_assert_eq(warned(c, HA_CAL_WARN_UNCONVERGED, NULL), b->unconverged > 0);
	cr_assert_eq(b->predicted, b->fitted);
	double total = 0.0;
	size_t counted = 0;
	for (size_t i = 0; i < c->prediction.distribution_count; i++) {
		const struct ha_cal_share *s = &c->prediction.distribution[i];
		cr_assert_eq(s->heads * s->head_dim, 96);
		total += s->share;
		counted += s->count;
		if (i > 0)
			cr_assert_geq(c->prediction.distribution[i - 1].count, s->count);
	}
	cr_assert_eq(counted, b->predicted);
	/* shares are over all B: the unfittable ones are "no answer" */
	cr_assert(fabs(total + c->prediction.no_answer_share - 1.0) < 1e-12);
	cr_assert(fabs(c->prediction.no_answer_share -
	               (double)(1000 - b->predicted) / 1000.0) < 1e-12);
	cr_assert_gt(c->prediction.no_answer_share, 0.0);
	ha_calibration_free(c);
}

