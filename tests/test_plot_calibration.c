/* The calibration's picture (ha_plot_calibration): valid and the same
 * bytes in every format, and right where it can be checked from outside
 * — each run's dot in its group's colour where the axes the picture
 * reports put its measured loss, the optimum at the target where the
 * allocator puts it, each bar of the bootstrap's optima as high as its
 * share, a band's tint inside it, and the caption's counts and values
 * against what is computed here (the allocator's model, the runs). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "plot_probe.h"
#include "calibrate/calibrate_internal.h"

static const unsigned WHITE[3] = {255, 255, 255}, VERMILION[3] = {213, 94, 0},
                      BLUE[3] = {0, 114, 178};
/* The groups' colours, in ascending (D, n): Okabe–Ito without black and
 * vermilion (the documented palette). */
static const unsigned GROUP[5][3] = {
	{0, 114, 178}, {0, 158, 115}, {230, 159, 0}, {204, 121, 167}, {86, 180, 233},
};

/* Seven runs of three groups, from E = 1.8, c_b = 40, s = 2,
 * ln c_v = -40.8 with a little noise; two with a standard error. */
static size_t make_runs(struct ha_run *runs)
{
	static const struct { uint64_t budget; double n; uint64_t d; double noise; } spec[] = {
		{256, 1e6, 8, 1.01},  {256, 1e6, 16, 0.99},  {256, 1e6, 32, 1.005},
		{1024, 1e9, 4, 0.995}, {1024, 1e9, 16, 1.012},
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

static struct ha_calibration *calibrate(const struct ha_run *runs, size_t m,
                                        size_t bootstrap, int compare,
                                        uint64_t budget, double samples)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law.free[HA_CAL_SMOOTHNESS] = 0; /* E, c_b, c_v: the seeds' law */
	o.bootstrap = bootstrap;
	o.compare = compare;
	o.target.budget = budget;
	o.target.samples = samples;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	return c;
}

/* The group of run i: its rank among the distinct (D, n) of the runs. */
static size_t group_of(const struct ha_run *runs, size_t m, size_t i)
{
	uint64_t d = runs[i].heads * runs[i].head_dim;
	size_t rank = 0;
	for (size_t j = 0; j < m; j++) {
		uint64_t dj = runs[j].heads * runs[j].head_dim;
		int before = dj < d || (dj == d && runs[j].samples < runs[i].samples);
		int first = 1; /* count each (D, n) once: at its first run */
		for (size_t k = 0; k < j; k++)
			first &= !(runs[k].heads * runs[k].head_dim == dj &&
			           runs[k].samples == runs[j].samples);
		rank += before && first;
	}
	return rank;
}

/* A loss on the loss axis of the picture. */
static double on_axis(const struct picture *p, double loss)
{
	return p->axes[0].y_log ? log10(loss) : loss;
}

static double pixels_y(const struct picture *p, size_t panel)
{
	const struct ha_plot_axes *a = &p->axes[panel];
	return (a->y_max - a->y_min) / ((a->top - a->bottom) * p->target.height);
}

static int far_apart(const struct picture *p, double x0, double y0, double x1,
                     double y1, int gap)
{
	int c0, r0, c1, r1;
	probe_locate(p, 0, x0, y0, &c0, &r0);
	probe_locate(p, 0, x1, y1, &c1, &r1);
	return abs(c0 - c1) > gap || abs(r0 - r1) > gap;
}

Test(calibration, valid_and_deterministic)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *all = calibrate(runs, m, 100, 1, 4096, 1e10);
	struct ha_calibration *none = calibrate(runs, m, 0, 0, 0, 0.0);
	struct ha_calibration *bare = calibrate(runs, m, 0, 1, 768, 1e9);
	probe_check_valid(probe_calibration,
	                  &(struct ha_plot_calibration_request){all, "runs.yaml", NULL});
	probe_check_valid(probe_calibration, &(struct ha_plot_calibration_request){none, NULL, NULL});
	probe_check_valid(probe_calibration, &(struct ha_plot_calibration_request){bare, "<&#>", NULL});
	ha_calibration_free(all);
	ha_calibration_free(none);
	ha_calibration_free(bare);
}

