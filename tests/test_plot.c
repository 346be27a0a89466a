/* The pictures: each kind drawn for a golden case in every format; the
 * file is valid (PNG decoded by libpng with the size of its IHDR, SVG
 * well-formed XML, PDF framed), deterministic (two drawings are the same
 * bytes) and right: pixels probed where the axes the picture reports put
 * values computed here independently (brute force over the divisors, the
 * fixtures' known overlaps and weights) must have the expected colour. */
#define _GNU_SOURCE /* fmemopen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "plot_probe.h"
#include "alloc/model_internal.h"
#include "alloc/solver_internal.h"
#include "hdi/hdi_internal.h"
#include "hdi_measure_file.h"
#include "plot/plot_internal.h"

static const unsigned BLUE[3] = {0, 114, 178}, VERMILION[3] = {213, 94, 0},
                      GREY[3] = {153, 153, 153}, WHITE[3] = {255, 255, 255},
                      LIGHT_GREY[3] = {225, 225, 225};

static const enum ha_plot_format formats[] = {HA_PLOT_SVG, HA_PLOT_PNG, HA_PLOT_PDF};

/* ---- independent answers ------------------------------------------------------ */

static int feasible(uint64_t budget, uint64_t d, const struct ha_constraints *c)
{
	uint64_t h = budget / d;
	return !(c->head_dim_multiple && d % c->head_dim_multiple) &&
	       !(c->min_head_dim && d < c->min_head_dim) &&
	       !(c->max_head_dim && d > c->max_head_dim) &&
	       !(c->min_heads && h < c->min_heads) && !(c->max_heads && h > c->max_heads);
}

/* The feasible divisor of least MSE, by trying every one (ties: the
 * smaller), and log10 of its MSE. */
static uint64_t brute_optimum(const struct ha_model *m, double samples, uint64_t budget,
                              const struct ha_constraints *c, double *log10_mse)
{
	uint64_t best = 0;
	double best_log = INFINITY;
	for (uint64_t d = 1; d <= budget; d++) {
		struct ha_terms t;
		if (budget % d || !feasible(budget, d, c))
			continue;
		cr_assert_eq(ha_model_eval(m, samples, budget, d, &t), HA_OK);
		if (t.log_mse < best_log) {
			best_log = t.log_mse;
			best = d;
		}
	}
	*log10_mse = best_log / log(10.0);
	return best;
}

static double log10_mse(const struct ha_model *m, double samples, uint64_t budget,
                        uint64_t d)
{
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(m, samples, budget, d, &t), HA_OK);
	return t.log_mse / log(10.0);
}

/* ---- 1. the landscape ----------------------------------------------------------- */

Test(landscape, valid_and_deterministic)
{
	double n_samples = 1e8;
	struct ha_model m = ha_model_defaults();
	probe_check_valid(probe_landscape, &(struct probe_landscape_request){{&m, NULL, 512, NULL, NULL}, n_samples});
}

Test(landscape, optimum_and_divisors_where_the_axes_put_them)
{
	double n_samples = 1e8;
	struct ha_model m = ha_model_defaults();
	struct ha_constraints none = {0};
	struct image im;
	struct picture p = probe_png(probe_landscape,
	                       &(struct probe_landscape_request){{&m, NULL, 512, NULL, NULL}, n_samples}, &im);
	cr_assert_eq(p.target.axes_count, 1);
	cr_assert(p.axes[0].x_log && !p.axes[0].y_log);
	double best_log;
	uint64_t best = brute_optimum(&m, n_samples, 512, &none, &best_log);
	cr_assert_eq(best, 8);
	EXPECT_NEAR(&im, &p, 0, log10(8.0), best_log, 1, VERMILION, "the integer optimum");
	EXPECT_NEAR(&im, &p, 0, log10(16.0), log10_mse(&m, n_samples, 512, 16), 1, BLUE, "divisor 16");
	EXPECT_NEAR(&im, &p, 0, log10(2.0), log10_mse(&m, n_samples, 512, 2), 1, BLUE, "divisor 2");
	/* d = 64 is 10^49.8, beyond the axis: an arrowhead at the top edge */
	cr_assert_gt(log10_mse(&m, n_samples, 512, 64), p.axes[0].y_max);
	EXPECT_NEAR(&im, &p, 0, log10(64.0), p.axes[0].y_max, 8, BLUE, "d = 64's mark at the edge");
	/* the relaxed optimum: a dashed vertical line low in the window */
	struct ha_solution sol;
	cr_assert_eq(ha_solve(512, NULL, &m, n_samples, &sol), HA_OK);
	double low = p.axes[0].y_min + 0.04 * (p.axes[0].y_max - p.axes[0].y_min);
	EXPECT_NEAR(&im, &p, 0, log10(sol.relaxed.head_dim), low, 8, VERMILION, "the relaxed optimum");
	/* nothing up and left, where the error never is */
	double high = p.axes[0].y_max - 0.15 * (p.axes[0].y_max - p.axes[0].y_min);
	EXPECT_NOT_NEAR(&im, &p, 0, log10(2.0), high, 5, BLUE, "an empty corner");
	EXPECT_NEAR(&im, &p, 0, log10(2.0), high, 0, WHITE, "an empty corner");
	image_free(&im);
	picture_free(&p);
}

