/* headalloc — the error model (headalloc-model(7), THE ERROR MODEL).
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
 * override what you need; check with ha_model_validate().  The number of
 * samples n is not a parameter but a problem input: every function that
 * evaluates the model takes it beside the model (check it with
 * ha_samples_validate()).
 *
 * The error of H heads of dimension d at n samples (headalloc-model(7), CALIBRATION (The parameters)):
 *
 *   MSE = E + A n^-α + c_b d^-s + c_v d^(γ d + κ) / n^β * (rho + (1 - rho) / H)
 *
 * With A = 0 (the default) the data term A n^-α vanishes; with β = 1 (the
 * default) the variance falls as 1/n, the seeds'.  A n^-α is the same for
 * every head dimension, so, like E, it moves no argmin; β changes only
 * how the variance scales with n, nothing in d.
 *
 * With the defaults (E = 0, γ = 1/2, κ = 0) it is the seeds' model of
 * headalloc-model(7), THE ERROR MODEL.  Each coefficient is one number,
 * held in the form it was given: the coefficient itself, or, with its
 * *_is_log flag set, its natural logarithm,
 *
 *   c_b = bias_coef             (bias_coef_is_log = 0)
 *   c_b = exp(bias_coef)        (bias_coef_is_log = 1), and so for c_v,
 *
 * so that a coefficient beyond a double (a calibrated ln c_v ~ -1598) is
 * representable and a given one (--bias-coef 0.3) is kept to the bit:
 * the solver works with ln c either way, and the plain parts of an
 * error (ha_terms' bias2, variance, ...) are products of the plain
 * coefficient where there is one, as the reports print them. */
struct ha_model {
	double smoothness; /* s > 0: squared bias falls as d^-s */
	double bias_coef;  /* c_b > 0 and finite, or ln c_b (finite) */
	double var_coef;   /* c_v > 0 and finite, or ln c_v (finite) */
	double hdi;        /* Head Diversity Index in [0, 1]; rho = 1 - hdi */
	double irreducible;    /* E >= 0, finite (default 0): moves no argmin */
	double var_rate;       /* γ >= 0, finite (default 1/2) */
	double var_power;      /* κ >= 0, finite (default 0) */
	int bias_coef_is_log;  /* 1: bias_coef holds ln c_b (default 0) */
	int var_coef_is_log;   /* 1: var_coef holds ln c_v (default 0) */
	double data_coef;      /* A >= 0, finite (default 0): the data term A n^-α */
	double data_power;     /* α > 0, finite (default 0.28) */
	double var_samples_power; /* β > 0, finite (default 1): variance / n^β */
	/* Grouped-query attention (headalloc-model(7), GROUPED-QUERY
	 * ATTENTION): the diversity of two query heads that share one
	 * key/value head, in [0, 1] (default 0: fully correlated);
	 * rho_g = 1 - group_hdi.  Only grouped allocations (grouped.h) read
	 * it: with G = H every group has one head and it drops out. */
	double group_hdi;
};

/* The error of one allocation (H heads of dimension d), split into the
 * additive parts of headalloc-model(7), THE ERROR MODEL and headalloc-model(7), CALIBRATION (The parameters), each as a natural log:
 *   mse = irreducible + data + bias2 + variance + covariance
 *   irreducible = E                          (plain value only: E may be 0)
 *   data       = A n^-α                      (plain value only: A may be 0)
 *   bias2      = c_b d^-s
 *   variance   = var(d) / H                 (var(d) = c_v d^(γd+κ) / n^β)
 *   covariance = (1 - 1/H) rho var(d)
 *   reducible  = bias2 + variance + covariance (what the allocator compares)
 * A part that is exactly zero has log -inf; log_reducible and log_mse are
 * always finite.  With E = 0 and A = 0, mse and log_mse are the reducible
 * ones, bit for bit. */
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
	double irreducible;   /* E */
	double data;          /* A n^-α (0 when A = 0; may underflow to 0) */
	double log_reducible; /* ln(bias2 + variance + covariance) */
	double reducible;     /* bias2 + variance + covariance (+inf beyond a double) */
};

/* The n of headalloc-model(7), THE OBJECTS when none is given. */
#define HA_SAMPLES_DEFAULT 1e8

/* Defaults of headalloc-model(7), THE OBJECTS: s = 2, c_b = c_v = 1, hdi = 1;
 * and of headalloc-model(7), CALIBRATION (The parameters): E = 0, γ = 1/2, κ = 0 (plain coefficients),
 * A = 0, α = 0.28, β = 1. */
HA_API struct ha_model ha_model_defaults(void);

/* HA_OK if every field is in its domain (see struct ha_model), else
 * HA_EINVAL.  NaN and infinities are rejected. */
HA_API enum ha_status ha_model_validate(const struct ha_model *model);

/* HA_OK if n is in its domain (1 < n <= 1e300, finite), else HA_EINVAL. */
HA_API enum ha_status ha_samples_validate(double samples);

/* Evaluate the model at n samples, budget D and head dimension d (d must
 * divide D, 1 <= D <= HA_BUDGET_MAX).  Returns HA_EINVAL for a NULL
 * pointer, n out of its domain, d = 0, d not dividing D or D out of
 * range.  The model is assumed validated. */
HA_API enum ha_status ha_model_eval(const struct ha_model *model, double samples,
                                    uint64_t budget, uint64_t head_dim,
                                    struct ha_terms *out);

#ifdef __cplusplus
}
#endif
#endif
