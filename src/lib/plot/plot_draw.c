/* Drawing on a page: panels and axes, colours, text (the model and its
 * constraints in words among it), marks, curves.
 * Called only from a picture's draw function, inside plot_render()'s
 * guard. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"
#include "alloc/model_internal.h"

/* Viridis (van der Walt and Smith), by its values at nine evenly spaced
 * points, interpolated linearly in RGB. */
static const unsigned char viridis[9][3] = {
	{68, 1, 84},   {71, 44, 122},  {59, 81, 139},  {44, 113, 142},
	{33, 144, 141}, {39, 173, 129}, {92, 200, 99}, {170, 220, 50},
	{253, 231, 37},
};

/* ---- panels ------------------------------------------------------------------------ */

void plot_panel(struct plot_canvas *c, double left, double right,
                double bottom, double top, double x0, double x1, double y0,
                double y1, int x_log, int y_log)
{
	c->axes = (struct ha_plot_axes){left, right, bottom, top, x0, x1, y0, y1,
	                                x_log, y_log};
	struct ha_plot_target *t = c->target;
	if (t->axes && t->axes_count < t->axes_capacity)
		t->axes[t->axes_count] = c->axes;
	t->axes_count++;
	plvpor(left, right, bottom, top);
	plwind(x0, x1, y0, y1);
}

double plot_px_x(const struct plot_canvas *c)
{
	const struct ha_plot_axes *a = &c->axes;
	return (a->x_max - a->x_min) / ((a->right - a->left) * c->width);
}

double plot_px_y(const struct plot_canvas *c)
{
	const struct ha_plot_axes *a = &c->axes;
	return (a->y_max - a->y_min) / ((a->top - a->bottom) * c->height);
}

/* The decades between labels of a log axis spanning span decades: 0
 * (PLplot's choice: every decade) up to 10, else 1, 2 or 5 times a power
 * of ten, at most 8 labels. */
static double plot_log_step(double span)
{
	span = fabs(span);
	if (span <= 10.0)
		return 0.0;
	double step = pow(10.0, floor(log10(span / 8.0)));
	if (span / step > 8.0)
		step *= 2.0;
	if (span / step > 8.0)
		step *= 2.5;
	if (span / step > 8.0)
		step *= 2.0;
	return step;
}

/* The labels of a log axis drawn as a linear axis of log10 values. */
static void log_label(PLINT axis, PLFLT value, char *label, PLINT length,
                      PLPointer data)
{
	(void)axis;
	(void)data;
	snprintf(label, (size_t)length, "10#u%.6g#d", value);
}

/* PLplot labels a log axis ('l') at every decade whatever the tick given:
 * past 10 decades the axis becomes a linear one of log10 values
 * labelled 10^x every plot_log_step() decades ('o': log_label), without
 * minor ticks (PLplot's would be 2..9 times each label only). */
static int axis_options(char out[16], const char *opt, double span,
                        double *tick)
{
	int relabel = strchr(opt, 'l') && plot_log_step(span) > 0.0;
	int numbered = strchr(opt, 'n') || strchr(opt, 'm');
	*tick = relabel ? plot_log_step(span) : 0.0;
	size_t o = 0;
	for (; *opt && o < 14; opt++) {
		if (relabel && (*opt == 's' || *opt == 'l'))
			continue;
		out[o++] = *opt;
	}
	if (relabel && numbered)
		out[o++] = 'o';
	out[o] = '\0';
	return relabel;
}

void plot_axes_box(const char *xopt, double xspan, const char *yopt,
                   double yspan)
{
	char xo[16], yo[16];
	double xtick, ytick;
	int relabel = axis_options(xo, xopt, xspan, &xtick);
	relabel |= axis_options(yo, yopt, yspan, &ytick);
	if (relabel)
		plslabelfunc(log_label, NULL);
	plot_pen(PLOT_BLACK, 1, 1.0);
	plbox(xo, xtick, 0, yo, ytick, 0);
	if (relabel)
		plslabelfunc(NULL, NULL);
}

void plot_box(const struct plot_canvas *c, const char *xopt, const char *yopt)
{
	plot_axes_box(xopt, c->axes.x_max - c->axes.x_min, yopt,
	              c->axes.y_max - c->axes.y_min);
}

/* ---- colours --------------------------------------------------------------------------- */

/* t clamped to [0, 1], NaN to 0. */
static double unit(double t)
{
	return !(t >= 0.0) ? 0.0 : t > 1.0 ? 1.0 : t;
}