Test(landscape, infeasible_divisors_are_grey)
{
	double n_samples = 3e9;
	struct ha_model m = ha_model_defaults();
	struct ha_constraints c = {.min_head_dim = 16};
	struct image im;
	struct picture p = probe_png(probe_landscape,
	                       &(struct probe_landscape_request){{&m, &c, 768, NULL, NULL}, n_samples}, &im);
	double best_log;
	uint64_t best = brute_optimum(&m, n_samples, 768, &c, &best_log);
	cr_assert_eq(best, 16);
	EXPECT_NEAR(&im, &p, 0, log10(16.0), best_log, 1, VERMILION, "the constrained optimum");
	EXPECT_NEAR(&im, &p, 0, log10(4.0), log10_mse(&m, n_samples, 768, 4), 1, GREY, "divisor 4");
	EXPECT_NEAR(&im, &p, 0, log10(12.0), log10_mse(&m, n_samples, 768, 12), 1, GREY, "divisor 12");
	EXPECT_NEAR(&im, &p, 0, log10(24.0), log10_mse(&m, n_samples, 768, 24), 1, BLUE, "divisor 24");
	image_free(&im);
	picture_free(&p);
}

Test(landscape, caption_counts_what_is_beyond_the_axis)
{
	double n_samples = 1e8;
	struct ha_model m = ha_model_defaults();
	struct picture p;
	char *text0;
	picture_draw(&p, HA_PLOT_SVG, probe_landscape,
	             &(struct probe_landscape_request){{&m, NULL, 512, NULL, NULL}, n_samples});
	cr_assert_eq(p.status, HA_OK);
	/* every value of the four curves above the window, counted here */
	size_t above = 0;
	for (uint64_t d = 1; d <= 512; d *= 2) {
		struct ha_terms t;
		ha_model_eval(&m, n_samples, 512, d, &t);
		double v[4] = {t.log_mse, t.log_bias2, t.log_variance, t.log_covariance};
		for (int k = 0; k < 4; k++)
			above += isfinite(v[k]) && v[k] / log(10.0) > p.axes[0].y_max;
	}
	cr_assert_gt(above, 0);
	char expected[96];
	snprintf(expected, sizeof expected, "off the axis: %zu values above", above);
	cr_assert_not_null(strstr(text0 = svg_text(p.data, p.size), "MSE off the axis"));
	free(text0);
	char *text = svg_text(p.data, p.size);
	cr_assert_not_null(strstr(text, expected), "'%s' not in:\n%s", expected, text);
	cr_assert_not_null(strstr(text, "10 divisors, 10 feasible"));
	cr_assert_not_null(strstr(text, "64 heads"));
	cr_assert_not_null(strstr(text, "integer optimum (dk = 8)"), "%s", text);
	free(text);
	picture_free(&p);
}

