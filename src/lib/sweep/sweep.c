/* A sweep (sweep_internal.h): every (n, D) solved in order, a batch of
 * rows at a time, feeding the scaling-law fits of headalloc-model(7),
 * SCALING LAWS.
 *
 * A row costs its two solves, nothing that grows with the sweep: the rows
 * are solved in chunks by worker threads (base/pool.h) and handed out in
 * order on the calling thread, and the fits' second pass reads the
 * relaxed optima back from a journal (sweep_internal.h) instead of keeping
 * them or solving again.
 *
 * A row is the same function of (n, D) on any thread: every thread has a
 * relaxation workspace of its own for each budget (a workspace's answers
 * do not depend on its past), the integer solvers are only read.  The
 * calling thread alone reads the request's values of n and puts the
 * relaxed optima into the journal and the fits (in row order, so that
 * their sums are the same). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/pool.h"
#include "alloc/solver_internal.h"
#include "sweep/sweep_internal.h"
#include "fit/fit_internal.h"

/* Rows a job: a few milliseconds of work, so that handing jobs over
 * costs nothing measurable, and little memory a job. */
#define CHUNK_ROWS HA_SWEEP_BATCH_MAX

/* Worker threads only for sweeps of at least this many rows, and of at
 * most this many budgets (each thread keeps a workspace a budget). */
#define THREADED_MIN_ROWS (4 * CHUNK_ROWS)
#define THREADED_MAX_BUDGETS ((size_t)64)

struct rows_job {
	size_t first, count;           /* rows [first, first + count) */
	size_t solved;                 /* rows solved: count, or the failing one */
	enum ha_status status;         /* HA_OK, or the failure of row `solved` */
	struct ha_sweep_row rows[CHUNK_ROWS];
	/* ln n and ln x* of each row, as its solves took them, for the fits
	 * (NaN where a solve does not give them: the fits take their own) */
	double log_samples[CHUNK_ROWS], log_relaxed[CHUNK_ROWS];
};

struct sweep_rows {
	const struct ha_sweep *s;
	struct ha_relaxed_solver ***relaxed; /* per worker, one per budget */
	struct ha_integer_memo ***memos;     /* per worker, one per budget */
	size_t worker_sets;                  /* sets in relaxed and memos */
	struct rows_job **jobs;
	size_t slots;
	struct pool *pool;
	int held;                            /* a job handed out, to release */
	size_t next, point;                  /* the next row; the last n asked */
	double samples;                      /* that n */
};

static double bits_of(uint64_t value)
{
	double d;
	memcpy(&d, &value, sizeof d);
	return d;
}

