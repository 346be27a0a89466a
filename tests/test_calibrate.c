/* The calibration (headalloc-model(7), CALIBRATION) against what is known by construction:
 * runs generated from known parameters (through ha_model_eval, not the
 * calibration's own objective), answers that must lie on a bound, every
 * refusal and warning, and the covariance against a finite-difference
 * Jacobian of the model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include <headalloc/calibrate.h>
#include <headalloc/solver.h>

#define MAX_RUNS 128

/* Fit-scale parameters: E, ln c_b, s, ln c_v, γ, κ, hdi. */
struct truth {
	double th[HA_CAL_PARAMS];
};

static uint64_t rng_state = 12345;

static double unit(void)
{
	rng_state = rng_state * UINT64_C(6364136223846793005) +
	            UINT64_C(1442695040888963407);
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2.0 * log(unit())) * cos(6.283185307179586 * unit());
}

/* The loss of (H, d, n) under th, through the allocator's model. */
static double loss_of(const double *th, uint64_t heads, uint64_t dim, double n)
{
	struct ha_model m = ha_cal_model_of(th, n);
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, heads * dim, dim, &t), HA_OK);
	cr_assert(isfinite(t.mse) && t.mse > 0);
	return t.mse;
}

/* Runs on the grid dims x heads x samples, the combinations (a, b, c)
 * with a + b + c divisible by `stride` (so every d, H and n appears),
 * with multiplicative noise exp(sigma z). */
static size_t make_runs(struct ha_run *runs, const double *th,
                        const uint64_t *dims, size_t nd,
                        const uint64_t *heads, size_t nh,
                        const double *samples, size_t ns, size_t stride,
                        double sigma)
{
	size_t m = 0;
	for (size_t a = 0; a < nd; a++)
		for (size_t b = 0; b < nh; b++)
			for (size_t c = 0; c < ns; c++) {
				if ((a + b + c) % stride)
					continue;
				cr_assert_lt(m, MAX_RUNS);
				double l = loss_of(th, heads[b], dims[a], samples[c]);
				runs[m++] = (struct ha_run){heads[b], dims[a], samples[c],
				                            l * exp(sigma * gauss()), NAN, 0};
			}
	return m;
}

static struct ha_cal_law law_with(const double *th, const int *free)
{
	struct ha_cal_law law;
	memset(&law, 0, sizeof law);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		law.value[p] = th[p];
		law.free[p] = free[p];
	}
	return law;
}

static void assert_recovers(const struct ha_cal_fit *fit, const double *th,
                            double tol)
{
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		double got = fit->param[p].value;
		double err = fabs(got - th[p]);
		cr_assert(err <= tol * fmax(fabs(th[p]), 1e-3),
		          "%s: fitted %.17g, true %.17g", fit->param[p].name, got, th[p]);
	}
}

/* The optimum at the target under th, by the allocator (the oracle). */
static struct ha_allocation oracle(const double *th, const struct ha_cal_target *t)
{
	struct ha_model m = ha_cal_model_of(th, t->samples);
	struct ha_solution sol;
	cr_assert_eq(ha_solve(t->budget, &t->constraints, &m, &sol), HA_OK);
	return sol.optimum;
}

static const uint64_t dims_a[] = {4, 6, 8, 10, 12, 14, 16};
static const uint64_t heads_a[] = {2, 4, 8};
static const double samples_a[] = {1e4, 1e5, 1e6};

static void seeds_truth(double *th)
{
	th[HA_CAL_IRREDUCIBLE] = 1.5;
	th[HA_CAL_BIAS_COEF] = log(3.0);
	th[HA_CAL_SMOOTHNESS] = 1.0;
	th[HA_CAL_VAR_COEF] = log(0.25e5) - 6.0 * log(12.0);
	th[HA_CAL_VAR_RATE] = 0.5;
	th[HA_CAL_VAR_POWER] = 0.0;
	th[HA_CAL_HDI] = 1.0;
	th[HA_CAL_DATA_COEF] = 0.0; /* the data term's defaults: none */
	th[HA_CAL_DATA_POWER] = 0.28;
	th[HA_CAL_VAR_SAMPLES_POWER] = 1.0;
}

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
	cr_assert_eq(c->model.samples, target->samples);
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

/* ---- refusals and errors ---------------------------------------------- */

