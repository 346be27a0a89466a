/* A model's own allocation against the optimum of its budget. */
#include <math.h>

#include <headalloc/compare.h>

enum ha_status ha_compare_model_solver(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       uint64_t heads, uint64_t head_dim,
                                       struct ha_model_comparison *out)
{
	if (!solver || !model || !out || heads == 0 || head_dim == 0 ||
	    heads > HA_BUDGET_MAX / head_dim ||
	    ha_solver_budget(solver) != heads * head_dim)
		return HA_EINVAL;
	uint64_t budget = heads * head_dim;
	enum ha_status st = ha_solver_solve(solver, model, &out->theory);
	if (st != HA_OK)
		return st;
	out->samples = model->samples;
	out->actual.heads = heads;
	out->actual.head_dim = head_dim;
	st = ha_model_eval(model, budget, head_dim, &out->actual.terms);
	if (st != HA_OK)
		return st;
	/* A difference of logs: finite even where either MSE overflows. */
	out->log10_ratio = (out->actual.terms.log_mse -
	                    out->theory.optimum.terms.log_mse) / log(10.0);
	return HA_OK;
}

enum ha_status ha_compare_model(const struct ha_model *model,
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
		st = ha_compare_model_solver(solver, model, heads, head_dim, out);
	ha_solver_free(solver);
	return st;
}
