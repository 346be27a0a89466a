/* Exact regimes: the lower envelope of the lines a_d + b_d / n, in logs,
 * over the head dimensions d of a budget, each with its key/value heads G
 * (G = H ungrouped; headalloc-model(7), EXACT REGIMES IN N and
 * GROUPED-QUERY ATTENTION).
 *
 * With the generalised model of headalloc-model(7), CALIBRATION (The
 * parameters) each allocation's error is still affine in t = 1/n:
 *   a_d = E + c_b d^-s,   b_(d,G) = c_v d^(γd + κ) F(H, G),
 * F = (1 + (g - 1) ρ_g + (H - g) ρ)/H, which is ρ + (1 - ρ) d/D at G = H.
 * E is common to every line, so it cancels from every switch point
 * n = (b_d2 - b_d1)/(a_d1 - a_d2) and from the envelope: the table is
 * exact for every E.  a_d falls strictly with d (s > 0), and ungrouped
 * b_d never falls (γ, κ >= 0 make d^(γd+κ) nondecreasing on d >= 1, and
 * the factor rises with d), which is all the envelope below assumes;
 * where b_d2 = b_d1 (γ = κ = 0 and hdi = 0) the larger d wins at every n,
 * a switch at ln n = -inf.
 *
 * Grouped, three facts make it an envelope of the same kind:
 *   - the triples of one d share a_d, so the one of the least b (the least
 *     F) is below the others at every n: it alone represents d (ties to
 *     the larger G, the grouped solver's rule);
 *   - a d with b_d no smaller than the b of some larger d is above that
 *     line at every n (a_d is larger too): it never wins, and is dropped;
 *   - the lines left, in ascending d, have descending a and strictly
 *     ascending b.
 * Unlike the ungrouped b_d, b_(d, G*(d)) need not rise with d (the
 * feasible G of H = D/d change with d), hence the second step.
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
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include <headalloc/regime.h>

#include "base/error_internal.h"
#include "alloc/solver_internal.h"

/* The line of one head dimension: its G and ln F. */
struct line {
	uint64_t head_dim;
	uint64_t kv_heads;
	double log_factor; /* ln F(D/d, G) */
	double log_slope;  /* (γd + κ) ln d + ln F: ln b without ln c_v */
};

static struct line line_of(const struct ha_model *m, uint64_t d,
                           uint64_t heads, uint64_t kv_heads)
{
	struct line l = {d, kv_heads, ha_model_log_group_factor(m, heads, kv_heads), 0.0};
	double fd = (double)d;
	l.log_slope = (m->var_rate * fd + m->var_power) * log(fd) + l.log_factor;
	return l;
}

/* ln(e^x - 1) for x > 0, accurate for tiny and huge x. */
static double log_expm1(double x)
{
	if (x > 0.5)
		return x + log1p(-exp(-x));
	return log(expm1(x));
}

/* ln n where line 2 (d2 > d1) starts to beat line 1, both of a valid
 * model:
 *   β ln n = ln(b2 - b1) - ln(a1 - a2)
 *        = ln b1 + ln(e^db - 1) - ln a2 - ln(e^da - 1)
 * with a the bias lines without E (E cancels), da = ln a1 - ln a2 =
 * s ln(d2/d1) > 0 and db = ln b2 - ln b1.  +inf when da rounds to 0 (d2
 * never wins); -inf where the careful difference of the slopes rounds to
 * no gain (line 2 then wins from the start). */
static double log_switch(const struct ha_model *m, const struct line *l1,
                         const struct line *l2)
{
	uint64_t d1 = l1->head_dim, d2 = l2->head_dim;
	/* ln(d2/d1) without rounding d2/d1 first */
	double lr = log1p((double)(d2 - d1) / (double)d1);
	double da = m->smoothness * lr;
	if (!(da > 0.0))
		return INFINITY;
	double fd1 = (double)d1, fd2 = (double)d2;
	/* (γd2 + κ) ln d2 - (γd1 + κ) ln d1
	 *   = γ((d2 - d1) ln d2 + d1 ln(d2/d1)) + κ ln(d2/d1),
	 * without the cancellation of the difference of two large logs.  (For
	 * the defaults the κ term is +0.0, exact: the seeds' digits stay.) */
	double db = m->var_rate * ((double)(d2 - d1) * log(fd2) + fd1 * lr) +
	            m->var_power * lr + l2->log_factor - l1->log_factor;
	if (!(db > 0.0))
		return -INFINITY;
	double log_b1 = ha_model_log_var_coef(m) +
	                (m->var_rate * fd1 + m->var_power) * log(fd1) +
	                l1->log_factor;
	double log_a2 = ha_model_log_bias_coef(m) - m->smoothness * log(fd2);
	/* ln(1/t*) of the lines in t = n^-β, then ln n* = ln(1/t*)/β. */
	return (log_b1 + log_expm1(db) - log_a2 - log_expm1(da)) /
	       m->var_samples_power;
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
			double lf = ha_model_log_group_factor(m, heads, divisors[j]);
			if (lf < least)
				least = lf;
		}
	if (least == INFINITY)
		return 0;
	for (size_t j = 0; j < count && divisors[j] <= heads; j++)
		if (heads % divisors[j] == 0 && ha_kv_allows(kv, d, divisors[j]) &&
		    ha_model_log_group_factor(m, heads, divisors[j]) <=
		    least + HA_TIE_LOG_TOLERANCE)
			*out = line_of(m, d, heads, divisors[j]); /* ascending: the largest */
	return 1;
}

