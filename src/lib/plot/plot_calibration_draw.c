/* Picture 6: a calibration — drawing what plot_calibration.c computed,
 * with its legend and labels.  Runs inside plot_render()'s guard: PLplot
 * calls and fixed buffers only. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "plot_calibration.h"


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

static int law_ink(size_t k)
{
	return k < LAW_PALETTE ? (int)law_palette[k] : PLOT_DARK_GREY;
}

static void style(PLINT line, double width)
{
	pllsty(line);
	plwidth(width);
}

/* ---- the losses --------------------------------------------------------------------- */

/* A curve of the picture (y in log10 L) on the axis. */
static void curve(const struct calplot *p, const double *x, const double *y, size_t n)
{
	enum { MAX = HA_CAL_PICTURE_CURVE_POINTS > HA_CAL_PICTURE_BAND_POINTS
	                     ? HA_CAL_PICTURE_CURVE_POINTS : HA_CAL_PICTURE_BAND_POINTS };
	PLFLT v[MAX];
	for (size_t j = 0; j < n && j < MAX; j++)
		v[j] = plot_cal_on_axis(p, y[j]);
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
			y[j] = plot_cal_on_axis(p, bd->hi[j]);
			x[2 * bd->n - 1 - j] = bd->x[j];
			y[2 * bd->n - 1 - j] = plot_cal_on_axis(p, bd->lo[j]);
		}
		group_ink(p, g, 1);
		plfill((PLINT)(2 * bd->n), x, y);
	}
	style(1, 0.6);
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
	curve(p, p->pic->target.x, p->pic->target.y, p->pic->target.n);
	for (size_t i = 0; i < p->pic->mark_count; i++) {
		const struct ha_cal_picture_mark *mk = &p->pic->marks[i];
		int off = plot_cal_off_axis(p, mk->y);
		if (mk->has_band && !off) {
			double lo = plot_cal_on_axis(p, mk->lo), hi = plot_cal_on_axis(p, mk->hi);
			plcol0(PLOT_BLACK);
			style(1, 1.2);
			interval(c, mk->x, fmax(lo, p->y0), fmin(hi, p->y1), lo < p->y0, hi > p->y1);
		}
		plcol0(mk->feasible ? PLOT_BLACK : PLOT_GREY);
		mark(c, p, mk->x, plot_cal_on_axis(p, mk->y), off, 4.0);
	}
}

static void draw_laws(const struct plot_canvas *c, const struct calplot *p)
{
	for (size_t k = 0; k < p->pic->law_count; k++) {
		const struct ha_cal_picture_law *lw = &p->pic->laws[k];
		plcol0(law_ink(k));
		style((PLINT)(2 + k % 7), 1.8);
		curve(p, lw->curve.x, lw->curve.y, lw->curve.n);
		style(1, 1.5);
		int off = lw->has_mark ? plot_cal_off_axis(p, lw->mark_y) : 0;
		double y = plot_cal_on_axis(p, lw->mark_y);
		if (lw->has_mark && !off)
			ring(c, lw->mark_x, y, 7.0 + 2.0 * (double)k);
		else if (lw->has_mark)
			mark(c, p, lw->mark_x, y, off, 4.0);
	}
}

