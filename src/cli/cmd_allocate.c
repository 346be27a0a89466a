/* The allocation command.  A single (budget, n) gives the full account of
 * one allocation; anything more gives a table, streamed row by row,
 * followed by the scaling-law fits of spec §6.  Regimes (spec §4) and the
 * public-model comparison are added when asked for.  Everything that can
 * fail for the problem's sake (infeasible constraints, a failed solve) is
 * found before a line is written: a report is whole or absent, on stdout
 * too.  The report layer writes every line. */
#include <inttypes.h>
#include <stdlib.h>

#include "commands.h"
#include "common.h"
#include "options.h"

/* What is computed before the report and written in it. */
struct allocation {
	const struct cli_options *o;
	struct ha_solution solution;       /* a single point */
	struct ha_allocation *candidates;  /* --all: every feasible pair */
	size_t candidate_count;
	struct ha_model_comparison *comparisons; /* the scenario's models */
	size_t comparison_count;
};

static void describe_constraint(const char *name, uint64_t value)
{
	if (value)
		fprintf(stderr, " %s %" PRIu64, name, value);
}

/* A failed solve of budget: the constraints it cannot meet in terms of
 * the options, or the library's failure. */
static int solve_failure(enum ha_status st, uint64_t budget,
                         const struct ha_constraints *c)
{
	if (st != HA_EINFEASIBLE)
		return cli_library_failure("solving", NULL, st, NULL);
	fprintf(stderr, "headalloc: no (heads, head_dim) pair of budget %" PRIu64
	        " meets the constraints:", budget);
	describe_constraint("--head-dim-multiple", c->head_dim_multiple);
	describe_constraint("--min-head-dim", c->min_head_dim);
	describe_constraint("--max-head-dim", c->max_head_dim);
	describe_constraint("--min-heads", c->min_heads);
	describe_constraint("--max-heads", c->max_heads);
	fputc('\n', stderr);
	return cli_exit_status(st);
}

static int has_models(const struct cli_options *o)
{
	return o->scenario && o->scenario->model_count;
}

static int single_point(const struct cli_options *o)
{
	return o->budget_count == 1 && sample_count(&o->samples) == 1 &&
	       !has_models(o);
}

/* Every budget (and every model's) must have a feasible pair. */
static int check_feasible(const struct cli_options *o)
{
	const struct ha_scenario *sc = o->scenario;
	size_t models = sc ? sc->model_count : 0;
	for (size_t i = 0; i < o->budget_count + models; i++) {
		uint64_t budget = i < o->budget_count ? o->budgets[i]
		                                      : sc->models[i - o->budget_count].budget;
		struct ha_solver *solver = NULL;
		enum ha_status st = ha_solver_new(budget, &o->constraints, &solver);
		ha_solver_free(solver);
		if (st != HA_OK)
			return solve_failure(st, budget, &o->constraints);
	}
	return EXIT_OK;
}

static int solve_single(struct allocation *a)
{
	const struct cli_options *o = a->o;
	struct ha_solver *solver = NULL;
	enum ha_status st = ha_solver_new(o->budgets[0], &o->constraints, &solver);
	if (st == HA_OK)
		st = ha_solver_solve(solver, &o->model, &a->solution);
	if (st == HA_OK && o->all)
		st = ha_solver_enumerate(solver, &o->model, &a->candidates,
		                         &a->candidate_count);
	ha_solver_free(solver);
	return st == HA_OK ? EXIT_OK : solve_failure(st, o->budgets[0], &o->constraints);
}

/* The n of a model row: its own, or the assumed one (the first value of
 * --samples, else the default). */
static double model_samples(const struct cli_options *o,
                            const struct ha_scenario_entry *e, int *assumed)
{
	*assumed = !e->has_samples;
	if (e->has_samples)
		return e->samples;
	if (sample_count(&o->samples))
		return sample_at(&o->samples, 0);
	return ha_model_defaults().samples;
}

