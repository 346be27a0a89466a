/* The calibration report (ha_report_calibration): written into memory,
 * read back with libyaml and checked against the calibration it reports;
 * the whole YAML document read as a scenario gives the calibrated model
 * bit for bit, whose optimum, found here by brute force, is the
 * prediction; undefined quantities are null. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

#include <headalloc/headalloc.h>

#include "yaml_path.h"
#include "alloc/model_internal.h"
#include "calibrate/calibrate_internal.h"

/* ---- a calibration of runs drawn from known parameters ----------------- */

/* E = 1.8, c_b = 40, s = 2, ln c_v = -40.8 (the seeds' law), each loss
 * times exp(noise * a fixed pattern). */
static size_t make_runs(struct ha_run *runs, size_t m, double noise)
{
	static const double th[HA_CAL_PARAMS] = {1.8, 3.6888794541139363, 2.0,
	                                         -40.8, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	static const uint64_t dims[] = {8, 16, 32, 12, 24};
	for (size_t i = 0; i < m; i++) {
		uint64_t d = dims[i % 5], heads = 4u << (i % 3);
		double n = pow(10.0, 6.0 + (double)(i % 3));
		struct ha_model model = ha_cal_model_of(th);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&model, n, heads * d, d, &t), HA_OK);
		double pattern = (double)((int)(i * 7 % 5) - 2);
		runs[i] = (struct ha_run){heads, d, n, t.mse * exp(noise * pattern), NAN, 0};
	}
	return m;
}

static struct ha_calibration *calibrate(const struct ha_run *runs, size_t m,
                                        size_t bootstrap, int compare)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.law.free[HA_CAL_SMOOTHNESS] = 0;
	o.bootstrap = bootstrap;
	o.compare = compare;
	o.target = (struct ha_cal_target){4096, 1e10, {0, 0, 0, 0, 0}};
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	return c;
}

/* ---- writing and reading back ------------------------------------------------ */

static char *render(enum ha_report_format format,
                    const struct ha_calibration *c)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_report *r = NULL;
	struct ha_error err;
	cr_assert_eq(ha_report_new(f, format, &r), HA_OK);
	struct ha_calibration_request req = {.calibration = c,
	                                     .runs_file = "runs\n.yaml"};
	cr_assert_eq(ha_report_calibration(r, &req, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_report_end(r), HA_OK);
	ha_report_free(r);
	cr_assert_eq(fclose(f), 0);
	return text;
}

static yaml_node_t *find(yaml_document_t *doc, const char *path)
{
	return yaml_path(doc, yaml_document_get_root_node(doc), path);
}

static int is_null(yaml_document_t *doc, const char *path)
{
	return strcmp(str_at(doc, path), "null") == 0;
}

static size_t length_at(yaml_document_t *doc, const char *path)
{
	yaml_node_t *node = find(doc, path);
	cr_assert_not_null(node, "no %s", path);
	cr_assert_eq(node->type, YAML_SEQUENCE_NODE, "%s is not a list", path);
	return (size_t)(node->data.sequence.items.top -
	                node->data.sequence.items.start);
}

static void load(const char *text, yaml_document_t *doc)
{
	yaml_parser_t parser;
	cr_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	                             strlen(text));
	cr_assert(yaml_parser_load(&parser, doc), "not YAML: %s", text);
	yaml_parser_delete(&parser);
}

/* Every divisor of budget; the least MSE, ties to the smaller d. */
static uint64_t brute_force_head_dim(const struct ha_model *m, double samples, uint64_t budget)
{
	uint64_t best = 0;
	double best_log = INFINITY;
	for (uint64_t d = 1; d <= budget; d++) {
		struct ha_terms t;
		if (budget % d)
			continue;
		cr_assert_eq(ha_model_eval(m, samples, budget, d, &t), HA_OK);
		if (t.log_mse < best_log - 1e-12) {
			best = d;
			best_log = t.log_mse;
		}
	}
	return best;
}

/* ---- tests ------------------------------------------------------------------- */

