/* The solver against independent methods: brute-force enumeration of every
 * divisor (found by trial division where D is small) and a GSL root of the
 * stationarity equation of headalloc-model(7), THE CONTINUOUS RELAXATION. */
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include <headalloc/headalloc.h>

/* xorshift64*: reproducible random numbers without global state. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

static double uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random(state) >> 11) / 9007199254740992.0;
}

static double log_uniform(uint64_t *state, double lo, double hi)
{
	return exp(uniform(state, log(lo), log(hi)));
}

static int feasible(uint64_t D, uint64_t d, const struct ha_constraints *c)
{
	uint64_t H = D / d;
	return (!c->head_dim_multiple || d % c->head_dim_multiple == 0) &&
	       (!c->min_head_dim || d >= c->min_head_dim) &&
	       (!c->max_head_dim || d <= c->max_head_dim) &&
	       (!c->min_heads || H >= c->min_heads) &&
	       (!c->max_heads || H <= c->max_heads);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* ln(MSE / c_b) in long double, written apart from the library's code:
 * the comparisons of the tie rule need more digits than ln MSE keeps when
 * ln c_b is large. */
static long double reference_log_relative_mse(const struct ha_model *m,
                                              uint64_t D, uint64_t d)
{
	long double dd = (long double)d, H = (long double)(D / d);
	long double rho = 1.0L - (long double)m->hdi;
	long double a = -(long double)m->smoothness * logl(dd);
	long double b = logl((long double)m->var_coef) - logl((long double)m->bias_coef) +
	                0.5L * dd * logl(dd) - logl((long double)m->samples) +
	                logl(rho + (1.0L - rho) / H);
	long double hi = a > b ? a : b, lo = a > b ? b : a;
	return hi + log1pl(expl(lo - hi));
}

/* The brute-force answer: every divisor evaluated, the smallest d within a
 * relative 1e-12 of the minimum.  Returns 0 when nothing is feasible. */
static uint64_t brute_force(uint64_t D, const struct ha_constraints *c,
                            const struct ha_model *m)
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
		long double v = reference_log_relative_mse(m, D, divs[i]);
		if (v < min)
			min = v;
	}
	uint64_t best = 0;
	for (size_t i = 0; i < count && !best; i++) {
		if (!feasible(D, divs[i], c))
			continue;
		if (reference_log_relative_mse(m, D, divs[i]) <= min + 1e-12L)
			best = divs[i];
	}
	free(divs);
	return best;
}

static uint64_t pick_budget(uint64_t *rng)
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

static uint64_t maybe(uint64_t *rng, uint64_t value)
{
	return next_random(rng) % 4 == 0 ? value : 0;
}

static struct ha_constraints pick_constraints(uint64_t *rng, uint64_t D)
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

static struct ha_model pick_model(uint64_t *rng)
{
	struct ha_model m = ha_model_defaults();
	m.samples = log_uniform(rng, 1.001, 1e300);
	m.smoothness = log_uniform(rng, 0.05, 8);
	m.bias_coef = log_uniform(rng, 1e-6, 1e6);
	m.var_coef = log_uniform(rng, 1e-6, 1e6);
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	return m;
}

