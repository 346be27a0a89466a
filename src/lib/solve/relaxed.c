/* The continuous relaxation of headalloc-model(7), THE CONTINUOUS RELAXATION: the real head dimension x in the
 * feasible interval minimising f(x) = c_b x^-s + c_v x^(x/2) (rho +
 * (1 - rho) x / D) / n.  NLopt's SLSQP finds it in u = ln x from a
 * starting point of the leading terms; regula falsi on the slope then
 * takes it to full precision.  f is convex on x >= 1 (the proof heads
 * integer.c), which both the early exits at the bounds and the polish
 * rely on.
 *
 * A workspace (struct ha_relaxed_solver) keeps one NLopt optimiser for a
 * whole sweep and remembers the last few evaluations, which NLopt and the
 * polish repeat (about 4 of 28 a solve).  It does not start from the last
 * answer: the polish stops within a few ulps, at a double that depends on
 * where NLopt stopped (about one solve in five ends elsewhere when the
 * polish starts from its own answer), so only the one-shot starting point
 * gives the one-shot answer to the bit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nlopt.h>

#include <headalloc/model.h>
#include <headalloc/solver.h>

#include "solve/solver_internal.h"

/* NLopt stops when u moves by less than this relative step, or after this
 * many evaluations; the polish, not NLopt, gives the last digits. */
#define NLOPT_XTOL_REL 1e-7
#define NLOPT_MAX_EVAL 500

/* The polish's bracketing walk: a first step of this much times
 * max(|u|, 1), doubled at most POLISH_MAX_DOUBLINGS times (the last step,
 * ~1e15, is far wider than any interval of u = ln x, which is within
 * [0, ln 2^63]). */
#define POLISH_FIRST_STEP 1e-9
#define POLISH_MAX_DOUBLINGS 80

/* The polish's regula falsi: at most this many steps, stopping once the
 * bracket is this narrow relative to |u| (a couple of ulps). */
#define POLISH_MAX_STEPS 200
#define POLISH_REL_WIDTH 4e-16

/* The starting point: this many damped Newton steps, each moving ln x by
 * at most START_MAX_STEP. */
#define START_NEWTON_STEPS 6
#define START_MAX_STEP 1.0

/* The evaluations remembered: NLopt evaluates its start twice and often
 * a point twice in a row, and the polish starts where NLopt stopped. */
#define MEMO_SIZE 8

struct evaluation {
	uint64_t u_bits; /* u, compared bit for bit */
	double log_f, slope;
};

struct relaxed_problem {
	double budget;
	struct ha_relaxed_fn fn;
	struct evaluation memo[MEMO_SIZE];
	size_t memo_count, memo_next;
};

struct ha_relaxed_solver {
	const struct ha_solver *solver;
	double lo, hi;          /* ln x_lo, ln x_hi */
	nlopt_opt opt;          /* made when first needed, then kept */
	nlopt_result setup;     /* the result of setting opt up */
	struct relaxed_problem problem; /* the objective's data (NLopt holds its address) */
};

/* ln f at u, and its slope d ln f / du.  Remembered: the same u gives the
 * same values either way, since the values do not depend on what was
 * evaluated before. */
static double evaluate(struct relaxed_problem *p, double u, double *slope)
{
	uint64_t bits;
	memcpy(&bits, &u, sizeof bits);
	for (size_t i = 0; i < p->memo_count; i++)
		if (p->memo[i].u_bits == bits) {
			*slope = p->memo[i].slope;
			return p->memo[i].log_f;
		}
	struct evaluation *e = &p->memo[p->memo_next];
	e->u_bits = bits;
	e->log_f = ha_relaxed_fn_eval(&p->fn, u, &e->slope);
	p->memo_next = (p->memo_next + 1) % MEMO_SIZE;
	if (p->memo_count < MEMO_SIZE)
		p->memo_count++;
	*slope = e->slope;
	return e->log_f;
}

/* NLopt objective in u = ln x, which keeps the search well scaled over
 * intervals as wide as [1, 2^63]. */
static double relaxed_objective(unsigned n, const double *u, double *grad,
                                void *data)
{
	(void)n;
	double slope;
	double log_f = evaluate(data, u[0], &slope);
	if (grad)
		grad[0] = slope;
	return log_f;
}

static double relaxed_slope(struct relaxed_problem *p, double u)
{
	double slope;
	evaluate(p, u, &slope);
	return slope;
}

