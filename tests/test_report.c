/* The report layer's reports of allocations (one allocation, the sweep
 * table and its fits, the header, regimes, public models): each written
 * into memory, read back (YAML with libyaml) and checked against the
 * numbers it reports, computed here independently where possible (brute
 * force over the divisors, least squares by hand); write failures surface
 * as HA_EIO.  The reports of measurements are test_report_measures.c's. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

#include <headalloc/headalloc.h>

#include "report_readback.h"
#include "sweep_table.h"
#include "alloc/solver_internal.h"
#include "base/text.h"

/* ---- an independent optimum ---------------------------------------------------- */

/* Every divisor d of budget evaluated; the smallest MSE wins, ties
 * (relative 1e-12) to the smaller d, as the solver promises. */
static uint64_t brute_force_head_dim(const struct ha_model *m, double samples,
                                     uint64_t budget)
{
	uint64_t best = 0;
	double best_log = INFINITY;
	for (uint64_t d = 1; d <= budget; d++) {
		if (budget % d)
			continue;
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(m, samples, budget, d, &t), HA_OK);
		if (t.log_mse < best_log - 1e-12) {
			best = d;
			best_log = t.log_mse;
		}
	}
	return best;
}

/* ---- formats ------------------------------------------------------------------- */

Test(report, formats_parse_and_name_each_other)
{
	enum ha_report_format f = HA_FORMAT_TEXT;
	cr_assert_eq(ha_report_format_parse("yaml", &f), HA_OK);
	cr_assert_eq(f, HA_FORMAT_YAML);
	cr_assert_str_eq(ha_report_format_str(f), "yaml");
	cr_assert_eq(ha_report_format_parse("text", &f), HA_OK);
	cr_assert_eq(f, HA_FORMAT_TEXT);
	cr_assert_str_eq(ha_report_format_str(f), "text");
	cr_assert_eq(ha_report_format_parse("json", &f), HA_OK);
	cr_assert_eq(f, HA_FORMAT_JSON);
	cr_assert_str_eq(ha_report_format_str(f), "json");
	f = HA_FORMAT_TEXT;
	cr_assert_eq(ha_report_format_parse("xml", &f), HA_EINVAL);
	cr_assert_eq(ha_report_format_parse("JSON", &f), HA_EINVAL);
	cr_assert_eq(ha_report_format_parse("YAML", &f), HA_EINVAL);
	cr_assert_eq(f, HA_FORMAT_TEXT, "a refused name leaves *out alone");
	cr_assert_eq(ha_report_format_parse(NULL, &f), HA_EINVAL);
}

/* ---- one allocation -------------------------------------------------------------- */

struct solved {
	struct ha_model model;
	struct ha_solution solution;
	struct ha_allocation *candidates;
	size_t count;
	struct ha_hdi_source source;
	int with_source;
};

static void solve(struct solved *s, uint64_t budget, double samples, int all)
{
	memset(s, 0, sizeof *s);
	s->model = ha_model_defaults();
	struct ha_solver *solver;
	cr_assert_eq(ha_solver_new(budget, NULL, &solver), HA_OK);
	cr_assert_eq(ha_solver_solve(solver, &s->model, samples, &s->solution), HA_OK);
	if (all)
		cr_assert_eq(ha_solver_enumerate(solver, &s->model, samples, &s->candidates,
		                                 &s->count), HA_OK);
	ha_solver_free(solver);
}

static enum ha_status allocation_sections(struct ha_report *r, const void *ctx,
                                          struct ha_error *err)
{
	const struct solved *s = ctx;
	return ha_report_allocation(r, &(struct ha_allocation_request){
		.model = &s->model,
		.solution = &s->solution,
		.candidates = s->candidates,
		.candidate_count = s->count,
		.hdi_source = s->with_source ? &s->source : NULL,
	}, err);
}

