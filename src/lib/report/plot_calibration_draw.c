/* Picture 6: a calibration — drawing what plot_calibration.c computed,
 * and its words (legend, labels, captions).  Runs inside plot_render()'s
 * guard: PLplot calls and fixed buffers only. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "plot_calibration.h"

#define LN10 2.302585092994045684
#define GAMMA "\xce\xb3"
#define KAPPA "\xce\xba"
#define DELTA "\xce\xb4"

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
	if (p->group_count <= GROUP_PALETTE) {
		if (!tinted) {
			plcol0(group_palette[g]);
			return group_palette[g];
		}
		plgcol0(group_palette[g], &rgb[0], &rgb[1], &rgb[2]);
	} else {
		unsigned v[3];
		plot_viridis_rgb(0.85 * (double)g / (double)(p->group_count - 1), v);
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

static void style(PLINT line, double width)
{
	pllsty(line);
	plwidth(width);
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

/* n in a caption or legend: 10^k for a power of ten from 10^4, else %.4g. */
static void format_samples(char *dst, size_t size, double n)
{
	double e = log10(n);
	if (n >= 1e4 && fabs(e - nearbyint(e)) < 1e-12)
		snprintf(dst, size, "10#u%.0f#d", e);
	else
		snprintf(dst, size, "%.4g", n);
}

/* ---- the losses --------------------------------------------------------------------- */

/* The bands: each region filled with a tint of its group's colour
 * (opaque, so that coinciding bands do not darken into a blot), then
 * every band's edges in the colour itself, which stay seen where a later
 * band covers the region. */
static void draw_bands(const struct calplot *p)
{
	enum { MAX = 2 * PLOT_CAL_BAND_POINTS };
	PLFLT x[MAX], y[MAX];
	for (size_t g = 0; g < p->group_count; g++) {
		const struct plot_cal_band *bd = &p->groups[g].band;
		if (bd->n < 2)
			continue;
		for (size_t j = 0; j < bd->n; j++) {
			x[j] = bd->x[j];
			y[j] = bd->hi[j];
			x[2 * bd->n - 1 - j] = bd->x[j];
			y[2 * bd->n - 1 - j] = bd->lo[j];
		}
		group_ink(p, g, 1);
		plfill((PLINT)(2 * bd->n), x, y);
	}
	style(1, 0.6);
	for (size_t g = 0; g < p->group_count; g++) {
		const struct plot_cal_band *bd = &p->groups[g].band;
		group_ink(p, g, 0);
		plot_polyline(bd->x, bd->lo, bd->n);
		plot_polyline(bd->x, bd->hi, bd->n);
	}
}

/* A vertical interval with caps, cut ends marked by arrowheads. */
static void interval(const struct plot_canvas *c, double x, double lo, double hi,
                     int cut_lo, int cut_hi)
{
	double cap = 3.0 * plot_px_x(c);
	PLFLT vx[2] = {x, x}, vy[2] = {lo, hi};
	plline(2, vx, vy);
	PLFLT hx[2] = {x - cap, x + cap};
	if (!cut_lo)
		plline(2, hx, (PLFLT[2]){lo, lo});
	else
		plot_arrowhead(c, x, lo + 4.0 * plot_px_y(c), 4.0, -1);
	if (!cut_hi)
		plline(2, hx, (PLFLT[2]){hi, hi});
	else
		plot_arrowhead(c, x, hi - 4.0 * plot_px_y(c), 4.0, 1);
}

static void ring(const struct plot_canvas *c, double x, double y, double r)
{
	enum { SIDES = 24 };
	PLFLT px[SIDES + 1], py[SIDES + 1];
	for (int i = 0; i <= SIDES; i++) {
		double a = 2.0 * 3.14159265358979323846 * i / SIDES;
		px[i] = x + r * plot_px_x(c) * cos(a);
		py[i] = y + r * plot_px_y(c) * sin(a);
	}
	plline(SIDES + 1, px, py);
}

