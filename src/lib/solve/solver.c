/* The fixed-budget allocator of spec §3.
 *
 * Why a bracket search is a proof: on x >= 1 every term of the relaxed
 * objective f(x) = c_b x^-s + c_v x^(x/2) (rho + (1 - rho) x / D) / n is
 * convex (x^-s for s > 0; x^(x/2) and x^(x/2 + 1) because, with h their
 * logarithm, h'' + h'^2 > 0 there), and x^-s is strictly convex.  So f is
 * strictly unimodal and so is its restriction to the ascending feasible
 * divisors: the first index where f stops decreasing is the integer
 * optimum, found by binary search on the sign of successive differences. */
#include <math.h>
#include <stdlib.h>

#include <nlopt.h>

#include <headalloc/divisors.h>
#include <headalloc/solver.h>

/* Equal MSE to this relative tolerance is a tie (spec §3). */
#define TIE_LOG_TOLERANCE 1e-12

/* Feasible sets this small are simply enumerated. */
#define EXHAUSTIVE_MAX 4

struct ha_solver {
	uint64_t budget;
	size_t divisor_count;
	uint64_t *feasible; /* ascending head dimensions meeting the constraints */
	size_t feasible_count;
	double x_lo, x_hi; /* the relaxed interval */
};

const char *ha_certificate_method_str(enum ha_certificate_method method)
{
	return method == HA_CERT_EXHAUSTIVE ? "exhaustive" : "bracket";
}

static int range_ok(uint64_t lo, uint64_t hi)
{
	return lo == 0 || hi == 0 || lo <= hi;
}

enum ha_status ha_constraints_validate(const struct ha_constraints *c)
{
	if (!c)
		return HA_OK;
	if (!range_ok(c->min_head_dim, c->max_head_dim) ||
	    !range_ok(c->min_heads, c->max_heads))
		return HA_EINVAL;
	return HA_OK;
}

static int is_feasible(uint64_t budget, uint64_t d, const struct ha_constraints *c)
{
	uint64_t heads = budget / d;
	if (c->head_dim_multiple && d % c->head_dim_multiple != 0)
		return 0;
	if (c->min_head_dim && d < c->min_head_dim)
		return 0;
	if (c->max_head_dim && d > c->max_head_dim)
		return 0;
	if (c->min_heads && heads < c->min_heads)
		return 0;
	if (c->max_heads && heads > c->max_heads)
		return 0;
	return 1;
}

/* The real interval of d allowed by the bounds on d and on H = D/d (and
 * d >= m for a multiple m; the multiple itself has no relaxation). */
static void relaxed_interval(uint64_t budget, const struct ha_constraints *c,
                             double *lo, double *hi)
{
	double D = (double)budget;
	*lo = 1.0;
	*hi = D;
	if (c->min_head_dim && (double)c->min_head_dim > *lo)
		*lo = (double)c->min_head_dim;
	/* A multiple of m is at least m. */
	if (c->head_dim_multiple && (double)c->head_dim_multiple > *lo)
		*lo = (double)c->head_dim_multiple;
	if (c->max_heads && D / (double)c->max_heads > *lo)
		*lo = D / (double)c->max_heads;
	if (c->max_head_dim && (double)c->max_head_dim < *hi)
		*hi = (double)c->max_head_dim;
	if (c->min_heads && D / (double)c->min_heads < *hi)
		*hi = D / (double)c->min_heads;
}

enum ha_status ha_solver_new(uint64_t budget, const struct ha_constraints *c,
                             struct ha_solver **out)
{
	static const struct ha_constraints none = {0, 0, 0, 0, 0};
	if (!out)
		return HA_EINVAL;
	*out = NULL;
	if (budget == 0 || budget > HA_BUDGET_MAX ||
	    ha_constraints_validate(c) != HA_OK)
		return HA_EINVAL;
	if (!c)
		c = &none;

	struct ha_solver *s = calloc(1, sizeof *s);
	if (!s)
		return HA_ENOMEM;
	s->budget = budget;
	enum ha_status st = ha_divisors(budget, &s->feasible, &s->divisor_count);
	if (st != HA_OK) {
		free(s);
		return st;
	}
	/* Keep the feasible divisors in place, in order. */
	for (size_t i = 0; i < s->divisor_count; i++)
		if (is_feasible(budget, s->feasible[i], c))
			s->feasible[s->feasible_count++] = s->feasible[i];
	if (s->feasible_count == 0) {
		ha_solver_free(s);
		return HA_EINFEASIBLE;
	}
	relaxed_interval(budget, c, &s->x_lo, &s->x_hi);
	*out = s;
	return HA_OK;
}

