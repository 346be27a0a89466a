/* Exact regimes against brute force over every feasible divisor. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/regime.h>
#include "alloc/solver_internal.h"

struct limits {
	uint64_t multiple, min_d, max_d, min_h, max_h;
};

/* Feasible head dimensions of D by trial division (tests use small D). */
static size_t feasible(uint64_t budget, struct limits c, uint64_t *dims,
                       size_t cap)
{
	size_t count = 0;
	for (uint64_t d = 1; d <= budget && count < cap; d++) {
		if (budget % d)
			continue;
		uint64_t h = budget / d;
		if ((c.multiple && d % c.multiple) || (c.min_d && d < c.min_d) ||
		    (c.max_d && d > c.max_d) || (c.min_h && h < c.min_h) ||
		    (c.max_h && h > c.max_h))
			continue;
		dims[count++] = d;
	}
	return count;
}

static double log_add(double a, double b)
{
	double hi = fmax(a, b), lo = fmin(a, b);
	return hi + log1p(exp(lo - hi));
}

/* ln MSE of head dimension d at ln n: through ha_model_eval when n is a
 * double, else the formula of headalloc-model(7), THE ERROR MODEL directly. */
static double log_mse(const struct ha_model *m, uint64_t budget, uint64_t d,
                      double log_n)
{
	if (log_n < 690.0) {
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(m, exp(log_n), budget, d, &t), HA_OK);
		return t.log_mse;
	}
	double x = (double)d, rho = 1.0 - m->hdi;
	double la = ha_model_log_bias_coef(m) - m->smoothness * log(x);
	double lb = ha_model_log_var_coef(m) + (m->var_rate * x + m->var_power) * log(x) +
	            log(rho + (1.0 - rho) / (double)(budget / d));
	return log_add(la, lb - m->var_samples_power * log_n);
}

/* The brute-force optimum: ties within 1e-12 go to the smaller d. */
static uint64_t brute_best(const struct ha_model *m, uint64_t budget,
                           const uint64_t *dims, size_t count, double log_n)
{
	uint64_t best = dims[0];
	double best_l = log_mse(m, budget, dims[0], log_n);
	for (size_t i = 1; i < count; i++) {
		double l = log_mse(m, budget, dims[i], log_n);
		if (l < best_l - 1e-12) {
			best_l = l;
			best = dims[i];
		}
	}
	return best;
}

/* The regime table is contiguous from n = 1 to +inf, strictly increasing
 * in d, and agrees with brute force on both sides of every boundary and
 * on a fine grid of ln n in [0, 1000]. */
static void check_against_brute_force(uint64_t budget, struct limits c,
                                      struct ha_model m)
{
	static uint64_t dims[8192];
	size_t count = feasible(budget, c, dims, 8192);
	cr_assert_gt(count, 0);

	struct ha_regime *r = NULL;
	size_t nr = 0;
	cr_assert_eq(ha_regime_compute(&m, budget, dims, count, &r, &nr),
	             HA_OK);
	cr_assert_gt(nr, 0);
	cr_assert_eq(r[0].log_samples_from, 0.0);
	cr_assert(r[nr - 1].unbounded);
	cr_assert(isinf(r[nr - 1].log_samples_to));
	for (size_t i = 0; i < nr; i++) {
		cr_assert_eq(r[i].heads * r[i].head_dim, budget);
		cr_assert(isfinite(r[i].log_samples_from));
		cr_assert(r[i].log_samples_from < r[i].log_samples_to);
		if (i + 1 < nr) {
			cr_assert_eq(r[i].unbounded, 0);
			cr_assert(isfinite(r[i].log_samples_to));
			cr_assert_eq(r[i].log_samples_to,
			             r[i + 1].log_samples_from);
			cr_assert_lt(r[i].head_dim, r[i + 1].head_dim);
		}
	}

	/* Both sides of each boundary, where n is a double or not. */
	for (size_t i = 1; i < nr; i++) {
		double b = r[i].log_samples_from;
		double eps = 1e-7 * fmax(1.0, b);
		cr_assert_eq(brute_best(&m, budget, dims, count, b - eps),
		             r[i - 1].head_dim, "D=%llu below boundary %zu",
		             (unsigned long long)budget, i);
		cr_assert_eq(brute_best(&m, budget, dims, count, b + eps),
		             r[i].head_dim, "D=%llu above boundary %zu",
		             (unsigned long long)budget, i);
	}

