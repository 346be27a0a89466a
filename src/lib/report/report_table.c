/* The sweep table: every (n, D) solved and streamed row by row, feeding
 * the scaling-law fits of spec §6, which follow the table.
 *
 * A row costs its two solves and its formatting, nothing that grows with
 * the sweep: each budget keeps one solver and one relaxation workspace,
 * YAML rows after the first are formatted here into a buffer and written
 * in blocks (exactly as the emitter would write them), and the fits'
 * second pass reads the relaxed optima back from a journal
 * (report_journal.h) instead of keeping them or solving again. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report/report_journal.h"

/* YAML rows are gathered in a buffer of this size and written once it
 * has less than ROW_MAX bytes left (a row is at most ~330 bytes: eight
 * keys, three integers, five doubles of at most 24 characters). */
#define ROWS_BUFFER ((size_t)1 << 16)
#define ROW_MAX ((size_t)512)

struct table {
	const struct ha_table_request *req;
	struct ha_model model;        /* req->model at the current n */
	struct ha_solver **solvers;   /* one per budget */
	struct ha_relaxed_solver **relaxed; /* one per budget */
	struct ha_fit **dim_power;    /* per budget: ln d* vs ln ln n */
	struct ha_fit **dim_log;      /* per budget: d* vs ln n */
	struct ha_fit *heads_power;   /* per n, over the budgets */
	struct journal *journal;      /* x*(n, D) of every row */
	size_t replay_budget;         /* which budget a replay regenerates */
	size_t replay_point;          /* which n a heads replay regenerates */
	char *rows;                   /* YAML rows not yet written */
	size_t rows_used;
	size_t rows_done;             /* rows so far */
	double samples_of_text;       /* the n samples_text holds (NaN: none) */
	char samples_text[32];        /* n as a YAML scalar, shared by its rows */
};

static double sample_at(const struct table *t, size_t i)
{
	return t->req->samples.at(t->req->samples.ctx, i);
}

/* A solver's failure for budget, in words. */
static enum ha_status solve_failed(struct ha_report *r, struct ha_error *err,
                                   enum ha_status st, uint64_t budget)
{
	if (st == HA_EINFEASIBLE)
		return report_fail(r, err, st, "no (heads, head_dim) pair of budget %"
		                   PRIu64 " meets the constraints", budget);
	return report_fail(r, err, st, "solving: %s", ha_status_str(st));
}

/* x*(n_i) of budget b: from the journal, else solved again (the same
 * double: the workspace's answers do not depend on its past). */
static enum ha_status relaxed_dim_at(struct table *t, size_t b, size_t i,
                                     double *x)
{
	if (journal_kept(t->journal) &&
	    journal_get(t->journal, b, i, x) == HA_OK)
		return HA_OK;
	struct ha_model m = t->model;
	struct ha_relaxed r;
	m.samples = sample_at(t, i);
	enum ha_status st = ha_relaxed_solver_solve(t->relaxed[b], &m, &r);
	*x = r.head_dim;
	return st;
}

/* Regenerate point i of a per-budget fit: (n_i, x*(n_i)). */
static enum ha_status replay_dim(void *ctx, size_t i, double *x, double *y)
{
	struct table *t = ctx;
	*x = sample_at(t, i);
	return relaxed_dim_at(t, t->replay_budget, i, y);
}

/* Regenerate point b of the per-n fit at n_{t->replay_point}: (D_b, H*),
 * H* = D_b / x* as the relaxation computes it. */
static enum ha_status replay_heads(void *ctx, size_t b, double *x, double *y)
{
	struct table *t = ctx;
	double dim;
	enum ha_status st = relaxed_dim_at(t, b, t->replay_point, &dim);
	*x = (double)t->req->budgets[b];
	*y = *x / dim;
	return st;
}

static void free_table(struct table *t)
{
	size_t nb = t->req->budget_count;
	for (size_t b = 0; b < nb; b++) {
		if (t->relaxed)
			ha_relaxed_solver_free(t->relaxed[b]);
		if (t->solvers && !t->req->solvers)
			ha_solver_free(t->solvers[b]);
		if (t->dim_power)
			ha_fit_free(t->dim_power[b]);
		if (t->dim_log)
			ha_fit_free(t->dim_log[b]);
	}
	free(t->relaxed);
	free(t->solvers);
	free(t->dim_power);
	free(t->dim_log);
	ha_fit_free(t->heads_power);
	journal_free(t->journal);
	free(t->rows);
}