Test(calibration, the_panels_and_their_axes)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *cases[3] = {
		calibrate(runs, m, 100, 0, 4096, 1e10), /* the bars too */
		calibrate(runs, m, 100, 0, 0, 0.0),     /* no target */
		calibrate(runs, m, 0, 0, 4096, 1e10),   /* no bootstrap: no bars */
	};
	const size_t panels[3] = {2, 1, 1};
	for (size_t k = 0; k < 3; k++) {
		struct picture p;
		picture_draw(&p, HA_PLOT_SVG, probe_calibration,
		             &(struct ha_plot_calibration_request){cases[k], NULL, NULL});
		cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
		cr_assert_eq(p.target.axes_count, panels[k], "case %zu", k);
		cr_assert(p.axes[0].x_log);
		for (size_t i = 0; i < m; i++) {
			double x = log10((double)runs[i].head_dim), y = on_axis(&p, runs[i].loss);
			cr_assert(x > p.axes[0].x_min && x < p.axes[0].x_max, "run %zu across", i);
			cr_assert(y > p.axes[0].y_min && y < p.axes[0].y_max, "run %zu up", i);
		}
		/* 1.9 to 4.3: a factor below 30, a linear axis */
		cr_assert(!p.axes[0].y_log);
		picture_free(&p);
		ha_calibration_free(cases[k]);
	}
}

Test(calibration, each_run_is_a_dot_of_its_groups_colour)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 100, 1, 4096, 1e10);
	struct image im;
	struct picture p = probe_png(probe_calibration,
	                             &(struct ha_plot_calibration_request){c, NULL, NULL}, &im);
	size_t probed = 0;
	for (size_t i = 0; i < m; i++) {
		double x = log10((double)runs[i].head_dim), y = on_axis(&p, runs[i].loss);
		/* a later run's dot over this one hides it (at d = 16 two groups
		 * measure nearly the same loss) */
		int hidden = 0;
		for (size_t j = i + 1; j < m; j++)
			hidden |= !far_apart(&p, x, y, log10((double)runs[j].head_dim),
			                     on_axis(&p, runs[j].loss), 12);
		if (hidden)
			continue;
		char what[64];
		snprintf(what, sizeof what, "run %zu (d = %" PRIu64 ")", i, runs[i].head_dim);
		EXPECT_NEAR(&im, &p, 0, x, y, 1, GROUP[group_of(runs, m, i)], what);
		probed++;
	}
	cr_assert_geq(probed, 6);
	image_free(&im);
	picture_free(&p);
	ha_calibration_free(c);
}

Test(calibration, the_optimum_where_the_allocator_puts_it_and_its_bar)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 200, 0, 4096, 1e10);
	const struct ha_cal_prediction *pr = &c->prediction;
	/* the optimum, by the allocator on the calibrated model */
	struct ha_solution sol;
	cr_assert_eq(ha_solve(4096, NULL, &c->model, c->samples, &sol), HA_OK);
	cr_assert_eq(sol.optimum.head_dim, pr->head_dim);
	struct image im;
	struct picture p = probe_png(probe_calibration,
	                             &(struct ha_plot_calibration_request){c, NULL, NULL}, &im);
	cr_assert_eq(p.target.axes_count, 2);
	double x = log10((double)sol.optimum.head_dim), y = on_axis(&p, sol.optimum.terms.mse);
	for (size_t i = 0; i < m; i++)
		cr_assert(far_apart(&p, x, y, log10((double)runs[i].head_dim),
		                    on_axis(&p, runs[i].loss), 12),
		          "run %zu covers the optimum", i);
	/* a disc of radius 8 pixels centred there: vermilion 6 pixels away
	 * on each side */
	const struct ha_plot_axes *a = &p.axes[0];
	double px_x = (a->x_max - a->x_min) / ((a->right - a->left) * p.target.width);
	double px_y = pixels_y(&p, 0);
	EXPECT_NEAR(&im, &p, 0, x, y, 0, VERMILION, "the optimum at the target");
	EXPECT_NEAR(&im, &p, 0, x - 6.0 * px_x, y, 0, VERMILION, "the optimum's left");
	EXPECT_NEAR(&im, &p, 0, x + 6.0 * px_x, y, 0, VERMILION, "the optimum's right");
	EXPECT_NEAR(&im, &p, 0, x, y - 6.0 * px_y, 0, VERMILION, "the optimum's bottom");
	EXPECT_NEAR(&im, &p, 0, x, y + 6.0 * px_y, 0, VERMILION, "the optimum's top");

	/* the bars: every optimum of the bootstrap, by ascending head_dim */
	cr_assert_geq(pr->distribution_count, 2, "a test of one bar shows little");
	cr_assert_leq(pr->distribution_count, 12);
	size_t n = pr->distribution_count, total = 0;
	for (size_t i = 0; i < n; i++) {
		size_t rank = 0;
		for (size_t j = 0; j < n; j++)
			rank += pr->distribution[j].head_dim < pr->distribution[i].head_dim;
		double share = (double)pr->distribution[i].count / (double)c->bootstrap.resamples;
		total += pr->distribution[i].count;
		const unsigned *colour = pr->distribution[i].head_dim == pr->head_dim ? VERMILION : BLUE;
		char what[64];
		snprintf(what, sizeof what, "the bar of d = %" PRIu64 " (share %.3f)",
		         pr->distribution[i].head_dim, share);
		double px = pixels_y(&p, 1), at = (double)rank + 0.3;
		if (share * 1.2 / px < 8.0)
			continue; /* under 8 pixels: too low to probe its top */
		EXPECT_NEAR(&im, &p, 1, (double)rank, 0.5 * share, 0, colour, what);
		EXPECT_NEAR(&im, &p, 1, at, share - 3.0 * px, 0, colour, what);
		EXPECT_NEAR(&im, &p, 1, at, share + 3.0 * px, 0, WHITE, what);
	}
	cr_assert_eq(total, c->bootstrap.predicted);
	image_free(&im);
	picture_free(&p);
	ha_calibration_free(c);
}

