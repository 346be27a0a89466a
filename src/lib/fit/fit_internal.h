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

/* ha_fit_add_pair(a, b, x, y, status_a, status_b) with log_x = log(x) and
 * log_y = log(y) taken by the caller (NaN for either: the fits take that
 * one themselves), and the point's coordinates in each fit into coords (NaN
 * for a fit that refused it; coords may be NULL). */
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

#endif
