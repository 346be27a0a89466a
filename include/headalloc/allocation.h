/* headalloc — one allocation as a result: the optimum with its relaxed
 * optimum and certificate, and on request every feasible pair (best
 * first) and every divisor's error (the landscape), computed once for
 * every renderer (ha_report_allocation, ha_plot_allocation). */
#ifndef HEADALLOC_ALLOCATION_H
#define HEADALLOC_ALLOCATION_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an allocation result holds besides the solution. */
#define HA_ALLOCATION_CANDIDATES 1u /* every feasible pair, best first */
#define HA_ALLOCATION_DIVISORS 2u   /* every divisor's error (the landscape) */

/* One divisor d of D (heads D / d) and its error; feasible when the
 * constraints allow it. */
struct ha_divisor_error {
	uint64_t heads, head_dim;
	struct ha_terms terms;
	int feasible;
};

struct ha_allocation_result {
	uint64_t budget;
	struct ha_solution solution;        /* optimum, relaxed, certificate */
	struct ha_allocation *candidates;   /* HA_ALLOCATION_CANDIDATES, else NULL */
	size_t candidate_count;
	struct ha_divisor_error *divisors;  /* HA_ALLOCATION_DIVISORS: ascending
	                                       head_dim; else NULL */
	size_t divisor_count;
	size_t feasible_count;              /* of the divisors */
};

/* Solve budget D (1 <= D <= HA_BUDGET_MAX) under constraints (NULL: none)
 * for model at n = samples, with solver when not NULL (made for D
 * under the same constraints, only read), and add the parts asked for
 * (HA_ALLOCATION_* or'ed).  On HA_OK *out is a result to free with
 * ha_allocation_result_free().  The statuses of ha_solver_new and
 * ha_solver_solve (HA_EINFEASIBLE: no pair meets the constraints),
 * HA_EINVAL for a NULL model or out (or an invalid model or n), HA_ENOMEM; err (when not NULL) in
 * words: "no (heads, head_dim) pair of budget 7 meets the constraints",
 * "solving: ...". */
HA_API enum ha_status ha_allocation_result_new(uint64_t budget,
                                               const struct ha_constraints *constraints,
                                               const struct ha_solver *solver,
                                               const struct ha_model *model,
                                               double samples, unsigned parts,
                                               struct ha_allocation_result **out,
                                               struct ha_error *err);

/* Free a result (NULL accepted). */
HA_API void ha_allocation_result_free(struct ha_allocation_result *result);

#ifdef __cplusplus
}
#endif
#endif
