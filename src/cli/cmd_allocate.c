/* The allocation command.  A single (budget, n) gives the full account of
 * one allocation; anything more gives a table, solved before it is written,
 * followed by the scaling-law fits of headalloc-model(7), SCALING LAWS.  Regimes (headalloc-model(7), EXACT REGIMES IN N) and the
 * public-model comparison are added when asked for.  Everything that can
 * fail for the problem's sake (infeasible constraints, a failed solve) is
 * found before a line is written: a report is whole or absent, on stdout
 * too.  The report layer writes every line. */
#include <inttypes.h>
#include <stdlib.h>

#include "commands.h"
#include "common.h"
#include "input/budget_list.h"
#include "options.h"
#include "parse.h"

/* Every distinct budget of the run (the budgets and the models' budgets),
 * ascending, with its solver: each budget is factorised once, and the
 * table, the regimes and the comparison borrow these solvers. */
struct solvers {
	uint64_t *budgets;
	struct ha_solver **solvers;
	size_t count;
	struct ha_solver **of_budget; /* solvers of o->budgets[i], in order */
};

/* What is computed before the report and written in it. */
struct allocation {
	const struct cli_options *o;
	struct solvers s;
	/* A single point: the solution, with --all every feasible pair, with
	 * --plot every divisor's error (the landscape drawn). */
	struct ha_allocation_result *single;
	struct ha_model_comparison *comparisons; /* the scenario's models */
	size_t comparison_count;
	struct ha_regimes *regimes;        /* --regimes: for report and picture */
	struct ha_sweep_result *sweep;     /* a table: for report and picture */
	struct ha_sweep_picture *sweep_picture; /* --plot of a sweep */
	struct ha_grouped_solution grouped; /* a single point over (H, G, d) */
};

/* A failed solve of budget: the constraints it cannot meet, each named as
 * it was given (an option, or the scenario file's key), or the library's
 * failure. */
static int solve_failure(enum ha_status st, uint64_t budget,
                         const struct cli_options *o)
{
	if (st != HA_EINFEASIBLE)
		return cli_library_failure("solving", NULL, st, NULL);
	fprintf(stderr, "headalloc: no (heads, head_dim) pair of budget %" PRIu64
	        " meets the constraints:", budget);
	for (int i = 0; i < CLI_CONSTRAINTS; i++) {
		char name[CLI_DESCRIBE_SIZE];
		if (cli_constraint(o, i))
			fprintf(stderr, " %s",
			        cli_constraint_describe(o, i, name, sizeof name));
	}
	fputc('\n', stderr);
	return cli_exit_status(st);
}

static int has_models(const struct cli_options *o)
{
	return o->scenario && o->scenario->model_count;
}

static int single_point(const struct cli_options *o)
{
	return o->budget_count == 1 && o->samples.count == 1 &&
	       !has_models(o);
}

