/* The fits, fed logarithms the caller already has (library-internal). */
#ifndef HEADALLOC_FIT_INTERNAL_H
#define HEADALLOC_FIT_INTERNAL_H

#include <headalloc/fit.h>

/* ha_fit_add_pair(a, b, x, y, NULL, NULL) with log_x = log(x) and log_y =
 * log(y) taken by the caller (a sweep's solves take both): the same
 * doubles as the fits would take, so the same fits. */
void fit_add_pair_logs(struct ha_fit *a, struct ha_fit *b, double x, double y,
                       double log_x, double log_y);

#endif