Test(report, allocation_yaml_reads_back_as_the_solution)
{
	struct solved s;
	solve(&s, 512, 1e8, 0);
	char *text = render(HA_FORMAT_YAML, allocation_sections, &s);
	yaml_document_t doc;
	load(text, &doc);
	const struct ha_solution *sol = &s.solution;

	cr_assert_eq(uint_at(&doc, "budget"), 512);
	cr_assert_eq(num_at(&doc, "samples"), 1e8);
	cr_assert_eq(num_at(&doc, "model.smoothness"), s.model.smoothness);
	cr_assert_eq(num_at(&doc, "model.hdi"), s.model.hdi);
	/* The optimum is the brute-force one, and every float reads back as
	 * the very double solved. */
	cr_assert_eq(uint_at(&doc, "optimum.head_dim"), brute_force_head_dim(&s.model, s.solution.samples, 512));
	cr_assert_eq(uint_at(&doc, "optimum.heads"), sol->optimum.heads);
	cr_assert_eq(uint_at(&doc, "optimum.head_dim") * uint_at(&doc, "optimum.heads"), 512);
	cr_assert_eq(num_at(&doc, "optimum.mse"), sol->optimum.terms.mse);
	cr_assert_eq(num_at(&doc, "optimum.bias2"), sol->optimum.terms.bias2);
	cr_assert_float_eq(num_at(&doc, "optimum.log10_mse"),
	                   log10(sol->optimum.terms.mse), 1e-12);
	cr_assert_eq(num_at(&doc, "relaxed.head_dim"), sol->relaxed.head_dim);
	cr_assert_float_eq(num_at(&doc, "relaxed.heads") * num_at(&doc, "relaxed.head_dim"),
	                   512.0, 1e-9);
	cr_assert_str_eq(str_at(&doc, "certificate.method"),
	                 ha_certificate_method_str(sol->certificate.method));
	cr_assert_eq(uint_at(&doc, "certificate.divisors"), 10); /* 512 = 2^9 */
	cr_assert(!has(&doc, "candidates"));
	cr_assert(!has(&doc, "hdi_source"));
	yaml_document_delete(&doc);
	free(text);
}

Test(report, allocation_candidates_are_every_pair_best_first)
{
	struct solved s;
	solve(&s, 4096, 1e6, 1);
	char *text = render(HA_FORMAT_YAML, allocation_sections, &s);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_eq(length_at(&doc, "candidates"), 13); /* 4096 = 2^12 */
	char path[64];
	double previous = 0;
	for (size_t i = 0; i < 13; i++) {
		snprintf(path, sizeof path, "candidates.%zu.mse", i);
		double mse = num_at(&doc, path);
		cr_assert_geq(mse, previous, "candidates out of order at %zu", i);
		previous = mse;
		snprintf(path, sizeof path, "candidates.%zu.head_dim", i);
		uint64_t d = uint_at(&doc, path);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&s.model, s.solution.samples, 4096, d, &t), HA_OK);
		cr_assert_eq(mse, t.mse);
	}
	cr_assert_eq(uint_at(&doc, "candidates.0.head_dim"), uint_at(&doc, "optimum.head_dim"));
	yaml_document_delete(&doc);
	free(text);
	free(s.candidates);
}

Test(report, allocation_text_names_the_optimum_and_the_hdi_source)
{
	struct solved s;
	solve(&s, 512, 1e8, 0);
	s.model.hdi = 0.25;
	s.with_source = 1;
	s.source = (struct ha_hdi_source){"k.safetensors", NULL, 12, HA_LAYOUT_OUT_IN, 2, 0, 0, 0};
	char *text = render(HA_FORMAT_TEXT, allocation_sections, &s);
	char expected[128];
	snprintf(expected, sizeof expected, "optimum      %" PRIu64 " heads x head_dim %" PRIu64 "\n",
	         s.solution.optimum.heads, s.solution.optimum.head_dim);
	cr_assert_not_null(strstr(text, expected), "%s", text);
	cr_assert_not_null(strstr(text, "budget D = 512, samples n = 1e+08"), "%s", text);
	cr_assert_not_null(strstr(text, "hdi          0.25, mean over 2 tensors of k.safetensors"
	                          " (all tensors, 12 heads, layout out-in)\n"), "%s", text);
	free(text);

	text = render(HA_FORMAT_YAML, allocation_sections, &s);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_str_eq(str_at(&doc, "hdi_source"),
	                 "mean over 2 tensors of k.safetensors (all tensors, 12 heads, layout out-in)");
	yaml_document_delete(&doc);
	free(text);
}

/* ---- failures -------------------------------------------------------------------- */