Test(solver, agrees_with_brute_force_on_10000_random_cases, .timeout = 600)
{
	uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);
	int solved = 0, infeasible = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		struct ha_model m = pick_model(&rng);
		uint64_t want = brute_force(D, &c, &m);

		struct ha_solution sol;
		enum ha_status st = ha_solve(D, &c, &m, &sol);
		if (!want) {
			cr_assert_eq(st, HA_EINFEASIBLE, "case %d D=%llu", i,
			             (unsigned long long)D);
			infeasible++;
			continue;
		}
		cr_assert_eq(st, HA_OK, "case %d: %s D=%llu n=%.17g s=%.17g cb=%.17g cv=%.17g hdi=%.17g c={%llu,%llu,%llu,%llu,%llu}", i, ha_status_str(st), (unsigned long long)D, m.samples, m.smoothness, m.bias_coef, m.var_coef, m.hdi, (unsigned long long)c.head_dim_multiple, (unsigned long long)c.min_head_dim, (unsigned long long)c.max_head_dim, (unsigned long long)c.min_heads, (unsigned long long)c.max_heads);
		cr_assert_eq(sol.optimum.head_dim, want,
		             "case %d D=%llu n=%g s=%g hdi=%g: got d=%llu, brute force %llu",
		             i, (unsigned long long)D, m.samples, m.smoothness, m.hdi,
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
		m.samples = log_uniform(&rng, 1e100, 1e300);
		m.smoothness = log_uniform(&rng, 1e-13, 1e-10);
		m.bias_coef = log_uniform(&rng, 1e100, 1e300);
		m.var_coef = log_uniform(&rng, 1e-3, 1e3);
		m.hdi = uniform(&rng, 0, 1);
		struct ha_constraints none = {0, 0, 0, 0, 0};
		uint64_t want = brute_force(D, &none, &m);
		struct ha_solution sol;
		cr_assert_eq(ha_solve(D, NULL, &m, &sol), HA_OK);
		cr_assert_eq(sol.optimum.head_dim, want,
		             "D=%llu n=%.17g s=%.17g cb=%.17g cv=%.17g hdi=%.17g: got %llu, brute force %llu",
		             (unsigned long long)D, m.samples, m.smoothness, m.bias_coef,
		             m.var_coef, m.hdi, (unsigned long long)sol.optimum.head_dim,
		             (unsigned long long)want);
		struct ha_solver *s;
		struct ha_allocation *rows;
		size_t count;
		cr_assert_eq(ha_solver_new(D, NULL, &s), HA_OK);
		cr_assert_eq(ha_solver_enumerate(s, &m, &rows, &count), HA_OK);
		cr_assert_eq(rows[0].head_dim, want);
		ties += rows[1].terms.log_mse <= rows[0].terms.log_mse + 1e-12;
		free(rows);
		ha_solver_free(s);
	}
	/* The cases really were ties, not clear-cut minima. */
	cr_assert_gt(ties, 500);
}

struct stationarity {
	double s, cb, cv, n, D;
};

/* (x/2 + s + 2) ln x + ln(ln x / 2 + 1/2 + 1/x) - ln(s c_b n D / c_v). */
static double stationarity_residual(double x, void *data)
{
	const struct stationarity *p = data;
	return (x / 2 + p->s + 2) * log(x) + log(0.5 * log(x) + 0.5 + 1 / x) -
	       log(p->s * p->cb * p->n * p->D / p->cv);
}

static double brent_root(struct stationarity *p, double lo, double hi)
{
	gsl_function F = {stationarity_residual, p};
	gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	gsl_root_fsolver_set(solver, &F, lo, hi);
	double root = lo;
	for (int i = 0; i < 200; i++) {
		gsl_root_fsolver_iterate(solver);
		root = gsl_root_fsolver_root(solver);
		double a = gsl_root_fsolver_x_lower(solver);
		double b = gsl_root_fsolver_x_upper(solver);
		if (gsl_root_test_interval(a, b, 0, 1e-15) == GSL_SUCCESS)
			break;
	}
	gsl_root_fsolver_free(solver);
	return root;
}

Test(solver, relaxation_is_the_root_of_the_stationarity_equation)
{
	uint64_t rng = 12345;
	int checked = 0;
	for (int i = 0; i < 2000; i++) {
		uint64_t D = UINT64_C(1) << (1 + next_random(&rng) % 62);
		struct ha_model m = ha_model_defaults();
		m.samples = log_uniform(&rng, 1.01, 1e300);
		m.smoothness = log_uniform(&rng, 0.1, 6);
		m.bias_coef = log_uniform(&rng, 1e-3, 1e3);
		m.var_coef = log_uniform(&rng, 1e-3, 1e3);
		struct stationarity p = {m.smoothness, m.bias_coef, m.var_coef,
		                         m.samples, (double)D};
		/* Only interior optima: the residual changes sign on [1, D]. */
		if (stationarity_residual(1.0, &p) >= 0 ||
		    stationarity_residual((double)D, &p) <= 0)
			continue;
		double root = brent_root(&p, 1.0, (double)D);
		struct ha_solution sol;
		cr_assert_eq(ha_solve(D, NULL, &m, &sol), HA_OK);
		cr_assert(fabs(sol.relaxed.head_dim - root) <= 1e-10 * root,
		          "D=%llu n=%g s=%g: NLopt %.17g, Brent %.17g",
		          (unsigned long long)D, m.samples, m.smoothness,
		          sol.relaxed.head_dim, root);
		/* The integer optimum is one of the two divisors around x*. */
		cr_assert(sol.optimum.head_dim <= 2 * ceil(root) &&
		          2 * sol.optimum.head_dim >= floor(root));
		checked++;
	}
	cr_assert_gt(checked, 1000);
}

