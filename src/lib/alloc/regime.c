/* Exact regimes: the lower envelope of the lines a_d + b_d / n, in logs.
 *
 * With the generalised model of headalloc-model(7), CALIBRATION (The parameters) each divisor's error is
 * still affine in t = 1/n:
 *   a_d = E + c_b d^-s,   b_d = c_v d^(γd + κ) (rho + (1 - rho) d/D).
 * E is common to every line, so it cancels from every switch point
 * n = (b_d2 - b_d1)/(a_d1 - a_d2) and from the envelope: the table is
 * exact for every E.  a_d falls strictly with d (s > 0) and b_d never
 * falls (γ, κ >= 0 make d^(γd+κ) nondecreasing on d >= 1, and the factor
 * rises with d), which is all the envelope below assumes; where b_d2 =
 * b_d1 (γ = κ = 0 and hdi = 0) the larger d wins at every n, a switch at
 * ln n = -inf.
 *
 * The data term and β.  With L = E + A n^-α + c_b d^-s + c_v d^(γd+κ)/n^β
 * (...), each line is affine in t = n^-β instead: a_d + b_d t with the
 * same a_d, b_d, plus E + A n^-α, which is the same for every d at a
 * given n and so cancels from every comparison of two divisors, exactly
 * as E does (the lines are no longer affine in t with it, but their
 * differences are, and only differences decide the envelope).  A switch
 * point t* = n*^-β gives ln n* = ln(1/t*) / β: the envelope is computed
 * in ln(1/t), exactly as before, and every boundary divided by β (for
 * β = 1 a division by 1, exact).  β > 0 keeps the order of the boundaries,
 * so the envelope in n is the envelope in 1/t. */
#include <math.h>
#include <stdlib.h>

#include <headalloc/regime.h>

#include "alloc/regime_internal.h"
#include "alloc/solver_internal.h"


/* ln(rho + (1 - rho) d/D) = ln(rho + (1 - rho)/H). */
static double log_factor(const struct ha_model *m, uint64_t budget,
                         uint64_t d)
{
	double rho = 1.0 - m->hdi;
	return log(rho + (1.0 - rho) / (double)(budget / d));
}

/* The switch point of d1 < d2, both dividing D, for a validated model.
 *   β ln n = ln(b2 - b1) - ln(a1 - a2)
 *        = ln b1 + ln(e^db - 1) - ln a2 - ln(e^da - 1)
 * with a the bias lines without E (E cancels), da = ln a1 - ln a2 =
 * s ln(d2/d1) > 0 and db = ln b2 - ln b1 >= 0. */
static double log_switch(const struct ha_model *m, uint64_t budget,
                         uint64_t d1, uint64_t d2)
{
	double lr = log_ratio(d1, d2);
	double da = m->smoothness * lr;
	if (!(da > 0.0))
		return INFINITY;
	double fd1 = (double)d1, fd2 = (double)d2;
	/* (γd2 + κ) ln d2 - (γd1 + κ) ln d1
	 *   = γ((d2 - d1) ln d2 + d1 ln(d2/d1)) + κ ln(d2/d1),
	 * without the cancellation of the difference of two large logs.  (For
	 * the defaults the κ term is +0.0, exact: the seeds' digits stay.) */
	double db = m->var_rate * ((double)(d2 - d1) * log(fd2) + fd1 * lr) +
	            m->var_power * lr +
	            log_factor(m, budget, d2) - log_factor(m, budget, d1);
	double log_b1 = ha_model_log_var_coef(m) +
	                (m->var_rate * fd1 + m->var_power) * log(fd1) +
	                log_factor(m, budget, d1);
	double log_a2 = ha_model_log_bias_coef(m) - m->smoothness * log(fd2);
	/* ln(1/t*) of the lines in t = n^-β, then ln n* = ln(1/t*)/β. */
	return (log_b1 + log_expm1(db) - log_a2 - log_expm1(da)) /
	       m->var_samples_power;
}

double ha_regime_log_switch(const struct ha_model *model, uint64_t budget,
                            uint64_t d1, uint64_t d2)
{
	if (ha_model_validate(model) != HA_OK || budget == 0 || budget > HA_BUDGET_MAX ||
	    d1 == 0 || d2 <= d1 || budget % d1 != 0 || budget % d2 != 0)
		return INFINITY;
	return log_switch(model, budget, d1, d2);
}

