/* The sweep beneath its result (library-internal): sweep.c solves its
 * rows on worker threads and makes the per-budget fits, sweep_result.c
 * runs it into a struct ha_sweep_result, and sweep_picture.c runs one
 * for the relaxed curve.
 *
 *     struct ha_sweep *s;
 *     ha_sweep_new(&(struct ha_sweep_request){...}, &s, &err);
 *     while (ha_sweep_rows(s, &rows, &count, &err) == HA_OK && count)
 *             use the rows;
 *     for (b = 0; b < budgets; b++)
 *             ha_sweep_budget_fits(s, b, &power, &logarithmic);
 *     ha_sweep_free(s); */
#ifndef HEADALLOC_SWEEP_INTERNAL_H
#define HEADALLOC_SWEEP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/fit.h>
#include <headalloc/solver.h>
#include <headalloc/sweep.h>

#include "sweep/sweep_journal.h"
#include "alloc/solver_internal.h"

struct sweep_rows;   /* sweep.c */
struct grouped_pairs; /* grouped_internal.h */

/* The values of n read one by one, a range's ends' logarithms taken once
 * (a sweep reads every n twice: a long one-budget sweep would otherwise
 * take four logarithms a row): samples_read(r, i) is ha_samples_value(s,
 * i), the same double. */
struct samples_reader {
	const struct ha_samples *samples;
	double log_from, log_to; /* log10 of a range's ends */
};

void samples_reader_init(struct samples_reader *r, const struct ha_samples *s);
double samples_read(const struct samples_reader *r, size_t i);

struct ha_sweep {
	struct ha_sweep_request req;  /* as given; pointers borrowed */
	struct samples_reader n;      /* of req.samples */
	struct ha_model model;        /* *req.model */
	struct ha_solver **solvers;   /* one per budget */
	int own_solvers;              /* made here (not lent) */
	struct grouped_pairs *pairs;  /* a grouped sweep's: one per budget */
	struct ha_fit **dim_power;    /* per budget: ln d* vs ln ln n */
	struct ha_fit **dim_log;      /* per budget: d* vs ln n */
	struct journal *journal;      /* of every row (sweep_column) */
	size_t columns;               /* the journal's columns a budget */
	int fit_refused;              /* a per-budget fit refused a row's point */
	size_t replay_budget;         /* which budget a replay reads back */
	struct sweep_rows *rows;      /* workers and jobs, while rows are handed out */
	int rows_done;                /* the last row was handed out */
	enum ha_status failed;        /* a row's failure, sticky */
};

/* Prepare a sweep (solvers, relaxation workspaces, fits, threads).  On
 * HA_OK *out is a sweep to free with ha_sweep_free(); else the statuses
 * and words of ha_sweep_run. */
enum ha_status ha_sweep_new(const struct ha_sweep_request *req,
                            struct ha_sweep **out, struct ha_error *err);

/* Free a sweep (NULL accepted), stopping its threads. */
void ha_sweep_free(struct ha_sweep *sweep);

/* The next batch of rows, in order (n outer, budget inner): *rows is
 * *count rows valid until the next call; *count is 0 after the last.  On
 * a failed solve the rows before the failing one come with its status
 * and words; later calls return that status. */
enum ha_status ha_sweep_rows(struct ha_sweep *sweep, const struct ha_sweep_row **rows,
                             size_t *count, struct ha_error *err);

/* After the last row: budget b's fits over every n, as
 * ha_sweep_result_budget_fits hands them out.  HA_EINVAL before the last
 * row or for b out of range (then both fits carry the status). */
enum ha_status ha_sweep_budget_fits(struct ha_sweep *sweep, size_t b,
                                    struct ha_sweep_fit *power,
                                    struct ha_sweep_fit *logarithmic);

/* The journal's columns, a budget's SWEEP_ROW_COLUMNS (with
 * ha_sweep_request.kv, SWEEP_GROUPED_COLUMNS) each (n is the request's):
 * x*(n, D), then the coordinates the per-budget fits took of the row (ln ln n and ln x* of
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
	return b * columns;
}

#endif