/* The relaxed objective's slope d ln f / dx in long double, written apart
 * from the library's code: f(x) = A + B with A = c_b x^-s and
 * B = c_v x^(x/2) g / n, g = rho + (1 - rho) x / D; the weights A/f and
 * B/f each from their own logistic, so neither loses digits. */
struct relaxed_reference {
	const struct ha_model *m;
	double D;
};

static double reference_relaxed_slope(double xd, void *data)
{
	const struct relaxed_reference *p = data;
	const struct ha_model *m = p->m;
	long double x = xd, rho = 1.0L - (long double)m->hdi;
	long double g = rho + (1.0L - rho) * x / (long double)p->D;
	long double la = logl((long double)m->bias_coef) -
	                 (long double)m->smoothness * logl(x);
	long double lb = logl((long double)m->var_coef) + 0.5L * x * logl(x) +
	                 logl(g) - logl((long double)m->samples);
	long double wa = 1.0L / (1.0L + expl(lb - la));
	long double wb = 1.0L / (1.0L + expl(la - lb));
	return (double)(wa * (-(long double)m->smoothness / x) +
	                wb * (0.5L * (logl(x) + 1.0L) +
	                      (1.0L - rho) / ((long double)p->D * g)));
}

/* The spec's relaxed interval: the bounds on d and on H = D/d, and d at
 * least the multiple. */
static void reference_interval(uint64_t D, const struct ha_constraints *c,
                               double *lo, double *hi)
{
	*lo = 1.0;
	*hi = (double)D;
	if (c->min_head_dim)
		*lo = fmax(*lo, (double)c->min_head_dim);
	if (c->head_dim_multiple)
		*lo = fmax(*lo, (double)c->head_dim_multiple);
	if (c->max_heads)
		*lo = fmax(*lo, (double)D / (double)c->max_heads);
	if (c->max_head_dim)
		*hi = fmin(*hi, (double)c->max_head_dim);
	if (c->min_heads)
		*hi = fmin(*hi, (double)D / (double)c->min_heads);
}

/* With constraints and any HDI: f is convex, so the relaxed optimum is the
 * bound f slopes down to when its slope keeps one sign on the interval,
 * else the root of the slope (found here by GSL's Brent on the reference
 * slope). */
Test(solver, relaxed_optimum_under_constraints_and_any_hdi)
{
	uint64_t rng = 2024;
	int at_lo = 0, at_hi = 0, inside = 0;
	for (int i = 0; i < 3000; i++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		struct ha_model m = pick_model(&rng);
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		struct ha_relaxed r;
		cr_assert_eq(ha_solver_solve_relaxed(s, &m, &r), HA_OK);
		ha_solver_free(s);

		double lo, hi, want;
		reference_interval(D, &c, &lo, &hi);
		struct relaxed_reference p = {&m, (double)D};
		if (!(hi > lo) || reference_relaxed_slope(lo, &p) >= 0) {
			want = lo;
			at_lo++;
		} else if (reference_relaxed_slope(hi, &p) <= 0) {
			want = hi;
			at_hi++;
		} else {
			gsl_function F = {reference_relaxed_slope, &p};
			gsl_root_fsolver *solver =
				gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
			gsl_root_fsolver_set(solver, &F, lo, hi);
			want = lo;
			for (int k = 0; k < 300; k++) {
				gsl_root_fsolver_iterate(solver);
				want = gsl_root_fsolver_root(solver);
				if (gsl_root_test_interval(gsl_root_fsolver_x_lower(solver),
				                           gsl_root_fsolver_x_upper(solver),
				                           0, 1e-15) == GSL_SUCCESS)
					break;
			}
			gsl_root_fsolver_free(solver);
			inside++;
		}
		cr_assert(r.head_dim >= lo && r.head_dim <= hi,
		          "case %d: x* %.17g outside [%.17g, %.17g]", i, r.head_dim,
		          lo, hi);
		cr_assert(fabs(r.head_dim - want) <= 1e-9 * want,
		          "case %d D=%llu n=%g s=%g hdi=%g [%.17g, %.17g]: x* %.17g, "
		          "reference %.17g", i, (unsigned long long)D, m.samples,
		          m.smoothness, m.hdi, lo, hi, r.head_dim, want);
		cr_assert(fabs(r.heads * r.head_dim - (double)D) <= 1e-12 * (double)D);
		cr_assert(isfinite(r.log_mse));
	}
	/* All three shapes of the answer came up. */
	cr_assert_gt(at_lo, 100);
	cr_assert_gt(at_hi, 100);
	cr_assert_gt(inside, 1000);

	/* An interval of one point. */
	struct ha_constraints point = {.min_head_dim = 64, .max_head_dim = 64};
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	cr_assert_eq(ha_solve(4096, &point, &m, &sol), HA_OK);
	cr_assert_eq(sol.relaxed.head_dim, 64.0);
	cr_assert_eq(sol.relaxed.heads, 64.0);
	cr_assert_eq(sol.optimum.head_dim, 64);
}

