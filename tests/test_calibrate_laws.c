/* The calibration's ladder of laws and its numbers (headalloc-model(7),
 * CALIBRATION): the comparison prefers the law that made the runs, a law
 * that cannot be fitted is a row, and the residuals, statistics and
 * covariance agree with computations made here (the model, a
 * finite-difference Jacobian). */
#include "calibrate_truth.h"
#include "alloc/model_internal.h"
#include "calibrate/calibrate_internal.h"

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
		double n_samples = runs[i].samples;
		struct ha_model model = ha_cal_model_of(fit.law.value);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&model, n_samples, runs[i].heads * runs[i].head_dim,
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
		cr_assert_str_eq(ha_cal_param_str((enum ha_cal_param)p), names[p]);
		cr_assert_eq(ha_cal_param_lookup(names[p]), p);
		cr_assert_eq(ha_cal_param_is_log((enum ha_cal_param)p),
		             p == HA_CAL_BIAS_COEF || p == HA_CAL_VAR_COEF);
	}
	cr_assert_null(ha_cal_param_str((enum ha_cal_param)HA_CAL_PARAMS));
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
	struct ha_model back = ha_cal_model_of(law.value);
	cr_assert_eq(ha_model_log_var_coef(&back), -1598.125);
	cr_assert_eq(ha_model_log_bias_coef(&back), log(3.0));
	cr_assert_eq(back.irreducible, 1.25);
	cr_assert_eq(back.var_power, 1.5);
	cr_assert_eq(back.hdi, 0.4);
	cr_assert_eq(ha_model_validate(&back), HA_OK);
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	cr_assert(isinf(o.huber_delta) && o.huber_delta > 0);
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
	o.huber_delta = 1e-3; /* given: the Huber objective, as before the default was least squares */
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
