/* ha_model_eval in two steps (library-internal): what it computes of
 * the head dimension and the model's constants alone, and the rest.  A
 * sweep keeps the first (model.c's powers and logarithms of d, which n
 * does not move) and makes the second each row: the same arithmetic in
 * the same order, so the same terms to the bit. */
#ifndef HEADALLOC_MODEL_INTERNAL_H
#define HEADALLOC_MODEL_INTERNAL_H

#include <stdint.h>

#include <headalloc/model.h>

struct ha_eval_parts {
	double log_d, log_heads;          /* ln d, ln H */
	double log_rho, log1p_heads;      /* ln rho, ln(1 - 1/H): 0 without covariance */
	double pow_bias, pow_var;         /* d^-s, d^(γd + κ) */
	double log_bias_coef, log_var_coef; /* ln c_b, ln c_v */
	double log_samples_power;         /* β ln n */
	double samples_power;             /* n^β */
};

/* For a valid model and budget % head_dim == 0 (ha_model_eval checks). */
/* The check of ha_model_validate on the sample size alone: a model that
 * passed it and differs from this one in samples alone is valid exactly
 * when this holds. */
int ha_model_samples_valid(double samples);

void ha_model_eval_parts(const struct ha_model *m, uint64_t budget,
                         uint64_t head_dim, struct ha_eval_parts *parts);
void ha_model_eval_from(const struct ha_model *m, uint64_t budget, uint64_t head_dim,
                        const struct ha_eval_parts *parts, struct ha_terms *out);

#endif