void plot_viridis_rgb(double t, unsigned rgb[3])
{
	double at = unit(t) * 8.0;
	int i = (int)at;
	if (i > 7)
		i = 7;
	double f = at - i;
	for (int k = 0; k < 3; k++)
		rgb[k] = (unsigned)lround(viridis[i][k] + f * (viridis[i + 1][k] - viridis[i][k]));
}

void plot_viridis_ink(double t)
{
	plcol1(unit(t));
}

int plot_category(size_t i, size_t count)
{
	static const enum plot_colour okabe_ito[] = {
		PLOT_BLUE, PLOT_VERMILION, PLOT_GREEN, PLOT_ORANGE, PLOT_PURPLE,
		PLOT_SKY, PLOT_BLACK,
	};
	size_t n = sizeof okabe_ito / sizeof *okabe_ito;
	int index;
	if (count <= n) {
		index = (int)okabe_ito[i % n];
	} else {
		/* stop short of viridis' yellow, which white paper swallows */
		unsigned rgb[3];
		plot_viridis_rgb(0.85 * (double)i / (double)(count - 1), rgb);
		index = PLOT_EXTRA + (int)(i % PLOT_EXTRAS);
		plscol0(index, (PLINT)rgb[0], (PLINT)rgb[1], (PLINT)rgb[2]);
	}
	plcol0(index);
	return index;
}

/* ---- text ---------------------------------------------------------------------------- */

/* text, an array, formatted from fmt and the arguments after it, in a
 * function of printf's form. */
#define FORMAT(text, fmt)                                \
	do {                                             \
		va_list ap_;                             \
		va_start(ap_, fmt);                      \
		vsnprintf(text, sizeof text, fmt, ap_);  \
		va_end(ap_);                             \
	} while (0)

void plot_escape(char *dst, size_t size, const char *src, size_t max_chars)
{
	size_t o = 0, taken = 0;
	if (!size)
		return;
	for (; src && *src && o + 4 < size; src++) {
		if (taken == max_chars) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char ch = (unsigned char)*src;
		char out = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		dst[o++] = out;
		if (out == '#')
			dst[o++] = '#';
		taken++;
	}
	dst[o] = '\0';
}

size_t plot_visible(const char *s)
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

void plot_mtex(const char *side, double disp, double pos, double just,
               const char *fmt, ...)
{
	char text[512];
	FORMAT(text, fmt);
	plmtex(side, disp, pos, just, text);
}

void plot_ptex(double x, double y, double just, const char *fmt, ...)
{
	char text[512];
	FORMAT(text, fmt);
	plptex(x, y, 1.0, 0.0, just, text);
}

/* The page (width + height, points) captions are sized as on. */
#define CAPTION_PAGE 1600.0

void plot_text_as_on(const struct plot_canvas *c, double width, double height)
{
	plschr(c->page_text_mm * (width + height) / (c->width + c->height), 0.8);
}

/* Text relative to the whole page: a viewport over all of it, at scale
 * times the character height of a page of (width + height) points
 * (the picture's own text size when 0). */
static void page_text(const struct plot_canvas *c, double y_fraction,
                      double scale, double page, const char *text)
{
	PLFLT def = 0.0, height = 0.0;
	plgchr(&def, &height);
	plvpor(0.0, 1.0, 0.0, 1.0);
	plwind(0.0, 1.0, 0.0, 1.0);
	if (page > 0.0)
		plschr(c->page_text_mm * page / (c->width + c->height), scale);
	else
		plschr(0.0, scale);
	plcol0(PLOT_BLACK);
	plptex(0.04, y_fraction, 1.0, 0.0, 0.0, text);
	plschr(def, 0.8);
}

void plot_caption_at(const struct plot_canvas *c, double points, const char *fmt, ...)
{
	char text[PLOT_CAPTION_MAX + 1];
	FORMAT(text, fmt);
	page_text(c, points / c->height, 0.7, CAPTION_PAGE, text);
}

void plot_caption(const struct plot_canvas *c, int line, const char *fmt, ...)
{
	char text[PLOT_CAPTION_MAX + 1];
	FORMAT(text, fmt);
	/* Four lines of 28 points at the bottom of the page, line 0 highest,
	 * the last one's subscripts clear of the edge. */
	plot_caption_at(c, 4.0 * 28.0 - 28.0 * line - 8.0, "%s", text);
}

void plot_title(const struct plot_canvas *c, const char *fmt, ...)
{
	char text[256];
	FORMAT(text, fmt);
	page_text(c, 1.0 - 32.0 / c->height, 1.0, 0.0, text);
}

/* ---- words the pictures share with the reports ---------------------------------- */

