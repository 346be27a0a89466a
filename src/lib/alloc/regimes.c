/* The regimes of several budgets as one result (regime.h): what
 * ha_report_regimes and ha_plot_regimes render, computed once. */
#include <inttypes.h>
#include <stdlib.h>

#include <headalloc/regime.h>

#include "base/error_internal.h"

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
 * lent). */
static enum ha_status budget_regimes(const struct ha_model *model,
                                     const struct ha_constraints *constraints,
                                     struct ha_solver *borrowed,
                                     struct ha_budget_regimes *row,
                                     struct ha_error *err)
{
	struct ha_solver *solver = borrowed;
	enum ha_status st = solver ? HA_OK
	                           : ha_solver_new(row->budget, constraints, &solver);
	if (st == HA_EINFEASIBLE)
		return ha_fail(err, st, "no (heads, head_dim) pair of budget %" PRIu64
		               " meets the constraints", row->budget);
	if (st != HA_OK)
		return ha_fail(err, st, "solving: %s", ha_status_str(st));
	st = ha_regime_compute_solver(solver, model, &row->regimes, &row->count);
	if (!borrowed)
		ha_solver_free(solver);
	if (st != HA_OK)
		return ha_fail(err, st, "computing the regimes: %s", ha_status_str(st));
	return HA_OK;
}

enum ha_status ha_regimes_new(const struct ha_model *model,
                              const struct ha_constraints *constraints,
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
	for (size_t b = 0; b < budget_count; b++) {
		g->budgets[b].budget = budgets[b];
		g->count++;
		enum ha_status st = budget_regimes(model, constraints,
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