Test(calibration, past_eleven_optima_the_rest_is_one_grey_bar)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 20, 0, 720720, 1e10);
	/* fifteen optima, most frequent first as ha_calibrate orders them:
	 * eleven bars, and the last four as one */
	static const size_t counts[15] = {30, 20, 15, 10, 8, 7, 6, 6, 6, 6, 6, 5, 5, 5, 5};
	static const uint64_t dims[15] = {40, 48, 36, 45, 35, 33, 30, 39, 42, 44, 52, 28, 55, 56, 60};
	struct ha_cal_prediction *pr = &c->prediction;
	free(pr->distribution);
	pr->distribution = calloc(15, sizeof *pr->distribution);
	pr->distribution_count = 15;
	pr->head_dim = 40;
	pr->heads = 720720 / 40;
	size_t total = 140;
	c->bootstrap.predicted = total;
	for (size_t i = 0; i < 15; i++)
		pr->distribution[i] = (struct ha_cal_share){720720 / dims[i], dims[i], counts[i],
		                                            (double)counts[i] / (double)total};
	struct image im;
	struct picture p = probe_png(probe_calibration,
	                             &(struct ha_plot_calibration_request){c, NULL, NULL}, &im);
	cr_assert_eq(p.target.axes_count, 2);
	cr_assert_float_eq(p.axes[1].x_max - p.axes[1].x_min, 12.2, 1e-12, "twelve bars");
	/* the shown eleven by ascending head_dim: 30 33 35 36 39 40 42 44 45 48 52 */
	static const uint64_t order[11] = {30, 33, 35, 36, 39, 40, 42, 44, 45, 48, 52};
	for (size_t i = 0; i < 11; i++) {
		size_t k = 0;
		while (dims[k] != order[i])
			k++;
		double share = (double)counts[k] / (double)total;
		char what[48];
		snprintf(what, sizeof what, "the bar of d = %" PRIu64, order[i]);
		EXPECT_NEAR(&im, &p, 1, (double)i, 0.5 * share, 0, order[i] == 40 ? VERMILION : BLUE,
		            what);
	}
	static const unsigned GREY[3] = {153, 153, 153};
	double px = pixels_y(&p, 1), others = 20.0 / (double)total;
	EXPECT_NEAR(&im, &p, 1, 11.0, 0.5 * others, 0, GREY, "the others' bar");
	EXPECT_NEAR(&im, &p, 1, 11.3, others - 3.0 * px, 0, GREY, "the others' bar's top");
	EXPECT_NEAR(&im, &p, 1, 11.3, others + 3.0 * px, 0, WHITE, "above the others' bar");
	image_free(&im);
	picture_free(&p);
	ha_calibration_free(c);
}