/* A row's values as the journal keeps them (sweep_column). */
static void row_to_columns(const struct ha_sweep_row *row, const double coords[3],
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

/* A row of a grouped sweep: the optimum over (H, G, d) of budget b at
 * the row's n, as ha_grouped_solve gives it alone. */
static enum ha_status solve_grouped_row(const struct ha_sweep *s, size_t b,
                                        struct ha_sweep_row *row)
{
	struct ha_grouped_solution g;
	enum ha_status st = grouped_solve_listed(&(struct ha_grouped_request){
		.solver = s->solvers[b],
		.model = &s->model,
		.samples = row->samples,
		.kv = s->req.kv,
		.shape = s->req.shape,
	}, &s->pairs[b], &g);
	const struct ha_grouped_allocation *a = &g.optimum;
	if (st == HA_OK)
		*row = (struct ha_sweep_row){
			.budget = s->req.budgets[b], .samples = row->samples,
			.heads = a->heads, .head_dim = a->head_dim, .mse = a->terms.mse,
			.log_mse = a->terms.log_mse, .relaxed_head_dim = g.relaxed.head_dim,
			.relaxed_heads = g.relaxed.heads, .kv_heads = a->kv_heads,
			.kv_dim = a->kv_dim,
			.kv_cache_bytes_per_token = a->kv_cache_bytes_per_token};
	ha_grouped_solution_finish(&g);
	return st;
}

/* The work of a job, on a worker thread (or the calling one): solve its
 * rows, stopping at the first failure. */
static void solve_rows(void *ctx, size_t worker, size_t number)
{
	struct sweep_rows *rs = ctx;
	struct rows_job *job = rs->jobs[number % rs->slots];
	const struct ha_sweep *s = rs->s;
	struct ha_relaxed_solver **relaxed = rs->relaxed[worker];
	struct ha_integer_memo **memos = rs->memos[worker];
	size_t nb = s->req.budget_count;
	const struct ha_model *m = &s->model;
	size_t k;
	job->status = HA_OK;
	for (k = 0; k < job->count; k++) {
		size_t b = (job->first + k) % nb;
		struct ha_sweep_row *row = &job->rows[k];
		if (s->req.kv) {
			job->log_samples[k] = job->log_relaxed[k] = NAN;
			enum ha_status st = solve_grouped_row(s, b, row);
			if (st != HA_OK) {
				job->status = st;
				break;
			}
			continue;
		}
		struct ha_allocation optimum;
		struct ha_relaxed relaxation;
		double log_samples = log(row->samples);
		job->log_samples[k] = log_samples;
		/* every row solves the sweep's model, at its own n */
		enum ha_status st = memos[b]
			? ha_solver_solve_integer_next(s->solvers[b], memos[b], m,
			                               row->samples, log_samples, &optimum)
			: ha_solver_solve_integer(s->solvers[b], m, row->samples,
			                          &optimum, NULL);
		if (st == HA_OK)
			st = ha_relaxed_solver_solve_next(relaxed[b], m, row->samples,
			                                  log_samples, &relaxation,
			                                  &job->log_relaxed[k]);
		if (st != HA_OK) {
			job->status = st;
			break;
		}
		*row = (struct ha_sweep_row){
			.budget = s->req.budgets[b], .samples = row->samples,
			.heads = optimum.heads, .head_dim = optimum.head_dim,
			.mse = optimum.terms.mse, .log_mse = optimum.terms.log_mse,
			.relaxed_head_dim = relaxation.head_dim,
			.relaxed_heads = relaxation.heads};
	}
	job->solved = k;
}

static void rows_free(struct sweep_rows *rs)
{
	if (!rs)
		return;
	pool_free(rs->pool);
	size_t nb = rs->s->req.budget_count;
	for (size_t w = 0; w < rs->worker_sets; w++) {
		for (size_t b = 0; rs->memos[w] && b < nb; b++)
			ha_integer_memo_free(rs->memos[w][b]);
		free(rs->memos[w]);
		for (size_t b = 0; rs->relaxed[w] && b < nb; b++)
			ha_relaxed_solver_free(rs->relaxed[w][b]);
		free(rs->relaxed[w]);
	}
	free(rs->relaxed);
	free(rs->memos);
	for (size_t i = 0; rs->jobs && i < rs->slots; i++)
		free(rs->jobs[i]);
	free(rs->jobs);
	free(rs);
}

/* Jobs and workspaces for `threads` threads (1: the calling thread). */
static enum ha_status prepare_rows(struct sweep_rows *rs, struct ha_sweep *s,
                                   size_t threads)
{
	size_t nb = s->req.budget_count;
	rs->slots = threads > 1 ? 2 * threads + 2 : 1;
	/* one set of workspaces a thread, set 0 the calling thread's */
	rs->relaxed = calloc(threads, sizeof *rs->relaxed);
	rs->memos = calloc(threads, sizeof *rs->memos);
	rs->jobs = calloc(rs->slots, sizeof *rs->jobs);
	if (!rs->relaxed || !rs->memos || !rs->jobs)
		return HA_ENOMEM;
	for (size_t w = 0; w < threads; w++) {
		rs->worker_sets++;
		rs->relaxed[w] = calloc(nb, sizeof **rs->relaxed);
		rs->memos[w] = calloc(nb, sizeof **rs->memos);
		if (!rs->relaxed[w] || !rs->memos[w])
			return HA_ENOMEM;
		for (size_t b = 0; b < nb; b++) {
			const struct ha_solver *solver = s->solvers[b];
			/* Memos only for the few budgets threads take (see there). */
			enum ha_status st = nb <= THREADED_MAX_BUDGETS
				? ha_integer_memo_new(solver, &rs->memos[w][b]) : HA_OK;
			if (st == HA_OK)
				st = ha_relaxed_solver_new(solver, &rs->relaxed[w][b]);
			if (st != HA_OK)
				return st;
		}
	}
	for (size_t i = 0; i < rs->slots; i++)
		if (!(rs->jobs[i] = malloc(sizeof *rs->jobs[i])))
			return HA_ENOMEM;
	return pool_new(threads, rs->slots, solve_rows, rs, &rs->pool);
}

/* The rows' workers and jobs: HA_OK, HA_ENOMEM or a solver's status. */
static enum ha_status rows_new(struct ha_sweep *s, struct sweep_rows **out)
{
	size_t nb = s->req.budget_count, total = nb * s->req.samples.count;
	size_t threads = total >= THREADED_MIN_ROWS && nb <= THREADED_MAX_BUDGETS
		? pool_threads(s->req.threads, SIZE_MAX) : 1;
	struct sweep_rows *rs = calloc(1, sizeof *rs);
	*out = NULL;
	if (!rs)
		return HA_ENOMEM;
	rs->s = s;
	rs->point = SIZE_MAX;
	rs->samples = NAN;
	enum ha_status st = prepare_rows(rs, s, threads);
	if (st != HA_OK) {
		rows_free(rs);
		return st;
	}
	*out = rs;
	return HA_OK;
}

/* Fill the next job with the rows from rs->next on; the n of a point is
 * asked for once. */
static void fill_job(struct sweep_rows *rs, struct rows_job *job, size_t total)
{
	size_t nb = rs->s->req.budget_count;
	job->first = rs->next;
	job->count = total - rs->next < CHUNK_ROWS ? total - rs->next : CHUNK_ROWS;
	for (size_t k = 0; k < job->count; k++) {
		size_t i = (job->first + k) / nb;
		if (i != rs->point) {
			rs->samples = samples_read(&rs->s->n, i);
			rs->point = i;
		}
		job->rows[k].samples = rs->samples;
	}
	rs->next += job->count;
}

/* The next batch of rows (none after the last), their points put into
 * the fits and the journal. */
static enum ha_status rows_next(struct ha_sweep *s, const struct ha_sweep_row **rows,
                                size_t *count, struct ha_error *err)
{
	struct sweep_rows *rs = s->rows;
	size_t nb = s->req.budget_count, total = nb * s->req.samples.count;
	if (rs->held) {
		pool_release(rs->pool);
		rs->held = 0;
	}
	while (rs->next < total && pool_can_submit(rs->pool)) {
		fill_job(rs, rs->jobs[pool_next(rs->pool) % rs->slots], total);
		pool_submit(rs->pool);
	}
	size_t number;
	if (!pool_wait(rs->pool, &number))
		return HA_OK;
	const struct rows_job *job = rs->jobs[number % rs->slots];
	rs->held = 1;
	for (size_t k = 0; k < job->solved; k++) {
		size_t b = (job->first + k) % nb;
		const struct ha_sweep_row *row = &job->rows[k];
		double c[FIT_PAIR_COORDS];
		enum ha_status power_st, log_st;
		fit_add_pair_logs(s->dim_power[b], s->dim_log[b], row->samples,
		                  row->relaxed_head_dim, job->log_samples[k],
		                  job->log_relaxed[k], &power_st, &log_st, c);
		s->fit_refused |= power_st != HA_OK || log_st != HA_OK;
		double put[SWEEP_GROUPED_COLUMNS];
		row_to_columns(row, c, put);
		journal_put_values(s->journal, put, s->columns);
	}
	*rows = job->rows;
	*count = job->solved;
	if (job->status == HA_EINFEASIBLE && s->req.kv)
		return ha_fail(err, HA_EINFEASIBLE, "no (heads, kv_heads, head_dim) "
		               "of budget %" PRIu64 " meets the KV constraints",
		               s->req.budgets[(job->first + job->solved) % nb]);
	if (job->status != HA_OK)
		return ha_solve_failed(err, job->status,
		                    s->req.budgets[(job->first + job->solved) % nb]);
	return HA_OK;
}

void ha_sweep_free(struct ha_sweep *s)
{
	if (!s)
		return;
	rows_free(s->rows);
	size_t nb = s->req.budget_count;
	for (size_t b = 0; b < nb; b++) {
		if (s->pairs)
			grouped_pairs_free(&s->pairs[b]);
		if (s->solvers && s->own_solvers)
			ha_solver_free(s->solvers[b]);
		if (s->dim_power)
			ha_fit_free(s->dim_power[b]);
		if (s->dim_log)
			ha_fit_free(s->dim_log[b]);
	}
	free(s->pairs);
	free(s->solvers);
	free(s->dim_power);
	free(s->dim_log);
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
	s->dim_power = calloc(nb, sizeof *s->dim_power);
	s->dim_log = calloc(nb, sizeof *s->dim_log);
	if (!s->solvers || !s->dim_power || !s->dim_log ||
	    nb > SIZE_MAX / s->columns ||
	    journal_new(nb * s->columns, ns, &s->journal) != HA_OK)
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
		/* the triples of a grouped row, listed once for all its rows */
		if (st == HA_OK && req->kv)
			st = grouped_pairs_list(s->solvers[b], &s->pairs[b]);
		if (st != HA_OK)
			return ha_solve_failed(err, st, req->budgets[b]);
		/* No store: the second pass reads the journal, at any length. */
		if (ha_fit_new(HA_FIT_POWER_LOGLN, 0, &s->dim_power[b]) != HA_OK ||
		    ha_fit_new(HA_FIT_LOG, 0, &s->dim_log[b]) != HA_OK)
			return out_of_memory(err, "preparing the fits");
	}
	enum ha_status st = rows_new(s, &s->rows);
	if (st == HA_ENOMEM)
		return out_of_memory(err, "preparing the table");
	if (st != HA_OK)
		return ha_solve_failed(err, st, req->budgets[0]);
	return HA_OK;
}

