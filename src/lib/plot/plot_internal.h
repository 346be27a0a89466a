/* What the pictures share (library-internal): running PLplot safely into
 * a target, the page's panels, colours, text and markers.
 *
 * A picture is drawn in two steps.  Its public function computes
 * everything first (through the solver) into memory it owns; then
 * plot_render() runs a draw function over that data inside a guard:
 * PLplot's exit and abort handlers are headalloc's, so a PLplot failure
 * unwinds (longjmp) back to plot_render(), which ends the PLplot stream
 * and returns a status.  A draw function therefore calls PLplot and the
 * helpers below only, and never allocates: anything it would have to
 * free must already be in its data. */
#ifndef HEADALLOC_PLOT_INTERNAL_H
#define HEADALLOC_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/error.h>
#include <headalloc/plot.h>

#include "base/error_internal.h"

/* ---- the page -------------------------------------------------------------- */

struct plot_canvas {
	struct ha_plot_target *target;
	unsigned width, height;   /* the page, in pixels (PNG) or points */
	struct ha_plot_axes axes; /* the current panel */
	/* PLplot's default character height for this page (mm): its drivers
	 * make it proportional to width + height, so that text would grow
	 * with a picture of more panels; see plot_text_as_on(). */
	double page_text_mm;
};

typedef void (*plot_draw_fn)(struct plot_canvas *c, const void *data);

/* Draw a width x height page with draw(c, data) into target (see plot.h
 * for the statuses).  width and height are at least 800 x 600. */
enum ha_status plot_render(struct ha_plot_target *target, unsigned width,
                           unsigned height, plot_draw_fn draw,
                           const void *data, struct ha_error *err);

/* Check a picture's target and request before computing anything:
 * HA_EINVAL (err filled) for a NULL target or stream, an unknown format,
 * or a request not valid (the message: what it needs). */
enum ha_status plot_check(const struct ha_plot_target *target, int valid,
                          const char *needs, struct ha_error *err);

/* Start a panel: its frame at [left, right] x [bottom, top] (fractions
 * of the page), world coordinates x0..x1, y0..y1 (log10 of the value on a
 * log axis), recorded as the target's next panel. */
void plot_panel(struct plot_canvas *c, double left, double right,
                double bottom, double top, double x0, double x1, double y0,
                double y1, int x_log, int y_log);

/* The size of one pixel (PNG) or point of the page in the current
 * panel's world units, along x and along y. */
double plot_px_x(const struct plot_canvas *c);
double plot_px_y(const struct plot_canvas *c);

/* ---- colours ------------------------------------------------------------------
 * Colour map 0: the categories, Okabe & Ito's colour-blind safe palette;
 * colour map 1: viridis, for continuous values. */
enum plot_colour {
	PLOT_WHITE = 0, /* the background */
	PLOT_BLACK,
	PLOT_ORANGE,
	PLOT_SKY,
	PLOT_GREEN,
	PLOT_YELLOW,
	PLOT_BLUE,
	PLOT_VERMILION,
	PLOT_PURPLE,
	PLOT_GREY,
	PLOT_LIGHT_GREY,
	PLOT_DARK_GREY,
	PLOT_WHITE_INK, /* white for text on dark fills (0 is the background) */
	PLOT_COLOURS,
	PLOT_EXTRA = PLOT_COLOURS, /* PLOT_EXTRAS entries set while drawing */
	PLOT_EXTRAS = 32
};

/* The i-th of count category colours: Okabe–Ito's for up to 7, else
 * viridis evenly spaced (in an extra entry of colour map 0, i modulo
 * PLOT_EXTRAS).  Selects it and returns its colour map 0 index. */
int plot_category(size_t i, size_t count);

/* Select viridis at t in [0, 1] (colour map 1). */
void plot_viridis_ink(double t);

/* Viridis at t in [0, 1] as 8-bit RGB. */
void plot_viridis_rgb(double t, unsigned rgb[3]);

/* ---- text ---------------------------------------------------------------------- */

/* src made safe for PLplot: printable ASCII only (anything else becomes
 * '?'), '#' (PLplot's escape) doubled, at most max_chars characters of
 * src (then "..."). */
void plot_escape(char *dst, size_t size, const char *src, size_t max_chars);

/* The characters text shows: PLplot's escapes (#u, #d, ...) none, "##"
 * one, a UTF-8 sequence one. */
size_t plot_visible(const char *text);

/* plmtex and plptex with printf formats (text already escaped). */
void plot_mtex(const char *side, double disp, double pos, double just,
               const char *fmt, ...) HA_PRINTF(5, 6);
void plot_ptex(double x, double y, double just, const char *fmt, ...)
	HA_PRINTF(4, 5);

/* Caption lines under the page's panels, line 0 first, each at most
 * PLOT_CAPTION_MAX characters: four lines in the bottom 108 points of
 * the page, in one size on every page (small enough that a line's
 * subscripts clear the next line's superscripts). */
#define PLOT_CAPTION_MAX 200
void plot_caption(const struct plot_canvas *c, int line, const char *fmt, ...)
	HA_PRINTF(3, 4);

/* A caption line at the given height above the bottom of the page, in
 * points (pixels of a PNG), for a picture with more lines. */
void plot_caption_at(const struct plot_canvas *c, double points, const char *fmt, ...)
	HA_PRINTF(3, 4);

/* Size the text of the rest of the picture as on a page of width x
 * height (the size of its one-panel form), not as on this page: a picture
 * that grows with its panels (layers, budgets) keeps its text where its
 * layout in points puts room for it. */
void plot_text_as_on(const struct plot_canvas *c, double width, double height);

