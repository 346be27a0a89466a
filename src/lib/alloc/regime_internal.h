/* What the plain and the grouped regimes share (regime.c,
 * regime_grouped.c). */
#ifndef HA_ALLOC_REGIME_INTERNAL_H
#define HA_ALLOC_REGIME_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include <headalloc/model.h>

/* ln(e^x - 1) for x > 0, accurate for tiny and huge x. */
static inline double log_expm1(double x)
{
	if (x > 0.5)
		return x + log1p(-exp(-x));
	return log(expm1(x));
}

/* ln(d2/d1) for d2 > d1 >= 1 without rounding d2/d1 first. */
static inline double log_ratio(uint64_t d1, uint64_t d2)
{
	return log1p((double)(d2 - d1) / (double)d1);
}

/* 1 when m is a valid model at some n (its samples field is ignored). */
int ha_regime_model_ok(const struct ha_model *m);

#endif