/* A mark at its place, or an arrowhead at the edge it is beyond. */
static void mark(const struct plot_canvas *c, const struct calplot *p, double x,
                 double y, int off, double r)
{
	if (off > 0)
		plot_arrowhead(c, x, p->y1 - 7.0 * plot_px_y(c), r, 1);
	else if (off < 0)
		plot_arrowhead(c, x, p->y0 + 7.0 * plot_px_y(c), r, -1);
	else
		plot_disc(c, x, y, r, 0);
}

static void draw_target(const struct plot_canvas *c, const struct calplot *p)
{
	plcol0(PLOT_BLACK);
	style(1, 1.5);
	plot_polyline(p->target.x, p->target.y, p->target.n);
	for (size_t i = 0; i < p->mark_count; i++) {
		const struct plot_cal_mark *mk = &p->marks[i];
		if (mk->has_band && !mk->off) {
			plcol0(PLOT_BLACK);
			style(1, 1.2);
			interval(c, mk->x, fmax(mk->lo, p->y0), fmin(mk->hi, p->y1),
			         mk->lo < p->y0, mk->hi > p->y1);
		}
		plcol0(mk->feasible ? PLOT_BLACK : PLOT_GREY);
		mark(c, p, mk->x, mk->y, mk->off, 4.0);
	}
}

static void draw_laws(const struct plot_canvas *c, const struct calplot *p)
{
	for (size_t k = 0; k < p->law_count; k++) {
		const struct plot_cal_law *lw = &p->laws[k];
		plcol0(PLOT_DARK_GREY);
		style((PLINT)(2 + k % 7), 1.8);
		plot_polyline(lw->curve.x, lw->curve.y, lw->curve.n);
		style(1, 1.5);
		if (lw->has_mark && !lw->mark_off)
			ring(c, lw->mark_x, lw->mark_y, 7.0 + 2.0 * (double)k);
		else if (lw->has_mark)
			mark(c, p, lw->mark_x, lw->mark_y, lw->mark_off, 4.0);
	}
}

static void draw_runs(const struct plot_canvas *c, const struct calplot *p)
{
	for (size_t i = 0; i < p->m; i++) {
		const struct plot_cal_run *r = &p->runs[i];
		if (!r->has_bar)
			continue;
		group_ink(p, p->group_of[i], 0);
		style(1, 1.5);
		interval(c, r->x, r->lo, r->hi, r->cut_lo, r->cut_hi);
	}
	for (size_t i = 0; i < p->m; i++) {
		group_ink(p, p->group_of[i], 0);
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
		plot_mtex("b", 1.3, (x - p->x0) / (p->x1 - p->x0), 0.5, "%.0f", p->labels[i]);
	}
	plot_mtex("b", 3.0, 0.5, 0.5, "head_dim d#dk#u (log scale; each group has H = D / d#dk#u heads)");
	plot_mtex("l", 4.2, 0.5, 0.5, "loss L (the runs' unit%s)",
	          p->y_log ? "; log scale" : "");
}

/* ---- the legend ------------------------------------------------------------------------ */

#define ENTRIES (PLOT_CAL_LEGEND_GROUPS + 12)

struct legend {
	int n;
	PLINT opts[ENTRIES], text_colours[ENTRIES], box_colours[ENTRIES],
	      box_patterns[ENTRIES], line_colours[ENTRIES], styles[ENTRIES],
	      symbol_colours[ENTRIES], symbol_numbers[ENTRIES];
	PLFLT box_scales[ENTRIES], box_widths[ENTRIES], widths[ENTRIES],
	      symbol_scales[ENTRIES];
	const char *text[ENTRIES], *symbols[ENTRIES];
	char labels[ENTRIES][96];
};

static void entry(struct legend *l, PLINT opt, int colour, PLINT line, double width,
                  const char *symbol, const char *fmt, ...) HA_PRINTF(7, 8);