/* Take NLopt's point to full precision.  f is convex, so the slope of
 * ln f (which has the sign of f') changes sign at most once: bracket the
 * sign change next to u, then close in on it.  Near the minimum ln f is too flat
 * for any minimiser to resolve x beyond ~1e-8; its slope is not. */
static double polish_log_x(struct relaxed_problem *p, double u,
                           double lo, double hi)
{
	double g = relaxed_slope(p, u);
	if (g == 0.0 || !isfinite(g))
		return u;
	double a = u, b = u;
	double step = POLISH_FIRST_STEP * (fabs(u) > 1.0 ? fabs(u) : 1.0);
	/* Walk towards the root until the slope's sign flips or a bound is hit. */
	for (int i = 0; i < POLISH_MAX_DOUBLINGS; i++) {
		b = g < 0 ? a + step : a - step;
		if (b >= hi || b <= lo) {
			b = b >= hi ? hi : lo;
			if ((relaxed_slope(p, b) < 0) == (g < 0))
				return b; /* the minimum sits on the bound */
			break;
		}
		if ((relaxed_slope(p, b) < 0) != (g < 0))
			break;
		a = b;
		step *= 2.0;
	}
	/* Now the slope has opposite signs at a and b: regula falsi with the
	 * Illinois weighting (superlinear), falling back on the midpoint when
	 * the secant step stalls, until a and b are adjacent doubles. */
	double ga = g, gb = relaxed_slope(p, b);
	int side = 0;
	for (int i = 0; i < POLISH_MAX_STEPS; i++) {
		double x = (a * gb - b * ga) / (gb - ga);
		double lo_ab = a < b ? a : b, hi_ab = a < b ? b : a;
		if (!(x > lo_ab && x < hi_ab))
			x = 0.5 * (a + b);
		if (x == a || x == b)
			break;
		double gx = relaxed_slope(p, x);
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
		if (fabs(b - a) <= POLISH_REL_WIDTH * fabs(a))
			break;
	}
	return fabs(ga) < fabs(gb) ? a : b;
}

/* A starting point for NLopt: the root of the leading terms of the hdi = 1
 * stationarity equation (headalloc-model(7), THE CONTINUOUS RELAXATION), (x/2 + s + 2) ln x = ln(s c_b n D / c_v),
 * by a few Newton steps in u = ln x from x = e; clamped into [lo, hi]. */
static double starting_log_x(const struct ha_model *m, double budget,
                             double lo, double hi)
{
	double rhs = log(m->smoothness * m->bias_coef / m->var_coef) +
	             m->var_samples_power * log(m->samples) + log(budget);
	double u = 1.0;
	for (int i = 0; i < START_NEWTON_STEPS; i++) {
		double x = exp(u);
		double g = (0.5 * x + m->smoothness + 2.0) * u - rhs;
		double dg = 0.5 * x * u + 0.5 * x + m->smoothness + 2.0;
		double step = g / dg;
		/* Damp: ln x moves at most by START_MAX_STEP per step. */
		u -= step > START_MAX_STEP ? START_MAX_STEP
		   : step < -START_MAX_STEP ? -START_MAX_STEP : step;
	}
	if (!isfinite(u) || u < lo)
		u = lo;
	if (u > hi)
		u = hi;
	return u;
}

/* Make and set up the workspace's optimiser, once: SLSQP on [lo, hi] with
 * the objective's data in the workspace.  A setup that fails is kept in
 * w->setup and reported by every solve that needs NLopt. */
static enum ha_status prepare_nlopt(struct ha_relaxed_solver *w)
{
	if (w->opt)
		return HA_OK;
	w->opt = nlopt_create(NLOPT_LD_SLSQP, 1);
	if (!w->opt)
		return HA_ENOMEM;
	nlopt_result r = nlopt_set_min_objective(w->opt, relaxed_objective,
	                                         &w->problem);
	if (r > 0)
		r = nlopt_set_lower_bounds1(w->opt, w->lo);
	if (r > 0)
		r = nlopt_set_upper_bounds1(w->opt, w->hi);
	if (r > 0)
		r = nlopt_set_xtol_rel(w->opt, NLOPT_XTOL_REL);
	if (r > 0)
		r = nlopt_set_maxeval(w->opt, NLOPT_MAX_EVAL);
	w->setup = r;
	return HA_OK;
}

/* Minimise ln f over u in [lo, hi] with NLopt's SLSQP from *u.  *u moves
 * to NLopt's point when that is no worse.  HA_ENUMERIC when NLopt fails
 * outright (generic failure, invalid arguments); ROUNDOFF_LIMITED still
 * leaves a usable point, as do the positive (success) results. */
