/* Exact regimes over the triples (H, G, d) (headalloc-model(7),
 * GROUPED-QUERY ATTENTION and EXACT REGIMES IN N).
 *
 * A triple's error is E + A n^-α + a_d + b_(d,G) t with t = n^-β,
 *   a_d = c_b d^-s,   b_(d,G) = c_v d^(γd+κ) F(H, G),
 * F = (1 + (g - 1) ρ_g + (H - g) ρ)/H: still a line in t, and the
 * envelope of lines is exact as in regime.c.  Three facts make it the
 * envelope of regime.c's kind:
 *   - the triples of one d share a_d, so the one of the least b (the least
 *     F) is below the others at every n: it alone represents d (ties to
 *     the larger G, the grouped solver's rule);
 *   - a d with b_d no smaller than the b of some larger d is above that
 *     line at every n (a_d is larger too): it never wins, and is dropped
 *     (at equal b the larger d wins at every n, as in regime.c);
 *   - the lines left, in ascending d, have descending a and strictly
 *     ascending b, which is all regime.c's envelope assumes.
 * Unlike the plain b_d, b_(d, G*(d)) need not rise with d (the feasible G
 * of H = D/d change with d), hence the second step (the envelope would
 * also pop such a line, its switch at ln n = -inf, but the step keeps the
 * envelope's premise true). */
#include <stdlib.h>

#include "alloc/divisors.h"
#include <headalloc/regime.h>

#include "alloc/regime_internal.h"
#include "alloc/solver_internal.h"
#include "alloc/grouped_internal.h"

/* The line of one head dimension: its G and ln F. */
struct line {
	uint64_t head_dim;
	uint64_t kv_heads;
	double log_factor; /* ln F(D/d, G) */
	double log_slope;  /* (γd + κ) ln d + ln F: ln b without ln c_v */
};

/* ln F; at G = H the expression of regime.c (ρ + (1 - ρ)/H), else that
 * of model_grouped.c (log1p of the pair weight, over H). */
static double log_group_factor(const struct ha_model *m, uint64_t heads,
                               uint64_t kv_heads)
{
	double rho = 1.0 - m->hdi;
	if (kv_heads == heads)
		return log(rho + (1.0 - rho) / (double)heads);
	uint64_t g = heads / kv_heads;
	double w = (double)(g - 1) * (1.0 - m->group_hdi) +
	           (double)(heads - g) * rho;
	return log1p(w) - log((double)heads);
}

/* The representative of head dimension d: the G of the least ln F, ties
 * within the solver's band to the larger G; 0 when no G meets kv. */
static int best_kv_heads(const struct ha_model *m, uint64_t budget,
                         uint64_t d, const uint64_t *divisors, size_t count,
                         const struct ha_kv_constraints *kv, struct line *out)
{
	uint64_t heads = budget / d;
	double least = INFINITY;
	for (size_t j = 0; j < count && divisors[j] <= heads; j++)
		if (heads % divisors[j] == 0 && ha_kv_allows(kv, d, divisors[j])) {
			double lf = log_group_factor(m, heads, divisors[j]);
			if (lf < least)
				least = lf;
		}
	if (least == INFINITY)
		return 0;
	out->head_dim = d;
	out->kv_heads = 0;
	for (size_t j = 0; j < count && divisors[j] <= heads; j++)
		if (heads % divisors[j] == 0 && ha_kv_allows(kv, d, divisors[j])) {
			double lf = log_group_factor(m, heads, divisors[j]);
			if (lf <= least + HA_TIE_LOG_TOLERANCE) {
				out->kv_heads = divisors[j]; /* ascending: the largest */
				out->log_factor = lf;
			}
		}
	double fd = (double)d;
	out->log_slope = (m->var_rate * fd + m->var_power) * log(fd) +
	                 out->log_factor;
	return 1;
}

/* ln n where line 2 (d2 > d1, b2 > b1) starts to beat line 1: regime.c's
 * log_switch with the group factors of both lines; -inf where the
 * careful difference of the slopes rounds to no gain (line 2 then wins
 * from the start). */
