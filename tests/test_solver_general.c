/* The solver on the generalised model (headalloc-model(7), CALIBRATION
 * (The parameters)): brute force over every divisor for random γ, κ, E
 * and log-scaled coefficients, the certificate where unimodality is
 * proved, and the relaxed optimum a minimum. */
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "solver_problems.h"
#include "alloc/model_internal.h"

/* ln((MSE - E)/c_b) of the generalised model in long double, apart from
 * the library (E moves no argmin: the solver leaves it out). */
static long double reference_general(const struct ha_model *m, double samples, uint64_t D,
                                     uint64_t d)
{
	long double x = (long double)d, H = (long double)(D / d);
	long double rho = 1.0L - (long double)m->hdi;
	long double a = -(long double)m->smoothness * logl(x);
	long double b = (long double)ha_model_log_var_coef(m) -
	                (long double)ha_model_log_bias_coef(m) +
	                ((long double)m->var_rate * x + (long double)m->var_power) * logl(x) -
	                logl((long double)samples) + logl(rho + (1.0L - rho) / H);
	long double hi = a > b ? a : b, lo = a > b ? b : a;
	return hi + log1pl(expl(lo - hi));
}

/* Every feasible divisor by trial division (D <= 1e6 here); the smallest
 * d within 1e-12 of the minimum.  *count gets the feasible count. */
static uint64_t brute_general(uint64_t D, const struct ha_constraints *c,
                              const struct ha_model *m, double samples, size_t *count,
                              uint64_t *smallest)
{
	long double min = INFINITY;
	*count = 0;
	*smallest = 0;
	for (uint64_t d = 1; d <= D; d++)
		if (D % d == 0 && feasible(D, d, c)) {
			long double v = reference_general(m, samples, D, d);
			min = v < min ? v : min;
			if (!(*count)++)
				*smallest = d;
		}
	for (uint64_t d = 1; d <= D; d++)
		if (D % d == 0 && feasible(D, d, c) &&
		    reference_general(m, samples, D, d) <= min + 1e-12L)
			return d;
	return 0;
}

static struct ha_model pick_general_model(uint64_t *rng, double *samples)
{
	struct ha_model m = ha_model_defaults();
	*samples = log_uniform(rng, 1.001, 1e30);
	m.smoothness = log_uniform(rng, 0.05, 8);
	uint64_t shape = next_random(rng) % 5;
	/* γ = 0 with 0 < κ < 1 (variance concave in d, not log-convex), the
	 * seeds' γ, a slow γ, a fast γ, and γ = κ = 0. */
	m.var_rate = shape == 0 ? 0.0 : shape == 1 ? 0.5 : shape == 2
		? uniform(rng, 0, 0.05) : shape == 3 ? uniform(rng, 0, 3) : 0.0;
	m.var_power = shape == 0 ? uniform(rng, 0, 1) : shape == 4 ? 0.0
		: next_random(rng) % 2 ? uniform(rng, 0, 12) : 0.0;
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	ha_model_set_log_bias_coef(&m, uniform(rng, -30, 30));
	ha_model_set_log_var_coef(&m, uniform(rng, -60, 30));
	m.irreducible = next_random(rng) % 2 ? uniform(rng, 0, 5) : 0.0;
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	return m;
}

/* Brute force over all divisors agrees with the solver for random γ, κ,
 * E and log-scaled coefficients, and the certificate is `bracket` exactly
 * where ha_model_unimodal_on proves it (and more than 4 divisors are
 * feasible), `exhaustive` otherwise. */
Test(solver, generalised_model_agrees_with_brute_force, .timeout = 600)
{
	uint64_t rng = UINT64_C(0xC0FFEE1234567);
	int bracket = 0;
	for (int i = 0; i < 3000; i++) {
		uint64_t D = 1 + next_random(&rng) % (i % 10 == 0 ? 1000000 : 20000);
		struct ha_constraints c = pick_constraints(&rng, D);
		double n_samples;
		struct ha_model m = pick_general_model(&rng, &n_samples);
		size_t count;
		uint64_t smallest;
		uint64_t want = brute_general(D, &c, &m, n_samples, &count, &smallest);
		struct ha_solution sol;
		enum ha_status st = ha_solve(D, &c, &m, n_samples, &sol);
		if (!want) {
			cr_assert_eq(st, HA_EINFEASIBLE);
			continue;
		}
		cr_assert_eq(st, HA_OK, "case %d: %s", i, ha_status_str(st));
		cr_assert_eq(sol.optimum.head_dim, want,
		             "case %d D=%llu s=%g γ=%g κ=%g hdi=%g E=%g: got %llu, brute force %llu",
		             i, (unsigned long long)D, m.smoothness, m.var_rate,
		             m.var_power, m.hdi, m.irreducible,
		             (unsigned long long)sol.optimum.head_dim,
		             (unsigned long long)want);
		int proven = ha_model_unimodal_on(&m, (double)smallest);
		enum ha_certificate_method expect =
			count > 4 && proven ? HA_CERT_BRACKET : HA_CERT_EXHAUSTIVE;
		cr_assert_eq(sol.certificate.method, expect, "case %d", i);
		cr_assert_eq(sol.certificate.feasible, count);
		bracket += sol.certificate.method == HA_CERT_BRACKET;
		/* The reported error is the model's, E included. */
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&m, n_samples, D, want, &t), HA_OK);
		cr_assert_eq(sol.optimum.terms.mse, t.mse);
		/* The relaxation is a lower bound of the reducible part. */
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
		cr_assert_leq(ha_relaxed_fn_eval(&fn, log(sol.relaxed.head_dim), NULL),
		              t.log_reducible + 1e-9 * (1 + fabs(t.log_reducible)),
		              "case %d", i);
	}
	cr_assert_gt(bracket, 1000);
}

/* The relaxed optimum of the generalised model is a minimum: the slope
 * of ln f changes sign there (or it sits on a bound sloping down). */
Test(solver, generalised_relaxation_is_a_minimum)
{
	uint64_t rng = 99;
	for (int i = 0; i < 500; i++) {
		uint64_t D = 1 + next_random(&rng) % 1000000;
		double n_samples;
		struct ha_model m = pick_general_model(&rng, &n_samples);
		struct ha_solution sol;
		cr_assert_eq(ha_solve(D, NULL, &m, n_samples, &sol), HA_OK);
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
		double u = log(sol.relaxed.head_dim), g;
		double here = ha_relaxed_fn_eval(&fn, u, &g);
		double lo = 0.0, hi = log((double)D);
		double step = 1e-6 * fmax(1.0, fabs(u));
		if (u - step > lo)
			cr_assert_geq(ha_relaxed_fn_eval(&fn, u - step, NULL),
			              here - 1e-12 * fmax(1.0, fabs(here)), "case %d", i);
		if (u + step < hi)
			cr_assert_geq(ha_relaxed_fn_eval(&fn, u + step, NULL),
			              here - 1e-12 * fmax(1.0, fabs(here)), "case %d", i);
	}
}
