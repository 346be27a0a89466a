/* The tests' pseudo-random numbers (xorshift64*, seeded by the test so
 * that a failure repeats): uniform and log-uniform doubles, and values of
 * every kind a YAML writer must spell (.inf, -.inf, .nan, 0, integers,
 * huge and tiny magnitudes). */
#ifndef HEADALLOC_TESTS_TEST_RANDOM_H
#define HEADALLOC_TESTS_TEST_RANDOM_H

#include <math.h>
#include <stdint.h>

static inline uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

static inline double uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random(state) >> 11) / 9007199254740992.0;
}

static inline double log_uniform(uint64_t *state, double lo, double hi)
{
	return exp(uniform(state, log(lo), log(hi)));
}

/* .inf, -.inf, .nan, 0, small integers, or ± a log-uniform magnitude. */
static inline double random_value(uint64_t *rng)
{
	switch (next_random(rng) % 10) {
	case 0:
		return INFINITY;
	case 1:
		return -INFINITY;
	case 2:
		return NAN;
	case 3:
		return 0.0;
	case 4:
		return (double)(next_random(rng) % 1000);
	default:
		return (next_random(rng) % 2 ? -1 : 1) * log_uniform(rng, 1e-300, 1e300);
	}
}

#endif