static struct ha_cal_options quick_options(void)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = 0;
	o.compare = 0;
	return o;
}

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
		             ha_cal_param_name((enum ha_cal_param)fixed[i].param));
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

static int has_warning(const struct ha_calibration *c,
                       enum ha_cal_warning_kind kind, const char *fragment)
{
	for (size_t i = 0; i < c->warning_count; i++)
		if (c->warnings[i].kind == kind &&
		    (!fragment || strstr(c->warnings[i].message, fragment)))
			return 1;
	return 0;
}

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
	cr_assert(has_warning(c, HA_CAL_WARN_ONE_SAMPLES, "every run has samples 100000"));
	cr_assert(has_warning(c, HA_CAL_WARN_BUDGET_OUTSIDE, "target budget 4096 lies outside the runs' budgets [8, 128]"));
	cr_assert(has_warning(c, HA_CAL_WARN_SAMPLES_OUTSIDE, "target samples 1e+09"));
	ha_calibration_free(c);

	/* Inside the runs' range: no extrapolation warning; several n. */
	m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.01);
	o.target = (struct ha_cal_target){48, 1e5, {0}};
	o.collinear = 0.98;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(!has_warning(c, HA_CAL_WARN_ONE_SAMPLES, NULL));
	cr_assert(!has_warning(c, HA_CAL_WARN_BUDGET_OUTSIDE, NULL));
	cr_assert(!has_warning(c, HA_CAL_WARN_SAMPLES_OUTSIDE, NULL));
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
			         ha_cal_param_name((enum ha_cal_param)p),
			         ha_cal_param_name((enum ha_cal_param)q), r);
			int big = c->fit.param[p].free && c->fit.param[q].free && fabs(r) >= 0.98;
			cr_assert_eq(has_warning(c, HA_CAL_WARN_COLLINEAR, text), big, "%s", text);
			pairs += (size_t)big;
		}
	cr_assert_geq(pairs, 1);
	cr_assert_geq(fabs(c->fit.correlation[HA_CAL_IRREDUCIBLE][HA_CAL_SMOOTHNESS]), 0.98);
	ha_calibration_free(c);
	o.collinear = 1.0; /* no pair is exactly collinear */
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(!has_warning(c, HA_CAL_WARN_COLLINEAR, NULL));
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
	cr_assert(has_warning(c, HA_CAL_WARN_NO_COVARIANCE, "no standard errors: the Jacobian"));
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
	cr_assert(has_warning(c, HA_CAL_WARN_UNFITTABLE, "bootstrap resamples could not be fitted"));
	cr_assert_eq(has_warning(c, HA_CAL_WARN_UNCONVERGED, NULL), b->unconverged > 0);
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

/* ---- the comparison of laws -------------------------------------------- */

