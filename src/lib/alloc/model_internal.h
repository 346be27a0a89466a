/* The error model beneath model.h (library-internal; model.c). */
#ifndef HEADALLOC_MODEL_INTERNAL_H
#define HEADALLOC_MODEL_INTERNAL_H

#include <stdint.h>

#include <headalloc/model.h>

/* The relaxed objective prepared once for a model and a budget, so that
 * a minimiser's evaluations skip the constant logarithms. */
struct ha_relaxed_fn {
	double log_bias_coef;
	double log_var_scale; /* ln c_v - β ln n */
	double smoothness;
	double rho;
	double budget;
	double log_budget;
	double var_rate;    /* γ */
	double var_power;   /* κ */
};

/* ha_model_eval's terms of d and the model's constants alone, which a
 * sweep keeps (n does not move them); ha_model_eval_from makes the rest
 * by the same arithmetic in the same order, so the same terms to the bit. */
struct ha_eval_parts {
	double log_d, log_heads;          /* ln d, ln H */
	double log_rho, log1p_heads;      /* ln rho, ln(1 - 1/H): 0 without covariance */
	double pow_bias, pow_var;         /* d^-s, d^(γd + κ) */
	double log_bias_coef, log_var_coef; /* ln c_b, ln c_v */
	double log_samples_power;         /* β ln n */
	double samples_power;             /* n^β */
};

/* 1 when n is in its domain: 1 < n <= 1e300, finite. */
int ha_samples_valid(double samples);
/* What a value of n must be, in the words that follow "expected ". */
#define HA_MODEL_SAMPLES_DOMAIN "a number n with 1 < n <= 1e300"

/* The domain of the model's parameter `name` (a scenario file's name:
 * smoothness, bias_coef, ..., group_hdi, log_bias_coef, log_var_coef) in
 * the words that follow "expected " ("a finite number > 0"), the same
 * for every front end; *in_domain says whether v lies in it.  NULL for a
 * name that is no parameter. */
const char *ha_model_param_domain(const char *name, double v, int *in_domain);

/* For a valid model, n and budget % head_dim == 0. */
void ha_model_eval_parts(const struct ha_model *m, double samples, uint64_t budget,
                         uint64_t head_dim, struct ha_eval_parts *parts);
void ha_model_eval_from(const struct ha_model *m, double samples, uint64_t budget,
                        uint64_t head_dim, uint64_t kv_heads,
                        const struct ha_eval_parts *parts, struct ha_terms *out);

/* ha_model_eval of H = D/d query heads in kv_heads groups
 * (headalloc-model(7), GROUPED-QUERY ATTENTION); ha_model_eval is
 * kv_heads = H.  HA_EINVAL also for a kv_heads that does not divide H. */
enum ha_status ha_model_eval_grouped(const struct ha_model *model,
                                     double samples, uint64_t budget,
                                     uint64_t head_dim, uint64_t kv_heads,
                                     struct ha_terms *out);

/* ln F, F = (1 + (g - 1) rho_g + (H - g) rho) / H, of H heads in
 * kv_heads groups; at kv_heads = H the expression ln(rho + (1 - rho)/H)
 * that every ungrouped comparison takes. */
double ha_model_log_group_factor(const struct ha_model *model, uint64_t heads,
                                 uint64_t kv_heads);

/* ln c_b and ln c_v, from the form each is held in. */
double ha_model_log_bias_coef(const struct ha_model *model);
double ha_model_log_var_coef(const struct ha_model *model);

/* Set c_b (c_v) to exp(log_coef), held as its log, so that
 * ha_model_log_bias_coef() returns log_coef bit for bit. */
void ha_model_set_log_bias_coef(struct ha_model *model, double log_coef);
void ha_model_set_log_var_coef(struct ha_model *model, double log_coef);

/* ln(E + A n^-α), common to every head dimension; -inf when E = A = 0. */
double ha_model_log_constant(const struct ha_model *model, double samples);

/* ln((MSE - E - A n^-α) / c_b) of head dimension d in kv_heads groups
 * (kv_heads = D/d: ungrouped), for comparing allocations: less ln c_b,
 * which changes no comparison but keeps every digit where ln c_b is large
 * (a tie within 1e-12 is decided on it).  E and A n^-α move no argmin
 * (headalloc-model(7), CALIBRATION (The parameters)); left out, they
 * cannot widen the relative tie band, so every allocation is independent
 * of them.  The caller checks the preconditions of ha_model_eval_grouped. */
double ha_model_log_relative_mse(const struct ha_model *model, double samples,
                                 uint64_t budget, uint64_t head_dim,
                                 uint64_t kv_heads);

/* The relaxed objective of headalloc-model(7), THE CONTINUOUS RELAXATION,
 * in u = ln x: ln f(e^u), f(x) = E + A n^-α + c_b x^-s + c_v x^(γx+κ)/n^β
 * (rho + (1-rho) x/D), and d ln f / du in *grad when grad is not NULL. */
double ha_model_log_relaxed_ln(const struct ha_model *model, double samples,
                               double budget, double log_x, double *grad);

/* Prepare *f for model (validated), n and budget D. */
void ha_relaxed_fn_init(struct ha_relaxed_fn *f, const struct ha_model *model,
                        double samples, double budget);

/* ln(f(e^u) - E - A n^-α), the reducible part (the same minimiser as f),
 * and its derivative in u in *grad when grad is not NULL. */
double ha_relaxed_fn_eval(const struct ha_relaxed_fn *f, double log_x,
                          double *grad);

/* 1 when f is proven strictly unimodal on [x_lo, inf) (the proof is in
 * model.c), so that the solver's `bracket` certificate holds; 0 otherwise
 * (the solver then enumerates: `exhaustive`). */
int ha_model_unimodal_on(const struct ha_model *model, double x_lo);

/* exp(log_value) when that is a finite double, else +inf. */
double ha_exp_or_inf(double log_value);

/* ln(exp(a) + exp(b)) without overflow; either may be -inf. */
double ha_log_add(double a, double b);

#endif
