/* headalloc — what a sweep's picture shows, made once in the sweep
 * layer so that the picture (ha_plot_sweep) only draws.
 *
 * From a sweep's result (ha_sweep_run, sweep.h) ha_sweep_picture_new
 * takes, with several n, for each budget: the integer optimum at the
 * request's n and the scaling laws of headalloc-model(7), SCALING LAWS
 * the sweep fitted over them, with the seeds' claimed exponent; the
 * budget's exact regimes (the integer steps) from the caller's
 * ha_regimes_new; and adds what neither holds: the relaxed optimum on a
 * curve of log-spaced n.  With one n
 * and several budgets: the optimum at each budget and the per-n law ln H*
 * = ln c + e ln D, both the result's.  The axes, the window and the
 * drawing are the picture's. */
#ifndef HEADALLOC_SWEEP_PICTURE_H
#define HEADALLOC_SWEEP_PICTURE_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fit.h"
#include "regime.h"
#include "status.h"
#include "sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The points of the relaxed curve, log-spaced over [samples_low,
 * samples_high] with both ends included. */
#define HA_SWEEP_PICTURE_CURVE_POINTS 240
/* The request's points kept as rows up to this many a budget (against n). */
#define HA_SWEEP_PICTURE_MARK_LIMIT 120

/* One budget against n, or the one line against D. */
struct ha_sweep_picture_series {
	uint64_t budget;                         /* against n; 0 against D */
	/* Against n: the budget's exact regimes (in the picture's regimes);
	 * NULL against D. */
	const struct ha_budget_regimes *regimes;
	/* Against n: the rows of the request's n, in order, when there are at
	 * most HA_SWEEP_PICTURE_MARK_LIMIT of them (else none).  Against D:
	 * one row a budget, in ascending D (duplicates kept). */
	struct ha_sweep_row *rows;
	size_t row_count;
	/* Against n: ln n of each curve point and the relaxed optimum
	 * head_dim there; unset against D. */
	double curve_log_samples[HA_SWEEP_PICTURE_CURVE_POINTS];
	double curve_relaxed_head_dim[HA_SWEEP_PICTURE_CURVE_POINTS];
	/* HA_OK when the fits exist, else why not (HA_EDEGENERATE: fewer than
	 * 3 distinct points).  Against n: power is ln d* = ln a + b ln ln n,
	 * log_law d* = p + q ln n, over every n of the request; against D:
	 * power is ln H* = ln c + e ln D over the budgets (log_law unset). */
	enum ha_status fit_status;
	struct ha_fit_result power, log_law;
	/* The seeds' slope (b = 2/(4+s) against n, e = 1 against D) and,
	 * with fit_status HA_OK, the least-squares intercept of power with
	 * its slope held there. */
	double claimed, claim_intercept;
};

struct ha_sweep_picture {
	/* The result's request (pointers into the result) with the solvers
	 * given. */
	struct ha_sweep_request request;
	int against_budget;                 /* one n, several budgets */
	double samples_low, samples_high;   /* the request's least and largest n */
	struct ha_sweep_picture_series *series; /* a budget each, or one */
	size_t count;
	const struct ha_regimes *regimes;   /* against n: the request's */
};

/* What a sweep's picture is made of. */
struct ha_sweep_picture_request {
	/* Required: the sweep's result (ha_sweep_run), read, borrowed until
	 * ha_sweep_picture_free (request points into it). */
	struct ha_sweep_result *result;
	/* With several n, required: the regimes of the result's budgets, in
	 * its order (ha_regimes_new under its model and constraints, or
	 * ha_regimes_new_grouped under its KV constraints for a grouped
	 * result), borrowed until ha_sweep_picture_free.  Unread with one n. */
	const struct ha_regimes *regimes;
	/* Optional: solvers[i] made for the result's budgets[i] under its
	 * constraints, borrowed for the curve. */
	struct ha_solver *const *solvers;
};

/* A sweep's picture data.  With a grouped result (request.kv) every row
 * is the grouped sweep's (the optimum over (H, G, d) of its point, kv_*
 * set) and the curve the relaxation's over (d, G).  On HA_OK *out is a
 * picture to free with ha_sweep_picture_free().  HA_EINVAL for a NULL
 * argument or result, one budget and one n, an n outside (1, 1e300], or
 * regimes missing or not of the result's budgets; HA_ENOMEM; HA_EIO as
 * ha_sweep_result_rows; the statuses of ha_sweep_run.  err, when not
 * NULL, says what failed in words. */
HA_API enum ha_status ha_sweep_picture_new(const struct ha_sweep_picture_request *req,
                                           struct ha_sweep_picture **out,
                                           struct ha_error *err);

/* Free a result of ha_sweep_picture_new (NULL accepted). */
HA_API void ha_sweep_picture_free(struct ha_sweep_picture *picture);

#ifdef __cplusplus
}
#endif
#endif