static enum ha_status init_table(struct table *t, struct ha_report *r,
                                 struct ha_error *err)
{
	const struct ha_table_request *req = t->req;
	size_t nb = req->budget_count, ns = req->samples.count;
	t->model = *req->model;
	t->solvers = calloc(nb, sizeof *t->solvers);
	t->relaxed = calloc(nb, sizeof *t->relaxed);
	t->dim_power = calloc(nb, sizeof *t->dim_power);
	t->dim_log = calloc(nb, sizeof *t->dim_log);
	if (r->yaml)
		t->rows = malloc(ROWS_BUFFER);
	if (!t->solvers || !t->relaxed || !t->dim_power || !t->dim_log ||
	    (r->yaml && !t->rows) || journal_new(nb, ns, &t->journal) != HA_OK)
		return report_fail(r, err, HA_ENOMEM, "preparing the table: %s",
		                   ha_status_str(HA_ENOMEM));
	for (size_t b = 0; b < nb; b++) {
		enum ha_status st = HA_OK;
		if (req->solvers) /* borrowed: the caller frees them */
			t->solvers[b] = req->solvers[b];
		else
			st = ha_solver_new(req->budgets[b], req->constraints,
			                   &t->solvers[b]);
		if (st == HA_OK)
			st = ha_relaxed_solver_new(t->solvers[b], &t->relaxed[b]);
		if (st != HA_OK)
			return solve_failed(r, err, st, req->budgets[b]);
		/* No store: the second pass reads the journal, at any length. */
		if (ha_fit_new(HA_FIT_POWER_LOGLN, 0, &t->dim_power[b]) != HA_OK ||
		    ha_fit_new(HA_FIT_LOG, 0, &t->dim_log[b]) != HA_OK)
			return report_fail(r, err, HA_ENOMEM, "preparing the fits: %s",
			                   ha_status_str(HA_ENOMEM));
	}
	/* A store for one n's points (one a budget) where they fit in it. */
	if (nb > 1 && ha_fit_new(HA_FIT_POWER, nb <= HA_FIT_STORE_DEFAULT ? nb : 0,
	                         &t->heads_power) != HA_OK)
		return report_fail(r, err, HA_ENOMEM, "preparing the fits: %s",
		                   ha_status_str(HA_ENOMEM));
	return HA_OK;
}

static char *put_text(char *p, const char *text)
{
	size_t length = strlen(text);
	memcpy(p, text, length);
	return p + length;
}

