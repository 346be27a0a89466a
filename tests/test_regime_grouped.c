/* Exact regimes over (H, G, d) (ha_regime_compute_grouped) against brute
 * force over n: on random models, budgets and KV constraints, at a grid
 * of ln n and on both sides of every boundary, the regime's triple is the
 * least error over every divisor triple, evaluated here from the formula
 * of headalloc-model(7) in ln n; the boundaries are where the two triples'
 * errors meet; the grouped solver (ha_grouped_solve) agrees where n is a
 * double.  Without grouping the table is ha_regime_compute's, bit for
 * bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/grouped.h>
#include <headalloc/regime.h>
#include "alloc/model_internal.h"
#include "alloc/solver_internal.h"

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((double)rand() / (double)RAND_MAX);
}

static int kv_meets(const struct ha_kv_constraints *kv, uint64_t d, uint64_t g)
{
	return (!kv->kv_heads || g == kv->kv_heads) &&
	       (!kv->min_kv_heads || g >= kv->min_kv_heads) &&
	       (!kv->max_kv_heads || g <= kv->max_kv_heads) &&
	       (!kv->max_kv_dim || g * d <= kv->max_kv_dim);
}

static double log_add(double a, double b)
{
	double hi = fmax(a, b), lo = fmin(a, b);
	return hi == -INFINITY ? hi : hi + log1p(exp(lo - hi));
}

/* ln(MSE - E - A n^-α) of (D/d, G, d) at ln n, from the formula. */
static double key(const struct ha_model *m, uint64_t budget, uint64_t d,
                  uint64_t G, double log_n)
{
	double x = (double)d, H = (double)(budget / d), g = H / (double)G;
	double rho = 1.0 - m->hdi, rho_g = 1.0 - m->group_hdi;
	double F = (1.0 + (g - 1.0) * rho_g + (H - g) * rho) / H;
	double la = ha_model_log_bias_coef(m) - m->smoothness * log(x);
	double lb = ha_model_log_var_coef(m) +
	            (m->var_rate * x + m->var_power) * log(x) + log(F) -
	            m->var_samples_power * log_n;
	return log_add(la, lb);
}

struct triple {
	uint64_t d, G;
	double key;
};

/* The least key over every feasible triple at ln n, and the margin to the
 * next distinct triple (INFINITY when only one). */
static struct triple brute(const struct ha_model *m, uint64_t budget,
                           const uint64_t *dims, size_t nd,
                           const struct ha_kv_constraints *kv, double log_n,
                           double *margin)
{
	struct triple best = {0, 0, INFINITY};
	double second = INFINITY;
	for (size_t i = 0; i < nd; i++) {
		uint64_t H = budget / dims[i];
		for (uint64_t G = 1; G <= H; G++) {
			if (H % G || !kv_meets(kv, dims[i], G))
				continue;
			double k = key(m, budget, dims[i], G, log_n);
			if (k < best.key) {
				second = best.key;
				best = (struct triple){dims[i], G, k};
			} else if (k < second) {
				second = k;
			}
		}
	}
	*margin = second - best.key;
	return best;
}

static const struct ha_regime *regime_at(const struct ha_regime *r, size_t n,
                                         double log_n)
{
	for (size_t i = 0; i < n; i++)
		if (log_n <= r[i].log_samples_to)
			return &r[i];
	return &r[n - 1];
}

static void check_point(const struct ha_model *m, uint64_t budget,
                        const uint64_t *dims, size_t nd,
                        const struct ha_kv_constraints *kv,
                        const struct ha_regime *r, size_t n, double log_n)
{
	double margin;
	struct triple b = brute(m, budget, dims, nd, kv, log_n, &margin);
	const struct ha_regime *at = regime_at(r, n, log_n);
	double k = key(m, budget, at->head_dim, at->kv_heads, log_n);
	cr_assert(k <= b.key + 1e-10 * fmax(1.0, fabs(b.key)),
	          "D %lu ln n %.17g: regime (%lu, G %lu) key %.17g, brute (%lu, G "
	          "%lu) %.17g", (unsigned long)budget, log_n,
	          (unsigned long)at->head_dim, (unsigned long)at->kv_heads, k,
	          (unsigned long)b.d, (unsigned long)b.G, b.key);
	if (margin > 1e-8 * fmax(1.0, fabs(b.key)))
		cr_assert(at->head_dim == b.d && at->kv_heads == b.G,
		          "D %lu ln n %.17g: regime (%lu, G %lu), brute (%lu, G %lu)",
		          (unsigned long)budget, log_n, (unsigned long)at->head_dim,
		          (unsigned long)at->kv_heads, (unsigned long)b.d,
		          (unsigned long)b.G);
	if (log_n > 1.0 && log_n < 680.0) {
		/* The grouped solver at this n, through its own code. */
		double n_at = exp(log_n);
		struct ha_solver *solver = NULL;
		cr_assert_eq(ha_solver_new(budget, NULL, &solver), HA_OK);
		struct ha_grouped_solution s;
		cr_assert_eq(ha_grouped_solve(&(struct ha_grouped_request){
			.solver = solver, .model = m, .samples = n_at, .kv = kv}, &s), HA_OK);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval_grouped(m, n_at, budget, at->head_dim,
		                                   at->kv_heads, &t), HA_OK);
		cr_assert(t.log_mse <= s.optimum.terms.log_mse + 1e-10 *
		          fmax(1.0, fabs(s.optimum.terms.log_mse)));
		ha_grouped_solution_finish(&s);
		ha_solver_free(solver);
	}
}