Test(calibrate, the_ladder_of_laws)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law.free[HA_CAL_HDI] = 1;
	o.law.value[HA_CAL_HDI] = 0.8;
	struct ha_cal_law laws[HA_CAL_LADDER];
	cr_assert_eq(ha_cal_ladder(&o.law, laws), 7);
	static const char *const names[] = {"seeds", "smoothness", "power_s2",
	                                    "power", "rate", "seeds+data",
	                                    "power+data"};
	static const int k[] = {4, 5, 5, 6, 6, 6, 8};
	for (int l = 0; l < 7; l++) {
		cr_assert_str_eq(laws[l].name, names[l]);
		size_t free = 0;
		for (int p = 0; p < HA_CAL_PARAMS; p++)
			free += laws[l].free[p] != 0;
		cr_assert_eq(free, (size_t)k[l], "%s", names[l]);
		cr_assert(laws[l].free[HA_CAL_IRREDUCIBLE] && laws[l].free[HA_CAL_BIAS_COEF] &&
		          laws[l].free[HA_CAL_VAR_COEF] && laws[l].free[HA_CAL_HDI]);
	}
	cr_assert(!laws[0].free[HA_CAL_SMOOTHNESS]);
	cr_assert_eq(laws[0].value[HA_CAL_SMOOTHNESS], 2.0);
	cr_assert_eq(laws[0].value[HA_CAL_VAR_RATE], 0.5);
	/* power_s2: the power law with s held at 2 (k = 4 without hdi) */
	cr_assert(!laws[2].free[HA_CAL_SMOOTHNESS] && laws[2].free[HA_CAL_VAR_POWER]);
	cr_assert_eq(laws[2].value[HA_CAL_SMOOTHNESS], 2.0);
	cr_assert_eq(laws[2].value[HA_CAL_VAR_RATE], 0.0);
	cr_assert_eq(laws[3].value[HA_CAL_VAR_RATE], 0.0);
	cr_assert(laws[3].free[HA_CAL_VAR_POWER] && !laws[3].free[HA_CAL_VAR_RATE]);
	cr_assert(laws[4].free[HA_CAL_VAR_RATE] && !laws[4].free[HA_CAL_VAR_POWER]);
	cr_assert_eq(laws[4].value[HA_CAL_VAR_POWER], 0.0);
	/* The data-term rungs: seeds and power with A and α free; β fixed. */
	for (int l = 0; l < 7; l++) {
		int data = l >= 5;
		cr_assert_eq(laws[l].free[HA_CAL_DATA_COEF], data, "%s", names[l]);
		cr_assert_eq(laws[l].free[HA_CAL_DATA_POWER], data, "%s", names[l]);
		cr_assert(!laws[l].free[HA_CAL_VAR_SAMPLES_POWER]);
	}
	for (int p = 0; p < HA_CAL_DATA_COEF; p++) {
		cr_assert_eq(laws[5].free[p], laws[0].free[p]);
		cr_assert_eq(laws[6].free[p], laws[3].free[p]);
	}
	/* The nesting, pair by pair (a law contains itself). */
	static const int contains[7][7] = {
		/* seeds smooth power_s2 power rate seeds+data power+data */
		{1, 0, 0, 0, 0, 0, 0}, /* seeds */
		{1, 1, 0, 0, 0, 0, 0}, /* smoothness */
		{0, 0, 1, 0, 0, 0, 0}, /* power_s2 */
		{0, 0, 1, 1, 0, 0, 0}, /* power */
		{1, 1, 0, 0, 1, 0, 0}, /* rate */
		{1, 0, 0, 0, 0, 1, 0}, /* seeds+data */
		{0, 0, 1, 1, 0, 0, 1}, /* power+data */
	};
	for (int a = 0; a < 7; a++)
		for (int b = 0; b < 7; b++)
			cr_assert_eq(ha_cal_law_contains(&laws[a], &laws[b]), contains[a][b],
			             "%s contains %s", names[a], names[b]);
}

Test(calibrate, comparison_prefers_the_law_that_made_the_runs)
{
	/* Noise-free runs from a power-law variance (γ = 0, κ = 2): the
	 * "power" rung fits them exactly, the seeds' law does not. */
	double th[HA_CAL_PARAMS] = {1.0, log(4.0), 1.0, log(0.5e4 / 4096.0), 0.0, 2.0, 1.0, 0.0, 0.28, 1.0};
	static const uint64_t dims[] = {2, 4, 8, 16, 32, 64, 128, 256};
	static const uint64_t heads[] = {1, 4};
	static const double n[] = {1e3, 1e4, 1e5};
	struct ha_run runs[MAX_RUNS];
	rng_state = 5;
	size_t m = make_runs(runs, th, dims, 8, heads, 2, n, 3, 2, 0.002);
	struct ha_cal_options o = quick_options();
	o.compare = 1;
	o.huber_delta = INFINITY;
	o.target = (struct ha_cal_target){1024, 1e4, {0}};
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	/* three distinct n: the data-term rungs are fitted too */
	cr_assert_eq(c->comparison_count, HA_CAL_LADDER);
	const struct ha_cal_comparison *seeds = &c->comparison[0];
	const struct ha_cal_comparison *power = &c->comparison[3];
	cr_assert_str_eq(seeds->law.name, "seeds");
	cr_assert_str_eq(power->law.name, "power");
	for (size_t l = 0; l < HA_CAL_LADDER; l++) {
		const struct ha_cal_comparison *row = &c->comparison[l];
		cr_assert_eq(row->status, HA_OK, "%s: %s", row->law.name, row->message);
		/* AICc and BIC from their formulas (headalloc-model(7), CALIBRATION). */
		double dm = (double)m, dk = (double)row->free_count;
		cr_assert(row->aicc_defined && row->bic_defined);
		double aicc = dm * log(row->rss / dm) + 2 * dk + 2 * dk * (dk + 1) / (dm - dk - 1);
		cr_assert(fabs(row->aicc - aicc) < 1e-9 * fmax(1.0, fabs(aicc)));
		cr_assert(fabs(row->bic - (dm * log(row->rss / dm) + dk * log(dm))) < 1e-9 * fmax(1.0, fabs(row->bic)));
		cr_assert(row->loo_defined);
		cr_assert(row->loo_rmse >= 0.0 && isfinite(row->loo_rmse));
		cr_assert(row->has_prediction);
		cr_assert_eq(row->heads * row->head_dim, 1024);
	}
	cr_assert_lt(power->rss, 0.1 * seeds->rss);
	cr_assert_lt(power->aicc, seeds->aicc);
	cr_assert_lt(power->loo_rmse, seeds->loo_rmse);
	/* The power rung recovers κ within the noise, and predicts the
	 * oracle's allocation. */
	cr_assert(fabs(power->law.value[HA_CAL_VAR_POWER] - 2.0) < 0.1);
	struct ha_allocation want = oracle(th, &o.target);
	cr_assert_eq(power->head_dim, want.head_dim);
	ha_calibration_free(c);
}

