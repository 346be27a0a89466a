/* The regimes of several budgets as one result (regime.h): what
 * ha_report_regimes and ha_plot_regimes render, computed once. */
#include <inttypes.h>
#include <stdlib.h>

#include <headalloc/regime.h>

#include "base/error_internal.h"
#include "alloc/grouped_internal.h"
#include "alloc/regime_internal.h"
#include "alloc/solver_internal.h"

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
	if (st == HA_EINFEASIBLE)
		return ha_fail(err, st, "no (heads, head_dim) pair of budget %" PRIu64
		               " meets the constraints", row->budget);
	if (st != HA_OK)
		return ha_fail(err, st, "solving: %s", ha_status_str(st));
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
