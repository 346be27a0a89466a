/* The calibration's minimiser: a grid of starts, NLopt's L-BFGS from each
 * on the analytic gradient, and a Gauss–Newton polish of the best.
 *
 * Why the pieces:
 * - The objective is not convex (headalloc-model(7), CALIBRATION (The fit)): a grid of starts,
 *   and the count of starts that reach the best, tell a found optimum from
 *   a lucky one.
 * - The parameters differ in scale by orders of magnitude (ln c_v moves in
 *   hundreds, hdi in [0, 1]) and each start scales them by the
 *   Gauss–Newton curvature there, so that L-BFGS sees a round problem.
 * - ln c_b and ln c_v enter linearly in the relative residuals: at each
 *   start they (and E) come from a small linear least-squares problem, so
 *   the grid covers only the nonlinear parameters.
 * - L-BFGS stops where its line search can no longer resolve the
 *   objective, which for noise-free runs is far from the last digits of
 *   the parameters: Gauss–Newton steps on the same objective (iteratively
 *   reweighted for Huber) then converge quadratically to full precision. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nlopt.h>

#include "calibrate_internal.h"

/* ---- the progress callback heard inside a search -------------------------- */

/* Only the thread that called ha_calibrate tells the callback
 * (progress.h), at most every CAL_POLL_SECONDS; the pool's other workers
 * read the stopped flag. */
#define CAL_POLL_SECONDS 0.05

static double monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cal_poll_init(struct cal_poll *p, const struct ha_progress *progress,
                   const char *what, size_t total)
{
	p->progress = progress;
	p->what = what;
	p->done = 0;
	p->total = total;
	p->caller = pthread_self();
	p->last = monotonic_seconds();
	atomic_init(&p->stopped, 0);
}

int cal_poll_tell(struct cal_poll *p)
{
	if (atomic_load(&p->stopped))
		return 0;
	const struct ha_progress *cb = p->progress;
	p->last = monotonic_seconds();
	if (cb && cb->fn && cb->fn(cb->ctx, p->what, p->done, p->total) != 0) {
		atomic_store(&p->stopped, 1);
		return 0;
	}
	return 1;
}

/* From any thread: the callback told when on the calling thread and
 * CAL_POLL_SECONDS have passed; 0 once the work is stopped. */
static int poll_check(struct cal_poll *p)
{
	if (atomic_load(&p->stopped))
		return 0;
	if (!pthread_equal(pthread_self(), p->caller) ||
	    monotonic_seconds() - p->last < CAL_POLL_SECONDS)
		return 1;
	return cal_poll_tell(p);
}

static int poll_stopped(const struct cal_data *data)
{
	return data->poll && atomic_load(&data->poll->stopped);
}

/* ---- the linear start of a grid point ------------------------------------ */

/* Solve the n x n system a x = b (row-major, n <= 3) by Gaussian
 * elimination with partial pivoting; 0 when (nearly) singular. */
static int solve_small(double *a, double *b, int n)
{
	for (int c = 0; c < n; c++) {
		int p = c;
		for (int r = c + 1; r < n; r++)
			if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
				p = r;
		if (!(fabs(a[p * n + c]) > 1e-14))
			return 0;
		if (p != c) {
			for (int k = 0; k < n; k++) {
				double t = a[c * n + k];
				a[c * n + k] = a[p * n + k];
				a[p * n + k] = t;
			}
			double t = b[c];
			b[c] = b[p];
			b[p] = t;
		}
		for (int r = c + 1; r < n; r++) {
			double f = a[r * n + c] / a[c * n + c];
			for (int k = c; k < n; k++)
				a[r * n + k] -= f * a[c * n + k];
			b[r] -= f * b[c];
		}
	}
	for (int c = n - 1; c >= 0; c--) {
		for (int k = c + 1; k < n; k++)
			b[c] -= a[c * n + k] * b[k];
		b[c] /= a[c * n + c];
	}
	return 1;
}