static size_t divisors_of(uint64_t budget, uint64_t *out)
{
	size_t n = 0;
	for (uint64_t d = 1; d <= budget; d++)
		if (budget % d == 0)
			out[n++] = d;
	return n;
}

static struct ha_model random_model(void)
{
	struct ha_model m = ha_model_defaults();
	m.smoothness = uniform(0.5, 3.0);
	m.bias_coef = exp(uniform(-3.0, 3.0));
	m.var_coef = exp(uniform(-3.0, 3.0));
	m.hdi = uniform(0.0, 1.0);
	m.group_hdi = uniform(0.0, 1.0);
	m.var_rate = rand() % 4 ? uniform(0.0, 1.0) : 0.0;
	m.var_power = rand() % 2 ? uniform(0.0, 2.0) : 0.0;
	m.var_samples_power = uniform(0.3, 1.5);
	return m;
}

static struct ha_kv_constraints random_kv(const uint64_t *div, size_t n)
{
	struct ha_kv_constraints kv = {0, 0, 0, 0};
	switch (rand() % 5) {
	case 0: kv.kv_heads = div[rand() % n]; break;
	case 1: kv.max_kv_dim = div[rand() % n]; break;
	case 2: kv.min_kv_heads = div[rand() % n]; break;
	case 3: kv.max_kv_heads = div[rand() % n];
	        kv.max_kv_dim = div[rand() % n]; break;
	default: break; /* auto, unconstrained */
	}
	return kv;
}

Test(regime_grouped, against_brute_force_over_n)
{
	static const uint64_t budgets[] = {4096, 3072, 720, 5040, 4544, 1536, 360,
	                                   96, 2048, 1260};
	static uint64_t div[256];
	srand(21);
	size_t checked = 0, infeasible = 0;
	for (int trial = 0; trial < 60; trial++) {
		uint64_t budget = budgets[trial % 10];
		size_t nd = divisors_of(budget, div);
		struct ha_model m = random_model();
		struct ha_kv_constraints kv = random_kv(div, nd);
		struct ha_solver *solver = NULL;
		cr_assert_eq(ha_solver_new(budget, NULL, &solver), HA_OK);
		struct ha_regime *r = NULL;
		size_t n = 0;
		enum ha_status st = ha_regime_compute_grouped(solver, &m, &kv, &r, &n);
		double margin;
		struct triple any = brute(&m, budget, div, nd, &kv, 0.0, &margin);
		if (any.d == 0) {
			cr_assert_eq(st, HA_EINFEASIBLE);
			cr_assert_null(r);
			infeasible++;
			ha_solver_free(solver);
			continue;
		}
		cr_assert_eq(st, HA_OK);
		cr_assert_gt(n, 0);
		cr_assert_eq(r[0].log_samples_from, 0.0);
		cr_assert(r[n - 1].unbounded && r[n - 1].log_samples_to == INFINITY);
		for (size_t i = 0; i + 1 < n; i++) {
			cr_assert_eq(r[i].log_samples_to, r[i + 1].log_samples_from);
			cr_assert_gt(r[i + 1].head_dim, r[i].head_dim);
			cr_assert_eq(r[i].heads * r[i].head_dim, budget);
			/* exact: both triples' errors meet at the boundary */
			double at = r[i].log_samples_to;
			double k1 = key(&m, budget, r[i].head_dim, r[i].kv_heads, at);
			double k2 = key(&m, budget, r[i + 1].head_dim, r[i + 1].kv_heads, at);
			cr_assert(fabs(k1 - k2) <= 1e-9 * fmax(1.0, fabs(k1)),
			          "boundary %zu of D %lu: %.17g vs %.17g", i,
			          (unsigned long)budget, k1, k2);
			double delta = 1e-6 * fmax(1.0, at);
			check_point(&m, budget, div, nd, &kv, r, n, at - delta);
			check_point(&m, budget, div, nd, &kv, r, n, at + delta);
		}
		double last = n > 1 ? r[n - 1].log_samples_from : 10.0;
		double top = fmin(1.2 * last + 5.0, 5000.0);
		for (int i = 0; i <= 120; i++)
			check_point(&m, budget, div, nd, &kv, r, n, top * i / 120.0);
		checked++;
		free(r);
		ha_solver_free(solver);
	}
	cr_assert_gt(checked, 40);
	(void)infeasible;
}

