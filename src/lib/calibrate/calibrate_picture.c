/* A calibration's fitted curves with their bootstrap bands
 * (ha_cal_log_loss, ha_cal_band), and its picture data (cal_picture.h):
 * the runs in groups of one
 * (D, n), the window of the head-dimension axis, and on it the fitted
 * curves, their bootstrap bands, the target's curve and divisors and the
 * compared laws' curves — computed here so that ha_plot_calibration only
 * draws.  Every loss is computed as its logarithm (log10 L). */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_statistics_double.h>

#include <headalloc/cal_picture.h>
#include <headalloc/solver.h>

#include "base/error_internal.h"
#include "alloc/solver_internal.h"
#include "calibrate/calibrate_internal.h"

#define LN10 2.302585092994045684

typedef struct ha_cal_picture pic_t;

/* ---- the fitted curves and their bootstrap bands ------------------------------------- */

static int point_ok(const struct ha_cal_point *p)
{
	return isfinite(p->budget) && p->budget >= 1.0 &&
	       p->head_dim >= 1.0 && p->head_dim <= p->budget &&
	       isfinite(p->samples) && p->samples > 1.0;
}

/* A point as the one run of the objective's data. */
struct one_run {
	struct cal_data data;
	double log_d, d_log_d, log_n, cover, gcover, weight;
};

static void one_run(struct one_run *r, const struct ha_cal_point *p)
{
	double d = p->head_dim, heads = p->budget / p->head_dim;
	r->log_d = log(d);
	r->d_log_d = d * r->log_d;
	r->log_n = log(p->samples);
	r->cover = 1.0 - 1.0 / heads;
	r->gcover = 0.0; /* a point is ungrouped (G = H) */
	r->weight = 1.0;
	r->data = (struct cal_data){.m = 1, .log_d = &r->log_d, .d_log_d = &r->d_log_d,
	                            .log_n = &r->log_n, .cover = &r->cover,
	                            .gcover = &r->gcover, .weight = &r->weight};
}

double ha_cal_log_loss(const double value[HA_CAL_PARAMS],
                       const struct ha_cal_point *point)
{
	if (!value || !point || !point_ok(point))
		return NAN;
	struct one_run r;
	one_run(&r, point);
	return cal_log_fitted(&r.data, value, 0);
}

/* The q-quantile of v[0..n) as gsl_stats_quantile_from_sorted_data takes
 * it from sorted data (the parameters' ci95), by selection: v is
 * reordered. */
static double quantile(double *v, size_t n, double q)
{
	double at = q * (double)(n - 1);
	size_t lhs = (size_t)floor(at);
	double delta = at - (double)lhs;
	double a = gsl_stats_select(v, 1, n, lhs);
	if (delta == 0.0 || lhs + 1 >= n)
		return a;
	double b = gsl_stats_select(v, 1, n, lhs + 1);
	return (1.0 - delta) * a + delta * b;
}

enum ha_status ha_cal_band(const struct ha_calibration *c,
                           const struct ha_cal_point *points, size_t count,
                           double lower, double upper, double *log_lower,
                           double *log_upper, struct ha_error *err)
{
	if (!c || (count && (!points || !log_lower || !log_upper)))
		return ha_fail(err, HA_EINVAL, "a band needs a calibration, points and outputs");
	if (!(lower >= 0.0 && lower <= upper && upper <= 1.0))
		return ha_fail(err, HA_EINVAL,
		               "a band's quantiles must satisfy 0 <= lower <= upper <= 1, found %g and %g",
		               lower, upper);
	for (size_t i = 0; i < count; i++)
		if (!point_ok(&points[i]))
			return ha_fail(err, HA_EINVAL,
			               "point %zu of the band is out of its domain (D %g, d %g, n %g)",
			               i, points[i].budget, points[i].head_dim, points[i].samples);
	size_t b = c->bootstrap.fitted;
	if (b < 2 || !c->bootstrap.refits)
		return ha_fail(err, HA_EDEGENERATE,
		               "a band needs at least two bootstrap refits, found %zu", b);
	double *v = malloc(b * sizeof *v);
	if (!v)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	for (size_t i = 0; i < count; i++) {
		struct one_run run;
		one_run(&run, &points[i]);
		for (size_t r = 0; r < b; r++)
			v[r] = cal_log_fitted(&run.data, c->bootstrap.refits + r * HA_CAL_PARAMS, 0);
		log_lower[i] = quantile(v, b, lower);
		log_upper[i] = quantile(v, b, upper);
	}
	free(v);
	return HA_OK;
}

