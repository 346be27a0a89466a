/* Picture 6: a calibration (headalloc-model(7), CALIBRATION).  The curves,
 * bands, divisors and the head-dimension window come from the
 * calibration layer (ha_cal_picture_new, in log10 L); here the loss axis
 * is chosen, the runs are mapped onto it, the bars and the caption's
 * lines are made, and then all of it is drawn with its legend. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/cal_picture.h>
#include <headalloc/calibrate.h>
#include <plplot.h>

#include "plot_internal.h"
#include "calibrate/calibrate_internal.h"

#define LN10 2.302585092994045684
#define GAMMA "\xce\xb3"
#define KAPPA "\xce\xba"
#define DELTA "\xce\xb4"
#define BETA "\xce\xb2"

#define WIDTH 1200
#define HEIGHT 900
/* The bottom of the panels (a fraction of the page): the caption's seven
 * lines below. */
#define BOTTOM 0.32
/* Groups named in the legend. */
#define LEGEND_GROUPS 6
/* Bars of the bootstrap's optima (the last: all the others). */
#define BARS 12
/* Caption lines (plot_caption's lines -3 to 3), and the characters
 * that fit across the page in one. */
#define CAPTION_LINES 7
#define CAPTION_ROOM 112
/* The width of a title character, in pixels (measured: 14.05 on the
 * 1200-pixel page). */
#define TITLE_CHAR_PX 15.0

struct run_point {
	double x, y;
	int has_bar, cut_lo, cut_hi; /* a bar end beyond the axis is at its edge */
	double lo, hi;
};

struct bar {
	uint64_t heads, head_dim;
	double share;
	size_t count;
	int optimum; /* the prediction's */
	int others;  /* the bar of every allocation not shown alone */
};

struct calplot {
	const struct ha_plot_calibration_request *req;
	const struct ha_calibration *c;
	const struct ha_cal_picture *pic; /* what is drawn, in log10 L */
	size_t m;                     /* runs */
	struct run_point *runs;       /* in the runs' order, on the axis */
	double panel[2];              /* left and right of the losses' panel */
	double y0, y1;                /* the loss axis (x: the picture's window) */
	int y_log;
	double optimum_x, optimum_y;  /* the prediction */
	size_t above, below, bars_cut; /* marks beyond the axis; bars cut */
	double *labels;               /* head dimensions named under the axis */
	size_t label_count;
	struct bar *bars;
	size_t bar_count, others;     /* others: allocations in the others' bar */
	char caption[CAPTION_LINES][PLOT_CAPTION_MAX + 1];
	int caption_line;             /* the line being filled */
};

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

/* log10 L as a world coordinate of the axis (log10 L on a log axis, L on
 * a linear one), within ten heights of the window: PLplot clips what lies
 * beyond, and a coordinate that far out moves a clipped line by a tenth
 * of its last segment's width at most. */
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

/* Which side of the axis log10 L lies beyond: -1 below, 1 above, 0 on it. */
static int off_axis(const struct calplot *p, double log10_value)
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
		struct run_point *r = &p->runs[i];
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
	if (p->c->prediction.defined) {
		p->optimum_x = log10((double)p->c->prediction.head_dim);
		p->optimum_y = on_axis(p, p->c->prediction.log_loss / LN10);
	}
	for (size_t i = 0; i < p->pic->mark_count; i++) {
		int off = off_axis(p, p->pic->marks[i].y);
		p->above += off > 0;
		p->below += off < 0;
	}
	for (size_t k = 0; k < p->pic->law_count; k++) {
		const struct ha_cal_picture_law *lw = &p->pic->laws[k];
		int off = lw->has_mark ? off_axis(p, lw->mark_y) : 0;
		p->above += off > 0;
		p->below += off < 0;
	}
}

/* ---- the bars -------------------------------------------------------------------------- */

static int by_head_dim(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;
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
	size_t shown = n <= BARS ? n : BARS - 1;
	p->bars = calloc(shown + 1, sizeof *p->bars);
	if (!p->bars)
		return HA_ENOMEM;
	/* the distribution is most frequent first */
	for (size_t i = 0; i < shown; i++) {
		const struct ha_cal_share *s = &pr->distribution[i];
		p->bars[i] = (struct bar){s->heads, s->head_dim, s->share, s->count,
		                                   s->head_dim == pr->head_dim, 0};
	}
	p->bar_count = shown;
	if (shown < n) {
		struct bar *o = &p->bars[p->bar_count++];
		*o = (struct bar){0, 0, 0.0, 0, 0, 1};
		for (size_t i = shown; i < n; i++) {
			o->count += pr->distribution[i].count;
			o->share += pr->distribution[i].share;
		}
		p->others = n - shown;
	}
	qsort(p->bars, p->bar_count, sizeof *p->bars, by_head_dim);
	return HA_OK;
}