Test(calibration, a_band_is_its_groups_tint)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 200, 0, 0, 0.0);
	struct image im;
	struct picture p = probe_png(probe_calibration,
	                             &(struct ha_plot_calibration_request){c, NULL, NULL}, &im);
	/* the last group (D = 1024, n = 1e9) is filled last: its tint is on
	 * top wherever no curve, edge or dot is near */
	const unsigned *colour = GROUP[2];
	unsigned tint[3];
	for (int k = 0; k < 3; k++)
		tint[k] = (unsigned)lround(0.2 * colour[k] + 0.8 * 255.0);
	const struct { double budget, n; } groups[3] = {{192, 1e7}, {256, 1e6}, {1024, 1e9}};
	double px = pixels_y(&p, 0);
	size_t probed = 0;
	for (double x = p.axes[0].x_min + 0.02; x < p.axes[0].x_max; x += 0.02) {
		double d = pow(10.0, x), lines[9], lo[1], hi[1];
		if (d < 1.0)
			continue;
		for (size_t g = 0; g < 3; g++) {
			struct ha_cal_point pt = {groups[g].budget, fmin(d, groups[g].budget), groups[g].n};
			lines[3 * g] = on_axis(&p, exp(ha_cal_log_loss(c->fit.law.value, &pt)));
			cr_assert_eq(ha_cal_band(c, &pt, 1, 0.025, 0.975, lo, hi, NULL), HA_OK);
			lines[3 * g + 1] = on_axis(&p, exp(lo[0]));
			lines[3 * g + 2] = on_axis(&p, exp(hi[0]));
		}
		double y = 0.5 * (lines[6] + lines[8]); /* between the curve and the top edge */
		if (y > p.axes[0].y_max - 4.0 * px || y < p.axes[0].y_min + 4.0 * px)
			continue;
		int clear = (lines[8] - lines[6]) / px >= 10.0;
		for (size_t k = 0; k < 9; k++)
			clear &= fabs(lines[k] - y) / px > 4.0;
		for (size_t i = 0; i < m; i++)
			clear &= far_apart(&p, x, y, log10((double)runs[i].head_dim),
			                   on_axis(&p, runs[i].loss), 12);
		if (!clear)
			continue;
		char what[64];
		snprintf(what, sizeof what, "inside the band of D = 1024 at d = %.3g", d);
		EXPECT_NEAR(&im, &p, 0, x, y, 0, tint, what);
		probed++;
	}
	cr_assert_geq(probed, 3);
	image_free(&im);
	picture_free(&p);
	ha_calibration_free(c);
}

/* The SVG's text, for the caption's words. */
static char *caption_of(const struct ha_calibration *c)
{
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_calibration,
	             &(struct ha_plot_calibration_request){c, "runs.yaml", NULL});
	cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
	char *text = svg_text(p.data, p.size);
	picture_free(&p);
	return text;
}

Test(calibration, the_caption_counts_the_marks_beyond_the_axis)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 50, 1, 4096, 1e10);
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_calibration,
	             &(struct ha_plot_calibration_request){c, NULL, NULL});
	cr_assert_eq(p.status, HA_OK);
	/* the target's divisors on the axis, by the allocator's model, and
	 * the laws' optima */
	size_t above = 0, below = 0;
	for (uint64_t d = 1; d <= 4096; d *= 2) {
		double x = log10((double)d);
		if (x < p.axes[0].x_min || x > p.axes[0].x_max)
			continue;
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&c->model, c->samples, 4096, d, &t), HA_OK);
		double y = p.axes[0].y_log ? t.log_mse / log(10.0) : exp(t.log_mse);
		above += y > p.axes[0].y_max;
		below += y < p.axes[0].y_min;
	}
	for (size_t k = 0; k < c->comparison_count; k++) {
		const struct ha_cal_comparison *row = &c->comparison[k];
		if (row->status != HA_OK || !row->has_prediction)
			continue;
		double n_samples = 1e10;
		struct ha_model law = ha_cal_model_of(row->law.value);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&law, n_samples, 4096, row->head_dim, &t), HA_OK);
		double y = p.axes[0].y_log ? t.log_mse / log(10.0) : exp(t.log_mse);
		above += y > p.axes[0].y_max;
		below += y < p.axes[0].y_min;
	}
	cr_assert_gt(above, 0, "d = 64 at n = 1e10 is far above");
	char want[96];
	snprintf(want, sizeof want, "beyond the axis: %zu mark%s above, %zu below", above,
	         above == 1 ? "" : "s", below);
	char *text = svg_text(p.data, p.size);
	cr_assert_not_null(strstr(text, want), "'%s' not in:\n%s", want, text);
	/* the legend names the groups and the laws */
	cr_assert_not_null(strstr(text, "D = 192, n = 107: 2 runs"), "%s", text);
	cr_assert_not_null(strstr(text, "D = 1024, n = 109: 2 runs"), "%s", text);
	for (size_t k = 0; k < c->comparison_count; k++) {
		char law[64];
		if (c->comparison[k].status == HA_OK)
			snprintf(law, sizeof law, "%s (k = %zu)", c->comparison[k].law.name,
			         c->comparison[k].free_count);
		else /* power+data: 7 free parameters, 7 runs */
			snprintf(law, sizeof law, "%s: not fitted", c->comparison[k].law.name);
		cr_assert_not_null(strstr(text, law), "'%s' not in:\n%s", law, text);
	}
	free(text);
	picture_free(&p);
	ha_calibration_free(c);
}

