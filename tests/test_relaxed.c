/* The relaxed optimum x*: defined by the canonical bisection of
 * relaxed_root.c and reached by its shortcut from any estimate.  The
 * tests: the shortcut against the definition itself (every question
 * evaluated) on random problems and random estimates; a workspace in
 * sweeps and in random order against one-shot solves; every row of
 * ha_report_table, on one to eight threads, against the single query of
 * its point; x* against an independent long double bisection; the old
 * per-point solve (commit 68dfc38, NLopt then regula falsi in u) within a
 * few ulps; the cost in evaluations. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <nlopt.h>

#include <headalloc/headalloc.h>

#include "sweep_table.h"

#include "alloc/solver_internal.h"

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

static double old_start(const struct ha_model *m, double budget, double lo,
                        double hi)
{
	double rhs = log(m->smoothness * m->bias_coef / m->var_coef) +
	             log(m->samples) + log(budget);
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
                                const struct ha_model *m, struct ha_relaxed *out)
{
	double x_lo, x_hi;
	old_interval(budget, c, &x_lo, &x_hi);
	struct old_problem problem;
	double D = (double)budget;
	ha_relaxed_fn_init(&problem.fn, m, D);
	double lo = log(x_lo), hi = log(x_hi), u;
	if (!(hi > lo) || old_slope(&problem, lo) >= 0) {
		u = lo;
	} else if (old_slope(&problem, hi) <= 0) {
		u = hi;
	} else {
		u = old_start(m, D, lo, hi);
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
	out->log_mse = ha_model_log_relaxed_ln(m, D, u, NULL);
	if (!isfinite(out->head_dim) || !isfinite(out->log_mse))
		return HA_ENUMERIC;
	return HA_OK;
}

/* ---- random problems ------------------------------------------------------ */

static uint64_t pick_budget(uint64_t *rng)
{
	static const uint64_t special[] = {
		1, 2, 7, 512, 4096, 4544, 720720, UINT64_C(4611686018427387904),
		UINT64_C(9223372036854775807), UINT64_C(897612484786617600),
	};
	uint64_t r = next_random(rng) % 8;
	if (r == 0)
		return special[next_random(rng) % (sizeof special / sizeof *special)];
	if (r < 3)
		return 1 + next_random(rng) % 1000000000000;
	return 1 + next_random(rng) % 65536;
}

static struct ha_constraints pick_constraints(uint64_t *rng, uint64_t D)
{
	struct ha_constraints c = {0, 0, 0, 0, 0};
	if (next_random(rng) % 2)
		return c;
	uint64_t top = D < 4096 ? D : 4096;
	if (next_random(rng) % 3 == 0)
		c.head_dim_multiple = 1 + next_random(rng) % 64;
	if (next_random(rng) % 3 == 0)
		c.min_head_dim = 1 + next_random(rng) % top;
	if (next_random(rng) % 3 == 0)
		c.max_heads = 1 + next_random(rng) % top;
	if (next_random(rng) % 3 == 0)
		c.min_heads = 1 + next_random(rng) % 8;
	return c;
}

static struct ha_model pick_model(uint64_t *rng)
{
	struct ha_model m = ha_model_defaults(); /* the fields not drawn below */
	m.samples = log_uniform(rng, 1.001, 1e300);
	m.smoothness = log_uniform(rng, 0.05, 8);
	m.bias_coef = log_uniform(rng, 1e-6, 1e6);
	m.var_coef = log_uniform(rng, 1e-6, 1e6);
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	/* The old solve knew only γ = 1/2, κ = 0 in its starting point, and
	 * E = 0; a quarter of the problems leave those. */
	if (next_random(rng) % 4 == 0) {
		m.var_rate = next_random(rng) % 4 == 0 ? 0.0 : log_uniform(rng, 1e-3, 4);
		m.var_power = next_random(rng) % 2 ? 0.0 : log_uniform(rng, 1e-3, 8);
		m.irreducible = next_random(rng) % 2 ? 0.0 : log_uniform(rng, 1e-9, 1);
	}
	return m;
}

