/* The sweep's integer search through a memo (solver_internal.h) against
 * the plain search (ha_solver_solve_integer), to the bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "test_random.h"

#include "alloc/solver_internal.h"

/* A model, and in *samples an n to solve it at (drawn first). */
static struct ha_model random_model(uint64_t *rng, double *samples)
{
	struct ha_model m = ha_model_defaults();
	*samples = log_uniform(rng, 1.0001, 1e300);
	if (next_random(rng) % 4 == 0)
		return m;
	m.smoothness = log_uniform(rng, 0.05, 8);
	m.bias_coef = log_uniform(rng, 1e-6, 1e6);
	m.var_coef = log_uniform(rng, 1e-6, 1e6);
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	if (next_random(rng) % 3 == 0) {
		m.irreducible = log_uniform(rng, 1e-9, 1);
		m.var_rate = uniform(rng, 0, 2);
		m.var_power = next_random(rng) % 2 ? 0 : uniform(rng, 0, 3);
	}
	if (next_random(rng) % 4 == 0) {
		ha_model_set_log_bias_coef(&m, uniform(rng, -800, 800));
		ha_model_set_log_var_coef(&m, uniform(rng, -800, 800));
	}
	return m;
}

/* The table's integer search through a memo finds the optimum of the
 * plain search, to the bit, for random budgets, constraints and models
 * (a memo a model, reused across n as a sweep reuses it). */
Test(integer_memo, the_integer_memo_finds_the_plain_optimum, .timeout = 600)
{
	uint64_t rng = 31337;
	size_t compared = 0, bracketed = 0, hdi_one = 0;
	for (int problem = 0; problem < 300; problem++) {
		uint64_t D = next_random(&rng) % 4 == 0
			? UINT64_C(897612484786617600) >> (next_random(&rng) % 40)
			: 1 + next_random(&rng) % 100000;
		struct ha_constraints c = {0, 0, 0, 0, 0};
		if (next_random(&rng) % 3 == 0)
			c.min_head_dim = 1 + next_random(&rng) % 64;
		if (next_random(&rng) % 3 == 0)
			c.head_dim_multiple = 1 + next_random(&rng) % 8;
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		struct ha_integer_memo *memo;
		cr_assert_eq(ha_integer_memo_new(s, &memo), HA_OK);
		size_t feasible;
		ha_solver_feasible(s, &feasible);
		cr_assert_eq(memo == NULL, feasible > HA_INTEGER_MEMO_MAX);
		double base_samples;
		struct ha_model base = random_model(&rng, &base_samples);
		for (int k = 0; k < 50; k++) {
			double n_samples = base_samples;
			struct ha_model m = base;
			if (k % 10 == 9)
				m = random_model(&rng, &n_samples);
			else
				n_samples = log_uniform(&rng, 1.0001, 1e300);
			if (memo && k > 0 && (k % 10 == 9 || k % 10 == 0)) {
				/* another model: a memo of its own */
				ha_integer_memo_free(memo);
				cr_assert_eq(ha_integer_memo_new(s, &memo), HA_OK);
			}
			struct ha_allocation plain, memoised;
			struct ha_certificate cert;
			cr_assert_eq(ha_solver_solve_integer(s, &m, n_samples, &plain, &cert), HA_OK);
			cr_assert_eq(memo ? ha_solver_solve_integer_next(s, memo, &m, n_samples,
			                                                 log(n_samples), &memoised)
			                  : ha_solver_solve_integer(s, &m, n_samples, &memoised, NULL),
			             HA_OK);
			cr_assert(memcmp(&plain, &memoised, sizeof plain) == 0,
			          "D=%llu n=%.17g: d %llu / %llu",
			          (unsigned long long)D, n_samples,
			          (unsigned long long)memoised.head_dim,
			          (unsigned long long)plain.head_dim);
			/* The terms of the optimum are ha_model_eval's, bit for bit
			 * (the memo keeps its powers and logarithms of d; a solve
			 * without a memo takes the solver's logarithms where hdi = 1),
			 * and its value is ha_model_log_relative_mse's minimum. */
			struct ha_terms t;
			cr_assert_eq(ha_model_eval(&m, n_samples, D, memoised.head_dim, &t), HA_OK);
			cr_assert(memcmp(&t, &memoised.terms, sizeof t) == 0 &&
			          memcmp(&t, &plain.terms, sizeof t) == 0,
			          "D=%llu n=%.17g d=%llu: the terms differ",
			          (unsigned long long)D, n_samples,
			          (unsigned long long)memoised.head_dim);
			compared++;
			hdi_one += m.hdi == 1.0;
			bracketed += cert.method == HA_CERT_BRACKET;
		}
		ha_integer_memo_free(memo);
		ha_solver_free(s);
	}
	cr_assert_gt(compared, 10000);
	cr_assert_gt(bracketed, compared / 2);
	cr_assert_gt(hdi_one, compared / 10);
}

