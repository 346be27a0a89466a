/* headalloc — the error model (spec §2).
 *
 * Every quantity is carried as a natural logarithm so that d^(d/2), which
 * overflows a double near d = 290, never does: a log of -inf stands for an
 * exact zero. */
#ifndef HEADALLOC_MODEL_H
#define HEADALLOC_MODEL_H

#include "export.h"

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest budget D accepted anywhere: 2^63 - 1. */
#define HA_BUDGET_MAX UINT64_C(9223372036854775807)

/* The parameters of the error model.  Fill with ha_model_defaults() and
 * override what you need; check with ha_model_validate(). */
struct ha_model {
	double samples;    /* n, training-set size, 1 < n <= 1e300 (finite) */
	double smoothness; /* s > 0: squared bias falls as d^-s */
	double bias_coef;  /* c_b > 0 */
	double var_coef;   /* c_v > 0 */
	double hdi;        /* Head Diversity Index in [0, 1]; rho = 1 - hdi */
};

/* The error of one allocation (H heads of dimension d), split into the
 * three additive parts of spec §2, each as a natural log:
 *   mse = bias2 + variance + covariance
 *   bias2      = c_b d^-s
 *   variance   = var(d) / H                 (var(d) = c_v d^(d/2) / n)
 *   covariance = (1 - 1/H) rho var(d)
 * A part that is exactly zero has log -inf; log_mse is always finite. */
struct ha_terms {
	double log_bias2;
	double log_variance;
	double log_covariance;
	double log_mse;
	/* The same four as plain values, computed directly (not through
	 * exp(log)) so that they are as exact as a double allows; +inf where
	 * the value is beyond a double. */
	double bias2;
	double variance;
	double covariance;
	double mse;
};

/* Defaults of spec §1: s = 2, c_b = c_v = 1, hdi = 1, samples = 1e8. */
HA_API struct ha_model ha_model_defaults(void);

/* HA_OK if every field is in its domain (see struct ha_model), else
 * HA_EINVAL.  NaN and infinities are rejected. */
HA_API enum ha_status ha_model_validate(const struct ha_model *model);

/* Evaluate the model at budget D and head dimension d (d must divide D,
 * 1 <= D <= HA_BUDGET_MAX).  Returns HA_EINVAL for a NULL pointer, d = 0,
 * d not dividing D or D out of range.  The model is assumed validated. */
HA_API enum ha_status ha_model_eval(const struct ha_model *model, uint64_t budget,
                             uint64_t head_dim, struct ha_terms *out);

/* ln(MSE / c_b), for comparing head dimensions: it differs from
 * ha_model_eval's log_mse by the constant ln c_b, which changes no
 * comparison or ratio but keeps every digit where ln c_b is large (a tie
 * within 1e-12 is decided on it).  The caller checks the preconditions of
 * ha_model_eval. */
HA_API double ha_model_log_relative_mse(const struct ha_model *model, uint64_t budget,
                                 uint64_t head_dim);

/* The relaxed objective of spec §3 at a real head dimension x >= 1 with
 * H = D/x: ln f(x).  Also stores d ln f / dx in *grad when grad is not NULL. */
HA_API double ha_model_log_relaxed(const struct ha_model *model, double budget,
                            double x, double *grad);

/* The same in u = ln x: ln f(e^u), and d ln f / du in *grad when grad is
 * not NULL.  Exact where x rounds to 1 or e^u loses digits. */
HA_API double ha_model_log_relaxed_ln(const struct ha_model *model, double budget,
                               double log_x, double *grad);

/* The relaxed objective prepared once for a model and a budget, so that
 * repeated evaluations (a minimiser's) skip the constant logarithms. */
struct ha_relaxed_fn {
	double log_bias_coef;
	double log_var_scale; /* ln c_v - ln n */
	double smoothness;
	double rho;
	double budget;
	double log_budget;
};

HA_API void ha_relaxed_fn_init(struct ha_relaxed_fn *f, const struct ha_model *model,
                        double budget);

/* ha_model_log_relaxed_ln with the prepared constants. */
HA_API double ha_relaxed_fn_eval(const struct ha_relaxed_fn *f, double log_x,
                          double *grad);

/* exp(log_value) when that is a finite double, else +inf (never NaN for a
 * non-NaN argument).  A convenience for printing. */
HA_API double ha_exp_or_inf(double log_value);

/* ln(exp(a) + exp(b)) without overflow; either may be -inf. */
HA_API double ha_log_add(double a, double b);

#ifdef __cplusplus
}
#endif
#endif