Test(report_calibration, yaml_reads_back_as_the_calibration)
{
	struct ha_run runs[10];
	size_t m = make_runs(runs, 10, 0.01);
	struct ha_calibration *c = calibrate(runs, m, 40, 1);
	char *text = render(HA_FORMAT_YAML, c);
	yaml_document_t doc;
	load(text, &doc);

	cr_assert_eq(num_at(&doc, "calibration.runs"), (double)m);
	cr_assert_eq(num_at(&doc, "calibration.objective"), c->fit.objective);
	cr_assert_eq(num_at(&doc, "calibration.rss"), c->fit.rss);
	cr_assert_eq(num_at(&doc, "calibration.aicc"), c->fit.aicc);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &c->fit.param[p];
		char path[96];
		snprintf(path, sizeof path, "calibration.parameters.%s.value", e->name);
		/* the data term fixed at its defaults is not listed */
		cr_assert_eq(p < HA_CAL_DATA_COEF, ha_cal_param_reported((enum ha_cal_param)p, e));
		if (!ha_cal_param_reported((enum ha_cal_param)p, e))
			continue;
		cr_assert_eq(num_at(&doc, path), e->value, "%s", path);
		snprintf(path, sizeof path, "calibration.parameters.%s.scale", e->name);
		cr_assert_str_eq(str_at(&doc, path), e->log_scale ? "log" : "linear");
		snprintf(path, sizeof path, "calibration.parameters.%s.free", e->name);
		cr_assert_str_eq(str_at(&doc, path), e->free ? "true" : "false");
		snprintf(path, sizeof path, "calibration.parameters.%s.se", e->name);
		if (e->has_se)
			cr_assert_eq(num_at(&doc, path), e->se, "%s", path);
		else
			cr_assert(is_null(&doc, path), "%s", path);
		snprintf(path, sizeof path, "calibration.parameters.%s.ci95", e->name);
		if (e->has_ci) {
			cr_assert_eq(length_at(&doc, path), 2);
			snprintf(path, sizeof path, "calibration.parameters.%s.ci95.0", e->name);
			cr_assert_eq(num_at(&doc, path), e->ci95[0]);
		} else {
			cr_assert(is_null(&doc, path), "%s", path);
		}
	}
	/* The three free parameters of the law have intervals; the fixed
	 * ones none. */
	cr_assert(c->fit.param[HA_CAL_VAR_COEF].has_ci);
	cr_assert(!c->fit.param[HA_CAL_SMOOTHNESS].has_ci);

	cr_assert_eq(length_at(&doc, "calibration.residuals"), m);
	for (size_t i = 0; i < m; i++) {
		char path[96];
		snprintf(path, sizeof path, "calibration.residuals.%zu.loss", i);
		cr_assert_eq(num_at(&doc, path), runs[i].loss);
		snprintf(path, sizeof path, "calibration.residuals.%zu.residual", i);
		cr_assert_eq(num_at(&doc, path), c->fit.residuals[i].residual);
	}
	cr_assert_eq(length_at(&doc, "calibration.warnings"), c->warning_count);
	for (size_t i = 0; i < c->warning_count; i++) {
		char path[64];
		snprintf(path, sizeof path, "calibration.warnings.%zu", i);
		cr_assert_str_eq(str_at(&doc, path), c->warnings[i].message);
	}

	/* The prediction is the brute-force optimum of the calibrated model. */
	struct ha_model model = c->model;
	double n_samples = 1e10;
	uint64_t d = brute_force_head_dim(&model, n_samples, 4096);
	cr_assert_eq(num_at(&doc, "prediction.head_dim"), (double)d);
	cr_assert_eq(num_at(&doc, "prediction.heads"), (double)(4096 / d));
	size_t shares = length_at(&doc, "prediction.distribution");
	cr_assert_eq(shares, c->prediction.distribution_count);
	double sum = 0.0;
	for (size_t i = 0; i < shares; i++) {
		char path[64];
		snprintf(path, sizeof path, "prediction.distribution.%zu.share", i);
		sum += num_at(&doc, path);
	}
	cr_assert(fabs(sum - 1.0) < 1e-12, "shares sum to %.17g", sum);

	cr_assert_eq(length_at(&doc, "comparison.laws"), HA_CAL_LADDER);
	cr_assert_str_eq(str_at(&doc, "comparison.laws.0.law"), "seeds");
	cr_assert_eq(length_at(&doc, "comparison.laws.0.free"), 3);
	cr_assert_str_eq(str_at(&doc, "comparison.laws.4.law"), "rate");
	cr_assert_eq(num_at(&doc, "comparison.laws.1.k"), 4.0);
	cr_assert_eq(num_at(&doc, "comparison.laws.0.rss"), c->comparison[0].rss);
	cr_assert_eq(length_at(&doc, "comparison.laws.4.contains"), 2);
	cr_assert_str_eq(str_at(&doc, "comparison.laws.4.contains.1"), "smoothness");
	cr_assert_str_eq(str_at(&doc, "comparison.verdict"), c->verdict.text);
	/* The weights of the laws with an AICc sum to 1; so do the
	 * averaged shares with the share of no answer. */
	double weights = 0.0, averaged = num_at(&doc, "comparison.averaged_no_answer");
	for (size_t i = 0; i < HA_CAL_LADDER; i++) {
		char path[64];
		snprintf(path, sizeof path, "comparison.laws.%zu.weight", i);
		if (!is_null(&doc, path))
			weights += num_at(&doc, path);
	}
	for (size_t i = 0; i < length_at(&doc, "comparison.averaged"); i++) {
		char path[64];
		snprintf(path, sizeof path, "comparison.averaged.%zu.share", i);
		averaged += num_at(&doc, path);
	}
	cr_assert(fabs(weights - 1.0) < 1e-12, "weights sum to %.17g", weights);
	cr_assert(fabs(averaged - 1.0) < 1e-12, "averaged sums to %.17g", averaged);
	yaml_document_delete(&doc);
	free(text);
	ha_calibration_free(c);
}