static int compare_models(struct allocation *a)
{
	const struct cli_options *o = a->o;
	const struct ha_scenario *sc = o->scenario;
	a->comparisons = calloc(sc->model_count, sizeof *a->comparisons);
	if (!a->comparisons)
		return cli_library_failure("comparing the models", NULL, HA_ENOMEM, NULL);
	for (size_t i = 0; i < sc->model_count; i++) {
		const struct ha_scenario_entry *e = &sc->models[i];
		struct ha_model_comparison *cmp = &a->comparisons[i];
		struct ha_model model = o->model;
		model.samples = model_samples(o, e, &cmp->samples_assumed);
		enum ha_status st = ha_compare_model(&model, &o->constraints,
		                                     e->heads, e->head_dim, cmp);
		if (st != HA_OK)
			return solve_failure(st, e->budget, &o->constraints);
		cmp->name = e->name;
		cmp->note = e->note;
		a->comparison_count++;
	}
	return EXIT_OK;
}

static double sample_of(const void *samples, size_t i)
{
	return sample_at(samples, i);
}

/* The report's sections, in order; errors are sticky, so each section
 * after a failure returns that failure at once. */
static enum ha_status write_report(struct ha_report *r, const void *ctx,
                                   struct ha_error *err)
{
	const struct allocation *a = ctx;
	const struct cli_options *o = a->o;
	const struct ha_hdi_source *source = o->hdi_from ? &o->hdi_source : NULL;
	enum ha_status st = HA_OK;
	if (single_point(o)) {
		st = ha_report_allocation(r, &(struct ha_allocation_request){
			.model = &o->model,
			.solution = &a->solution,
			.candidates = a->candidates,
			.candidate_count = a->candidate_count,
			.hdi_source = source,
		}, err);
	} else {
		st = ha_report_header(r, &(struct ha_header_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.hdi_source = source,
		}, err);
		if (o->have_samples && o->budget_count)
			st = ha_report_table(r, &(struct ha_table_request){
				.model = &o->model,
				.constraints = &o->constraints,
				.budgets = o->budgets,
				.budget_count = o->budget_count,
				.samples = {sample_count(&o->samples), sample_of, &o->samples},
			}, err);
	}
	if (o->regimes)
		st = ha_report_regimes(r, &(struct ha_regimes_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.budgets = o->budgets,
			.budget_count = o->budget_count,
		}, err);
	if (has_models(o))
		st = ha_report_models(r, &(struct ha_models_request){
			.comparisons = a->comparisons,
			.count = a->comparison_count,
		}, err);
	return st;
}

/* The picture of the report (--plot): the regimes when asked for, else
 * the landscape of a single (D, n), else the sweep. */
static enum ha_status draw_picture(struct ha_plot_target *t, const void *ctx,
                                   size_t i, struct ha_error *err)
{
	(void)i;
	const struct allocation *a = ctx;
	const struct cli_options *o = a->o;
	if (o->regimes)
		return ha_plot_regimes(t, &(struct ha_regimes_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.budgets = o->budgets,
			.budget_count = o->budget_count,
		}, err);
	if (o->budget_count == 1 && sample_count(&o->samples) == 1)
		return ha_plot_allocation(t, &(struct ha_plot_allocation_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.budget = o->budgets[0],
			.hdi_source = o->hdi_from ? &o->hdi_source : NULL,
		}, err);
	return ha_plot_sweep(t, &(struct ha_table_request){
		.model = &o->model,
		.constraints = &o->constraints,
		.budgets = o->budgets,
		.budget_count = o->budget_count,
		.samples = {sample_count(&o->samples), sample_of, &o->samples},
	}, err);
}

int cli_allocate_main(int argc, char **argv)
{
	struct cli_options o;
	int status;
	if (cli_options_parse(argc, argv, &o, &status)) {
		struct allocation a = {.o = &o};
		status = check_feasible(&o);
		if (status == EXIT_OK && single_point(&o))
			status = solve_single(&a);
		if (status == EXIT_OK && has_models(&o))
			status = compare_models(&a);
		if (status == EXIT_OK)
			status = cli_emit_with_pictures(o.output, o.format, write_report, &a,
			                                &o.plot, 1, draw_picture, &a);
		free(a.candidates);
		free(a.comparisons);
	}
	cli_options_free(&o);
	return status;
}