Test(calibration, coefficients_beyond_a_double_are_drawn_from_their_logs)
{
	/* ln c_v = -1578: c_v = 10^-685.3, no double; d^(d/2) shows at 512 */
	double th[HA_CAL_PARAMS] = {0.01, log(100.0), 2.0, -1578.0, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	static const uint64_t dims[] = {32, 64, 128, 256, 512};
	static const double samples[] = {1e6, 1e9};
	struct ha_run runs[10];
	size_t m = 0;
	for (size_t s = 0; s < 2; s++)
		for (size_t k = 0; k < 5; k++) {
			double n_samples = samples[s];
			struct ha_model model = ha_cal_model_of(th);
			struct ha_terms t;
			cr_assert_eq(ha_model_eval(&model, n_samples, 8192, dims[k], &t), HA_OK);
			runs[m++] = (struct ha_run){8192 / dims[k], dims[k], samples[s], t.mse, NAN, 0};
		}
	struct ha_calibration *c = calibrate(runs, m, 40, 0, 16384, 1e10);
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_calibration,
	             &(struct ha_plot_calibration_request){c, NULL, NULL});
	cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
	cr_assert(p.axes[0].y_log, "0.01 to 11: a log axis");
	char *text = svg_text(p.data, p.size);
	double ln_cv = c->fit.param[HA_CAL_VAR_COEF].value;
	cr_assert(fabs(ln_cv + 1578.0) < 1e-3, "%g", ln_cv);
	char want[64];
	snprintf(want, sizeof want, "(cv = 10%.5g)", ln_cv / log(10.0));
	cr_assert_not_null(strstr(text, want), "'%s' not in:\n%s", want, text);
	cr_assert_not_null(strstr(text, "ln cv = -1578"), "%s", text);
	free(text);
	picture_free(&p);
	ha_calibration_free(c);
}

Test(calibration, the_caption_gives_every_parameter_and_the_prediction)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 0, 0, 4096, 1e10);
	char *text = caption_of(c);
	const struct ha_cal_estimate *e = &c->fit.param[HA_CAL_IRREDUCIBLE];
	char want[96];
	snprintf(want, sizeof want, "E = %.4g " "\xc2\xb1" " %.2g", e->value, e->se);
	cr_assert_not_null(strstr(text, want), "'%s' not in:\n%s", want, text);
	cr_assert_not_null(strstr(text, "fixed: s = 2,"), "%s", text);
	snprintf(want, sizeof want, "optimum %" PRIu64 " heads " "\xc3\x97" " dk = %" PRIu64,
	         c->prediction.heads, c->prediction.head_dim);
	cr_assert_not_null(strstr(text, want), "'%s' not in:\n%s", want, text);
	cr_assert_not_null(strstr(text, "no bootstrap (0 refits): no intervals, no bands"));
	cr_assert_not_null(strstr(text, "Calibration of the error model to 7 runs of runs.yaml"));
	free(text);
	ha_calibration_free(c);
}