static double log_switch(const struct ha_model *m, const struct line *l1,
                         const struct line *l2)
{
	uint64_t d1 = l1->head_dim, d2 = l2->head_dim;
	double lr = log_ratio(d1, d2);
	double da = m->smoothness * lr;
	if (!(da > 0.0))
		return INFINITY;
	double fd1 = (double)d1, fd2 = (double)d2;
	double db = m->var_rate * ((double)(d2 - d1) * log(fd2) + fd1 * lr) +
	            m->var_power * lr + l2->log_factor - l1->log_factor;
	if (!(db > 0.0))
		return -INFINITY;
	/* In regime.c's order: at G = H every bit of its table. */
	double log_b1 = ha_model_log_var_coef(m) +
	                (m->var_rate * fd1 + m->var_power) * log(fd1) +
	                l1->log_factor;
	double log_a2 = ha_model_log_bias_coef(m) - m->smoothness * log(fd2);
	return (log_b1 + log_expm1(db) - log_a2 - log_expm1(da)) /
	       m->var_samples_power;
}

/* The representatives of the feasible head dimensions that can win, in
 * ascending d: *count of them in lines (the caller frees it). */
static enum ha_status candidate_lines(const struct ha_solver *solver,
                                      const struct ha_model *m,
                                      const struct ha_kv_constraints *kv,
                                      struct line **out, size_t *count)
{
	uint64_t budget = ha_solver_budget(solver);
	size_t nd = 0, divisor_count = 0, n = 0;
	const uint64_t *dims = ha_solver_feasible(solver, &nd);
	uint64_t *divisors = NULL;
	enum ha_status st = ha_divisors(budget, &divisors, &divisor_count);
	if (st != HA_OK)
		return st;
	struct line *lines = malloc((nd ? nd : 1) * sizeof *lines);
	if (!lines) {
		free(divisors);
		return HA_ENOMEM;
	}
	/* Descending d, keeping a line only when its b is below every b of
	 * a larger d kept so far. */
	double least = INFINITY;
	for (size_t i = nd; i-- > 0;) {
		struct line l;
		if (best_kv_heads(m, budget, dims[i], divisors, divisor_count, kv, &l) &&
		    l.log_slope < least) {
			least = l.log_slope;
			lines[n++] = l;
		}
	}
	free(divisors);
	for (size_t i = 0; i < n / 2; i++) {
		struct line swap = lines[i];
		lines[i] = lines[n - 1 - i];
		lines[n - 1 - i] = swap;
	}
	*out = lines;
	*count = n;
	return HA_OK;
}

/* The candidate lines as regime.c's envelope sees them. */
struct grouped_lines {
	const struct ha_model *model;
	uint64_t budget;
	const struct line *lines;
};

static double grouped_switch(const void *ctx, size_t j, size_t k)
{
	const struct grouped_lines *g = ctx;
	return log_switch(g->model, &g->lines[j], &g->lines[k]);
}

static void grouped_regime(const void *ctx, size_t k, struct ha_regime *out)
{
	const struct grouped_lines *g = ctx;
	const struct line *l = &g->lines[k];
	*out = (struct ha_regime){.heads = g->budget / l->head_dim,
	                          .head_dim = l->head_dim,
	                          .kv_heads = l->kv_heads};
}

enum ha_status ha_regime_compute_grouped(const struct ha_solver *solver,
                                         const struct ha_model *model,
                                         const struct ha_kv_constraints *kv,
                                         struct ha_regime **out,
                                         size_t *regimes)
{
	if (out)
		*out = NULL;
	if (regimes)
		*regimes = 0;
	if (!solver || !out || !regimes || ha_model_validate(model) != HA_OK ||
	    ha_kv_constraints_validate(kv) != HA_OK)
		return HA_EINVAL;
	uint64_t bound = ha_grouped_triple_bound(ha_solver_budget(solver));
	if (bound == 0 || bound > HA_GROUPED_MAX_TRIPLES)
		return HA_EUNSUPPORTED;
	struct line *lines = NULL;
	size_t count = 0;
	enum ha_status st = candidate_lines(solver, model, kv, &lines, &count);
	if (st == HA_OK && count == 0)
		st = HA_EINFEASIBLE;
	if (st == HA_OK) {
		struct grouped_lines ctx = {model, ha_solver_budget(solver), lines};
		struct ha_regime_lines env = {count, &ctx, grouped_switch,
		                              grouped_regime};
		st = ha_regime_envelope(&env, out, regimes);
	}
	free(lines);
	return st;
}
