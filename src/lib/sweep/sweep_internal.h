/* The sweep beneath its result (library-internal): sweep.c solves its
 * rows on worker threads and makes the per-budget fits, sweep_journal.c
 * keeps each row for the fits' second pass and the result,
 * sweep_result.c runs it into a struct ha_sweep_result, and
 * sweep_picture.c runs one for the relaxed curve.
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

#include "alloc/solver_internal.h"

struct sweep_rows; /* sweep.c */
struct journal;    /* sweep_journal.c */

/* The values of n read one by one, a range's ends' logarithms taken once
 * (a sweep reads every n twice): samples_read(r, i) is
 * ha_samples_value(s, i), the same double. */
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

/* Prepare a sweep; else the statuses and words of ha_sweep_run. */
enum ha_status ha_sweep_new(const struct ha_sweep_request *req,
                            struct ha_sweep **out, struct ha_error *err);

void ha_sweep_free(struct ha_sweep *sweep);

/* The next batch of rows, in order (n outer, budget inner), valid until
 * the next call; *count is 0 after the last.  A failed solve's rows
 * before it come with its status and words, which later calls repeat. */
enum ha_status ha_sweep_rows(struct ha_sweep *sweep, const struct ha_sweep_row **rows,
                             size_t *count, struct ha_error *err);

/* After the last row: budget b's fits over every n (HA_EINVAL before it
 * or for b out of range, in both fits too). */
enum ha_status ha_sweep_budget_fits(struct ha_sweep *sweep, size_t b,
                                    struct ha_sweep_fit *power,
                                    struct ha_sweep_fit *logarithmic);

/* The journal's columns, a budget's SWEEP_ROW_COLUMNS (grouped,
 * SWEEP_GROUPED_COLUMNS) each, budget b's from b * columns on: x*(n, D),
 * the coordinates the per-budget fits took of the row (ln ln n and ln x*
 * of the power law, ln n of the log law, whose Y is x* itself) for their
 * second pass, then the rest of the row (its integers as their bits) for
 * a result to hand out. */
enum sweep_column {
	SWEEP_X, SWEEP_LNLN_N, SWEEP_LN_X, SWEEP_LN_N,
	SWEEP_HEADS, SWEEP_HEAD_DIM, SWEEP_MSE, SWEEP_LOG_MSE, SWEEP_RELAXED_HEADS,
	SWEEP_ROW_COLUMNS,
	SWEEP_KV_HEADS = SWEEP_ROW_COLUMNS, SWEEP_KV_DIM, SWEEP_KV_CACHE,
	SWEEP_GROUPED_COLUMNS
};

/* A sweep's journal of these columns: the fits of headalloc-model(7),
 * SCALING LAWS need every point twice, and solving them again would
 * double a sweep's cost, holding them grow its memory.  Up to
 * JOURNAL_MEMORY_VALUES values stay in memory; beyond, they go to an
 * unlinked temporary file, so that neither memory nor the cost of a row
 * jumps at any size.  Values are put row by row and read back by
 * (budget, point) in any order, one block read a JOURNAL_BLOCK values in
 * either order.  Without a file (or room in it) the values stay in
 * memory; without that memory the journal keeps nothing and says so. */
#define JOURNAL_BLOCK ((size_t)512)
#define JOURNAL_MEMORY_VALUES ((size_t)1 << 17)

/* HA_ENOMEM, or HA_OK with a journal (which may keep nothing). */
enum ha_status journal_new(size_t budgets, size_t points, struct journal **out);
void journal_free(struct journal *j);

/* Put the next count values, in order (one call for a row's). */
void journal_put_values(struct journal *j, const double *values, size_t count);

/* 1 when every value put can be read back, 0 when the journal keeps
 * nothing (no temporary file could be made or written). */
int journal_kept(const struct journal *j);

/* The values of budgets first .. first + count - 1 at one point into
 * values[0 .. count).  HA_EIO when they cannot be read back (then
 * journal_kept turns 0). */
enum ha_status journal_get(struct journal *j, size_t first, size_t count,
                           size_t point, double *values);

#endif