/* Run i's columns of the linear start as logs, relative to L_i: E, c_b
 * X1 and c_v X2 at unit coefficients. */
static void log_columns(const struct cal_data *data, const double *th,
                        size_t i, double *x)
{
	double t[HA_CAL_PARAMS];
	memcpy(t, th, sizeof t);
	t[HA_CAL_IRREDUCIBLE] = 0.0;
	t[HA_CAL_DATA_COEF] = 0.0; /* a fixed part of the target (linear_solve) */
	t[HA_CAL_BIAS_COEF] = 0.0;
	t[HA_CAL_VAR_COEF] = -INFINITY;
	x[1] = cal_log_fitted(data, t, i) - data->log_loss[i];
	t[HA_CAL_BIAS_COEF] = -INFINITY;
	t[HA_CAL_VAR_COEF] = 0.0;
	x[2] = cal_log_fitted(data, t, i) - data->log_loss[i];
	x[0] = -data->log_loss[i];
}

/* The parameters of the linear start's three columns. */
static const int slot[3] = {HA_CAL_IRREDUCIBLE, HA_CAL_BIAS_COEF,
                            HA_CAL_VAR_COEF};

/* Least squares over the columns in use (the others free ones are zero,
 * the fixed ones move to the target); 0 when singular or a coefficient
 * in use is not positive.  cols: each weighted run's three columns
 * scaled by e^-shift and its target before the fixed columns. */
static int linear_solve(const struct cal_data *data, const double *th,
                        const double *shift, const int *is_free,
                        const int *use, const double *cols, double *sol,
                        double *rss)
{
	int idx[3], n = 0;
	for (int c = 0; c < 3; c++)
		if (use[c])
			idx[n++] = c;
	double fixed[3];
	for (int c = 0; c < 3; c++)
		fixed[c] = c == 0 ? th[slot[0]] * exp(shift[0])
		                  : exp(th[slot[c]] + shift[c]);
	double a[9] = {0}, b[3] = {0};
	for (int pass = 0; pass < 2; pass++) {
		*rss = 0.0;
		for (size_t i = 0; i < data->m; i++) {
			double w = data->weight[i];
			if (w == 0.0)
				continue;
			const double *x = cols + 4 * i;
			double target = x[3];
			for (int c = 0; c < 3; c++)
				if (!use[c] && !is_free[c])
					target -= fixed[c] * x[c];
			double ww = w * data->inv_w[i] * data->inv_w[i];
			if (pass == 0) {
				for (int r = 0; r < n; r++) {
					for (int c = 0; c < n; c++)
						a[r * n + c] += ww * x[idx[r]] * x[idx[c]];
					b[r] += ww * x[idx[r]] * target;
				}
			} else {
				double fit = 0.0;
				for (int r = 0; r < n; r++)
					fit += sol[idx[r]] * x[idx[r]];
				*rss += ww * (fit - target) * (fit - target);
			}
		}
		if (pass == 0) {
			if (n > 0 && !solve_small(a, b, n))
				return 0;
			for (int r = 0; r < n; r++)
				sol[idx[r]] = b[r];
			if ((use[1] && !(sol[1] > 0)) || (use[2] && !(sol[2] > 0)))
				return 0;
		}
	}
	return isfinite(*rss);
}

/* A n_i^-α / L_i at th: the data term's share of run i's measured loss
 * (0 when A = 0). */
static double data_share(const struct cal_data *data, const double *th, size_t i)
{
	if (th[HA_CAL_DATA_COEF] == 0.0)
		return 0.0;
	return exp(log(th[HA_CAL_DATA_COEF]) - th[HA_CAL_DATA_POWER] * data->log_n[i] -
	           data->log_loss[i]);
}