Test(landscape, the_most_divisors_of_any_budget)
{
	/* 161,280 divisors: curves at the picture's resolution, no marks */
	double n_samples = 1e12;
	struct ha_model m = ha_model_defaults();
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_landscape,
	             &(struct probe_landscape_request){{&m, NULL, UINT64_C(9200527969062830400), NULL, NULL}, n_samples});
	cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
	cr_assert_lt(p.size, 4u << 20, "%zu bytes", p.size);
	char *text = svg_text(p.data, p.size);
	cr_assert_not_null(strstr(text, "161280 divisors, 161280 feasible (not marked)"), "%s", text);
	free(text);
	picture_free(&p);
}

/* ---- 2. the sweep ------------------------------------------------------------------ */

/* n = 1e4, 1e5, ..., 1e12 */
static const struct ha_samples decades = {.count = 9, .from = 1e4, .to = 1e12};

Test(sweep, valid_and_deterministic)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {128, 512};
	probe_check_valid(probe_sweep, &(struct ha_sweep_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 2, .samples = decades});
	uint64_t many[] = {128, 256, 512, 1024};
	probe_check_valid(probe_sweep, &(struct ha_sweep_request){.model = &m, .constraints = NULL, .budgets = many, .budget_count = 4, .samples = {.count = 1, .from = 1e4}});
}

Test(sweep, each_budget_steps_where_its_optimum_is)
{
	struct ha_model m = ha_model_defaults();
	struct ha_constraints none = {0};
	uint64_t budgets[] = {128, 512};
	struct image im;
	struct picture p = probe_png(probe_sweep, &(struct ha_sweep_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 2, .samples = decades}, &im);
	cr_assert_eq(p.target.axes_count, 1);
	cr_assert(p.axes[0].x_log);
	cr_assert(p.axes[0].x_min < 4.0 && p.axes[0].x_max > 12.0);
	const unsigned *colour[2] = {BLUE, VERMILION};
	/* between the marked decades, so that only the steps are there */
	double at[] = {5.5, 7.5, 9.5, 10.3, 11.5};
	for (size_t i = 0; i < sizeof at / sizeof *at; i++)
		for (size_t b = 0; b < 2; b++) {
			double n_mn = pow(10.0, at[i]);
			struct ha_model mn = ha_model_defaults();
			double unused;
			uint64_t d = brute_optimum(&mn, n_mn, budgets[b], &none, &unused);
			char what[64];
			snprintf(what, sizeof what, "D = %llu at n = 10^%g (d* = %llu)",
			         (unsigned long long)budgets[b], at[i], (unsigned long long)d);
			EXPECT_NEAR(&im, &p, 0, at[i], (double)d, 3, colour[b], what);
		}
	/* at 2e10 D = 512 has switched to 16 and D = 128 not: no blue there */
	double n_mn = pow(10.0, 10.3);
	struct ha_model mn = ha_model_defaults();
	double unused;
	cr_assert_eq(brute_optimum(&mn, n_mn, 512, &none, &unused), 16);
	cr_assert_eq(brute_optimum(&mn, n_mn, 128, &none, &unused), 8);
	EXPECT_NOT_NEAR(&im, &p, 0, 10.3, 16.0, 2, BLUE, "D = 128 is not at 16 yet");
	image_free(&im);
	picture_free(&p);
}

Test(sweep, caption_gives_the_fit_and_the_claim)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {512};
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_sweep,
	             &(struct ha_sweep_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 1, .samples = decades});
	cr_assert_eq(p.status, HA_OK);
	char *text = svg_text(p.data, p.size);
	cr_assert_not_null(strstr(text, "seeds claim b = 0.3333 (outside the interval)"), "%s", text);
	free(text);
	picture_free(&p);
}

/* ---- 3. the regimes ---------------------------------------------------------------- */

Test(regimes, valid_and_deterministic)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {512, 4096};
	probe_check_valid(probe_regimes, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 2});
	uint64_t small[] = {24};
	probe_check_valid(probe_regimes, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = small, .budget_count = 1});
}

