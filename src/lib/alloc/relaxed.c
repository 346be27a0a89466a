/* The continuous relaxation of headalloc-model(7), THE CONTINUOUS
 * RELAXATION: the real head dimension x in the feasible interval
 * minimising f(x) = c_b x^-s + c_v x^(γx+κ) (rho + (1 - rho) x / D) / n.
 *
 * x* is defined by relaxed_root.c: a fixed bisection over the doubles of
 * the interval on the computed sign of a stationarity function, a
 * function of the problem alone.  This file finds the estimate that the
 * bisection's shortcut starts from: for a cold solve (a single query, the
 * first point of a sweep) NLopt's SLSQP in u = ln x from the root of the
 * leading terms; for a workspace's later solves, its previous answer.
 * Either way the answer is the same double (test_relaxed.c); the estimate
 * only decides how many of the bisection's questions need evaluating.
 *
 * A workspace (struct ha_relaxed_solver) keeps its previous answers. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nlopt.h>

#include <headalloc/model.h>
#include <headalloc/solver.h>

#include "alloc/model_internal.h"
#include "alloc/solver_internal.h"

/* NLopt stops when u moves by less than this relative step, or after this
 * many evaluations; the bisection of relaxed_root.c, not NLopt, gives the
 * answer. */
#define NLOPT_XTOL_REL 1e-7
#define NLOPT_MAX_EVAL 500

/* The starting point: this many damped Newton steps, each moving ln x by
 * at most START_MAX_STEP. */
#define START_NEWTON_STEPS 6
#define START_MAX_STEP 1.0

struct relaxed_problem {
	struct ha_relaxed_fn fn;
	size_t evaluations;
};

/* A sweep's last two interior answers u_i = ln x* at Q's constants C_i
 * (only n moved between them), with dQ/du and the uncertainty width at
 * the last: u as a function of C (Q(u) = S(u) + C, du/dC = -1/S'(u))
 * extrapolated to the next C by the quadratic through both answers with
 * the last one's slope, an error of the third order in the step. */
struct prediction {
	size_t count;            /* answers kept: 0, 1 or 2 */
	double constant[2], u[2];
	double slope, width;     /* at u[1] */
	int near;                /* the last prediction's bracket held x* */
	double error;            /* |u predicted - u| of the last prediction, or 0 */
	double rate, power, rho, smoothness; /* Q's other parameters */
};

/* Certificates are sought PREDICTION_WIDTHS uncertainty widths plus
 * PREDICTION_ERRORS times the last prediction's error either side of a
 * prediction (find_certificates in relaxed_root.c uses 1.2 widths around
 * its Newton point), and a prediction counts as near, to be trusted at
 * once next time, when it fell inside that bracket and within NEAR_WIDTHS
 * uncertainty widths of x* (farther, its bracket would hold more
 * questions than Newton steps cost).  The three are the fewest
 * evaluations a point found on long sweeps (bench/sweep_bench.c). */
#define PREDICTION_WIDTHS 1.5
#define PREDICTION_ERRORS 1.0
#define NEAR_WIDTHS 4.0

struct ha_relaxed_solver {
	const struct ha_solver *solver;
	double lo, hi;          /* ln x_lo, ln x_hi */
	struct relaxed_problem problem; /* the objective's data (NLopt holds its address) */
	struct ha_relaxed_root root;    /* the canonical bisection's problem */
	int has_hint;                   /* a previous answer, */
	double hint;                    /* the estimate of the next solve */
	struct prediction prediction;   /* the last interior answers */
	int has_model;                  /* model: the last one */
	struct ha_model model;
	double log_var_coef;            /* its ln c_v */
	size_t nlopt_evaluations;       /* NLopt's, in the last solve */
};

/* NLopt objective in u = ln x, which keeps the search well scaled over
 * intervals as wide as [1, 2^63]. */
static double relaxed_objective(unsigned n, const double *u, double *grad,
                                void *data)
{
	(void)n;
	struct relaxed_problem *p = data;
	p->evaluations++;
	return ha_relaxed_fn_eval(&p->fn, u[0], grad);
}

/* A starting point for NLopt: the root of the leading terms of the hdi = 1
 * stationarity equation (headalloc-model(7), THE CONTINUOUS RELAXATION), (x/2 + s + 2) ln x = ln(s c_b n D / c_v),
 * by a few Newton steps in u = ln x from x = e; clamped into [lo, hi]. */