Test(solver, main_job_answer)
{
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	cr_assert_eq(ha_solve(512, NULL, &m, &sol), HA_OK);
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
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	cr_assert_eq(ha_solve(1, NULL, &m, &sol), HA_OK);
	cr_assert_eq(sol.optimum.heads, 1);
	cr_assert_eq(sol.optimum.head_dim, 1);
	cr_assert_eq(sol.certificate.method, HA_CERT_EXHAUSTIVE);
	cr_assert_eq(sol.relaxed.head_dim, 1.0);
	cr_assert_eq(ha_solve(UINT64_C(9223372036854775783), NULL, &m, &sol), HA_OK);
	cr_assert_eq(sol.certificate.divisors, 2);
	cr_assert_eq(sol.certificate.evaluated, 2);
}

Test(solver, constraints_are_honoured)
{
	struct ha_model m = ha_model_defaults();
	m.samples = 2e12;
	struct ha_constraints c = {.head_dim_multiple = 64};
	struct ha_solution sol;
	cr_assert_eq(ha_solve(4096, &c, &m, &sol), HA_OK);
	cr_assert_eq(sol.optimum.head_dim % 64, 0);
	struct ha_constraints none = {0, 0, 0, 0, 0};
	struct ha_constraints bad = {.min_heads = 10, .max_heads = 3};
	cr_assert_eq(ha_solve(4096, &bad, &m, &sol), HA_EINVAL);
	struct ha_constraints impossible = {.head_dim_multiple = 3};
	cr_assert_eq(ha_solve(4096, &impossible, &m, &sol), HA_EINFEASIBLE);
	cr_assert_eq(ha_solve(0, &none, &m, &sol), HA_EINVAL);
	cr_assert_eq(ha_solve(HA_BUDGET_MAX + 1, &none, &m, &sol), HA_EINVAL);
	/* The relaxed optimum stays inside the bounds on d and H. */
	struct ha_constraints box = {.min_head_dim = 100, .max_heads = 8};
	cr_assert_eq(ha_solve(4096, &box, &m, &sol), HA_OK);
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
		struct ha_model m = pick_model(&rng);
		struct ha_solver *s;
		cr_assert_eq(ha_solver_new(D, NULL, &s), HA_OK);
		struct ha_solution sol;
		cr_assert_eq(ha_solver_solve(s, &m, &sol), HA_OK);
		struct ha_allocation *rows;
		size_t count;
		cr_assert_eq(ha_solver_enumerate(s, &m, &rows, &count), HA_OK);
		cr_assert_eq(count, ha_solver_divisor_count(s));
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
	struct ha_model m = ha_model_defaults();
	struct ha_solution sol;
	uint64_t D = UINT64_C(897612484786617600);
	cr_assert_eq(ha_solve(D, NULL, &m, &sol), HA_OK);
	cr_assert_eq(sol.certificate.divisors, 103680);
	cr_assert_eq(sol.optimum.head_dim, brute_force(D, &(struct ha_constraints){0, 0, 0, 0, 0}, &m));
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

/* ---- the generalised model (headalloc-model(7), CALIBRATION (The parameters)) ------------------------ */

/* ln((MSE - E)/c_b) of the generalised model in long double, apart from
 * the library (E moves no argmin: the solver leaves it out). */
static long double reference_general(const struct ha_model *m, uint64_t D,
                                     uint64_t d)
{
	long double x = (long double)d, H = (long double)(D / d);
	long double rho = 1.0L - (long double)m->hdi;
	long double a = -(long double)m->smoothness * logl(x);
	long double b = (long double)ha_model_log_var_coef(m) -
	                (long double)ha_model_log_bias_coef(m) +
	                ((long double)m->var_rate * x + (long double)m->var_power) * logl(x) -
	                logl((long double)m->samples) + logl(rho + (1.0L - rho) / H);
	long double hi = a > b ? a : b, lo = a > b ? b : a;
	return hi + log1pl(expl(lo - hi));
}

/* Every feasible divisor by trial division (D <= 1e6 here); the smallest
 * d within 1e-12 of the minimum.  *count gets the feasible count. */
static uint64_t brute_general(uint64_t D, const struct ha_constraints *c,
                              const struct ha_model *m, size_t *count,
                              uint64_t *smallest)
{
	long double min = INFINITY;
	*count = 0;
	*smallest = 0;
	for (uint64_t d = 1; d <= D; d++)
		if (D % d == 0 && feasible(D, d, c)) {
			long double v = reference_general(m, D, d);
			min = v < min ? v : min;
			if (!(*count)++)
				*smallest = d;
		}
	for (uint64_t d = 1; d <= D; d++)
		if (D % d == 0 && feasible(D, d, c) &&
		    reference_general(m, D, d) <= min + 1e-12L)
			return d;
	return 0;
}

static struct ha_model pick_general_model(uint64_t *rng)
{
	struct ha_model m = ha_model_defaults();
	m.samples = log_uniform(rng, 1.001, 1e30);
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
		struct ha_model m = pick_general_model(&rng);
		size_t count;
		uint64_t smallest;
		uint64_t want = brute_general(D, &c, &m, &count, &smallest);
		struct ha_solution sol;
		enum ha_status st = ha_solve(D, &c, &m, &sol);
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
		cr_assert_eq(ha_model_eval(&m, D, want, &t), HA_OK);
		cr_assert_eq(sol.optimum.terms.mse, t.mse);
		/* The relaxation is a lower bound of the reducible part. */
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, (double)D);
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
		struct ha_model m = pick_general_model(&rng);
		struct ha_solution sol;
		cr_assert_eq(ha_solve(D, NULL, &m, &sol), HA_OK);
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, (double)D);
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