static void linear_columns(const struct cal_data *data, const double *th,
                        double *work)
{
	double *shift = work, *cols = work + 3;
	for (int c = 0; c < 3; c++)
		shift[c] = -INFINITY;
	/* Each column's largest log (its scale). */
	for (size_t i = 0; i < data->m; i++) {
		if (data->weight[i] == 0.0)
			continue;
		double *col = cols + 4 * i;
		log_columns(data, th, i, col);
		for (int c = 0; c < 3; c++)
			if (col[c] > shift[c])
				shift[c] = col[c];
	}
	for (size_t i = 0; i < data->m; i++) {
		if (data->weight[i] == 0.0)
			continue;
		double *col = cols + 4 * i;
		for (int c = 0; c < 3; c++)
			col[c] = exp(col[c] - shift[c]);
		col[3] = 1.0 - data_share(data, th, i);
	}
}

/* Set the free ones of E, ln c_b, ln c_v in th (E only when e_free) from
 * the least-squares fit of the relative residuals
 *   sum_i w_i inv_w_i^2 ((E + c_b X1_i + c_v X2_i) / L_i - 1)^2,
 * c_b, c_v >= 0, the other parameters at their values in th.  Columns are
 * carried as logs and scaled to a largest entry of 1. */
static void linear_start(const struct cal_data *data, const int *free, int e_free,
                      double *th, const double *work)
{
	int is_free[3] = {e_free, free[HA_CAL_BIAS_COEF], free[HA_CAL_VAR_COEF]};
	const double *shift = work;
	/* Try each set of free coefficients held at zero (at most 4), keep
	 * the best solution whose other coefficients are positive. */
	double best_rss = INFINITY, best[3] = {0, 0, 0};
	int best_zero = -1;
	for (int zero = 0; zero < 4; zero++) {
		if ((zero & 1 && !is_free[1]) || (zero & 2 && !is_free[2]))
			continue;
		int use[3] = {is_free[0], is_free[1] && !(zero & 1),
		              is_free[2] && !(zero & 2)};
		double sol[3] = {0, 0, 0}, rss = 0.0;
		if (!linear_solve(data, th, shift, is_free, use, work + 3, sol, &rss))
			continue;
		if (rss < best_rss) {
			best_rss = rss;
			memcpy(best, sol, sizeof best);
			best_zero = zero;
		}
	}
	for (int c = 0; c < 3; c++) {
		if (!is_free[c])
			continue;
		int zeroed = best_zero < 0 || (c == 1 && (best_zero & 1)) ||
		             (c == 2 && (best_zero & 2));
		if (c == 0)
			th[slot[0]] = best_zero < 0 ? th[slot[0]] : best[0] / exp(shift[0]);
		else if (zeroed)
			th[slot[c]] = log(0.01) - shift[c]; /* 1% of L at its best run */
		else
			th[slot[c]] = log(best[c]) - shift[c];
	}
}

/* Starting values of the nonlinear parameters (grid_starts below):
 * each grid holds its parameter's bounds (s at HA_CAL_SMOOTHNESS_MIN,
 * γ = 0, κ = 0, hdi = 0 and 1) besides interior values, so that an
 * optimum on a bound (γ = 0: the variance a power of d) is started at,
 * not only approached by a line search that stops short of it. */
static const double grid_s[] = {HA_CAL_SMOOTHNESS_MIN, 0.5, 1.0, 2.0};
static const double grid_rate[] = {0.0, 0.1, 0.5};
static const double grid_power[] = {0.0, 0.5, 2.0};
static const double grid_hdi[] = {0.0, 0.5, 0.95, 1.0};
static const double grid_group_hdi[] = {0.0, 0.5, 1.0};
/* E starts as a share of the smallest loss, after the linear one. */
static const double grid_e[] = {0.0, 0.5, 0.9};
/* The data term: α on a grid; A so that A n^-α is a share of the loss of
 * the run at the smallest n (the linear start then fits the rest). */
static const double grid_data_power[] = {0.1, 0.3, 0.6};
static const double grid_data_share[] = {0.0, 0.5}; /* 0: its bound */
static const double grid_samples_power[] = {0.5, 1.0};

