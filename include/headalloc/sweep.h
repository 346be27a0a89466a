/* headalloc — a sweep: every (n, D) of a grid solved, in order, with the
 * scaling-law fits of headalloc-model(7), SCALING LAWS over its relaxed
 * optima.
 *
 * ha_sweep_run() solves every row and returns an owned result
 * (struct ha_sweep_result) that the renderers read (ha_report_table,
 * ha_sweep_picture_new, the Python package): they never solve, fit or
 * start threads.  Its memory does not grow with its rows (it copies a
 * list of n, not a range): the rows and the relaxed optima the fits need
 * twice are kept in memory while they take at most 1 MiB, else in an
 * unlinked temporary file in $TMPDIR (or /tmp), else (no file could be
 * made) in memory.
 *
 *     struct ha_sweep_result *res;
 *     ha_sweep_run(&(struct ha_sweep_request){...}, NULL, &res, &err);
 *     ha_sweep_result_rows(res, first, count, rows, &err);
 *     ha_sweep_result_budget_fits(res, b, &power, &logarithmic);
 *     ha_sweep_result_samples_fits(res, first, count, fits, &err);
 *     ha_sweep_result_free(res);
 *
 * Every row is the same function of (n, D) on any number of threads. */
#ifndef HEADALLOC_SWEEP_H
#define HEADALLOC_SWEEP_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fit.h"
#include "grouped.h"
#include "model.h"
#include "progress.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values of n of a sweep: the list values[0 .. count), or, with
 * values NULL, count values log-spaced from `from` to `to`, both ends
 * exact, made on demand so that a range of a million takes no memory. */
struct ha_samples {
	const double *values; /* borrowed; NULL: the range */
	size_t count;
	double from, to;      /* the range's ends */
};

/* The i-th value (i < count): values[i], or the range's from at 0, to at
 * count - 1 and 10^(lg from + (lg to - lg from) i / (count - 1)) between
 * (in decades, so that a range between powers of ten lands on them). */
HA_API double ha_samples_value(const struct ha_samples *s, size_t i);

/* HA_OK when s holds 1 to HA_SWEEP_MAX_ROWS values, each a valid n
 * (ha_samples_validate), a range's ends 1 < from < to with count >= 2;
 * else HA_EINVAL with *bad the index of the first invalid value, or count
 * when the count or the range's ends are out of their domain (and HA_EINVAL,
 * *bad untouched, when s or bad is NULL). */
HA_API enum ha_status ha_samples_check(const struct ha_samples *s, size_t *bad);

/* The most rows a renderer reads from a result at a time. */
#define HA_SWEEP_BATCH_MAX ((size_t)512)

/* The grid: n outer (samples), D inner (budgets).  Pointers are borrowed
 * until ha_sweep_run returns. */
struct ha_sweep_request {
	const struct ha_model *model;             /* required */
	const struct ha_constraints *constraints; /* NULL: none */
	const uint64_t *budgets;                  /* budget_count >= 1 */
	size_t budget_count;
	struct ha_samples samples;                /* count >= 1 */
	/* Optional: solvers[i] made for budgets[i] under constraints,
	 * borrowed (only read, never freed here).  NULL: the sweep makes its
	 * own. */
	struct ha_solver *const *solvers;
	/* Threads that solve the rows, the calling thread one of them (it
	 * takes the rows in order and solves while it waits), as in every
	 * request: 0, one per online processor; 1, the calling thread
	 * alone; N, N threads; at most 8 either way.  Sweeps of fewer than
	 * 2048 rows or more than 64 budgets use the calling thread alone. */
	size_t threads;
	/* Optional: the grouped-query allocation (grouped.h) of every row
	 * under these KV constraints (validated; NULL: rows over (H, d) as
	 * without it).  Each row is then the optimum over (H, G, d) that
	 * ha_grouped_solve gives for its (n, D), its relaxed_* the
	 * relaxation's over (d, G) (the fits are of that x*), and its kv_*
	 * fields are set; budgets of more candidate triples than
	 * HA_GROUPED_MAX_TRIPLES are refused (HA_EUNSUPPORTED). */
	const struct ha_kv_constraints *kv;
	const struct ha_kv_shape *shape; /* with kv; NULL: the defaults */
};

