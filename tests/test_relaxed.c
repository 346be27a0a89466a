/* The relaxed optimum x*: defined by the canonical bisection of
 * relaxed_root.c and reached by its shortcut from any estimate.  The
 * tests: the shortcut against the definition itself (every question
 * evaluated) on random problems and random estimates; x* against an
 * independent long double bisection; the old per-point solve (commit
 * 68dfc38, NLopt then regula falsi in u) within a few ulps; the relaxed
 * mse attained at the x* printed.  A workspace in sweeps and tables is
 * in test_relaxed_workspace.c. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <nlopt.h>

#include <headalloc/headalloc.h>

#include "relaxed_problems.h"

#include "alloc/solver_internal.h"

/* ---- the per-point solve of 68dfc38 -------------------------------------- */

struct old_problem {
	struct ha_relaxed_fn fn;
};

static double old_objective(unsigned n, const double *u, double *grad, void *data)
{
	(void)n;
	const struct old_problem *p = data;
	return ha_relaxed_fn_eval(&p->fn, u[0], grad);
}

static double old_slope(const struct old_problem *p, double u)
{
	double grad;
	old_objective(1, &u, &grad, (void *)p);
	return grad;
}

static double old_polish(const struct old_problem *p, double u, double lo,
                         double hi)
{
	double g = old_slope(p, u);
	if (g == 0.0 || !isfinite(g))
		return u;
	double a = u, b = u;
	double step = 1e-9 * (fabs(u) > 1.0 ? fabs(u) : 1.0);
	for (int i = 0; i < 80; i++) {
		b = g < 0 ? a + step : a - step;
		if (b >= hi || b <= lo) {
			b = b >= hi ? hi : lo;
			if ((old_slope(p, b) < 0) == (g < 0))
				return b;
			break;
		}
		if ((old_slope(p, b) < 0) != (g < 0))
			break;
		a = b;
		step *= 2.0;
	}
	double ga = g, gb = old_slope(p, b);
	int side = 0;
	for (int i = 0; i < 200; i++) {
		double x = (a * gb - b * ga) / (gb - ga);
		double lo_ab = a < b ? a : b, hi_ab = a < b ? b : a;
		if (!(x > lo_ab && x < hi_ab))
			x = 0.5 * (a + b);
		if (x == a || x == b)
			break;
		double gx = old_slope(p, x);
		if (gx == 0.0)
			return x;
		if ((gx < 0) == (ga < 0)) {
			a = x;
			ga = gx;
			if (side == -1)
				gb *= 0.5;
			side = -1;
		} else {
			b = x;
			gb = gx;
			if (side == 1)
				ga *= 0.5;
			side = 1;
		}
		if (fabs(b - a) <= 4e-16 * fabs(a))
			break;
	}
	return fabs(ga) < fabs(gb) ? a : b;
}

static double old_start(const struct ha_model *m, double samples, double budget, double lo,
                        double hi)
{
	double rhs = log(m->smoothness * m->bias_coef / m->var_coef) +
	             log(samples) + log(budget);
	double u = 1.0;
	for (int i = 0; i < 6; i++) {
		double x = exp(u);
		double g = (0.5 * x + m->smoothness + 2.0) * u - rhs;
		double dg = 0.5 * x * u + 0.5 * x + m->smoothness + 2.0;
		double step = g / dg;
		u -= step > 1.0 ? 1.0 : step < -1.0 ? -1.0 : step;
	}
	if (!isfinite(u) || u < lo)
		u = lo;
	if (u > hi)
		u = hi;
	return u;
}

static enum ha_status old_nlopt(struct old_problem *p, double lo, double hi,
                                double *u)
{
	nlopt_opt opt = nlopt_create(NLOPT_LD_SLSQP, 1);
	if (!opt)
		return HA_ENOMEM;
	nlopt_result r = nlopt_set_min_objective(opt, old_objective, p);
	if (r > 0)
		r = nlopt_set_lower_bounds1(opt, lo);
	if (r > 0)
		r = nlopt_set_upper_bounds1(opt, hi);
	if (r > 0)
		r = nlopt_set_xtol_rel(opt, 1e-7);
	if (r > 0)
		r = nlopt_set_maxeval(opt, 500);
	double start_f = old_objective(1, u, NULL, p);
	double u_opt = *u, f_opt = start_f;
	if (r > 0)
		r = nlopt_optimize(opt, &u_opt, &f_opt);
	nlopt_destroy(opt);
	if (r == NLOPT_OUT_OF_MEMORY)
		return HA_ENOMEM;
	if (r < 0 && r != NLOPT_ROUNDOFF_LIMITED)
		return HA_ENUMERIC;
	if (isfinite(u_opt) && u_opt >= lo && u_opt <= hi && f_opt <= start_f)
		*u = u_opt;
	return HA_OK;
}

