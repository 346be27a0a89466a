/* The solver against independent methods: brute-force enumeration of every
 * divisor (found by trial division where D is small) on random problems
 * and near-flat ties; the main job's answer, small feasible sets,
 * constraints, best-first enumeration, the most divisor-rich budget, and
 * one allocation as a result.  The relaxation against a GSL root is in
 * test_solver_relaxation.c, the generalised model in
 * test_solver_general.c. */
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "solver_problems.h"
#include "alloc/solver_internal.h"

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* ln(MSE / c_b) in long double, written apart from the library's code:
 * the comparisons of the tie rule need more digits than ln MSE keeps when
 * ln c_b is large. */
static long double reference_log_relative_mse(const struct ha_model *m, double samples,
                                              uint64_t D, uint64_t d)
{
	long double dd = (long double)d, H = (long double)(D / d);
	long double rho = 1.0L - (long double)m->hdi;
	long double a = -(long double)m->smoothness * logl(dd);
	long double b = logl((long double)m->var_coef) - logl((long double)m->bias_coef) +
	                0.5L * dd * logl(dd) - logl((long double)samples) +
	                logl(rho + (1.0L - rho) / H);
	long double hi = a > b ? a : b, lo = a > b ? b : a;
	return hi + log1pl(expl(lo - hi));
}

/* The brute-force answer: every divisor evaluated, the smallest d within a
 * relative 1e-12 of the minimum.  Returns 0 when nothing is feasible. */
static uint64_t brute_force(uint64_t D, const struct ha_constraints *c,
                            const struct ha_model *m, double samples)
{
	uint64_t *divs;
	size_t count;
	if (D <= UINT64_C(1000000000000)) {
		/* Trial division up to sqrt(D); order does not matter below. */
		divs = malloc(2 * 6720 * sizeof *divs);
		count = 0;
		for (uint64_t d = 1; d * d <= D; d++) {
			if (D % d)
				continue;
			divs[count++] = d;
			if (d * d != D)
				divs[count++] = D / d;
		}
		qsort(divs, count, sizeof *divs, by_value);
	} else {
		cr_assert_eq(ha_divisors(D, &divs, &count), HA_OK);
	}
	long double min = INFINITY;
	for (size_t i = 0; i < count; i++) {
		if (!feasible(D, divs[i], c))
			continue;
		long double v = reference_log_relative_mse(m, samples, D, divs[i]);
		if (v < min)
			min = v;
	}
	uint64_t best = 0;
	for (size_t i = 0; i < count && !best; i++) {
		if (!feasible(D, divs[i], c))
			continue;
		if (reference_log_relative_mse(m, samples, D, divs[i]) <= min + 1e-12L)
			best = divs[i];
	}
	free(divs);
	return best;
}

Test(solver, agrees_with_brute_force_on_10000_random_cases, .timeout = 600)
{
	uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);
	int solved = 0, infeasible = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		uint64_t want = brute_force(D, &c, &m, n_samples);

		struct ha_solution sol;
		enum ha_status st = ha_solve(D, &c, &m, n_samples, &sol);
		if (!want) {
			cr_assert_eq(st, HA_EINFEASIBLE, "case %d D=%llu", i,
			             (unsigned long long)D);
			infeasible++;
			continue;
		}
		cr_assert_eq(st, HA_OK, "case %d: %s D=%llu n=%.17g s=%.17g cb=%.17g cv=%.17g hdi=%.17g c={%llu,%llu,%llu,%llu,%llu}", i, ha_status_str(st), (unsigned long long)D, n_samples, m.smoothness, m.bias_coef, m.var_coef, m.hdi, (unsigned long long)c.head_dim_multiple, (unsigned long long)c.min_head_dim, (unsigned long long)c.max_head_dim, (unsigned long long)c.min_heads, (unsigned long long)c.max_heads);
		cr_assert_eq(sol.optimum.head_dim, want,
		             "case %d D=%llu n=%g s=%g hdi=%g: got d=%llu, brute force %llu",
		             i, (unsigned long long)D, n_samples, m.smoothness, m.hdi,
		             (unsigned long long)sol.optimum.head_dim,
		             (unsigned long long)want);
		cr_assert_eq(sol.optimum.heads * sol.optimum.head_dim, D);
		cr_assert(isfinite(sol.optimum.terms.log_mse));
		cr_assert(isfinite(sol.relaxed.head_dim) && isfinite(sol.relaxed.log_mse));
		cr_assert(!isnan(sol.optimum.terms.mse));
		/* The relaxed optimum is a lower bound over its interval, which
		 * contains every feasible d. */
		cr_assert_leq(sol.relaxed.log_mse,
		              sol.optimum.terms.log_mse + 1e-9 * (1 + fabs(sol.optimum.terms.log_mse)));
		solved++;
	}
	/* Both outcomes were exercised. */
	cr_assert_gt(solved, 5000);
	cr_assert_gt(infeasible, 10);
}

