/* A root moved to a new n (ha_relaxed_root_move): a root that last
 * answered any other n of the same problem -- far away, next door, or the
 * same -- answers as a fresh root asking every question of the
 * definition, from any estimate. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "alloc/solver_internal.h"

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static double log_uniform(uint64_t *state, double lo, double hi)
{
	double t = (double)(next_random(state) >> 11) / 9007199254740992.0;
	return exp(log(lo) + t * (log(hi) - log(lo)));
}

Test(relaxed_path, a_root_after_any_other_n_answers_as_a_fresh_one, .timeout = 600)
{
	uint64_t rng = 20261201;
	size_t compared = 0, interior = 0;
	for (int problem = 0; problem < 300; problem++) {
		uint64_t D = next_random(&rng) % 3 ? 1 + next_random(&rng) % 65536
		                                   : 1 + next_random(&rng) % 1000000000000;
		struct ha_model m = ha_model_defaults();
		m.smoothness = log_uniform(&rng, 0.05, 8);
		m.bias_coef = log_uniform(&rng, 1e-6, 1e6);
		m.var_coef = log_uniform(&rng, 1e-6, 1e6);
		m.hdi = next_random(&rng) % 2 ? 1.0 : (double)(next_random(&rng) % 1000) / 1000;
		double n_samples = log_uniform(&rng, 1.001, 1e300);
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
		struct ha_relaxed_root shared;
		ha_relaxed_root_init(&shared, &fn, 1.0, (double)D);
		double last = NAN;
		for (int k = 0; k < 60; k++) {
			uint64_t r = next_random(&rng) % 4;
			n_samples = r == 0 ? log_uniform(&rng, 1.001, 1e300)
			          : r == 1 ? nextafter(n_samples, INFINITY)
			          : r == 2 ? n_samples * (1.0 + 1e-6 * (double)(next_random(&rng) % 100))
			          : n_samples;
			if (!(n_samples <= 1e300))
				n_samples = 1e300;
			ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
			struct ha_relaxed_root fresh;
			ha_relaxed_root_init(&fresh, &fn, 1.0, (double)D);
			double want = ha_relaxed_root_solve(&fresh, NAN, 0.0);
			ha_relaxed_root_move(&shared, &fn);
			double estimate = next_random(&rng) % 2 ? last
			                : log_uniform(&rng, 1.0, (double)D + 1.0);
			double got = ha_relaxed_root_solve(&shared, estimate, 0.0);
			cr_assert(memcmp(&got, &want, sizeof got) == 0,
			          "D=%llu n=%.17g s=%.17g hdi=%.17g: %.17g, defined %.17g",
			          (unsigned long long)D, n_samples, m.smoothness, m.hdi, got, want);
			interior += got > 1.0 && got < (double)D;
			compared++;
			last = got;
		}
	}
	cr_assert_eq(compared, 18000);
	cr_assert_gt(interior, 9000);
}
