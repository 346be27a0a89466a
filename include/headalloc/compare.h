/* headalloc — a model's actual allocation against the theory's optimum.
 *
 * A published model chose (heads, head_dim) for its budget D = heads *
 * head_dim and its training-set size n; the theory's optimum for the same
 * D and n, under the same constraints, tells how far from optimal that
 * choice is in the error model. */
#ifndef HEADALLOC_COMPARE_H
#define HEADALLOC_COMPARE_H

#include "export.h"

#include <stdint.h>

#include "model.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A model's actual allocation against the theory's at its budget and n.
 * ha_compare_model() fills samples, actual, theory and log10_ratio; name,
 * note and samples_assumed are labels the caller sets for the report
 * (ha_compare_model leaves them untouched). */
struct ha_model_comparison {
	const char *name;        /* not owned */
	const char *note;        /* not owned; may be NULL */
	double samples;          /* the n compared at */
	int samples_assumed;     /* 1: the source gave no size; samples is assumed */
	struct ha_allocation actual;
	struct ha_solution theory;
	double log10_ratio;      /* log10(mse_actual / mse_theory), finite */
	uint64_t kv_heads;       /* a label: the model's key/value heads, as
	                            published (0: not given, taken as heads) */
};

/* Compare the allocation heads x head_dim (budget heads * head_dim, at most
 * HA_BUDGET_MAX) with the optimum of the same budget for model at n =
 * samples under constraints c (NULL for none).  The actual
 * allocation need not meet c.  On HA_OK *out holds the comparison.
 * Errors: HA_EINVAL for a NULL model or out, a zero heads or head_dim, a
 * budget beyond HA_BUDGET_MAX, or an invalid model or n; HA_EINFEASIBLE when
 * no pair of the budget meets c; HA_ENOMEM and HA_ENUMERIC as ha_solve.
 * On failure *out is unspecified. */
HA_API enum ha_status ha_compare_model(const struct ha_model *model,
                                       double samples,
                                       const struct ha_constraints *c,
                                       uint64_t heads, uint64_t head_dim,
                                       struct ha_model_comparison *out);

/* The same with a solver already made for the budget heads * head_dim
 * (and the constraints), so that models sharing a budget, or a budget
 * already checked, are not factorised again.  HA_EINVAL, besides the
 * above, when the solver's budget is not heads * head_dim. */
HA_API enum ha_status ha_compare_model_solver(const struct ha_solver *solver,
                                              const struct ha_model *model,
                                              double samples,
                                              uint64_t heads,
                                              uint64_t head_dim,
                                              struct ha_model_comparison *out);

/* The same for a model whose heads share kv_heads key/value heads
 * (grouped-query attention, headalloc-model(7), PUBLIC MODELS): actual is
 * the grouped error at (heads, kv_heads, head_dim) and theory the
 * optimum over the budget's triples (H, G, d) with G fixed at kv_heads
 * (ha_grouped_solve): its heads and head_dim, the relaxation's head_dim
 * at that G, an exhaustive certificate (divisors, feasible head
 * dimensions, triples evaluated).  out->kv_heads is set.  kv_heads =
 * heads is ha_compare_model_solver.  HA_EINVAL, besides the above, when
 * kv_heads is 0 or does not divide heads; HA_EINFEASIBLE when no
 * feasible head dimension d has kv_heads dividing D/d; the other
 * statuses of ha_grouped_solve. */
HA_API enum ha_status ha_compare_model_grouped_solver(const struct ha_solver *solver,
                                                      const struct ha_model *model,
                                                      double samples,
                                                      uint64_t heads,
                                                      uint64_t kv_heads,
                                                      uint64_t head_dim,
                                                      struct ha_model_comparison *out);

#ifdef __cplusplus
}
#endif
#endif
