/* The honest bootstrap, the goodness of fit, the prediction's support and
 * the calibration's limits. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <headalloc/calibrate.h>
#include <headalloc/model.h>
#include <headalloc/runs.h>
#include "calibrate/calibrate_internal.h"
#define CAL_TEST_SEED 99
#include "cal_random.h"

static void truth(double *th)
{
	th[HA_CAL_IRREDUCIBLE] = 1.5;
	th[HA_CAL_BIAS_COEF] = log(3.0);
	th[HA_CAL_SMOOTHNESS] = 2.0;
	th[HA_CAL_VAR_COEF] = log(0.25e5) - 6.0 * log(12.0);
	th[HA_CAL_VAR_RATE] = 0.5;
	th[HA_CAL_VAR_POWER] = 0.0;
	th[HA_CAL_HDI] = 1.0;
	const struct ha_model d = ha_model_defaults(); /* no data term */
	th[HA_CAL_DATA_COEF] = d.data_coef;
	th[HA_CAL_DATA_POWER] = d.data_power;
	th[HA_CAL_VAR_SAMPLES_POWER] = d.var_samples_power;
}

static double loss_at(const double *th, uint64_t h, uint64_t d, double n)
{
	struct ha_cal_point p = {(double)(h * d), (double)d, n};
	return exp(ha_cal_log_loss(th, &p));
}

/* Runs over d x n at H = 64/d, noise exp(sigma z); se = sigma L when
 * with_se. */
static size_t runs_of(struct ha_run *runs, const uint64_t *dims, size_t nd,
                      const double *ns, size_t nn, double sigma, int with_se)
{
	double th[HA_CAL_PARAMS];
	truth(th);
	size_t m = 0;
	for (size_t a = 0; a < nd; a++)
		for (size_t b = 0; b < nn; b++) {
			uint64_t h = 64 / dims[a];
			double l = loss_at(th, h, dims[a], ns[b]);
			double got = l * exp(sigma * gauss());
			runs[m++] = (struct ha_run){h, dims[a], ns[b], got,
			                            with_se ? sigma * got : NAN, 0};
		}
	return m;
}

static const uint64_t dims[] = {4, 8, 16, 32};
static const double ns[] = {1e4, 1e5, 1e6};

static struct ha_cal_options opts(size_t b)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law.free[HA_CAL_SMOOTHNESS] = 0; /* the seeds' law: E, c_b, c_v */
	o.bootstrap = b;
	o.compare = 0;
	o.target = (struct ha_cal_target){64, 1e5, {0}};
	return o;
}

static struct ha_calibration *calibrate(const struct ha_run *runs, size_t m,
                                        const struct ha_cal_options *o)
{
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, o, &c, &err), HA_OK, "%s", err.message);
	return c;
}

static int same_bootstrap(const struct ha_calibration *a, const struct ha_calibration *b)
{
	return a->bootstrap.fitted == b->bootstrap.fitted &&
	       memcmp(a->bootstrap.refits, b->bootstrap.refits,
	              a->bootstrap.fitted * HA_CAL_PARAMS * sizeof(double)) == 0;
}

Test(honest, seeds_are_distinct_streams_and_threads_change_nothing)
{
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims, 4, ns, 3, 0.02, 0);
	struct ha_cal_options o = opts(40);
	uint64_t seeds[] = {0, 4357, 1, UINT64_C(1) + (UINT64_C(1) << 32), UINT64_MAX};
	struct ha_calibration *c[5];
	for (int i = 0; i < 5; i++) {
		o.seed = seeds[i];
		o.threads = 1;
		c[i] = calibrate(runs, m, &o);
	}
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			cr_assert(!same_bootstrap(c[i], c[j]), "seeds %llu and %llu give one bootstrap",
			          (unsigned long long)seeds[i], (unsigned long long)seeds[j]);
	o.seed = 1;
	o.threads = 3;
	struct ha_calibration *t = calibrate(runs, m, &o);
	cr_assert(same_bootstrap(c[2], t), "the thread count changed the refits");
	cr_assert_eq(t->prediction.distribution_count, c[2]->prediction.distribution_count);
	for (size_t i = 0; i < t->prediction.distribution_count; i++)
		cr_assert_eq(t->prediction.distribution[i].count, c[2]->prediction.distribution[i].count);
	ha_calibration_free(t);
	for (int i = 0; i < 5; i++)
		ha_calibration_free(c[i]);
}