/* One row: the integer optimum and the relaxed optimum of (n, D). */
struct ha_sweep_row {
	uint64_t budget;
	double samples;
	uint64_t heads, head_dim;
	double mse, log_mse;          /* of the integer optimum */
	double relaxed_head_dim, relaxed_heads;
	/* With ha_sweep_request.kv only (else 0): the optimum's key/value
	 * heads G, G d and its KV cache, 2 G d L B bytes a token. */
	uint64_t kv_heads, kv_dim, kv_cache_bytes_per_token;
};

/* A finished scaling-law fit.  status is HA_OK (result valid),
 * HA_EDEGENERATE (fewer than 3 distinct points) or another failure;
 * points, the points offered.  largest_at is the n of the point with the
 * largest residual (largest_budget, its D, for a per-n fit); claimed the
 * seeds' slope (b = 2/(4+s) for ln d* = ln a + b ln ln n, e = 1 for
 * ln H* = ln c + e ln D), NaN for none (d* = p + q ln n). */
struct ha_sweep_fit {
	enum ha_status status;
	size_t points;
	struct ha_fit_result result;
	double largest_at;
	uint64_t largest_budget;
	double claimed;
};

/* The per-n fit ln H* = ln c + e ln D over the budgets at one n. */
struct ha_sweep_samples_fit {
	double samples;
	struct ha_sweep_fit heads_law;
};

/* A finished sweep, owned: its request (model, constraints, budgets, KV
 * constraints and shape copied), its rows, its fits.  Nothing in it is
 * borrowed; one result may be read by one thread at a time. */
struct ha_sweep_result;

/* The most rows a sweep result holds (the CLI's limit). */
#define HA_SWEEP_MAX_ROWS ((size_t)1000000)

/* Solve every row of req and its fits into *out, to free with
 * ha_sweep_result_free().  progress (NULL: none) is told of the rows
 * solved ("rows") after each batch; a nonzero return stops the sweep with
 * HA_ECANCELED ("the table was cancelled after R of T rows").  HA_EINVAL
 * for a NULL argument, no budget, no sample, inconsistent KV
 * constraints or more than HA_SWEEP_MAX_ROWS rows; the
 * statuses of ha_solver_new (HA_EINFEASIBLE: no pair of a budget meets
 * the constraints) and a failed row's, its words in err ("no (heads,
 * head_dim) pair of budget 7 meets the constraints", "solving: ...");
 * HA_ENOMEM; HA_EIO when the rows could not be kept (the temporary file
 * failed and memory was short).  On failure *out is NULL. */
HA_API enum ha_status ha_sweep_run(const struct ha_sweep_request *req,
                                   const struct ha_progress *progress,
                                   struct ha_sweep_result **out,
                                   struct ha_error *err);

/* Free a result (NULL accepted). */
HA_API void ha_sweep_result_free(struct ha_sweep_result *result);

/* The request the result answers, its pointers into the result's own
 * copies (valid until ha_sweep_result_free; solvers and threads unset). */
HA_API const struct ha_sweep_request *ha_sweep_result_request(
	const struct ha_sweep_result *result);

/* The rows' total, budget_count x samples.count. */
HA_API size_t ha_sweep_result_row_count(const struct ha_sweep_result *result);

/* Rows [first, first + count) in the sweep's order (n outer, budget
 * inner) into rows[0 .. count).  HA_EINVAL past the last row; HA_EIO
 * when the temporary file cannot be read back. */
HA_API enum ha_status ha_sweep_result_rows(struct ha_sweep_result *result,
                                           size_t first, size_t count,
                                           struct ha_sweep_row *rows,
                                           struct ha_error *err);

/* Budget b's fits over every n: ln d* = ln a + b ln ln n (power, claimed
 * b = 2/(4+s)) and d* = p + q ln n (logarithmic), each with its own
 * status.  HA_EINVAL for b out of range (both fits then carry it). */
HA_API enum ha_status ha_sweep_result_budget_fits(const struct ha_sweep_result *result,
                                                  size_t b,
                                                  struct ha_sweep_fit *power,
                                                  struct ha_sweep_fit *logarithmic);

/* The per-n fits of points [first, first + count) into fits[0 .. count),
 * made on demand on the calling thread: with two or more budgets only
 * (with one, HA_EINVAL, as past the last point); HA_EIO as
 * ha_sweep_result_rows. */
HA_API enum ha_status ha_sweep_result_samples_fits(struct ha_sweep_result *result,
                                                   size_t first, size_t count,
                                                   struct ha_sweep_samples_fit *fits,
                                                   struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
