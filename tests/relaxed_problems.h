/* The relaxed-optimum suites' random problems (test_relaxed.c,
 * test_relaxed_workspace.c): budgets up to 2^63 - 1, constraints (half
 * the time none), and models of which a quarter leave the seeds' γ, κ
 * and E. */
#ifndef HEADALLOC_TESTS_RELAXED_PROBLEMS_H
#define HEADALLOC_TESTS_RELAXED_PROBLEMS_H

#include <stdint.h>

#include <headalloc/headalloc.h>

#include "test_random.h"

static inline uint64_t pick_budget(uint64_t *rng)
{
	static const uint64_t special[] = {
		1, 2, 7, 512, 4096, 4544, 720720, UINT64_C(4611686018427387904),
		UINT64_C(9223372036854775807), UINT64_C(897612484786617600),
	};
	uint64_t r = next_random(rng) % 8;
	if (r == 0)
		return special[next_random(rng) % (sizeof special / sizeof *special)];
	if (r < 3)
		return 1 + next_random(rng) % 1000000000000;
	return 1 + next_random(rng) % 65536;
}

static inline struct ha_constraints pick_constraints(uint64_t *rng, uint64_t D)
{
	struct ha_constraints c = {0, 0, 0, 0, 0};
	if (next_random(rng) % 2)
		return c;
	uint64_t top = D < 4096 ? D : 4096;
	if (next_random(rng) % 3 == 0)
		c.head_dim_multiple = 1 + next_random(rng) % 64;
	if (next_random(rng) % 3 == 0)
		c.min_head_dim = 1 + next_random(rng) % top;
	if (next_random(rng) % 3 == 0)
		c.max_heads = 1 + next_random(rng) % top;
	if (next_random(rng) % 3 == 0)
		c.min_heads = 1 + next_random(rng) % 8;
	return c;
}

/* A model, and in *samples the n it is solved at (drawn first). */
static inline struct ha_model pick_model(uint64_t *rng, double *samples)
{
	struct ha_model m = ha_model_defaults(); /* the fields not drawn below */
	*samples = log_uniform(rng, 1.001, 1e300);
	m.smoothness = log_uniform(rng, 0.05, 8);
	m.bias_coef = log_uniform(rng, 1e-6, 1e6);
	m.var_coef = log_uniform(rng, 1e-6, 1e6);
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	/* The old solve knew only γ = 1/2, κ = 0 in its starting point, and
	 * E = 0; a quarter of the problems leave those. */
	if (next_random(rng) % 4 == 0) {
		m.var_rate = next_random(rng) % 4 == 0 ? 0.0 : log_uniform(rng, 1e-3, 4);
		m.var_power = next_random(rng) % 2 ? 0.0 : log_uniform(rng, 1e-3, 8);
		m.irreducible = next_random(rng) % 2 ? 0.0 : log_uniform(rng, 1e-9, 1);
	}
	return m;
}

#endif