Test(report, a_stream_that_cannot_be_written_gives_eio)
{
	struct solved s;
	solve(&s, 512, 1e8, 0);
	FILE *f = fopen("/dev/null", "r");
	cr_assert_not_null(f);
	struct ha_report *r;
	struct ha_error err;
	cr_assert_eq(ha_report_new(f, HA_FORMAT_TEXT, &r), HA_OK);
	cr_assert_eq(allocation_sections(r, &s, &err), HA_EIO);
	cr_assert_eq(err.status, HA_EIO);
	cr_assert_neq(err.message[0], '\0');
	/* Sticky: the next section and the end repeat the failure. */
	cr_assert_eq(allocation_sections(r, &s, NULL), HA_EIO);
	cr_assert_eq(ha_report_end(r), HA_EIO);
	ha_report_free(r);
	fclose(f);
}

static const double sweep[] = {1e4, 1e6, 1e8, 1e10, 1e12};

static enum ha_status table_sections(struct ha_report *r, const void *ctx,
                                     struct ha_error *err)
{
	const uint64_t *budgets = ctx;
	struct ha_model m = ha_model_defaults();
	ha_report_header(r, &(struct ha_header_request){.model = &m}, err);
	return sweep_table(r, (struct ha_sweep_request){
		.model = &m,
		.budgets = budgets + 1,
		.budget_count = (size_t)budgets[0],
		.samples = {.values = sweep, .count = 5},
	}, err);
}

Test(report, a_full_buffer_gives_eio_in_yaml)
{
	char buf[64];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	cr_assert_not_null(f);
	struct ha_report *r;
	const uint64_t budgets[] = {2, 512, 4096};
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	enum ha_status st = table_sections(r, budgets, NULL);
	cr_assert(st == HA_OK || st == HA_EIO);
	cr_assert_eq(ha_report_end(r), HA_EIO);
	ha_report_free(r);
	fclose(f);
}

Test(report, sections_refuse_a_missing_request)
{
	struct ha_report *r;
	struct ha_error err;
	FILE *f = fopen("/dev/null", "w");
	cr_assert_not_null(f);
	cr_assert_eq(ha_report_new(NULL, HA_FORMAT_TEXT, &r), HA_EINVAL);
	cr_assert_null(r);
	cr_assert_eq(ha_report_new(f, (enum ha_report_format)7, &r), HA_EINVAL);
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	cr_assert_eq(ha_report_table(r, NULL, &err), HA_EINVAL);
	/* the table only renders: without its sweep it refuses */
	cr_assert_eq(ha_report_table(r, &(struct ha_table_request){0}, &err), HA_EINVAL);
	cr_assert_eq(ha_report_allocation(r, &(struct ha_allocation_request){0}, &err),
	             HA_EINVAL);
	cr_assert_eq(err.status, HA_EINVAL);
	ha_report_free(r);
	/* the report only renders: regimes without their result refuse */
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	struct ha_model m = ha_model_defaults();
	const uint64_t budget = 512;
	cr_assert_eq(ha_report_regimes(r, &(struct ha_regimes_request){
		.model = &m, .budgets = &budget, .budget_count = 1}, &err), HA_EINVAL);
	cr_assert_str_eq(err.message, "regimes need a model and their regimes (ha_regimes_new)");
	ha_report_free(r);
	fclose(f);
}

/* ---- the sweep table and its fits -------------------------------------------------- */

/* Ordinary least squares of y on x: the slope. */
static double ols_slope(const double *x, const double *y, size_t n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0;
	for (size_t i = 0; i < n; i++) {
		mx += x[i] / (double)n;
		my += y[i] / (double)n;
	}
	for (size_t i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
	}
	return sxy / sxx;
}