static int compare_budget(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static struct ha_solver *solver_of(const struct solvers *s, uint64_t budget)
{
	const uint64_t *at = bsearch(&budget, s->budgets, s->count,
	                             sizeof *s->budgets, compare_budget);
	return at ? s->solvers[at - s->budgets] : NULL;
}

static void free_solvers(struct solvers *s)
{
	for (size_t i = 0; s->solvers && i < s->count; i++)
		ha_solver_free(s->solvers[i]);
	free(s->solvers);
	free(s->budgets);
	free(s->of_budget);
}

/* Where the budgets were given, for a message about all of them. */
static const char *budgets_source(const struct cli_options *o)
{
	return o->budgets_from_config || !o->budget_count ? o->config : NULL;
}

/* Make one solver per distinct budget, checking first that their divisors
 * (which the solvers list) stay within HA_SCENARIO_MAX_DIVISORS, and that
 * every budget has a feasible pair: a report is whole or absent. */
static int make_solvers(const struct cli_options *o, struct solvers *s)
{
	const struct ha_scenario *sc = o->scenario;
	size_t models = sc ? sc->model_count : 0, n = o->budget_count + models;
	s->budgets = malloc((n ? n : 1) * sizeof *s->budgets);
	s->of_budget = calloc(o->budget_count ? o->budget_count : 1,
	                      sizeof *s->of_budget);
	if (!s->budgets || !s->of_budget)
		return cli_library_failure("solving", NULL, HA_ENOMEM, NULL);
	for (size_t i = 0; i < n; i++)
		s->budgets[i] = i < o->budget_count ? o->budgets[i]
		                                    : sc->models[i - o->budget_count].budget;
	qsort(s->budgets, n, sizeof *s->budgets, compare_budget);
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_budget_list_check_divisors(s->budgets, n, &err);
	if (st == HA_EINVAL) {
		const char *file = budgets_source(o);
		fprintf(stderr, "headalloc: %s%s: %s\n", file ? file : "--budget",
		        file ? ": budgets" : "", err.message);
		return EXIT_USAGE;
	}
	if (st != HA_OK)
		return cli_library_failure("solving", NULL, st, &err);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (distinct == 0 || s->budgets[i] != s->budgets[distinct - 1])
			s->budgets[distinct++] = s->budgets[i];
	s->solvers = calloc(distinct ? distinct : 1, sizeof *s->solvers);
	if (!s->solvers)
		return cli_library_failure("solving", NULL, HA_ENOMEM, NULL);
	s->count = distinct;
	for (size_t i = 0; i < distinct; i++) {
		st = ha_solver_new(s->budgets[i], &o->constraints, &s->solvers[i]);
		if (st != HA_OK)
			return solve_failure(st, s->budgets[i], o);
	}
	for (size_t i = 0; i < o->budget_count; i++)
		s->of_budget[i] = solver_of(s, o->budgets[i]);
	return EXIT_OK;
}

/* The allocation over (H, G, d): infeasible names the KV constraints
 * too; a --max-loss-ratio that no allocation meets is infeasible. */
static int solve_grouped(struct allocation *a)
{
	const struct cli_options *o = a->o;
	const struct cli_grouped *g = &o->grouped;
	enum ha_status st = ha_grouped_solve(&(struct ha_grouped_request){
		.solver = a->s.of_budget[0],
		.model = &o->model,
		.samples = o->first_samples,
		.kv = &g->kv,
		.shape = &g->shape,
		.front = g->pareto,
		.max_loss_ratio = g->max_loss_ratio,
	}, &a->grouped);
	if (st == HA_EINFEASIBLE) {
		fprintf(stderr, "headalloc: no (heads, kv_heads, head_dim) of budget %"
		        PRIu64 " meets the KV constraints:", o->budgets[0]);
		if (g->kv.kv_heads)
			fprintf(stderr, " --kv-heads %" PRIu64, g->kv.kv_heads);
		if (g->kv.max_kv_dim)
			fprintf(stderr, " --max-kv-dim %" PRIu64, g->kv.max_kv_dim);
		if (g->kv.min_kv_heads)
			fprintf(stderr, " --min-kv-heads %" PRIu64, g->kv.min_kv_heads);
		if (g->kv.max_kv_heads)
			fprintf(stderr, " --max-kv-heads %" PRIu64, g->kv.max_kv_heads);
		fputc('\n', stderr);
		return cli_exit_status(st);
	}
	if (st == HA_EUNSUPPORTED) {
		fprintf(stderr, "headalloc: --budget %" PRIu64 ": the grouped "
		        "allocation would evaluate up to %" PRIu64 " triples (H, G, "
		        "d); at most %" PRIu64 " are allowed (see LIMITS in "
		        "headalloc(1))\n", o->budgets[0],
		        ha_grouped_triple_bound(o->budgets[0]), HA_GROUPED_MAX_TRIPLES);
		return EXIT_USAGE;
	}
	if (st != HA_OK)
		return cli_library_failure("solving", NULL, st, NULL);
	if (g->max_loss_ratio > 0.0 && a->grouped.chosen == a->grouped.front_count) {
		fprintf(stderr, "headalloc: --max-loss-ratio %.6g: no allocation "
		        "meeting the KV constraints is within it of the unconstrained "
		        "error (the least ratio is %.6g)\n",
		        g->max_loss_ratio, a->grouped.optimum.loss_ratio);
		return cli_exit_status(HA_EINFEASIBLE);
	}
	return EXIT_OK;
}

static int solve_single(struct allocation *a)
{
	const struct cli_options *o = a->o;
	if (o->grouped.active)
		return solve_grouped(a);
	unsigned parts = (o->all ? HA_ALLOCATION_CANDIDATES : 0) |
	                 (o->plot.path && !o->regimes ? HA_ALLOCATION_DIVISORS : 0);
	enum ha_status st = ha_allocation_result_new(o->budgets[0], &o->constraints,
	                                             a->s.of_budget[0], &o->model,
	                                             o->first_samples, parts,
	                                             &a->single, NULL);
	return st == HA_OK ? EXIT_OK : solve_failure(st, o->budgets[0], o);
}

/* The n of a model row: its own, or the assumed one (the first value of
 * --samples, else the default). */
static double model_samples(const struct cli_options *o,
                            const struct ha_scenario_entry *e, int *assumed)
{
	*assumed = !e->has_samples;
	return e->has_samples ? e->samples : o->first_samples;
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
		double samples = model_samples(o, e, &cmp->samples_assumed);
		/* A model of grouped key/value heads: its own G, both sides. */
		enum ha_status st =
			e->kv_heads && e->kv_heads < e->heads
			? ha_compare_model_grouped_solver(solver_of(&a->s, e->budget),
			                                  &o->model, samples, e->heads,
			                                  e->kv_heads, e->head_dim, cmp)
			: ha_compare_model_solver(solver_of(&a->s, e->budget), &o->model,
			                          samples, e->heads, e->head_dim, cmp);
		if (st != HA_OK)
			return solve_failure(st, e->budget, o);
		cmp->name = e->name;
		cmp->note = e->note;
		cmp->kv_heads = e->kv_heads;
		a->comparison_count++;
	}
	return EXIT_OK;
}

