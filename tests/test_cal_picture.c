/* A calibration's picture data (ha_cal_picture_new): the groups, the
 * window and the curves against independent computations — the model's
 * own evaluation (ha_model_eval) at the divisors, divisors and constraints
 * by brute force, the runs' groups by direct comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#define LN10 2.302585092994045684

/* Eight runs of three groups, from E = 1.8, c_b = 40, s = 2,
 * ln c_v = -40.8 with a little noise; two with a standard error. */
static size_t make_runs(struct ha_run *runs)
{
	static const struct { uint64_t budget; double n; uint64_t d; double noise; } spec[] = {
		{256, 1e6, 8, 1.01},   {256, 1e6, 16, 0.99},  {256, 1e6, 32, 1.005},
		{1024, 1e9, 4, 0.995}, {1024, 1e9, 16, 1.012}, {1024, 1e9, 64, 1.003},
		{192, 1e7, 12, 0.988}, {192, 1e7, 24, 1.0},
	};
	double th[HA_CAL_PARAMS] = {1.8, log(40.0), 2.0, -40.8, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	size_t m = sizeof spec / sizeof *spec;
	for (size_t i = 0; i < m; i++) {
		double n_samples = spec[i].n;
		struct ha_model model = ha_cal_model_of(th);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&model, n_samples, spec[i].budget, spec[i].d, &t), HA_OK);
		double loss = t.mse * spec[i].noise;
		runs[i] = (struct ha_run){spec[i].budget / spec[i].d, spec[i].d, spec[i].n, loss,
		                          i == 1 || i == 6 ? 0.03 * loss : NAN, 0};
	}
	return m;
}

static struct ha_calibration *calibrate(const struct ha_run *runs, size_t m, size_t bootstrap,
                                        int compare, uint64_t budget, uint64_t multiple)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law.free[HA_CAL_SMOOTHNESS] = 0;
	o.bootstrap = bootstrap;
	o.compare = compare;
	o.target.budget = budget;
	o.target.samples = budget ? 1e8 : 0.0;
	o.target.constraints.head_dim_multiple = multiple;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	return c;
}

static void check_curve(const struct ha_cal_picture *p, const struct ha_cal_picture_curve *cv,
                        double budget)
{
	cr_assert_eq(cv->n, HA_CAL_PICTURE_CURVE_POINTS);
	cr_assert_float_eq(cv->x[0], fmax(p->x0, 0.0), 1e-12);
	cr_assert_float_eq(cv->x[cv->n - 1], fmin(p->x1, log10(budget)), 1e-12);
	for (size_t j = 0; j < cv->n; j++) {
		cr_assert(isfinite(cv->y[j]), "point %zu: %g", j, cv->y[j]);
		if (j)
			cr_assert_gt(cv->x[j], cv->x[j - 1]);
	}
}

