/* headalloc — streaming least-squares fits for the scaling laws (headalloc-model(7), SCALING LAWS).
 *
 * A fit is an accumulator fed one point at a time.  It keeps centred
 * running sums (Welford's updates), so its memory is O(1) in the number of
 * points, plus an optional store of at most `store_cap` transformed points
 * used only for the largest residual.  When more points arrive than the
 * store holds, the largest residual needs a second pass: pass a replay
 * callback to ha_fit_result(), or accept max_residual_known == 0.
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

/* Make an empty fit of the given kind that stores up to store_cap points
 * for the largest residual (0: store none; HA_FIT_STORE_DEFAULT is a good
 * choice).  On HA_OK *out owns a fit to free with ha_fit_free().
 * HA_EINVAL for an unknown kind or NULL out, HA_ENOMEM. */
HA_API enum ha_status ha_fit_new(enum ha_fit_kind kind, size_t store_cap,
                          struct ha_fit **out);

/* Free a fit; NULL is accepted. */
HA_API void ha_fit_free(struct ha_fit *fit);

/* Forget every point, keeping the kind and the store. */
HA_API void ha_fit_reset(struct ha_fit *fit);

/* Add one raw point.  HA_EINVAL, and the point is ignored, when fit is
 * NULL or the point is outside the kind's domain: non-finite values,
 * x <= 1 for HA_FIT_POWER_LOGLN, x <= 0 for HA_FIT_LOG and HA_FIT_POWER,
 * y <= 0 for the power kinds.  Never allocates. */
HA_API enum ha_status ha_fit_add(struct ha_fit *fit, double x, double y);

/* ha_fit_add of one raw point to two fits (a sweep's power and log laws
 * of one budget), with the logarithms of x and y they share taken once:
 * the same fits, and in *status_a and *status_b (each may be NULL) the
 * statuses, that two calls of ha_fit_add give. */
HA_API void ha_fit_add_pair(struct ha_fit *a, struct ha_fit *b, double x, double y,
                            enum ha_status *status_a, enum ha_status *status_b);

/* The number of points accepted so far (0 for NULL). */
HA_API size_t ha_fit_count(const struct ha_fit *fit);

/* Regenerate raw point `index` (0-based, in the order they were added)
 * into *x and *y; return HA_OK or a status that aborts the replay. */
typedef enum ha_status (*ha_fit_replay_fn)(void *ctx, size_t index,
                                           double *x, double *y);

/* Compute the fit into *out.  The largest residual comes from the store
 * when every point is in it; else from replay (called once per point, in
 * order) when replay is not NULL; else max_residual_known is 0.  With
 * a pass the residual sum of squares is summed directly; without one it
 * is Syy - slope Sxy (clamped at 0).
 * Errors: HA_EINVAL for NULL fit or out; HA_EDEGENERATE when fewer than
 * three distinct X were accepted (no line with an error estimate);
 * HA_ENUMERIC when the sums overflowed; a replay's own status, or
 * HA_EINVAL when it returns a point outside the domain.  *out is
 * written only on HA_OK. */
HA_API enum ha_status ha_fit_result(const struct ha_fit *fit, ha_fit_replay_fn replay,
                             void *ctx, struct ha_fit_result *out);

/* ha_fit_result of two fits of the same raw points (a sweep's power and
 * log laws of one budget), replay called once per point for both: into
 * *out_a and *out_b, with *status_a and *status_b, what two calls of
 * ha_fit_result give, for a replay that gives the same point each time
 * it is asked. */
HA_API void ha_fit_result_pair(const struct ha_fit *a, const struct ha_fit *b,
                               ha_fit_replay_fn replay, void *ctx,
                               struct ha_fit_result *out_a, enum ha_status *status_a,
                               struct ha_fit_result *out_b, enum ha_status *status_b);

/* The residual Y - intercept - slope X of one raw point under a result
 * (0 for a point outside the domain).  A building block for a caller's
 * own second pass. */
HA_API double ha_fit_residual(const struct ha_fit_result *result, double x, double y);

/* The name of a kind: "linear", "power-lnln", "log", "power". */
HA_API const char *ha_fit_kind_str(enum ha_fit_kind kind);

/* The seeds' claimed exponent of the power law in ln n, b = 2/(4 + s),
 * reported beside the fitted b (1/3 at s = 2).  0 for s <= -4 or NaN. */
HA_API double ha_fit_seed_exponent(double smoothness);

/* The seeds' claimed exponent e of ln H* = ln c + e ln D ("nearly
 * linear"). */
#define HA_FIT_SEED_BUDGET_EXPONENT 1.0

#ifdef __cplusplus
}
#endif
#endif