/* The sweep of the run: every (n, D), with the run's solvers, over
 * (H, G, d) under the KV constraints when they are given. */
static struct ha_sweep_request sweep_problem(const struct allocation *a)
{
	const struct cli_options *o = a->o;
	return (struct ha_sweep_request){
		.model = &o->model,
		.constraints = &o->constraints,
		.budgets = o->budgets,
		.budget_count = o->budget_count,
		.samples = o->samples,
		.solvers = a->s.of_budget,
		.kv = o->grouped.active ? &o->grouped.kv : NULL,
		.shape = o->grouped.active ? &o->grouped.shape : NULL,
	};
}

/* A grouped sweep's budget of too many triples (H, G, d). */
static int too_many_triples(const struct ha_error *err)
{
	fprintf(stderr, "headalloc: --budget %s\n", err->message);
	return EXIT_USAGE;
}

/* The table (values of n and budgets, not one point): solved before the
 * report, which reads it, as does its picture. */
static int compute_sweep(struct allocation *a)
{
	const struct cli_options *o = a->o;
	struct ha_error err;
	ha_error_init(&err);
	struct cli_progress line;
	struct ha_sweep_request problem = sweep_problem(a);
	problem.threads = o->threads;
	struct ha_progress progress = cli_progress_begin(&line, o->progress, "sweep");
	enum ha_status st = ha_sweep_run(&problem, &progress, &a->sweep, &err);
	cli_progress_end(&line);
	if (st == HA_EUNSUPPORTED)
		return too_many_triples(&err);
	return st == HA_OK ? EXIT_OK : cli_library_failure(NULL, NULL, st, &err);
}

/* The picture of a sweep (--plot without --regimes, more than one
 * point): its data made from the table before the report. */
static int compute_sweep_picture(struct allocation *a)
{
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_sweep_picture_new(&(struct ha_sweep_picture_request){
		.result = a->sweep, .regimes = a->regimes, .solvers = a->s.of_budget,
	}, &a->sweep_picture, &err);
	if (st == HA_EUNSUPPORTED)
		return too_many_triples(&err);
	return st == HA_OK ? EXIT_OK
	                   : cli_library_failure("--plot", NULL, st, &err);
}

/* --regimes: computed once, written by the report and drawn. */
static int compute_regimes(struct allocation *a)
{
	const struct cli_options *o = a->o;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st =
		o->grouped.active
		? ha_regimes_new_grouped(&o->model, &o->constraints, &o->grouped.kv,
		                         o->budgets, o->budget_count, a->s.of_budget,
		                         &a->regimes, &err)
		: ha_regimes_new(&o->model, &o->constraints, o->budgets,
		                 o->budget_count, a->s.of_budget, &a->regimes, &err);
	if (st == HA_EUNSUPPORTED) {
		fprintf(stderr, "headalloc: --budget %s\n", err.message);
		return EXIT_USAGE;
	}
	return st == HA_OK ? EXIT_OK
	                   : cli_library_failure("computing the regimes", NULL, st, &err);
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
	if (o->grouped.active && single_point(o)) {
		st = ha_report_grouped(r, &(struct ha_grouped_report_request){
			.model = &o->model,
			.solution = &a->grouped,
			.kv = &o->grouped.kv,
			.shape = &o->grouped.shape,
			.max_loss_ratio = o->grouped.max_loss_ratio,
			.hdi_source = source,
		}, err);
	} else if (single_point(o)) {
		st = ha_report_allocation(r, &(struct ha_allocation_request){
			.model = &o->model,
			.solution = &a->single->solution,
			.candidates = a->single->candidates,
			.candidate_count = a->single->candidate_count,
			.hdi_source = source,
		}, err);
	} else {
		st = ha_report_header(r, &(struct ha_header_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.hdi_source = source,
		}, err);
		if (st == HA_OK && a->sweep)
			st = ha_report_table(r, &(struct ha_table_request){
				.result = a->sweep,
			}, err);
	}
	if (o->regimes)
		st = ha_report_regimes(r, &(struct ha_regimes_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.budgets = o->budgets,
			.budget_count = o->budget_count,
			.solvers = a->s.of_budget,
			.regimes = a->regimes,
		}, err);
	if (has_models(o))
		st = ha_report_models(r, &(struct ha_models_request){
			.comparisons = a->comparisons,
			.count = a->comparison_count,
		}, err);
	return st;
}