void ha_solver_free(struct ha_solver *solver)
{
	if (!solver)
		return;
	free(solver->feasible);
	free(solver);
}

uint64_t ha_solver_budget(const struct ha_solver *solver)
{
	return solver->budget;
}

size_t ha_solver_divisor_count(const struct ha_solver *solver)
{
	return solver->divisor_count;
}

const uint64_t *ha_solver_feasible(const struct ha_solver *solver,
                                   size_t *count)
{
	if (count)
		*count = solver->feasible_count;
	return solver->feasible;
}

static double log_mse_at(const struct ha_solver *s, const struct ha_model *m,
                         size_t i, size_t *evaluations)
{
	(*evaluations)++;
	return ha_model_log_relative_mse(m, s->budget, s->feasible[i]);
}

/* Evaluate every feasible divisor; the answer is the smallest d within
 * the tie tolerance of the minimum. */
static size_t argmin_exhaustive(const struct ha_solver *s,
                                const struct ha_model *m, size_t *evaluations)
{
	double value[EXHAUSTIVE_MAX];
	double min = INFINITY;
	for (size_t i = 0; i < s->feasible_count; i++) {
		double v = log_mse_at(s, m, i, evaluations);
		if (i < EXHAUSTIVE_MAX)
			value[i] = v;
		if (v < min)
			min = v;
	}
	/* Any count (calibrate: a model not proven unimodal): values past
	 * the first EXHAUSTIVE_MAX are evaluated again, not stored. */
	size_t best = 0;
	while ((best < EXHAUSTIVE_MAX ? value[best]
	                              : log_mse_at(s, m, best, evaluations)) >
	       min + TIE_LOG_TOLERANCE)
		best++;
	return best;
}

static size_t argmin_bracket(const struct ha_solver *s, const struct ha_model *m,
                             size_t *evaluations)
{
	size_t lo = 0, hi = s->feasible_count - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (log_mse_at(s, m, mid + 1, evaluations) <
		    log_mse_at(s, m, mid, evaluations))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Where f is flat to within rounding, the search stops anywhere on
	 * the flat stretch.  By convexity the values within the tie tolerance
	 * of the minimum are one contiguous run: walk out to both of its ends,
	 * tracking the least value seen, then take the smallest d within
	 * tolerance of it (spec §3 tie rule). */
	double min = log_mse_at(s, m, lo, evaluations);
	size_t right = lo;
	while (right + 1 < s->feasible_count) {
		double v = log_mse_at(s, m, right + 1, evaluations);
		if (v > min + TIE_LOG_TOLERANCE)
			break;
		if (v < min)
			min = v;
		right++;
	}
	size_t left = lo;
	while (left > 0) {
		double v = log_mse_at(s, m, left - 1, evaluations);
		if (v > min + TIE_LOG_TOLERANCE)
			break;
		if (v < min)
			min = v;
		left--;
	}
	while (left < right && log_mse_at(s, m, left, evaluations) > min + TIE_LOG_TOLERANCE)
		left++;
	return left;
}

enum ha_status ha_solver_solve_integer(const struct ha_solver *s,
                                       const struct ha_model *m,
                                       struct ha_allocation *optimum,
                                       struct ha_certificate *certificate)
{
	if (!s || !optimum || ha_model_validate(m) != HA_OK)
		return HA_EINVAL;
	struct ha_certificate cert = {
		.divisors = s->divisor_count,
		.feasible = s->feasible_count,
	};
	size_t best;
	/* calibrate: `bracket` only where unimodality is proven for this
	 * model (ha_model_unimodal_on, proof in model.c). */
	if (s->feasible_count <= EXHAUSTIVE_MAX ||
	    !ha_model_unimodal_on(m, (double)s->feasible[0])) {
		cert.method = HA_CERT_EXHAUSTIVE;
		best = argmin_exhaustive(s, m, &cert.evaluated);
	} else {
		cert.method = HA_CERT_BRACKET;
		best = argmin_bracket(s, m, &cert.evaluated);
	}
	optimum->head_dim = s->feasible[best];
	optimum->heads = s->budget / optimum->head_dim;
	ha_model_eval(m, s->budget, optimum->head_dim, &optimum->terms);
	if (certificate)
		*certificate = cert;
	return HA_OK;
}