/* One allocation as a result: the solution is ha_solve's, the candidates
 * ha_solver_enumerate's, and the landscape every divisor of D found by
 * trial division, its error ha_model_eval's, feasible exactly when the
 * constraints (checked here by hand) allow it. */
Test(solver, allocation_result)
{
	struct ha_model m = ha_model_defaults();
	m.samples = 1e7;
	struct ha_constraints c = {.head_dim_multiple = 8, .max_heads = 32};
	const uint64_t budget = 768;
	struct ha_allocation_result *a = NULL;
	cr_assert_eq(ha_allocation_result_new(budget, &c, NULL, &m,
	             HA_ALLOCATION_CANDIDATES | HA_ALLOCATION_DIVISORS, &a, NULL), HA_OK);
	struct ha_solution want;
	cr_assert_eq(ha_solve(budget, &c, &m, &want), HA_OK);
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
		cr_assert_eq(ha_model_eval(&m, budget, d, &t), HA_OK);
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
	cr_assert_eq(ha_allocation_result_new(budget, &none, NULL, &m, 0, &a, &err),
	             HA_EINFEASIBLE);
	cr_assert_null(a);
	cr_assert_str_eq(err.message, "no (heads, head_dim) pair of budget 768 "
	                 "meets the constraints");
	ha_allocation_result_free(NULL);
}