/* A value for a caption: %.4g, or "10^x" for a log10 value beyond 1e15
 * (from log10 v, never from an overflowed v). */
static void format_log10(char *dst, size_t size, double log10_value)
{
	if (isinf(log10_value))
		snprintf(dst, size, log10_value > 0 ? "inf" : "0");
	else if (fabs(log10_value) <= 15.0)
		snprintf(dst, size, "%.4g", pow(10.0, log10_value));
	else
		snprintf(dst, size, "10#u%.5g#d", log10_value);
}

/* A count for the legend, where width is short: exact up to 7 digits,
 * else %.4g (the caption gives it exactly). */
static void format_count(char *dst, size_t size, uint64_t v)
{
	if (v < 10000000)
		snprintf(dst, size, "%" PRIu64, v);
	else
		snprintf(dst, size, "%.4g", (double)v);
}

/* n: 10^k for a power of ten from 10^4, else %.4g. */
static void format_samples(char *dst, size_t size, double n)
{
	double e = log10(n);
	if (n >= 1e4 && fabs(e - nearbyint(e)) < 1e-12)
		snprintf(dst, size, "10#u%.0f#d", e);
	else
		snprintf(dst, size, "%.4g", n);
}

/* ---- labels ------------------------------------------------------------------------------ */

/* The head dimensions named under the axis: the target's optimum first,
 * then the runs' and the target's divisors on the axis, left to right,
 * each at least 44 pixels from every one named. */
static enum ha_status choose_labels(struct calplot *p)
{
	size_t cap = p->m + p->pic->mark_count + 1;
	double *v = malloc(cap * sizeof *v);
	p->labels = malloc(cap * sizeof *p->labels);
	if (!v || !p->labels) {
		free(v);
		return HA_ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->m; i++)
		v[n++] = (double)p->c->fit.residuals[i].head_dim;
	for (size_t i = 0; i < p->pic->mark_count; i++)
		v[n++] = nearbyint(pow(10.0, p->pic->marks[i].x));
	for (size_t i = 1; i < n; i++) /* insertion sort: few values, mostly sorted */
		for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	double px = (p->panel[1] - p->panel[0]) * WIDTH / (p->pic->x1 - p->pic->x0);
	if (p->c->prediction.defined)
		p->labels[p->label_count++] = (double)p->c->prediction.head_dim;
	for (size_t i = 0; i < n; i++) {
		int room = 1;
		for (size_t k = 0; k < p->label_count && room; k++)
			room = fabs(log10(v[i]) - log10(p->labels[k])) * px >= 44.0;
		if (room)
			p->labels[p->label_count++] = v[i];
	}
	free(v);
	return HA_OK;
}

/* ---- captions ------------------------------------------------------------------------------ */

/* Append an item to the caption: after sep on the line being filled,
 * or at the start of the next line when fresh or when it would not fit
 * (the last line takes what remains). */
static void put(struct calplot *p, int fresh, const char *sep, const char *fmt, ...)
	HA_PRINTF(4, 5);

