/* A sweep's rows: solved in chunks by worker threads (base/pool.h) and
 * handed out in order on the calling thread.
 *
 * A row is the same function of (n, D) on any thread: every thread has a
 * relaxation workspace of its own for each budget (a workspace's answers
 * do not depend on its past), the integer solvers are only read.  The
 * calling thread alone calls the request's samples.at and puts the
 * relaxed optima into the journal and the fits (in row order, so that
 * their sums are the same). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/error_internal.h"
#include "alloc/grouped_internal.h"
#include "base/pool.h"
#include "alloc/solver_internal.h"
#include "alloc/sweep_internal.h"
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
	if (st == HA_OK) {
		row->budget = s->req.budgets[b];
		row->heads = g.optimum.heads;
		row->head_dim = g.optimum.head_dim;
		row->mse = g.optimum.terms.mse;
		row->log_mse = g.optimum.terms.log_mse;
		row->relaxed_head_dim = g.relaxed.head_dim;
		row->relaxed_heads = g.relaxed.heads;
		row->kv_heads = g.optimum.kv_heads;
		row->kv_dim = g.optimum.kv_dim;
		row->kv_cache_bytes_per_token = g.optimum.kv_cache_bytes_per_token;
	}
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
		row->budget = s->req.budgets[b];
		row->heads = optimum.heads;
		row->head_dim = optimum.head_dim;
		row->mse = optimum.terms.mse;
		row->log_mse = optimum.terms.log_mse;
		row->relaxed_head_dim = relaxation.head_dim;
		row->relaxed_heads = relaxation.heads;
		row->kv_heads = row->kv_dim = row->kv_cache_bytes_per_token = 0;
	}
	job->solved = k;
}

void sweep_rows_free(struct sweep_rows *rs)
{
	if (!rs)
		return;
	pool_free(rs->pool);
	size_t nb = rs->s->req.budget_count;
	for (size_t w = 0; w < rs->worker_sets; w++) {
		for (size_t b = 0; rs->memos[w] && b < nb; b++)
			ha_integer_memo_free(rs->memos[w][b]);
		free(rs->memos[w]);
		/* Set 0 of the workspaces is the sweep's own. */
		if (w == 0)
			continue;
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
	/* one set a thread, set 0 (the sweep's own) the calling thread's */
	size_t sets = threads;
	rs->slots = threads > 1 ? 2 * threads + 2 : 1;
	rs->relaxed = calloc(sets, sizeof *rs->relaxed);
	rs->memos = calloc(sets, sizeof *rs->memos);
	rs->jobs = calloc(rs->slots, sizeof *rs->jobs);
	if (!rs->relaxed || !rs->memos || !rs->jobs)
		return HA_ENOMEM;
	for (size_t w = 0; w < sets; w++) {
		rs->worker_sets++;
		rs->relaxed[w] = w ? calloc(nb, sizeof **rs->relaxed) : s->relaxed;
		rs->memos[w] = calloc(nb, sizeof **rs->memos);
		if (!rs->relaxed[w] || !rs->memos[w])
			return HA_ENOMEM;
		for (size_t b = 0; b < nb; b++) {
			const struct ha_solver *solver = s->solvers[b];
			/* Memos only for the few budgets threads take (see there). */
			enum ha_status st = nb <= THREADED_MAX_BUDGETS
				? ha_integer_memo_new(solver, &rs->memos[w][b]) : HA_OK;
			if (st == HA_OK && w > 0)
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

enum ha_status sweep_rows_new(struct ha_sweep *s, struct sweep_rows **out)
{
	size_t nb = s->req.budget_count, total = ha_sweep_row_count(s);
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
		sweep_rows_free(rs);
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
			rs->samples = sweep_sample_at(rs->s, i);
			rs->point = i;
		}
		job->rows[k].samples = rs->samples;
	}
	rs->next += job->count;
}

enum ha_status sweep_rows_next(struct ha_sweep *s, const struct ha_sweep_row **rows,
                               size_t *count, struct ha_error *err)
{
	struct sweep_rows *rs = s->rows;
	size_t nb = s->req.budget_count, total = ha_sweep_row_count(s);
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
		/* The point's n before its first budget's row (sweep_column). */
		if (b == 0)
			journal_put_values(s->journal, &row->samples, 1);
		double put[SWEEP_GROUPED_COLUMNS];
		sweep_row_to_columns(row, c, put);
		journal_put_values(s->journal, put, s->columns);
	}
	*rows = job->rows;
	*count = job->solved;
	if (job->status == HA_EINFEASIBLE && s->req.kv)
		return ha_fail(err, HA_EINFEASIBLE, "no (heads, kv_heads, head_dim) "
		               "of budget %" PRIu64 " meets the KV constraints",
		               s->req.budgets[(job->first + job->solved) % nb]);
	if (job->status != HA_OK)
		return sweep_solve_failed(err, job->status,
		                          s->req.budgets[(job->first + job->solved) % nb]);
	return HA_OK;
}
