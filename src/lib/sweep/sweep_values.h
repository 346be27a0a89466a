/* The log-spaced values of a sweep (library-internal). */
#ifndef HEADALLOC_SWEEP_VALUES_H
#define HEADALLOC_SWEEP_VALUES_H

#include <stddef.h>

/* The i-th of `points` (>= 2) log-spaced values from `from` to `to`
 * (both > 0), with both ends exact: the one formula behind every sweep. */
double ha_scenario_sweep_value(double from, double to, size_t points, size_t i);

/* The same values with the ends' logarithms taken once, for a sweep that
 * asks for its values one at a time: ha_log_sweep_value(&s, i) is
 * ha_scenario_sweep_value(from, to, points, i), the same double. */
struct ha_log_sweep {
	double from, to;
	double log_from, log_to; /* log10 of each */
	size_t points;
};

void ha_log_sweep_init(struct ha_log_sweep *s, double from, double to,
                       size_t points);
double ha_log_sweep_value(const struct ha_log_sweep *s, size_t i);

#endif