Test(regime_grouped, ungrouped_is_the_plain_table_bit_for_bit)
{
	static const uint64_t budgets[] = {4096, 3072, 720, 5040, 512};
	srand(7);
	for (int trial = 0; trial < 40; trial++) {
		uint64_t budget = budgets[trial % 5];
		struct ha_model m = random_model();
		m.group_hdi = 0.0; /* rho_g = 1 >= rho: G = H at every d */
		if (trial % 8 == 0)
			m.hdi = 0.0;
		struct ha_solver *solver = NULL;
		cr_assert_eq(ha_solver_new(budget, NULL, &solver), HA_OK);
		struct ha_regime *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		size_t nf;
		const uint64_t *feasible = ha_solver_feasible(solver, &nf);
		cr_assert_eq(ha_regime_compute(&m, budget, feasible, nf, &a, &na), HA_OK);
		cr_assert_eq(ha_regime_compute_grouped(solver, &m, NULL, &b, &nb), HA_OK);
		cr_assert_eq(na, nb);
		for (size_t i = 0; i < na; i++) {
			cr_assert_eq(a[i].heads, b[i].heads);
			cr_assert_eq(a[i].head_dim, b[i].head_dim);
			cr_assert_eq(b[i].kv_heads, b[i].heads);
			cr_assert_eq(a[i].kv_heads, a[i].heads);
			cr_assert_eq(a[i].log_samples_from, b[i].log_samples_from);
			cr_assert_eq(a[i].log_samples_to, b[i].log_samples_to);
			cr_assert_eq(a[i].unbounded, b[i].unbounded);
		}
		free(a);
		free(b);
		ha_solver_free(solver);
	}
}

Test(regime_grouped, refusals)
{
	struct ha_model m = ha_model_defaults();
	struct ha_solver *solver = NULL;
	cr_assert_eq(ha_solver_new(4096, NULL, &solver), HA_OK);
	struct ha_regime *r = (struct ha_regime *)1;
	size_t n = 5;
	struct ha_kv_constraints bad = {0, 0, 8, 4};
	cr_assert_eq(ha_regime_compute_grouped(solver, &m, &bad, &r, &n), HA_EINVAL);
	cr_assert_null(r);
	cr_assert_eq(n, 0);
	cr_assert_eq(ha_regime_compute_grouped(NULL, &m, NULL, &r, &n), HA_EINVAL);
	cr_assert_eq(ha_regime_compute_grouped(solver, NULL, NULL, &r, &n), HA_EINVAL);
	struct ha_model wrong = m;
	wrong.group_hdi = 1.5;
	cr_assert_eq(ha_regime_compute_grouped(solver, &wrong, NULL, &r, &n),
	             HA_EINVAL);
	struct ha_kv_constraints none = {3, 0, 0, 0}; /* 3 divides no H of 4096 */
	cr_assert_eq(ha_regime_compute_grouped(solver, &m, &none, &r, &n),
	             HA_EINFEASIBLE);
	ha_solver_free(solver);

	/* The budget of the grouped solver's limit, and the message. */
	uint64_t huge = 897612484786617600u;
	struct ha_regimes *g = (struct ha_regimes *)1;
	struct ha_error err;
	ha_error_init(&err);
	cr_assert_eq(ha_regimes_new_grouped(&m, NULL, NULL, &huge, 1, NULL, &g, &err),
	             HA_EUNSUPPORTED);
	cr_assert_null(g);
	cr_assert_str_eq(err.message, "897612484786617600: the grouped regimes would "
	                 "evaluate up to 159432300 triples (H, G, d); at most "
	                 "4194304 are allowed (see LIMITS in headalloc(1))");
	uint64_t budget = 4096;
	ha_error_init(&err);
	cr_assert_eq(ha_regimes_new_grouped(&m, NULL, &none, &budget, 1, NULL, &g,
	                                    &err), HA_EINFEASIBLE);
	cr_assert_str_eq(err.message, "no (heads, kv_heads, head_dim) of budget "
	                 "4096 meets the KV constraints");
	cr_assert_eq(ha_regimes_new_grouped(&m, NULL, NULL, &budget, 1, NULL, &g,
	                                    &err), HA_OK);
	cr_assert(g->grouped);
	cr_assert_eq(g->count, 1);
	ha_regimes_free(g);
}