Test(calibrate, a_law_that_cannot_be_fitted_is_a_row_not_an_error)
{
	/* Five runs: the seeds' law (3 free) fits, with m - k - 1 = 1; the
	 * 4-parameter rungs fit with m - k - 1 = 0 (no AICc); the
	 * 5-parameter rungs need six runs. */
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	rng_state = 9;
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.01);
	m = 5;
	struct ha_cal_options o = quick_options();
	o.compare = 1;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert_eq(c->comparison[0].status, HA_OK);
	cr_assert(c->comparison[0].aicc_defined);
	cr_assert_eq(c->comparison[1].status, HA_OK);
	cr_assert(!c->comparison[1].aicc_defined);
	cr_assert_eq(c->comparison[1].aicc, 0.0);
	cr_assert(c->comparison[1].bic_defined);
	/* Leave one out of five leaves four: too few for four parameters. */
	cr_assert(!c->comparison[1].loo_defined);
	cr_assert(c->comparison[0].loo_defined);
	cr_assert_eq(c->comparison[2].status, HA_OK); /* power_s2, k = 4 */
	for (int l = 3; l < 5; l++) {
		cr_assert_eq(c->comparison[l].status, HA_EDEGENERATE);
		cr_assert(strstr(c->comparison[l].message, "5 runs cannot fit 5 free parameters"),
		          "%s", c->comparison[l].message);
		cr_assert(!c->comparison[l].has_prediction);
	}
	cr_assert(!c->fit.aicc_defined);
	ha_calibration_free(c);
}

/* ---- the fit's numbers against independent computations ---------------- */

