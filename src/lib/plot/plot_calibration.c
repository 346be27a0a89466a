/* Picture 6: a calibration (headalloc-model(7), CALIBRATION) — what it computes.  The
 * runs in groups of one (D, n), the fitted curve of each group with its
 * bootstrap band, the target's curve and divisors, the laws of the
 * comparison, the window that shows them, and the captions; drawn by
 * plot_calibration_draw.c.  Every loss is computed as its logarithm and
 * mapped onto the axis only at the end. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/divisors.h>

#include "plot_calibration.h"

#define LN10 2.302585092994045684

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

static enum ha_status make_groups(struct calplot *p)
{
	const struct ha_cal_residual *res = p->c->fit.residuals;
	size_t m = p->m;
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
			struct plot_cal_group *g = &p->groups[p->group_count++];
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
	p->curve_groups = p->group_count < PLOT_CAL_CURVE_GROUPS ? p->group_count
	                                                         : PLOT_CAL_CURVE_GROUPS;
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

/* A curve of the values over real d of the axis (up to D), on points
 * points: x in log10 d, y in log10 L. */
static enum ha_status make_curve(const struct calplot *p, struct plot_cal_curve *cv,
                                 const double *value, double budget, double n,
                                 size_t points)
{
	double a = fmax(p->x0, 0.0), b = fmin(p->x1, log10(budget));
	cv->x = malloc(points * sizeof *cv->x);
	cv->y = malloc(points * sizeof *cv->y);
	if (!cv->x || !cv->y)
		return HA_ENOMEM;
	if (!(b > a)) {
		cv->n = 0;
		return HA_OK;
	}
	cv->n = points;
	for (size_t j = 0; j < points; j++) {
		double u = a + (b - a) * (double)j / (double)(points - 1);
		double d = fmin(fmax(pow(10.0, u), 1.0), budget);
		cv->x[j] = u;
		cv->y[j] = value ? log10_loss(value, budget, d, n) : NAN;
	}
	return HA_OK;
}

/* The band of a curve of points points: x in log10 d, lo and hi in
 * log10 L. */
static enum ha_status make_band(const struct calplot *p, struct plot_cal_band *bd,
                                double budget, double n, struct ha_error *err)
{
	struct plot_cal_curve grid = {0};
	enum ha_status st = make_curve(p, &grid, NULL, budget, n, PLOT_CAL_BAND_POINTS);
	struct ha_cal_point *pts = malloc(PLOT_CAL_BAND_POINTS * sizeof *pts);
	bd->lo = malloc(PLOT_CAL_BAND_POINTS * sizeof *bd->lo);
	bd->hi = malloc(PLOT_CAL_BAND_POINTS * sizeof *bd->hi);
	bd->x = grid.x;
	free(grid.y);
	if (st == HA_OK && (!pts || !bd->lo || !bd->hi))
		st = HA_ENOMEM;
	if (st == HA_OK) {
		for (size_t j = 0; j < grid.n; j++)
			pts[j] = (struct ha_cal_point){
				budget, fmin(fmax(pow(10.0, grid.x[j]), 1.0), budget), n};
		st = ha_cal_band(p->c, pts, grid.n, 0.025, 0.975, bd->lo, bd->hi, err);
	}
	if (st == HA_OK) {
		bd->n = grid.n;
		for (size_t j = 0; j < grid.n; j++) {
			bd->lo[j] /= LN10;
			bd->hi[j] /= LN10;
		}
	}
	free(pts);
	return st;
}

/* ---- the target ----------------------------------------------------------------------- */

/* The feasible divisors of the target and the window's span they ask
 * for: the optimum and its feasible neighbours within a decade. */
static void target_span(const struct calplot *p, const uint64_t *feasible,
                        size_t count, double *lo, double *hi)
{
	const struct ha_cal_prediction *pr = &p->c->prediction;
	double opt = log10((double)pr->head_dim);
	*lo = fmin(*lo, opt);
	*hi = fmax(*hi, opt);
	for (size_t i = 0; i < count; i++) {
		if (feasible[i] != pr->head_dim)
			continue;
		if (i > 0 && opt - log10((double)feasible[i - 1]) <= 1.0)
			*lo = fmin(*lo, log10((double)feasible[i - 1]));
		if (i + 1 < count && log10((double)feasible[i + 1]) - opt <= 1.0)
			*hi = fmax(*hi, log10((double)feasible[i + 1]));
	}
}

/* The divisors of the target on the axis, their losses and (feasible
 * ones) their bands. */
