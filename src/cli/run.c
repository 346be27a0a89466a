/* The allocation command's report.  A single (budget, n) gives the full
 * account of one allocation; anything more gives a table, streamed row by
 * row, followed by the scaling-law fits of spec §6.  Regimes (spec §4) and
 * the public-model comparison are added when asked for. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>

#include "exit_codes.h"
#include "run.h"

/* An output in one of the two formats: YAML events or text lines. */
struct sink {
	FILE *stream;
	struct ha_yaml_writer *yaml; /* NULL for text */
};

static int library_failure(const char *what, enum ha_status st)
{
	fprintf(stderr, "headalloc: %s: %s\n", what, ha_status_str(st));
	return st == HA_EINVAL ? EXIT_USAGE : EXIT_IO;
}

static void describe_constraint(const char *name, uint64_t value)
{
	if (value)
		fprintf(stderr, " %s %" PRIu64, name, value);
}

static int infeasible(uint64_t budget, const struct ha_constraints *c)
{
	fprintf(stderr, "headalloc: no (heads, head_dim) pair of budget %" PRIu64
	        " meets the constraints:", budget);
	describe_constraint("--head-dim-multiple", c->head_dim_multiple);
	describe_constraint("--min-head-dim", c->min_head_dim);
	describe_constraint("--max-head-dim", c->max_head_dim);
	describe_constraint("--min-heads", c->min_heads);
	describe_constraint("--max-heads", c->max_heads);
	fputc('\n', stderr);
	return EXIT_INFEASIBLE;
}

static int solve_failure(enum ha_status st, uint64_t budget,
                         const struct ha_constraints *c)
{
	if (st == HA_EINFEASIBLE)
		return infeasible(budget, c);
	return library_failure("solving", st);
}

static int new_solver(const struct cli_options *o, uint64_t budget,
                      struct ha_solver **out)
{
	enum ha_status st = ha_solver_new(budget, &o->constraints, out);
	return st == HA_OK ? EXIT_OK : solve_failure(st, budget, &o->constraints);
}

/* ---- sections ------------------------------------------------------------ */

static void hdi_source(const struct cli_options *o, struct sink *s)
{
	if (!o->hdi_from)
		return;
	if (s->yaml) {
		ha_yaml_key(s->yaml, "hdi_source");
		ha_yaml_string(s->yaml, o->hdi_source);
	} else {
		fprintf(s->stream, "hdi          %.6g, %s\n", o->model.hdi,
		        o->hdi_source);
	}
}

