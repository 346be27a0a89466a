/* What the plain and the grouped regimes share (regime.c,
 * regime_grouped.c). */
#ifndef HA_ALLOC_REGIME_INTERNAL_H
#define HA_ALLOC_REGIME_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include <headalloc/model.h>
#include <headalloc/regime.h>

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

/* The lines of an envelope, in ascending d (so descending intercept and
 * strictly ascending slope in n^-β): their count, the ln n at which line
 * k takes over from line j < k (log_switch), and the triple of line k
 * (regime: heads, head_dim, kv_heads). */
struct ha_regime_lines {
	size_t count;
	const void *ctx;
	double (*log_switch)(const void *ctx, size_t j, size_t k);
	void (*regime)(const void *ctx, size_t k, struct ha_regime *out);
};

/* The lower envelope of the lines as regimes in ascending n, those over
 * before n = 1 or never reached left out: *out (the caller frees it)
 * holds *regimes of them. */
enum ha_status ha_regime_envelope(const struct ha_regime_lines *lines,
                                  struct ha_regime **out, size_t *regimes);

#endif
