/* The sweep table: every (n, D) solved and streamed row by row, feeding
 * the scaling-law fits of headalloc-model(7), SCALING LAWS, which follow the table.
 *
 * A row costs its two solves and its formatting, nothing that grows with
 * the sweep: the rows are solved and formatted in chunks by worker
 * threads and written in order (report_table_rows.c), and the fits'
 * second pass reads the relaxed optima back from a journal
 * (report_journal.h) instead of keeping them or solving again.
 *
 * The files call each other one way only: this one the rows
 * (report_table_rows.c) and the per-n fits (report_table_heads.c), all
 * three the points (report_table_points.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report/report_journal.h"
#include "report/report_table_sections.h"

/* Regenerate point i of a per-budget fit: (n_i, x*(n_i)). */
static enum ha_status replay_dim(void *ctx, size_t i, double *x, double *y)
{
	struct table *t = ctx;
	*x = table_sample_at(t, i);
	return table_relaxed_dim_at(t, t->replay_budget, i, y);
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
	if (!t->solvers || !t->relaxed || !t->dim_power || !t->dim_log ||
	    journal_new(nb, ns, &t->journal) != HA_OK)
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
			return table_solve_failed(r, err, st, req->budgets[b]);
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

static void write_budget_fits(struct table *t, struct ha_report *r, size_t b)
{
	const struct ha_table_request *req = t->req;
	struct report_law_fit power, logarithmic;
	t->replay_budget = b;
	report_finish_fit(&power, LAW_DIM_POWER, t->dim_power[b], replay_dim, t);
	power.claimed = ha_fit_seed_exponent(req->model->smoothness);
	report_finish_fit(&logarithmic, LAW_DIM_LOG, t->dim_log[b], replay_dim, t);
	if (power.status == HA_OK)
		power.largest_at = table_sample_at(t, power.result.max_residual_index);
	if (logarithmic.status == HA_OK)
		logarithmic.largest_at = table_sample_at(t, logarithmic.result.max_residual_index);
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
	if (t->heads_power)
		table_write_samples_fits(t, r);
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
	st = init_table(&t, r, err);
	if (st == HA_OK)
		st = table_write_rows(&t, r, err);
	if (st == HA_OK)
		write_fits(&t, r);
	if (st == HA_OK && !r->yaml)
		report_text_caution(r->stream, req->model);
	free_table(&t);
	return st != HA_OK ? st : report_end(r, err);
}
