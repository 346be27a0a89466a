/* headalloc — exact regimes in the number of samples n (headalloc-model(7), EXACT REGIMES IN N).
 *
 * For a fixed budget D each feasible head dimension d has an error affine
 * in t = 1/n:  MSE_d(t) = a_d + b_d t  with  a_d = c_b d^-s  and
 * b_d = c_v d^(d/2) (rho + (1 - rho) d/D).  The optimum over n >= 1 is the
 * lower envelope of these lines, computed exactly (no sampling) with every
 * quantity in natural logs, so d^(d/2) never overflows.
 *
 * As n grows the optimal d steps up.  The switch from d1 to d2 > d1 is at
 * n = (b_d2 - b_d1) / (a_d1 - a_d2), where both errors are equal; by the
 * solver's tie rule that point belongs to the smaller d1.  (Within a
 * relative 1e-12 of MSE around a switch the solver also keeps d1: its
 * tie band; the table reports the exact crossing.) */
#ifndef HEADALLOC_REGIME_H
#define HEADALLOC_REGIME_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "grouped.h"
#include "model.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One regime: (heads, head_dim) is optimal for n in
 * [exp(log_samples_from), exp(log_samples_to)].  Logs because the ends can
 * pass any double (the last d of a large D takes over near n = e^(d/2 ln d)).
 * The first regime starts at n = 1 (log_samples_from = 0).  The last has
 * unbounded = 1 and log_samples_to = +inf, which is its meaning ("for every
 * larger n"); every other field of every regime is finite. */
struct ha_regime {
	uint64_t heads;
	uint64_t head_dim;
	double log_samples_from; /* ln n where this regime starts (>= 0) */
	double log_samples_to;   /* ln n where it ends; +inf when unbounded */
	int unbounded;           /* 1 for the last regime, else 0 */
	uint64_t kv_heads;       /* G: heads, but for grouped regimes */
};

/* The regimes of several budgets, computed once for every renderer
 * (ha_report_regimes, ha_plot_regimes).  budgets[i] is the table of the
 * i-th budget asked for, in the order asked. */
struct ha_budget_regimes {
	uint64_t budget;
	struct ha_regime *regimes; /* count regimes, sorted by n */
	size_t count;
};
struct ha_regimes {
	struct ha_budget_regimes *budgets;
	size_t count;
	int grouped;   /* 1: the regimes over (H, G, d) (ha_regimes_new_grouped) */
};

/* The regimes of budgets[0..budget_count) under constraints (NULL: none)
 * for the model's s, c_b, c_v and hdi over every n; solvers,
 * when not NULL, holds a solver made for each budget under constraints,
 * borrowed (only read).  On HA_OK *out is a result to free with
 * ha_regimes_free().  HA_EINVAL for a NULL model or out, or budgets NULL
 * with budget_count > 0; HA_EINFEASIBLE when no pair of a budget meets
 * the constraints; the statuses of ha_solver_new and of
 * the regimes' computation (HA_ENOMEM, HA_ENUMERIC).  On failure *out is NULL and err (when not
 * NULL) says which budget, in words ("no (heads, head_dim) pair of
 * budget 7 meets the constraints", "solving: ...", "computing the
 * regimes: ..."). */
HA_API enum ha_status ha_regimes_new(const struct ha_model *model,
                                     const struct ha_constraints *constraints,
                                     const uint64_t *budgets,
                                     size_t budget_count,
                                     struct ha_solver *const *solvers,
                                     struct ha_regimes **out,
                                     struct ha_error *err);

/* ha_regimes_new over (H, G, d) under kv;
 * the result's grouped is 1.  Its failures are those of ha_regimes_new,
 * "no (heads, kv_heads, head_dim) of budget 7 meets the KV constraints"
 * and HA_EUNSUPPORTED ("7: the grouped regimes would evaluate up to N
 * triples (H, G, d); at most M are allowed", the budget first). */
HA_API enum ha_status ha_regimes_new_grouped(const struct ha_model *model,
                                             const struct ha_constraints *constraints,
                                             const struct ha_kv_constraints *kv,
                                             const uint64_t *budgets,
                                             size_t budget_count,
                                             struct ha_solver *const *solvers,
                                             struct ha_regimes **out,
                                             struct ha_error *err);

/* Free a result of ha_regimes_new (NULL accepted). */
HA_API void ha_regimes_free(struct ha_regimes *regimes);

#ifdef __cplusplus
}
#endif
#endif