/* ---- the groups ------------------------------------------------------------------- */

struct keyed {
	uint64_t budget;
	double samples;
	size_t run;
};

static int by_group(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->budget != y->budget)
		return x->budget < y->budget ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? -1 : 1;
	return (x->run > y->run) - (x->run < y->run);
}

/* A group's size and index: the largest groups first (ties: the
 * earlier). */
struct sized {
	size_t count, group;
};

static int by_size(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->group > y->group) - (x->group < y->group);
}

static int same_group(const struct keyed *a, const struct keyed *b)
{
	return a->budget == b->budget && a->samples == b->samples;
}

static enum ha_status make_groups(pic_t *p, const struct ha_cal_residual *res)
{
	size_t m = p->runs;
	struct keyed *k = malloc(m * sizeof *k);
	struct sized *rank = malloc(m * sizeof *rank);
	p->group_of = malloc(m * sizeof *p->group_of);
	p->groups = calloc(m, sizeof *p->groups);
	if (!k || !p->group_of || !p->groups || !rank) {
		free(k);
		free(rank);
		return HA_ENOMEM;
	}
	for (size_t i = 0; i < m; i++)
		k[i] = (struct keyed){res[i].heads * res[i].head_dim, res[i].samples, i};
	qsort(k, m, sizeof *k, by_group);
	for (size_t i = 0; i < m; i++) {
		if (i == 0 || !same_group(&k[i], &k[i - 1])) {
			struct ha_cal_picture_group *g = &p->groups[p->group_count++];
			g->budget = k[i].budget;
			g->samples = k[i].samples;
		}
		p->groups[p->group_count - 1].count++;
		p->group_of[k[i].run] = p->group_count - 1;
	}
	free(k);
	/* Curves for the largest groups only: a picture of a hundred curves
	 * shows none. */
	for (size_t g = 0; g < p->group_count; g++)
		rank[g] = (struct sized){p->groups[g].count, g};
	qsort(rank, p->group_count, sizeof *rank, by_size);
	p->curve_groups = p->group_count < HA_CAL_PICTURE_CURVE_GROUPS
	                          ? p->group_count
	                          : HA_CAL_PICTURE_CURVE_GROUPS;
	for (size_t i = 0; i < p->curve_groups; i++)
		p->groups[rank[i].group].curve = 1;
	p->largest = rank[0].group;
	free(rank);
	return HA_OK;
}

/* ---- curves --------------------------------------------------------------------------- */

static double log10_loss(const double *value, double budget, double d, double n)
{
	struct ha_cal_point pt = {budget, d, n};
	return ha_cal_log_loss(value, &pt) / LN10;
}

/* The window's x (log10 d) up to D on `points` points into x; 0 when
 * the window holds no d in [1, D], else points. */
static size_t window_x(const pic_t *p, double budget, size_t points, double *x)
{
	double a = fmax(p->x0, 0.0), b = fmin(p->x1, log10(budget));
	if (!(b > a))
		return 0;
	for (size_t j = 0; j < points; j++)
		x[j] = a + (b - a) * (double)j / (double)(points - 1);
	return points;
}

/* The head dimension at x, within [1, D]. */
static double head_dim_at(double x, double budget)
{
	return fmin(fmax(pow(10.0, x), 1.0), budget);
}

/* A curve of the values at (D, n) over the window: x in log10 d, y in
 * log10 L. */
