/* A sweep (sweep.h): every (n, D) solved in order, a batch of rows at a
 * time, feeding the scaling-law fits of headalloc-model(7), SCALING LAWS.
 *
 * A row costs its two solves, nothing that grows with the sweep: the rows
 * are solved in chunks by worker threads and handed out in order
 * (sweep_rows.c), and the fits' second pass reads the relaxed optima back
 * from a journal (sweep_journal.h) instead of keeping them or solving
 * again; the per-n fits are computed by workers too (sweep_heads.c). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "alloc/grouped_internal.h"
#include "alloc/solver_internal.h"
#include "alloc/sweep_internal.h"
#include "fit/fit_internal.h"
#include "alloc/grouped_internal.h"

double sweep_sample_at(const struct ha_sweep *s, size_t i)
{
	return s->req.samples.at(s->req.samples.ctx, i);
}

enum ha_status sweep_solve_failed(struct ha_error *err, enum ha_status st,
                                  uint64_t budget)
{
	if (st == HA_EINFEASIBLE)
		return ha_fail(err, st, "no (heads, head_dim) pair of budget %"
		               PRIu64 " meets the constraints", budget);
	return ha_fail(err, st, "solving: %s", ha_status_str(st));
}

enum ha_status sweep_relaxed_dim_at(struct ha_sweep *s, size_t b, size_t i,
                                    double *x)
{
	if (journal_kept(s->journal) &&
	    journal_get(s->journal, sweep_column(s->columns, b) + SWEEP_X, i, x) == HA_OK)
		return HA_OK;
	struct ha_relaxed r;
	double samples = sweep_sample_at(s, i);
	if (s->req.kv) {
		struct ha_grouped_relaxed g;
		enum ha_status st = ha_grouped_solve_relaxed(s->solvers[b], &s->model,
		                                             samples, s->req.kv, &g);
		*x = g.head_dim;
		return st;
	}
	enum ha_status st = ha_relaxed_solver_solve(s->relaxed[b], &s->model,
	                                            samples, &r);
	*x = r.head_dim;
	return st;
}

void sweep_finish_fit(struct ha_sweep_fit *out, const struct ha_fit *fit,
                      ha_fit_replay_fn replay, void *ctx)
{
	memset(out, 0, sizeof *out);
	out->points = ha_fit_count(fit);
	out->claimed = NAN;
	out->status = ha_fit_result(fit, replay, ctx, &out->result);
}

static double bits_of(uint64_t value)
{
	double d;
	memcpy(&d, &value, sizeof d);
	return d;
}

static uint64_t uint_of(double bits)
{
	uint64_t value;
	memcpy(&value, &bits, sizeof value);
	return value;
}

void sweep_row_to_columns(const struct ha_sweep_row *row, const double coords[3],
                          double *v)
{
	v[SWEEP_X] = row->relaxed_head_dim;
	v[SWEEP_LNLN_N] = coords[0];
	v[SWEEP_LN_X] = coords[1];
	v[SWEEP_LN_N] = coords[2];
	v[SWEEP_HEADS] = bits_of(row->heads);
	v[SWEEP_HEAD_DIM] = bits_of(row->head_dim);
	v[SWEEP_MSE] = row->mse;
	v[SWEEP_LOG_MSE] = row->log_mse;
	v[SWEEP_RELAXED_HEADS] = row->relaxed_heads;
	v[SWEEP_KV_HEADS] = bits_of(row->kv_heads);
	v[SWEEP_KV_DIM] = bits_of(row->kv_dim);
	v[SWEEP_KV_CACHE] = bits_of(row->kv_cache_bytes_per_token);
}

void sweep_row_of_columns(const double *v, size_t columns, uint64_t budget,
                          double samples, struct ha_sweep_row *row)
{
	*row = (struct ha_sweep_row){
		.budget = budget,
		.samples = samples,
		.heads = uint_of(v[SWEEP_HEADS]),
		.head_dim = uint_of(v[SWEEP_HEAD_DIM]),
		.mse = v[SWEEP_MSE],
		.log_mse = v[SWEEP_LOG_MSE],
		.relaxed_head_dim = v[SWEEP_X],
		.relaxed_heads = v[SWEEP_RELAXED_HEADS],
	};
	if (columns == SWEEP_GROUPED_COLUMNS) {
		row->kv_heads = uint_of(v[SWEEP_KV_HEADS]);
		row->kv_dim = uint_of(v[SWEEP_KV_DIM]);
		row->kv_cache_bytes_per_token = uint_of(v[SWEEP_KV_CACHE]);
	}
}

void ha_sweep_free(struct ha_sweep *s)
{
	if (!s)
		return;
	sweep_rows_free(s->rows);
	sweep_heads_free(s->heads);
	size_t nb = s->req.budget_count;
	for (size_t b = 0; b < nb; b++) {
		if (s->pairs)
			grouped_pairs_free(&s->pairs[b]);
		if (s->relaxed)
			ha_relaxed_solver_free(s->relaxed[b]);
		if (s->solvers && s->own_solvers)
			ha_solver_free(s->solvers[b]);
		if (s->dim_power)
			ha_fit_free(s->dim_power[b]);
		if (s->dim_log)
			ha_fit_free(s->dim_log[b]);
	}
	free(s->pairs);
	free(s->relaxed);
	free(s->solvers);
	free(s->dim_power);
	free(s->dim_log);
	ha_fit_free(s->heads_power);
	journal_free(s->journal);
	free(s);
}

static enum ha_status out_of_memory(struct ha_error *err, const char *what)
{
	return ha_fail(err, HA_ENOMEM, "%s: %s", what, ha_status_str(HA_ENOMEM));
}

static enum ha_status prepare(struct ha_sweep *s, struct ha_error *err)
{
	const struct ha_sweep_request *req = &s->req;
	size_t nb = req->budget_count, ns = req->samples.count;
	s->model = *req->model;
	s->columns = req->kv ? SWEEP_GROUPED_COLUMNS : SWEEP_ROW_COLUMNS;
	s->own_solvers = req->solvers == NULL;
	s->solvers = calloc(nb, sizeof *s->solvers);
	s->relaxed = calloc(nb, sizeof *s->relaxed);
	s->dim_power = calloc(nb, sizeof *s->dim_power);
	s->dim_log = calloc(nb, sizeof *s->dim_log);
	if (!s->solvers || !s->relaxed || !s->dim_power || !s->dim_log ||
	    nb > (SIZE_MAX - 1) / s->columns ||
	    journal_new(sweep_column(s->columns, nb), ns, &s->journal) != HA_OK)
		return out_of_memory(err, "preparing the table");
	if (req->kv) {
		enum ha_status st = ha_grouped_sweep_check(req->budgets, nb, ns, err);
		if (st != HA_OK)
			return st;
		s->pairs = calloc(nb, sizeof *s->pairs);
		if (!s->pairs)
			return out_of_memory(err, "preparing the table");
	}
	const struct ha_kv_shape defaults = ha_kv_shape_defaults();
	for (size_t b = 0; b < nb; b++) {
		enum ha_status st = HA_OK;
		if (req->kv && ha_kv_shape_validate(req->shape ? req->shape : &defaults,
		                                    req->budgets[b]) != HA_OK)
			return ha_fail(err, HA_EINVAL, "budget %" PRIu64 ": the KV cache "
			               "or the attention's parameters exceed 2^64-1",
			               req->budgets[b]);
		if (req->solvers) /* borrowed: the caller frees them */
			s->solvers[b] = req->solvers[b];
		else
			st = ha_solver_new(req->budgets[b], req->constraints,
			                   &s->solvers[b]);
		if (st == HA_OK)
			st = ha_relaxed_solver_new(s->solvers[b], &s->relaxed[b]);
		/* the triples of a grouped row, listed once for all its rows */
		if (st == HA_OK && req->kv)
			st = grouped_pairs_list(s->solvers[b], &s->pairs[b]);
		if (st != HA_OK)
			return sweep_solve_failed(err, st, req->budgets[b]);
		/* No store: the second pass reads the journal, at any length. */
		if (ha_fit_new(HA_FIT_POWER_LOGLN, 0, &s->dim_power[b]) != HA_OK ||
		    ha_fit_new(HA_FIT_LOG, 0, &s->dim_log[b]) != HA_OK)
			return out_of_memory(err, "preparing the fits");
	}
	/* A store for one n's points (one a budget) where they fit in it. */
	if (nb > 1 && ha_fit_new(HA_FIT_POWER, nb <= HA_FIT_STORE_DEFAULT ? nb : 0,
	                         &s->heads_power) != HA_OK)
		return out_of_memory(err, "preparing the fits");
	enum ha_status st = sweep_rows_new(s, &s->rows);
	if (st == HA_ENOMEM)
		return out_of_memory(err, "preparing the table");
	if (st != HA_OK)
		return sweep_solve_failed(err, st, req->budgets[0]);
	return HA_OK;
}