Test(report, table_rows_are_the_optima_and_the_fits_fit_them)
{
	const uint64_t budgets[] = {3, 512, 4096, 32768};
	char *text = render(HA_FORMAT_YAML, table_sections, budgets);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_eq(length_at(&doc, "table"), 15);
	yaml_node_t *constraints = at(&doc, "constraints");
	cr_assert_eq(constraints->type, YAML_MAPPING_NODE);
	cr_assert_eq(constraints->data.mapping.pairs.top,
	             constraints->data.mapping.pairs.start, "no constraint in force");
	char path[96];
	double lnlnn[5], lnd[3][5], lnD[3], lnH[5][3];
	for (size_t i = 0; i < 5; i++) {
		for (size_t b = 0; b < 3; b++) {
			size_t row = i * 3 + b;
			snprintf(path, sizeof path, "table.%zu.budget", row);
			cr_assert_eq(uint_at(&doc, path), budgets[1 + b], "n is the outer loop");
			snprintf(path, sizeof path, "table.%zu.samples", row);
			cr_assert_eq(num_at(&doc, path), sweep[i]);
			double n_samples = sweep[i];
	struct ha_model m = ha_model_defaults();
			snprintf(path, sizeof path, "table.%zu.head_dim", row);
			cr_assert_eq(uint_at(&doc, path), brute_force_head_dim(&m, n_samples, budgets[1 + b]),
			             "budget %" PRIu64 ", n %g", budgets[1 + b], sweep[i]);
			snprintf(path, sizeof path, "table.%zu.relaxed_head_dim", row);
			lnd[b][i] = log(num_at(&doc, path));
			snprintf(path, sizeof path, "table.%zu.relaxed_heads", row);
			lnH[i][b] = log(num_at(&doc, path));
			lnD[b] = log((double)budgets[1 + b]);
		}
		lnlnn[i] = log(log(sweep[i]));
	}
	cr_assert_eq(length_at(&doc, "fits.by_budget"), 3);
	cr_assert_eq(length_at(&doc, "fits.by_samples"), 5);
	for (size_t b = 0; b < 3; b++) {
		snprintf(path, sizeof path, "fits.by_budget.%zu.budget", b);
		cr_assert_eq(uint_at(&doc, path), budgets[1 + b]);
		snprintf(path, sizeof path, "fits.by_budget.%zu.power_law.points", b);
		cr_assert_eq(uint_at(&doc, path), 5);
		snprintf(path, sizeof path, "fits.by_budget.%zu.power_law.b", b);
		cr_assert_float_eq(num_at(&doc, path), ols_slope(lnlnn, lnd[b], 5), 1e-9);
		snprintf(path, sizeof path, "fits.by_budget.%zu.power_law.claimed_b", b);
		cr_assert_float_eq(num_at(&doc, path), 2.0 / 6.0, 1e-15);
	}
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "fits.by_samples.%zu.samples", i);
		cr_assert_eq(num_at(&doc, path), sweep[i]);
		snprintf(path, sizeof path, "fits.by_samples.%zu.heads_law.e", i);
		cr_assert_float_eq(num_at(&doc, path), ols_slope(lnD, lnH[i], 3), 1e-9);
	}
	yaml_document_delete(&doc);
	free(text);
}

Test(report, a_fit_of_two_points_is_reported_in_words)
{
	const uint64_t budgets[] = {2, 512, 4096};
	char *text = render(HA_FORMAT_YAML, table_sections, budgets);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_str_eq(str_at(&doc, "fits.by_samples.0.heads_law.status"),
	                 "no fit: fewer than 3 distinct points");
	cr_assert(!has(&doc, "fits.by_samples.0.heads_law.e"));
	yaml_document_delete(&doc);
	free(text);

	text = render(HA_FORMAT_TEXT, table_sections, budgets);
	cr_assert_not_null(strstr(text, "fit samples 10000: ln(heads) = ln(c) + e ln(budget): "
	                          "no fit: fewer than 3 distinct points (2 given)\n"), "%s", text);
	free(text);
}

static enum ha_status header_sections(struct ha_report *r, const void *ctx,
                                      struct ha_error *err)
{
	struct ha_model m = ha_model_defaults();
	return ha_report_header(r, &(struct ha_header_request){
		.model = &m, .constraints = ctx}, err);
}

Test(report, header_lists_the_constraints_in_force_only)
{
	const struct ha_constraints c = {.head_dim_multiple = 8, .max_heads = 64};
	char *text = render(HA_FORMAT_YAML, header_sections, &c);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_eq(num_at(&doc, "model.smoothness"), ha_model_defaults().smoothness);
	cr_assert_eq(uint_at(&doc, "constraints.head_dim_multiple"), 8);
	cr_assert_eq(uint_at(&doc, "constraints.max_heads"), 64);
	cr_assert(!has(&doc, "constraints.min_heads"));
	cr_assert(!has(&doc, "constraints.min_head_dim"));
	cr_assert(!has(&doc, "hdi_source"));
	yaml_document_delete(&doc);
	free(text);
}