Test(regimes, each_bar_has_its_head_dims_colour)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {512, 4096};
	struct image im;
	struct picture p = probe_png(probe_regimes, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 2}, &im);
	cr_assert_eq(p.target.axes_count, 2, "the full range and the zoom");
	struct ha_regime *reg[2];
	size_t count[2];
	uint64_t dims[64];
	size_t ndims = 0;
	for (size_t b = 0; b < 2; b++) {
		struct ha_solver *s;
		cr_assert_eq(ha_solver_new(budgets[b], NULL, &s), HA_OK);
		size_t nf;
		const uint64_t *feasible = ha_solver_feasible(s, &nf);
		cr_assert_eq(ha_regime_compute(&m, budgets[b], feasible, nf, &reg[b],
		                               &count[b]), HA_OK);
		ha_solver_free(s);
		/* the distinct head_dims drawn (those starting below 10^300) */
		for (size_t i = 0; i < count[b]; i++) {
			if (reg[b][i].log_samples_from / log(10.0) >= 300.0)
				continue;
			size_t j = 0;
			while (j < ndims && dims[j] != reg[b][i].head_dim)
				j++;
			if (j == ndims)
				dims[ndims++] = reg[b][i].head_dim;
		}
	}
	for (size_t panel = 0; panel < 2; panel++) {
		double x1 = p.axes[panel].x_max;
		for (size_t b = 0; b < 2; b++)
			for (size_t i = 0; i < count[b]; i++) {
				double from = reg[b][i].log_samples_from / log(10.0);
				double to = fmin(reg[b][i].log_samples_to / log(10.0), x1);
				if (from >= x1)
					continue;
				int c0, c1, row;
				probe_locate(&p, panel, from, 0.0, &c0, &row);
				probe_locate(&p, panel, to, 0.0, &c1, &row);
				if (c1 - c0 < 8)
					continue; /* too narrow to probe between its lines */
				size_t rank = 0;
				for (size_t j = 0; j < ndims; j++)
					rank += dims[j] < reg[b][i].head_dim;
				unsigned rgb[3];
				probe_viridis((double)rank / (double)(ndims - 1), rgb);
				char what[96];
				snprintf(what, sizeof what, "panel %zu, D = %llu, d_k = %llu", panel,
				         (unsigned long long)budgets[b],
				         (unsigned long long)reg[b][i].head_dim);
				EXPECT_NEAR(&im, &p, panel, 0.5 * (from + to), (double)b + 0.25, 0, rgb, what);
			}
	}
	free(reg[0]);
	free(reg[1]);
	image_free(&im);
	picture_free(&p);
}

Test(regimes, caption_counts_the_regimes_beyond_a_double)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {512};
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_regimes, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 1});
	cr_assert_eq(p.status, HA_OK);
	char *text = svg_text(p.data, p.size);
	/* d = 256 from 10^312.29 and d = 512 from 10^698.5 (the report's) */
	cr_assert_not_null(strstr(text, "2 of D = 512 (from 10312.3)"), "%s", text);
	free(text);
	picture_free(&p);
}

/* ---- 4. head overlaps ---------------------------------------------------------------- */

static struct ha_hdi_report *two_layers(void)
{
	struct ha_hdi_report *r = NULL;
	struct ha_error err;
	cr_assert_eq(hdi_measure_file(HA_TEST_DATA "/two-layers.safetensors",
	                              "model.layers.*.k_proj.weight", 12, HA_LAYOUT_OUT_IN,
	                              &r, &err), HA_OK, "%s", err.message);
	cr_assert_eq(r->count, 2);
	return r;
}

Test(hdi, valid_and_deterministic)
{
	struct ha_hdi_report *r = two_layers();
	probe_check_valid(probe_hdi, &(struct ha_plot_hdi_request){.file = "two-layers.safetensors", .hdi = r});
	size_t one = 1;
	double baseline[2] = {0.8, 0.2};
	probe_check_valid(probe_hdi, &(struct ha_plot_hdi_request){
		.file = "f", .hdi = r, .layers = &one, .layer_count = 1, .baseline = baseline});
	ha_hdi_report_free(r);
}