static void assert_same(const struct ha_relaxed *got, const struct ha_relaxed *want,
                        uint64_t budget, const struct ha_model *m)
{
	cr_assert(memcmp(&got->head_dim, &want->head_dim, sizeof(double)) == 0 &&
	          memcmp(&got->heads, &want->heads, sizeof(double)) == 0 &&
	          memcmp(&got->log_mse, &want->log_mse, sizeof(double)) == 0,
	          "D=%llu n=%.17g s=%.17g c_b=%.17g c_v=%.17g hdi=%.17g: "
	          "x* %.17g / %.17g, H* %.17g / %.17g, ln f %.17g / %.17g",
	          (unsigned long long)budget, m->samples, m->smoothness,
	          m->bias_coef, m->var_coef, m->hdi, got->head_dim, want->head_dim,
	          got->heads, want->heads, got->log_mse, want->log_mse);
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
		struct ha_model m = pick_model(&rng);
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, (double)D);
		struct ha_relaxed_root root;
		ha_relaxed_root_init(&root, &fn, x_lo, x_hi);
		double want = ha_relaxed_root_reference(&root);
		double estimates[6] = {
			NAN, x_lo, x_hi, want, nextafter(want, 0.0),
			exp(uniform(&rng, log(x_lo), log(x_hi > x_lo ? x_hi : x_lo))),
		};
		for (int e = 0; e < 6; e++) {
			double got = ha_relaxed_root_solve(&root, estimates[e]);
			cr_assert(memcmp(&got, &want, sizeof got) == 0,
			          "D=%llu n=%.17g s=%.17g γ=%.17g κ=%.17g hdi=%.17g "
			          "from %.17g: %.17g, defined %.17g",
			          (unsigned long long)D, m.samples, m.smoothness,
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
static long double q_long(const struct ha_model *m, double budget, long double x)
{
	long double u = logl(x), rho = 1.0L - m->hdi;
	long double a = (1.0L - rho) * x / budget;
	long double log_b = logl(m->bias_coef) + m->bias_log_scale - m->smoothness * u;
	long double log_v = logl(m->var_coef) + m->var_log_scale - logl(m->samples) +
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
		struct ha_model m = pick_model(&rng);
		struct ha_relaxed r;
		cr_assert_eq(ha_solver_solve_relaxed(s, &m, &r), HA_OK);
		double x_lo, x_hi;
		old_interval(D, &c, &x_lo, &x_hi);
		ha_solver_free(s);
		long double lo = x_lo, hi = x_hi;
		if (!(hi > lo) || q_long(&m, (double)D, lo) >= 0 || q_long(&m, (double)D, hi) < 0)
			continue;
		for (int i = 0; i < 200; i++) {
			long double mid = 0.5L * (lo + hi);
			if (mid == lo || mid == hi)
				break;
			if (q_long(&m, (double)D, mid) >= 0)
				hi = mid;
			else
				lo = mid;
		}
		double below = nextafter(r.head_dim, 0.0);
		double tol = 1e-12 * (1.0 + log(r.head_dim)) * r.head_dim;
		cr_assert(hi >= below - tol && hi <= r.head_dim + tol,
		          "D=%llu n=%.17g s=%.17g: x* %.17g, long double root %.20Lg",
		          (unsigned long long)D, m.samples, m.smoothness, r.head_dim, hi);
		/* And the mse printed is the one at x*: attained there. */
		double at = ha_model_log_relaxed_ln(&m, (double)D, log(r.head_dim), NULL);
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
		struct ha_model m = pick_model(&rng);
		m.var_rate = 0.5; /* the old solve's starting point */
		m.var_power = 0.0;
		m.irreducible = 0.0;
		struct ha_relaxed got, old = {0, 0, 0};
		enum ha_status st = ha_solver_solve_relaxed(s, &m, &got);
		cr_assert_eq(st, old_solve(D, &c, &m, &old));
		ha_solver_free(s);
		if (st != HA_OK || m.smoothness > 4)
			continue;
		/* The old solve's u to a few ulps of u, so x to ~ u ulps. */
		double tol = 64 * DBL_EPSILON * (1.0 + log(old.head_dim)) * old.head_dim;
		cr_assert(fabs(got.head_dim - old.head_dim) <= tol,
		          "D=%llu n=%.17g s=%.17g hdi=%.17g: %.17g, old %.17g",
		          (unsigned long long)D, m.samples, m.smoothness, m.hdi,
		          got.head_dim, old.head_dim);
		compared++;
	}
	cr_assert_gt(compared, 1000);
}

/* A workspace fed a sweep in n (as the table feeds it), then models in
 * random order, then the sweep backwards: every answer that of the
 * one-shot solve, to the bit, and a sweep's later points cost no NLopt
 * and few evaluations. */
Test(relaxed, a_workspace_answers_as_the_one_shot_solve_bit_for_bit,
     .timeout = 600)
{
	uint64_t rng = 20250113;
	size_t compared = 0, swept = 0, sweep_evaluations = 0, sweep_nlopt = 0;
	for (int problem = 0; problem < 300; problem++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		struct ha_relaxed_solver *w;
		cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
		struct ha_model base = pick_model(&rng);
		double from = log_uniform(&rng, 1.001, 1e20);
		double to = from * log_uniform(&rng, 1.0, 1e40);
		for (int k = 0; k < 100; k++) {
			struct ha_model m = base;
			int sweep = k < 40 || k >= 60;
			int i = k < 40 ? k : 99 - k;
			if (sweep)
				m.samples = exp(log(from) + (log(to) - log(from)) * i / 39.0);
			else
				m = pick_model(&rng);
			struct ha_relaxed got, one_shot;
			enum ha_status st = ha_relaxed_solver_solve(w, &m, &got);
			cr_assert_eq(st, ha_solver_solve_relaxed(s, &m, &one_shot));
			if (st != HA_OK)
				continue;
			assert_same(&got, &one_shot, D, &m);
			compared++;
			size_t evaluations, nlopt;
			ha_relaxed_solver_last_cost(w, &evaluations, &nlopt);
			if (k > 0 && k < 40) {
				swept++;
				sweep_evaluations += evaluations;
				sweep_nlopt += nlopt;
			}
		}
		ha_relaxed_solver_free(w);
		ha_solver_free(s);
	}
	cr_assert_gt(compared, 20000);

	cr_assert_eq(sweep_nlopt, 0);
	cr_assert_lt(sweep_evaluations, 16 * swept, "%zu evaluations for %zu points",
	             sweep_evaluations, swept);
}

/* issue 18: with s = 1e300 the bias falls from c_b at x = 1 to nothing
 * at the next double; the relaxed mse is the one attained at the x*
 * printed (1 + 2^-52), not the infimum at x -> 1+ that no head
 * dimension attains (the old answer: x* printed 1, whose bias alone is
 * c_b = 1, with the variance's mse). */
Test(relaxed, with_a_huge_smoothness_the_relaxed_mse_is_attained)
{
	struct ha_model m = ha_model_defaults();
	m.samples = 1e12;
	m.smoothness = 1e300;
	struct ha_solution sol;
	cr_assert_eq(ha_solve(4096, NULL, &m, &sol), HA_OK);
	cr_assert_eq(sol.relaxed.head_dim, nextafter(1.0, 2.0));
	double at = ha_model_log_relaxed_ln(&m, 4096, log(sol.relaxed.head_dim), NULL);
	cr_assert_eq(sol.relaxed.log_mse, at);
	/* The bias at 1 is c_b = 1: x = 1 is worse than x*. */
	cr_assert_gt(ha_model_log_relaxed_ln(&m, 4096, 0.0, NULL), sol.relaxed.log_mse);
}

/* issue 18: a sweep to n = 1e300 (x* grows like ln n) costs a bounded
 * number of evaluations a point, however far n goes. */
Test(relaxed, a_sweep_to_1e300_costs_few_evaluations_a_point)
{
	struct ha_solver *s;
	cr_assert_eq(ha_solver_new(UINT64_C(9223372036854775807), NULL, &s), HA_OK);
	struct ha_relaxed_solver *w;
	cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
	struct ha_model m = ha_model_defaults();
	size_t total = 0, points = 20000, worst = 0;
	for (size_t i = 0; i < points; i++) {
		m.samples = exp(log(1e3) + (log(1e300) - log(1e3)) * (double)i / (double)(points - 1));
		struct ha_relaxed r;
		cr_assert_eq(ha_relaxed_solver_solve(w, &m, &r), HA_OK);
		size_t evaluations, nlopt;
		ha_relaxed_solver_last_cost(w, &evaluations, &nlopt);
		if (i > 0) {
			cr_assert_eq(nlopt, 0);
			total += evaluations;
			worst = evaluations > worst ? evaluations : worst;
		}
	}
	cr_assert_lt(total, 14 * (points - 1), "%zu evaluations", total);
	cr_assert_lt(worst, 40);
	ha_relaxed_solver_free(w);
	ha_solver_free(s);
}

/* A workspace predicts a sweep's next x* from its last two answers; the
 * answer is still the definition's (every question evaluated, from a root
 * prepared by ha_relaxed_fn_init).  On the first sweep (20,000 points,
 * D = 512) the previous answer alone cost 12.87 evaluations a point, the
 * prediction 11.87 (9.81 on 10^6 points). */
Test(relaxed, a_predicted_sweep_answers_as_the_definition, .timeout = 600)
{
	uint64_t rng = 16;
	size_t points = 0, evaluations = 0;
	for (int problem = 0; problem < 40; problem++) {
		uint64_t D = problem == 0 ? 512 : pick_budget(&rng);
		struct ha_solver *s;
		if (ha_solver_new(D, NULL, &s) != HA_OK)
			continue;
		struct ha_relaxed_solver *w;
		cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
		struct ha_model m = problem == 0 ? ha_model_defaults() : pick_model(&rng);
		double from = problem == 0 ? 1e4 : log_uniform(&rng, 1.001, 1e20);
		double to = problem == 0 ? 1e12 : from * log_uniform(&rng, 1e3, 1e40);
		size_t count = problem == 0 ? 20000 : 400;
		for (size_t i = 0; i < count; i++) {
			m.samples = ha_scenario_sweep_value(from, to, count, i);
			struct ha_relaxed got;
			if (ha_relaxed_solver_solve(w, &m, &got) != HA_OK)
				continue;
			struct ha_relaxed_fn fn;
			ha_relaxed_fn_init(&fn, &m, (double)D);
			struct ha_relaxed_root root;
			ha_relaxed_root_init(&root, &fn, 1.0, (double)D);
			double want = ha_relaxed_root_reference(&root);
			cr_assert(memcmp(&got.head_dim, &want, sizeof want) == 0,
			          "D=%llu n=%.17g s=%.17g hdi=%.17g: %.17g, defined %.17g",
			          (unsigned long long)D, m.samples, m.smoothness, m.hdi,
			          got.head_dim, want);
			size_t e, nlopt;
			ha_relaxed_solver_last_cost(w, &e, &nlopt);
			points += problem == 0 && i >= 2;
			evaluations += problem == 0 && i >= 2 ? e : 0;
		}
		ha_relaxed_solver_free(w);
		ha_solver_free(s);
	}
	cr_assert_eq(points, 19998);
	cr_assert_lt(evaluations, 12 * points + points / 4, "%zu evaluations for %zu points",
	             evaluations, points);
}

Test(relaxed, a_workspace_refuses_bad_arguments)
{
	struct ha_solver *s;
	struct ha_relaxed_solver *w = (void *)&s;
	cr_assert_eq(ha_relaxed_solver_new(NULL, &w), HA_EINVAL);
	cr_assert_null(w);
	cr_assert_eq(ha_solver_new(512, NULL, &s), HA_OK);
	cr_assert_eq(ha_relaxed_solver_new(s, NULL), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
	struct ha_model m = ha_model_defaults();
	struct ha_relaxed r;
	cr_assert_eq(ha_relaxed_solver_solve(NULL, &m, &r), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_solve(w, NULL, &r), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_solve(w, &m, NULL), HA_EINVAL);
	m.samples = 1.0;
	cr_assert_eq(ha_relaxed_solver_solve(w, &m, &r), HA_EINVAL);
	ha_relaxed_solver_free(w);
	ha_relaxed_solver_free(NULL);
	ha_solver_free(s);
}

static double table_sample(const void *ctx, size_t i)
{
	return ((const double *)ctx)[i];
}

/* The next number after key in text from *at on (moved past it). */
static double number_after(const char **at, const char *key)
{
	const char *p = strstr(*at, key);
	cr_assert_not_null(p, "no %s", key);
	p += strlen(key);
	/* sscanf's %lf reads as strtod does; an end pointer of strtod's,
	 * inlined into the caller's loop, was a dangling pointer to gcc -O2 */
	double v = 0.0;
	int used = 0;
	cr_assert(sscanf(p, "%lf%n", &v, &used) == 1 && used > 0, "no number after %s", key);
	*at = p + used;
	return v;
}

/* Every row of a sweep table (random points in random order, one to
 * eight threads) carries the relaxed optimum of the single query of its
 * point, to the bit. */
Test(relaxed, every_table_row_is_the_single_query_of_its_point, .timeout = 600)
{
	uint64_t rng = 99;
	size_t rows = 0;
	for (int sweep = 0; sweep < 16; sweep++) {
		uint64_t budgets[3];
		for (int b = 0; b < 3; b++)
			budgets[b] = pick_budget(&rng);
		struct ha_model m = pick_model(&rng);
		m.irreducible = 0.0;
		/* At least 2048 rows: shorter tables use one thread. */
		size_t count = 700 + next_random(&rng) % 300;
		double *samples = malloc(count * sizeof *samples);
		cr_assert_not_null(samples);
		for (size_t i = 0; i < count; i++)
			samples[i] = log_uniform(&rng, 1.001, 1e300);
		size_t threads = 1 + (size_t)sweep % 8;
		char *text = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);
		cr_assert_not_null(f);
		struct ha_report *r;
		struct ha_error err;
		cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
		cr_assert_eq(sweep_table(r, (struct ha_sweep_request){
			.model = &m, .budgets = budgets, .budget_count = 3,
			.samples = {count, table_sample, samples}, .threads = threads,
		}, &err), HA_OK, "%s", err.message);
		cr_assert_eq(ha_report_end(r), HA_OK);
		ha_report_free(r);
		cr_assert_eq(fclose(f), 0);
		const char *at = text;
		for (size_t i = 0; i < count; i++)
			for (int b = 0; b < 3; b++) {
				struct ha_model point = m;
				point.samples = samples[i];
				struct ha_solution want;
				cr_assert_eq(ha_solve(budgets[b], NULL, &point, &want), HA_OK);
				double x = number_after(&at, "relaxed_head_dim: ");
				double h = number_after(&at, "relaxed_heads: ");
				cr_assert(memcmp(&x, &want.relaxed.head_dim, sizeof x) == 0 &&
				          memcmp(&h, &want.relaxed.heads, sizeof h) == 0,
				          "%zu threads, D=%llu n=%.17g: row %.17g, query %.17g",
				          threads, (unsigned long long)budgets[b], samples[i],
				          x, want.relaxed.head_dim);
				rows++;
			}
		free(text);
		free(samples);
	}
	cr_assert_gt(rows, 16 * 3 * 700 - 1);
}