static void put(struct calplot *p, int fresh, const char *sep, const char *fmt, ...)
{
	char item[PLOT_CAPTION_MAX + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(item, sizeof item, fmt, ap);
	va_end(ap);
	char *line = p->caption[p->caption_line];
	if (line[0] && (fresh || plot_visible(line) + plot_visible(sep) + plot_visible(item) >
	                                 CAPTION_ROOM) &&
	    p->caption_line + 1 < CAPTION_LINES)
		line = p->caption[++p->caption_line];
	size_t used = strlen(line), size = sizeof p->caption[0];
	snprintf(line + used, size - used, "%s%s", line[0] ? sep : "", item);
}

/* A value with its interval, in as many digits (4 to 9) as tell the
 * three apart: ln c_v = -1578.01 [-1578.03, -1577.92], not -1578
 * [-1578, -1578]. */
static void value_and_range(char *dst, size_t size, double v, const double *range)
{
	int digits = 4;
	for (; range && digits < 9; digits++) {
		char a[32], b[32], c[32];
		snprintf(a, sizeof a, "%.*g", digits, range[0]);
		snprintf(b, sizeof b, "%.*g", digits, v);
		snprintf(c, sizeof c, "%.*g", digits, range[1]);
		if ((range[0] == v || strcmp(a, b) != 0) && (range[1] == v || strcmp(b, c) != 0) &&
		    (range[0] == range[1] || strcmp(a, c) != 0))
			break;
	}
	if (range)
		snprintf(dst, size, "%.*g [%.*g, %.*g]", digits, v, digits, range[0], digits,
		         range[1]);
	else
		snprintf(dst, size, "%.4g", v);
}

/* One parameter, as the caption gives it. */
static void parameter(struct calplot *p, const struct ha_cal_estimate *e, int k,
                      const char *sep)
{
	static const char *const symbol[HA_CAL_PARAMS] = {
		"E", "c#db#u", "s", "c#dv#u", GAMMA, KAPPA, "hdi", "A", PLOT_ALPHA, BETA,
	};
	char number[96], value[64] = "";
	value_and_range(number, sizeof number, e->value, e->has_ci ? e->ci95 : NULL);
	if (!e->has_ci && e->has_se) {
		size_t used = strlen(number);
		snprintf(number + used, sizeof number - used, " " PLOT_PLUSMINUS " %.2g", e->se);
	}
	if (e->log_scale) {
		/* the coefficient itself, from its logarithm: it may lie far
		 * beyond a double (ln c_v = -1578 is c_v = 10^-685.3) */
		char v[48];
		format_log10(v, sizeof v, e->value / LN10);
		snprintf(value, sizeof value, " (%s = %s)", symbol[k], v);
	}
	put(p, 0, sep, "%s%s = %s%s", e->log_scale ? "ln " : "", symbol[k], number, value);
}

static void parameter_lines(struct calplot *p)
{
	const struct ha_cal_fit *fit = &p->c->fit;
	if (isinf(fit->huber_delta))
		put(p, 0, "", "least-squares fit to %zu runs:", fit->runs);
	else
		put(p, 0, "", "fit to %zu runs (Huber " DELTA " = %g):", fit->runs,
		    fit->huber_delta);
	const char *sep = " ";
	for (int k = 0; k < HA_CAL_PARAMS; k++)
		if (fit->param[k].free) {
			parameter(p, &fit->param[k], k, sep);
			sep = ", ";
		}
	sep = ";  fixed: ";
	for (int k = 0; k < HA_CAL_PARAMS; k++)
		if (!fit->param[k].free &&
		    ha_cal_param_reported((enum ha_cal_param)k, &fit->param[k])) {
			parameter(p, &fit->param[k], k, sep);
			sep = ", ";
		}
	put(p, 0, ";  ", "rms log residual %.3g", fit->rms);
}

static void make_captions(struct calplot *p)
{
	const struct ha_calibration *c = p->c;
	const struct ha_cal_prediction *pr = &c->prediction;
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	memset(p->caption, 0, sizeof p->caption);
	p->caption_line = 0;
	parameter_lines(p);
	if (pr->defined) {
		char n[32], loss[48];
		format_samples(n, sizeof n, pr->samples);
		format_log10(loss, sizeof loss, pr->log_loss / LN10);
		put(p, 1, "", "target D = %" PRIu64 ", n = %s: optimum %" PRIu64 " heads "
		    PLOT_TIMES " d#dk#u = %" PRIu64 " (" PLOT_DISC_GLYPH "), loss %s", pr->budget,
		    n, pr->heads, pr->head_dim, loss);
		for (size_t i = 0; i < pr->distribution_count; i++)
			if (pr->distribution[i].head_dim == pr->head_dim)
				put(p, 0, ", ", "the optimum of %.1f%% of the refits",
				    100.0 * pr->distribution[i].share);
		for (size_t i = 0; i < c->warning_count; i++)
			if (c->warnings[i].kind == HA_CAL_WARN_BUDGET_OUTSIDE ||
			    c->warnings[i].kind == HA_CAL_WARN_SAMPLES_OUTSIDE) {
				put(p, 0, " ", "(an extrapolation)");
				break;
			}
		put(p, 0, ";  ", "%zu of its %zu feasible head_dims on the axis%s",
		    p->pic->target_feasible_on_axis, p->pic->target_feasible,
		    p->pic->target_on_axis > HA_CAL_PICTURE_MARKS ? " (not marked)" : "");
		if (p->pic->have_band && p->pic->target_on_axis <= HA_CAL_PICTURE_MARKS)
			put(p, 0, ", ", "each with the 95%% interval of its loss");
	} else {
		put(p, 1, "", "no target: no prediction");
	}
	if (b->fitted >= 2)
		put(p, 1, "", "%s bootstrap: %zu of %zu resamples refitted (seed %" PRIu64
		    "): 95%% intervals [ ], bands",
		    cal_bootstrap_word(b->kind),
		    b->fitted, b->resamples, b->seed);
	else
		put(p, 1, "", "no bootstrap (%zu refits): no intervals, no bands", b->fitted);
	if (p->pic->curve_groups < p->pic->group_count)
		put(p, 0, ";  ", "curves of the %zu largest of %zu groups", p->pic->curve_groups,
		    p->pic->group_count);
	put(p, 0, ";  ", "beyond the axis: %zu mark%s above, %zu below", p->above,
	    p->above == 1 ? "" : "s", p->below);
	if (p->bars_cut)
		put(p, 0, ", ", "%zu error bar ends cut", p->bars_cut);
}

/* ---- room for words ------------------------------------------------------------------ */

/* Whether bar i of count is named when every stride-th is (stride 1:
 * all): the optimum's bar `best` always (best = count: none), the bars
 * within stride of it never, the others in step with it. */
static int bar_named(size_t i, size_t best, size_t count, size_t stride)
{
	if (stride <= 1 || i == best)
		return 1;
	if (best >= count)
		return i % stride == 0;
	size_t gap = i > best ? i - best : best - i;
	return gap >= stride && gap % stride == 0;
}

/* Groups take Okabe–Ito's colours but black (the target) and vermilion
 * (the optimum); more groups than these take viridis. */
static const enum plot_colour group_palette[] = {
	PLOT_BLUE, PLOT_GREEN, PLOT_ORANGE, PLOT_PURPLE, PLOT_SKY,
};
#define GROUP_PALETTE (sizeof group_palette / sizeof *group_palette)

/* Select group g's colour, or when tinted its band's tint (a fifth of
 * it on white); returns its index in colour map 0 (an extra entry, set
 * here, unless it is a palette colour itself). */
static int group_ink(const struct calplot *p, size_t g, int tinted)
{
	PLINT rgb[3];
	if (p->pic->group_count <= GROUP_PALETTE) {
		if (!tinted) {
			plcol0(group_palette[g]);
			return group_palette[g];
		}
		plgcol0(group_palette[g], &rgb[0], &rgb[1], &rgb[2]);
	} else {
		unsigned v[3];
		plot_viridis_rgb(0.85 * (double)g / (double)(p->pic->group_count - 1), v);
		for (int k = 0; k < 3; k++)
			rgb[k] = (PLINT)v[k];
	}
	if (tinted)
		for (int k = 0; k < 3; k++)
			rgb[k] = (PLINT)lround(0.2 * rgb[k] + 0.8 * 255.0);
	int slot = PLOT_EXTRA + (int)(g % (PLOT_EXTRAS / 2)) +
	           (tinted ? PLOT_EXTRAS / 2 : 0);
	plscol0(slot, rgb[0], rgb[1], rgb[2]);
	plcol0(slot);
	return slot;
}

/* The laws of the comparison: one Okabe–Ito colour each, in the order
 * of the rows (vermilion stays the optimum's), and a dash pattern each
 * besides (so that a law is told from the group of the same hue, whose
 * curve is solid); past seven laws, dark grey with the dashes alone. */
static const enum plot_colour law_palette[] = {
	PLOT_ORANGE, PLOT_SKY, PLOT_GREEN, PLOT_PURPLE, PLOT_BLUE, PLOT_YELLOW,
	PLOT_BLACK,
};
#define LAW_PALETTE (sizeof law_palette / sizeof *law_palette)

static enum plot_colour law_ink(size_t k)
{
	return k < LAW_PALETTE ? law_palette[k] : PLOT_DARK_GREY;
}

/* ---- the losses --------------------------------------------------------------------- */

/* A curve of the picture (y in log10 L) on the axis. */
static void curve(const struct calplot *p, const double *x, const double *y, size_t n)
{
	enum { MAX = HA_CAL_PICTURE_CURVE_POINTS > HA_CAL_PICTURE_BAND_POINTS
	                     ? HA_CAL_PICTURE_CURVE_POINTS : HA_CAL_PICTURE_BAND_POINTS };
	PLFLT v[MAX];
	for (size_t j = 0; j < n && j < MAX; j++)
		v[j] = on_axis(p, y[j]);
	plot_polyline(x, v, n < MAX ? n : MAX);
}

/* The bands: each region filled with a tint of its group's colour
 * (opaque, so that coinciding bands do not darken into a blot), then
 * every band's edges in the colour itself, which stay seen where a later
 * band covers the region. */
static void draw_bands(const struct calplot *p)
{
	enum { MAX = 2 * HA_CAL_PICTURE_BAND_POINTS };
	PLFLT x[MAX], y[MAX];
	for (size_t g = 0; g < p->pic->group_count; g++) {
		const struct ha_cal_picture_band *bd = &p->pic->groups[g].band;
		if (bd->n < 2)
			continue;
		for (size_t j = 0; j < bd->n; j++) {
			x[j] = bd->x[j];
			y[j] = on_axis(p, bd->hi[j]);
			x[2 * bd->n - 1 - j] = bd->x[j];
			y[2 * bd->n - 1 - j] = on_axis(p, bd->lo[j]);
		}
		group_ink(p, g, 1);
		plfill((PLINT)(2 * bd->n), x, y);
	}
	plot_style(1, 0.6);
	for (size_t g = 0; g < p->pic->group_count; g++) {
		const struct ha_cal_picture_band *bd = &p->pic->groups[g].band;
		group_ink(p, g, 0);
		curve(p, bd->x, bd->lo, bd->n);
		curve(p, bd->x, bd->hi, bd->n);
	}
}

/* A vertical interval with caps, cut ends marked by arrowheads. */
static void interval(const struct plot_canvas *c, double x, double lo, double hi,
                     int cut_lo, int cut_hi)
{
	double cap = 3.0 * plot_px_x(c);
	plot_segment(x, lo, x, hi);
	if (!cut_lo)
		plot_segment(x - cap, lo, x + cap, lo);
	else
		plot_arrowhead(c, x, lo + 4.0 * plot_px_y(c), 4.0, -1);
	if (!cut_hi)
		plot_segment(x - cap, hi, x + cap, hi);
	else
		plot_arrowhead(c, x, hi - 4.0 * plot_px_y(c), 4.0, 1);
}

static void draw_target(const struct plot_canvas *c, const struct calplot *p)
{
	plot_pen(PLOT_BLACK, 1, 1.5);
	curve(p, p->pic->target.x, p->pic->target.y, p->pic->target.n);
	for (size_t i = 0; i < p->pic->mark_count; i++) {
		const struct ha_cal_picture_mark *mk = &p->pic->marks[i];
		int off = off_axis(p, mk->y);
		if (mk->has_band && !off) {
			double lo = on_axis(p, mk->lo), hi = on_axis(p, mk->hi);
			plot_pen(PLOT_BLACK, 1, 1.2);
			interval(c, mk->x, fmax(lo, p->y0), fmin(hi, p->y1), lo < p->y0, hi > p->y1);
		}
		plcol0(mk->feasible ? PLOT_BLACK : PLOT_GREY);
		plot_mark(c, mk->x, on_axis(p, mk->y), off, 4.0);
	}
}

static void draw_laws(const struct plot_canvas *c, const struct calplot *p)
{
	for (size_t k = 0; k < p->pic->law_count; k++) {
		const struct ha_cal_picture_law *lw = &p->pic->laws[k];
		plot_pen(law_ink(k), (int)(2 + k % 7), 1.8);
		curve(p, lw->curve.x, lw->curve.y, lw->curve.n);
		plot_style(1, 1.5);
		int off = lw->has_mark ? off_axis(p, lw->mark_y) : 0;
		double y = on_axis(p, lw->mark_y);
		if (lw->has_mark && !off)
			plot_ring(c, lw->mark_x, y, 7.0 + 2.0 * (double)k, 24);
		else if (lw->has_mark)
			plot_mark(c, lw->mark_x, y, off, 4.0);
	}
}

static void draw_runs(const struct plot_canvas *c, const struct calplot *p)
{
	for (size_t i = 0; i < p->m; i++) {
		const struct run_point *r = &p->runs[i];
		if (!r->has_bar)
			continue;
		group_ink(p, p->pic->group_of[i], 0);
		plot_style(1, 1.5);
		interval(c, r->x, r->lo, r->hi, r->cut_lo, r->cut_hi);
	}
	for (size_t i = 0; i < p->m; i++) {
		group_ink(p, p->pic->group_of[i], 0);
		plot_disc(c, p->runs[i].x, p->runs[i].y, 5.0, 1);
	}
}

static void draw_axes(const struct plot_canvas *c, const struct calplot *p)
{
	plot_box(c, "bc", p->y_log ? "bcnstvl" : "bcnstv");
	/* head dimensions are named where runs and divisors are: PLplot's
	 * decades would name one or none on an axis of a decade */
	double tick = 7.0 * plot_px_y(c);
	for (size_t i = 0; i < p->label_count; i++) {
		double x = log10(p->labels[i]);
		plline(2, (PLFLT[2]){x, x}, (PLFLT[2]){p->y0, p->y0 + tick});
		plline(2, (PLFLT[2]){x, x}, (PLFLT[2]){p->y1, p->y1 - tick});
		plot_mtex("b", 1.3, (x - p->pic->x0) / (p->pic->x1 - p->pic->x0), 0.5, "%.0f", p->labels[i]);
	}
	plot_mtex("b", 3.0, 0.5, 0.5, "head_dim d#dk#u (log scale; each group has H = D / d#dk#u heads)");
	plot_mtex("l", 4.2, 0.5, 0.5, "loss L (the runs' unit%s)",
	          p->y_log ? "; log scale" : "");
}

/* ---- the legend ------------------------------------------------------------------------ */

/* The legend in the right column, from the top of the losses' panel
 * down; returns its bottom (a fraction of the page's height). */
static double draw_legend(const struct calplot *p)
{
	struct plot_legend l = {.max = LEGEND_GROUPS + 12 + HA_CAL_LADDER};
	const struct ha_calibration *cal = p->c;
	size_t shown = p->pic->group_count <= LEGEND_GROUPS + 1 ? p->pic->group_count
	                                                        : LEGEND_GROUPS;
	char n[32], d[32], h[32], k[32];
	for (size_t g = 0; g < shown; g++) {
		const struct ha_cal_picture_group *gr = &p->pic->groups[g];
		format_samples(n, sizeof n, gr->samples);
		format_count(d, sizeof d, gr->budget);
		plot_legend_entry(&l, PL_LEGEND_SYMBOL | (gr->curve ? PL_LEGEND_LINE : 0),
		                  group_ink(p, g, 0), 1, 2.0, PLOT_DISC_GLYPH, 1.0,
		                  "D = %s, n = %s: %zu run%s", d, n, gr->count,
		                  gr->count == 1 ? "" : "s");
	}
	if (shown < p->pic->group_count)
		plot_legend_entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, NULL, 1.0,
		                  "... %zu more groups, viridis in order",
		                  p->pic->group_count - shown);
	if (p->pic->have_band)
		plot_legend_entry(&l, PL_LEGEND_COLOR_BOX, PLOT_LIGHT_GREY, 1, 1.0, NULL, 0.8,
		                  "95%% bootstrap band (each curve's tint)");
	if (cal->prediction.defined) {
		format_samples(n, sizeof n, cal->prediction.samples);
		format_count(d, sizeof d, cal->prediction.budget);
		format_count(h, sizeof h, cal->prediction.heads);
		format_count(k, sizeof k, cal->prediction.head_dim);
		plot_legend_entry(&l, PL_LEGEND_LINE | PL_LEGEND_SYMBOL, PLOT_BLACK, 1, 1.5,
		                  PLOT_DISC_GLYPH, 1.0, "target D = %s, n = %s", d, n);
		plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH,
		                  1.0, "its optimum: %s " PLOT_TIMES " %s", h, k);
		int infeasible = 0;
		for (size_t i = 0; i < p->pic->mark_count; i++)
			infeasible |= !p->pic->marks[i].feasible;
		if (infeasible)
			plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_GREY, 1, 1.0, PLOT_DISC_GLYPH,
			                  1.0, "infeasible head_dim of the target");
	}
	if (p->pic->law_count && cal->prediction.defined) {
		plot_legend_entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, NULL, 1.0,
		                  "the laws at the target (ring: optimum):");
	} else if (p->pic->law_count) {
		const struct ha_cal_picture_group *gr = &p->pic->groups[p->pic->largest];
		format_samples(n, sizeof n, gr->samples);
		format_count(d, sizeof d, gr->budget);
		plot_legend_entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, NULL, 1.0,
		                  "the laws, at D = %s, n = %s:", d, n);
	}
	for (size_t j = 0; j < p->pic->law_count; j++) {
		const struct ha_cal_picture_law *lw = &p->pic->laws[j];
		const struct ha_cal_comparison *row = &cal->comparison[j];
		char weight[32] = "";
		if (row->weight_defined)
			snprintf(weight, sizeof weight, ", weight %.2f", row->weight);
		if (lw->curve.n == 0)
			plot_legend_entry(&l, PL_LEGEND_NONE, law_ink(j), 1, 1.0, NULL, 1.0,
			                  "%s: not fitted", row->law.name);
		else
			plot_legend_entry(&l, PL_LEGEND_LINE | (lw->has_mark ? PL_LEGEND_SYMBOL : 0),
			                  law_ink(j), (int)(2 + j % 7), 1.8, PLOT_RING_GLYPH, 1.0,
			                  "%s (k = %zu)%s", row->law.name, row->free_count, weight);
	}
	plvpor(p->panel[1] + 0.03, 0.99, BOTTOM, 0.90);
	plwind(0.0, 1.0, 0.0, 1.0);
	/* past 13 entries (the data-term laws) the lines close up so that
	 * the legend keeps its height above the bars */
	double height = plot_legend_draw(&l, PL_POSITION_INSIDE | PL_POSITION_LEFT |
	                                 PL_POSITION_TOP, 0.0, 0.06, 0, 0, 0.65,
	                                 l.n > 13 ? 1.6 * 13.0 / l.n : 1.6);
	return 0.90 - height * (0.90 - BOTTOM);
}

