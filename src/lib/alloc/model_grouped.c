/* The error of a grouped-query allocation (headalloc-model(7),
 * GROUPED-QUERY ATTENTION), in natural logs as the model is.
 *
 * Byte-identical ungrouped answers: at G = H every function here returns
 * what model.c computes, through model.c itself (ha_model_eval) or the
 * same expression in the same order (the comparison key). */
#include <math.h>
#include <stddef.h>

#include <headalloc/grouped.h>
#include "alloc/grouped_internal.h"
#include "alloc/model_internal.h"

struct ha_kv_shape ha_kv_shape_defaults(void)
{
	return (struct ha_kv_shape){.layers = 1, .kv_bytes = 2, .model_dim = 0};
}

enum ha_status ha_kv_constraints_validate(const struct ha_kv_constraints *c)
{
	if (!c)
		return HA_OK;
	if (c->min_kv_heads && c->max_kv_heads && c->min_kv_heads > c->max_kv_heads)
		return HA_EINVAL;
	if (c->kv_heads && ((c->min_kv_heads && c->kv_heads < c->min_kv_heads) ||
	                    (c->max_kv_heads && c->kv_heads > c->max_kv_heads)))
		return HA_EINVAL;
	return HA_OK;
}

enum ha_status ha_kv_shape_validate(const struct ha_kv_shape *s, uint64_t budget)
{
	if (!s || s->layers == 0 || s->kv_bytes == 0 || budget == 0 ||
	    budget > HA_BUDGET_MAX)
		return HA_EINVAL;
	/* 2 D L B <= UINT64_MAX and 4 d_model D <= UINT64_MAX, by division. */
	uint64_t room = UINT64_MAX / 2 / budget;
	if (s->layers > room || s->kv_bytes > room / s->layers)
		return HA_EINVAL;
	if (s->model_dim && s->model_dim > UINT64_MAX / 4 / budget)
		return HA_EINVAL;
	return HA_OK;
}

/* (g - 1) rho_g + (H - g) rho: the covariance share of the sum of all
 * pairs, over H (see F in grouped.h); exact in the integers g - 1 and
 * H - g where they are below 2^53. */
static double pair_weight(double rho, double rho_g, uint64_t heads,
                          uint64_t group)
{
	return (double)(group - 1) * rho_g + (double)(heads - group) * rho;
}

/* ln F, F = (1 + (g - 1) rho_g + (H - g) rho) / H; at G = H the very
 * expression of ha_model_log_relative_mse. */
static double log_group_factor(const struct ha_model *m, uint64_t heads,
                               uint64_t kv_heads)
{
	double rho = 1.0 - m->hdi;
	double H = (double)heads;
	if (kv_heads == heads)
		return log(rho + (1.0 - rho) / H);
	double w = pair_weight(rho, 1.0 - m->group_hdi, heads, heads / kv_heads);
	return log1p(w) - log(H);
}

double ha_model_log_relative_mse_grouped(const struct ha_model *m,
                                         double samples, uint64_t budget,
                                         uint64_t head_dim, uint64_t kv_heads)
{
	uint64_t heads = budget / head_dim;
	if (kv_heads == heads)
		return ha_model_log_relative_mse(m, samples, budget, head_dim);
	double d = (double)head_dim;
	double log_bias = -m->smoothness * log(d);
	double log_var = ha_model_log_var_coef(m) - ha_model_log_bias_coef(m) +
	                 (m->var_rate * d + m->var_power) * log(d) -
	                 m->var_samples_power * log(samples) +
	                 log_group_factor(m, heads, kv_heads);
	return ha_log_add(log_bias, log_var);
}

enum ha_status ha_model_eval_grouped(const struct ha_model *m, double samples,
                                     uint64_t budget, uint64_t head_dim,
                                     uint64_t kv_heads, struct ha_terms *out)
{
	enum ha_status st = ha_model_eval(m, samples, budget, head_dim, out);
	if (st != HA_OK)
		return st;
	uint64_t heads = budget / head_dim;
	if (kv_heads == 0 || heads % kv_heads != 0)
		return HA_EINVAL;
	if (kv_heads == heads)
		return HA_OK;
	/* Only the covariance changes: var(d) w / H with w the pair weight.
	 * ha_model_eval gave ln var(d)/H as log_variance and var(d)/H as
	 * variance; recombine the parts as it does. */
	double w = pair_weight(1.0 - m->hdi, 1.0 - m->group_hdi, heads,
	                       heads / kv_heads);
	out->log_covariance = w > 0.0 ? log(w) + out->log_variance : -INFINITY;
	double cov = w * out->variance;
	out->covariance = w == 0.0 ? 0.0
	                  : isnormal(cov) && isnormal(out->variance)
	                  ? cov : ha_exp_or_inf(out->log_covariance);
	out->log_reducible = ha_log_add(ha_log_add(out->log_bias2, out->log_variance),
	                                out->log_covariance);
	double sum = out->bias2 + out->variance + out->covariance;
	out->reducible = isnormal(sum) && isnormal(out->bias2) &&
	                 isnormal(out->variance)
	                 ? sum : ha_exp_or_inf(out->log_reducible);
	double log_c = ha_model_log_constant(m, samples);
	out->log_mse = ha_log_add(log_c, out->log_reducible);
	out->mse = m->irreducible + out->data + out->reducible;
	return HA_OK;
}

double ha_model_log_relaxed_grouped(const struct ha_model *m, double samples,
                                    double budget, double x, double kv_heads)
{
	double rho = 1.0 - m->hdi, rho_g = 1.0 - m->group_hdi;
	double factor = rho + (1.0 - rho_g) * x / budget + (rho_g - rho) / kv_heads;
	double lx = log(x);
	double log_bias = ha_model_log_bias_coef(m) - m->smoothness * lx;
	double log_var = ha_model_log_var_coef(m) -
	                 m->var_samples_power * log(samples) +
	                 (m->var_rate * x + m->var_power) * lx + log(factor);
	return ha_log_add(log_bias, log_var);
}