struct relaxed_problem {
	const struct ha_model *model;
	double budget;
	struct ha_relaxed_fn fn;
};

/* NLopt objective in u = ln x, which keeps the search well scaled over
 * intervals as wide as [1, 2^63]. */
static double relaxed_objective(unsigned n, const double *u, double *grad,
                                void *data)
{
	(void)n;
	const struct relaxed_problem *p = data;
	return ha_relaxed_fn_eval(&p->fn, u[0], grad);
}

static double relaxed_slope(const struct relaxed_problem *p, double u)
{
	double grad;
	relaxed_objective(1, &u, &grad, (void *)p);
	return grad;
}

/* Take NLopt's point to full precision.  f is convex, so the slope of
 * ln f (which has the sign of f') changes sign at most once: bracket the
 * sign change next to u, then close in on it.  Near the minimum ln f is too flat
 * for any minimiser to resolve x beyond ~1e-8; its slope is not. */
static double polish_log_x(const struct relaxed_problem *p, double u,
                           double lo, double hi)
{
	double g = relaxed_slope(p, u);
	if (g == 0.0 || !isfinite(g))
		return u;
	double a = u, b = u, step = 1e-9 * (fabs(u) > 1.0 ? fabs(u) : 1.0);
	/* Walk towards the root until the slope's sign flips or a bound is hit. */
	for (int i = 0; i < 80; i++) {
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
	for (int i = 0; i < 200; i++) {
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
		if (fabs(b - a) <= 4e-16 * fabs(a))
			break;
	}
	return fabs(ga) < fabs(gb) ? a : b;
}

/* A starting point for NLopt: the root of the leading terms of the hdi = 1
 * stationarity equation (spec §3), (x/2 + s + 2) ln x = ln(s c_b n D / c_v),
 * by a few Newton steps in u = ln x from x = e; clamped into [lo, hi]. */
static double starting_log_x(const struct ha_model *m, double budget,
                             double lo, double hi)
{
	double rhs = log(m->smoothness * m->bias_coef / m->var_coef) +
	             log(m->samples) + log(budget);
	double u = 1.0;
	for (int i = 0; i < 6; i++) {
		double x = exp(u);
		double g = (0.5 * x + m->smoothness + 2.0) * u - rhs;
		double dg = 0.5 * x * u + 0.5 * x + m->smoothness + 2.0;
		double step = g / dg;
		/* Damp: ln x moves at most by 1 per step. */
		u -= step > 1.0 ? 1.0 : step < -1.0 ? -1.0 : step;
	}
	if (!isfinite(u) || u < lo)
		u = lo;
	if (u > hi)
		u = hi;
	return u;
}

/* Minimise ln f over u in [lo, hi] with NLopt's SLSQP from *u.  *u moves
 * to NLopt's point when that is no worse.  HA_ENUMERIC when NLopt fails
 * outright (generic failure, invalid arguments); ROUNDOFF_LIMITED still
 * leaves a usable point, as do the positive (success) results. */
static enum ha_status nlopt_minimise(struct relaxed_problem *p, double lo,
                                     double hi, double *u)
{
	nlopt_opt opt = nlopt_create(NLOPT_LD_SLSQP, 1);
	if (!opt)
		return HA_ENOMEM;
	nlopt_result r = nlopt_set_min_objective(opt, relaxed_objective, p);
	if (r > 0)
		r = nlopt_set_lower_bounds1(opt, lo);
	if (r > 0)
		r = nlopt_set_upper_bounds1(opt, hi);
	if (r > 0)
		r = nlopt_set_xtol_rel(opt, 1e-7);
	if (r > 0)
		r = nlopt_set_maxeval(opt, 500);
	double start_f = relaxed_objective(1, u, NULL, p);
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

enum ha_status ha_solver_solve_relaxed(const struct ha_solver *s,
                                       const struct ha_model *m,
                                       struct ha_relaxed *relaxed)
{
	if (!s || !relaxed || ha_model_validate(m) != HA_OK)
		return HA_EINVAL;
	struct relaxed_problem problem = {.model = m, .budget = (double)s->budget};
	ha_relaxed_fn_init(&problem.fn, m, problem.budget);
	double lo = log(s->x_lo), hi = log(s->x_hi);
	double u;

	/* f is convex: when its slope does not change sign on the interval,
	 * the minimum is the bound it slopes down to, and no search is due. */
	if (!(hi > lo) || relaxed_slope(&problem, lo) >= 0) {
		u = lo;
	} else if (relaxed_slope(&problem, hi) <= 0) {
		u = hi;
	} else {
		u = starting_log_x(m, problem.budget, lo, hi);
		enum ha_status st = nlopt_minimise(&problem, lo, hi, &u);
		if (st == HA_ENOMEM)
			return st;
		/* After an NLopt failure u is still the starting point: the
		 * polish below brackets the sign change of the slope from there
		 * (one is known to lie in the interval) and closes in on it. */
		u = polish_log_x(&problem, u, lo, hi);
	}
	relaxed->head_dim = exp(u);
	if (relaxed->head_dim < s->x_lo)
		relaxed->head_dim = s->x_lo;
	if (relaxed->head_dim > s->x_hi)
		relaxed->head_dim = s->x_hi;
	relaxed->heads = problem.budget / relaxed->head_dim;
	/* In u, not at exp(u): x* = 1 + 1e-20 rounds to 1 but its error
	 * does not. */
	relaxed->log_mse = ha_model_log_relaxed_ln(m, problem.budget, u, NULL);
	if (!isfinite(relaxed->head_dim) || !isfinite(relaxed->log_mse))
		return HA_ENUMERIC;
	return HA_OK;
}

enum ha_status ha_solver_solve(const struct ha_solver *s,
                               const struct ha_model *m,
                               struct ha_solution *out)
{
	if (!s || !out)
		return HA_EINVAL;
	out->budget = s->budget;
	enum ha_status st = ha_solver_solve_integer(s, m, &out->optimum,
	                                            &out->certificate);
	if (st == HA_OK)
		st = ha_solver_solve_relaxed(s, m, &out->relaxed);
	return st;
}

/* A feasible index with its sort key, ln(MSE / c_b). */
struct keyed {
	double key;
	size_t index;
};

static int by_key_then_index(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int by_index(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

enum ha_status ha_solver_enumerate(const struct ha_solver *s,
                                   const struct ha_model *m,
                                   struct ha_allocation **out, size_t *count)
{
	if (!s || !out || !count || ha_model_validate(m) != HA_OK)
		return HA_EINVAL;
	*out = NULL;
	*count = 0;
	size_t n = s->feasible_count;
	struct ha_allocation *rows = malloc(n * sizeof *rows);
	struct keyed *order = malloc(n * sizeof *order);
	if (!rows || !order) {
		free(rows);
		free(order);
		return HA_ENOMEM;
	}
	/* Sorted on the same values the solver compares, so that the first
	 * row is always its optimum. */
	for (size_t i = 0; i < n; i++) {
		order[i].key = ha_model_log_relative_mse(m, s->budget, s->feasible[i]);
		order[i].index = i;
	}
	qsort(order, n, sizeof *order, by_key_then_index);
	/* The rows tied with the best (spec §3 tolerance) go smaller d first. */
	size_t tied = 1;
	while (tied < n && order[tied].key <= order[0].key + TIE_LOG_TOLERANCE)
		tied++;
	qsort(order, tied, sizeof *order, by_index);
	for (size_t i = 0; i < n; i++) {
		uint64_t d = s->feasible[order[i].index];
		rows[i].head_dim = d;
		rows[i].heads = s->budget / d;
		ha_model_eval(m, s->budget, d, &rows[i].terms);
	}
	free(order);
	*out = rows;
	*count = n;
	return HA_OK;
}

enum ha_status ha_solve(uint64_t budget, const struct ha_constraints *c,
                        const struct ha_model *model, struct ha_solution *out)
{
	struct ha_solver *s;
	enum ha_status st = ha_solver_new(budget, c, &s);
	if (st != HA_OK)
		return st;
	st = ha_solver_solve(s, model, out);
	ha_solver_free(s);
	return st;
}
