/* headalloc — the results of the least-squares fits of the scaling laws
 * (headalloc-model(7), SCALING LAWS), as a sweep reports them (sweep.h,
 * sweep_picture.h); the streaming fits themselves are library-internal.
 *
 * Each kind fits ordinary least squares Y = intercept + slope X on
 * transformed coordinates (X, Y) of the raw points (x, y):
 *
 *   HA_FIT_LINEAR      X = x          Y = y        y = alpha + beta x
 *   HA_FIT_POWER_LOGLN X = ln ln x    Y = ln y     ln x* = ln a + b ln ln n
 *   HA_FIT_LOG         X = ln x       Y = y        x* = p + q ln n
 *   HA_FIT_POWER       X = ln x       Y = ln y     ln H* = ln c + e ln D
 *
 * Coefficients, standard errors and residuals are all in (X, Y): for the
 * power kinds the intercept is ln a (ln c), never exponentiated here. */
#ifndef HEADALLOC_FIT_H
#define HEADALLOC_FIT_H

#include "export.h"

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default store for the largest residual: 65,536 points (1 MiB). */
#define HA_FIT_STORE_DEFAULT ((size_t)65536)

/* Confidence level of the slope interval. */
#define HA_FIT_LEVEL 0.95

enum ha_fit_kind {
	HA_FIT_LINEAR = 0,
	HA_FIT_POWER_LOGLN = 1,
	HA_FIT_LOG = 2,
	HA_FIT_POWER = 3
};

/* The result of a fit.  Every double is finite. */
struct ha_fit_result {
	enum ha_fit_kind kind;
	size_t count;          /* points accepted */
	double intercept;      /* alpha (ln a, p or ln c) */
	double slope;          /* beta (b, q or e) */
	double se_intercept;   /* standard error of the intercept */
	double se_slope;       /* standard error of the slope */
	double t_quantile;     /* Student t, 0.975 quantile, count - 2 dof */
	double slope_low;      /* 95% interval of the slope: slope -/+ t se */
	double slope_high;
	double residual_sd;    /* sqrt(SSR / (count - 2)) */
	double r2;             /* coefficient of determination, in [0, 1] */
	int r2_defined;        /* 0 when every Y is equal: then the fit is the
	                          exact horizontal line and r2 is reported as 1 */
	int max_residual_known;   /* 0: store overflowed and no replay given */
	double max_abs_residual;  /* largest |Y - intercept - slope X|, or 0 */
	size_t max_residual_index; /* 0-based index of that point */
};

struct ha_fit;

/* Regenerate raw point `index` (0-based, in the order they were added)
 * into *x and *y; return HA_OK or a status that aborts the replay. */
typedef enum ha_status (*ha_fit_replay_fn)(void *ctx, size_t index,
                                           double *x, double *y);

/* The seeds' claimed exponent e of ln H* = ln c + e ln D ("nearly
 * linear"). */
#define HA_FIT_SEED_BUDGET_EXPONENT 1.0

#ifdef __cplusplus
}
#endif
#endif
