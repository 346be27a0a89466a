/* The grouped sweep (ha_sweep_request.kv) against the single query:
 * every row is what ha_grouped_solve gives alone for its (n, D) under the
 * sweep's KV constraints (the optimum's (H, G, d), its error, KV cache
 * and the relaxation's x*), in order, on one thread and on four, for
 * random budgets, values of n, group_hdi and constraints (a fixed G or a
 * bound on G d); the fits are over those x*. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/grouped.h>
#include <headalloc/solver.h>
#include <headalloc/sweep.h>

#include "alloc/solver_internal.h"
#include "sweep/sweep_internal.h"

/* 700 n x 3 budgets: over the 2048 rows from which a sweep takes threads. */
#define POINTS 700
#define BUDGETS 3

static uint64_t state = 88172645463325252u;

static double uniform(void) /* xorshift64, [0, 1) */
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (double)(state >> 11) / 9007199254740992.0;
}

static double samples[POINTS];

/* One random sweep: budgets 2^a 3^b 5^c (a >= 6, so that every fixed
 * G <= 8 divides some H), n log-uniform in [1e3, 1e14], group_hdi in
 * [0, 1), and a fixed G in {1, 2, 4, 8} or G d <= K, K in [16, 2048]. */
static void check_random_sweep(size_t threads, int fixed)
{
	uint64_t budgets[BUDGETS];
	for (size_t b = 0; b < BUDGETS; b++) {
		budgets[b] = (uint64_t)1 << (6 + (int)(uniform() * 7));
		budgets[b] *= uniform() < 0.5 ? 3 : 1;
		budgets[b] *= uniform() < 0.5 ? 5 : 1;
	}
	for (size_t i = 0; i < POINTS; i++)
		samples[i] = exp(log(1e3) + uniform() * (log(1e14) - log(1e3)));
	struct ha_model m = ha_model_defaults();
	m.group_hdi = uniform();
	m.hdi = 0.5 + 0.5 * uniform();
	struct ha_kv_constraints kv = {0};
	if (fixed)
		kv.kv_heads = (uint64_t)1 << (int)(uniform() * 4);
	else
		kv.max_kv_dim = 16 + (uint64_t)(uniform() * 2033);
	struct ha_kv_shape shape = {.layers = 1 + (uint64_t)(uniform() * 80),
	                            .kv_bytes = 2};
	struct ha_sweep *s = NULL;
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = BUDGETS,
		.samples = {.values = samples, .count = POINTS}, .threads = threads,
		.kv = &kv, .shape = &shape,
	}, &s, NULL), HA_OK);
	struct ha_solver *solvers[BUDGETS];
	for (size_t b = 0; b < BUDGETS; b++)
		cr_assert_eq(ha_solver_new(budgets[b], NULL, &solvers[b]), HA_OK);
	size_t at = 0, count = 0, grouped = 0;
	const struct ha_sweep_row *rows;
	while (ha_sweep_rows(s, &rows, &count, NULL) == HA_OK && count) {
		for (size_t k = 0; k < count; k++, at++) {
			size_t i = at / BUDGETS, b = at % BUDGETS;
			struct ha_grouped_solution want;
			cr_assert_eq(ha_grouped_solve(&(struct ha_grouped_request){
				.solver = solvers[b], .model = &m, .samples = samples[i], .kv = &kv,
				.shape = &shape}, &want), HA_OK);
			const struct ha_sweep_row *r = &rows[k];
			cr_assert_eq(r->budget, budgets[b]);
			cr_assert_eq(r->samples, samples[i]);
			cr_assert_eq(r->heads, want.optimum.heads, "row %zu", at);
			cr_assert_eq(r->kv_heads, want.optimum.kv_heads, "row %zu", at);
			cr_assert_eq(r->head_dim, want.optimum.head_dim);
			cr_assert_eq(r->kv_dim, want.optimum.kv_dim);
			cr_assert_eq(r->kv_cache_bytes_per_token,
			             want.optimum.kv_cache_bytes_per_token);
			cr_assert_eq(r->kv_dim, r->kv_heads * r->head_dim);
			cr_assert_eq(r->kv_cache_bytes_per_token,
			             2 * r->kv_dim * shape.layers * shape.kv_bytes);
			cr_assert_eq(r->mse, want.optimum.terms.mse);
			cr_assert_eq(r->log_mse, want.optimum.terms.log_mse);
			cr_assert_eq(r->relaxed_head_dim, want.relaxed.head_dim);
			cr_assert_eq(r->relaxed_heads, want.relaxed.heads);
			cr_assert(r->heads % r->kv_heads == 0);
			if (fixed)
				cr_assert_eq(r->kv_heads, kv.kv_heads);
			else
				cr_assert_leq(r->kv_dim, kv.max_kv_dim);
			grouped += r->kv_heads < r->heads;
			ha_grouped_solution_finish(&want);
		}
	}
	cr_assert_eq(at, (size_t)POINTS * BUDGETS);
	/* The constraint binds somewhere: the rows are not the ungrouped ones. */
	cr_assert_gt(grouped, 0);
	for (size_t b = 0; b < BUDGETS; b++) {
		struct ha_sweep_fit power, logarithmic;
		cr_assert_eq(ha_sweep_budget_fits(s, b, &power, &logarithmic), HA_OK);
		cr_assert_eq(power.points, (size_t)POINTS);
		ha_solver_free(solvers[b]);
	}
	ha_sweep_free(s);
}