#define LBFGS_MAXEVAL 3000
/* Levenberg–Marquardt: the full search runs to the last digits; a refit
 * (bootstrap, leave-one-out) stops once a step gains less than 1e-10 of
 * the objective, or after REFIT_STEPS steps.  The cap matters on the
 * nearly flat valleys of an L1-like Huber fit, where a resample's
 * optimum may lie far along a direction its runs hardly constrain (s -> 0
 * with E -> -inf, say) and every step gains little: such a refit is
 * counted as not converged and reported, its last point kept. */
#define SEARCH_STEPS 500
#define SEARCH_TOLERANCE 1e-15
#define REFIT_STEPS 100
#define REFIT_TOLERANCE 1e-10
/* Starts within this relative distance of the best objective reached it;
 * the absolute term per run covers fits with zero residuals. */
#define REACHED_RELATIVE 1e-9
#define REACHED_PER_RUN 1e-24

/* ---- one local optimisation ----------------------------------------------- */

struct local {
	struct cal_lm lm; /* data, delta, the free slots, workspace */
	double origin[HA_CAL_PARAMS]; /* th at z = 0 */
	double scale[HA_CAL_PARAMS];  /* d th_j / d z */
};

/* The law's free parameters under a full search's stopping rule or a
 * refit's; no bar. */
static struct local local_of(const struct cal_data *data,
                             const struct ha_cal_law *law, double delta,
                             int refit)
{
	struct local l = {.lm = {.data = data, .delta = delta, .bar = INFINITY}};
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (law->free[p])
			l.lm.index[l.lm.k++] = p;
	l.lm.steps = refit ? REFIT_STEPS : SEARCH_STEPS;
	l.lm.tolerance = refit ? REFIT_TOLERANCE : SEARCH_TOLERANCE;
	return l;
}

static void local_free(struct local *l)
{
	free(l->lm.r);
	free(l->lm.jac);
	free(l->lm.kept);
}

static int local_alloc(struct local *l)
{
	size_t m = l->lm.data->m;
	l->lm.r = malloc(2 * m * sizeof *l->lm.r);
	l->lm.jac = malloc(2 * m * HA_CAL_PARAMS * sizeof *l->lm.jac);
	l->lm.jk = l->lm.jac ? l->lm.jac + m * HA_CAL_PARAMS : NULL;
	l->lm.kept = malloc(2 * m * CAL_PARTS * sizeof *l->lm.kept);
	return l->lm.r && l->lm.jac && l->lm.kept;
}

static void point(const struct local *l, const double *z, double *th)
{
	memcpy(th, l->origin, sizeof l->origin);
	for (int j = 0; j < l->lm.k; j++) {
		int p = l->lm.index[j];
		th[p] = l->origin[p] + l->scale[j] * z[j];
		/* z is held in its box; rounding must not step outside */
		if (th[p] < cal_lower[p])
			th[p] = cal_lower[p];
		if (th[p] > cal_upper[p])
			th[p] = cal_upper[p];
	}
}

static double local_objective(unsigned n, const double *z, double *grad,
                              void *data)
{
	(void)n;
	const struct local *l = data;
	double th[HA_CAL_PARAMS], g[HA_CAL_PARAMS];
	point(l, z, th);
	double f = cal_objective(l->lm.data, th, l->lm.delta, grad ? g : NULL, NULL);
	if (!isfinite(f)) {
		/* An overflow: a wall the line search backs away from. */
		if (grad)
			for (int j = 0; j < l->lm.k; j++)
				grad[j] = 0.0;
		return HUGE_VAL;
	}
	if (grad)
		for (int j = 0; j < l->lm.k; j++)
			grad[j] = g[l->lm.index[j]] * l->scale[j];
	return f;
}

/* Scale each free parameter by 1/sqrt of its Gauss–Newton curvature at th
 * (the change that moves the residuals by about one). */
