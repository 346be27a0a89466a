/* One allocation as a result (allocation.h): the solution, and on request
 * the feasible pairs and every divisor's error. */
#include <stdlib.h>

#include <headalloc/allocation.h>

#include "base/error_internal.h"
#include "alloc/solver_internal.h"

void ha_allocation_result_free(struct ha_allocation_result *a)
{
	if (!a)
		return;
	free(a->candidates);
	free(a->divisors);
	free(a);
}

/* Every divisor's error, the feasible ones marked. */
static enum ha_status landscape(struct ha_allocation_result *a,
                                const struct ha_solver *solver,
                                const struct ha_model *model, double samples)
{
	uint64_t *divisors = NULL;
	size_t n = 0, nfeasible = 0;
	const uint64_t *feasible = ha_solver_feasible(solver, &nfeasible);
	enum ha_status st = ha_divisors(a->budget, &divisors, &n);
	if (st != HA_OK)
		return st;
	a->divisors = malloc((n ? n : 1) * sizeof *a->divisors);
	if (!a->divisors) {
		free(divisors);
		return HA_ENOMEM;
	}
	/* Both lists ascend: walk them together. */
	for (size_t i = 0, j = 0; st == HA_OK && i < n; i++) {
		struct ha_divisor_error *e = &a->divisors[i];
		e->head_dim = divisors[i];
		e->heads = a->budget / divisors[i];
		st = ha_model_eval(model, samples, a->budget, divisors[i], &e->terms);
		e->feasible = j < nfeasible && feasible[j] == divisors[i];
		j += (size_t)e->feasible;
	}
	a->divisor_count = n;
	a->feasible_count = nfeasible;
	free(divisors);
	return st;
}

enum ha_status ha_allocation_result_new(uint64_t budget,
                                        const struct ha_constraints *constraints,
                                        const struct ha_solver *lent,
                                        const struct ha_model *model,
                                        double samples, unsigned parts,
                                        struct ha_allocation_result **out,
                                        struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!model || !out)
		return ha_fail(err, HA_EINVAL, "an allocation needs a model");
	struct ha_solver *own = NULL;
	enum ha_status st = lent ? HA_OK : ha_solver_new(budget, constraints, &own);
	if (st != HA_OK)
		return ha_solve_failed(err, st, budget);
	const struct ha_solver *solver = lent ? lent : own;
	struct ha_allocation_result *a = calloc(1, sizeof *a);
	if (!a) {
		ha_solver_free(own);
		return ha_fail(err, HA_ENOMEM, "solving: %s", ha_status_str(HA_ENOMEM));
	}
	a->budget = solver->budget;
	st = ha_solver_solve(solver, model, samples, &a->solution);
	if (st == HA_OK && (parts & HA_ALLOCATION_CANDIDATES))
		st = ha_solver_enumerate(solver, model, samples, &a->candidates,
		                         &a->candidate_count);
	if (st != HA_OK) {
		ha_solve_failed(err, st, budget);
	} else if (parts & HA_ALLOCATION_DIVISORS) {
		st = landscape(a, solver, model, samples);
		if (st != HA_OK)
			ha_fail(err, st, "drawing the landscape: %s", ha_status_str(st));
	}
	ha_solver_free(own);
	if (st != HA_OK) {
		ha_allocation_result_free(a);
		return st;
	}
	*out = a;
	return HA_OK;
}