Test(hdi, every_cell_has_its_overlaps_colour)
{
	struct ha_hdi_report *r = two_layers();
	struct image im;
	struct picture p = probe_png(probe_hdi, &(struct ha_plot_hdi_request){.file = "f", .hdi = r}, &im);
	cr_assert_eq(p.target.axes_count, 3, "two heatmaps and the strip");
	/* the fixture's own numbers (tests/data/README.md) */
	cr_assert_float_eq(r->tensors[0].overlap[5 * 12 + 6], 1.0, 1e-9);
	cr_assert_float_eq(r->tensors[0].overlap[0 * 12 + 11], 0.0, 1e-9);
	EXPECT_NEAR(&im, &p, 0, 6.0, 5.0, 0, ((unsigned[3]){253, 231, 37}), "g(5, 6) = 1");
	EXPECT_NEAR(&im, &p, 0, 11.0, 0.0, 0, ((unsigned[3]){68, 1, 84}), "g(0, 11) = 0");
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < 12; i++)
			for (size_t j = 0; j < 12; j++) {
				unsigned rgb[3];
				probe_viridis(r->tensors[k].overlap[i * 12 + j], rgb);
				char what[64];
				snprintf(what, sizeof what, "layer %zu, cell (%zu, %zu)", k, i, j);
				EXPECT_NEAR(&im, &p, k, (double)j, (double)i, 0, rgb, what);
			}
	/* the strip: a bar to each layer's HDI */
	for (size_t k = 0; k < 2; k++) {
		double hdi = r->tensors[k].hdi;
		EXPECT_NEAR(&im, &p, 2, (double)k, 0.5 * hdi, 0, BLUE, "an HDI bar");
		/* (off the tick marks at whole k) */
		EXPECT_NEAR(&im, &p, 2, (double)k + 0.15, hdi + 0.25, 0, WHITE, "above an HDI bar");
	}
	image_free(&im);
	picture_free(&p);
	ha_hdi_report_free(r);
}

Test(hdi, one_layer_and_the_baseline_hook)
{
	struct ha_hdi_report *r = two_layers();
	size_t one = 1;
	double baseline[2] = {0.8, 0.2};
	struct image im;
	struct picture p = probe_png(probe_hdi, &(struct ha_plot_hdi_request){
		.file = "f", .hdi = r, .layers = &one, .layer_count = 1, .baseline = baseline}, &im);
	cr_assert_eq(p.target.axes_count, 2);
	EXPECT_NEAR(&im, &p, 1, 0.0, 0.5 * r->tensors[0].hdi, 0, LIGHT_GREY, "the other layer");
	EXPECT_NEAR(&im, &p, 1, 1.0, 0.5 * r->tensors[1].hdi, 0, BLUE, "this layer");
	EXPECT_NEAR(&im, &p, 1, 0.0, 0.8, 6, VERMILION, "layer 0's baseline");
	EXPECT_NEAR(&im, &p, 1, 1.0, 0.2, 6, VERMILION, "layer 1's baseline");
	image_free(&im);
	picture_free(&p);
	ha_hdi_report_free(r);
}

/* One picture a layer (--plot-each): with selected_only the picture of
 * layer 3 holds that layer alone, the same marks whatever the report's
 * count of layers (counted in the SVG: its paths, its size). */
Test(hdi, selected_only_holds_its_own_layer)
{
	struct ha_hdi_report *r = two_layers();
	enum { FEW = 4, MANY = 64 };
	struct ha_hdi_tensor copies[MANY];
	double baseline[MANY];
	for (size_t i = 0; i < MANY; i++) {
		copies[i] = r->tensors[i % 2];
		baseline[i] = 0.5;
	}
	size_t three = 3, paths[2], sizes[2];
	const size_t counts[2] = {FEW, MANY};
	for (int k = 0; k < 2; k++) {
		struct ha_hdi_report many = {.tensors = copies, .count = counts[k],
		                             .mean_hdi = r->mean_hdi};
		struct picture p;
		picture_draw(&p, HA_PLOT_SVG, probe_hdi, &(struct ha_plot_hdi_request){
			.file = "f", .hdi = &many, .layers = &three, .layer_count = 1,
			.baseline = baseline, .selected_only = 1});
		cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
		paths[k] = 0;
		for (const char *at = p.data; (at = strstr(at, "<path")); at++)
			paths[k]++;
		sizes[k] = p.size;
		picture_free(&p);
	}
	cr_expect_eq(paths[0], paths[1], "%zu paths for %d layers, %zu for %d", paths[0],
	             FEW, paths[1], MANY);
	/* the caption's count of layers is all that differs */
	cr_expect_lt(sizes[1], sizes[0] + 16, "%zu bytes for %d layers, %zu for %d",
	             sizes[0], FEW, sizes[1], MANY);
	struct ha_hdi_report many = {.tensors = copies, .count = MANY, .mean_hdi = r->mean_hdi};
	struct image im;
	struct picture p = probe_png(probe_hdi, &(struct ha_plot_hdi_request){
		.file = "f", .hdi = &many, .layers = &three, .layer_count = 1,
		.baseline = baseline, .selected_only = 1}, &im);
	EXPECT_NEAR(&im, &p, 1, 3.0, 0.5 * copies[3].hdi, 0, BLUE, "layer 3's bar");
	EXPECT_NEAR(&im, &p, 1, 3.0, 0.5, 6, VERMILION, "layer 3's baseline");
	image_free(&im);
	picture_free(&p);
	ha_hdi_report_free(r);
}