/* Room a named upright bar needs, in pixels (a label's line height and a
 * gap). */
#define LABEL_ROOM 16.0

/* ---- the bars ---------------------------------------------------------------------------- */

/* The characters of the longest label, as "H×d" or as d alone. */
static size_t label_width(const struct calplot *p, int heads)
{
	size_t widest = 0;
	for (size_t i = 0; i < p->bar_count; i++) {
		const struct bar *b = &p->bars[i];
		char text[64];
		if (b->others)
			snprintf(text, sizeof text, "%zu others", p->others);
		else if (heads)
			snprintf(text, sizeof text, "%" PRIu64 "x%" PRIu64, b->heads, b->head_dim);
		else
			snprintf(text, sizeof text, "%" PRIu64, b->head_dim);
		widest = strlen(text) > widest ? strlen(text) : widest;
	}
	return widest;
}

/* The bars under the legend, whose bottom is at legend (their title
 * between): at most up to 0.47 of the page, at least 0.12 of it high.
 * Each bar is named "H×d" where that fits under it, else by d alone
 * (H = D/d), upright where even that does not fit; its share is written
 * on it where it fits. */
static void draw_bars(struct plot_canvas *c, const struct calplot *p, double legend)
{
	const double left = 0.71, right = 0.96, char_px = 9.0;
	double x0 = -0.6, x1 = (double)p->bar_count - 0.4;
	double top = fmax(fmin(0.47, legend - 0.06), BOTTOM + 0.12);
	plot_panel(c, left, right, BOTTOM, top, x0, x1, 0.0, 1.2, 0, 0);
	double slot = (right - left) * c->width / (x1 - x0);
	int heads = (double)label_width(p, 1) * char_px <= slot;
	int vertical = !heads && (double)label_width(p, 0) * char_px > slot;
	int shares = slot >= 60.0;
	/* Upright labels a line high need a line's room each: where bars are
	 * narrower, every stride-th is named (and the optimum's, its
	 * neighbours then unnamed), so that no two labels touch. */
	size_t stride = vertical && slot < LABEL_ROOM ? (size_t)ceil(LABEL_ROOM / slot) : 1;
	size_t best = p->bar_count;
	for (size_t i = 0; i < p->bar_count; i++)
		if (p->bars[i].optimum)
			best = i;
	for (size_t i = 0; i < p->bar_count; i++) {
		const struct bar *b = &p->bars[i];
		plcol0(b->others ? PLOT_GREY : b->optimum ? PLOT_VERMILION : PLOT_BLUE);
		plot_rect((double)i - 0.35, (double)i + 0.35, 0.0, b->share);
		plcol0(PLOT_BLACK);
		if (!bar_named(i, best, p->bar_count, stride))
			continue;
		double at = ((double)i - x0) / (x1 - x0);
		const char *side = vertical ? "bv" : "b";
		double disp = vertical ? 0.6 : 1.3, just = vertical ? 1.0 : 0.5;
		if (b->others)
			plot_mtex(side, disp, at, just, "%zu others", p->others);
		else if (heads)
			plot_mtex(side, disp, at, just, "%" PRIu64 PLOT_TIMES "%" PRIu64, b->heads,
			          b->head_dim);
		else {
			char d[32];
			format_count(d, sizeof d, b->head_dim);
			plot_mtex(side, disp, at, just, "%s", d);
		}
		/* the share written on a tall bar (white), over a short one */
		if (shares && b->share >= 0.4) {
			plcol0(PLOT_WHITE_INK);
			plot_ptex((double)i, b->share - 0.16, 0.5, "%.1f%%", 100.0 * b->share);
		} else if (shares) {
			plot_ptex((double)i, b->share + 0.14, 0.5, "%.1f%%", 100.0 * b->share);
		}
	}
	plcol0(PLOT_BLACK);
	plwidth(1.0);
	plbox("bc", 0.0, 0, "bcnstv", 0.5, 5);
	plot_mtex("l", 3.9, 0.5, 0.5, "share");
	/* upright labels reach down towards the caption: what they are is
	 * said in the title instead */
	if (vertical)
		plot_mtex("t", 1.4, 0.5, 0.5, "Optima at the target, by d#dk#u");
	else
		plot_mtex("t", 1.0, 0.5, 0.5, "Optima at the target (%zu refits)",
		          p->c->bootstrap.predicted);
	if (heads)
		plot_mtex("b", 3.0, 0.5, 0.5, "heads " PLOT_TIMES " d#dk#u");
	else if (!vertical)
		plot_mtex("b", 3.0, 0.5, 0.5, "d#dk#u (H = D / d#dk#u)");
}