static enum ha_status make_curve(const pic_t *p, struct ha_cal_picture_curve *cv,
                                 const double *value, double budget, double n)
{
	cv->x = malloc(HA_CAL_PICTURE_CURVE_POINTS * sizeof *cv->x);
	cv->y = malloc(HA_CAL_PICTURE_CURVE_POINTS * sizeof *cv->y);
	if (!cv->x || !cv->y)
		return HA_ENOMEM;
	cv->n = window_x(p, budget, HA_CAL_PICTURE_CURVE_POINTS, cv->x);
	for (size_t j = 0; j < cv->n; j++)
		cv->y[j] = log10_loss(value, budget, head_dim_at(cv->x[j], budget), n);
	return HA_OK;
}

/* The band of a curve of HA_CAL_PICTURE_BAND_POINTS points: x in log10
 * d, lo and hi in log10 L. */
static enum ha_status make_band(const pic_t *p, const struct ha_calibration *c,
                                struct ha_cal_picture_band *bd, double budget,
                                double n, struct ha_error *err)
{
	struct ha_cal_point pts[HA_CAL_PICTURE_BAND_POINTS] = {{0.0, 0.0, 0.0}};
	bd->x = malloc(HA_CAL_PICTURE_BAND_POINTS * sizeof *bd->x);
	bd->lo = malloc(HA_CAL_PICTURE_BAND_POINTS * sizeof *bd->lo);
	bd->hi = malloc(HA_CAL_PICTURE_BAND_POINTS * sizeof *bd->hi);
	if (!bd->x || !bd->lo || !bd->hi)
		return HA_ENOMEM;
	size_t count = window_x(p, budget, HA_CAL_PICTURE_BAND_POINTS, bd->x);
	for (size_t j = 0; j < count; j++)
		pts[j] = (struct ha_cal_point){budget, head_dim_at(bd->x[j], budget), n};
	enum ha_status st = ha_cal_band(c, pts, count, 0.025, 0.975, bd->lo, bd->hi, err);
	if (st != HA_OK)
		return st;
	bd->n = count;
	for (size_t j = 0; j < count; j++) {
		bd->lo[j] /= LN10;
		bd->hi[j] /= LN10;
	}
	return HA_OK;
}

/* ---- the target ----------------------------------------------------------------------- */

static void widen(double *lo, double *hi, double v)
{
	if (isfinite(v)) {
		*lo = fmin(*lo, v);
		*hi = fmax(*hi, v);
	}
}

/* The feasible divisors of the target and the window's span they ask
 * for: the optimum and its feasible neighbours within a decade. */
static void target_span(const struct ha_cal_prediction *pr, const uint64_t *feasible,
                        size_t count, double *lo, double *hi)
{
	double opt = log10((double)pr->head_dim);
	widen(lo, hi, opt);
	for (size_t i = 0; i < count; i++) {
		if (feasible[i] != pr->head_dim)
			continue;
		if (i > 0 && opt - log10((double)feasible[i - 1]) <= 1.0)
			widen(lo, hi, log10((double)feasible[i - 1]));
		if (i + 1 < count && log10((double)feasible[i + 1]) - opt <= 1.0)
			widen(lo, hi, log10((double)feasible[i + 1]));
	}
}

/* The divisors of the target on the window, their losses and (feasible
 * ones) their bands. */