static void curvature_scales(struct local *l, const double *th)
{
	const struct cal_data *data = l->lm.data;
	cal_residuals(data, th, NULL, NULL, 0, l->lm.r, l->lm.jac);
	for (int j = 0; j < l->lm.k; j++) {
		double sum = 0.0;
		for (size_t i = 0; i < data->m; i++) {
			double x = l->lm.jac[i * HA_CAL_PARAMS + l->lm.index[j]];
			sum += data->weight[i] * x * x;
		}
		double s = 1.0 / sqrt(sum);
		l->scale[j] = isfinite(s) && s > 0.0 ? s : 1.0;
	}
}

/* L-BFGS from th; th moves to the result when it is finite and no worse. */
static double run_lbfgs(struct local *l, double *th)
{
	memcpy(l->origin, th, sizeof l->origin);
	curvature_scales(l, th);
	double z[HA_CAL_PARAMS] = {0}, lo[HA_CAL_PARAMS], hi[HA_CAL_PARAMS];
	int k = l->lm.k;
	for (int j = 0; j < k; j++) {
		int p = l->lm.index[j];
		lo[j] = isfinite(cal_lower[p]) ? (cal_lower[p] - th[p]) / l->scale[j]
		                               : -HUGE_VAL;
		hi[j] = isfinite(cal_upper[p]) ? (cal_upper[p] - th[p]) / l->scale[j]
		                               : HUGE_VAL;
	}
	double f0 = local_objective((unsigned)k, z, NULL, l);
	nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, (unsigned)k);
	if (!opt)
		return f0;
	double f = f0;
	if (nlopt_set_min_objective(opt, local_objective, l) > 0 &&
	    nlopt_set_lower_bounds(opt, lo) > 0 &&
	    nlopt_set_upper_bounds(opt, hi) > 0 &&
	    nlopt_set_ftol_rel(opt, 1e-10) > 0 &&
	    nlopt_set_xtol_abs1(opt, 1e-12) > 0 &&
	    nlopt_set_maxeval(opt, LBFGS_MAXEVAL) > 0)
		nlopt_optimize(opt, z, &f);
	nlopt_destroy(opt);
	/* Any result but an outright failure leaves a usable point. */
	if (isfinite(f) && f <= f0) {
		double t[HA_CAL_PARAMS];
		point(l, z, t);
		memcpy(th, t, sizeof t);
		return f;
	}
	return f0;
}

/* ---- the search ---------------------------------------------------------- */

/* Fill starts (HA_CAL_PARAMS each) from the grid, work (grid_work
 * doubles) holding the linear starts' columns; returns their count.
 * With out = NULL only counts. */
static size_t grid_starts(const struct cal_data *data,
                          const struct ha_cal_law *law, double *out,
                          double *work)
{
#define AXIS(param, grid) {param, grid, sizeof grid / sizeof *grid}
	/* outermost first; E innermost, its starts sharing the columns; A's
	 * values are shares (set from α below) */
	static const struct {
		int param;
		const double *values;
		size_t count;
	} axes[] = {
		AXIS(HA_CAL_SMOOTHNESS, grid_s), AXIS(HA_CAL_VAR_RATE, grid_rate),
		AXIS(HA_CAL_VAR_POWER, grid_power), AXIS(HA_CAL_HDI, grid_hdi),
		AXIS(HA_CAL_GROUP_HDI, grid_group_hdi),
		AXIS(HA_CAL_DATA_POWER, grid_data_power),
		AXIS(HA_CAL_DATA_COEF, grid_data_share),
		AXIS(HA_CAL_VAR_SAMPLES_POWER, grid_samples_power),
		AXIS(HA_CAL_IRREDUCIBLE, grid_e),
	};
#undef AXIS
	enum { AXES = sizeof axes / sizeof *axes, E_AXIS = AXES - 1, A_AXIS = 6 };
	const int *free = law->free;
	size_t count[AXES], digit[AXES] = {0}, total = 1;
	for (int x = 0; x < AXES; x++) {
		/* E: the linear start, then the grid's shares */
		count[x] = !free[axes[x].param] ? 1
		           : axes[x].count + (x == E_AXIS);
		total *= count[x];
	}
	if (!out)
		return total;
	for (size_t c = 0; c < total; c++) {
		double *th = out + c * HA_CAL_PARAMS;
		memcpy(th, law->value, HA_CAL_PARAMS * sizeof *th);
		for (int x = 0; x < E_AXIS; x++)
			if (x != A_AXIS && free[axes[x].param])
				th[axes[x].param] = axes[x].values[digit[x]];
		if (free[HA_CAL_DATA_COEF])
			th[HA_CAL_DATA_COEF] = grid_data_share[digit[A_AXIS]] * data->loss_min *
			                       exp(th[HA_CAL_DATA_POWER] * data->log_n_min);
		size_t e = digit[E_AXIS];
		if (e == 0)
			linear_columns(data, th, work);
		int e_linear = free[HA_CAL_IRREDUCIBLE] && e == 0;
		if (free[HA_CAL_IRREDUCIBLE] && e > 0)
			th[HA_CAL_IRREDUCIBLE] = grid_e[e - 1] * data->loss_min;
		linear_start(data, free, e_linear, th, work);
		/* E >= 0: a negative linear E is no start, use 0. */
		if (e_linear && !(th[HA_CAL_IRREDUCIBLE] >= 0.0)) {
			th[HA_CAL_IRREDUCIBLE] = 0.0;
			linear_start(data, free, 0, th, work);
		}
		for (int x = AXES - 1; x >= 0 && ++digit[x] == count[x]; x--)
			digit[x] = 0;
	}
	return total;
}