Test(cal_picture, groups_window_curves_and_marks)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 40, 1, 4096, 8);
	struct ha_cal_picture *p = NULL;
	struct ha_error err;
	cr_assert_eq(ha_cal_picture_new(c, &p, &err), HA_OK, "%s", err.message);
	cr_assert_eq(p->runs, m);

	/* the groups: each run in the group of its (D, n), groups distinct
	 * and ascending, counts adding up */
	cr_assert_eq(p->group_count, 3);
	size_t total = 0;
	for (size_t g = 0; g < p->group_count; g++) {
		total += p->groups[g].count;
		if (g)
			cr_assert(p->groups[g - 1].budget < p->groups[g].budget);
		cr_assert(p->groups[g].curve, "three groups: each has its curve");
	}
	cr_assert_eq(total, m);
	for (size_t i = 0; i < m; i++) {
		const struct ha_cal_picture_group *g = &p->groups[p->group_of[i]];
		cr_assert_eq(g->budget, runs[i].heads * runs[i].head_dim);
		cr_assert_eq(g->samples, runs[i].samples);
	}
	cr_assert_eq(p->groups[p->largest].count, 3); /* D = 256 and 1024: the first */
	cr_assert_eq(p->groups[p->largest].budget, 256);

	/* the window holds every run and the prediction */
	cr_assert(c->prediction.defined);
	for (size_t i = 0; i < m; i++) {
		cr_assert_geq(log10((double)runs[i].head_dim), p->x0);
		cr_assert_leq(log10((double)runs[i].head_dim), p->x1);
	}
	cr_assert_geq(log10((double)c->prediction.head_dim), p->x0);
	cr_assert_leq(log10((double)c->prediction.head_dim), p->x1);

	/* the curves and bands */
	cr_assert(p->have_band);
	for (size_t g = 0; g < p->group_count; g++) {
		const struct ha_cal_picture_group *gr = &p->groups[g];
		check_curve(p, &gr->fit, (double)gr->budget);
		cr_assert_eq(gr->band.n, HA_CAL_PICTURE_BAND_POINTS);
		for (size_t j = 0; j < gr->band.n; j++)
			cr_assert(isfinite(gr->band.lo[j]) && gr->band.lo[j] <= gr->band.hi[j]);
	}
	check_curve(p, &p->target, 4096.0);

	/* the marks: the divisors of 4096 on the window, by brute force;
	 * feasible ones multiples of 8; losses the allocator's model's */
	double n_samples = c->prediction.samples;
	struct ha_model model = ha_cal_model_of(c->fit.law.value);
	size_t on = 0, feasible_on = 0, feasible = 0, optimum = 0;
	for (uint64_t d = 1; d <= 4096; d++) {
		if (4096 % d)
			continue;
		feasible += d % 8 == 0;
		double x = log10((double)d);
		if (x < p->x0 || x > p->x1)
			continue;
		const struct ha_cal_picture_mark *mk = &p->marks[on++];
		cr_assert_float_eq(mk->x, x, 1e-15);
		cr_assert_eq(mk->feasible, d % 8 == 0, "d = %llu", (unsigned long long)d);
		cr_assert_eq(mk->has_band, mk->feasible);
		feasible_on += mk->feasible;
		optimum += mk->optimum;
		if (mk->optimum)
			cr_assert_eq(d, c->prediction.head_dim);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&model, n_samples, 4096, d, &t), HA_OK);
		cr_assert_float_eq(mk->y, log10(t.mse), 1e-9 * fabs(log10(t.mse)) + 1e-12,
		                   "d = %llu: %.17g, the model %.17g", (unsigned long long)d,
		                   mk->y, log10(t.mse));
		if (mk->has_band)
			cr_assert(mk->lo <= mk->hi);
	}
	cr_assert_eq(p->mark_count, on);
	cr_assert_eq(p->target_on_axis, on);
	cr_assert_eq(p->target_feasible_on_axis, feasible_on);
	cr_assert_eq(p->target_feasible, feasible);
	cr_assert_eq(optimum, 1);

	/* one law a comparison row; a fitted one has its curve at the target */
	cr_assert_eq(p->law_count, c->comparison_count);
	for (size_t k = 0; k < p->law_count; k++) {
		if (c->comparison[k].status != HA_OK) {
			cr_assert_eq(p->laws[k].curve.n, 0);
			continue;
		}
		check_curve(p, &p->laws[k].curve, 4096.0);
		cr_assert_eq(p->laws[k].has_mark, c->comparison[k].has_prediction);
	}
	ha_cal_picture_free(p);
	ha_calibration_free(c);
}

Test(cal_picture, without_bootstrap_or_target)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 0, 0, 0, 0);
	struct ha_cal_picture *p = NULL;
	cr_assert_eq(ha_cal_picture_new(c, &p, NULL), HA_OK);
	cr_assert_not(p->have_band);
	cr_assert_eq(p->target.n, 0);
	cr_assert_eq(p->mark_count, 0);
	cr_assert_eq(p->law_count, 0);
	for (size_t g = 0; g < p->group_count; g++)
		cr_assert_eq(p->groups[g].band.n, 0);
	/* the window: the runs' head dimensions 4 to 64, padded */
	double pad = fmax(0.06 * (log10(64.0) - log10(4.0)), 0.12);
	cr_assert_float_eq(p->x0, log10(4.0) - pad, 1e-15);
	cr_assert_float_eq(p->x1, log10(64.0) + pad, 1e-15);
	ha_cal_picture_free(p);
	ha_calibration_free(c);
}

Test(cal_picture, refusals)
{
	struct ha_cal_picture *p = (struct ha_cal_picture *)1;
	struct ha_error err;
	cr_assert_eq(ha_cal_picture_new(NULL, &p, &err), HA_EINVAL);
	cr_assert_null(p);
	cr_assert_str_eq(err.message, "a calibration's picture needs a calibration with its runs");
	struct ha_calibration empty;
	memset(&empty, 0, sizeof empty);
	cr_assert_eq(ha_cal_picture_new(&empty, &p, &err), HA_EINVAL);
	cr_assert_eq(ha_cal_picture_new(&empty, NULL, NULL), HA_EINVAL);
	ha_cal_picture_free(NULL);
}