enum ha_status ha_sweep_new(const struct ha_sweep_request *req,
                            struct ha_sweep **out, struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!req || !out || !req->model || !req->budgets || req->budget_count == 0 ||
	    req->samples.count == 0 || !req->samples.at)
		return ha_fail(err, HA_EINVAL,
		               "a table needs a model, budgets and samples");
	if (req->kv && ha_kv_constraints_validate(req->kv) != HA_OK)
		return ha_fail(err, HA_EINVAL, "a table's KV constraints are "
		               "inconsistent (min_kv_heads above max_kv_heads, or "
		               "kv_heads outside them)");
	struct ha_sweep *s = calloc(1, sizeof *s);
	if (!s)
		return out_of_memory(err, "preparing the table");
	s->req = *req;
	enum ha_status st = prepare(s, err);
	if (st != HA_OK) {
		ha_sweep_free(s);
		return st;
	}
	*out = s;
	return HA_OK;
}

size_t ha_sweep_row_count(const struct ha_sweep *s)
{
	return s ? s->req.budget_count * s->req.samples.count : 0;
}

const struct ha_sweep_request *ha_sweep_request(const struct ha_sweep *s)
{
	return s ? &s->req : NULL;
}

enum ha_status ha_sweep_rows(struct ha_sweep *s, const struct ha_sweep_row **rows,
                             size_t *count, struct ha_error *err)
{
	if (count)
		*count = 0;
	if (!s || !rows || !count)
		return ha_fail(err, HA_EINVAL, "the rows of a sweep need a sweep");
	if (s->failed != HA_OK)
		return ha_fail(err, s->failed, "%s", s->failure);
	if (s->rows_done)
		return HA_OK;
	struct ha_error why;
	ha_error_init(&why);
	enum ha_status st = sweep_rows_next(s, rows, count, &why);
	if (st != HA_OK) {
		s->failed = st;
		memcpy(s->failure, why.message, sizeof s->failure);
		return ha_fail(err, st, "%s", s->failure);
	}
	if (st == HA_OK && *count == 0) {
		sweep_rows_free(s->rows);
		s->rows = NULL;
		s->rows_done = 1;
	}
	return st;
}