static enum ha_status make_target(pic_t *p, const struct ha_calibration *c,
                                  const uint64_t *feasible, size_t feasible_count,
                                  struct ha_error *err)
{
	const struct ha_cal_prediction *pr = &c->prediction;
	const double *value = c->fit.law.value;
	uint64_t *divisors = NULL;
	size_t count = 0, banded = 0;
	enum ha_status st = ha_divisors(pr->budget, &divisors, &count);
	if (st != HA_OK)
		return st;
	p->target_feasible = feasible_count;
	size_t room = count < HA_CAL_PICTURE_MARKS ? count : HA_CAL_PICTURE_MARKS;
	p->marks = calloc(room, sizeof *p->marks);
	struct ha_cal_point *pts = malloc(room * sizeof *pts);
	double *lo = malloc(room * sizeof *lo);
	double *hi = malloc(room * sizeof *hi);
	if (!p->marks || !pts || !lo || !hi)
		st = HA_ENOMEM;
	for (size_t i = 0, j = 0; st == HA_OK && i < count; i++) {
		while (j < feasible_count && feasible[j] < divisors[i])
			j++;
		double x = log10((double)divisors[i]);
		if (x < p->x0 || x > p->x1)
			continue;
		int feasible_i = j < feasible_count && feasible[j] == divisors[i];
		p->target_feasible_on_axis += feasible_i;
		if (++p->target_on_axis > HA_CAL_PICTURE_MARKS)
			continue;
		struct ha_cal_picture_mark *mk = &p->marks[p->mark_count++];
		mk->x = x;
		mk->y = log10_loss(value, (double)pr->budget, (double)divisors[i], pr->samples);
		mk->feasible = feasible_i;
		mk->optimum = divisors[i] == pr->head_dim;
		if (mk->feasible)
			pts[banded++] = (struct ha_cal_point){(double)pr->budget,
			                                      (double)divisors[i], pr->samples};
	}
	if (p->target_on_axis > HA_CAL_PICTURE_MARKS)
		p->mark_count = banded = 0; /* the curve only */
	if (st == HA_OK && p->have_band && banded) {
		st = ha_cal_band(c, pts, banded, 0.025, 0.975, lo, hi, err);
		for (size_t i = 0, b = 0; st == HA_OK && i < p->mark_count; i++) {
			if (!p->marks[i].feasible)
				continue;
			p->marks[i].has_band = 1;
			p->marks[i].lo = lo[b] / LN10;
			p->marks[i].hi = hi[b++] / LN10;
		}
	}
	free(divisors);
	free(pts);
	free(lo);
	free(hi);
	return st;
}

/* ---- the window and the laws ---------------------------------------------------------- */

/* The head-dimension window: the runs, the target's optimum and its
 * feasible neighbours within a decade, and the laws' optima at the
 * target, with 6% of the span (at least 0.12 decades) either side. */
static void choose_window(pic_t *p, const struct ha_calibration *c,
                          const uint64_t *feasible, size_t feasible_count)
{
	const struct ha_cal_prediction *pr = &c->prediction;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < p->runs; i++)
		widen(&lo, &hi, log10((double)c->fit.residuals[i].head_dim));
	if (pr->defined) {
		target_span(pr, feasible, feasible_count, &lo, &hi);
		for (size_t k = 0; c->comparison && k < c->comparison_count; k++)
			if (c->comparison[k].status == HA_OK && c->comparison[k].has_prediction)
				widen(&lo, &hi, log10((double)c->comparison[k].head_dim));
	}
	double pad = fmax(0.06 * (hi - lo), 0.12);
	p->x0 = lo - pad;
	p->x1 = hi + pad;
}

static enum ha_status make_laws(pic_t *p, const struct ha_calibration *c)
{
	if (!c->comparison || !c->comparison_count)
		return HA_OK;
	p->laws = calloc(c->comparison_count, sizeof *p->laws);
	if (!p->laws)
		return HA_ENOMEM;
	const struct ha_cal_prediction *pr = &c->prediction;
	double budget = pr->defined ? (double)pr->budget : (double)p->groups[p->largest].budget;
	double n = pr->defined ? pr->samples : p->groups[p->largest].samples;
	for (size_t k = 0; k < c->comparison_count; k++) {
		const struct ha_cal_comparison *row = &c->comparison[k];
		struct ha_cal_picture_law *lw = &p->laws[p->law_count++];
		if (row->status != HA_OK)
			continue;
		enum ha_status st = make_curve(p, &lw->curve, row->law.value, budget, n);
		if (st != HA_OK)
			return st;
		if (pr->defined && row->has_prediction) {
			lw->has_mark = 1;
			lw->mark_x = log10((double)row->head_dim);
			lw->mark_y = log10_loss(row->law.value, budget, (double)row->head_dim, n);
		}
	}
	return HA_OK;
}