Test(calibration, refusals_are_statuses_and_write_nothing)
{
	struct picture p;
	picture_draw(&p, HA_PLOT_PNG, probe_calibration, NULL);
	cr_assert_eq(p.status, HA_EINVAL);
	cr_assert_eq(p.size, 0);
	picture_free(&p);
	struct ha_calibration empty;
	memset(&empty, 0, sizeof empty);
	picture_draw(&p, HA_PLOT_SVG, probe_calibration,
	             &(struct ha_plot_calibration_request){&empty, NULL, NULL});
	cr_assert_eq(p.status, HA_EINVAL);
	cr_assert_str_eq(p.err.message, "a calibration's picture needs a calibration with its runs");
	cr_assert_eq(p.size, 0);
	picture_free(&p);
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 0, 0, 0, 0.0);
	cr_assert_eq(ha_plot_calibration(NULL, &(struct ha_plot_calibration_request){c, NULL, NULL}, NULL),
	             HA_EINVAL);
	picture_draw(&p, (enum ha_plot_format)9, probe_calibration,
	             &(struct ha_plot_calibration_request){c, NULL, NULL});
	cr_assert_eq(p.status, HA_EINVAL);
	cr_assert_eq(p.size, 0);
	picture_free(&p);
	/* the picture only draws: without its data (ha_cal_picture_new), or
	 * with another calibration's, it refuses */
	struct ha_plot_target t = {.stream = tmpfile(), .format = HA_PLOT_SVG};
	struct ha_error err;
	cr_assert_eq(ha_plot_calibration(&t, &(struct ha_plot_calibration_request){c, NULL, NULL},
	                                 &err),
	             HA_EINVAL);
	cr_assert_str_eq(err.message, "a calibration's picture needs its data "
	                              "from ha_cal_picture_new of the same calibration");
	struct ha_calibration *fewer = calibrate(runs, m - 1, 0, 0, 0, 0.0);
	struct ha_cal_picture *other = NULL;
	cr_assert_eq(ha_cal_picture_new(fewer, &other, &err), HA_OK);
	cr_assert_eq(ha_plot_calibration(&t, &(struct ha_plot_calibration_request){c, NULL, other},
	                                 &err),
	             HA_EINVAL);
	cr_assert_eq(ftell(t.stream), 0, "nothing written");
	fclose(t.stream);
	ha_cal_picture_free(other);
	ha_calibration_free(fewer);
	ha_calibration_free(c);
}

/* PLplot prints nothing of its own. */
Test(calibration, drawing_prints_nothing, .init = cr_redirect_stdout)
{
	cr_redirect_stderr();
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 30, 1, 4096, 1e10);
	static const enum ha_plot_format formats[] = {HA_PLOT_SVG, HA_PLOT_PNG, HA_PLOT_PDF};
	for (size_t f = 0; f < 3; f++) {
		struct picture p;
		picture_draw(&p, formats[f], probe_calibration,
		             &(struct ha_plot_calibration_request){c, NULL, NULL});
		cr_assert_eq(p.status, HA_OK);
		picture_free(&p);
	}
	ha_calibration_free(c);
	fflush(stdout);
	fflush(stderr);
	cr_assert_stdout_eq_str("");
	cr_assert_stderr_eq_str("");
}

Test(calibration, the_laws_have_a_legend_entry_each_and_the_title_fits)
{
	struct ha_run runs[8];
	size_t m = make_runs(runs);
	struct ha_calibration *c = calibrate(runs, m, 0, 1, 4096, 1e10);
	char name[300];
	memset(name, 'r', 250);
	snprintf(name + 250, sizeof name - 250, ".yaml");
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_calibration,
	             &(struct ha_plot_calibration_request){c, name, NULL});
	cr_assert_eq(p.status, HA_OK);
	char *text = svg_text(p.data, p.size);
	/* one entry a law, with its Akaike weight where it has one, or why
	 * it has no curve */
	for (size_t k = 0; k < c->comparison_count; k++) {
		const struct ha_cal_comparison *row = &c->comparison[k];
		char want[96];
		if (row->status != HA_OK) /* the data-term laws on 2 distinct n */
			snprintf(want, sizeof want, "%s: not fitted", row->law.name);
		else if (row->weight_defined)
			snprintf(want, sizeof want, "%s (k = %zu), weight %.2f", row->law.name,
			         row->free_count, row->weight);
		else
			snprintf(want, sizeof want, "%s (k = %zu)", row->law.name, row->free_count);
		cr_assert_not_null(strstr(text, want), "'%s' not in:\n%s", want, text);
	}
	/* the title: the name shortened with "...", the line no longer than
	 * the page holds at 15 pixels a character (14.05 measured) */
	const char *title = strstr(text, "Calibration of the error model");
	cr_assert_not_null(title);
	size_t len = strcspn(title, "\n");
	cr_assert(len >= 3 && strncmp(title + len - 3, "...", 3) == 0, "%.*s", (int)len, title);
	cr_assert_leq((double)len * 15.0, 0.92 * p.target.width, "%zu characters", len);
	free(text);
	picture_free(&p);
	ha_calibration_free(c);
}
