/* The continuous relaxation of the grouped allocation over real (d, G)
 * (headalloc-model(7), GROUPED-QUERY ATTENTION (The relaxation)): a
 * genuine two-variable problem with a coupling constraint, G d <= K,
 * solved by NLopt's SLSQP in (u, w) = (ln x, ln G), where the KV bound
 * and G <= H = D/x are the linear constraints u + w <= ln K and
 * u + w <= ln D. */
#include <math.h>

#include <nlopt.h>

#include <headalloc/grouped.h>

#include "alloc/solver_internal.h"

/* The objective's constants: ln f = lse(ln B, ln V) with
 * ln B = log_bias - s u and ln V = log_var + (γx + κ) u + ln F,
 * F = rho + (1 - rho_g) x/D + (rho_g - rho)/G. */
struct objective {
	double log_bias, log_var, s, rate, power, rho, rho_g, budget;
	size_t evaluations;
};

static double reducible(unsigned n, const double *v, double *grad, void *data)
{
	(void)n;
	struct objective *o = data;
	o->evaluations++;
	double u = v[0], x = exp(u), G = exp(v[1]);
	double across = (1.0 - o->rho_g) * x / o->budget, within = (o->rho_g - o->rho) / G;
	double F = o->rho + across + within;
	double lb = o->log_bias - o->s * u;
	double lv = o->log_var + (o->rate * x + o->power) * u + log(F);
	double lf = ha_log_add(lb, lv);
	if (grad) {
		double wb = exp(lb - lf), wv = 1.0 - wb;
		grad[0] = -o->s * wb + wv * (o->rate * x * (u + 1.0) + o->power + across / F);
		grad[1] = wv * (-within / F);
	}
	return lf;
}

/* u + w - ln(bound) <= 0. */
static double coupling(unsigned n, const double *v, double *grad, void *data)
{
	(void)n;
	if (grad)
		grad[0] = grad[1] = 1.0;
	return v[0] + v[1] - *(const double *)data;
}

/* The answer at (u, w) = v. */
static enum ha_status finish(struct objective *o, const struct ha_model *m,
                             double samples, double D, const double *v,
                             struct ha_grouped_relaxed *out)
{
	double f = reducible(2, v, NULL, o);
	if (!isfinite(f))
		return HA_ENUMERIC;
	double x = exp(v[0]), G = exp(v[1]);
	out->head_dim = x;
	out->kv_heads = G;
	out->heads = D / x;
	out->kv_dim = G * x;
	out->log_mse = ha_log_add(ha_model_log_constant(m, samples), f);
	return HA_OK;
}

enum ha_status ha_grouped_solve_relaxed(const struct ha_solver *s,
                                        const struct ha_model *m, double samples,
                                        const struct ha_kv_constraints *kv,
                                        struct ha_grouped_relaxed *out)
{
	static const struct ha_kv_constraints none = {0, 0, 0, 0};
	if (!s || !out || ha_model_validate(m) != HA_OK || !ha_samples_valid(samples) ||
	    ha_kv_constraints_validate(kv) != HA_OK)
		return HA_EINVAL;
	if (!kv)
		kv = &none;
	double D = (double)s->budget;
	double lo[2] = {log(s->x_lo), 0.0}, hi[2] = {log(s->x_hi), log(D)};
	if (kv->min_kv_heads)
		lo[1] = log((double)kv->min_kv_heads);
	if (kv->max_kv_heads && log((double)kv->max_kv_heads) < hi[1])
		hi[1] = log((double)kv->max_kv_heads);
	if (kv->kv_heads)
		lo[1] = hi[1] = log((double)kv->kv_heads);
	double cap[2] = {log(D), kv->max_kv_dim ? log((double)kv->max_kv_dim) : INFINITY};
	double top = fmin(cap[0], cap[1]);
	if (lo[1] > hi[1] || lo[0] + lo[1] > top * (1.0 + 1e-15))
		return HA_EINFEASIBLE;

	struct objective o = {
		.log_bias = ha_model_log_bias_coef(m),
		.log_var = ha_model_log_var_coef(m) -
		           m->var_samples_power * log(samples),
		.s = m->smoothness, .rate = m->var_rate, .power = m->var_power,
		.rho = 1.0 - m->hdi, .rho_g = 1.0 - m->group_hdi, .budget = D,
	};
	/* Start where the ungrouped relaxation lies, G as large as allowed. */
	struct ha_relaxed r1;
	enum ha_status st = ha_solver_solve_relaxed(s, m, samples, &r1);
	if (st != HA_OK)
		return st;
	double v[2] = {log(r1.head_dim), 0.0};
	v[1] = fmax(lo[1], fmin(hi[1], top - v[0]));
	if (v[0] + v[1] > top)
		v[0] = fmax(lo[0], top - v[1]);

	/* A region without room for x (one head dimension, or the KV bound
	 * met at the least G) leaves G alone: for a fixed x the error is
	 * affine in 1/G, so G* is an end (the larger at a tie). */
	if (lo[0] == hi[0] || lo[0] + lo[1] >= top) {
		v[0] = lo[0];
		v[1] = o.rho_g < o.rho ? lo[1] : fmax(lo[1], fmin(hi[1], top - v[0]));
		return finish(&o, m, samples, D, v, out);
	}
	nlopt_opt opt = nlopt_create(NLOPT_LD_SLSQP, 2);
	if (!opt)
		return HA_ENOMEM;
	nlopt_result res = nlopt_set_min_objective(opt, reducible, &o);
	if (res > 0)
		res = nlopt_set_lower_bounds(opt, lo);
	if (res > 0)
		res = nlopt_set_upper_bounds(opt, hi);
	for (int i = 0; i < 2 && res > 0; i++)
		if (isfinite(cap[i]))
			res = nlopt_add_inequality_constraint(opt, coupling, &cap[i], 1e-15);
	if (res > 0)
		res = nlopt_set_xtol_rel(opt, 1e-14);
	if (res > 0)
		res = nlopt_set_maxeval(opt, 2000);
	double f = NAN;
	if (res > 0)
		res = nlopt_optimize(opt, v, &f);
	nlopt_destroy(opt);
	if (res == NLOPT_OUT_OF_MEMORY)
		return HA_ENOMEM;
	/* Round-off stops and the evaluation cap still leave the best point
	 * found; only a failure without one is an error. */
	if (res < 0 && res != NLOPT_ROUNDOFF_LIMITED)
		return HA_ENUMERIC;
	if (!isfinite(f))
		return HA_ENUMERIC;
	/* SLSQP may end a rounding beyond the coupling bound: back onto it. */
	if (v[0] + v[1] > top)
		v[1] = fmax(lo[1], top - v[0]);
	/* With rho_g = rho the error does not depend on G: the tie rule's
	 * larger G, as large as the constraints allow at x*. */
	if (o.rho_g == o.rho)
		v[1] = fmax(lo[1], fmin(hi[1], top - v[0]));
	return finish(&o, m, samples, D, v, out);
}