static enum ha_status nlopt_minimise(struct ha_relaxed_solver *w, double *u)
{
	enum ha_status st = prepare_nlopt(w);
	if (st != HA_OK)
		return st;
	nlopt_result r = w->setup;
	double start_f = relaxed_objective(1, u, NULL, &w->problem);
	double u_opt = *u, f_opt = start_f;
	if (r > 0)
		r = nlopt_optimize(w->opt, &u_opt, &f_opt);
	if (r == NLOPT_OUT_OF_MEMORY)
		return HA_ENOMEM;
	if (r < 0 && r != NLOPT_ROUNDOFF_LIMITED)
		return HA_ENUMERIC;
	if (isfinite(u_opt) && u_opt >= w->lo && u_opt <= w->hi && f_opt <= start_f)
		*u = u_opt;
	return HA_OK;
}

enum ha_status ha_relaxed_solver_new(const struct ha_solver *s,
                                     struct ha_relaxed_solver **out)
{
	if (!out)
		return HA_EINVAL;
	*out = NULL;
	if (!s)
		return HA_EINVAL;
	struct ha_relaxed_solver *w = calloc(1, sizeof *w);
	if (!w)
		return HA_ENOMEM;
	w->solver = s;
	w->lo = log(s->x_lo);
	w->hi = log(s->x_hi);
	w->problem.budget = (double)s->budget;
	*out = w;
	return HA_OK;
}

void ha_relaxed_solver_free(struct ha_relaxed_solver *w)
{
	if (!w)
		return;
	nlopt_destroy(w->opt);
	free(w);
}

enum ha_status ha_relaxed_solver_solve(struct ha_relaxed_solver *w,
                                       const struct ha_model *m,
                                       struct ha_relaxed *relaxed)
{
	if (!w || !relaxed || ha_model_validate(m) != HA_OK)
		return HA_EINVAL;
	const struct ha_solver *s = w->solver;
	struct relaxed_problem *problem = &w->problem;
	ha_relaxed_fn_init(&problem->fn, m, problem->budget);
	problem->memo_count = problem->memo_next = 0;
	double lo = w->lo, hi = w->hi;
	double u;

	/* f is convex: when its slope does not change sign on the interval,
	 * the minimum is the bound it slopes down to, and no search is due. */
	if (!(hi > lo) || relaxed_slope(problem, lo) >= 0) {
		u = lo;
	} else if (relaxed_slope(problem, hi) <= 0) {
		u = hi;
	} else {
		u = starting_log_x(m, problem->budget, lo, hi);
		enum ha_status st = nlopt_minimise(w, &u);
		if (st == HA_ENOMEM)
			return st;
		/* After an NLopt failure u is still the starting point: the
		 * polish below brackets the sign change of the slope from there
		 * (one is known to lie in the interval) and closes in on it. */
		u = polish_log_x(problem, u, lo, hi);
	}
	relaxed->head_dim = exp(u);
	if (relaxed->head_dim < s->x_lo)
		relaxed->head_dim = s->x_lo;
	if (relaxed->head_dim > s->x_hi)
		relaxed->head_dim = s->x_hi;
	relaxed->heads = problem->budget / relaxed->head_dim;
	/* In u, not at exp(u): x* = 1 + 1e-20 rounds to 1 but its error
	 * does not.  ha_model_log_relaxed_ln(m, D, u): without an irreducible
	 * error E that is the prepared objective's value, most often already
	 * evaluated at u; the prepared objective leaves E out (it moves no
	 * minimum), so with E > 0 the model adds it. */
	double slope;
	relaxed->log_mse = m->irreducible == 0.0 && m->data_coef == 0.0
		? evaluate(problem, u, &slope)
		: ha_model_log_relaxed_ln(m, problem->budget, u, NULL);
	if (!isfinite(relaxed->head_dim) || !isfinite(relaxed->log_mse))
		return HA_ENUMERIC;
	return HA_OK;
}

enum ha_status ha_solver_solve_relaxed(const struct ha_solver *s,
                                       const struct ha_model *m,
                                       struct ha_relaxed *relaxed)
{
	if (!s || !relaxed || ha_model_validate(m) != HA_OK)
		return HA_EINVAL;
	struct ha_relaxed_solver *w;
	enum ha_status st = ha_relaxed_solver_new(s, &w);
	if (st == HA_OK)
		st = ha_relaxed_solver_solve(w, m, relaxed);
	ha_relaxed_solver_free(w);
	return st;
}