/* The doubles of grid_starts' work. */
static size_t grid_work(const struct cal_data *data)
{
	return 3 + 4 * data->m;
}

/* Start s with the law's fixed values put in (in place), and the first
 * start with the same doubles: s itself, or an earlier twin (grid
 * points that the linear start maps to one point, E = 0 from the grid
 * and from a negative linear E, say).  Levenberg–Marquardt and L-BFGS
 * are deterministic, so a twin's local optimisation would repeat its
 * first's step for step, and skipping it changes no result. */
static size_t start_of(double *starts, size_t s, const struct ha_cal_law *law)
{
	double *t = starts + s * HA_CAL_PARAMS;
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (!law->free[p])
			t[p] = law->value[p];
	for (size_t q = 0; q < s; q++)
		if (memcmp(starts + q * HA_CAL_PARAMS, t, HA_CAL_PARAMS * sizeof *t) == 0)
			return q;
	return s;
}

/* One start of a search (pool_for's task: start s = tasks[task]),
 * on the worker's own workspace: its end into ends[s] and th + s
 * HA_CAL_PARAMS, whether LM
 * converged into converged[s] (0 where LM did not run: the flag a fresh
 * workspace holds, as the serial loop read it at start 0). */
struct search {
	const struct cal_data *data;
	int refit;              /* from one start: LM alone */
	const double *starts;   /* count x HA_CAL_PARAMS */
	const size_t *twin;     /* the first start with the same doubles */
	const size_t *tasks;    /* the starts this pass runs */
	double *ends, *th;      /* count; count x HA_CAL_PARAMS */
	int *converged;         /* count */
	struct local *locals;   /* one a worker */
};

static enum ha_status search_start(void *ctx, size_t worker, size_t task)
{
	struct search *x = ctx;
	size_t s = x->tasks[task];
	if (x->twin[s] < s)
		return HA_OK;
	struct local *l = &x->locals[worker];
	double *t = x->th + s * HA_CAL_PARAMS;
	memcpy(t, x->starts + s * HA_CAL_PARAMS, HA_CAL_PARAMS * sizeof *t);
	double f = cal_objective(x->data, t, l->lm.delta, NULL, NULL);
	x->converged[s] = 0;
	if (l->lm.k > 0 && isfinite(f)) {
		f = cal_levenberg(&l->lm, t, x->refit ? f : run_lbfgs(l, t));
		x->converged[s] = l->lm.converged;
	}
	x->ends[s] = f;
	/* HA_ECANCELED stops the pass (pool_for); minimise then says so */
	return !x->data->poll || poll_check(x->data->poll) ? HA_OK : HA_ECANCELED;
}