	/* A fine grid over n = 1 .. e^1000. */
	size_t k = 0;
	for (int g = 1; g <= 4000; g++) {
		double ln = 0.25 * g;
		while (k + 1 < nr && ln > r[k].log_samples_to)
			k++;
		if (fabs(ln - r[k].log_samples_to) < 1e-6 ||
		    fabs(ln - r[k].log_samples_from) < 1e-6)
			continue;
		cr_assert_eq(brute_best(&m, budget, dims, count, ln),
		             r[k].head_dim, "D=%llu ln n=%g",
		             (unsigned long long)budget, ln);
	}
	free(r);
}

Test(regime, spec_example_d512)
{
	struct ha_model m = ha_model_defaults();
	uint64_t dims[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
	struct ha_regime *r = NULL;
	size_t nr = 0;
	cr_assert_eq(ha_regime_compute(&m, 512, dims, 10, &r, &nr), HA_OK);
	size_t i = 0;
	while (i < nr && r[i].head_dim != 8)
		i++;
	cr_assert_lt(i, nr);
	cr_expect_eq(r[i].heads, 64);
	/* n = (b_8 - b_4)/(a_4 - a_8) = (64 - 1/8)/(3/64). */
	double from = (64.0 - 0.125) / (3.0 / 64.0);
	double to = (134217728.0 - 64.0) / (3.0 / 256.0);
	cr_expect(fabs(exp(r[i].log_samples_from) / from - 1.0) < 1e-13,
	          "from %.17g", exp(r[i].log_samples_from));
	cr_expect(fabs(exp(r[i].log_samples_to) / to - 1.0) < 1e-13,
	          "to %.17g", exp(r[i].log_samples_to));
	cr_expect(fabs(exp(r[i].log_samples_from) - 1.36e3) < 5.0);
	cr_expect(fabs(exp(r[i].log_samples_to) / 1.15e10 - 1.0) < 5e-3);
	check_against_brute_force(512, (struct limits){0}, m);
	free(r);
}

Test(regime, defaults_several_budgets)
{
	struct ha_model m = ha_model_defaults();
	uint64_t budgets[] = {1, 2, 12, 64, 768, 997, 4096, 4544, 12288,
	                      720720};
	for (size_t i = 0; i < sizeof budgets / sizeof *budgets; i++)
		check_against_brute_force(budgets[i], (struct limits){0}, m);
}

Test(regime, constrained)
{
	struct ha_model m = ha_model_defaults();
	check_against_brute_force(4096, (struct limits){.multiple = 8}, m);
	check_against_brute_force(4544, (struct limits){.multiple = 64}, m);
	check_against_brute_force(
		12288, (struct limits){.min_d = 16, .max_d = 256}, m);
	check_against_brute_force(
		720720, (struct limits){.min_h = 4, .max_h = 1000}, m);
	check_against_brute_force(
		720720, (struct limits){.multiple = 8, .max_d = 256}, m);
}

Test(regime, other_models)
{
	struct ha_model m = ha_model_defaults();
	m.hdi = 0.5;
	check_against_brute_force(4096, (struct limits){0}, m);
	m.hdi = 0.0;
	check_against_brute_force(720720, (struct limits){0}, m);
	m = ha_model_defaults();
	m.smoothness = 0.5;
	m.bias_coef = 3.0;
	m.var_coef = 0.01;
	check_against_brute_force(5040, (struct limits){0}, m);
	m.smoothness = 7.0;
	m.hdi = 0.9;
	check_against_brute_force(5040, (struct limits){.multiple = 2}, m);
}

Test(regime, single_divisor_is_one_unbounded_regime)
{
	struct ha_model m = ha_model_defaults();
	uint64_t d = 64;
	struct ha_regime *r = NULL;
	size_t nr = 0;
	cr_assert_eq(ha_regime_compute(&m, 4096, &d, 1, &r, &nr), HA_OK);
	cr_assert_eq(nr, 1);
	cr_expect_eq(r[0].heads, 64);
	cr_expect_eq(r[0].log_samples_from, 0.0);
	cr_expect(r[0].unbounded);
	free(r);
}

/* D = 2^62: switch points far beyond any double n stay finite logs. */
Test(regime, huge_budget_stays_finite)
{
	struct ha_model m = ha_model_defaults();
	uint64_t dims[63];
	for (int i = 0; i < 63; i++)
		dims[i] = UINT64_C(1) << i;
	struct ha_regime *r = NULL;
	size_t nr = 0;
	uint64_t budget = UINT64_C(1) << 62;
	cr_assert_eq(ha_regime_compute(&m, budget, dims, 63, &r, &nr), HA_OK);
	cr_assert_gt(nr, 40); /* nearly every power of two has a turn */
	for (size_t i = 0; i + 1 < nr; i++) {
		cr_assert(isfinite(r[i].log_samples_to));
		cr_assert_lt(r[i].log_samples_to, r[i + 1].log_samples_to);
	}
	cr_expect_eq(r[nr - 1].head_dim, budget);
	cr_expect(r[nr - 1].log_samples_from > 1e19);
	free(r);

	uint64_t big[] = {1, HA_BUDGET_MAX};
	cr_assert_eq(ha_regime_compute(&m, HA_BUDGET_MAX, big, 2, &r, &nr),
	             HA_OK);
	cr_assert_eq(nr, 2);
	cr_expect(isfinite(r[0].log_samples_to));
	free(r);
}

/* ln n where head dimension d2 > d1 starts to beat d1 under budget D:
 * where the first regime of their table ends (+inf for no such table). */
static double log_switch(const struct ha_model *m, uint64_t budget,
                         uint64_t d1, uint64_t d2)
{
	uint64_t dims[] = {d1, d2};
	struct ha_regime *r = NULL;
	size_t nr = 0;
	double l = INFINITY;
	if (ha_regime_compute(m, budget, dims, 2, &r, &nr) == HA_OK && nr == 2)
		l = r[0].log_samples_to;
	free(r);
	return l;
}

Test(regime, log_switch)
{
	struct ha_model m = ha_model_defaults();
	double l = log_switch(&m, 512, 4, 8);
	cr_expect(fabs(l - log(63.875 * 64.0 / 3.0)) < 1e-13);
	cr_expect(isinf(log_switch(&m, 512, 8, 4)));
	cr_expect(isinf(log_switch(&m, 512, 3, 8)));
	cr_expect(isinf(log_switch(NULL, 512, 4, 8)));
	/* D = 2: d = 1 -> 2 switches at n = (2 - 1/2)/(1 - 1/4) = 2. */
	l = log_switch(&m, 2, 1, 2);
	cr_expect(fabs(l - log(2.0)) < 1e-14);
}

Test(regime, errors)
{
	struct ha_model m = ha_model_defaults();
	struct ha_regime *r = (struct ha_regime *)1;
	size_t nr = 7;
	uint64_t unsorted[] = {8, 4}, zero[] = {0, 4}, nondiv[] = {3},
	         twice[] = {4, 4};
	cr_expect_eq(ha_regime_compute(&m, 512, unsorted, 2, &r, &nr),
	             HA_EINVAL);
	cr_expect_null(r);
	cr_expect_eq(nr, 0);
	cr_expect_eq(ha_regime_compute(&m, 512, zero, 2, &r, &nr), HA_EINVAL);
	cr_expect_eq(ha_regime_compute(&m, 512, nondiv, 1, &r, &nr),
	             HA_EINVAL);
	cr_expect_eq(ha_regime_compute(&m, 512, twice, 2, &r, &nr),
	             HA_EINVAL);
	cr_expect_eq(ha_regime_compute(&m, 512, NULL, 0, &r, &nr),
	             HA_EINFEASIBLE);
	cr_expect_eq(ha_regime_compute(&m, 0, unsorted, 2, &r, &nr),
	             HA_EINVAL);
	cr_expect_eq(ha_regime_compute(NULL, 512, unsorted, 2, &r, &nr),
	             HA_EINVAL);
	cr_expect_eq(ha_regime_compute(&m, 512, unsorted, 2, NULL, &nr),
	             HA_EINVAL);
	m.hdi = 1.5;
	uint64_t ok[] = {4};
	cr_expect_eq(ha_regime_compute(&m, 512, ok, 1, &r, &nr), HA_EINVAL);
	/* The regimes span every n: a valid model is all they need. */
	m = ha_model_defaults();
	cr_expect_eq(ha_regime_compute(&m, 512, ok, 1, &r, &nr), HA_OK);
	free(r);
}

/* The solver agrees: inside each regime and on both sides of each
 * boundary (outside its 1e-12 tie band), for several D and constraints. */
Test(regime, agrees_with_solver)
{
	struct {
		uint64_t budget;
		struct ha_constraints c;
		double hdi;
	} cases[] = {
		{512, {0}, 1.0},
		{4096, {.head_dim_multiple = 8}, 1.0},
		{4544, {.head_dim_multiple = 64}, 0.7},
		{12288, {.min_head_dim = 16, .max_head_dim = 256}, 1.0},
		{720720, {.min_heads = 4, .max_heads = 1000}, 0.0},
		{UINT64_C(897612484786617600), {0}, 1.0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct ha_solver *solver = NULL;
		cr_assert_eq(ha_solver_new(cases[c].budget, &cases[c].c,
		                           &solver), HA_OK);
		struct ha_model m = ha_model_defaults();
		m.hdi = cases[c].hdi;
		struct ha_regime *r = NULL;
		size_t nr = 0;
		size_t nf;
		const uint64_t *feasible = ha_solver_feasible(solver, &nf);
		cr_assert_eq(ha_regime_compute(&m, cases[c].budget, feasible, nf, &r,
		                               &nr), HA_OK);
		for (size_t i = 0; i < nr; i++) {
			double lo = r[i].log_samples_from;
			double hi = r[i].unbounded ? lo + 10.0
			                           : r[i].log_samples_to;
			double probes[] = {lo + 1e-7 * fmax(1.0, lo),
			                   0.5 * (lo + hi),
			                   hi - 1e-7 * fmax(1.0, hi)};
			for (size_t p = 0; p < 3; p++) {
				if (probes[p] > log(1e300) || probes[p] <= 0.0)
					continue;
				double n_samples = exp(probes[p]);
				struct ha_allocation best;
				cr_assert_eq(ha_solver_solve_integer(solver, &m, n_samples,
				                                     &best, NULL),
				             HA_OK);
				cr_assert_eq(best.head_dim, r[i].head_dim,
				             "D=%llu n=e^%.17g",
				             (unsigned long long)cases[c].budget,
				             probes[p]);
			}
		}
		free(r);
		ha_solver_free(solver);
	}
	struct ha_regime *r = (struct ha_regime *)1;
	size_t nr = 3;
	struct ha_model m = ha_model_defaults();
	cr_expect_eq(ha_regime_compute(&m, 64, NULL, 2, &r, &nr), HA_EINVAL);
	cr_expect_null(r);
}

/* ---- the generalised model (headalloc-model(7), CALIBRATION (The parameters)) ------------------------ */

/* The optimum at ln n by brute force on the whole error E + a_d + b_d/n,
 * in long double written apart from the library: E cancels from every
 * comparison in exact arithmetic, so the regimes must not move with it. */
static uint64_t brute_best_with_e(const struct ha_model *m, uint64_t budget,
                                  const uint64_t *dims, size_t count,
                                  long double log_n)
{
	uint64_t best = 0;
	long double best_v = INFINITY;
	long double rho = 1.0L - (long double)m->hdi;
	for (size_t i = 0; i < count; i++) {
		long double x = (long double)dims[i];
		long double a = expl((long double)ha_model_log_bias_coef(m) -
		                     (long double)m->smoothness * logl(x));
		long double lb = (long double)ha_model_log_var_coef(m) +
		                 ((long double)m->var_rate * x + (long double)m->var_power) * logl(x) +
		                 logl(rho + (1.0L - rho) / (long double)(budget / dims[i])) -
		                 (long double)m->var_samples_power * log_n;
		long double data = m->data_coef == 0.0 ? 0.0L
			: (long double)m->data_coef * expl(-(long double)m->data_power * log_n);
		long double v = (long double)m->irreducible + data + a + expl(lb);
		if (v < best_v) {
			best_v = v;
			best = dims[i];
		}
	}
	return best;
}

static void check_generalised(uint64_t budget, struct ha_model m)
{
	static uint64_t dims[4096];
	struct limits none = {0, 0, 0, 0, 0};
	size_t count = feasible(budget, none, dims, 4096);
	struct ha_regime *r = NULL, *r0 = NULL;
	size_t nr = 0, nr0 = 0;
	cr_assert_eq(ha_regime_compute(&m, budget, dims, count, &r, &nr), HA_OK);
	/* E moves no switch point: the table without it is the same, bit
	 * for bit. */
	struct ha_model no_e = m;
	no_e.irreducible = 0.0;
	no_e.data_coef = 0.0; /* nor does the data term A n^-α */
	cr_assert_eq(ha_regime_compute(&no_e, budget, dims, count, &r0, &nr0), HA_OK);
	cr_assert_eq(nr, nr0);
	for (size_t i = 0; i < nr; i++) {
		cr_assert_eq(r[i].head_dim, r0[i].head_dim);
		cr_assert_eq(r[i].log_samples_from, r0[i].log_samples_from);
		cr_assert_eq(r[i].log_samples_to, r0[i].log_samples_to);
	}
	/* Brute force inside every regime, away from its ends (where the
	 * long double sum E + a + b/n cannot resolve the crossing). */
	for (size_t i = 0; i < nr; i++) {
		double lo = r[i].log_samples_from;
		double hi = r[i].unbounded ? lo + 20.0 : r[i].log_samples_to;
		for (int p = 1; p < 8; p++) {
			double ln = lo + (hi - lo) * p / 8.0;
			if (ln - lo < 1e-3 * fmax(1.0, lo) || hi - ln < 1e-3 * fmax(1.0, hi))
				continue;
			cr_assert_eq(brute_best_with_e(&m, budget, dims, count, ln),
			             r[i].head_dim, "D=%llu ln n=%g regime %zu",
			             (unsigned long long)budget, ln, i);
		}
	}
	free(r);
	free(r0);
}

Test(regime, generalised_model_with_irreducible_error)
{
	static const uint64_t budgets[] = {512, 4096, 720720, 1000, 97};
	static const double rates[] = {0.5, 0.0, 0.05, 1.5};
	static const double powers[] = {0.0, 0.4, 2.0, 7.5};
	for (size_t b = 0; b < 5; b++)
		for (size_t g = 0; g < 4; g++)
			for (size_t k = 0; k < 4; k++) {
				if (rates[g] == 0.0 && powers[k] == 0.0)
					continue; /* every line has the same slope: below */
				struct ha_model m = ha_model_defaults();
				m.var_rate = rates[g];
				m.var_power = powers[k];
				m.irreducible = 0.05;
				m.hdi = (b + g + k) % 3 == 0 ? 0.6 : 1.0;
				m.smoothness = 0.5 + (double)k;
				ha_model_set_log_var_coef(&m, -3.0 * (double)g);
				check_generalised(budgets[b], m);
				/* The same through the brute force of the tests above,
				 * where ha_model_eval decides (E = 0 there). */
				m.irreducible = 0.0;
				struct limits none = {0, 0, 0, 0, 0};
				if (budgets[b] <= 4096 && (g + k) % 2 == 0)
					check_against_brute_force(budgets[b], none, m);
			}
}

Test(regime, variance_flat_in_d_means_the_largest_d_at_every_n)
{
	/* γ = κ = 0 and hdi = 0: b_d is the same for every d, so the line
	 * with the smallest a_d (the largest d) is below all others. */
	struct ha_model m = ha_model_defaults();
	m.var_rate = 0.0;
	m.var_power = 0.0;
	m.hdi = 0.0;
	m.irreducible = 3.0;
	uint64_t dims[] = {1, 2, 4, 8, 16};
	struct ha_regime *r = NULL;
	size_t nr = 0;
	cr_assert_eq(ha_regime_compute(&m, 16, dims, 5, &r, &nr), HA_OK);
	cr_assert_eq(nr, 1);
	cr_assert_eq(r[0].head_dim, 16);
	cr_assert(r[0].unbounded);
	free(r);
}

/* The data term A n^-α and the variance's n^β (headalloc-model(7), EXACT
 * REGIMES IN N): boundaries exact in n for β != 1, checked by brute force
 * through ha_model_eval on both sides of every boundary and inside every
 * regime, and by the long double brute force with A > 0. */
Test(regime, data_term_and_samples_power)
{
	static const uint64_t budgets[] = {512, 4096, 1000, 97};
	static const double betas[] = {0.5, 1.0, 1.7, 0.25};
	for (size_t b = 0; b < 4; b++)
		for (size_t k = 0; k < 4; k++) {
			struct ha_model m = ha_model_defaults();
			m.var_samples_power = betas[k];
			m.hdi = k % 2 ? 0.6 : 1.0;
			m.var_rate = k == 3 ? 0.0 : 0.5;
			m.var_power = k == 3 ? 1.5 : 0.0;
			struct limits none = {0, 0, 0, 0, 0};
			check_against_brute_force(budgets[b], none, m);
			m.data_coef = 2.5;
			m.data_power = 0.3;
			m.irreducible = 0.5;
			check_generalised(budgets[b], m);
		}
	/* β scales every boundary in ln n by 1/β: n^β is what the lines see. */
	struct ha_model m = ha_model_defaults();
	uint64_t dims[] = {1, 2, 4, 8, 16, 32, 64};
	struct ha_regime *r1 = NULL, *r2 = NULL;
	size_t n1 = 0, n2 = 0;
	cr_assert_eq(ha_regime_compute(&m, 64, dims, 7, &r1, &n1), HA_OK);
	m.var_samples_power = 2.0;
	cr_assert_eq(ha_regime_compute(&m, 64, dims, 7, &r2, &n2), HA_OK);
	cr_assert_eq(n1, n2);
	cr_assert_gt(n1, 2);
	for (size_t i = 1; i < n1; i++) {
		cr_assert_eq(r1[i].head_dim, r2[i].head_dim);
		cr_assert(fabs(r2[i].log_samples_from - 0.5 * r1[i].log_samples_from) <=
		          1e-15 * r1[i].log_samples_from);
	}
	free(r1);
	free(r2);
}

/* The regimes of several budgets as one result: each budget's table is
 * what ha_regime_compute gives over the divisors found by trial division,
 * in the order asked; with a lent solver the same; an infeasible budget
 * fails with its name in the message and no result. */
Test(regime, result_of_several_budgets)
{
	struct ha_model m = ha_model_defaults();
	const uint64_t budgets[] = {512, 96, 1};
	struct ha_constraints c = {.min_head_dim = 1};
	struct ha_solver *lent[3] = {NULL, NULL, NULL};
	cr_assert_eq(ha_solver_new(96, &c, &lent[1]), HA_OK);
	for (int with_solver = 0; with_solver < 2; with_solver++) {
		struct ha_regimes *g = NULL;
		cr_assert_eq(ha_regimes_new(&m, &c, budgets, 3,
		                            with_solver ? lent : NULL, &g, NULL), HA_OK);
		cr_assert_eq(g->count, 3);
		for (size_t b = 0; b < 3; b++) {
			uint64_t dims[600];
			size_t nd = feasible(budgets[b], (struct limits){0}, dims, 600);
			struct ha_regime *want = NULL;
			size_t count = 0;
			cr_assert_eq(ha_regime_compute(&m, budgets[b], dims, nd, &want,
			                               &count), HA_OK);
			cr_assert_eq(g->budgets[b].budget, budgets[b]);
			cr_assert_eq(g->budgets[b].count, count);
			for (size_t i = 0; i < count; i++) {
				cr_assert_eq(g->budgets[b].regimes[i].head_dim, want[i].head_dim);
				cr_assert_eq(g->budgets[b].regimes[i].log_samples_from,
				             want[i].log_samples_from);
			}
			free(want);
		}
		ha_regimes_free(g);
	}
	ha_solver_free(lent[1]);

	struct ha_regimes *g = (struct ha_regimes *)&m;
	struct ha_error err;
	ha_error_init(&err);
	struct ha_constraints none = {.min_heads = 1000};
	cr_assert_eq(ha_regimes_new(&m, &none, budgets, 3, NULL, &g, &err),
	             HA_EINFEASIBLE);
	cr_assert_null(g);
	cr_assert_str_eq(err.message, "no (heads, head_dim) pair of budget 512 "
	                 "meets the constraints");
	cr_assert_eq(ha_regimes_new(NULL, NULL, budgets, 3, NULL, &g, NULL), HA_EINVAL);
	ha_regimes_free(NULL);
}