/* ---- all of it ---------------------------------------------------------------------------- */

static enum ha_status compute(pic_t *p, const struct ha_calibration *c, struct ha_error *err)
{
	const struct ha_cal_prediction *pr = &c->prediction;
	p->runs = c->fit.runs;
	p->have_band = c->bootstrap.fitted >= 2 && c->bootstrap.refits;
	enum ha_status st = make_groups(p, c->fit.residuals);
	struct ha_solver *solver = NULL;
	size_t feasible_count = 0;
	const uint64_t *feasible = NULL;
	if (st == HA_OK && pr->defined) {
		st = ha_solver_new(pr->budget, &pr->constraints, &solver);
		if (st != HA_OK)
			return ha_solve_failed(err, st, pr->budget);
		feasible = ha_solver_feasible(solver, &feasible_count);
	}
	if (st == HA_OK)
		choose_window(p, c, feasible, feasible_count);
	for (size_t g = 0; st == HA_OK && g < p->group_count; g++) {
		struct ha_cal_picture_group *gr = &p->groups[g];
		if (!gr->curve)
			continue;
		st = make_curve(p, &gr->fit, c->fit.law.value, (double)gr->budget, gr->samples);
		if (st == HA_OK && p->have_band)
			st = make_band(p, c, &gr->band, (double)gr->budget, gr->samples, err);
	}
	if (st == HA_OK && pr->defined) {
		st = make_curve(p, &p->target, c->fit.law.value, (double)pr->budget,
		                pr->samples);
		if (st == HA_OK)
			st = make_target(p, c, feasible, feasible_count, err);
	}
	ha_solver_free(solver);
	if (st == HA_OK)
		st = make_laws(p, c);
	return st;
}

enum ha_status ha_cal_picture_new(const struct ha_calibration *c, struct ha_cal_picture **out,
                                  struct ha_error *err)
{
	if (err)
		ha_error_init(err);
	if (out)
		*out = NULL;
	if (!out || !c || c->fit.runs == 0 || !c->fit.residuals ||
	    (c->prediction.defined &&
	     (c->prediction.budget < 1 || c->prediction.budget > HA_BUDGET_MAX ||
	      ha_constraints_validate(&c->prediction.constraints) != HA_OK)))
		return ha_fail(err, HA_EINVAL, "a calibration's picture needs a calibration with its runs");
	pic_t *p = calloc(1, sizeof *p);
	if (!p)
		return ha_fail(err, HA_ENOMEM, "drawing the calibration: %s",
		               ha_status_str(HA_ENOMEM));
	enum ha_status st = compute(p, c, err);
	if (st != HA_OK) {
		ha_cal_picture_free(p);
		/* ha_cal_band and the allocator say why they failed; the rest is memory */
		if (!(err && err->status != HA_OK))
			return ha_fail(err, st, "drawing the calibration: %s", ha_status_str(st));
		return st;
	}
	*out = p;
	return HA_OK;
}

static void free_curve(struct ha_cal_picture_curve *cv)
{
	free(cv->x);
	free(cv->y);
}

void ha_cal_picture_free(struct ha_cal_picture *p)
{
	if (!p)
		return;
	for (size_t g = 0; p->groups && g < p->group_count; g++) {
		free_curve(&p->groups[g].fit);
		free(p->groups[g].band.x);
		free(p->groups[g].band.lo);
		free(p->groups[g].band.hi);
	}
	for (size_t k = 0; k < p->law_count; k++)
		free_curve(&p->laws[k].curve);
	free(p->laws);
	free_curve(&p->target);
	free(p->groups);
	free(p->group_of);
	free(p->marks);
	free(p);
}