Test(hdi, hostile_names_and_many_heads)
{
	enum { H = 300 };
	char name[] = "<&\"'>#\x01\xff]]> & more";
	double *g = calloc(H * H, sizeof *g);
	for (size_t i = 0; i < H; i++)
		g[i * H + i] = 1.0;
	struct ha_hdi_tensor t = {.name = name, .heads = H, .head_dim = 1, .model_dim = H,
	                          .hdi = 1.0, .overlap = g, .pairs = H * (H - 1) / 2};
	struct ha_hdi_report r = {.tensors = &t, .count = 1, .mean_hdi = 1.0};
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_hdi, &(struct ha_plot_hdi_request){.file = "a<b>&c#", .hdi = &r});
	cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
	char why[160];
	cr_assert(xml_well_formed(p.data, p.size, why, sizeof why), "%s", why);
	char *text = svg_text(p.data, p.size);
	cr_assert_not_null(strstr(text, "layer 0: <&\"'>#??]]> & more"), "%s", text);
	cr_assert_not_null(strstr(text, "(block means)"));
	cr_assert_not_null(strstr(text, "Head overlaps of a<b>&c#"));
	free(text);
	picture_free(&p);
	free(g);
}

/* ---- 5. head weights ------------------------------------------------------------------ */

Test(weights, bars_and_covariance)
{
	/* tests/data/cov3.yaml: alpha = (4/11, 4/11, 3/11) */
	double sigma[9] = {1.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 2.0};
	struct ha_head_weights hw;
	cr_assert_eq(ha_covariance_weights(sigma, 3, &hw, NULL), HA_OK);
	double alpha[3] = {4.0 / 11, 4.0 / 11, 3.0 / 11};
	struct ha_plot_head_weights_request req = {&hw, sigma};
	probe_check_valid(probe_weights, &req);
	struct image im;
	struct picture p = probe_png(probe_weights, &req, &im);
	cr_assert_eq(p.target.axes_count, 2);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_float_eq(hw.alpha[i], alpha[i], 1e-12);
		EXPECT_NEAR(&im, &p, 0, (double)i, 0.5 * alpha[i], 0, BLUE, "a weight's bar");
		EXPECT_NEAR(&im, &p, 0, (double)i, alpha[i] + 0.015, 0, WHITE, "above a bar");
		for (size_t j = 0; j < 3; j++) {
			unsigned rgb[3];
			probe_viridis(sigma[i * 3 + j] / 2.0, rgb); /* the scale is [0, 2] */
			EXPECT_NEAR(&im, &p, 1, (double)j, (double)i, 0, rgb, "a covariance cell");
		}
	}
	image_free(&im);
	picture_free(&p);
	ha_head_weights_finish(&hw);
}

/* ---- formats and failures ---------------------------------------------------------------- */