static int dims_ok(uint64_t budget, const uint64_t *dims, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (dims[i] == 0 || budget % dims[i] != 0)
			return 0;
		if (i > 0 && dims[i] <= dims[i - 1])
			return 0;
	}
	return 1;
}

/* The plain lines: head_dims[k] of the budget, G = H. */
struct plain_lines {
	const struct ha_model *model;
	uint64_t budget;
	const uint64_t *head_dims;
};

static double plain_switch(const void *ctx, size_t j, size_t k)
{
	const struct plain_lines *p = ctx;
	return log_switch(p->model, p->budget, p->head_dims[j], p->head_dims[k]);
}

static void plain_regime(const void *ctx, size_t k, struct ha_regime *out)
{
	const struct plain_lines *p = ctx;
	uint64_t d = p->head_dims[k];
	*out = (struct ha_regime){.head_dim = d, .heads = p->budget / d,
	                          .kv_heads = p->budget / d};
}

enum ha_status ha_regime_compute(const struct ha_model *model, uint64_t budget,
                                 const uint64_t *head_dims, size_t count,
                                 struct ha_regime **out, size_t *regimes)
{
	if (out)
		*out = NULL;
	if (regimes)
		*regimes = 0;
	if (!out || !regimes || ha_model_validate(model) != HA_OK || budget == 0 ||
	    budget > HA_BUDGET_MAX || (count > 0 && !head_dims))
		return HA_EINVAL;
	if (count == 0)
		return HA_EINFEASIBLE;
	if (!dims_ok(budget, head_dims, count))
		return HA_EINVAL;

	struct plain_lines ctx = {model, budget, head_dims};
	struct ha_regime_lines lines = {count, &ctx, plain_switch, plain_regime};
	return ha_regime_envelope(&lines, out, regimes);
}

enum ha_status ha_regime_envelope(const struct ha_regime_lines *lines,
                                  struct ha_regime **out, size_t *regimes)
{
	size_t count = lines->count;
	/* hull[]: indices of the lines on the envelope; from[m]: ln n at
	 * which hull[m] takes over from hull[m-1]. */
	size_t *hull = malloc(count * sizeof *hull);
	double *from = malloc(count * sizeof *from);
	if (!hull || !from) {
		free(hull);
		free(from);
		return HA_ENOMEM;
	}

	/* Lines in ascending d have ascending slope b_d and descending
	 * intercept a_d.  A line is dropped when the next one overtakes it
	 * no later than it overtakes its predecessor; at equality it is
	 * optimal at one point only, where the smaller d wins the tie. */
	size_t top = 0;
	for (size_t k = 0; k < count; k++) {
		double start = -INFINITY;
		while (top > 0) {
			start = lines->log_switch(lines->ctx, hull[top - 1], k);
			if (top == 1 || from[top - 1] < start)
				break;
			top--;
		}
		hull[top] = k;
		from[top] = top == 0 ? -INFINITY : start;
		top++;
	}

	struct ha_regime *table = malloc(top * sizeof *table);
	if (!table) {
		free(hull);
		free(from);
		return HA_ENOMEM;
	}
	size_t used = 0;
	for (size_t m = 0; m < top; m++) {
		double lo = from[m];
		double hi = m + 1 < top ? from[m + 1] : INFINITY;
		if (!(hi > 0.0) || lo == INFINITY)
			continue; /* over before n = 1, or never reached */
		lines->regime(lines->ctx, hull[m], &table[used]);
		table[used].log_samples_from = lo > 0.0 ? lo : 0.0;
		table[used].log_samples_to = hi;
		table[used].unbounded = hi == INFINITY;
		used++;
	}
	free(hull);
	free(from);
	*out = table;
	*regimes = used;
	return HA_OK;
}

enum ha_status ha_regime_compute_solver(const struct ha_solver *solver,
                                        const struct ha_model *model,
                                        struct ha_regime **out,
                                        size_t *regimes)
{
	if (!solver) {
		if (out)
			*out = NULL;
		if (regimes)
			*regimes = 0;
		return HA_EINVAL;
	}
	size_t count = 0;
	const uint64_t *dims = ha_solver_feasible(solver, &count);
	return ha_regime_compute(model, ha_solver_budget(solver), dims, count,
	                         out, regimes);
}
