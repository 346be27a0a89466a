/* A public model of grouped key/value heads against the theory at its own
 * G (ha_compare_model_grouped_solver): on random models and allocations
 * the actual error is the formula of headalloc-model(7) at (H, G, d), the
 * theory's is the least over every d | D with G | D/d by brute force
 * (long double), and the ratio is their difference; G = H is
 * ha_compare_model_solver bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/compare.h>

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((double)rand() / (double)RAND_MAX);
}

/* ln MSE of (D/d, G, d) from the formula, in long double. */
static long double log_mse(const struct ha_model *m, double samples, uint64_t budget,
                           uint64_t d, uint64_t G)
{
	long double x = d, H = (long double)(budget / d), g = H / (long double)G;
	long double rho = 1.0L - m->hdi, rho_g = 1.0L - m->group_hdi;
	long double F = (1.0L + (g - 1.0L) * rho_g + (H - g) * rho) / H;
	long double bias = m->bias_coef * powl(x, -m->smoothness);
	long double var = m->var_coef * powl(x, m->var_rate * x + m->var_power) /
	                  powl(samples, m->var_samples_power);
	return logl(m->irreducible + bias + var * F);
}

Test(compare_grouped, against_brute_force)
{
	static const uint64_t budgets[] = {4096, 8192, 4544, 2048, 3072, 768};
	srand(70);
	for (int trial = 0; trial < 120; trial++) {
		uint64_t budget = budgets[trial % 6];
		struct ha_model m = ha_model_defaults();
		double n_samples = exp(uniform(log(1e3), log(1e13)));
		m.smoothness = uniform(0.5, 3.0);
		m.bias_coef = exp(uniform(-2.0, 2.0));
		m.var_coef = exp(uniform(-2.0, 2.0));
		m.hdi = uniform(0.0, 1.0);
		m.group_hdi = uniform(0.0, 1.0);
		m.irreducible = trial % 3 ? 0.0 : uniform(0.0, 1.0);
		/* the actual allocation: some d | D with d <= 256, some G | H */
		uint64_t d, heads, G;
		do
			d = 1 + (uint64_t)rand() % 256;
		while (budget % d);
		heads = budget / d;
		do
			G = 1 + (uint64_t)rand() % heads;
		while (heads % G);
		struct ha_solver *s = NULL;
		cr_assert_eq(ha_solver_new(budget, NULL, &s), HA_OK);
		struct ha_model_comparison cmp = {0};
		cr_assert_eq(ha_compare_model_grouped_solver(s, &m, n_samples, heads, G, d, &cmp),
		             HA_OK);
		cr_assert_eq(cmp.kv_heads, G);
		/* at its G; an ungrouped model (G = H) against G = H at every d */
		long double best = INFINITY;
		for (uint64_t e = 1; e <= budget; e++) {
			uint64_t at = G == heads ? budget / e : G;
			if (budget % e == 0 && (budget / e) % at == 0 &&
			    log_mse(&m, n_samples, budget, e, at) < best)
				best = log_mse(&m, n_samples, budget, e, at);
		}
		double tol = 1e-12;
		cr_assert(fabsl(cmp.theory.optimum.terms.log_mse - best) <=
		          tol * fmaxl(1.0L, fabsl(best)), "trial %d: %.17g vs %.17Lg",
		          trial, cmp.theory.optimum.terms.log_mse, best);
		if (G < heads)
			cr_assert_eq(cmp.theory.optimum.heads % G, 0);
		cr_assert_eq(cmp.theory.optimum.heads * cmp.theory.optimum.head_dim,
		             budget);
		long double act = log_mse(&m, n_samples, budget, d, G);
		cr_assert(fabsl(cmp.actual.terms.log_mse - act) <=
		          tol * fmaxl(1.0L, fabsl(act)));
		cr_assert(cmp.log10_ratio >= 0.0);
		cr_assert(fabsl(cmp.log10_ratio - (act - best) / logl(10.0L)) <= 1e-10);
		if (G == heads) {
			struct ha_model_comparison plain = {0};
			cr_assert_eq(ha_compare_model_solver(s, &m, n_samples, heads, d, &plain), HA_OK);
			cr_assert_eq(plain.log10_ratio, cmp.log10_ratio);
			cr_assert_eq(plain.theory.optimum.head_dim,
			             cmp.theory.optimum.head_dim);
		}
		ha_solver_free(s);
	}
}

Test(compare_grouped, refusals)
{
	double n_samples = HA_SAMPLES_DEFAULT;
	struct ha_model m = ha_model_defaults();
	struct ha_solver *s = NULL;
	cr_assert_eq(ha_solver_new(4096, NULL, &s), HA_OK);
	struct ha_model_comparison cmp;
	cr_assert_eq(ha_compare_model_grouped_solver(s, &m, n_samples, 32, 0, 128, &cmp),
	             HA_EINVAL);
	cr_assert_eq(ha_compare_model_grouped_solver(s, &m, n_samples, 32, 3, 128, &cmp),
	             HA_EINVAL);
	cr_assert_eq(ha_compare_model_grouped_solver(s, &m, n_samples, 16, 8, 128, &cmp),
	             HA_EINVAL); /* budget 2048, not the solver's */
	cr_assert_eq(ha_compare_model_grouped_solver(NULL, &m, n_samples, 32, 8, 128, &cmp),
	             HA_EINVAL);
	ha_solver_free(s);
	/* Mistral-7B's row: 32 x 128 with 8 key heads, at n = 1e12 */
	n_samples = 1e12;
	cr_assert_eq(ha_solver_new(4096, NULL, &s), HA_OK);
	cr_assert_eq(ha_compare_model_grouped_solver(s, &m, n_samples, 32, 8, 128, &cmp), HA_OK);
	cr_assert_eq(cmp.theory.optimum.heads, 256);
	cr_assert_eq(cmp.theory.optimum.head_dim, 16);
	ha_solver_free(s);
}