/* The picture of the report (--plot): the regimes when asked for (over
 * (H, G, d) with the KV options), else the grouped allocation's front
 * (a single point), else the landscape of a single (D, n),
 * else the sweep (grouped with the KV options). */
static enum ha_status draw_picture(struct ha_plot_target *t, const void *ctx,
                                   size_t i, struct ha_error *err)
{
	(void)i;
	const struct allocation *a = ctx;
	const struct cli_options *o = a->o;
	if (o->grouped.active && !o->regimes && single_point(o))
		return ha_plot_grouped(t, &(struct ha_plot_grouped_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.solution = &a->grouped,
			.kv = &o->grouped.kv,
			.shape = &o->grouped.shape,
			.max_loss_ratio = o->grouped.max_loss_ratio,
			.hdi_source = o->hdi_from ? &o->hdi_source : NULL,
		}, err);
	if (o->regimes)
		return ha_plot_regimes(t, &(struct ha_regimes_request){
			.model = &o->model,
			.constraints = &o->constraints,
			.budgets = o->budgets,
			.budget_count = o->budget_count,
			.solvers = a->s.of_budget,
			.regimes = a->regimes,
		}, err);
	if (o->budget_count == 1 && o->samples.count == 1) {
		/* the landscape: the solved allocation's divisors, else made here */
		struct ha_allocation_result *own = NULL;
		const struct ha_allocation_result *single = a->single;
		enum ha_status st = HA_OK;
		if (!single || !single->divisors) {
			st = ha_allocation_result_new(o->budgets[0], &o->constraints, NULL,
			                              &o->model, o->first_samples,
			                              HA_ALLOCATION_DIVISORS, &own, err);
			single = own;
		}
		if (st == HA_OK)
			st = ha_plot_allocation(t, &(struct ha_plot_allocation_request){
				.model = &o->model,
				.constraints = &o->constraints,
				.budget = o->budgets[0],
				.hdi_source = o->hdi_from ? &o->hdi_source : NULL,
				.allocation = single,
			}, err);
		ha_allocation_result_free(own);
		return st;
	}
	return ha_plot_sweep(t, &(struct ha_plot_sweep_request){
		.picture = a->sweep_picture,
	}, err);
}

int cli_allocate_main(int argc, char **argv)
{
	struct cli_options o;
	int status;
	if (cli_options_parse(argc, argv, &o, &status) &&
	    (status = cli_options_prepare(&o)) == EXIT_OK) {
		struct allocation a = {.o = &o};
		status = make_solvers(&o, &a.s);
		if (status == EXIT_OK && single_point(&o))
			status = solve_single(&a);
		if (status == EXIT_OK && has_models(&o))
			status = compare_models(&a);
		int sweep_picture = o.plot.path && !o.regimes &&
		                    !(o.budget_count == 1 && o.samples.count == 1);
		/* The regimes for the report, or for the picture's steps. */
		if (status == EXIT_OK &&
		    (o.regimes || (sweep_picture && o.samples.count > 1)))
			status = compute_regimes(&a);
		if (status == EXIT_OK && !single_point(&o) && o.have_samples &&
		    o.budget_count)
			status = compute_sweep(&a);
		if (status == EXIT_OK && sweep_picture)
			status = compute_sweep_picture(&a);
		if (status == EXIT_OK)
			status = cli_emit_with_pictures(o.output, o.format, write_report, &a,
			                                &o.plot, 1, draw_picture, &a);
		ha_allocation_result_free(a.single);
		free(a.comparisons);
		ha_regimes_free(a.regimes);
		ha_sweep_picture_free(a.sweep_picture);
		ha_sweep_result_free(a.sweep);
		ha_grouped_solution_finish(&a.grouped);
		free_solvers(&a.s);
	}
	cli_options_free(&o);
	return status;
}
