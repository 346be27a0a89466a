/* The solver suites' random problems (test_solver.c,
 * test_solver_relaxation.c, test_solver_general.c): budgets (special and
 * random), constraints (half the time none), models of the seeds' law,
 * and feasibility under the constraints decided by hand. */
#ifndef HEADALLOC_TESTS_SOLVER_PROBLEMS_H
#define HEADALLOC_TESTS_SOLVER_PROBLEMS_H

#include <stdint.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "test_random.h"

static inline int feasible(uint64_t D, uint64_t d,
                           const struct ha_constraints *c)
{
	uint64_t H = D / d;
	return (!c->head_dim_multiple || d % c->head_dim_multiple == 0) &&
	       (!c->min_head_dim || d >= c->min_head_dim) &&
	       (!c->max_head_dim || d <= c->max_head_dim) &&
	       (!c->min_heads || H >= c->min_heads) &&
	       (!c->max_heads || H <= c->max_heads);
}

static inline uint64_t pick_budget(uint64_t *rng)
{
	static const uint64_t special[] = {
		1, 2, 7, 65521, 4544, 512, 4096, 12288, 720720, 1081080,
		UINT64_C(4611686018427387904), UINT64_C(9223372036854775783),
		UINT64_C(9223372036854775807), UINT64_C(897612484786617600),
		UINT64_C(9223371873002223329),
	};
	uint64_t r = next_random(rng) % 10;
	if (r == 0)
		return special[next_random(rng) % (sizeof special / sizeof *special)];
	if (r < 3)
		return 1 + next_random(rng) % 1000000;
	return 1 + next_random(rng) % 65536;
}

static inline uint64_t maybe(uint64_t *rng, uint64_t value)
{
	return next_random(rng) % 4 == 0 ? value : 0;
}

static inline struct ha_constraints pick_constraints(uint64_t *rng, uint64_t D)
{
	static const uint64_t multiples[] = {2, 3, 4, 8, 16, 64};
	struct ha_constraints c = {0, 0, 0, 0, 0};
	if (next_random(rng) % 2)
		return c;
	c.head_dim_multiple = maybe(rng, multiples[next_random(rng) % 6]);
	uint64_t a = 1 + next_random(rng) % (D < 512 ? D : 512);
	uint64_t b = 1 + next_random(rng) % (D < 512 ? D : 512);
	c.min_head_dim = maybe(rng, a < b ? a : b);
	c.max_head_dim = maybe(rng, a < b ? b : a);
	a = 1 + next_random(rng) % (D < 4096 ? D : 4096);
	b = 1 + next_random(rng) % (D < 4096 ? D : 4096);
	c.min_heads = maybe(rng, a < b ? a : b);
	c.max_heads = maybe(rng, a < b ? b : a);
	return c;
}

/* A model, and in *samples the n it is solved at (drawn first). */
static inline struct ha_model pick_model(uint64_t *rng, double *samples)
{
	struct ha_model m = ha_model_defaults();
	*samples = log_uniform(rng, 1.001, 1e300);
	m.smoothness = log_uniform(rng, 0.05, 8);
	m.bias_coef = log_uniform(rng, 1e-6, 1e6);
	m.var_coef = log_uniform(rng, 1e-6, 1e6);
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	return m;
}

#endif