enum ha_status ha_sweep_new(const struct ha_sweep_request *req,
                            struct ha_sweep **out, struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!req || !out || !req->model || !req->budgets || req->budget_count == 0 ||
	    req->samples.count == 0)
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
	samples_reader_init(&s->n, &s->req.samples);
	enum ha_status st = prepare(s, err);
	if (st != HA_OK) {
		ha_sweep_free(s);
		return st;
	}
	*out = s;
	return HA_OK;
}

enum ha_status ha_sweep_rows(struct ha_sweep *s, const struct ha_sweep_row **rows,
                             size_t *count, struct ha_error *err)
{
	*count = 0;
	if (s->failed != HA_OK || s->rows_done)
		return s->failed;
	enum ha_status st = rows_next(s, rows, count, err);
	if (st != HA_OK) {
		s->failed = st;
	} else if (*count == 0) {
		rows_free(s->rows);
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
	size_t column = s->replay_budget * s->columns;
	double v[SWEEP_LN_N + 1];
	enum ha_status st = journal_get(s->journal, column, SWEEP_LN_N + 1, i, v);
	if (st != HA_OK)
		return st;
	/* the columns: x*, then the coordinates c[0], c[1], c[2] */
	c[0] = v[SWEEP_LNLN_N];
	c[1] = v[SWEEP_LN_X];
	c[2] = v[SWEEP_LN_N];
	c[3] = v[SWEEP_X];
	return HA_OK;
}

/* Point i of budget replay_budget's fits as the rows gave it, (n_i,
 * x*(n_i)), from the journal. */
static enum ha_status replay_dim(void *ctx, size_t i, double *x, double *y)
{
	struct ha_sweep *s = ctx;
	*x = samples_read(&s->n, i);
	size_t column = s->replay_budget * s->columns;
	return journal_get(s->journal, column + SWEEP_X, 1, i, y);
}

enum ha_status ha_sweep_budget_fits(struct ha_sweep *s, size_t b,
                                    struct ha_sweep_fit *power,
                                    struct ha_sweep_fit *logarithmic)
{
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
	/* From the journaled coordinates; where a fit refused a point, so that
	 * its points are not the rows, from the points made again.  A journal
	 * that lost its values fails both (HA_EIO). */
	int journaled = !s->fit_refused &&
		fit_result_pair_coords(s->dim_power[b], s->dim_log[b], journaled_coords, s,
		                       &power->result, &power->status,
		                       &logarithmic->result, &logarithmic->status) == HA_OK;
	if (!journaled)
		ha_fit_result_pair(s->dim_power[b], s->dim_log[b], replay_dim, s,
		                   &power->result, &power->status,
		                   &logarithmic->result, &logarithmic->status);
	power->claimed = ha_fit_seed_exponent(s->model.smoothness);
	if (power->status == HA_OK)
		power->largest_at = samples_read(&s->n, power->result.max_residual_index);
	if (logarithmic->status == HA_OK)
		logarithmic->largest_at =
			samples_read(&s->n, logarithmic->result.max_residual_index);
	return HA_OK;
}
