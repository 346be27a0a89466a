/* Picture 6: a calibration (headalloc-model(7), CALIBRATION) — its layout.
 * The curves, bands, divisors and the head-dimension window come from the
 * calibration layer (ha_cal_picture_new, in log10 L); here the loss axis
 * is chosen, everything is mapped onto it, and the bars and captions are
 * made; drawn by plot_calibration_draw.c. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_calibration.h"

#define LN10 2.302585092994045684

/* ---- the picture's data ------------------------------------------------------------ */

/* The picture's curves are copied: map_to_axis() maps them in place. */
static enum ha_status copy_doubles(double **dst, const double *src, size_t n)
{
	*dst = NULL;
	if (!n)
		return HA_OK;
	*dst = malloc(n * sizeof **dst);
	if (!*dst)
		return HA_ENOMEM;
	memcpy(*dst, src, n * sizeof **dst);
	return HA_OK;
}

static enum ha_status copy_curve(struct plot_cal_curve *dst,
                                 const struct ha_cal_picture_curve *src)
{
	dst->n = src->n;
	enum ha_status st = copy_doubles(&dst->x, src->x, src->n);
	return st == HA_OK ? copy_doubles(&dst->y, src->y, src->n) : st;
}

static enum ha_status copy_band(struct plot_cal_band *dst, const struct ha_cal_picture_band *src)
{
	dst->n = src->n;
	enum ha_status st = copy_doubles(&dst->x, src->x, src->n);
	if (st == HA_OK)
		st = copy_doubles(&dst->lo, src->lo, src->n);
	return st == HA_OK ? copy_doubles(&dst->hi, src->hi, src->n) : st;
}

static enum ha_status copy_picture(struct calplot *p)
{
	const struct ha_cal_picture *pic = p->pic;
	const struct ha_calibration *c = p->c;
	p->group_of = pic->group_of;
	p->group_count = pic->group_count;
	p->curve_groups = pic->curve_groups;
	p->largest = pic->largest;
	p->x0 = pic->x0;
	p->x1 = pic->x1;
	p->target_feasible = pic->target_feasible;
	p->target_on_axis = pic->target_on_axis;
	p->target_feasible_on_axis = pic->target_feasible_on_axis;
	p->groups = calloc(pic->group_count ? pic->group_count : 1, sizeof *p->groups);
	p->marks = calloc(pic->mark_count ? pic->mark_count : 1, sizeof *p->marks);
	p->laws = calloc(pic->law_count ? pic->law_count : 1, sizeof *p->laws);
	if (!p->groups || !p->marks || !p->laws)
		return HA_ENOMEM;
	enum ha_status st = HA_OK;
	for (size_t g = 0; st == HA_OK && g < pic->group_count; g++) {
		const struct ha_cal_picture_group *src = &pic->groups[g];
		struct plot_cal_group *dst = &p->groups[g];
		dst->budget = src->budget;
		dst->samples = src->samples;
		dst->count = src->count;
		dst->curve = src->curve;
		st = copy_curve(&dst->fit, &src->fit);
		if (st == HA_OK)
			st = copy_band(&dst->band, &src->band);
	}
	if (st == HA_OK)
		st = copy_curve(&p->target, &pic->target);
	for (size_t i = 0; i < pic->mark_count; i++) {
		const struct ha_cal_picture_mark *src = &pic->marks[i];
		p->marks[p->mark_count++] = (struct plot_cal_mark){
			src->x, src->y, src->feasible, src->optimum, 0, src->has_band, src->lo, src->hi};
	}
	for (size_t k = 0; st == HA_OK && k < pic->law_count; k++) {
		const struct ha_cal_picture_law *src = &pic->laws[k];
		struct plot_cal_law *lw = &p->laws[p->law_count++];
		lw->row = &c->comparison[k];
		lw->has_mark = src->has_mark;
		lw->mark_x = src->mark_x;
		lw->mark_y = src->mark_y;
		st = copy_curve(&lw->curve, &src->curve);
	}
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

enum ha_status plot_cal_compute(struct calplot *p, struct ha_error *err)
{
	const struct ha_calibration *c = p->c;
	const struct ha_cal_prediction *pr = &c->prediction;
	p->m = c->fit.runs;
	p->have_band = p->pic->have_band;
	p->bar_panel = pr->defined && pr->distribution_count > 0;
	p->panel[0] = 0.08;
	p->panel[1] = 0.60;
	p->runs = calloc(p->m, sizeof *p->runs);
	enum ha_status st = p->runs ? copy_picture(p) : HA_ENOMEM;
	if (st == HA_OK) {
		choose_loss_axis(p);
		map_to_axis(p);
		st = plot_cal_choose_labels(p);
	}
	if (st == HA_OK)
		st = make_bars(p);
	if (st == HA_OK)
		plot_cal_captions(p);
	if (st != HA_OK)
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
	if (!c || c->fit.runs == 0 || !c->fit.residuals)
		return ha_fail(err, HA_EINVAL, "a calibration's picture needs a calibration with its runs");
	const struct ha_cal_picture *pic = req->picture;
	if (!pic || pic->runs != c->fit.runs || pic->group_count == 0 ||
	    pic->law_count != (c->comparison ? c->comparison_count : 0))
		return ha_fail(err, HA_EINVAL, "a calibration's picture needs its data "
		               "from ha_cal_picture_new of the same calibration");
	struct calplot p = {.req = req, .c = c, .pic = pic};
	if (err)
		ha_error_init(err);
	st = plot_cal_compute(&p, err);
	if (st == HA_OK)
		st = plot_render(target, PLOT_CAL_WIDTH, PLOT_CAL_HEIGHT, plot_cal_draw, &p, err);
	plot_cal_free(&p);
	return st;
}