/* The lower envelope of the lines as regimes in ascending n, those over
 * before n = 1 or never reached left out: *out (the caller frees it)
 * holds *regimes of them. */
static enum ha_status envelope(const struct ha_model *m, uint64_t budget,
                               const struct line *lines, size_t count,
                               struct ha_regime **out, size_t *regimes)
{
	/* hull[]: indices of the lines on the envelope; from[m]: ln n at
	 * which hull[m] takes over from hull[m-1]. */
	size_t *hull = malloc(count * sizeof *hull);
	double *from = malloc(count * sizeof *from);
	struct ha_regime *table = malloc(count * sizeof *table);
	if (!hull || !from || !table) {
		free(hull);
		free(from);
		free(table);
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
			start = log_switch(m, &lines[hull[top - 1]], &lines[k]);
			if (top == 1 || from[top - 1] < start)
				break;
			top--;
		}
		hull[top] = k;
		from[top] = top == 0 ? -INFINITY : start;
		top++;
	}

	size_t used = 0;
	for (size_t i = 0; i < top; i++) {
		double lo = from[i];
		double hi = i + 1 < top ? from[i + 1] : INFINITY;
		if (!(hi > 0.0) || lo == INFINITY)
			continue; /* over before n = 1, or never reached */
		const struct line *l = &lines[hull[i]];
		table[used++] = (struct ha_regime){
			.heads = budget / l->head_dim,
			.head_dim = l->head_dim,
			.log_samples_from = lo > 0.0 ? lo : 0.0,
			.log_samples_to = hi,
			.unbounded = hi == INFINITY,
			.kv_heads = l->kv_heads,
		};
	}
	free(hull);
	free(from);
	*out = table;
	*regimes = used;
	return HA_OK;
}

/* The regimes of the lines of the head dimensions dims (ascending) that
 * can win: grouped (divisors: those of the budget), each d's best G
 * under kv, a d whose b is no smaller than that of a larger d left out;
 * else G = H.  HA_EINFEASIBLE when no line is left. */
static enum ha_status regimes_of(const struct ha_model *m, uint64_t budget,
                                 const uint64_t *dims, size_t nd,
                                 const uint64_t *divisors, size_t divisor_count,
                                 const struct ha_kv_constraints *kv,
                                 struct ha_regime **out, size_t *regimes)
{
	struct line *lines = malloc((nd ? nd : 1) * sizeof *lines);
	if (!lines)
		return HA_ENOMEM;
	/* Descending d, grouped keeping a line only when its b is below
	 * every b of a larger d kept so far; then reversed, ascending d. */
	size_t n = 0;
	double least = INFINITY;
	for (size_t i = nd; i-- > 0;) {
		struct line l;
		if (!divisors) {
			lines[n++] = line_of(m, dims[i], budget / dims[i], budget / dims[i]);
		} else if (best_kv_heads(m, budget, dims[i], divisors, divisor_count,
		                         kv, &l) && l.log_slope < least) {
			least = l.log_slope;
			lines[n++] = l;
		}
	}
	for (size_t i = 0; i < n / 2; i++) {
		struct line swap = lines[i];
		lines[i] = lines[n - 1 - i];
		lines[n - 1 - i] = swap;
	}
	enum ha_status st = n ? envelope(m, budget, lines, n, out, regimes)
	                      : HA_EINFEASIBLE;
	free(lines);
	return st;
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
	for (size_t i = 0; i < count; i++)
		if (head_dims[i] == 0 || budget % head_dims[i] != 0 ||
		    (i > 0 && head_dims[i] <= head_dims[i - 1]))
			return HA_EINVAL;
	return regimes_of(model, budget, head_dims, count, NULL, 0, NULL, out,
	                  regimes);
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
	uint64_t budget = solver->budget;
	uint64_t bound = ha_grouped_triple_bound(budget);
	if (bound == 0 || bound > HA_GROUPED_MAX_TRIPLES)
		return HA_EUNSUPPORTED;
	size_t divisor_count = 0;
	uint64_t *divisors = NULL;
	enum ha_status st = ha_divisors(budget, &divisors, &divisor_count);
	if (st == HA_OK)
		st = regimes_of(model, budget, solver->feasible, solver->feasible_count,
		                divisors, divisor_count, kv, out, regimes);
	free(divisors);
	return st;
}