/* How far above the best objective best a start's end may lie and still
 * count as having reached it. */
static double reached_margin(const struct cal_data *data, double best)
{
	double runs = 0.0;
	for (size_t i = 0; i < data->m; i++)
		runs += data->weight[i];
	return REACHED_RELATIVE * best + REACHED_PER_RUN * runs;
}

static int in_list(const size_t *list, size_t count, size_t value)
{
	for (size_t i = 0; i < count; i++)
		if (list[i] == value)
			return 1;
	return 0;
}

/* Every local optimisation returns a point no worse than its start, so
 * the best end is no worse than the best seed.  The starts are
 * independent: they run on data->threads threads (search_start), and
 * their ends are read afterwards in the starts' order, so the result is
 * the serial loop's whatever the thread count.
 *
 * With seeds, they run first (to the end), and the grid's starts then
 * with the refits' stopping rule against the seeds' best end (lm.bar,
 * calibrate_lm.c), beyond the margin that counts a start as having
 * reached the best: a grid start crawling along a flat valley far above
 * it does not run out its SEARCH_STEPS.  The bar depends only on the
 * seeds, so the result does not depend on
 * the thread count either. */
enum ha_status cal_minimise(const struct cal_data *data,
                            const struct ha_cal_law *law, double delta,
                            const double *start, const double *seeds,
                            size_t seed_count, double *th, double *objective,
                            size_t *total, size_t *reached, int *converged)
{
	struct local locals[POOL_MAX_THREADS];
	/* no bar: the seeds' pass, or no seeds */
	struct local l = local_of(data, law, delta, start != NULL);
	size_t grid = start ? 1 : grid_starts(data, law, NULL, NULL);
	size_t count = grid + (start ? 0 : seed_count);
	size_t threads = pool_threads(data->threads, count), ready = 0;
	/* starts and end_th count x HA_CAL_PARAMS, ends count; twin and
	 * tasks count each */
	double *starts = malloc(count * (2 * HA_CAL_PARAMS + 1) * sizeof *starts);
	size_t *twin = malloc(2 * count * sizeof *twin);
	int *end_converged = malloc(count * sizeof *end_converged);
	double *work = start ? NULL : malloc(grid_work(data) * sizeof *work);
	enum ha_status st = HA_ENOMEM;
	if (!starts || !twin || !end_converged || (!start && !work))
		goto done;
	double *end_th = starts + count * HA_CAL_PARAMS;
	double *ends = end_th + count * HA_CAL_PARAMS;
	size_t *tasks = twin + count;
	while (ready < threads) {
		locals[ready] = l;
		if (!local_alloc(&locals[ready++]))
			goto done;
	}
	if (start) {
		memcpy(starts, start, HA_CAL_PARAMS * sizeof *starts);
	} else {
		grid_starts(data, law, starts, work);
		if (seed_count)
			memcpy(starts + grid * HA_CAL_PARAMS, seeds,
			       seed_count * HA_CAL_PARAMS * sizeof *starts);
	}
	/* A twin's local optimisation would repeat its first's step for
	 * step: its end is its first's. */
	for (size_t s = 0; s < count; s++)
		twin[s] = start_of(starts, s, law);
	/* The first pass: the seeds (their firsts); the second, the rest. */
	size_t first_pass = 0, done = 0;
	for (size_t s = grid; s < count; s++)
		if (!in_list(tasks, first_pass, twin[s]))
			tasks[first_pass++] = twin[s];
	struct search x = {data, start != NULL, starts, twin, tasks, ends,
	                   end_th, end_converged, locals};
	if (first_pass) {
		pool_for(first_pass, threads, search_start, &x, NULL, NULL);
		if (poll_stopped(data)) {
			st = HA_ECANCELED;
			goto done;
		}
		double bar = INFINITY;
		for (size_t t = 0; t < first_pass; t++)
			bar = ends[tasks[t]] < bar ? ends[tasks[t]] : bar;
		for (size_t w = 0; w < ready; w++) {
			locals[w].lm.bar = bar;
			locals[w].lm.bar_margin = reached_margin(data, bar);
		}
		done = first_pass;
	}
	for (size_t s = 0; s < count; s++)
		if (!in_list(tasks, first_pass, s))
			tasks[done++] = s;
	x.tasks = tasks + first_pass;
	pool_for(done - first_pass, threads, search_start, &x, NULL, NULL);
	if (poll_stopped(data)) {
		st = HA_ECANCELED;
		goto done;
	}
	double best_f = INFINITY, best[HA_CAL_PARAMS];
	int unconverged = 0;
	for (size_t s = 0; s < count; s++) {
		if (twin[s] < s) {
			ends[s] = ends[twin[s]];
			continue;
		}
		double f = ends[s];
		if (s == 0 || f < best_f)
			unconverged = l.lm.k > 0 && !end_converged[s];
		if (f < best_f) {
			best_f = f;
			memcpy(best, end_th + s * HA_CAL_PARAMS, sizeof best);
		}
	}
	st = HA_ENUMERIC;
	if (!isfinite(best_f))
		goto done;
	size_t hits = 0;
	for (size_t s = 0; s < count; s++)
		hits += ends[s] <= best_f + reached_margin(data, best_f);
	memcpy(th, best, sizeof best);
	*objective = best_f;
	if (total)
		*total = count;
	if (reached)
		*reached = hits;
	if (converged)
		*converged = !unconverged;
	st = HA_OK;
done:
	free(starts);
	free(twin);
	free(end_converged);
	free(work);
	for (size_t w = 0; w < ready; w++)
		local_free(&locals[w]);
	return st;
}