/* ---- the page --------------------------------------------------------------------------------- */

static void draw(struct plot_canvas *c, const void *data)
{
	const struct calplot *p = data;
	plot_panel(c, p->panel[0], p->panel[1], BOTTOM, 0.90, p->pic->x0, p->pic->x1, p->y0, p->y1, 1,
	           p->y_log);
	draw_bands(p);
	for (size_t g = 0; g < p->pic->group_count; g++) {
		group_ink(p, g, 0);
		plot_style(1, 2.0);
		curve(p, p->pic->groups[g].fit.x, p->pic->groups[g].fit.y, p->pic->groups[g].fit.n);
	}
	draw_laws(c, p);
	if (p->c->prediction.defined) {
		draw_target(c, p);
		/* on the axis, which is chosen to show it; under the runs,
		 * which may be measured right there */
		plcol0(PLOT_VERMILION);
		plot_disc(c, p->optimum_x, p->optimum_y, 8.0, 1);
	}
	draw_runs(c, p);
	plot_style(1, 1.0);
	draw_axes(c, p);
	double legend = draw_legend(p);
	if (p->bar_count)
		draw_bars(c, p, legend);

	/* The title fits the page: the file's name is shortened (ending in
	 * "...") to the characters left on the line after the rest and the
	 * "...", at least 8. */
	char title[96], file[96] = "";
	int n = snprintf(title, sizeof title, "Calibration of the error model to %zu runs", p->m);
	double room = 0.92 * (double)c->width / TITLE_CHAR_PX - (double)(n + 4) - 3.0;
	if (p->req->runs_file)
		plot_escape(file, sizeof file, p->req->runs_file, room > 8.0 ? (size_t)room : 8);
	plot_title(c, "%s%s%s", title, file[0] ? " of " : "", file);
	/* up to seven lines, the last at the bottom, 30 points apart: a
	 * subscript (c_v) and a superscript (10^9) of the next line clear
	 * each other */
	int used = p->caption_line + 1;
	for (int i = 0; i < used; i++)
		plot_caption_at(c, 30.0 * (used - i) - 16.0, "%s", p->caption[i]);
}