Test(report_calibration, the_report_is_a_scenario_of_the_calibrated_model)
{
	struct ha_run runs[10];
	size_t m = make_runs(runs, 10, 0.01);
	struct ha_calibration *c = calibrate(runs, m, 10, 1);
	char *text = render(HA_FORMAT_YAML, c);
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	cr_assert_eq(ha_scenario_read_string(text, strlen(text), &sc, &err), HA_OK,
	             "%ld:%ld: %s", err.line, err.column, err.message);
	const struct ha_model *a = &sc->model, *b = &c->model;
	/* Every parameter bit for bit; the coefficients through their logs. */
	cr_assert_eq(a->smoothness, b->smoothness);
	cr_assert_eq(a->hdi, b->hdi);
	cr_assert_eq(a->irreducible, b->irreducible);
	cr_assert_eq(a->var_rate, b->var_rate);
	cr_assert_eq(a->var_power, b->var_power);
	cr_assert_eq(ha_model_log_bias_coef(a), ha_model_log_bias_coef(b));
	cr_assert_eq(ha_model_log_var_coef(a), ha_model_log_var_coef(b));
	cr_assert_eq(ha_model_log_var_coef(a), c->fit.param[HA_CAL_VAR_COEF].value);
	cr_assert_eq(sc->budget_count, 0);
	/* Allocating with it gives the prediction, error and all. */
	struct ha_model model = *a;
	double n_samples = 1e10;
	struct ha_solver *solver = NULL;
	struct ha_solution sol;
	cr_assert_eq(ha_solver_new(4096, NULL, &solver), HA_OK);
	cr_assert_eq(ha_solver_solve(solver, &model, n_samples, &sol), HA_OK);
	ha_solver_free(solver);
	cr_assert_eq(sol.optimum.heads, c->prediction.heads);
	cr_assert_eq(sol.optimum.head_dim, c->prediction.head_dim);
	cr_assert_eq(sol.optimum.terms.mse, c->prediction.loss);
	ha_scenario_free(sc);
	free(text);
	ha_calibration_free(c);
}

Test(report_calibration, undefined_quantities_are_null)
{
	/* Four runs, three free parameters: m - k - 1 = 0, so no AICc; no
	 * bootstrap, so no intervals and an empty distribution. */
	struct ha_run runs[4];
	size_t m = make_runs(runs, 4, 0.0);
	struct ha_calibration *c = calibrate(runs, m, 0, 0);
	cr_assert(!c->fit.aicc_defined);
	char *text = render(HA_FORMAT_YAML, c);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert(is_null(&doc, "calibration.aicc"));
	cr_assert(is_null(&doc, "calibration.parameters.irreducible.ci95"));
	cr_assert_eq(length_at(&doc, "prediction.distribution"), 0);
	cr_assert_null(find(&doc, "comparison"));
	cr_assert_str_eq(str_at(&doc, "calibration.bootstrap.resamples"), "0");
	yaml_document_delete(&doc);
	free(text);
	ha_calibration_free(c);
}

Test(report_calibration, text_says_the_same_for_people)
{
	struct ha_run runs[10];
	size_t m = make_runs(runs, 10, 0.01);
	struct ha_calibration *c = calibrate(runs, m, 20, 1);
	cr_assert_geq(c->warning_count, 2, "the target is outside the runs");
	char *text = render(HA_FORMAT_TEXT, c);
	/* A file name cannot break a line. */
	cr_assert(strstr(text, "calibration  10 runs of runs?.yaml, least squares\n"),
	          "%s", text);
	char line[160];
	snprintf(line, sizeof line, "prediction   budget 4096, samples 1e+10: %llu heads x head_dim %llu",
	         (unsigned long long)c->prediction.heads,
	         (unsigned long long)c->prediction.head_dim);
	cr_assert(strstr(text, line), "%s", text);
	cr_assert(strstr(text, "\nln var_coef "), "%s", text);
	cr_assert(strstr(text, "\nseeds         3 "), "%s", text);
	size_t warnings = 0;
	for (const char *p = text; (p = strstr(p, "\nwarning      ")) != NULL; p++)
		warnings++;
	cr_assert_eq(warnings, c->warning_count);
	free(text);
	ha_calibration_free(c);
}

Test(report_calibration, refuses_a_missing_calibration)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct ha_report *r = NULL;
	struct ha_error err;
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	struct ha_calibration_request req = {0};
	cr_assert_eq(ha_report_calibration(r, &req, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "calibration"), "%s", err.message);
	cr_assert_eq(ha_report_calibration(r, NULL, &err), HA_EINVAL);
	ha_report_free(r);
	fclose(f);
	free(text);
}