/* The seeds (the full data's optimum; in the comparison also the
 * resample's optima of the laws this one contains) go first, then the
 * grid in its order: each start is stopped early once it cannot reach
 * the best end so far (lm.bar; the rule in calibrate_lm.c), which needs
 * a good best early to save work. */
enum ha_status cal_refit_grid(const struct cal_data *data,
                              const struct ha_cal_law *law, double delta,
                              const double *seeds, size_t seed_count,
                              double *th, double *objective, int *converged)
{
	struct local l = local_of(data, law, delta, 1);
	l.lm.near = CAL_NEAR_BAR;
	size_t grid = grid_starts(data, law, NULL, NULL), count = grid + seed_count;
	double *starts = malloc(count * HA_CAL_PARAMS * sizeof *starts);
	double *work = malloc(grid_work(data) * sizeof *work);
	enum ha_status st = HA_ENOMEM;
	if (!starts || !work || !local_alloc(&l))
		goto done;
	if (seed_count)
		memcpy(starts, seeds, seed_count * HA_CAL_PARAMS * sizeof *starts);
	grid_starts(data, law, starts + seed_count * HA_CAL_PARAMS, work);
	double best_f = INFINITY;
	int best_converged = 0;
	for (size_t s = 0; s < count; s++) {
		double t[HA_CAL_PARAMS];
		/* A twin of an earlier start ends where it did, no lower than
		 * the best so far: nothing to do. */
		if (start_of(starts, s, law) < s)
			continue;
		memcpy(t, starts + s * HA_CAL_PARAMS, sizeof t);
		double f = cal_objective(data, t, delta, NULL, NULL);
		l.lm.bar = best_f;
		if (l.lm.k > 0 && isfinite(f))
			f = cal_levenberg(&l.lm, t, f);
		if (f < best_f) {
			best_f = f;
			best_converged = l.lm.k == 0 || l.lm.converged;
			memcpy(th, t, sizeof t);
		}
	}
	st = isfinite(best_f) ? HA_OK : HA_ENUMERIC;
	*objective = best_f;
	*converged = best_converged;
done:
	free(starts);
	free(work);
	local_free(&l);
	return st;
}