static double starting_log_x(const struct ha_model *m, double samples,
                             double budget, double lo, double hi)
{
	double rhs = log(m->smoothness) + ha_model_log_bias_coef(m) -
	             ha_model_log_var_coef(m) +
	             m->var_samples_power * log(samples) + log(budget);
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

/* Minimise ln f over u in [lo, hi] with NLopt's SLSQP from *u (a cold
 * solve's estimate).  *u moves to NLopt's point when that is no worse.
 * HA_ENUMERIC when NLopt fails outright (generic failure, invalid
 * arguments); ROUNDOFF_LIMITED still leaves a usable point, as do the
 * positive (success) results. */
static enum ha_status nlopt_minimise(struct ha_relaxed_solver *w, double *u)
{
	nlopt_opt opt = nlopt_create(NLOPT_LD_SLSQP, 1);
	if (!opt)
		return HA_ENOMEM;
	nlopt_result r = nlopt_set_min_objective(opt, relaxed_objective, &w->problem);
	if (r > 0)
		r = nlopt_set_lower_bounds1(opt, w->lo);
	if (r > 0)
		r = nlopt_set_upper_bounds1(opt, w->hi);
	if (r > 0)
		r = nlopt_set_xtol_rel(opt, NLOPT_XTOL_REL);
	if (r > 0)
		r = nlopt_set_maxeval(opt, NLOPT_MAX_EVAL);
	w->problem.evaluations = 0;
	double start_f = relaxed_objective(1, u, NULL, &w->problem);
	double u_opt = *u, f_opt = start_f;
	if (r > 0)
		r = nlopt_optimize(opt, &u_opt, &f_opt);
	nlopt_destroy(opt);
	if (r == NLOPT_OUT_OF_MEMORY)
		return HA_ENOMEM;
	if (r < 0 && r != NLOPT_ROUNDOFF_LIMITED)
		return HA_ENUMERIC;
	if (isfinite(u_opt) && u_opt >= w->lo && u_opt <= w->hi && f_opt <= start_f)
		*u = u_opt;
	w->nlopt_evaluations = w->problem.evaluations;
	return HA_OK;
}

static int same_shape(const struct prediction *p, const struct ha_relaxed_root *r)
{
	return p->rate == r->rate && p->power == r->power && p->rho == r->rho &&
	       p->smoothness == r->smoothness;
}

/* The predicted x* of root's problem, and the width (in u) to seek its
 * certificates at; 0 for no prediction. */
static double predict(const struct prediction *p, const struct ha_relaxed_root *r,
                      double *width, double *u_predicted)
{
	*width = 0.0;
	if (p->count < 2 || !same_shape(p, r))
		return 0.0;
	double h = r->constant - p->constant[1], h0 = p->constant[0] - p->constant[1];
	if (!(h0 != 0.0) || !(p->slope > 0.0))
		return 0.0;
	double a = -1.0 / p->slope;
	double b = (p->u[0] - p->u[1] - a * h0) / (h0 * h0);
	*u_predicted = p->u[1] + (a + b * h) * h;
	double x = exp(*u_predicted);
	if (!isfinite(x))
		return 0.0;
	*width = PREDICTION_WIDTHS * p->width + PREDICTION_ERRORS * p->error;
	return x;
}

/* Keep an answer u = ln x for the next prediction (interior answers
 * only: at a bound the root's slope says nothing of x*). */
static void remember(struct prediction *p, const struct ha_relaxed_root *r,
                     double x, double u)
{
	if (!same_shape(p, r)) {
		p->count = 0;
		p->rate = r->rate;
		p->power = r->power;
		p->rho = r->rho;
		p->smoothness = r->smoothness;
	}
	if (!(x > r->x_lo && x < r->x_hi && r->last_slope > 0.0 && r->last_width > 0.0)) {
		p->count = 0;
		p->error = 0.0;
		return;
	}
	if (p->count == 2) {
		p->constant[0] = p->constant[1];
		p->u[0] = p->u[1];
		p->count = 1;
	}
	if (p->count == 1 && p->constant[0] == r->constant)
		p->count = 0; /* the same n again: no step to extrapolate along */
	p->constant[p->count] = r->constant;
	p->u[p->count] = u;
	p->count++;
	p->slope = r->last_slope;
	p->width = r->last_width;
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
	*out = w;
	return HA_OK;
}

void ha_relaxed_solver_free(struct ha_relaxed_solver *w)
{
	free(w);
}

/* log_samples: log(samples), or NaN to take it here; *log_head_dim
 * (when not NULL) log(relaxed->head_dim) on HA_OK; next_row: the caller
 * says m is the kept model but for n (ha_relaxed_solver_solve_next), so
 * it is not compared. */
static enum ha_status solve(struct ha_relaxed_solver *w, const struct ha_model *m,
                            double samples, double log_samples,
                            struct ha_relaxed *relaxed,
                            double *log_head_dim, int with_mse, int next_row)
{
	if (!w || !relaxed || !m)
		return HA_EINVAL;
	const struct ha_solver *s = w->solver;
	struct relaxed_problem *problem = &w->problem;
	/* A sweep moves n alone: then only the terms of n are made again,
	 * by the same arithmetic as ha_relaxed_fn_init's and
	 * ha_relaxed_root_init's (the other logarithms kept), and only n is
	 * checked again (the kept model passed ha_model_validate; n is no
	 * model parameter, so the kept model is compared bit for bit). */
	int same = w->has_model && (next_row || memcmp(m, &w->model, sizeof *m) == 0);
	if (!ha_samples_valid(samples) || (!same && ha_model_validate(m) != HA_OK))
		return HA_EINVAL;
	if (same) {
		if (isnan(log_samples))
			log_samples = log(samples);
		problem->fn.log_var_scale = w->log_var_coef -
		                            m->var_samples_power * log_samples;
		ha_relaxed_root_move(&w->root, &problem->fn);
	} else {
		ha_relaxed_fn_init(&problem->fn, m, samples, (double)s->budget);
		ha_relaxed_root_init(&w->root, &problem->fn, s->x_lo, s->x_hi);
		w->model = *m;
		w->log_var_coef = ha_model_log_var_coef(m);
		w->has_model = 1;
	}
	w->nlopt_evaluations = 0;

	/* An estimate of x*: the previous answer, else NLopt's point (from
	 * the leading terms' root; that root itself if NLopt fails).  The
	 * estimate decides only how many questions of the canonical
	 * bisection are evaluated, never its answer. */
	double estimate = w->hint;
	if (!w->has_hint && s->x_hi > s->x_lo) {
		double u = starting_log_x(m, samples, problem->fn.budget, w->lo, w->hi);
		enum ha_status st = nlopt_minimise(w, &u);
		if (st == HA_ENOMEM)
			return st;
		estimate = exp(u);
	}
	/* A prediction that fell near x* last time is trusted for the
	 * certificates at once (two evaluations when it is right); otherwise
	 * it is the estimate the Newton steps start from. */
	double width = 0.0, u_predicted = 0.0;
	double predicted = predict(&w->prediction, &w->root, &width, &u_predicted);
	double x = width > 0.0 && w->prediction.near
		? ha_relaxed_root_solve(&w->root, predicted, width)
		: ha_relaxed_root_solve(&w->root, width > 0.0 ? predicted : estimate, 0.0);
	relaxed->head_dim = x;
	relaxed->heads = problem->fn.budget / x;
	/* The mse at x* itself (the double printed): without an irreducible
	 * error E the prepared objective's value; the prepared objective
	 * leaves E out (it moves no minimum), so with E > 0 the model adds it. */
	double u = ha_relaxed_root_log(&w->root, x);
	w->prediction.error = width > 0.0 ? fabs(u_predicted - u) : 0.0;
	w->prediction.near = width > 0.0 && w->prediction.error < width &&
	                     w->prediction.error <= NEAR_WIDTHS * w->root.last_width;
	remember(&w->prediction, &w->root, x, u);
	relaxed->log_mse = !with_mse ? NAN
		: m->irreducible == 0.0 && m->data_coef == 0.0
		? ha_relaxed_fn_eval(&problem->fn, u, NULL)
		: ha_model_log_relaxed_ln(m, samples, problem->fn.budget, u, NULL);
	if (!isfinite(relaxed->head_dim) || (with_mse && !isfinite(relaxed->log_mse)))
		return HA_ENUMERIC;
	w->hint = x;
	w->has_hint = 1;
	if (log_head_dim)
		*log_head_dim = u;
	return HA_OK;
}

enum ha_status ha_relaxed_solver_solve(struct ha_relaxed_solver *w,
                                       const struct ha_model *m, double samples,
                                       struct ha_relaxed *relaxed)
{
	return solve(w, m, samples, NAN, relaxed, NULL, 1, 0);
}

enum ha_status ha_relaxed_solver_solve_next(struct ha_relaxed_solver *w,
                                            const struct ha_model *m,
                                            double samples, double log_samples,
                                            struct ha_relaxed *relaxed,
                                            double *log_head_dim)
{
	return solve(w, m, samples, log_samples, relaxed, log_head_dim, 0, 1);
}

void ha_relaxed_solver_last_cost(const struct ha_relaxed_solver *w,
                                 size_t *root_evaluations,
                                 size_t *nlopt_evaluations)
{
	*root_evaluations = w->root.evaluations;
	*nlopt_evaluations = w->nlopt_evaluations;
}

enum ha_status ha_solver_solve_relaxed(const struct ha_solver *s,
                                       const struct ha_model *m, double samples,
                                       struct ha_relaxed *relaxed)
{
	struct ha_relaxed_solver *w;
	enum ha_status st = ha_relaxed_solver_new(s, &w);
	if (st == HA_OK)
		st = ha_relaxed_solver_solve(w, m, samples, relaxed);
	ha_relaxed_solver_free(w);
	return st;
}