/* Point i's coordinates in budget replay_budget's two fits, as the
 * journal kept them (fit_internal.h's order: the power law's X and Y,
 * then the log law's). */
static enum ha_status journaled_coords(void *ctx, size_t i, double c[FIT_PAIR_COORDS])
{
	struct ha_sweep *s = ctx;
	size_t column = sweep_column(s->columns, s->replay_budget);
	double v[SWEEP_LN_N + 1];
	enum ha_status st = journal_get_columns(s->journal, column, SWEEP_LN_N + 1,
	                                        i, v);
	if (st != HA_OK)
		return st;
	/* the columns: x*, then the coordinates c[0], c[1], c[2] */
	c[0] = v[SWEEP_LNLN_N];
	c[1] = v[SWEEP_LN_X];
	c[2] = v[SWEEP_LN_N];
	c[3] = v[SWEEP_X];
	return HA_OK;
}

/* Regenerate point i of a per-budget fit: (n_i, x*(n_i)). */
static enum ha_status replay_dim(void *ctx, size_t i, double *x, double *y)
{
	struct ha_sweep *s = ctx;
	*x = sweep_sample_at(s, i);
	return sweep_relaxed_dim_at(s, s->replay_budget, i, y);
}

enum ha_status ha_sweep_budget_fits(struct ha_sweep *s, size_t b,
                                    struct ha_sweep_fit *power,
                                    struct ha_sweep_fit *logarithmic)
{
	if (!s || !power || !logarithmic)
		return HA_EINVAL;
	if (!s->rows_done || s->failed != HA_OK || b >= s->req.budget_count) {
		*power = *logarithmic = (struct ha_sweep_fit){.status = HA_EINVAL,
		                                              .claimed = NAN};
		return HA_EINVAL;
	}
	s->replay_budget = b;
	/* Both laws' second passes in one: each point read back once. */
	memset(power, 0, sizeof *power);
	memset(logarithmic, 0, sizeof *logarithmic);
	power->points = ha_fit_count(s->dim_power[b]);
	logarithmic->points = ha_fit_count(s->dim_log[b]);
	logarithmic->claimed = NAN;
	/* From the journaled coordinates; where the journal is lost (or a fit
	 * refused a point, so that its points are not the rows), from the
	 * points made again: the same results. */
	int journaled = journal_kept(s->journal) && !s->fit_refused &&
		fit_result_pair_coords(s->dim_power[b], s->dim_log[b], journaled_coords, s,
		                       &power->result, &power->status,
		                       &logarithmic->result, &logarithmic->status) == HA_OK;
	if (!journaled || !journal_kept(s->journal))
		ha_fit_result_pair(s->dim_power[b], s->dim_log[b], replay_dim, s,
		                   &power->result, &power->status,
		                   &logarithmic->result, &logarithmic->status);
	power->claimed = ha_fit_seed_exponent(s->model.smoothness);
	if (power->status == HA_OK)
		power->largest_at = sweep_sample_at(s, power->result.max_residual_index);
	if (logarithmic->status == HA_OK)
		logarithmic->largest_at =
			sweep_sample_at(s, logarithmic->result.max_residual_index);
	return HA_OK;
}

enum ha_status ha_sweep_samples_fits(struct ha_sweep *s,
                                     const struct ha_sweep_samples_fit **fits,
                                     size_t *count, struct ha_error *err)
{
	if (count)
		*count = 0;
	if (!s || !fits || !count || !s->rows_done || s->failed != HA_OK)
		return ha_fail(err, HA_EINVAL, "the per-n fits come after every row");
	if (!s->heads_power || s->heads_done)
		return HA_OK;
	enum ha_status st = sweep_heads_next(s, fits, count, err);
	if (st != HA_OK || *count == 0) {
		sweep_heads_free(s->heads);
		s->heads = NULL;
		s->heads_done = 1;
	}
	return st;
}