static void entry(struct legend *l, PLINT opt, int colour, PLINT line, double width,
                  const char *symbol, const char *fmt, ...)
{
	if (l->n == ENTRIES)
		return;
	int i = l->n++;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->labels[i], sizeof l->labels[i], fmt, ap);
	va_end(ap);
	l->opts[i] = opt;
	l->text[i] = l->labels[i];
	l->text_colours[i] = PLOT_BLACK;
	l->box_colours[i] = colour;
	l->box_patterns[i] = 0;
	l->box_scales[i] = 0.8;
	l->box_widths[i] = 1.0;
	l->line_colours[i] = l->symbol_colours[i] = colour;
	l->styles[i] = line;
	l->widths[i] = width;
	l->symbols[i] = symbol;
	l->symbol_scales[i] = 1.0;
	l->symbol_numbers[i] = 1;
}

/* The legend in the right column, from the top of the losses' panel
 * down; returns its bottom (a fraction of the page's height). */
static double draw_legend(const struct calplot *p)
{
	static struct legend l; /* no allocation in a draw function */
	memset(&l, 0, sizeof l);
	const struct ha_calibration *cal = p->c;
	size_t shown = p->group_count <= PLOT_CAL_LEGEND_GROUPS + 1 ? p->group_count
	                                                             : PLOT_CAL_LEGEND_GROUPS;
	for (size_t g = 0; g < shown; g++) {
		const struct plot_cal_group *gr = &p->groups[g];
		char n[32], d[32];
		format_samples(n, sizeof n, gr->samples);
		format_count(d, sizeof d, gr->budget);
		entry(&l, gr->curve ? PL_LEGEND_LINE | PL_LEGEND_SYMBOL : PL_LEGEND_SYMBOL,
		      group_ink(p, g, 0), 1, 2.0, PLOT_DISC_GLYPH,
		      "D = %s, n = %s: %zu run%s", d, n, gr->count, gr->count == 1 ? "" : "s");
	}
	if (shown < p->group_count)
		entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, "",
		      "... %zu more groups, viridis in order", p->group_count - shown);
	if (p->have_band)
		entry(&l, PL_LEGEND_COLOR_BOX, PLOT_LIGHT_GREY, 1, 1.0, "",
		      "95%% bootstrap band (each curve's tint)");
	if (cal->prediction.defined) {
		char n[32], d[32], h[32], k[32];
		format_samples(n, sizeof n, cal->prediction.samples);
		format_count(d, sizeof d, cal->prediction.budget);
		format_count(h, sizeof h, cal->prediction.heads);
		format_count(k, sizeof k, cal->prediction.head_dim);
		entry(&l, PL_LEGEND_LINE | PL_LEGEND_SYMBOL, PLOT_BLACK, 1, 1.5, PLOT_DISC_GLYPH,
		      "target D = %s, n = %s", d, n);
		entry(&l, PL_LEGEND_SYMBOL, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH,
		      "its optimum: %s " PLOT_TIMES " %s", h, k);
		int infeasible = 0;
		for (size_t i = 0; i < p->mark_count; i++)
			infeasible |= !p->marks[i].feasible;
		if (infeasible)
			entry(&l, PL_LEGEND_SYMBOL, PLOT_GREY, 1, 1.0, PLOT_DISC_GLYPH,
			      "infeasible head_dim of the target");
	}
	if (p->law_count) {
		char n[32], d[32];
		const struct plot_cal_group *gr = &p->groups[p->largest];
		format_samples(n, sizeof n, gr->samples);
		format_count(d, sizeof d, gr->budget);
		if (cal->prediction.defined)
			entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, "", "the laws, at the target:");
		else
			entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, "",
			      "the laws, at D = %s, n = %s:", d, n);
	}
	for (size_t k = 0; k < p->law_count; k++) {
		const struct plot_cal_law *lw = &p->laws[k];
		if (lw->curve.n == 0)
			entry(&l, PL_LEGEND_NONE, PLOT_DARK_GREY, 1, 1.0, "",
			      "%s: not fitted", lw->row->law.name);
		else
			entry(&l, PL_LEGEND_LINE | (lw->has_mark ? PL_LEGEND_SYMBOL : 0),
			      PLOT_DARK_GREY, (PLINT)(2 + k % 7), 1.8, PLOT_RING_GLYPH,
			      "%s (k = %zu)%s", lw->row->law.name, lw->row->free_count,
			      lw->has_mark ? ", its optimum" : "");
	}
	PLFLT width = 0, height = 0;
	plvpor(p->panel[1] + 0.03, 0.99, PLOT_CAL_BOTTOM, 0.90);
	plwind(0.0, 1.0, 0.0, 1.0);
	pllegend(&width, &height, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
	         PL_POSITION_INSIDE | PL_POSITION_LEFT | PL_POSITION_TOP, 0.0, 0.0,
	         0.06, PLOT_WHITE, PLOT_BLACK, 1, 0, 0, l.n, l.opts, 1.0, 0.65, 1.6, 0.0,
	         l.text_colours, l.text, l.box_colours, l.box_patterns, l.box_scales,
	         l.box_widths, l.line_colours, l.styles, l.widths, l.symbol_colours,
	         l.symbol_scales, l.symbol_numbers, l.symbols);
	return 0.90 - height * (0.90 - PLOT_CAL_BOTTOM);
}