/* ---- regimes ----------------------------------------------------------------------- */

/* The regimes section of req's budgets, computed first (ha_regimes_new),
 * as the CLI writes it. */
static enum ha_status report_regimes_of(struct ha_report *r, struct ha_regimes_request req,
                                        struct ha_error *err)
{
	struct ha_regimes *g = NULL;
	enum ha_status st = ha_regimes_new(req.model, req.constraints, req.budgets,
	                                   req.budget_count, req.solvers, &g, err);
	if (st != HA_OK)
		return st;
	req.regimes = g;
	st = ha_report_regimes(r, &req, err);
	ha_regimes_free(g);
	return st;
}

static enum ha_status regimes_sections(struct ha_report *r, const void *ctx,
                                       struct ha_error *err)
{
	const uint64_t *budget = ctx;
	struct ha_model m = ha_model_defaults();
	return report_regimes_of(r, (struct ha_regimes_request){
		.model = &m, .budgets = budget, .budget_count = 1}, err);
}

Test(report, each_regime_holds_inside_its_range)
{
	const uint64_t budget = 512;
	char *text = render(HA_FORMAT_YAML, regimes_sections, &budget);
	yaml_document_t doc;
	load(text, &doc);
	size_t count = length_at(&doc, "regimes");
	cr_assert_geq(count, 2);
	char path[64];
	cr_assert_eq(num_at(&doc, "regimes.0.samples_from"), 1.0);
	for (size_t i = 0; i < count; i++) {
		snprintf(path, sizeof path, "regimes.%zu.budget", i);
		cr_assert_eq(uint_at(&doc, path), budget);
		snprintf(path, sizeof path, "regimes.%zu.log10_samples_from", i);
		double from = num_at(&doc, path);
		snprintf(path, sizeof path, "regimes.%zu.log10_samples_to", i);
		double to = num_at(&doc, path);
		cr_assert_eq(isinf(to), i == count - 1, "only the last is unbounded");
		/* Inside the regime (its middle in log n), brute force agrees. */
		double mid = isinf(to) ? from + 1 : (from + to) / 2;
		if (mid > 300)
			continue; /* n beyond a double */
		double n_samples = pow(10.0, mid);
	struct ha_model m = ha_model_defaults();
		snprintf(path, sizeof path, "regimes.%zu.head_dim", i);
		cr_assert_eq(uint_at(&doc, path), brute_force_head_dim(&m, n_samples, budget),
		             "regime %zu at n = 10^%g", i, mid);
	}
	yaml_document_delete(&doc);
	free(text);
}

/* ---- public models ---------------------------------------------------------------- */

static enum ha_status models_sections(struct ha_report *r, const void *ctx,
                                      struct ha_error *err)
{
	return ha_report_models(r, &(struct ha_models_request){ctx, 1}, err);
}