Test(sweep_grouped, fixed_kv_heads_one_thread) { check_random_sweep(1, 1); }
Test(sweep_grouped, fixed_kv_heads_four_threads) { check_random_sweep(4, 1); }
Test(sweep_grouped, max_kv_dim_one_thread) { check_random_sweep(1, 0); }
Test(sweep_grouped, max_kv_dim_four_threads) { check_random_sweep(4, 0); }

Test(sweep_grouped, refused)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budget = 4096;
	samples[0] = 1e9;
	struct ha_kv_constraints bad = {.kv_heads = 8, .max_kv_heads = 4};
	struct ha_sweep *s = NULL;
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .budgets = &budget, .budget_count = 1,
		.samples = {.values = samples, .count = 1}, .kv = &bad}, &s, NULL), HA_EINVAL);
	cr_assert_null(s);
	uint64_t huge = 897612484786617600u; /* far over HA_GROUPED_MAX_TRIPLES */
	struct ha_kv_constraints g = {.kv_heads = 1};
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .budgets = &huge, .budget_count = 1,
		.samples = {.values = samples, .count = 1}, .kv = &g}, &s, NULL), HA_EUNSUPPORTED);
	/* A fixed G that divides no H of the budget: the row is infeasible. */
	uint64_t odd = 9;
	struct ha_kv_constraints two = {.kv_heads = 2};
	const struct ha_sweep_row *rows;
	size_t count;
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .budgets = &odd, .budget_count = 1,
		.samples = {.values = samples, .count = 1}, .kv = &two}, &s, NULL), HA_OK);
	cr_assert_eq(ha_sweep_rows(s, &rows, &count, NULL), HA_EINFEASIBLE);
	cr_assert_eq(count, 0);
	ha_sweep_free(s);
}

/* The triples of budget D counted by brute force: every (d, G) with
 * d | D and G | D/d (the bound prod (e_i + 1)(e_i + 2)/2 is this count). */
static uint64_t triples_counted(uint64_t budget)
{
	uint64_t n = 0;
	for (uint64_t d = 1; d <= budget; d++) {
		if (budget % d)
			continue;
		uint64_t heads = budget / d;
		for (uint64_t g = 1; g <= heads; g++)
			n += heads % g == 0;
	}
	return n;
}

/* The joint bounds of a grouped sweep, before any work: values of n x the
 * budgets' (triples + a row's share) within HA_GROUPED_MAX_SWEEP_WORK,
 * exactly at the edge, and the budgets' triples together within
 * HA_GROUPED_MAX_TRIPLES (each alone is). */
Test(sweep_grouped, joint_bounds_before_any_work)
{
	uint64_t budget = 5040; /* 2^4 3^2 5 7 */
	uint64_t triples = triples_counted(budget);
	cr_assert_eq(ha_grouped_triple_bound(budget), triples);
	size_t edge = (size_t)(HA_GROUPED_MAX_SWEEP_WORK /
	                       (triples + HA_GROUPED_ROW_WORK));
	struct ha_error err;
	cr_assert_eq(ha_grouped_sweep_check(&budget, 1, edge, &err), HA_OK);
	cr_assert_eq(ha_grouped_sweep_check(&budget, 1, edge + 1, &err),
	             HA_EUNSUPPORTED);
	cr_assert(strstr(err.message, "above the limit"), "%s", err.message);
	/* ha_sweep_new refuses it too, before a row is solved */
	struct ha_model m = ha_model_defaults();
	struct ha_kv_constraints any = {0};
	struct ha_sweep *s = NULL;
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .budgets = &budget, .budget_count = 1,
		.samples = {.count = edge + 1, .from = 1e9, .to = 1e10}, .kv = &any}, &s, &err),
		HA_EUNSUPPORTED);
	cr_assert_null(s);
	/* three budgets of 1837080 triples each: each within the limit, not
	 * the three together (they are listed once and kept) */
	uint64_t rich[3] = {963761198400u, 1124388064800u, 963761198400u};
	cr_assert_eq(ha_grouped_sweep_check(rich, 2, 1, &err), HA_OK);
	cr_assert_eq(ha_grouped_sweep_check(rich, 3, 1, &err), HA_EUNSUPPORTED);
	cr_assert(strstr(err.message, "in all"), "%s", err.message);
}
