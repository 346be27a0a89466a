/* The streaming fits behind fit.h (library-internal), fed what the
 * caller already has: the logarithms of a point that a sweep's solves
 * took, and, for the second pass, the coordinates the fits took of each
 * point, which a sweep journals instead of making them again.  The same
 * doubles either way, so the same fits, bit for bit. */
#ifndef HEADALLOC_FIT_INTERNAL_H
#define HEADALLOC_FIT_INTERNAL_H

#include <stddef.h>

#include <headalloc/fit.h>

/* A point's coordinates in a pair of fits: (X, Y) of the first, then of
 * the second. */
#define FIT_PAIR_COORDS 4

/* ha_fit_add of one point to two fits (a sweep's power and log laws of
 * one budget), with the statuses of two calls (status_a, status_b may be
 * NULL).  log_x = log(x) and log_y = log(y) are the caller's (NaN: the
 * fits take their own); the point's coordinates in each fit go into
 * coords (NaN where a fit refused it; coords may be NULL). */
void fit_add_pair_logs(struct ha_fit *a, struct ha_fit *b, double x, double y,
                       double log_x, double log_y, enum ha_status *status_a,
                       enum ha_status *status_b, double coords[FIT_PAIR_COORDS]);

/* Point `index`'s coordinates as fit_add_pair_logs gave them; HA_OK or a
 * status that aborts the pass. */
typedef enum ha_status (*fit_coords_fn)(void *ctx, size_t index,
                                        double coords[FIT_PAIR_COORDS]);

/* ha_fit_result_pair of two fits without stores that took the same
 * points, reading them from coords: the same results and statuses.
 * HA_EINVAL, nothing written, when the fits do not qualify. */
enum ha_status fit_result_pair_coords(const struct ha_fit *a, const struct ha_fit *b,
                                      fit_coords_fn coords, void *ctx,
                                      struct ha_fit_result *out_a,
                                      enum ha_status *status_a,
                                      struct ha_fit_result *out_b,
                                      enum ha_status *status_b);

/* An empty fit of kind that stores up to store_cap points for the
 * largest residual (0: none; HA_FIT_STORE_DEFAULT is a good choice), to
 * free with ha_fit_free (NULL accepted).  HA_EINVAL, HA_ENOMEM. */
enum ha_status ha_fit_new(enum ha_fit_kind kind, size_t store_cap,
                          struct ha_fit **out);
void ha_fit_free(struct ha_fit *fit);

/* Forget every point, keeping the kind and the store. */
void ha_fit_reset(struct ha_fit *fit);

/* Add one raw point; never allocates.  HA_EINVAL, the point ignored, for
 * a NULL fit or a point outside the kind's domain: non-finite values,
 * x <= 1 for HA_FIT_POWER_LOGLN, x <= 0 for HA_FIT_LOG and HA_FIT_POWER,
 * y <= 0 for the power kinds. */
enum ha_status ha_fit_add(struct ha_fit *fit, double x, double y);

/* The points accepted so far (0 for NULL). */
size_t ha_fit_count(const struct ha_fit *fit);

/* The fit into *out (only on HA_OK).  The second pass (the largest
 * residual, the residual sum of squares summed directly) reads the store
 * when it holds every point, else replay (once per point, in order; NULL:
 * max_residual_known 0 and the sum is Syy - slope Sxy, clamped at 0).
 * HA_EINVAL for NULL fit or out or a replayed point outside the domain;
 * HA_EDEGENERATE for fewer than three distinct X; HA_ENUMERIC when the
 * sums overflowed; a replay's own status. */
enum ha_status ha_fit_result(const struct ha_fit *fit, ha_fit_replay_fn replay,
                             void *ctx, struct ha_fit_result *out);

/* ha_fit_result of two fits of the same raw points, the replay called
 * once per point for both: what two calls of ha_fit_result give. */
void ha_fit_result_pair(const struct ha_fit *a, const struct ha_fit *b,
                        ha_fit_replay_fn replay, void *ctx,
                        struct ha_fit_result *out_a, enum ha_status *status_a,
                        struct ha_fit_result *out_b, enum ha_status *status_b);

/* The seeds' claimed exponent of the power law in ln n, b = 2/(4 + s)
 * (1/3 at s = 2).  0 for s <= -4 or NaN. */
double ha_fit_seed_exponent(double smoothness);

#endif