static int write_regimes(const struct cli_options *o, struct sink *s)
{
	if (s->yaml) {
		ha_yaml_key(s->yaml, "regimes");
		ha_yaml_begin_seq(s->yaml, 0);
	}
	int rc = EXIT_OK;
	for (size_t b = 0; b < o->budget_count && rc == EXIT_OK; b++) {
		struct ha_solver *solver = NULL;
		struct ha_regime *regimes = NULL;
		size_t count = 0;
		rc = new_solver(o, o->budgets[b], &solver);
		if (rc == EXIT_OK) {
			enum ha_status st = ha_regime_compute_solver(solver, &o->model,
			                                             &regimes, &count);
			if (st != HA_OK)
				rc = library_failure("computing the regimes", st);
		}
		if (rc == EXIT_OK) {
			if (s->yaml) {
				ha_report_yaml_regimes(s->yaml, o->budgets[b], regimes, count);
			} else {
				fputc('\n', s->stream);
				ha_report_text_regimes(s->stream, o->budgets[b], regimes, count);
			}
		}
		free(regimes);
		ha_solver_free(solver);
	}
	if (s->yaml)
		ha_yaml_end_seq(s->yaml);
	return rc;
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

static int write_models(const struct cli_options *o, struct sink *s)
{
	const struct ha_scenario *sc = o->scenario;
	if (s->yaml) {
		ha_yaml_key(s->yaml, "models");
		ha_yaml_begin_seq(s->yaml, 0);
	} else {
		fputc('\n', s->stream);
		ha_report_text_comparison_header(s->stream);
	}
	for (size_t i = 0; i < sc->model_count; i++) {
		const struct ha_scenario_entry *e = &sc->models[i];
		struct ha_model model = o->model;
		struct ha_model_comparison cmp;
		model.samples = model_samples(o, e, &cmp.samples_assumed);
		enum ha_status st = ha_report_compare_model(&model, &o->constraints,
		                                            e->heads, e->head_dim, &cmp);
		if (st != HA_OK)
			return solve_failure(st, e->budget, &o->constraints);
		cmp.name = e->name;
		cmp.note = e->note;
		if (s->yaml)
			ha_report_yaml_comparison(s->yaml, &cmp);
		else
			ha_report_text_comparison(s->stream, &cmp);
	}
	if (s->yaml)
		ha_yaml_end_seq(s->yaml);
	return EXIT_OK;
}

/* ---- one allocation ------------------------------------------------------- */

static int write_single(const struct cli_options *o, struct sink *s)
{
	struct ha_solver *solver = NULL;
	struct ha_allocation *rows = NULL;
	size_t count = 0;
	struct ha_solution sol;
	int rc = new_solver(o, o->budgets[0], &solver);
	if (rc != EXIT_OK)
		return rc;
	enum ha_status st = ha_solver_solve(solver, &o->model, &sol);
	if (st == HA_OK && o->all)
		st = ha_solver_enumerate(solver, &o->model, &rows, &count);
	if (st != HA_OK) {
		rc = library_failure("solving", st);
	} else if (s->yaml) {
		ha_report_yaml_solution(s->yaml, &o->model, &sol, rows, count);
	} else {
		st = ha_report_text_solution(s->stream, &o->model, &sol, rows, count);
		if (st != HA_OK)
			rc = EXIT_WRITE_FAILED;
	}
	free(rows);
	ha_solver_free(solver);
	if (rc == EXIT_OK)
		hdi_source(o, s);
	return rc;
}

/* ---- the table and its fits ------------------------------------------------ */

struct table {
	const struct cli_options *o;
	struct ha_model model;
	struct ha_solver **solvers;   /* one per budget */
	struct ha_fit **dim_power;    /* per budget: ln d* vs ln ln n */
	struct ha_fit **dim_log;      /* per budget: d* vs ln n */
	struct ha_fit *heads_power;   /* per n, over the budgets */
	struct ha_law_fit *by_samples; /* a finished heads fit per n */
	double *relaxed_dims;         /* x*(n_i) per budget, row-major by budget,
	                                 when small enough to keep; else NULL */
	size_t replay_budget;         /* which budget a replay regenerates */
};

/* Keep the relaxed optima of a sweep (8 bytes a point) up to 16 MB, so
 * the fits' second pass for their largest residual reads them back
 * instead of solving every point again. */
#define RELAXED_CACHE_POINTS ((size_t)1 << 21)

/* Regenerate point i of a per-budget fit: (n_i, x*(n_i)). */
static enum ha_status replay_dim(void *ctx, size_t i, double *x, double *y)
{
	struct table *t = ctx;
	*x = sample_at(&t->o->samples, i);
	if (t->relaxed_dims) {
		*y = t->relaxed_dims[t->replay_budget * sample_count(&t->o->samples) + i];
		return HA_OK;
	}
	struct ha_model m = t->model;
	struct ha_relaxed r;
	m.samples = *x;
	enum ha_status st = ha_solver_solve_relaxed(t->solvers[t->replay_budget], &m, &r);
	*y = r.head_dim;
	return st;
}

/* Regenerate point i of a per-n fit: (D_i, H*(D_i)) at t->model.samples. */
static enum ha_status replay_heads(void *ctx, size_t i, double *x, double *y)
{
	struct table *t = ctx;
	struct ha_relaxed r;
	enum ha_status st = ha_solver_solve_relaxed(t->solvers[i], &t->model, &r);
	*x = (double)t->o->budgets[i];
	*y = r.heads;
	return st;
}

static void finish_fit(struct ha_law_fit *out, enum ha_law law,
                       const struct ha_fit *fit, ha_fit_replay_fn replay,
                       void *ctx)
{
	memset(out, 0, sizeof *out);
	out->law = law;
	out->points = ha_fit_count(fit);
	out->claimed = NAN;
	out->status = ha_fit_result(fit, replay, ctx, &out->result);
}

static void free_table(struct table *t)
{
	size_t nb = t->o->budget_count;
	for (size_t b = 0; b < nb; b++) {
		if (t->solvers)
			ha_solver_free(t->solvers[b]);
		if (t->dim_power)
			ha_fit_free(t->dim_power[b]);
		if (t->dim_log)
			ha_fit_free(t->dim_log[b]);
	}
	free(t->solvers);
	free(t->dim_power);
	free(t->dim_log);
	ha_fit_free(t->heads_power);
	free(t->by_samples);
	free(t->relaxed_dims);
}

static int init_table(struct table *t, const struct cli_options *o)
{
	size_t nb = o->budget_count;
	memset(t, 0, sizeof *t);
	t->o = o;
	t->model = o->model;
	t->solvers = calloc(nb, sizeof *t->solvers);
	t->dim_power = calloc(nb, sizeof *t->dim_power);
	t->dim_log = calloc(nb, sizeof *t->dim_log);
	if (nb > 1)
		t->by_samples = calloc(sample_count(&o->samples), sizeof *t->by_samples);
	if (!t->solvers || !t->dim_power || !t->dim_log || (nb > 1 && !t->by_samples))
		return library_failure("preparing the table", HA_ENOMEM);
	size_t ns = sample_count(&o->samples);
	if (ns > HA_FIT_STORE_DEFAULT && ns <= RELAXED_CACHE_POINTS / nb)
		t->relaxed_dims = malloc(nb * ns * sizeof *t->relaxed_dims);
	for (size_t b = 0; b < nb; b++) {
		int rc = new_solver(o, o->budgets[b], &t->solvers[b]);
		if (rc != EXIT_OK)
			return rc;
		if (ha_fit_new(HA_FIT_POWER_LOGLN, HA_FIT_STORE_DEFAULT, &t->dim_power[b]) != HA_OK ||
		    ha_fit_new(HA_FIT_LOG, HA_FIT_STORE_DEFAULT, &t->dim_log[b]) != HA_OK)
			return library_failure("preparing the fits", HA_ENOMEM);
	}
	if (nb > 1 && ha_fit_new(HA_FIT_POWER, HA_FIT_STORE_DEFAULT, &t->heads_power) != HA_OK)
		return library_failure("preparing the fits", HA_ENOMEM);
	return EXIT_OK;
}

/* Solve every (n, D), streaming the rows and feeding the fits. */
static int write_rows(struct table *t, struct sink *s)
{
	const struct cli_options *o = t->o;
	size_t nb = o->budget_count, ns = sample_count(&o->samples);
	if (s->yaml) {
		ha_yaml_key(s->yaml, "table");
		ha_yaml_begin_seq(s->yaml, 0);
	} else {
		fputc('\n', s->stream);
		ha_report_text_table_header(s->stream);
	}
	for (size_t i = 0; i < ns; i++) {
		t->model.samples = sample_at(&o->samples, i);
		if (t->heads_power)
			ha_fit_reset(t->heads_power);
		for (size_t b = 0; b < nb; b++) {
			struct ha_solution sol;
			enum ha_status st = ha_solver_solve(t->solvers[b], &t->model, &sol);
			if (st != HA_OK)
				return solve_failure(st, o->budgets[b], &o->constraints);
			if (s->yaml)
				ha_report_yaml_table_row(s->yaml, t->model.samples, &sol);
			else
				ha_report_text_table_row(s->stream, t->model.samples, &sol);
			if (t->relaxed_dims)
				t->relaxed_dims[b * ns + i] = sol.relaxed.head_dim;
			ha_fit_add(t->dim_power[b], t->model.samples, sol.relaxed.head_dim);
			ha_fit_add(t->dim_log[b], t->model.samples, sol.relaxed.head_dim);
			if (t->heads_power)
				ha_fit_add(t->heads_power, (double)o->budgets[b], sol.relaxed.heads);
		}
		if (t->heads_power) {
			struct ha_law_fit *f = &t->by_samples[i];
			finish_fit(f, HA_LAW_HEADS_POWER, t->heads_power, replay_heads, t);
			f->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
			if (f->status == HA_OK)
				f->largest_budget = o->budgets[f->result.max_residual_index];
		}
		if (s->yaml && ha_yaml_writer_status(s->yaml) != HA_OK)
			return EXIT_WRITE_FAILED;
		if (!s->yaml && ferror(s->stream))
			return EXIT_WRITE_FAILED;
	}
	if (s->yaml)
		ha_yaml_end_seq(s->yaml);
	return EXIT_OK;
}

static void write_fits(struct table *t, struct sink *s)
{
	const struct cli_options *o = t->o;
	size_t nb = o->budget_count, ns = sample_count(&o->samples);
	char label[64];
	if (s->yaml) {
		ha_yaml_key(s->yaml, "fits");
		ha_yaml_begin_map(s->yaml, 0);
		ha_yaml_key(s->yaml, "by_budget");
		ha_yaml_begin_seq(s->yaml, 0);
	} else {
		fputc('\n', s->stream);
	}
	for (size_t b = 0; b < nb; b++) {
		struct ha_law_fit power, logarithmic;
		t->replay_budget = b;
		finish_fit(&power, HA_LAW_DIM_POWER, t->dim_power[b], replay_dim, t);
		power.claimed = ha_fit_seed_exponent(o->model.smoothness);
		finish_fit(&logarithmic, HA_LAW_DIM_LOG, t->dim_log[b], replay_dim, t);
		if (power.status == HA_OK)
			power.largest_at = sample_at(&o->samples, power.result.max_residual_index);
		if (logarithmic.status == HA_OK)
			logarithmic.largest_at = sample_at(&o->samples, logarithmic.result.max_residual_index);
		if (s->yaml) {
			ha_yaml_begin_map(s->yaml, 0);
			ha_yaml_key(s->yaml, "budget");
			ha_yaml_uint(s->yaml, o->budgets[b]);
			ha_yaml_key(s->yaml, "power_law");
			ha_report_yaml_fit(s->yaml, &power);
			ha_yaml_key(s->yaml, "log_law");
			ha_report_yaml_fit(s->yaml, &logarithmic);
			ha_yaml_end_map(s->yaml);
		} else {
			snprintf(label, sizeof label, "budget %" PRIu64, o->budgets[b]);
			ha_report_text_fit(s->stream, label, &power);
			ha_report_text_fit(s->stream, label, &logarithmic);
		}
	}
	if (s->yaml) {
		ha_yaml_end_seq(s->yaml);
		ha_yaml_key(s->yaml, "by_samples");
		ha_yaml_begin_seq(s->yaml, 0);
	}
	for (size_t i = 0; t->by_samples && i < ns; i++) {
		double n = sample_at(&o->samples, i);
		if (s->yaml) {
			ha_yaml_begin_map(s->yaml, 0);
			ha_yaml_key(s->yaml, "samples");
			ha_yaml_double(s->yaml, n);
			ha_yaml_key(s->yaml, "heads_law");
			ha_report_yaml_fit(s->yaml, &t->by_samples[i]);
			ha_yaml_end_map(s->yaml);
		} else {
			snprintf(label, sizeof label, "samples %.6g", n);
			ha_report_text_fit(s->stream, label, &t->by_samples[i]);
		}
	}
	if (s->yaml) {
		ha_yaml_end_seq(s->yaml);
		ha_yaml_end_map(s->yaml);
	}
}

static void write_model_header(const struct cli_options *o, struct sink *s)
{
	const struct ha_model *m = &o->model;
	const struct ha_constraints *c = &o->constraints;
	if (!s->yaml) {
		fprintf(s->stream, "model: smoothness %.6g, bias_coef %.6g, var_coef %.6g, hdi %.6g\n",
		        m->smoothness, m->bias_coef, m->var_coef, m->hdi);
		hdi_source(o, s);
		return;
	}
	ha_report_yaml_model(s->yaml, m);
	hdi_source(o, s);
	ha_yaml_key(s->yaml, "constraints");
	ha_yaml_begin_map(s->yaml, 1);
	const struct { const char *key; uint64_t value; } fields[] = {
		{"head_dim_multiple", c->head_dim_multiple},
		{"min_head_dim", c->min_head_dim},
		{"max_head_dim", c->max_head_dim},
		{"min_heads", c->min_heads},
		{"max_heads", c->max_heads},
	};
	/* Only the constraints in force, so that the map reads back as a
	 * scenario file's constraints. */
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		if (!fields[i].value)
			continue;
		ha_yaml_key(s->yaml, fields[i].key);
		ha_yaml_uint(s->yaml, fields[i].value);
	}
	ha_yaml_end_map(s->yaml);
}