/* The regimes of several budgets as one result (regime.h): what
 * ha_report_regimes and ha_plot_regimes render, computed once. */
void ha_regimes_free(struct ha_regimes *g)
{
	if (!g)
		return;
	for (size_t b = 0; g->budgets && b < g->count; b++)
		free(g->budgets[b].regimes);
	free(g->budgets);
	free(g);
}

/* The regimes of one budget, through its solver (made here when none is
 * lent); over (H, G, d) when grouped, under kv. */
static enum ha_status budget_regimes(const struct ha_model *model,
                                     const struct ha_constraints *constraints,
                                     int grouped,
                                     const struct ha_kv_constraints *kv,
                                     struct ha_solver *borrowed,
                                     struct ha_budget_regimes *row,
                                     struct ha_error *err)
{
	struct ha_solver *solver = borrowed;
	enum ha_status st = solver ? HA_OK
	                           : ha_solver_new(row->budget, constraints, &solver);
	if (st != HA_OK)
		return ha_solve_failed(err, st, row->budget);
	st = grouped ? ha_regime_compute_grouped(solver, model, kv, &row->regimes,
	                                         &row->count)
	             : ha_regime_compute(model, solver->budget, solver->feasible,
	                                 solver->feasible_count, &row->regimes,
	                                 &row->count);
	if (!borrowed)
		ha_solver_free(solver);
	if (grouped && st == HA_EINFEASIBLE)
		return ha_fail(err, st, "no (heads, kv_heads, head_dim) of budget %"
		               PRIu64 " meets the KV constraints", row->budget);
	if (grouped && st == HA_EUNSUPPORTED)
		return ha_fail(err, st, "%" PRIu64 ": the grouped regimes "
		               "would evaluate up to %" PRIu64 " triples (H, G, d); "
		               "at most %" PRIu64 " are allowed (see LIMITS in "
		               "headalloc(1))", row->budget,
		               ha_grouped_triple_bound(row->budget),
		               HA_GROUPED_MAX_TRIPLES);
	if (st != HA_OK)
		return ha_fail(err, st, "computing the regimes: %s", ha_status_str(st));
	return HA_OK;
}

static enum ha_status regimes_new(const struct ha_model *model,
                                  const struct ha_constraints *constraints,
                                  int grouped,
                                  const struct ha_kv_constraints *kv,
                                  const uint64_t *budgets, size_t budget_count,
                                  struct ha_solver *const *solvers,
                                  struct ha_regimes **out, struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!model || !out || (budget_count && !budgets))
		return ha_fail(err, HA_EINVAL, "regimes need a model and budgets");
	struct ha_regimes *g = calloc(1, sizeof *g);
	if (g && budget_count)
		g->budgets = calloc(budget_count, sizeof *g->budgets);
	if (!g || (budget_count && !g->budgets)) {
		ha_regimes_free(g);
		return ha_fail(err, HA_ENOMEM, "computing the regimes: %s",
		               ha_status_str(HA_ENOMEM));
	}
	g->grouped = grouped;
	for (size_t b = 0; b < budget_count; b++) {
		g->budgets[b].budget = budgets[b];
		g->count++;
		enum ha_status st = budget_regimes(model, constraints, grouped, kv,
		                                   solvers ? solvers[b] : NULL,
		                                   &g->budgets[b], err);
		if (st != HA_OK) {
			ha_regimes_free(g);
			return st;
		}
	}
	*out = g;
	return HA_OK;
}

enum ha_status ha_regimes_new(const struct ha_model *model,
                              const struct ha_constraints *constraints,
                              const uint64_t *budgets, size_t budget_count,
                              struct ha_solver *const *solvers,
                              struct ha_regimes **out, struct ha_error *err)
{
	return regimes_new(model, constraints, 0, NULL, budgets, budget_count,
	                   solvers, out, err);
}

enum ha_status ha_regimes_new_grouped(const struct ha_model *model,
                                      const struct ha_constraints *constraints,
                                      const struct ha_kv_constraints *kv,
                                      const uint64_t *budgets,
                                      size_t budget_count,
                                      struct ha_solver *const *solvers,
                                      struct ha_regimes **out,
                                      struct ha_error *err)
{
	return regimes_new(model, constraints, 1, kv, budgets, budget_count,
	                   solvers, out, err);
}
