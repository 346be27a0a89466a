/* The calibration (headalloc-model(7), CALIBRATION) against what is known
 * by construction: runs generated from known parameters recovered, answers
 * that must lie on a bound, and the bootstrap's reproducibility.  The
 * refusals and warnings are in test_calibrate_refusals.c, the ladder of
 * laws and the fit's statistics in test_calibrate_laws.c. */
#include "calibrate_truth.h"
#include "alloc/model_internal.h"

/* ---- recovery from noise-free runs ------------------------------------ */

static void check_noise_free(const double *th, const int *free,
                             const struct ha_run *runs, size_t m,
                             const struct ha_cal_target *target)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law = law_with(th, free);
	/* The grid's starts must find the truth: perturb the (ignored)
	 * values of the free parameters. */
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (free[p])
			o.law.value[p] = th[p] + 0.3;
	o.bootstrap = 20;
	o.compare = 0;
	o.target = *target;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	assert_recovers(&c->fit, th, 1e-6);
	cr_assert_geq(c->fit.reached_best, 1);
	cr_assert_leq(c->fit.reached_best, c->fit.starts);
	cr_assert_lt(c->fit.rms, 1e-9);
	for (size_t i = 0; i < m; i++)
		cr_assert(fabs(c->fit.residuals[i].residual) < 1e-9);
	/* The calibrated model carries the fitted coefficients exactly. */
	cr_assert_eq(ha_model_log_var_coef(&c->model), c->fit.param[HA_CAL_VAR_COEF].value);
	cr_assert_eq(ha_model_log_bias_coef(&c->model), c->fit.param[HA_CAL_BIAS_COEF].value);
	cr_assert_eq(c->samples, target->samples);
	/* ... and predicts the oracle's optimum. */
	struct ha_allocation want = oracle(th, target);
	cr_assert(c->prediction.defined);
	cr_assert_eq(c->prediction.head_dim, want.head_dim);
	cr_assert_eq(c->prediction.heads, want.heads);
	cr_assert(fabs(c->prediction.loss - want.terms.mse) <= 1e-6 * want.terms.mse);
	ha_calibration_free(c);
}

Test(calibrate, recovers_the_four_parameter_law_from_noise_free_runs)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.0);
	int free[HA_CAL_PARAMS] = {1, 1, 1, 1, 0, 0, 0};
	struct ha_cal_target t = {96, 1e5, {.head_dim_multiple = 2}};
	check_noise_free(th, free, runs, m, &t);
	struct ha_cal_target t2 = {240, 3e6, {0}};
	check_noise_free(th, free, runs, m, &t2);
}

Test(calibrate, recovers_all_seven_parameters_from_noise_free_runs)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	th[HA_CAL_VAR_RATE] = 0.4;
	th[HA_CAL_VAR_POWER] = 0.8;
	th[HA_CAL_HDI] = 0.7;
	th[HA_CAL_VAR_COEF] = log(0.25e5) - (0.4 * 12.0 + 0.8) * log(12.0);
	static const uint64_t heads[] = {1, 2, 4, 8};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads, 4, samples_a, 3, 2, 0.0);
	int free[HA_CAL_PARAMS] = {1, 1, 1, 1, 1, 1, 1};
	struct ha_cal_target t = {64, 2e5, {0}};
	check_noise_free(th, free, runs, m, &t);
}

Test(calibrate, recovers_a_power_law_variance)
{
	/* γ = 0, κ = 2: variance a power of d (headalloc-model(7), CALIBRATION (The parameters)). */
	double th[HA_CAL_PARAMS] = {1.0, log(4.0), 1.0, log(0.5e4 / 4096.0), 0.0, 2.0, 1.0, 0.0, 0.28, 1.0};
	static const uint64_t dims[] = {2, 4, 8, 16, 32, 64, 128, 256};
	static const uint64_t heads[] = {1, 4};
	static const double n[] = {1e3, 1e4, 1e5};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims, 8, heads, 2, n, 3, 2, 0.0);
	int free[HA_CAL_PARAMS] = {1, 1, 1, 1, 0, 1, 0};
	struct ha_cal_target t = {1024, 1e4, {.head_dim_multiple = 8}};
	check_noise_free(th, free, runs, m, &t);
}