/* ---- the bars ---------------------------------------------------------------------------- */

/* The characters of the longest label, as "H×d" or as d alone. */
static size_t label_width(const struct calplot *p, int heads)
{
	size_t widest = 0;
	for (size_t i = 0; i < p->bar_count; i++) {
		const struct plot_cal_bar *b = &p->bars[i];
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
	double top = fmax(fmin(0.47, legend - 0.06), PLOT_CAL_BOTTOM + 0.12);
	plot_panel(c, left, right, PLOT_CAL_BOTTOM, top, x0, x1, 0.0, 1.2, 0, 0);
	double slot = (right - left) * c->width / (x1 - x0);
	int heads = (double)label_width(p, 1) * char_px <= slot;
	int vertical = !heads && (double)label_width(p, 0) * char_px > slot;
	int shares = slot >= 60.0;
	for (size_t i = 0; i < p->bar_count; i++) {
		const struct plot_cal_bar *b = &p->bars[i];
		plcol0(b->others ? PLOT_GREY : b->optimum ? PLOT_VERMILION : PLOT_BLUE);
		plot_rect((double)i - 0.35, (double)i + 0.35, 0.0, b->share);
		plcol0(PLOT_BLACK);
		double at = ((double)i - x0) / (x1 - x0);
		const char *side = vertical ? "bv" : "b";
		double disp = vertical ? 0.6 : 1.3, just = vertical ? 1.0 : 0.5;
		if (b->others)
			plot_mtex(side, disp, at, just, "%zu others", p->others);
		else if (heads)
			plot_mtex(side, disp, at, just, "%" PRIu64 PLOT_TIMES "%" PRIu64, b->heads,
			          b->head_dim);
		else
			plot_mtex(side, disp, at, just, "%" PRIu64, b->head_dim);
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
	plot_mtex("t", 1.0, 0.5, 0.5, "Optima at the target (%zu refits)",
	          p->c->bootstrap.predicted);
	if (heads)
		plot_mtex("b", 3.0, 0.5, 0.5, "heads " PLOT_TIMES " d#dk#u");
	else
		plot_mtex("b", vertical ? 0.6 + 0.9 * (double)label_width(p, 0) : 3.0, 0.5, 0.5,
		          "d#dk#u (H = D / d#dk#u)");
}

/* ---- captions ------------------------------------------------------------------------------ */

/* The characters a caption shows: PLplot's escapes (#u, #d, ...) show
 * none, "##" one, a UTF-8 sequence one. */
static size_t visible(const char *s)
{
	size_t n = 0;
	for (; *s; s++) {
		if (*s == '#' && s[1]) {
			n += s[1] == '#';
			s++;
			continue;
		}
		n += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return n;
}

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
	if (line[0] && (fresh || visible(line) + visible(sep) + visible(item) >
	                                 PLOT_CAL_CAPTION_ROOM) &&
	    p->caption_line + 1 < PLOT_CAL_CAPTION_LINES)
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
		"E", "c#db#u", "s", "c#dv#u", GAMMA, KAPPA, "hdi",
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
		plot_format_log10(v, sizeof v, e->value / LN10);
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
		if (!fit->param[k].free) {
			parameter(p, &fit->param[k], k, sep);
			sep = ", ";
		}
	put(p, 0, ";  ", "rms log residual %.3g", fit->rms);
}

void plot_cal_captions(struct calplot *p)
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
		plot_format_log10(loss, sizeof loss, pr->log_loss / LN10);
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
		    p->target_feasible_on_axis, p->target_feasible,
		    p->target_on_axis > PLOT_CAL_MARKS ? " (not marked)" : "");
		if (p->have_band && p->target_on_axis <= PLOT_CAL_MARKS)
			put(p, 0, ", ", "each with the 95%% interval of its loss");
	} else {
		put(p, 1, "", "no target: no prediction");
	}
	if (b->fitted >= 2)
		put(p, 1, "", "bootstrap: %zu of %zu resamples refitted (seed %" PRIu64
		    "): 95%% intervals [ ], bands", b->fitted, b->resamples, b->seed);
	else
		put(p, 1, "", "no bootstrap (%zu refits): no intervals, no bands", b->fitted);
	if (p->curve_groups < p->group_count)
		put(p, 0, ";  ", "curves of the %zu largest of %zu groups", p->curve_groups,
		    p->group_count);
	put(p, 0, ";  ", "beyond the axis: %zu mark%s above, %zu below", p->above,
	    p->above == 1 ? "" : "s", p->below);
	if (p->bars_cut)
		put(p, 0, ", ", "%zu error bar ends cut", p->bars_cut);
}