Test(honest, shares_are_over_every_resample_and_a_thin_design_is_degenerate)
{
	/* 5 distinct configurations for 3 free parameters */
	struct ha_run runs[16];
	rng_state = 8;
	size_t m = runs_of(runs, dims, 4, ns + 1, 1, 0.02, 0);
	runs[m] = runs[0];
	runs[m++].samples = 1e6;
	struct ha_cal_options o = opts(200);
	struct ha_calibration *c = calibrate(runs, m, &o);
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	cr_assert_gt(b->unfittable, 0);
	double total = c->prediction.no_answer_share;
	size_t counted = 0;
	for (size_t i = 0; i < c->prediction.distribution_count; i++) {
		total += c->prediction.distribution[i].share;
		counted += c->prediction.distribution[i].count;
	}
	cr_assert(fabs(total - 1.0) < 1e-12);
	cr_assert(fabs(c->prediction.no_answer_share - (double)(200 - counted) / 200.0) < 1e-12);
	cr_assert(b->degenerate);
	cr_assert(warned(c, HA_CAL_WARN_DEGENERATE, "degenerate"));
	ha_calibration_free(c);

	/* 12 configurations: not degenerate */
	rng_state = 9;
	m = runs_of(runs, dims, 4, ns, 3, 0.02, 0);
	c = calibrate(runs, m, &o);
	cr_assert(!c->bootstrap.degenerate);
	cr_assert(!warned(c, HA_CAL_WARN_DEGENERATE, NULL));
	cr_assert_eq(c->bootstrap.distinct, 12);
	ha_calibration_free(c);
}

Test(honest, the_residual_bootstrap_keeps_every_run)
{
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims, 4, ns, 3, 0.02, 0);
	struct ha_cal_options o = opts(60);
	o.bootstrap_kind = HA_CAL_BOOT_RESIDUALS;
	struct ha_calibration *c = calibrate(runs, m, &o);
	cr_assert_eq(c->bootstrap.kind, HA_CAL_BOOT_RESIDUALS);
	cr_assert_eq(c->bootstrap.unfittable, 0);
	cr_assert_eq(c->bootstrap.fitted, 60);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &c->fit.param[p];
		if (!e->free)
			continue;
		cr_assert(e->has_ci && e->ci95[0] < e->ci95[1], "%s", e->name);
	}
	ha_calibration_free(c);
}

/* chi2 from the residuals by hand; p for 2 dof is exp(-chi2/2) */
Test(honest, goodness_with_se_both_sides)
{
	struct ha_run runs[16];
	rng_state = 21;
	size_t m = runs_of(runs, dims, 4, ns + 1, 1, 0.01, 1);
	runs[m] = runs[0];
	runs[m].samples = 1e6;
	double th[HA_CAL_PARAMS];
	truth(th);
	runs[m].loss = loss_at(th, runs[0].heads, runs[0].head_dim, 1e6) * exp(0.01 * gauss());
	runs[m].loss_se = 0.01 * runs[m].loss;
	m++;
	struct ha_cal_options o = opts(0);
	struct ha_calibration *c = calibrate(runs, m, &o);
	const struct ha_cal_goodness *g = &c->goodness;
	double chi2 = 0.0;
	for (size_t i = 0; i < m; i++) {
		double r = (log(runs[i].loss) - c->fit.residuals[i].log_fitted) *
		           runs[i].loss / runs[i].loss_se;
		chi2 += r * r;
	}
	cr_assert(g->has_chi2 && g->has_p);
	cr_assert_eq(g->dof, 2);
	cr_assert(fabs(g->chi2 - chi2) <= 1e-9 * chi2);
	cr_assert(fabs(g->p_value - exp(-chi2 / 2.0)) <= 1e-9);
	cr_assert_eq(g->lack_of_fit, exp(-chi2 / 2.0) < HA_CAL_LACK_OF_FIT_P);
	int before = g->lack_of_fit;
	ha_calibration_free(c);
	/* the same runs claiming a tenth of the noise misfit */
	for (size_t i = 0; i < m; i++)
		runs[i].loss_se *= 0.01;
	c = calibrate(runs, m, &o);
	cr_assert(!before);
	cr_assert(c->goodness.lack_of_fit);
	cr_assert(c->goodness.p_value < HA_CAL_LACK_OF_FIT_P);
	cr_assert(warned(c, HA_CAL_WARN_LACK_OF_FIT, "its prediction is not evidence"));
	ha_calibration_free(c);
}