Test(calibrate, recovers_a_variance_coefficient_beyond_a_double)
{
	/* ln c_v = -1585: c_v is not a double; the variance shows at d = 512. */
	double th[HA_CAL_PARAMS] = {1.5, log(300.0), 1.0, -1585.0, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	static const uint64_t dims[] = {256, 320, 384, 448, 512};
	static const uint64_t heads[] = {1, 2};
	static const double n[] = {1e4, 1e5, 1e6};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims, 5, heads, 2, n, 3, 1, 0.0);
	int free[HA_CAL_PARAMS] = {1, 1, 1, 1, 0, 0, 0};
	struct ha_cal_target t = {4096, 1e5, {.min_head_dim = 256}};
	check_noise_free(th, free, runs, m, &t);
}

/* ---- bounds ------------------------------------------------------------ */

Test(calibrate, an_answer_beyond_the_domain_ends_on_its_bound)
{
	/* Losses with κ = -1 (outside κ >= 0), computed by hand: the best
	 * κ >= 0 is 0, on its bound. */
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	struct ha_run runs[MAX_RUNS];
	size_t m = 0;
	for (size_t a = 0; a < 7; a++)
		for (size_t c = 0; c < 3; c++) {
			double d = (double)dims_a[a];
			double l = th[HA_CAL_IRREDUCIBLE] +
			           exp(th[HA_CAL_BIAS_COEF]) * pow(d, -1.0) +
			           exp(th[HA_CAL_VAR_COEF] + (0.5 * d - 1.0) * log(d)) /
			           samples_a[c] / 4.0;
			runs[m++] = (struct ha_run){4, dims_a[a], samples_a[c], l, NAN, 0};
		}
	int free[HA_CAL_PARAMS] = {1, 1, 1, 1, 0, 1, 0};
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law = law_with(th, free);
	o.bootstrap = 0;
	o.compare = 0;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(c->fit.param[HA_CAL_VAR_POWER].at_bound);
	cr_assert(fabs(c->fit.param[HA_CAL_VAR_POWER].value) < 1e-8);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (p != HA_CAL_VAR_POWER)
			cr_assert(!c->fit.param[p].at_bound, "%s", c->fit.param[p].name);
	int warned = 0;
	for (size_t i = 0; i < c->warning_count; i++)
		warned |= c->warnings[i].kind == HA_CAL_WARN_AT_BOUND &&
		          strstr(c->warnings[i].message, "var_power") != NULL;
	cr_assert(warned);
	/* The fit is no better than what κ = 0 allows: its residuals are
	 * not zero. */
	cr_assert_gt(c->fit.rms, 1e-6);
	ha_calibration_free(c);
}

/* ---- the bootstrap ------------------------------------------------------ */

Test(calibrate, the_bootstrap_is_reproducible_and_seeded)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	rng_state = 11;
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 2, 0.01);
	struct ha_cal_options o = quick_options();
	o.bootstrap = 200;
	o.target = (struct ha_cal_target){96, 1e5, {0}};
	struct ha_calibration *a = NULL, *b = NULL, *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &a, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_calibrate(runs, m, &o, &b, &err), HA_OK, "%s", err.message);
	o.seed = 2;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	int differs = 0;
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &a->fit.param[p];
		cr_assert_eq(e->has_ci, e->free);
		if (!e->free)
			continue;
		cr_assert_eq(e->ci95[0], b->fit.param[p].ci95[0]);
		cr_assert_eq(e->ci95[1], b->fit.param[p].ci95[1]);
		cr_assert_leq(e->ci95[0], e->ci95[1]);
		differs |= e->ci95[0] != c->fit.param[p].ci95[0];
	}
	cr_assert(differs);
	cr_assert_eq(a->prediction.distribution_count, b->prediction.distribution_count);
	for (size_t i = 0; i < a->prediction.distribution_count; i++)
		cr_assert_eq(a->prediction.distribution[i].count,
		             b->prediction.distribution[i].count);
	ha_calibration_free(a);
	ha_calibration_free(b);
	ha_calibration_free(c);

	/* B = 0: no intervals, no distribution. */
	o.bootstrap = 0;
	cr_assert_eq(ha_calibrate(runs, m, &o, &a, &err), HA_OK, "%s", err.message);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		cr_assert(!a->fit.param[p].has_ci);
	cr_assert_null(a->prediction.distribution);
	cr_assert_eq(a->bootstrap.fitted, 0);
	ha_calibration_free(a);
}