Test(calibrate, residuals_and_statistics_agree_with_the_model)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	rng_state = 21;
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 2, 0.02);
	/* Standard errors on every other run. */
	for (size_t i = 0; i < m; i += 2)
		runs[i].loss_se = 0.01 * runs[i].loss * (1.0 + (double)(i % 3));
	struct ha_cal_options o = quick_options();
	struct ha_cal_fit fit;
	struct ha_error err;
	cr_assert_eq(ha_cal_fit_runs(runs, m, &o.law, 1e-3, &fit, &err), HA_OK, "%s", err.message);
	cr_assert_eq(fit.runs, m);
	cr_assert_eq(fit.free_count, 4);
	double rss = 0, sum2 = 0, objective = 0;
	for (size_t i = 0; i < m; i++) {
		const struct ha_cal_residual *r = &fit.residuals[i];
		cr_assert_eq(r->head_dim, runs[i].head_dim);
		cr_assert_eq(r->loss, runs[i].loss);
		/* The fitted loss is the calibrated model's error at the run. */
		struct ha_model model = ha_cal_model_of(fit.law.value, runs[i].samples);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&model, runs[i].heads * runs[i].head_dim,
		                           runs[i].head_dim, &t), HA_OK);
		cr_assert(fabs(r->fitted - t.mse) <= 1e-13 * t.mse, "run %zu", i);
		cr_assert(fabs(r->residual - (log(runs[i].loss) - t.log_mse)) < 1e-13);
		double w = isnan(runs[i].loss_se) ? 1.0 : runs[i].loss / runs[i].loss_se;
		cr_assert(fabs(r->standardised - w * r->residual) < 1e-13);
		rss += r->standardised * r->standardised;
		sum2 += r->residual * r->residual;
		double a = fabs(r->standardised);
		objective += a <= 1e-3 ? 0.5 * a * a : 1e-3 * (a - 0.5e-3);
	}
	cr_assert(fabs(fit.rss - rss) <= 1e-12 * rss);
	cr_assert(fabs(fit.rms - sqrt(sum2 / (double)m)) <= 1e-12 * fit.rms);
	cr_assert(fabs(fit.objective - objective) <= 1e-12 * objective);
	/* A local minimum: no coordinate step of any free parameter lowers
	 * the objective (computed here from the model). */
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		if (!fit.law.free[p])
			continue;
		for (int sign = -1; sign <= 1; sign += 2) {
			double moved[HA_CAL_PARAMS];
			memcpy(moved, fit.law.value, sizeof moved);
			moved[p] += sign * 1e-5 * fmax(1.0, fabs(moved[p]));
			double f = 0;
			for (size_t i = 0; i < m; i++) {
				double w = isnan(runs[i].loss_se) ? 1.0 : runs[i].loss / runs[i].loss_se;
				double a = fabs(w * (log(runs[i].loss) -
				                     log(loss_of(moved, runs[i].heads, runs[i].head_dim,
				                                 runs[i].samples))));
				f += a <= 1e-3 ? 0.5 * a * a : 1e-3 * (a - 0.5e-3);
			}
			cr_assert_geq(f, objective * (1 - 1e-12), "%s %+d", fit.param[p].name, sign);
		}
	}
	ha_cal_fit_finish(&fit);
	ha_cal_fit_finish(NULL);
}

/* The Gauss–Newton covariance against one computed here: the residuals'
 * Jacobian by central differences of ha_model_eval, then
 * sigma^2 (J'J)^-1 by GSL's Cholesky. */
Test(calibrate, covariance_agrees_with_a_finite_difference_jacobian)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	rng_state = 33;
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 1, 0.02);
	struct ha_cal_options o = quick_options();
	struct ha_cal_fit fit;
	struct ha_error err;
	cr_assert_eq(ha_cal_fit_runs(runs, m, &o.law, INFINITY, &fit, &err), HA_OK, "%s", err.message);
	cr_assert(fit.has_covariance);
	int idx[4] = {HA_CAL_IRREDUCIBLE, HA_CAL_BIAS_COEF, HA_CAL_SMOOTHNESS, HA_CAL_VAR_COEF};
	gsl_matrix *j = gsl_matrix_alloc(m, 4), *jtj = gsl_matrix_alloc(4, 4);
	for (size_t c = 0; c < 4; c++) {
		double h = 1e-6 * fmax(1.0, fabs(fit.law.value[idx[c]]));
		double up[HA_CAL_PARAMS], down[HA_CAL_PARAMS];
		memcpy(up, fit.law.value, sizeof up);
		memcpy(down, fit.law.value, sizeof down);
		up[idx[c]] += h;
		down[idx[c]] -= h;
		for (size_t i = 0; i < m; i++) {
			double lu = log(loss_of(up, runs[i].heads, runs[i].head_dim, runs[i].samples));
			double ld = log(loss_of(down, runs[i].heads, runs[i].head_dim, runs[i].samples));
			gsl_matrix_set(j, i, c, -(lu - ld) / (2 * h));
		}
	}
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 4; b++) {
			double s = 0;
			for (size_t i = 0; i < m; i++)
				s += gsl_matrix_get(j, i, a) * gsl_matrix_get(j, i, b);
			gsl_matrix_set(jtj, a, b, s);
		}
	cr_assert_eq(gsl_linalg_cholesky_decomp1(jtj), 0);
	cr_assert_eq(gsl_linalg_cholesky_invert(jtj), 0);
	double sigma2 = fit.rss / (double)(m - 4);
	for (size_t a = 0; a < 4; a++) {
		for (size_t b = 0; b < 4; b++) {
			double want = sigma2 * gsl_matrix_get(jtj, a, b);
			double got = fit.covariance[idx[a]][idx[b]];
			double scale = sqrt(sigma2 * gsl_matrix_get(jtj, a, a) *
			                    sigma2 * gsl_matrix_get(jtj, b, b));
			cr_assert(fabs(got - want) <= 1e-5 * scale, "cov[%zu][%zu] %g vs %g", a, b, got, want);
		}
		cr_assert(fit.param[idx[a]].has_se);
		cr_assert(fabs(fit.param[idx[a]].se - sqrt(sigma2 * gsl_matrix_get(jtj, a, a))) <=
		          1e-5 * fit.param[idx[a]].se);
	}
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (!fit.law.free[p]) {
			cr_assert(!fit.param[p].has_se);
			cr_assert_eq(fit.covariance[p][p], 0.0);
			cr_assert_eq(fit.param[p].value, th[p]);
		}
	gsl_matrix_free(j);
	gsl_matrix_free(jtj);
	ha_cal_fit_finish(&fit);
}