static enum ha_status make_target(struct calplot *p, const uint64_t *feasible,
                                  size_t feasible_count, struct ha_error *err)
{
	const struct ha_cal_prediction *pr = &p->c->prediction;
	const double *value = p->c->fit.law.value;
	uint64_t *divisors = NULL;
	size_t count = 0;
	enum ha_status st = ha_divisors(pr->budget, &divisors, &count);
	if (st != HA_OK)
		return st;
	p->target_feasible = feasible_count;
	size_t in_view = 0;
	for (size_t i = 0; i < count; i++) {
		double x = log10((double)divisors[i]);
		in_view += x >= p->x0 && x <= p->x1;
	}
	p->target_on_axis = in_view;
	for (size_t i = 0, j = 0; i < count; i++) {
		while (j < feasible_count && feasible[j] < divisors[i])
			j++;
		double x = log10((double)divisors[i]);
		if (x >= p->x0 && x <= p->x1 && j < feasible_count && feasible[j] == divisors[i])
			p->target_feasible_on_axis++;
	}
	if (in_view > PLOT_CAL_MARKS) {
		free(divisors);
		return HA_OK; /* the curve only; the caption says so */
	}
	p->marks = calloc(in_view ? in_view : 1, sizeof *p->marks);
	struct ha_cal_point *pts = malloc((in_view ? in_view : 1) * sizeof *pts);
	double *lo = malloc((in_view ? in_view : 1) * sizeof *lo);
	double *hi = malloc((in_view ? in_view : 1) * sizeof *hi);
	if (!p->marks || !pts || !lo || !hi)
		st = HA_ENOMEM;
	size_t banded = 0;
	for (size_t i = 0, j = 0; st == HA_OK && i < count; i++) {
		while (j < feasible_count && feasible[j] < divisors[i])
			j++;
		double x = log10((double)divisors[i]);
		if (x < p->x0 || x > p->x1)
			continue;
		struct plot_cal_mark *mk = &p->marks[p->mark_count++];
		mk->x = x;
		mk->y = log10_loss(value, (double)pr->budget, (double)divisors[i], pr->samples);
		mk->feasible = j < feasible_count && feasible[j] == divisors[i];
		mk->optimum = divisors[i] == pr->head_dim;
		if (mk->feasible)
			pts[banded++] = (struct ha_cal_point){(double)pr->budget,
			                                      (double)divisors[i], pr->samples};
	}
	if (st == HA_OK && p->have_band && banded) {
		st = ha_cal_band(p->c, pts, banded, 0.025, 0.975, lo, hi, err);
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

/* ---- the window ----------------------------------------------------------------------- */

static void widen(double *lo, double *hi, double v)
{
	if (isfinite(v)) {
		*lo = fmin(*lo, v);
		*hi = fmax(*hi, v);
	}
}

static double curve_min(const struct plot_cal_curve *cv)
{
	double m = INFINITY;
	for (size_t j = 0; j < cv->n; j++)
		m = fmin(m, cv->y[j]);
	return m;
}

/* The loss axis: every run with its error bar (bars wider than a factor
 * e^0.5 are cut instead), the lowest point of each curve on the axis
 * and the target's optimum; a little room below, more above, where the
 * curves leave. */
static void choose_loss_axis(struct calplot *p)
{
	const struct ha_cal_residual *res = p->c->fit.residuals;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < p->m; i++) {
		double l = log(res[i].loss);
		widen(&lo, &hi, l / LN10);
		double w = res[i].loss_se / res[i].loss;
		if (w <= 0.5) { /* false for NaN: no se */
			widen(&lo, &hi, (l - w) / LN10);
			widen(&lo, &hi, (l + w) / LN10);
		}
	}
	for (size_t g = 0; g < p->group_count; g++)
		if (p->groups[g].curve)
			widen(&lo, &hi, curve_min(&p->groups[g].fit));
	if (p->c->prediction.defined) {
		widen(&lo, &hi, p->c->prediction.log_loss / LN10);
		widen(&lo, &hi, curve_min(&p->target));
	}
	p->y_log = hi - lo > log10(30.0);
	if (p->y_log) {
		double span = hi - lo;
		p->y0 = lo - 0.08 * span;
		p->y1 = hi + 0.25 * span;
		return;
	}
	double vlo = pow(10.0, lo), vhi = pow(10.0, hi), span = vhi - vlo;
	if (span < 1e-6 * vhi)
		span = 0.02 * vhi;
	p->y0 = fmax(0.0, vlo - 0.08 * span);
	p->y1 = vhi + 0.25 * span;
}

/* log10 L on the axis: its world coordinate, within ten heights of the
 * window (PLplot clips what lies beyond; a coordinate that far out moves
 * a clipped line by a tenth of its last segment's width at most). */
static double on_axis(const struct calplot *p, double log10_value)
{
	if (isnan(log10_value))
		return NAN;
	double span = p->y1 - p->y0;
	double v = p->y_log ? log10_value
	                    : log10_value > 300.0 ? p->y1 + 10.0 * span
	                                          : pow(10.0, log10_value);
	return fmin(fmax(v, p->y0 - 10.0 * span), p->y1 + 10.0 * span);
}

/* -1 below the axis, 1 above, 0 on it. */
static int off_axis(const struct calplot *p, double log10_value)
{
	double top = p->y_log ? p->y1 : log10(p->y1);
	double bottom = p->y_log ? p->y0 : p->y0 > 0.0 ? log10(p->y0) : -INFINITY;
	return log10_value > top ? 1 : log10_value < bottom ? -1 : 0;
}

static void curve_on_axis(const struct calplot *p, struct plot_cal_curve *cv)
{
	for (size_t j = 0; j < cv->n; j++)
		cv->y[j] = on_axis(p, cv->y[j]);
}

static void map_to_axis(struct calplot *p)
{
	const struct ha_cal_residual *res = p->c->fit.residuals;
	for (size_t i = 0; i < p->m; i++) {
		struct plot_cal_run *r = &p->runs[i];
		double l = log(res[i].loss), w = res[i].loss_se / res[i].loss;
		r->x = log10((double)res[i].head_dim);
		r->y = on_axis(p, l / LN10);
		r->has_bar = !isnan(w);
		if (r->has_bar) {
			r->cut_lo = off_axis(p, (l - w) / LN10) < 0;
			r->cut_hi = off_axis(p, (l + w) / LN10) > 0;
			r->lo = r->cut_lo ? p->y0 : on_axis(p, (l - w) / LN10);
			r->hi = r->cut_hi ? p->y1 : on_axis(p, (l + w) / LN10);
			p->bars_cut += r->cut_lo + r->cut_hi;
		}
	}
	for (size_t g = 0; g < p->group_count; g++) {
		struct plot_cal_group *gr = &p->groups[g];
		curve_on_axis(p, &gr->fit);
		for (size_t j = 0; j < gr->band.n; j++) {
			gr->band.lo[j] = on_axis(p, gr->band.lo[j]);
			gr->band.hi[j] = on_axis(p, gr->band.hi[j]);
		}
	}
	curve_on_axis(p, &p->target);
	if (p->c->prediction.defined) {
		p->optimum_x = log10((double)p->c->prediction.head_dim);
		p->optimum_y = on_axis(p, p->c->prediction.log_loss / LN10);
	}
	for (size_t i = 0; i < p->mark_count; i++) {
		struct plot_cal_mark *mk = &p->marks[i];
		mk->off = off_axis(p, mk->y);
		p->above += mk->off > 0;
		p->below += mk->off < 0;
		mk->y = on_axis(p, mk->y);
		if (mk->has_band) {
			mk->lo = on_axis(p, mk->lo);
			mk->hi = on_axis(p, mk->hi);
		}
	}
	for (size_t k = 0; k < p->law_count; k++) {
		struct plot_cal_law *lw = &p->laws[k];
		curve_on_axis(p, &lw->curve);
		if (lw->has_mark) {
			lw->mark_off = off_axis(p, lw->mark_y);
			p->above += lw->mark_off > 0;
			p->below += lw->mark_off < 0;
			lw->mark_y = on_axis(p, lw->mark_y);
		}
	}
}

/* ---- the bars -------------------------------------------------------------------------- */

static int by_head_dim(const void *a, const void *b)
{
	const struct plot_cal_bar *x = a, *y = b;
	if (x->others != y->others)
		return x->others - y->others;
	return (x->head_dim > y->head_dim) - (x->head_dim < y->head_dim);
}

static enum ha_status make_bars(struct calplot *p)
{
	const struct ha_cal_prediction *pr = &p->c->prediction;
	size_t n = pr->distribution_count;
	if (!pr->defined || n == 0)
		return HA_OK;
	size_t shown = n <= PLOT_CAL_BARS ? n : PLOT_CAL_BARS - 1;
	p->bars = calloc(shown + 1, sizeof *p->bars);
	if (!p->bars)
		return HA_ENOMEM;
	/* the distribution is most frequent first */
	for (size_t i = 0; i < shown; i++) {
		const struct ha_cal_share *s = &pr->distribution[i];
		p->bars[i] = (struct plot_cal_bar){s->heads, s->head_dim, s->share, s->count,
		                                   s->head_dim == pr->head_dim, 0};
	}
	p->bar_count = shown;
	if (shown < n) {
		struct plot_cal_bar *o = &p->bars[p->bar_count++];
		*o = (struct plot_cal_bar){0, 0, 0.0, 0, 0, 1};
		for (size_t i = shown; i < n; i++) {
			o->count += pr->distribution[i].count;
			o->share += pr->distribution[i].share;
		}
		p->others = n - shown;
	}
	qsort(p->bars, p->bar_count, sizeof *p->bars, by_head_dim);
	return HA_OK;
}

/* ---- all of it ---------------------------------------------------------------------------- */

static enum ha_status make_laws(struct calplot *p)
{
	const struct ha_calibration *c = p->c;
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
		struct plot_cal_law *lw = &p->laws[p->law_count++];
		lw->row = row;
		if (row->status != HA_OK)
			continue;
		enum ha_status st = make_curve(p, &lw->curve, row->law.value, budget, n,
		                               PLOT_CAL_CURVE_POINTS);
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

enum ha_status plot_cal_compute(struct calplot *p, struct ha_error *err)
{
	const struct ha_calibration *c = p->c;
	const struct ha_cal_prediction *pr = &c->prediction;
	p->m = c->fit.runs;
	p->have_band = c->bootstrap.fitted >= 2 && c->bootstrap.refits;
	p->bar_panel = pr->defined && pr->distribution_count > 0;
	p->panel[0] = 0.08;
	p->panel[1] = 0.60;
	p->runs = calloc(p->m, sizeof *p->runs);
	enum ha_status st = p->runs ? make_groups(p) : HA_ENOMEM;
	struct ha_solver *solver = NULL;
	size_t feasible_count = 0;
	const uint64_t *feasible = NULL;
	if (st == HA_OK && pr->defined) {
		st = ha_solver_new(pr->budget, &pr->constraints, &solver);
		if (st != HA_OK)
			return plot_solve_failed(err, st, pr->budget);
		feasible = ha_solver_feasible(solver, &feasible_count);
	}
	if (st == HA_OK) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < p->m; i++)
			widen(&lo, &hi, log10((double)c->fit.residuals[i].head_dim));
		if (pr->defined) {
			target_span(p, feasible, feasible_count, &lo, &hi);
			for (size_t k = 0; c->comparison && k < c->comparison_count; k++)
				if (c->comparison[k].status == HA_OK && c->comparison[k].has_prediction)
					widen(&lo, &hi, log10((double)c->comparison[k].head_dim));
		}
		double pad = fmax(0.06 * (hi - lo), 0.12);
		p->x0 = lo - pad;
		p->x1 = hi + pad;
	}
	for (size_t g = 0; st == HA_OK && g < p->group_count; g++) {
		struct plot_cal_group *gr = &p->groups[g];
		if (!gr->curve)
			continue;
		st = make_curve(p, &gr->fit, c->fit.law.value, (double)gr->budget, gr->samples,
		                PLOT_CAL_CURVE_POINTS);
		if (st == HA_OK && p->have_band)
			st = make_band(p, &gr->band, (double)gr->budget, gr->samples, err);
	}
	if (st == HA_OK && pr->defined) {
		st = make_curve(p, &p->target, c->fit.law.value, (double)pr->budget,
		                pr->samples, PLOT_CAL_CURVE_POINTS);
		if (st == HA_OK)
			st = make_target(p, feasible, feasible_count, err);
	}
	ha_solver_free(solver);
	if (st == HA_OK)
		st = make_laws(p);
	if (st == HA_OK) {
		choose_loss_axis(p);
		map_to_axis(p);
		st = plot_cal_choose_labels(p);
	}
	if (st == HA_OK)
		st = make_bars(p);
	if (st == HA_OK)
		plot_cal_captions(p);
	/* ha_cal_band says why it failed; the rest is memory */
	if (st != HA_OK && !(err && err->status != HA_OK))
		return ha_fail(err, st, "drawing the calibration: %s", ha_status_str(st));
	return st;
}

