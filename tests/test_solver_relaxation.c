/* The solver's continuous relaxation against GSL: the root of the
 * stationarity equation of headalloc-model(7), THE CONTINUOUS RELAXATION,
 * found by Brent's method, and under constraints and any HDI the bound
 * the reference slope points to or the root of that slope. */
#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include <headalloc/headalloc.h>

#include "solver_problems.h"
#include "alloc/solver_internal.h"

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
		double n_samples = log_uniform(&rng, 1.01, 1e300);
		m.smoothness = log_uniform(&rng, 0.1, 6);
		m.bias_coef = log_uniform(&rng, 1e-3, 1e3);
		m.var_coef = log_uniform(&rng, 1e-3, 1e3);
		struct stationarity p = {m.smoothness, m.bias_coef, m.var_coef,
		                         n_samples, (double)D};
		/* Only interior optima: the residual changes sign on [1, D]. */
		if (stationarity_residual(1.0, &p) >= 0 ||
		    stationarity_residual((double)D, &p) <= 0)
			continue;
		double root = brent_root(&p, 1.0, (double)D);
		struct ha_solution sol;
		cr_assert_eq(ha_solve(D, NULL, &m, n_samples, &sol), HA_OK);
		cr_assert(fabs(sol.relaxed.head_dim - root) <= 1e-10 * root,
		          "D=%llu n=%g s=%g: NLopt %.17g, Brent %.17g",
		          (unsigned long long)D, n_samples, m.smoothness,
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
	double samples;
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
	                 logl(g) - logl((long double)p->samples);
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
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		struct ha_relaxed r;
		cr_assert_eq(ha_solver_solve_relaxed(s, &m, n_samples, &r), HA_OK);
		ha_solver_free(s);

		double lo, hi, want;
		reference_interval(D, &c, &lo, &hi);
		struct relaxed_reference p = {&m, n_samples, (double)D};
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
		          "reference %.17g", i, (unsigned long long)D, n_samples,
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
	cr_assert_eq(ha_solve(4096, &point, &m, HA_SAMPLES_DEFAULT, &sol), HA_OK);
	cr_assert_eq(sol.relaxed.head_dim, 64.0);
	cr_assert_eq(sol.relaxed.heads, 64.0);
	cr_assert_eq(sol.optimum.head_dim, 64);
}