/* The title over the page. */
void plot_title(const struct plot_canvas *c, const char *fmt, ...)
	HA_PRINTF(2, 3);

/* A filled circle (U+25CF) in UTF-8, for legends. */
#define PLOT_DISC_GLYPH "\xe2\x97\x8f"
/* A filled up-pointing triangle (U+25B2) and the multiplication sign. */
#define PLOT_UP_GLYPH "\xe2\x96\xb2"
#define PLOT_TIMES "\xc3\x97"
#define PLOT_SQUARED "\xc2\xb2"
#define PLOT_PLUSMINUS "\xc2\xb1"
#define PLOT_RING_GLYPH "\xe2\x97\x8b"
#define PLOT_ALPHA "\xce\xb1"
#define PLOT_SIGMA "\xce\xa3"
#define PLOT_PROPTO "\xe2\x88\x9d"

/* ---- marks ---------------------------------------------------------------------- */

/* A filled disc of radius r pixels at world (x, y) in the current
 * colour, outlined in black (which stays selected) when outline is set. */
void plot_disc(const struct plot_canvas *c, double x, double y, double r,
               int outline);

/* A circle of radius r pixels around world (x, y), as a polygon of sides
 * sides (at most 32), in the current pen. */
void plot_ring(const struct plot_canvas *c, double x, double y, double r,
               int sides);

/* The disc of radius r at (x, y) or, for a value beyond the panel (off
 * 1: above, -1: below), an arrowhead pointing off it at its edge. */
void plot_mark(const struct plot_canvas *c, double x, double y, int off,
               double r);

/* A filled triangle of size r pixels at world (x, y) pointing up (dir =
 * 1) or down (-1): the mark of a value beyond the axis. */
void plot_arrowhead(const struct plot_canvas *c, double x, double y,
                    double r, int dir);

/* The pen of the lines that follow: colour, style (1 solid, 2 to 8
 * PLplot's dashes) and width; plot_style sets the last two only. */
void plot_pen(enum plot_colour colour, int style, double width);
void plot_style(int style, double width);

/* The line from (x0, y0) to (x1, y1) in world coordinates. */
void plot_segment(double x0, double y0, double x1, double y1);

/* The same in a pen of its own, leaving the pen solid and 1 wide. */
void plot_rule(double x0, double y0, double x1, double y1,
               enum plot_colour colour, int style, double width);

/* A filled rectangle in world coordinates. */
void plot_rect(double x0, double x1, double y0, double y1);

/* The frame and ticks of the current panel: xopt and yopt as plbox's;
 * a log axis ('l') of more than 10 decades is labelled every
 * plot_log_step() decades, without minor ticks. */
void plot_box(const struct plot_canvas *c, const char *xopt, const char *yopt);

/* The same for any window: xspan and yspan are its widths. */
void plot_axes_box(const char *xopt, double xspan, const char *yopt,
                   double yspan);

/* ---- legends -------------------------------------------------------------------- */

/* A legend: the arrays of PLplot's pllegend, filled an entry at a time,
 * max entries at most (0: PLOT_LEGEND_MAX). */
#define PLOT_LEGEND_MAX 40
struct plot_legend {
	int n, max;
	int32_t opts[PLOT_LEGEND_MAX], text_colours[PLOT_LEGEND_MAX],
	        colours[PLOT_LEGEND_MAX], patterns[PLOT_LEGEND_MAX],
	        styles[PLOT_LEGEND_MAX], numbers[PLOT_LEGEND_MAX];
	double scales[PLOT_LEGEND_MAX], box_widths[PLOT_LEGEND_MAX],
	       widths[PLOT_LEGEND_MAX];
	const char *text[PLOT_LEGEND_MAX], *symbols[PLOT_LEGEND_MAX];
	char labels[PLOT_LEGEND_MAX][96];
};

/* An entry of kind opt (PL_LEGEND_LINE, _SYMBOL, _COLOR_BOX, _NONE) in
 * colour: a line of style and width, the symbol (NULL: none) or a box at
 * scale; none past the legend's max. */
void plot_legend_entry(struct plot_legend *l, int opt, int colour, int style,
                       double width, const char *symbol, double scale,
                       const char *fmt, ...) HA_PRINTF(8, 9);

/* Draw it at position (pllegend's PL_POSITION_*), x and plot_width as
 * pllegend's, in rows x columns (0 x 0: one column), its text at
 * text_scale, spacing lines apart; returns its height (a fraction of
 * the panel's). */
double plot_legend_draw(const struct plot_legend *l, int position, double x,
                        double plot_width, int rows, int columns,
                        double text_scale, double spacing);

/* ---- data ------------------------------------------------------------------------- */

/* Draw the polyline (x[i], y[i]), broken at NAN y. */
void plot_polyline(const double *x, const double *y, size_t n);

/* ---- words ------------------------------------------------------------------------ */

/* "model: s = 2, c_b = 1, c_v = 1, hdi = 1;  constraints: none" and the
 * HDI's source when given, for a caption. */
void plot_describe_model(char *dst, size_t size, const struct ha_model *model,
                         const struct ha_constraints *constraints,
                         const struct ha_hdi_source *source);

/* "kv heads auto, max kv_dim 1024;  2 layers, 2 bytes an element,
 * group_hdi = 0" (kv NULL: auto and no bound; shape NULL: the defaults),
 * for a grouped picture's caption. */
void plot_describe_kv(char *dst, size_t size, const struct ha_model *model,
                      const struct ha_kv_constraints *kv,
                      const struct ha_kv_shape *shape);

/* "svg", "png" or "pdf" (never NULL). */
const char *ha_plot_format_str(enum ha_plot_format format);

#endif