static void free_curve(struct plot_cal_curve *cv)
{
	free(cv->x);
	free(cv->y);
}

void plot_cal_free(struct calplot *p)
{
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
	free(p->runs);
	free(p->marks);
	free(p->labels);
	free(p->bars);
}

enum ha_status ha_plot_calibration(struct ha_plot_target *target,
                                   const struct ha_plot_calibration_request *req,
                                   struct ha_error *err)
{
	enum ha_status st = plot_check_target(target, err);
	if (st != HA_OK)
		return st;
	const struct ha_calibration *c = req ? req->calibration : NULL;
	if (!c || c->fit.runs == 0 || !c->fit.residuals ||
	    (c->prediction.defined &&
	     (c->prediction.budget < 1 || c->prediction.budget > HA_BUDGET_MAX ||
	      ha_constraints_validate(&c->prediction.constraints) != HA_OK)))
		return ha_fail(err, HA_EINVAL, "a calibration's picture needs a calibration with its runs");
	struct calplot p = {.req = req, .c = c};
	if (err)
		ha_error_init(err);
	st = plot_cal_compute(&p, err);
	if (st == HA_OK)
		st = plot_render(target, PLOT_CAL_WIDTH, PLOT_CAL_HEIGHT, plot_cal_draw, &p, err);
	plot_cal_free(&p);
	return st;
}