/* Nearly flat errors (tiny s, huge c_b): many divisors tie within 1e-12
 * and the rule "smallest d within tolerance of the minimum" decides. */
Test(solver, near_flat_ties_follow_the_tie_rule, .timeout = 600)
{
	uint64_t rng = 4242;
	static const uint64_t budgets[] = {831600, 997920, 720720, 65536, 4096, 1081080};
	int ties = 0;
	for (int i = 0; i < 1500; i++) {
		uint64_t D = budgets[next_random(&rng) % 6];
		struct ha_model m = ha_model_defaults();
		double n_samples = log_uniform(&rng, 1e100, 1e300);
		m.smoothness = log_uniform(&rng, 1e-13, 1e-10);
		m.bias_coef = log_uniform(&rng, 1e100, 1e300);
		m.var_coef = log_uniform(&rng, 1e-3, 1e3);
		m.hdi = uniform(&rng, 0, 1);
		struct ha_constraints none = {0, 0, 0, 0, 0};
		uint64_t want = brute_force(D, &none, &m, n_samples);
		struct ha_solution sol;
		cr_assert_eq(ha_solve(D, NULL, &m, n_samples, &sol), HA_OK);
		cr_assert_eq(sol.optimum.head_dim, want,
		             "D=%llu n=%.17g s=%.17g cb=%.17g cv=%.17g hdi=%.17g: got %llu, brute force %llu",
		             (unsigned long long)D, n_samples, m.smoothness, m.bias_coef,
		             m.var_coef, m.hdi, (unsigned long long)sol.optimum.head_dim,
		             (unsigned long long)want);
		struct ha_solver *s;
		struct ha_allocation *rows;
		size_t count;
		cr_assert_eq(ha_solver_new(D, NULL, &s), HA_OK);
		cr_assert_eq(ha_solver_enumerate(s, &m, n_samples, &rows, &count), HA_OK);
		cr_assert_eq(rows[0].head_dim, want);
		ties += rows[1].terms.log_mse <= rows[0].terms.log_mse + 1e-12;
		free(rows);
		ha_solver_free(s);
	}
	/* The cases really were ties, not clear-cut minima. */
	cr_assert_gt(ties, 500);
}

Test(solver, main_job_answer)
{
	double n_samples = HA_SAMPLES_DEFAULT;
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	cr_assert_eq(ha_solve(512, NULL, &m, n_samples, &sol), HA_OK);
	cr_assert_eq(sol.optimum.heads, 64);
	cr_assert_eq(sol.optimum.head_dim, 8);
	cr_assert(fabs(sol.relaxed.head_dim - 11.95) < 0.01);
	cr_assert_eq(sol.certificate.method, HA_CERT_BRACKET);
	cr_assert_eq(sol.certificate.divisors, 10);
	cr_assert_eq(sol.certificate.feasible, 10);
	cr_assert_gt(sol.certificate.evaluated, 0);
}

Test(solver, small_feasible_sets_are_enumerated)
{
	double n_samples = HA_SAMPLES_DEFAULT;
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	cr_assert_eq(ha_solve(1, NULL, &m, n_samples, &sol), HA_OK);
	cr_assert_eq(sol.optimum.heads, 1);
	cr_assert_eq(sol.optimum.head_dim, 1);
	cr_assert_eq(sol.certificate.method, HA_CERT_EXHAUSTIVE);
	cr_assert_eq(sol.relaxed.head_dim, 1.0);
	cr_assert_eq(ha_solve(UINT64_C(9223372036854775783), NULL, &m, n_samples, &sol), HA_OK);
	cr_assert_eq(sol.certificate.divisors, 2);
	cr_assert_eq(sol.certificate.evaluated, 2);
}

Test(solver, constraints_are_honoured)
{
	struct ha_model m = ha_model_defaults();
	double n_samples = 2e12;
	struct ha_constraints c = {.head_dim_multiple = 64};
	struct ha_solution sol;
	cr_assert_eq(ha_solve(4096, &c, &m, n_samples, &sol), HA_OK);
	cr_assert_eq(sol.optimum.head_dim % 64, 0);
	struct ha_constraints none = {0, 0, 0, 0, 0};
	struct ha_constraints bad = {.min_heads = 10, .max_heads = 3};
	cr_assert_eq(ha_solve(4096, &bad, &m, n_samples, &sol), HA_EINVAL);
	struct ha_constraints impossible = {.head_dim_multiple = 3};
	cr_assert_eq(ha_solve(4096, &impossible, &m, n_samples, &sol), HA_EINFEASIBLE);
	cr_assert_eq(ha_solve(0, &none, &m, n_samples, &sol), HA_EINVAL);
	cr_assert_eq(ha_solve(HA_BUDGET_MAX + 1, &none, &m, n_samples, &sol), HA_EINVAL);
	/* The relaxed optimum stays inside the bounds on d and H. */
	struct ha_constraints box = {.min_head_dim = 100, .max_heads = 8};
	cr_assert_eq(ha_solve(4096, &box, &m, n_samples, &sol), HA_OK);
	cr_assert_geq(sol.relaxed.head_dim, 512.0);
	cr_assert_geq(sol.optimum.head_dim, 512);
}

