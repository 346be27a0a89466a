/* A model's own allocation against the optimum of its budget. */
#include <math.h>

#include <headalloc/compare.h>
#include <headalloc/grouped.h>
#include "alloc/solver_internal.h"

/* The optimum of solver's budget with G fixed at kv_heads, as a
 * solution: ha_grouped_solve's optimum, relaxation and certificate. */
static enum ha_status grouped_theory(const struct ha_solver *solver,
                                     const struct ha_model *model, double samples,
                                     uint64_t kv_heads, struct ha_solution *out)
{
	struct ha_kv_constraints kv = {.kv_heads = kv_heads};
	struct ha_grouped_solution g;
	enum ha_status st = ha_grouped_solve(&(struct ha_grouped_request){
		.solver = solver, .model = model, .samples = samples, .kv = &kv}, &g);
	if (st == HA_OK)
		*out = (struct ha_solution){
			.budget = g.budget,
			.samples = samples,
			.optimum = {g.optimum.heads, g.optimum.head_dim, g.optimum.terms},
			.relaxed = {g.relaxed.head_dim, g.relaxed.heads, g.relaxed.log_mse},
			.certificate = {HA_CERT_EXHAUSTIVE, g.certificate.divisors,
			                g.certificate.head_dims, g.certificate.candidates},
		};
	ha_grouped_solution_finish(&g);
	return st;
}

/* Ungrouped (kv_heads = heads) against the solver's certified optimum,
 * grouped against the optimum at the same G. */
static enum ha_status compare(const struct ha_solver *solver,
                              const struct ha_model *model, double samples,
                              uint64_t heads, uint64_t kv_heads,
                              uint64_t head_dim, struct ha_model_comparison *out)
{
	if (!solver || !model || !out || heads == 0 || head_dim == 0 ||
	    kv_heads == 0 || heads % kv_heads != 0 ||
	    heads > HA_BUDGET_MAX / head_dim ||
	    solver->budget != heads * head_dim)
		return HA_EINVAL;
	uint64_t budget = heads * head_dim;
	enum ha_status st = kv_heads == heads
		? ha_solver_solve(solver, model, samples, &out->theory)
		: grouped_theory(solver, model, samples, kv_heads, &out->theory);
	if (st == HA_OK)
		st = ha_model_eval_grouped(model, samples, budget, head_dim, kv_heads,
		                           &out->actual.terms);
	if (st != HA_OK)
		return st;
	out->samples = samples;
	out->actual.heads = heads;
	out->actual.head_dim = head_dim;
	/* A difference of logs: finite even where either MSE overflows. */
	out->log10_ratio = (out->actual.terms.log_mse -
	                    out->theory.optimum.terms.log_mse) / log(10.0);
	return HA_OK;
}

enum ha_status ha_compare_model_solver(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       double samples,
                                       uint64_t heads, uint64_t head_dim,
                                       struct ha_model_comparison *out)
{
	return compare(solver, model, samples, heads, heads, head_dim, out);
}

enum ha_status ha_compare_model(const struct ha_model *model, double samples,
                                const struct ha_constraints *c,
                                uint64_t heads, uint64_t head_dim,
                                struct ha_model_comparison *out)
{
	if (!model || !out || heads == 0 || head_dim == 0 ||
	    heads > HA_BUDGET_MAX / head_dim)
		return HA_EINVAL;
	struct ha_solver *solver = NULL;
	enum ha_status st = ha_solver_new(heads * head_dim, c, &solver);
	if (st == HA_OK)
		st = ha_compare_model_solver(solver, model, samples, heads, head_dim,
		                             out);
	ha_solver_free(solver);
	return st;
}

enum ha_status ha_compare_model_grouped_solver(const struct ha_solver *solver,
                                               const struct ha_model *model,
                                               double samples,
                                               uint64_t heads, uint64_t kv_heads,
                                               uint64_t head_dim,
                                               struct ha_model_comparison *out)
{
	enum ha_status st = compare(solver, model, samples, heads, kv_heads,
	                            head_dim, out);
	if (out)
		out->kv_heads = kv_heads;
	return st;
}