/* ---- the page --------------------------------------------------------------------------------- */

void plot_cal_draw(struct plot_canvas *c, const void *data)
{
	const struct calplot *p = data;
	plot_panel(c, p->panel[0], p->panel[1], PLOT_CAL_BOTTOM, 0.90, p->x0, p->x1, p->y0, p->y1, 1,
	           p->y_log);
	draw_bands(p);
	for (size_t g = 0; g < p->group_count; g++) {
		group_ink(p, g, 0);
		style(1, 2.0);
		plot_polyline(p->groups[g].fit.x, p->groups[g].fit.y, p->groups[g].fit.n);
	}
	draw_laws(c, p);
	if (p->c->prediction.defined)
		draw_target(c, p);
	if (p->c->prediction.defined) {
		/* on the axis, which is chosen to show it; under the runs,
		 * which may be measured right there */
		plcol0(PLOT_VERMILION);
		plot_disc(c, p->optimum_x, p->optimum_y, 8.0, 1);
	}
	draw_runs(c, p);
	style(1, 1.0);
	draw_axes(c, p);
	double legend = draw_legend(p);
	if (p->bar_panel)
		draw_bars(c, p, legend);

	char file[96] = "";
	if (p->req->runs_file)
		plot_escape(file, sizeof file, p->req->runs_file, 60);
	plot_title(c, "Calibration of the error model to %zu runs%s%s", p->m,
	           file[0] ? " of " : "", file);
	/* up to seven lines, the last at the bottom, 30 points apart: a
	 * subscript (c_v) and a superscript (10^9) of the next line clear
	 * each other */
	int used = p->caption_line + 1;
	for (int i = 0; i < used; i++)
		plot_caption_at(c, 30.0 * (used - i) - 16.0, "%s", p->caption[i]);
}