Test(solver, enumeration_is_best_first_and_starts_with_the_optimum)
{
	uint64_t rng = 777;
	for (int i = 0; i < 300; i++) {
		uint64_t D = pick_budget(&rng);
		if (ha_divisor_count(D) > 5000)
			continue;
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		struct ha_solver *s;
		cr_assert_eq(ha_solver_new(D, NULL, &s), HA_OK);
		struct ha_solution sol;
		cr_assert_eq(ha_solver_solve(s, &m, n_samples, &sol), HA_OK);
		struct ha_allocation *rows;
		size_t count;
		cr_assert_eq(ha_solver_enumerate(s, &m, n_samples, &rows, &count), HA_OK);
		cr_assert_eq(count, ha_divisor_count(D));
		cr_assert_eq(rows[0].head_dim, sol.optimum.head_dim);
		for (size_t k = 1; k < count; k++)
			cr_assert_geq(rows[k].terms.log_mse,
			              rows[k - 1].terms.log_mse - 1e-12);
		free(rows);
		ha_solver_free(s);
	}
}

Test(solver, the_most_divisor_rich_budget)
{
	double n_samples = HA_SAMPLES_DEFAULT;
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	uint64_t D = UINT64_C(897612484786617600);
	cr_assert_eq(ha_solve(D, NULL, &m, n_samples, &sol), HA_OK);
	cr_assert_eq(sol.certificate.divisors, 103680);
	cr_assert_eq(sol.optimum.head_dim, brute_force(D, &(struct ha_constraints){0, 0, 0, 0, 0}, &m, n_samples));
	/* A bracket search: logarithmically many evaluations. */
	cr_assert_lt(sol.certificate.evaluated, 64);
}

Test(solver, free_accepts_null)
{
	ha_solver_free(NULL);
	cr_assert_str_eq(ha_status_str(HA_EINFEASIBLE), "no feasible allocation");
	cr_assert_str_eq(ha_status_str(HA_ECANCELED), "cancelled");
	cr_assert_str_eq(ha_status_str((enum ha_status)99), "unknown status");
	cr_assert_str_eq(ha_certificate_method_str(HA_CERT_BRACKET), "bracket");
	cr_assert_str_eq(ha_certificate_method_str(HA_CERT_EXHAUSTIVE), "exhaustive");
}

/* One allocation as a result: the solution is ha_solve's, the candidates
 * ha_solver_enumerate's, and the landscape every divisor of D found by
 * trial division, its error ha_model_eval's, feasible exactly when the
 * constraints (checked here by hand) allow it. */
Test(solver, allocation_result)
{
	struct ha_model m = ha_model_defaults();
	double n_samples = 1e7;
	struct ha_constraints c = {.head_dim_multiple = 8, .max_heads = 32};
	const uint64_t budget = 768;
	struct ha_allocation_result *a = NULL;
	cr_assert_eq(ha_allocation_result_new(budget, &c, NULL, &m, n_samples,
	             HA_ALLOCATION_CANDIDATES | HA_ALLOCATION_DIVISORS, &a, NULL), HA_OK);
	struct ha_solution want;
	cr_assert_eq(ha_solve(budget, &c, &m, n_samples, &want), HA_OK);
	cr_assert_eq(a->budget, budget);
	cr_assert_eq(a->solution.optimum.head_dim, want.optimum.head_dim);
	cr_assert_eq(a->solution.relaxed.head_dim, want.relaxed.head_dim);
	size_t at = 0, feasible = 0;
	for (uint64_t d = 1; d <= budget; d++) {
		if (budget % d)
			continue;
		cr_assert_lt(at, a->divisor_count);
		const struct ha_divisor_error *e = &a->divisors[at++];
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&m, n_samples, budget, d, &t), HA_OK);
		cr_assert_eq(e->head_dim, d);
		cr_assert_eq(e->heads, budget / d);
		cr_assert_eq(e->terms.log_mse, t.log_mse);
		int ok = d % 8 == 0 && budget / d <= 32;
		cr_assert_eq(e->feasible, ok, "d = %llu", (unsigned long long)d);
		feasible += (size_t)ok;
	}
	cr_assert_eq(at, a->divisor_count);
	cr_assert_eq(a->feasible_count, feasible);
	cr_assert_eq(a->candidate_count, feasible);
	cr_assert_eq(a->candidates[0].head_dim, want.optimum.head_dim);
	ha_allocation_result_free(a);

	struct ha_error err;
	ha_error_init(&err);
	struct ha_constraints none = {.min_heads = 1000};
	cr_assert_eq(ha_allocation_result_new(budget, &none, NULL, &m, n_samples, 0, &a, &err),
	             HA_EINFEASIBLE);
	cr_assert_null(a);
	cr_assert_str_eq(err.message, "no (heads, head_dim) pair of budget 768 "
	                 "meets the constraints");
	ha_allocation_result_free(NULL);
}
