/* Picture 6: a calibration (headalloc-model(7), CALIBRATION) — its layout.
 * The curves, bands, divisors and the head-dimension window come from the
 * calibration layer (ha_cal_picture_new, in log10 L); here the loss axis
 * is chosen, the runs are mapped onto it, and the bars and captions are
 * made; drawn by plot_calibration_draw.c. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "plot_calibration.h"

#define LN10 2.302585092994045684

/* ---- the window ----------------------------------------------------------------------- */

static void widen(double *lo, double *hi, double v)
{
	if (isfinite(v)) {
		*lo = fmin(*lo, v);
		*hi = fmax(*hi, v);
	}
}

static double curve_min(const struct ha_cal_picture_curve *cv)
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
	for (size_t g = 0; g < p->pic->group_count; g++)
		if (p->pic->groups[g].curve)
			widen(&lo, &hi, curve_min(&p->pic->groups[g].fit));
	if (p->c->prediction.defined) {
		widen(&lo, &hi, p->c->prediction.log_loss / LN10);
		widen(&lo, &hi, curve_min(&p->pic->target));
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

/* Within ten heights of the window: PLplot clips what lies beyond, and a
 * coordinate that far out moves a clipped line by a tenth of its last
 * segment's width at most. */
double plot_cal_on_axis(const struct calplot *p, double log10_value)
{
	if (isnan(log10_value))
		return NAN;
	double span = p->y1 - p->y0;
	double v = p->y_log ? log10_value
	                    : log10_value > 300.0 ? p->y1 + 10.0 * span
	                                          : pow(10.0, log10_value);
	return fmin(fmax(v, p->y0 - 10.0 * span), p->y1 + 10.0 * span);
}

int plot_cal_off_axis(const struct calplot *p, double log10_value)
{
	double top = p->y_log ? p->y1 : log10(p->y1);
	double bottom = p->y_log ? p->y0 : p->y0 > 0.0 ? log10(p->y0) : -INFINITY;
	return log10_value > top ? 1 : log10_value < bottom ? -1 : 0;
}

/* The runs onto the axis, and the marks beyond it counted. */
static void map_to_axis(struct calplot *p)
{
	const struct ha_cal_residual *res = p->c->fit.residuals;
	for (size_t i = 0; i < p->m; i++) {
		struct plot_cal_run *r = &p->runs[i];
		double l = log(res[i].loss), w = res[i].loss_se / res[i].loss;
		r->x = log10((double)res[i].head_dim);
		r->y = plot_cal_on_axis(p, l / LN10);
		r->has_bar = !isnan(w);
		if (r->has_bar) {
			r->cut_lo = plot_cal_off_axis(p, (l - w) / LN10) < 0;
			r->cut_hi = plot_cal_off_axis(p, (l + w) / LN10) > 0;
			r->lo = r->cut_lo ? p->y0 : plot_cal_on_axis(p, (l - w) / LN10);
			r->hi = r->cut_hi ? p->y1 : plot_cal_on_axis(p, (l + w) / LN10);
			p->bars_cut += r->cut_lo + r->cut_hi;
		}
	}
	if (p->c->prediction.defined) {
		p->optimum_x = log10((double)p->c->prediction.head_dim);
		p->optimum_y = plot_cal_on_axis(p, p->c->prediction.log_loss / LN10);
	}
	for (size_t i = 0; i < p->pic->mark_count; i++) {
		int off = plot_cal_off_axis(p, p->pic->marks[i].y);
		p->above += off > 0;
		p->below += off < 0;
	}
	for (size_t k = 0; k < p->pic->law_count; k++) {
		const struct ha_cal_picture_law *lw = &p->pic->laws[k];
		int off = lw->has_mark ? plot_cal_off_axis(p, lw->mark_y) : 0;
		p->above += off > 0;
		p->below += off < 0;
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
	struct calplot p = {.req = req, .c = c, .pic = pic, .m = c->fit.runs,
	                    .panel = {0.08, 0.60}};
	if (err)
		ha_error_init(err);
	const struct ha_cal_prediction *pr = &c->prediction;
	p.bar_panel = pr->defined && pr->distribution_count > 0;
	p.runs = calloc(p.m, sizeof *p.runs);
	st = p.runs ? HA_OK : HA_ENOMEM;
	if (st == HA_OK) {
		choose_loss_axis(&p);
		map_to_axis(&p);
		st = plot_cal_choose_labels(&p);
	}
	if (st == HA_OK)
		st = make_bars(&p);
	if (st == HA_OK) {
		plot_cal_captions(&p);
		st = plot_render(target, PLOT_CAL_WIDTH, PLOT_CAL_HEIGHT, plot_cal_draw, &p, err);
	} else {
		ha_fail(err, st, "drawing the calibration: %s", ha_status_str(st));
	}
	free(p.runs);
	free(p.labels);
	free(p.bars);
	return st;
}