/* The relaxed interval of solver.c (x_lo, x_hi) for budget D under c. */
static void old_interval(uint64_t budget, const struct ha_constraints *c,
                         double *lo, double *hi)
{
	double D = (double)budget;
	*lo = 1.0;
	*hi = D;
	if (c->min_head_dim && (double)c->min_head_dim > *lo)
		*lo = (double)c->min_head_dim;
	if (c->head_dim_multiple && (double)c->head_dim_multiple > *lo)
		*lo = (double)c->head_dim_multiple;
	if (c->max_heads && D / (double)c->max_heads > *lo)
		*lo = D / (double)c->max_heads;
	if (c->max_head_dim && (double)c->max_head_dim < *hi)
		*hi = (double)c->max_head_dim;
	if (c->min_heads && D / (double)c->min_heads < *hi)
		*hi = D / (double)c->min_heads;
}

static enum ha_status old_solve(uint64_t budget, const struct ha_constraints *c,
                                const struct ha_model *m, double n_samples,
                                struct ha_relaxed *out)
{
	double x_lo, x_hi;
	old_interval(budget, c, &x_lo, &x_hi);
	struct old_problem problem;
	double D = (double)budget;
	ha_relaxed_fn_init(&problem.fn, m, n_samples, D);
	double lo = log(x_lo), hi = log(x_hi), u;
	if (!(hi > lo) || old_slope(&problem, lo) >= 0) {
		u = lo;
	} else if (old_slope(&problem, hi) <= 0) {
		u = hi;
	} else {
		u = old_start(m, n_samples, D, lo, hi);
		enum ha_status st = old_nlopt(&problem, lo, hi, &u);
		if (st == HA_ENOMEM)
			return st;
		u = old_polish(&problem, u, lo, hi);
	}
	out->head_dim = exp(u);
	if (out->head_dim < x_lo)
		out->head_dim = x_lo;
	if (out->head_dim > x_hi)
		out->head_dim = x_hi;
	out->heads = D / out->head_dim;
	out->log_mse = ha_model_log_relaxed_ln(m, n_samples, D, u, NULL);
	if (!isfinite(out->head_dim) || !isfinite(out->log_mse))
		return HA_ENUMERIC;
	return HA_OK;
}

/* The shortcut's answer is the definition's, from any estimate: the
 * neighbour's answer of a sweep, NLopt's point, a random double of the
 * interval, a bound. */
Test(relaxed, the_shortcut_answers_as_the_definition_from_any_estimate,
     .timeout = 600)
{
	uint64_t rng = 20261201;
	size_t compared = 0, interior = 0;
	for (int problem = 0; problem < 3000; problem++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		double x_lo, x_hi;
		old_interval(D, &c, &x_lo, &x_hi);
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
		struct ha_relaxed_root root;
		ha_relaxed_root_init(&root, &fn, x_lo, x_hi);
		double want = ha_relaxed_root_solve(&root, NAN, 0.0);
		double estimates[6] = {
			NAN, x_lo, x_hi, want, nextafter(want, 0.0),
			exp(uniform(&rng, log(x_lo), log(x_hi > x_lo ? x_hi : x_lo))),
		};
		for (int e = 0; e < 6; e++) {
			double got = ha_relaxed_root_solve(&root, estimates[e], 0.0);
			cr_assert(memcmp(&got, &want, sizeof got) == 0,
			          "D=%llu n=%.17g s=%.17g γ=%.17g κ=%.17g hdi=%.17g "
			          "from %.17g: %.17g, defined %.17g",
			          (unsigned long long)D, n_samples, m.smoothness,
			          m.var_rate, m.var_power, m.hdi, estimates[e], got, want);
			compared++;
		}
		interior += want > x_lo && want < x_hi;
	}
	cr_assert_eq(compared, 18000);
	cr_assert_gt(interior, 1500);
}

/* The computed Q in long double, independently of relaxed_root.c: the
 * sign of f'(x) from its terms, as ln(V' x) - ln(s B). */
static long double q_long(const struct ha_model *m, double samples, double budget, long double x)
{
	long double u = logl(x), rho = 1.0L - m->hdi;
	long double a = (1.0L - rho) * x / budget;
	long double log_b = ha_model_log_bias_coef(m) - m->smoothness * u;
	long double log_v = ha_model_log_var_coef(m) - logl(samples) +
	                    (m->var_rate * x + m->var_power) * u + logl(rho + a);
	long double dv = m->var_rate * x * (u + 1.0L) + m->var_power + a / (rho + a);
	return log_v + logl(dv) - logl(m->smoothness) - log_b;
}

