/* The fits, fed what the caller already has (library-internal): the
 * logarithms of a point that a sweep's solves took, and, for the second
 * pass, the coordinates the fits took of each point, which a sweep
 * journals instead of making the point and its logarithms again.  The
 * same doubles either way, so the same fits, bit for bit. */
#ifndef HEADALLOC_FIT_INTERNAL_H
#define HEADALLOC_FIT_INTERNAL_H

#include <stddef.h>

#include <headalloc/fit.h>

/* A point's coordinates in a pair of fits: (X, Y) of the first, then of
 * the second. */
#define FIT_PAIR_COORDS 4

/* ha_fit_add of one raw point to two fits (a sweep's power and log laws
 * of one budget), with the logarithms of x and y they share taken once:
 * the same fits, and in *status_a and *status_b (each may be NULL) the
 * statuses, that two calls of ha_fit_add give.  log_x = log(x) and
 * log_y = log(y) are taken by the caller (NaN for either: the fits take
 * that one themselves); the point's coordinates in each fit go into
 * coords (NaN for a fit that refused it; coords may be NULL). */
void fit_add_pair_logs(struct ha_fit *a, struct ha_fit *b, double x, double y,
                       double log_x, double log_y, enum ha_status *status_a,
                       enum ha_status *status_b, double coords[FIT_PAIR_COORDS]);

/* Point `index`'s coordinates as fit_add_pair_logs gave them, into
 * coords; HA_OK or a status that aborts the pass. */
typedef enum ha_status (*fit_coords_fn)(void *ctx, size_t index,
                                        double coords[FIT_PAIR_COORDS]);

/* ha_fit_result_pair of two fits without stores that took the same points
 * (the same count), reading each point's coordinates from coords: the
 * results and statuses ha_fit_result_pair gives with a replay of the raw
 * points.  HA_EINVAL, nothing written, when the fits do not qualify. */
enum ha_status fit_result_pair_coords(const struct ha_fit *a, const struct ha_fit *b,
                                      fit_coords_fn coords, void *ctx,
                                      struct ha_fit_result *out_a,
                                      enum ha_status *status_a,
                                      struct ha_fit_result *out_b,
                                      enum ha_status *status_b);

/* Make an empty fit of the given kind that stores up to store_cap points
 * for the largest residual (0: store none; HA_FIT_STORE_DEFAULT is a good
 * choice).  On HA_OK *out owns a fit to free with ha_fit_free().
 * HA_EINVAL for an unknown kind or NULL out, HA_ENOMEM. */
enum ha_status ha_fit_new(enum ha_fit_kind kind, size_t store_cap,
                          struct ha_fit **out);

/* Free a fit; NULL is accepted. */
void ha_fit_free(struct ha_fit *fit);

/* Forget every point, keeping the kind and the store. */
void ha_fit_reset(struct ha_fit *fit);

/* Add one raw point.  HA_EINVAL, and the point is ignored, when fit is
 * NULL or the point is outside the kind's domain: non-finite values,
 * x <= 1 for HA_FIT_POWER_LOGLN, x <= 0 for HA_FIT_LOG and HA_FIT_POWER,
 * y <= 0 for the power kinds.  Never allocates. */
enum ha_status ha_fit_add(struct ha_fit *fit, double x, double y);

/* The number of points accepted so far (0 for NULL). */
size_t ha_fit_count(const struct ha_fit *fit);

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
enum ha_status ha_fit_result(const struct ha_fit *fit, ha_fit_replay_fn replay,
                             void *ctx, struct ha_fit_result *out);

/* ha_fit_result of two fits of the same raw points (a sweep's power and
 * log laws of one budget), replay called once per point for both: into
 * *out_a and *out_b, with *status_a and *status_b, what two calls of
 * ha_fit_result give, for a replay that gives the same point each time
 * it is asked. */
void ha_fit_result_pair(const struct ha_fit *a, const struct ha_fit *b,
                        ha_fit_replay_fn replay, void *ctx,
                        struct ha_fit_result *out_a, enum ha_status *status_a,
                        struct ha_fit_result *out_b, enum ha_status *status_b);

/* The seeds' claimed exponent of the power law in ln n, b = 2/(4 + s),
 * reported beside the fitted b (1/3 at s = 2).  0 for s <= -4 or NaN. */
double ha_fit_seed_exponent(double smoothness);

#endif