Test(plot, formats_follow_the_extension)
{
	enum ha_plot_format f = HA_PLOT_PDF;
	cr_assert(ha_plot_available());
	cr_assert_eq(ha_plot_format_from_path("a.svg", &f), HA_OK);
	cr_assert_eq(f, HA_PLOT_SVG);
	cr_assert_eq(ha_plot_format_from_path("dir.x/b.PNG", &f), HA_OK);
	cr_assert_eq(f, HA_PLOT_PNG);
	cr_assert_eq(ha_plot_format_from_path("c.Pdf", &f), HA_OK);
	cr_assert_eq(f, HA_PLOT_PDF);
	const char *bad[] = {"a.jpg", "png", ".png", "dir/.png", "a.png/", "dir.png/x", "a.", ""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		f = HA_PLOT_SVG;
		cr_assert_eq(ha_plot_format_from_path(bad[i], &f), HA_EINVAL, "'%s'", bad[i]);
		cr_assert_eq(f, HA_PLOT_SVG, "untouched");
	}
	cr_assert_eq(ha_plot_format_from_path(NULL, &f), HA_EINVAL);
	cr_assert_str_eq(ha_plot_format_str(HA_PLOT_PNG), "png");
}

/* ha_plot_regimes as called, without probe_regimes computing the regimes. */
static enum ha_status regimes_as_given(struct ha_plot_target *t, const void *req,
                                       struct ha_error *err)
{
	return ha_plot_regimes(t, req, err);
}

Test(plot, failures_are_statuses_and_write_nothing)
{
	double n_samples = 1e8;
	struct ha_model m = ha_model_defaults();
	struct ha_error err;
	struct probe_landscape_request ok = {{&m, NULL, 512, NULL, NULL}, n_samples};
	cr_assert_eq(ha_plot_allocation(NULL, &ok.plot, &err), HA_EINVAL);
	cr_assert_eq(ha_plot_allocation(&(struct ha_plot_target){0}, &ok.plot, &err), HA_EINVAL);

	struct picture p;
	picture_draw(&p, (enum ha_plot_format)7, probe_landscape, &ok);
	cr_assert_eq(p.status, HA_EINVAL);
	cr_assert_eq(p.size, 0);
	picture_free(&p);

	struct ha_constraints c = {.min_head_dim = 1000};
	picture_draw(&p, HA_PLOT_PNG, probe_landscape, &(struct probe_landscape_request){{&m, &c, 512, NULL, NULL}, n_samples});
	cr_assert_eq(p.status, HA_EINFEASIBLE);
	cr_assert_str_eq(p.err.message, "no (heads, head_dim) pair of budget 512 meets the constraints");
	cr_assert_eq(p.size, 0);
	picture_free(&p);

	picture_draw(&p, HA_PLOT_SVG, probe_landscape, &(struct probe_landscape_request){{&m, NULL, 0, NULL, NULL}, n_samples});
	cr_assert_eq(p.status, HA_EINVAL);
	picture_free(&p);
	uint64_t one[] = {512};
	picture_draw(&p, HA_PLOT_SVG, probe_sweep, &(struct ha_sweep_request){.model = &m, .constraints = NULL, .budgets = one, .budget_count = 1, .samples = {.count = 1, .from = 1e4}});
	cr_assert_eq(p.status, HA_EINVAL, "one budget and one n is a landscape");
	picture_free(&p);
	picture_draw(&p, HA_PLOT_SVG, probe_regimes, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = one, .budget_count = 0});
	cr_assert_eq(p.status, HA_EINVAL);
	picture_free(&p);
	picture_draw(&p, HA_PLOT_SVG, regimes_as_given, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = one, .budget_count = 1});
	cr_assert_eq(p.status, HA_EINVAL, "the picture only draws the regimes it is given");
	cr_assert_str_eq(p.err.message, "drawing the regimes: the regimes (ha_regimes_new) are required");
	cr_assert_eq(p.size, 0);
	picture_free(&p);

	struct ha_hdi_report *r = two_layers();
	size_t missing = 2;
	double bad_baseline[2] = {0.5, 1.5};
	picture_draw(&p, HA_PLOT_SVG, probe_hdi, &(struct ha_plot_hdi_request){
		.file = "f", .hdi = r, .layers = &missing, .layer_count = 1});
	cr_assert_eq(p.status, HA_EINVAL);
	picture_free(&p);
	picture_draw(&p, HA_PLOT_SVG, probe_hdi, &(struct ha_plot_hdi_request){
		.file = "f", .hdi = r, .baseline = bad_baseline});
	cr_assert_eq(p.status, HA_EINVAL);
	picture_free(&p);
	ha_hdi_report_free(r);

	/* a stream that takes 64 bytes and then refuses */
	char small[64];
	FILE *full = fmemopen(small, sizeof small, "w");
	cr_assert_not_null(full);
	struct ha_plot_target t = {.stream = full, .format = HA_PLOT_SVG};
	/* the picture only draws: without the allocation it refuses */
	cr_assert_eq(ha_plot_allocation(&t, &ok.plot, &err), HA_EINVAL);
	cr_assert_str_eq(err.message, "drawing the landscape: the allocation is not of "
	                              "budget 512 with its divisors");
	struct ha_allocation_result *a = NULL;
	cr_assert_eq(ha_allocation_result_new(512, NULL, NULL, &m, n_samples, HA_ALLOCATION_DIVISORS, &a,
	                                      &err), HA_OK);
	ok.plot.allocation = a;
	cr_assert_eq(ha_plot_allocation(&t, &ok.plot, &err), HA_EIO);
	cr_assert_str_eq(err.message, "writing the picture failed");
	ha_allocation_result_free(a);
	fclose(full);
}