static char *put_uint(char *p, uint64_t value)
{
	char digits[20];
	size_t n = 0;
	do {
		digits[n++] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	while (n)
		*p++ = digits[--n];
	return p;
}

static char *put_double(char *p, double value)
{
	char buf[32];
	return put_text(p, ha_yaml_double_text(value, buf));
}

/* A row after the first, as the emitter writes an item of the table's
 * block sequence: a new line, "- ", and the flow map of plain scalars
 * (numbers and .inf are plain in a flow map) with ", " between pairs. */
static void put_yaml_row(struct table *t, struct ha_report *r, double samples,
                         const struct ha_solution *sol)
{
	if (ROWS_BUFFER - t->rows_used < ROW_MAX) {
		ha_yaml_raw(r->yaml, t->rows, t->rows_used);
		t->rows_used = 0;
	}
	char *p = t->rows + t->rows_used;
	p = put_text(p, "\n- {budget: ");
	p = put_uint(p, sol->budget);
	p = put_text(p, ", samples: ");
	/* One n has a row a budget: format it once. */
	if (!(t->samples_of_text == samples)) {
		char buf[32];
		strcpy(t->samples_text, ha_yaml_double_text(samples, buf));
		t->samples_of_text = samples;
	}
	p = put_text(p, t->samples_text);
	p = put_text(p, ", heads: ");
	p = put_uint(p, sol->optimum.heads);
	p = put_text(p, ", head_dim: ");
	p = put_uint(p, sol->optimum.head_dim);
	p = put_text(p, ", mse: ");
	p = put_double(p, sol->optimum.terms.mse);
	p = put_text(p, ", log10_mse: ");
	p = put_double(p, report_log10(sol->optimum.terms.log_mse));
	p = put_text(p, ", relaxed_head_dim: ");
	p = put_double(p, sol->relaxed.head_dim);
	p = put_text(p, ", relaxed_heads: ");
	p = put_double(p, sol->relaxed.heads);
	p = put_text(p, "}");
	t->rows_used = (size_t)(p - t->rows);
}

static void write_row(struct table *t, struct ha_report *r, double samples,
                      const struct ha_solution *sol)
{
	char b[32];
	if (!r->yaml) {
		fprintf(r->stream, "%20" PRIu64 " %12.6g %20" PRIu64 " %10" PRIu64
		        " %13s %12.6f %16.6g %14.6g\n", sol->budget, samples,
		        sol->optimum.heads, sol->optimum.head_dim,
		        report_human(sol->optimum.terms.mse, b),
		        report_log10(sol->optimum.terms.log_mse),
		        sol->relaxed.head_dim, sol->relaxed.heads);
		return;
	}
	if (t->rows_done++ > 0) {
		put_yaml_row(t, r, samples, sol);
		return;
	}
	/* The first row through the emitter, which then knows the sequence
	 * holds an item (an empty one it would write as []). */
	struct ha_yaml_writer *w = r->yaml;
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "budget");
	ha_yaml_uint(w, sol->budget);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, samples);
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, sol->optimum.heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, sol->optimum.head_dim);
	ha_yaml_key(w, "mse");
	ha_yaml_double(w, sol->optimum.terms.mse);
	ha_yaml_key(w, "log10_mse");
	ha_yaml_double(w, report_log10(sol->optimum.terms.log_mse));
	ha_yaml_key(w, "relaxed_head_dim");
	ha_yaml_double(w, sol->relaxed.head_dim);
	ha_yaml_key(w, "relaxed_heads");
	ha_yaml_double(w, sol->relaxed.heads);
	ha_yaml_end_map(w);
}

/* Write the rows gathered so far. */
static void flush_rows(struct table *t, struct ha_report *r)
{
	if (r->yaml && t->rows_used) {
		ha_yaml_raw(r->yaml, t->rows, t->rows_used);
		t->rows_used = 0;
	}
}

/* Solve every (n, D), streaming the rows and feeding the fits. */
static enum ha_status write_rows(struct table *t, struct ha_report *r,
                                 struct ha_error *err)
{
	const struct ha_table_request *req = t->req;
	size_t nb = req->budget_count, ns = req->samples.count;
	if (r->yaml) {
		ha_yaml_key(r->yaml, "table");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fprintf(r->stream, "\n%20s %12s %20s %10s %13s %12s %16s %14s\n",
		        "budget", "samples", "heads", "head_dim", "mse", "log10_mse",
		        "relaxed_head_dim", "relaxed_heads");
	}
	for (size_t i = 0; i < ns; i++) {
		t->model.samples = sample_at(t, i);
		for (size_t b = 0; b < nb; b++) {
			struct ha_solution sol;
			sol.budget = req->budgets[b];
			enum ha_status st = ha_solver_solve_integer(t->solvers[b], &t->model,
			                                            &sol.optimum,
			                                            &sol.certificate);
			if (st == HA_OK)
				st = ha_relaxed_solver_solve(t->relaxed[b], &t->model,
				                             &sol.relaxed);
			if (st != HA_OK) {
				flush_rows(t, r);
				return solve_failed(r, err, st, req->budgets[b]);
			}
			write_row(t, r, t->model.samples, &sol);
			journal_put(t->journal, sol.relaxed.head_dim);
			ha_fit_add(t->dim_power[b], t->model.samples, sol.relaxed.head_dim);
			ha_fit_add(t->dim_log[b], t->model.samples, sol.relaxed.head_dim);
		}
		/* A closed pipe need not cost the rest of a long sweep. */
		if (report_write_failed(r))
			return report_end(r, err);
	}
	flush_rows(t, r);
	if (r->yaml)
		ha_yaml_end_seq(r->yaml);
	return HA_OK;
}