enum ha_status ha_plot_calibration(struct ha_plot_target *target,
                                   const struct ha_plot_calibration_request *req,
                                   struct ha_error *err)
{
	const struct ha_calibration *c = req ? req->calibration : NULL;
	enum ha_status st = plot_check(target, c && c->fit.runs && c->fit.residuals,
	                               "a calibration's picture needs a calibration with its runs",
	                               err);
	if (st != HA_OK)
		return st;
	const struct ha_cal_picture *pic = req->picture;
	if (!pic || pic->runs != c->fit.runs || pic->group_count == 0 ||
	    pic->law_count != (c->comparison ? c->comparison_count : 0))
		return ha_fail(err, HA_EINVAL, "a calibration's picture needs its data "
		               "from ha_cal_picture_new of the same calibration");
	struct calplot p = {.req = req, .c = c, .pic = pic, .m = c->fit.runs,
	                    .panel = {0.08, 0.60}};
	if (err)
		ha_error_init(err);
	p.runs = calloc(p.m, sizeof *p.runs);
	st = p.runs ? HA_OK : HA_ENOMEM;
	if (st == HA_OK) {
		choose_loss_axis(&p);
		map_to_axis(&p);
		st = choose_labels(&p);
	}
	if (st == HA_OK)
		st = make_bars(&p);
	if (st == HA_OK) {
		make_captions(&p);
		st = plot_render(target, WIDTH, HEIGHT, draw, &p, err);
	} else {
		ha_fail(err, st, "drawing the calibration: %s", ha_status_str(st));
	}
	free(p.runs);
	free(p.labels);
	free(p.bars);
	return st;
}