Test(honest, goodness_without_se_both_sides)
{
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims, 4, ns, 3, 0.01, 0);
	struct ha_cal_options o = opts(0);
	struct ha_calibration *c = calibrate(runs, m, &o);
	double mean = 0, ss = 0, r2 = 0;
	for (size_t i = 0; i < m; i++)
		mean += log(runs[i].loss) / (double)m;
	for (size_t i = 0; i < m; i++) {
		ss += pow(log(runs[i].loss) - mean, 2);
		r2 += pow(log(runs[i].loss) - c->fit.residuals[i].log_fitted, 2);
	}
	cr_assert(!c->goodness.has_chi2);
	cr_assert(fabs(c->goodness.loss_spread - sqrt(ss / (double)m)) < 1e-12);
	cr_assert(fabs(c->goodness.rms_log_residual - sqrt(r2 / (double)m)) < 1e-12);
	cr_assert(!c->goodness.lack_of_fit);
	ha_calibration_free(c);
	/* losses with no structure in (H, d, n): the law cannot follow them */
	for (size_t i = 0; i < m; i++)
		runs[i].loss = 2.0 * exp(0.5 * gauss());
	c = calibrate(runs, m, &o);
	cr_assert(c->goodness.rms_log_residual > HA_CAL_LACK_OF_FIT_RATIO * c->goodness.loss_spread);
	cr_assert(c->goodness.lack_of_fit);
	cr_assert(warned(c, HA_CAL_WARN_LACK_OF_FIT, NULL));
	ha_calibration_free(c);
}

Test(honest, the_support_of_the_prediction)
{
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims, 4, ns, 3, 0.01, 0);
	struct ha_cal_options o = opts(40);
	struct ha_calibration *c = calibrate(runs, m, &o);
	const struct ha_cal_prediction *p = &c->prediction;
	const struct ha_cal_support *s = &p->support;
	cr_assert_eq(s->measured_head_dims[0], 4);
	cr_assert_eq(s->measured_head_dims[1], 32);
	cr_assert_eq(s->inside_measured_head_dims, p->head_dim >= 4 && p->head_dim <= 32);
	/* the best run at (64, 1e5), by hand */
	double best = INFINITY;
	for (size_t i = 0; i < m; i++)
		if (runs[i].heads * runs[i].head_dim == 64 && runs[i].samples == 1e5)
			best = fmin(best, runs[i].loss);
	cr_assert(s->has_best_measured);
	cr_assert_eq(s->best_loss, best);
	cr_assert_eq(s->beats_best_measured, p->loss < best);
	/* the runner-up's gap from the curve itself */
	cr_assert(s->has_runner_up);
	struct ha_cal_point at = {64, (double)p->head_dim, 1e5};
	struct ha_cal_point ru = {64, (double)s->runner_head_dim, 1e5};
	double gap = exp(ha_cal_log_loss(c->fit.law.value, &ru)) -
	             exp(ha_cal_log_loss(c->fit.law.value, &at));
	cr_assert(fabs(s->loss_gap - gap) <= 1e-9 * fabs(gap) + 1e-15);
	cr_assert(s->loss_gap >= 0.0);
	cr_assert(s->has_probability && s->probability_better >= 0 && s->probability_better <= 1);
	cr_assert(fabs(s->noise - c->fit.rms * p->loss) < 1e-15);
	cr_assert_eq(warned(c, HA_CAL_WARN_UNSUPPORTED, "runner-up"), !(s->loss_gap > s->noise));
	ha_calibration_free(c);

	/* a budget whose optimum lies beyond the measured head dims */
	o.target = (struct ha_cal_target){1 << 14, 1e5, {.min_head_dim = 64}};
	c = calibrate(runs, m, &o);
	cr_assert(!c->prediction.support.inside_measured_head_dims);
	cr_assert(warned(c, HA_CAL_WARN_UNSUPPORTED, "outside the measured head dims"));
	cr_assert(!c->prediction.support.has_best_measured);
	ha_calibration_free(c);
}

static void expect(const struct ha_run *runs, size_t m, const struct ha_cal_options *o,
                   enum ha_status want, const char *text)
{
	struct ha_calibration *c = NULL;
	struct ha_error err;
	enum ha_status st = ha_calibrate(runs, m, o, &c, &err);
	cr_assert_eq(st, want, "status %d: %s", st, err.message);
	if (want == HA_OK) {
		ha_calibration_free(c);
		return;
	}
	cr_assert(strstr(err.message, text), "'%s' lacks '%s'", err.message, text);
}