static void write_budget_fits(struct table *t, struct ha_report *r, size_t b)
{
	const struct ha_table_request *req = t->req;
	struct report_law_fit power, logarithmic;
	t->replay_budget = b;
	report_finish_fit(&power, LAW_DIM_POWER, t->dim_power[b], replay_dim, t);
	power.claimed = ha_fit_seed_exponent(req->model->smoothness);
	report_finish_fit(&logarithmic, LAW_DIM_LOG, t->dim_log[b], replay_dim, t);
	if (power.status == HA_OK)
		power.largest_at = sample_at(t, power.result.max_residual_index);
	if (logarithmic.status == HA_OK)
		logarithmic.largest_at = sample_at(t, logarithmic.result.max_residual_index);
	if (!r->yaml) {
		char label[64];
		snprintf(label, sizeof label, "budget %" PRIu64, req->budgets[b]);
		report_text_fit(r->stream, label, &power);
		report_text_fit(r->stream, label, &logarithmic);
		return;
	}
	ha_yaml_begin_map(r->yaml, 0);
	ha_yaml_key(r->yaml, "budget");
	ha_yaml_uint(r->yaml, req->budgets[b]);
	ha_yaml_key(r->yaml, "power_law");
	report_yaml_fit(r->yaml, &power);
	ha_yaml_key(r->yaml, "log_law");
	report_yaml_fit(r->yaml, &logarithmic);
	ha_yaml_end_map(r->yaml);
}

/* The fit of ln H* against ln D over the budgets at n_i, from the
 * journal (or solved again). */
static void samples_fit(struct table *t, size_t i, struct report_law_fit *f)
{
	const struct ha_table_request *req = t->req;
	t->model.samples = sample_at(t, i);
	t->replay_point = i;
	ha_fit_reset(t->heads_power);
	for (size_t b = 0; b < req->budget_count; b++) {
		double x, y;
		if (replay_heads(t, b, &x, &y) == HA_OK)
			ha_fit_add(t->heads_power, x, y);
	}
	report_finish_fit(f, LAW_HEADS_POWER, t->heads_power, replay_heads, t);
	f->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
	if (f->status == HA_OK)
		f->largest_budget = req->budgets[f->result.max_residual_index];
}

static void write_samples_fit(struct table *t, struct ha_report *r, size_t i)
{
	struct report_law_fit fit;
	samples_fit(t, i, &fit);
	double n = t->model.samples;
	if (!r->yaml) {
		char label[64];
		snprintf(label, sizeof label, "samples %.6g", n);
		report_text_fit(r->stream, label, &fit);
		return;
	}
	ha_yaml_begin_map(r->yaml, 0);
	ha_yaml_key(r->yaml, "samples");
	ha_yaml_double(r->yaml, n);
	ha_yaml_key(r->yaml, "heads_law");
	report_yaml_fit(r->yaml, &fit);
	ha_yaml_end_map(r->yaml);
}

static void write_fits(struct table *t, struct ha_report *r)
{
	if (r->yaml) {
		ha_yaml_key(r->yaml, "fits");
		ha_yaml_begin_map(r->yaml, 0);
		ha_yaml_key(r->yaml, "by_budget");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fputc('\n', r->stream);
	}
	for (size_t b = 0; b < t->req->budget_count; b++)
		write_budget_fits(t, r, b);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_key(r->yaml, "by_samples");
		ha_yaml_begin_seq(r->yaml, 0);
	}
	for (size_t i = 0; t->heads_power && i < t->req->samples.count &&
	                   !report_write_failed(r); i++)
		write_samples_fit(t, r, i);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_end_map(r->yaml);
	}
}

enum ha_status ha_report_table(struct ha_report *r,
                               const struct ha_table_request *req,
                               struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->model || !req->budgets || req->budget_count == 0 ||
	    req->samples.count == 0 || !req->samples.at)
		return report_fail(r, err, HA_EINVAL,
		                   "a table needs a model, budgets and samples");
	struct table t = {0};
	t.req = req;
	t.samples_of_text = NAN;
	st = init_table(&t, r, err);
	if (st == HA_OK)
		st = write_rows(&t, r, err);
	if (st == HA_OK)
		write_fits(&t, r);
	free_table(&t);
	return st != HA_OK ? st : report_end(r, err);
}