Test(report, models_report_the_comparison)
{
	double n_samples = 3.3e9;
	struct ha_model m = ha_model_defaults();
	struct ha_model_comparison cmp;
	cr_assert_eq(ha_compare_model(&m, n_samples, NULL, 12, 64, &cmp), HA_OK);
	cmp.name = "BERT-base";
	cmp.note = "3.3B words";
	cmp.samples_assumed = 0;
	/* Independently: the actual pair's error against the best divisor's. */
	struct ha_terms actual, best;
	cr_assert_eq(ha_model_eval(&m, n_samples, 768, 64, &actual), HA_OK);
	cr_assert_eq(ha_model_eval(&m, n_samples, 768, brute_force_head_dim(&m, n_samples, 768), &best), HA_OK);
	double ratio = (actual.log_mse - best.log_mse) / log(10.0);
	cr_assert_float_eq(cmp.log10_ratio, ratio, 1e-12);
	cr_assert_geq(cmp.log10_ratio, 0.0, "no pair beats the optimum");

	char *text = render(HA_FORMAT_YAML, models_sections, &cmp);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_eq(length_at(&doc, "models"), 1);
	cr_assert_str_eq(str_at(&doc, "models.0.name"), "BERT-base");
	cr_assert_str_eq(str_at(&doc, "models.0.note"), "3.3B words");
	cr_assert_str_eq(str_at(&doc, "models.0.samples_assumed"), "false");
	cr_assert_eq(uint_at(&doc, "models.0.budget"), 768);
	cr_assert_eq(uint_at(&doc, "models.0.actual.heads"), 12);
	cr_assert_eq(num_at(&doc, "models.0.log10_mse_ratio"), cmp.log10_ratio);
	cr_assert_float_eq(num_at(&doc, "models.0.mse_ratio") /
	                   (num_at(&doc, "models.0.actual.mse") /
	                    num_at(&doc, "models.0.theory.mse")), 1.0, 1e-12);
	yaml_document_delete(&doc);
	free(text);

	text = render(HA_FORMAT_TEXT, models_sections, &cmp);
	cr_assert_not_null(strstr(text, "BERT-base"), "%s", text);
	cr_assert_not_null(strstr(text, "12 x 64"), "%s", text);
	free(text);
	cr_assert_eq(ha_compare_model(&m, n_samples, NULL, 0, 64, &cmp), HA_EINVAL);
}

/* ---- solvers made once -------------------------------------------------- */

/* A table and the regimes given solvers made beforehand (so that a budget
 * is factorised once) print exactly what they print with their own, and
 * leave the solvers to their owner. */
struct borrowed {
	const uint64_t *budgets;
	size_t count;
	struct ha_solver *const *solvers; /* NULL: the report's own */
};

static enum ha_status borrowed_sections(struct ha_report *r, const void *ctx,
                                        struct ha_error *err)
{
	const struct borrowed *b = ctx;
	struct ha_model m = ha_model_defaults();
	sweep_table(r, (struct ha_sweep_request){
		.model = &m,
		.budgets = b->budgets,
		.budget_count = b->count,
		.samples = {.values = sweep, .count = 5},
		.solvers = b->solvers,
	}, err);
	return report_regimes_of(r, (struct ha_regimes_request){
		.model = &m, .budgets = b->budgets, .budget_count = b->count,
		.solvers = b->solvers}, err);
}

Test(report, borrowed_solvers_give_the_same_report)
{
	const uint64_t budgets[] = {512, 720720, 4544};
	struct ha_solver *solvers[3];
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(ha_solver_new(budgets[i], NULL, &solvers[i]), HA_OK);
	for (int f = 0; f < 2; f++) {
		enum ha_report_format format = f ? HA_FORMAT_YAML : HA_FORMAT_TEXT;
		char *own = render(format, borrowed_sections,
		                   &(struct borrowed){budgets, 3, NULL});
		char *lent = render(format, borrowed_sections,
		                    &(struct borrowed){budgets, 3, solvers});
		cr_expect_str_eq(lent, own);
		free(own);
		free(lent);
	}
	/* still the caller's, and usable */
	for (size_t i = 0; i < 3; i++) {
		cr_expect_eq(solvers[i]->budget, budgets[i]);
		ha_solver_free(solvers[i]);
	}
}

/* ha_compare_model_solver agrees with ha_compare_model, and refuses a
 * solver of another budget. */
Test(report, comparison_with_a_solver_made_once)
{
	double n_samples = 3.3e9;
	struct ha_model m = ha_model_defaults();
	struct ha_solver *s = NULL;
	cr_assert_eq(ha_solver_new(768, NULL, &s), HA_OK);
	struct ha_model_comparison a, b;
	cr_assert_eq(ha_compare_model(&m, n_samples, NULL, 12, 64, &a), HA_OK);
	cr_assert_eq(ha_compare_model_solver(s, &m, n_samples, 12, 64, &b), HA_OK);
	cr_expect_eq(a.theory.optimum.head_dim, b.theory.optimum.head_dim);
	cr_expect_eq(a.log10_ratio, b.log10_ratio);
	cr_expect_eq(a.actual.terms.log_mse, b.actual.terms.log_mse);
	cr_expect_eq(ha_compare_model_solver(s, &m, n_samples, 8, 64, &b), HA_EINVAL);
	ha_solver_free(s);
}