/* PLplot prints nothing of its own when a picture is drawn. */
Test(plot, drawing_prints_nothing, .init = cr_redirect_stdout)
{
	cr_redirect_stderr();
	double n_samples = 1e8;
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {128, 512};
	double sigma[4] = {1.0, 0.2, 0.2, 1.0};
	struct ha_head_weights hw;
	cr_assert_eq(ha_covariance_weights(sigma, 2, &hw, NULL), HA_OK);
	struct ha_hdi_report *r = two_layers();
	for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
		struct picture p;
		picture_draw(&p, formats[f], probe_landscape, &(struct probe_landscape_request){{&m, NULL, 512, NULL, NULL}, n_samples});
		picture_free(&p);
		picture_draw(&p, formats[f], probe_sweep, &(struct ha_sweep_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 2, .samples = decades});
		picture_free(&p);
		picture_draw(&p, formats[f], probe_regimes, &(struct ha_regimes_request){.model = &m, .constraints = NULL, .budgets = budgets, .budget_count = 2});
		picture_free(&p);
		picture_draw(&p, formats[f], probe_hdi, &(struct ha_plot_hdi_request){.file = "f", .hdi = r});
		picture_free(&p);
		picture_draw(&p, formats[f], probe_weights, &(struct ha_plot_head_weights_request){&hw, sigma});
		picture_free(&p);
	}
	ha_hdi_report_free(r);
	ha_head_weights_finish(&hw);
	fflush(stdout);
	fflush(stderr);
	cr_assert_stdout_eq_str("");
	cr_assert_stderr_eq_str("");
}

/* The caption gives the model as given: a coefficient set from its
 * logarithm as that logarithm, and E, gamma and kappa (the allocation
 * pictures once captioned a calibrated model as the default one). */
Test(landscape, caption_gives_the_model_as_given)
{
	double n_samples = 1e10;
	struct ha_model m = ha_model_defaults();
	ha_model_set_log_var_coef(&m, -40.8546);
	m.irreducible = 1.80081;
	m.var_rate = 0.75;
	m.var_power = 0.25;
	struct picture p;
	picture_draw(&p, HA_PLOT_SVG, probe_landscape,
	             &(struct probe_landscape_request){{&m, NULL, 4096, NULL, NULL}, n_samples});
	cr_assert_eq(p.status, HA_OK);
	char *text = svg_text(p.data, p.size);
	static const char *const words[] = {
		"-40.8546", "E = 1.80081", "\xce\xb3 = 0.75", "\xce\xba = 0.25"};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		cr_assert_not_null(strstr(text, words[i]), "'%s' not in:\n%s",
		                   words[i], text);
	cr_assert_null(strstr(text, "= 1, hdi"), "%s", text);
	free(text);
	picture_free(&p);
}