/* x* against a long double bisection of Q in x: the root lies between
 * the double below x* and x* itself, up to the uncertainty of the double
 * computation (a relative 1e-12 of ln x's scale here, far above Q's). */
Test(relaxed, x_star_brackets_the_long_double_root, .timeout = 600)
{
	uint64_t rng = 7;
	size_t checked = 0;
	for (int problem = 0; problem < 3000; problem++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		struct ha_relaxed r;
		cr_assert_eq(ha_solver_solve_relaxed(s, &m, n_samples, &r), HA_OK);
		double x_lo, x_hi;
		old_interval(D, &c, &x_lo, &x_hi);
		ha_solver_free(s);
		long double lo = x_lo, hi = x_hi;
		if (!(hi > lo) || q_long(&m, n_samples, (double)D, lo) >= 0 || q_long(&m, n_samples, (double)D, hi) < 0)
			continue;
		for (int i = 0; i < 200; i++) {
			long double mid = 0.5L * (lo + hi);
			if (mid == lo || mid == hi)
				break;
			if (q_long(&m, n_samples, (double)D, mid) >= 0)
				hi = mid;
			else
				lo = mid;
		}
		double below = nextafter(r.head_dim, 0.0);
		double tol = 1e-12 * (1.0 + log(r.head_dim)) * r.head_dim;
		cr_assert(hi >= below - tol && hi <= r.head_dim + tol,
		          "D=%llu n=%.17g s=%.17g: x* %.17g, long double root %.20Lg",
		          (unsigned long long)D, n_samples, m.smoothness, r.head_dim, hi);
		/* And the mse printed is the one at x*: attained there. */
		double at = ha_model_log_relaxed_ln(&m, n_samples, (double)D, log(r.head_dim), NULL);
		cr_assert(fabs(at - r.log_mse) <= 1e-12 * fmax(1.0, fabs(at)));
		checked++;
	}
	cr_assert_gt(checked, 1000);
}

/* The old per-point solve stopped within a few ulps of the root in u:
 * the new x* is within a few ulps of its answer (the measured worst is
 * what the golden regeneration's commit reports). */
Test(relaxed, x_star_is_within_ulps_of_the_old_per_point_solve, .timeout = 600)
{
	uint64_t rng = 20250113;
	size_t compared = 0;
	for (int problem = 0; problem < 2000; problem++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		m.var_rate = 0.5; /* the old solve's starting point */
		m.var_power = 0.0;
		m.irreducible = 0.0;
		struct ha_relaxed got, old = {0, 0, 0};
		enum ha_status st = ha_solver_solve_relaxed(s, &m, n_samples, &got);
		cr_assert_eq(st, old_solve(D, &c, &m, n_samples, &old));
		ha_solver_free(s);
		if (st != HA_OK || m.smoothness > 4)
			continue;
		/* The old solve's u to a few ulps of u, so x to ~ u ulps. */
		double tol = 64 * DBL_EPSILON * (1.0 + log(old.head_dim)) * old.head_dim;
		cr_assert(fabs(got.head_dim - old.head_dim) <= tol,
		          "D=%llu n=%.17g s=%.17g hdi=%.17g: %.17g, old %.17g",
		          (unsigned long long)D, n_samples, m.smoothness, m.hdi,
		          got.head_dim, old.head_dim);
		compared++;
	}
	cr_assert_gt(compared, 1000);
}

/* With s = 1e300 the bias falls from c_b at x = 1 to nothing
 * at the next double; the relaxed mse is the one attained at the x*
 * printed (1 + 2^-52), not the infimum at x -> 1+ that no head
 * dimension attains (the old answer: x* printed 1, whose bias alone is
 * c_b = 1, with the variance's mse). */
Test(relaxed, with_a_huge_smoothness_the_relaxed_mse_is_attained)
{
	struct ha_model m = ha_model_defaults();
	double n_samples = 1e12;
	m.smoothness = 1e300;
	struct ha_solution sol;
	cr_assert_eq(ha_solve(4096, NULL, &m, n_samples, &sol), HA_OK);
	cr_assert_eq(sol.relaxed.head_dim, nextafter(1.0, 2.0));
	double at = ha_model_log_relaxed_ln(&m, n_samples, 4096, log(sol.relaxed.head_dim), NULL);
	cr_assert_eq(sol.relaxed.log_mse, at);
	/* The bias at 1 is c_b = 1: x = 1 is worse than x*. */
	cr_assert_gt(ha_model_log_relaxed_ln(&m, n_samples, 4096, 0.0, NULL), sol.relaxed.log_mse);
}