static void draw_runs(const struct plot_canvas *c, const struct calplot *p)
{
	for (size_t i = 0; i < p->m; i++) {
		const struct plot_cal_run *r = &p->runs[i];
		if (!r->has_bar)
			continue;
		group_ink(p, p->pic->group_of[i], 0);
		style(1, 1.5);
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

#define ENTRIES (PLOT_CAL_LEGEND_GROUPS + 12 + HA_CAL_LADDER) /* room for every law */

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
	struct legend l;
	memset(&l, 0, sizeof l);
	const struct ha_calibration *cal = p->c;
	size_t shown = p->pic->group_count <= PLOT_CAL_LEGEND_GROUPS + 1 ? p->pic->group_count
	                                                             : PLOT_CAL_LEGEND_GROUPS;
	for (size_t g = 0; g < shown; g++) {
		const struct ha_cal_picture_group *gr = &p->pic->groups[g];
		char n[32], d[32];
		plot_cal_format_samples(n, sizeof n, gr->samples);
		plot_cal_format_count(d, sizeof d, gr->budget);
		entry(&l, gr->curve ? PL_LEGEND_LINE | PL_LEGEND_SYMBOL : PL_LEGEND_SYMBOL,
		      group_ink(p, g, 0), 1, 2.0, PLOT_DISC_GLYPH,
		      "D = %s, n = %s: %zu run%s", d, n, gr->count, gr->count == 1 ? "" : "s");
	}
	if (shown < p->pic->group_count)
		entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, "",
		      "... %zu more groups, viridis in order", p->pic->group_count - shown);
	if (p->pic->have_band)
		entry(&l, PL_LEGEND_COLOR_BOX, PLOT_LIGHT_GREY, 1, 1.0, "",
		      "95%% bootstrap band (each curve's tint)");
	if (cal->prediction.defined) {
		char n[32], d[32], h[32], k[32];
		plot_cal_format_samples(n, sizeof n, cal->prediction.samples);
		plot_cal_format_count(d, sizeof d, cal->prediction.budget);
		plot_cal_format_count(h, sizeof h, cal->prediction.heads);
		plot_cal_format_count(k, sizeof k, cal->prediction.head_dim);
		entry(&l, PL_LEGEND_LINE | PL_LEGEND_SYMBOL, PLOT_BLACK, 1, 1.5, PLOT_DISC_GLYPH,
		      "target D = %s, n = %s", d, n);
		entry(&l, PL_LEGEND_SYMBOL, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH,
		      "its optimum: %s " PLOT_TIMES " %s", h, k);
		int infeasible = 0;
		for (size_t i = 0; i < p->pic->mark_count; i++)
			infeasible |= !p->pic->marks[i].feasible;
		if (infeasible)
			entry(&l, PL_LEGEND_SYMBOL, PLOT_GREY, 1, 1.0, PLOT_DISC_GLYPH,
			      "infeasible head_dim of the target");
	}
	if (p->pic->law_count) {
		char n[32], d[32];
		const struct ha_cal_picture_group *gr = &p->pic->groups[p->pic->largest];
		plot_cal_format_samples(n, sizeof n, gr->samples);
		plot_cal_format_count(d, sizeof d, gr->budget);
		if (cal->prediction.defined)
			entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, "",
			      "the laws at the target (ring: optimum):");
		else
			entry(&l, PL_LEGEND_NONE, PLOT_BLACK, 1, 1.0, "",
			      "the laws, at D = %s, n = %s:", d, n);
	}
	for (size_t k = 0; k < p->pic->law_count; k++) {
		const struct ha_cal_picture_law *lw = &p->pic->laws[k];
		const struct ha_cal_comparison *row = &cal->comparison[k];
		char weight[32] = "";
		if (row->weight_defined)
			snprintf(weight, sizeof weight, ", weight %.2f", row->weight);
		if (lw->curve.n == 0)
			entry(&l, PL_LEGEND_NONE, law_ink(k), 1, 1.0, "",
			      "%s: not fitted", row->law.name);
		else
			entry(&l, PL_LEGEND_LINE | (lw->has_mark ? PL_LEGEND_SYMBOL : 0),
			      law_ink(k), (PLINT)(2 + k % 7), 1.8, PLOT_RING_GLYPH,
			      "%s (k = %zu)%s", row->law.name, row->free_count,
			      weight);
	}
	PLFLT width = 0, height = 0;
	plvpor(p->panel[1] + 0.03, 0.99, PLOT_CAL_BOTTOM, 0.90);
	plwind(0.0, 1.0, 0.0, 1.0);
	pllegend(&width, &height, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
	         PL_POSITION_INSIDE | PL_POSITION_LEFT | PL_POSITION_TOP, 0.0, 0.0,
	         0.06, PLOT_WHITE, PLOT_BLACK, 1, 0, 0, l.n, l.opts, 1.0,
	         /* past 13 entries (the data-term laws) the lines close up so
	          * that the legend keeps its height above the bars */
	         0.65, l.n > 13 ? 1.6 * 13.0 / l.n : 1.6, 0.0,
	         l.text_colours, l.text, l.box_colours, l.box_patterns, l.box_scales,
	         l.box_widths, l.line_colours, l.styles, l.widths, l.symbol_colours,
	         l.symbol_scales, l.symbol_numbers, l.symbols);
	return 0.90 - height * (0.90 - PLOT_CAL_BOTTOM);
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
	/* Upright labels a line high need a line's room each: where bars are
	 * narrower, every stride-th is named (and the optimum's, its
	 * neighbours then unnamed), so that no two labels touch. */
	size_t stride = vertical && slot < LABEL_ROOM ? (size_t)ceil(LABEL_ROOM / slot) : 1;
	size_t best = p->bar_count;
	for (size_t i = 0; i < p->bar_count; i++)
		if (p->bars[i].optimum)
			best = i;
	for (size_t i = 0; i < p->bar_count; i++) {
		const struct plot_cal_bar *b = &p->bars[i];
		plcol0(b->others ? PLOT_GREY : b->optimum ? PLOT_VERMILION : PLOT_BLUE);
		plot_rect((double)i - 0.35, (double)i + 0.35, 0.0, b->share);
		plcol0(PLOT_BLACK);
		if (!plot_cal_bar_named(i, best, p->bar_count, stride))
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
			plot_cal_format_count(d, sizeof d, b->head_dim);
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

void plot_cal_draw(struct plot_canvas *c, const void *data)
{
	const struct calplot *p = data;
	plot_panel(c, p->panel[0], p->panel[1], PLOT_CAL_BOTTOM, 0.90, p->pic->x0, p->pic->x1, p->y0, p->y1, 1,
	           p->y_log);
	draw_bands(p);
	for (size_t g = 0; g < p->pic->group_count; g++) {
		group_ink(p, g, 0);
		style(1, 2.0);
		curve(p, p->pic->groups[g].fit.x, p->pic->groups[g].fit.y, p->pic->groups[g].fit.n);
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

	/* The title fits the page: the file's name is shortened (ending in
	 * "...") to the characters left on the line. */
	char file[96] = "";
	if (p->req->runs_file)
		plot_escape(file, sizeof file, p->req->runs_file,
		            plot_cal_title_room(c->width, p->m));
	plot_title(c, "Calibration of the error model to %zu runs%s%s", p->m,
	           file[0] ? " of " : "", file);
	/* up to seven lines, the last at the bottom, 30 points apart: a
	 * subscript (c_v) and a superscript (10^9) of the next line clear
	 * each other */
	int used = p->caption_line + 1;
	for (int i = 0; i < used; i++)
		plot_caption_at(c, 30.0 * (used - i) - 16.0, "%s", p->caption[i]);
}
