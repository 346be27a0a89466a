/* A sweep's state (library-internal), shared by sweep.c (the sweep, its
 * setup and the per-budget fits), sweep_rows.c (the rows, solved by
 * worker threads) and sweep_heads.c (the per-n fits, likewise).  The
 * points, n_i and x*(n_i) read back, are sweep.c's; the two others call
 * it and nothing else of each other. */
#ifndef HEADALLOC_SWEEP_INTERNAL_H
#define HEADALLOC_SWEEP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/fit.h>
#include <headalloc/solver.h>
#include <headalloc/sweep.h>

#include "sweep/sweep_journal.h"
#include "alloc/solver_internal.h"

struct sweep_rows;   /* sweep_rows.c */
struct grouped_pairs; /* grouped_internal.h */
struct sweep_heads;  /* sweep_heads.c */

struct ha_sweep {
	struct ha_sweep_request req;  /* as given; pointers borrowed */
	struct ha_model model;        /* *req.model */
	struct ha_solver **solvers;   /* one per budget */
	int own_solvers;              /* made here (not lent) */
	struct ha_relaxed_solver **relaxed; /* one per budget */
	struct grouped_pairs *pairs;  /* a grouped sweep's: one per budget */
	struct ha_fit **dim_power;    /* per budget: ln d* vs ln ln n */
	struct ha_fit **dim_log;      /* per budget: d* vs ln n */
	struct ha_fit *heads_power;   /* per n, over the budgets; NULL: one budget */
	struct journal *journal;      /* of every row (sweep_column) */
	size_t columns;               /* the journal's columns a budget */
	int fit_refused;              /* a per-budget fit refused a row's point */
	size_t replay_budget;         /* which budget a replay regenerates */
	struct sweep_rows *rows;      /* while rows are handed out */
	int rows_done;                /* the last row was handed out */
	enum ha_status failed;        /* a row's failure, sticky */
	char failure[HA_ERROR_MESSAGE_MAX]; /* its words */
	struct sweep_heads *heads;    /* while per-n fits are handed out */
	int heads_done;
};

/* The journal's columns: n first, then a budget's SWEEP_ROW_COLUMNS
 * (with ha_sweep_request.kv, SWEEP_GROUPED_COLUMNS): x*(n, D), then the
 * coordinates the per-budget fits took of the row (ln ln n and ln x* of
 * the power law, ln n of the log law, whose Y is x* itself), which their
 * second pass reads back, then the rest of the row (its integers kept as
 * their bits), so that a result (sweep_result.c) hands the rows out. */
enum sweep_column {
	SWEEP_X, SWEEP_LNLN_N, SWEEP_LN_X, SWEEP_LN_N,
	SWEEP_HEADS, SWEEP_HEAD_DIM, SWEEP_MSE, SWEEP_LOG_MSE, SWEEP_RELAXED_HEADS,
	SWEEP_ROW_COLUMNS,
	SWEEP_KV_HEADS = SWEEP_ROW_COLUMNS, SWEEP_KV_DIM, SWEEP_KV_CACHE,
	SWEEP_GROUPED_COLUMNS
};

/* Budget b's first column in a sweep of `columns` columns a budget. */
static inline size_t sweep_column(size_t columns, size_t b)
{
	return 1 + b * columns;
}

/* A row's values as the journal keeps them (SWEEP_GROUPED_COLUMNS at
 * most), and back. */
void sweep_row_to_columns(const struct ha_sweep_row *row, const double coords[3],
                          double *values);
void sweep_row_of_columns(const double *values, size_t columns, uint64_t budget,
                          double samples, struct ha_sweep_row *row);

/* Fit ln H* = ln c + e ln D over the budgets at one n, dims[b] the x* of
 * budget b there, into *f (fit reset first: a POWER fit with room for
 * every budget, or none). */
void sweep_fit_point(const struct ha_sweep_request *req, struct ha_fit *fit,
                     const double *dims, struct ha_sweep_fit *f);

/* n_i, from the request's samples (on the calling thread only). */
double sweep_sample_at(const struct ha_sweep *s, size_t i);

/* x*(n_i) of budget b: from the journal, else solved again (the same
 * double: the workspace's answers do not depend on its past). */
enum ha_status sweep_relaxed_dim_at(struct ha_sweep *s, size_t b, size_t i,
                                    double *x);

/* A failed solve of budget, in words, into err; returns st. */
enum ha_status sweep_solve_failed(struct ha_error *err, enum ha_status st,
                                  uint64_t budget);

/* Finish fit into *out (claimed NaN, largest_* unset), replaying its
 * points through replay(ctx, ...) when its store overflowed. */
void sweep_finish_fit(struct ha_sweep_fit *out, const struct ha_fit *fit,
                      ha_fit_replay_fn replay, void *ctx);

/* sweep_rows.c: the rows' workers and jobs (HA_OK, HA_ENOMEM or a
 * solver's status), the next batch, and their end. */
enum ha_status sweep_rows_new(struct ha_sweep *s, struct sweep_rows **out);
void sweep_rows_free(struct sweep_rows *rows);
enum ha_status sweep_rows_next(struct ha_sweep *s, const struct ha_sweep_row **rows,
                               size_t *count, struct ha_error *err);

/* sweep_heads.c: the per-n fits' workers and jobs, the next batch, their
 * end. */
void sweep_heads_free(struct sweep_heads *heads);
enum ha_status sweep_heads_next(struct ha_sweep *s,
                                const struct ha_sweep_samples_fit **fits,
                                size_t *count, struct ha_error *err);

#endif