static int write_table(const struct cli_options *o, struct sink *s)
{
	struct table t;
	write_model_header(o, s);
	int rc = init_table(&t, o);
	if (rc == EXIT_OK)
		rc = write_rows(&t, s);
	if (rc == EXIT_OK)
		write_fits(&t, s);
	free_table(&t);
	return rc;
}

/* ---- the whole report ------------------------------------------------------- */

static int single_point(const struct cli_options *o)
{
	return o->budget_count == 1 && sample_count(&o->samples) == 1 &&
	       !(o->scenario && o->scenario->model_count);
}

/* Every budget (and every model's) must have a feasible pair before a
 * line is written: a report is whole or absent, on stdout too. */
static int check_feasible(const struct cli_options *o)
{
	const struct ha_scenario *sc = o->scenario;
	size_t models = sc ? sc->model_count : 0;
	for (size_t i = 0; i < o->budget_count + models; i++) {
		uint64_t budget = i < o->budget_count ? o->budgets[i]
		                                      : sc->models[i - o->budget_count].budget;
		struct ha_solver *solver = NULL;
		int rc = new_solver(o, budget, &solver);
		ha_solver_free(solver);
		if (rc != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

static int write_sections(const struct cli_options *o, struct sink *s)
{
	int rc = check_feasible(o);
	if (rc != EXIT_OK)
		return rc;
	if (single_point(o))
		rc = write_single(o, s);
	else if (o->have_samples && o->budget_count)
		rc = write_table(o, s);
	else
		write_model_header(o, s);
	if (rc == EXIT_OK && o->regimes)
		rc = write_regimes(o, s);
	if (rc == EXIT_OK && o->scenario && o->scenario->model_count)
		rc = write_models(o, s);
	return rc;
}

int cli_run(const struct cli_options *o, FILE *out)
{
	struct sink s = {out, NULL};
	if (o->format == HA_FORMAT_TEXT) {
		int rc = write_sections(o, &s);
		if (rc == EXIT_OK && (fflush(out) != 0 || ferror(out)))
			rc = EXIT_WRITE_FAILED;
		return rc;
	}
	enum ha_status st = ha_yaml_writer_new(out, &s.yaml);
	if (st != HA_OK)
		return EXIT_WRITE_FAILED;
	ha_yaml_begin_map(s.yaml, 0);
	int rc = write_sections(o, &s);
	if (rc == EXIT_OK) {
		ha_yaml_end_map(s.yaml);
		st = ha_yaml_writer_finish(s.yaml);
		if (st != HA_OK)
			rc = EXIT_WRITE_FAILED;
	}
	ha_yaml_writer_free(s.yaml);
	return rc;
}