/* Append to dst (of size) at *used, never past its end. */
static void append(char *dst, size_t size, size_t *used, const char *fmt, ...)
	HA_PRINTF(4, 5);

static void append(char *dst, size_t size, size_t *used, const char *fmt, ...)
{
	if (*used >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dst + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

void plot_describe_model(char *dst, size_t size, const struct ha_model *m,
                         const struct ha_constraints *c,
                         const struct ha_hdi_source *source)
{
	size_t used = 0;
	dst[0] = '\0';
	/* The model as given, as the text report writes it: a coefficient
	 * set from its logarithm as that logarithm (a calibrated c_v may lie
	 * far beyond a double), E, gamma and kappa where they differ from
	 * the defaults. */
	const struct ha_model d = ha_model_defaults();
	append(dst, size, &used, "model: s = %.6g", m->smoothness);
	if (!m->bias_coef_is_log)
		append(dst, size, &used, ", c#db#u = %.6g", m->bias_coef);
	else
		append(dst, size, &used, ", ln c#db#u = %.6g",
		       ha_model_log_bias_coef(m));
	if (!m->var_coef_is_log)
		append(dst, size, &used, ", c#dv#u = %.6g", m->var_coef);
	else
		append(dst, size, &used, ", ln c#dv#u = %.6g",
		       ha_model_log_var_coef(m));
	append(dst, size, &used, ", hdi = %.6g", m->hdi);
	if (m->irreducible != d.irreducible)
		append(dst, size, &used, ", E = %.6g", m->irreducible);
	if (m->var_rate != d.var_rate)
		append(dst, size, &used, ", #gg = %.6g", m->var_rate);
	if (m->var_power != d.var_power)
		append(dst, size, &used, ", #gk = %.6g", m->var_power);
	if (source && source->file) {
		char file[80];
		plot_escape(file, sizeof file, source->file, 40);
		append(dst, size, &used, " (measured: %zu tensor%s of %s)", source->tensors,
		       source->tensors == 1 ? "" : "s", file);
	}
	append(dst, size, &used, ";  constraints:");
	const struct { const char *name; uint64_t value; } fields[] = {
		{"head_dim multiple of", c ? c->head_dim_multiple : 0},
		{"head_dim >=", c ? c->min_head_dim : 0},
		{"head_dim <=", c ? c->max_head_dim : 0},
		{"heads >=", c ? c->min_heads : 0},
		{"heads <=", c ? c->max_heads : 0},
	};
	int any = 0;
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		if (!fields[i].value)
			continue;
		append(dst, size, &used, "%s %s %" PRIu64, any ? "," : "", fields[i].name,
		       fields[i].value);
		any = 1;
	}
	if (!any)
		append(dst, size, &used, " none");
}

void plot_describe_kv(char *dst, size_t size, const struct ha_model *model,
                      const struct ha_kv_constraints *kv,
                      const struct ha_kv_shape *shape_or_null)
{
	struct ha_kv_shape shape = shape_or_null ? *shape_or_null : ha_kv_shape_defaults();
	size_t used = 0;
	dst[0] = '\0';
	if (kv && kv->kv_heads)
		append(dst, size, &used, "kv heads %" PRIu64, kv->kv_heads);
	else
		append(dst, size, &used, "kv heads auto");
	const struct { const char *name; uint64_t value; } fields[] = {
		{"max kv_dim", kv ? kv->max_kv_dim : 0},
		{"kv heads >=", kv ? kv->min_kv_heads : 0},
		{"kv heads <=", kv ? kv->max_kv_heads : 0},
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (fields[i].value)
			append(dst, size, &used, ", %s %" PRIu64, fields[i].name,
			       fields[i].value);
	append(dst, size, &used, ";  %" PRIu64 " layer%s, %" PRIu64
	       " byte%s an element, group_hdi = %.6g", shape.layers,
	       shape.layers == 1 ? "" : "s", shape.kv_bytes,
	       shape.kv_bytes == 1 ? "" : "s", model->group_hdi);
}

/* ---- marks -------------------------------------------------------------------------------- */

/* The sides + 1 corners (the first again last) of a circle of radius r
 * pixels around world (x, y). */
static void circle(const struct plot_canvas *c, double x, double y, double r,
                   int sides, PLFLT *px, PLFLT *py)
{
	double rx = r * plot_px_x(c), ry = r * plot_px_y(c);
	for (int i = 0; i <= sides; i++) {
		double a = 2.0 * 3.14159265358979323846 * i / sides;
		px[i] = x + rx * cos(a);
		py[i] = y + ry * sin(a);
	}
}

void plot_disc(const struct plot_canvas *c, double x, double y, double r,
               int outline)
{
	enum { SIDES = 24 };
	PLFLT px[SIDES + 1], py[SIDES + 1];
	circle(c, x, y, r, SIDES, px, py);
	plfill(SIDES, px, py);
	if (outline) {
		plot_pen(PLOT_BLACK, 1, 1.0);
		plline(SIDES + 1, px, py);
	}
}

void plot_ring(const struct plot_canvas *c, double x, double y, double r,
               int sides)
{
	PLFLT px[33], py[33];
	sides = sides < 32 ? sides : 32;
	circle(c, x, y, r, sides, px, py);
	plline(sides + 1, px, py);
}

void plot_mark(const struct plot_canvas *c, double x, double y, int off,
               double r)
{
	if (off > 0)
		plot_arrowhead(c, x, c->axes.y_max - 7.0 * plot_px_y(c), r, 1);
	else if (off < 0)
		plot_arrowhead(c, x, c->axes.y_min + 7.0 * plot_px_y(c), r, -1);
	else
		plot_disc(c, x, y, r, 0);
}

void plot_arrowhead(const struct plot_canvas *c, double x, double y,
                    double r, int dir)
{
	double rx = r * plot_px_x(c), ry = r * plot_px_y(c);
	PLFLT px[3] = {x - rx, x + rx, x};
	PLFLT py[3] = {y - dir * ry, y - dir * ry, y + dir * ry};
	plfill(3, px, py);
}

void plot_pen(enum plot_colour colour, int style, double width)
{
	plcol0(colour);
	plot_style(style, width);
}

void plot_style(int style, double width)
{
	pllsty(style);
	plwidth(width);
}

void plot_segment(double x0, double y0, double x1, double y1)
{
	PLFLT px[2] = {x0, x1}, py[2] = {y0, y1};
	plline(2, px, py);
}

void plot_rule(double x0, double y0, double x1, double y1,
               enum plot_colour colour, int style, double width)
{
	plot_pen(colour, style, width);
	plot_segment(x0, y0, x1, y1);
	plot_style(1, 1.0);
}

void plot_rect(double x0, double x1, double y0, double y1)
{
	PLFLT px[4] = {x0, x1, x1, x0};
	PLFLT py[4] = {y0, y0, y1, y1};
	plfill(4, px, py);
}

/* ---- legends ------------------------------------------------------------------------- */

/* The legend's arrays are passed to pllegend as PLplot's own. */
_Static_assert(sizeof(PLINT) == sizeof(int32_t) && sizeof(PLFLT) == sizeof(double),
               "PLplot's PLINT is int32_t and its PLFLT double");

void plot_legend_entry(struct plot_legend *l, int opt, int colour, int style,
                       double width, const char *symbol, double scale,
                       const char *fmt, ...)
{
	if (l->n == (l->max > 0 && l->max < PLOT_LEGEND_MAX ? l->max : PLOT_LEGEND_MAX))
		return;
	int i = l->n++;
	FORMAT(l->labels[i], fmt);
	l->opts[i] = opt;
	l->text[i] = l->labels[i];
	l->text_colours[i] = PLOT_BLACK;
	l->colours[i] = colour;
	l->patterns[i] = 0;
	l->styles[i] = style;
	l->widths[i] = width;
	l->box_widths[i] = 1.0;
	l->symbols[i] = symbol ? symbol : "";
	l->scales[i] = scale;
	l->numbers[i] = 1;
}

double plot_legend_draw(const struct plot_legend *l, int position, double x,
                        double plot_width, int rows, int columns,
                        double text_scale, double spacing)
{
	PLFLT width = 0, height = 0;
	pllegend(&width, &height, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
	         position, x, 0.0, plot_width, PLOT_WHITE, PLOT_BLACK, 1, rows,
	         columns, l->n, l->opts, 1.0, text_scale, spacing, 0.0,
	         l->text_colours, l->text, l->colours, l->patterns, l->scales,
	         l->box_widths, l->colours, l->styles, l->widths, l->colours,
	         l->scales, l->numbers, l->symbols);
	return height;
}

/* ---- data -------------------------------------------------------------------------------- */

void plot_polyline(const double *x, const double *y, size_t n)
{
	size_t start = 0;
	while (start < n) {
		while (start < n && !isfinite(y[start]))
			start++;
		size_t end = start;
		while (end < n && isfinite(y[end]))
			end++;
		if (end - start >= 2)
			plline((PLINT)(end - start), x + start, y + start);
		start = end;
	}
}