Test(calibrate, names_and_models)
{
	static const char *const names[] = {"irreducible", "bias_coef", "smoothness",
	                                    "var_coef", "var_rate", "var_power", "hdi",
	                                    "data_coef", "data_power",
	                                    "var_samples_power", "group_hdi"};
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		cr_assert_str_eq(ha_cal_param_name((enum ha_cal_param)p), names[p]);
		cr_assert_eq(ha_cal_param_lookup(names[p]), p);
		cr_assert_eq(ha_cal_param_is_log((enum ha_cal_param)p),
		             p == HA_CAL_BIAS_COEF || p == HA_CAL_VAR_COEF);
	}
	cr_assert_null(ha_cal_param_name((enum ha_cal_param)HA_CAL_PARAMS));
	cr_assert_eq(ha_cal_param_lookup("var-coef"), -1);
	cr_assert_eq(ha_cal_param_lookup(NULL), -1);
	/* A law from a model and back: exact, whatever the coefficients. */
	struct ha_model m = ha_model_defaults();
	m.irreducible = 1.25;
	m.smoothness = 0.75;
	ha_model_set_log_var_coef(&m, -1598.125);
	m.bias_coef = 3.0;
	m.var_rate = 0.2;
	m.var_power = 1.5;
	m.hdi = 0.4;
	struct ha_cal_law law;
	ha_cal_law_from_model(&law, &m);
	cr_assert_eq(law.value[HA_CAL_VAR_COEF], -1598.125);
	cr_assert_eq(law.value[HA_CAL_BIAS_COEF], log(3.0));
	struct ha_model back = ha_cal_model_of(law.value, m.samples);
	cr_assert_eq(ha_model_log_var_coef(&back), -1598.125);
	cr_assert_eq(ha_model_log_bias_coef(&back), log(3.0));
	cr_assert_eq(back.irreducible, 1.25);
	cr_assert_eq(back.var_power, 1.5);
	cr_assert_eq(back.hdi, 0.4);
	cr_assert_eq(ha_model_validate(&back), HA_OK);
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	cr_assert_eq(o.huber_delta, 1e-3);
	cr_assert_eq(o.bootstrap, 1000);
	cr_assert_eq(o.target.budget, 0);
}

Test(calibrate, a_law_with_nothing_free_evaluates_the_given_model)
{
	double th[HA_CAL_PARAMS];
	seeds_truth(th);
	rng_state = 44;
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, dims_a, 7, heads_a, 3, samples_a, 3, 3, 0.05);
	int none[HA_CAL_PARAMS] = {0};
	struct ha_cal_options o = quick_options();
	o.law = law_with(th, none);
	o.bootstrap = 10;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert_eq(c->fit.free_count, 0);
	cr_assert_eq(c->fit.starts, 1);
	cr_assert(!c->fit.has_covariance);
	double objective = 0;
	for (size_t i = 0; i < m; i++) {
		double a = fabs(log(runs[i].loss) -
		                log(loss_of(th, runs[i].heads, runs[i].head_dim, runs[i].samples)));
		objective += a <= 1e-3 ? 0.5 * a * a : 1e-3 * (a - 0.5e-3);
	}
	cr_assert(fabs(c->fit.objective - objective) <= 1e-12 * objective);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		cr_assert_eq(c->fit.param[p].value, th[p]);
		cr_assert(!c->fit.param[p].has_ci && !c->fit.param[p].at_bound);
	}
	cr_assert_eq(c->warning_count, 0);
	ha_calibration_free(c);
}