Test(honest, repeated_rows_are_one_design_point)
{
	/* 3 configurations exported three times each (a row per seed) */
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims + 1, 3, ns + 1, 1, 0.01, 0);
	for (size_t r = 1; r < 3; r++)
		for (size_t i = 0; i < 3; i++) {
			runs[m] = runs[i];
			runs[m++].loss *= 1.0 + 0.001 * (double)r;
		}
	struct ha_cal_options o = opts(0);
	expect(runs, m, &o, HA_EDEGENERATE, "3 distinct configurations");
}

Test(honest, one_head_dim_when_the_fixed_ones_allow_it)
{
	struct ha_run runs[8];
	double th[HA_CAL_PARAMS];
	truth(th);
	uint64_t heads[] = {2, 4, 8};
	size_t m = 0;
	for (size_t h = 0; h < 3; h++)
		for (size_t n = 0; n < 2; n++)
			runs[m++] = (struct ha_run){heads[h], 16, ns[n],
			                            loss_at(th, heads[h], 16, ns[n]), NAN, 0};
	struct ha_cal_options o = opts(0);
	o.target.budget = 0;
	expect(runs, m, &o, HA_EDEGENERATE, "irreducible and bias_coef");
	o.law.free[HA_CAL_BIAS_COEF] = 0; /* E and c_v free: n tells them apart */
	o.law.value[HA_CAL_BIAS_COEF] = th[HA_CAL_BIAS_COEF];
	expect(runs, m, &o, HA_OK, NULL);
}

Test(honest, non_finite_objectives_name_their_value_and_work_is_bounded)
{
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims, 4, ns, 3, 0.01, 0);
	struct ha_cal_options o = opts(0);
	o.law.value[HA_CAL_VAR_COEF] = 1e300;
	o.law.free[HA_CAL_VAR_COEF] = 0;
	expect(runs, m, &o, HA_EINVAL, "var_coef");
	o = opts(0);
	runs[2].loss_se = 1e300;
	expect(runs, m, &o, HA_EINVAL, "run 3: loss_se");
	runs[2].loss_se = NAN;
	o = opts(1000000);
	o.compare = 1;
	cr_assert_gt(ha_cal_work(m, &o), HA_CAL_WORK_MAX);
	expect(runs, m, &o, HA_EINVAL, "run-fits, above the limit");
	o.bootstrap = 1000;
	cr_assert_leq(ha_cal_work(m, &o), HA_CAL_WORK_MAX);
}

/* The limit charges only the fits that run: without a comparison no
 * leave-one-out, without resamples no refits, so a file of the most runs
 * a runs file holds is calibrated with --bootstrap 0. */
Test(honest, work_charges_only_the_fits_that_run)
{
	struct ha_cal_options o = opts(0);
	o.compare = 0;
	cr_assert_eq(ha_cal_work_laws(&o), 0);
	cr_assert_float_eq(ha_cal_work(HA_RUNS_MAX, &o), (double)HA_RUNS_MAX, 0.5);
	cr_assert_leq(ha_cal_work(HA_RUNS_MAX, &o), HA_CAL_WORK_MAX);
	o.bootstrap = 1000; /* the main fit and its resamples */
	cr_assert_float_eq(ha_cal_work(10, &o), 10.0 * 1001.0, 0.5);
	o.compare = 1; /* and each law's fit, leave-one-outs and 50 resamples */
	cr_assert_eq(ha_cal_work_laws(&o), HA_CAL_LADDER);
	cr_assert_float_eq(ha_cal_work(10, &o),
	                   10.0 * (1001.0 + HA_CAL_LADDER * (11.0 + 50.0)), 0.5);
	struct ha_cal_law mine = o.law;
	o.compare = 0; /* a user law alone runs the ladder too */
	o.laws = &mine;
	o.law_count = 1;
	cr_assert_eq(ha_cal_work_laws(&o), HA_CAL_LADDER + 1);
	o.bootstrap = 3; /* fewer resamples than the comparison's share */
	cr_assert_float_eq(ha_cal_work(10, &o),
	                   10.0 * (4.0 + (HA_CAL_LADDER + 1) * (11.0 + 3.0)), 0.5);
}

static int cancel_at(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	(void)what;
	(void)total;
	return done >= *(uint64_t *)ctx;
}

Test(honest, the_bootstrap_reports_progress_and_cancels)
{
	struct ha_run runs[16];
	rng_state = 5;
	size_t m = runs_of(runs, dims, 4, ns, 3, 0.02, 0);
	struct ha_cal_options o = opts(50);
	uint64_t at = 3;
	o.progress = (struct ha_progress){cancel_at, &at};
	struct ha_calibration *c = (struct ha_calibration *)1;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_ECANCELED);
	cr_assert_null(c);
}