/* A sweep's next rows (ha_solver_solve_integer_next and
 * ha_relaxed_solver_solve_next: the model kept but for n, so not checked
 * again) give the plain solves' optima, to the bit, and refuse a bad n. */
Test(integer_memo, a_sweeps_next_rows_are_the_plain_solves, .timeout = 600)
{
	uint64_t rng = 4242;
	size_t compared = 0;
	for (int problem = 0; problem < 200; problem++) {
		uint64_t D = 1 + next_random(&rng) % 100000;
		struct ha_solver *s;
		if (ha_solver_new(D, NULL, &s) != HA_OK)
			continue;
		struct ha_integer_memo *memo;
		struct ha_relaxed_solver *next_w, *plain_w;
		cr_assert_eq(ha_integer_memo_new(s, &memo), HA_OK);
		cr_assert_eq(ha_relaxed_solver_new(s, &next_w), HA_OK);
		cr_assert_eq(ha_relaxed_solver_new(s, &plain_w), HA_OK);
		if (!memo) {
			ha_relaxed_solver_free(next_w);
			ha_relaxed_solver_free(plain_w);
			ha_solver_free(s);
			continue;
		}
		double first_samples; /* drawn, not used: each row draws its own */
		struct ha_model m = random_model(&rng, &first_samples);
		for (int k = 0; k < 40; k++) {
			double n_samples = log_uniform(&rng, 1.0001, 1e300);
			double ln = log(n_samples);
			struct ha_allocation plain, next;
			cr_assert_eq(ha_solver_solve_integer(s, &m, n_samples, &plain, NULL), HA_OK);
			cr_assert_eq(ha_solver_solve_integer_next(s, memo, &m, n_samples, ln, &next), HA_OK);
			cr_assert(memcmp(&plain, &next, sizeof plain) == 0,
			          "D=%llu n=%.17g: d %llu / %llu", (unsigned long long)D,
			          n_samples, (unsigned long long)next.head_dim,
			          (unsigned long long)plain.head_dim);
			struct ha_relaxed r_plain, r_next;
			double u;
			cr_assert_eq(ha_relaxed_solver_solve(plain_w, &m, n_samples, &r_plain), HA_OK);
			cr_assert_eq(ha_relaxed_solver_solve_next(next_w, &m, n_samples, ln, &r_next, &u),
			             HA_OK);
			cr_assert(r_plain.head_dim == r_next.head_dim &&
			          r_plain.heads == r_next.heads && u == log(r_next.head_dim),
			          "D=%llu n=%.17g: x* %.17g / %.17g", (unsigned long long)D,
			          n_samples, r_next.head_dim, r_plain.head_dim);
			compared++;
		}
		/* n is still checked */
		struct ha_allocation a;
		struct ha_relaxed r;
		cr_assert_eq(ha_solver_solve_integer_next(s, memo, &m, 0.5, log(0.5), &a),
		             HA_EINVAL);
		cr_assert_eq(ha_relaxed_solver_solve_next(next_w, &m, 0.5, log(0.5), &r, NULL),
		             HA_EINVAL);
		ha_integer_memo_free(memo);
		ha_relaxed_solver_free(next_w);
		ha_relaxed_solver_free(plain_w);
		ha_solver_free(s);
	}
	cr_assert_gt(compared, 4000);
}
