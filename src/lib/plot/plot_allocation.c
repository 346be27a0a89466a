/* Picture 1: the error landscape of one budget at one n (headalloc-model(7), THE ERROR MODEL and THE ALLOCATION PROBLEM). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"
#include "alloc/solver_internal.h"

enum { MSE, BIAS, VARIANCE, COVARIANCE, CURVES };

/* Divisors beyond this many are drawn as curves only (no marker each). */
#define MARKER_LIMIT 400
/* Divisors up to this many are named on the axes. */
#define NAMED_LIMIT 12
/* Curves keep at most 4 points a column of this many. */
#define COLUMNS 1200

struct landscape {
	const struct ha_plot_allocation_request *req;
	struct ha_solution sol;
	size_t count;                 /* divisors */
	size_t feasible_count;
	double *x;                    /* log10 head_dim, ascending */
	double *y[CURVES];            /* log10 of each part; NAN for an exact 0 */
	double *line_x[CURVES], *line_y[CURVES]; /* the curves as drawn */
	size_t line_n[CURVES];
	double x0, x1, y0, y1;        /* the window */
	double log10_budget;
	size_t above, below;          /* values outside the window */
	double highest, lowest;       /* the extreme values (log10) */
	int covariance_zero;          /* every covariance is exactly 0 */
	int mse_off_axis;             /* some MSE is marked at the edge */
};

/* Reduce the polyline (x[i], y[i]), x ascending, to at most 4 points per
 * column of the given count of equal columns over [x_lo, x_hi] (first,
 * lowest, highest, last: what a pixel shows), in place; returns the new
 * count.  Points whose y is not finite break the line and are kept as
 * breaks (NAN). */
static size_t thin(double *x, double *y, size_t n, double x_lo, double x_hi,
                   size_t columns)
{
	if (n <= 4 * columns || !(x_hi > x_lo))
		return n;
	size_t out = 0, i = 0;
	while (i < n) {
		if (!isfinite(y[i])) {
			x[out] = x[i];
			y[out++] = NAN;
			i++;
			continue;
		}
		long col = (long)((x[i] - x_lo) / (x_hi - x_lo) * (double)columns);
		size_t first = i, lo = i, hi = i, last = i;
		while (i < n && isfinite(y[i]) &&
		       (long)((x[i] - x_lo) / (x_hi - x_lo) * (double)columns) == col) {
			if (y[i] < y[lo])
				lo = i;
			if (y[i] > y[hi])
				hi = i;
			last = i++;
		}
		/* first, then the extremes in x order, then last: the indices are
		 * ascending, so writing in place never overtakes the reading. */
		size_t keep[4] = {first, lo < hi ? lo : hi, lo < hi ? hi : lo, last};
		size_t prev = (size_t)-1;
		for (int k = 0; k < 4; k++) {
			if (keep[k] == prev)
				continue;
			prev = keep[k];
			x[out] = x[keep[k]];
			y[out++] = y[keep[k]];
		}
	}
	return out;
}

static void free_landscape(struct landscape *l)
{
	free(l->x);
	for (int k = 0; k < CURVES; k++) {
		free(l->y[k]);
		free(l->line_x[k]);
		free(l->line_y[k]);
	}
}

static double log10_or_nan(double log_value)
{
	return isinf(log_value) ? NAN : log_value / log(10.0);
}

/* Every divisor's error, which of them are feasible, the optimum: the
 * allocation's (ha_allocation_result_new, the caller's). */
static enum ha_status compute(struct landscape *l, struct ha_error *err)
{
	const struct ha_plot_allocation_request *req = l->req;
	const struct ha_allocation_result *a = req->allocation;
	if (!a || a->budget != req->budget || !a->divisors)
		return ha_fail(err, HA_EINVAL, "drawing the landscape: the allocation "
		               "is not of budget %" PRIu64 " with its divisors", req->budget);
	enum ha_status st = HA_OK;
	size_t n = a->divisor_count;
	l->sol = a->solution;
	l->count = n;
	l->x = malloc(n * sizeof *l->x);
	for (int k = 0; k < CURVES; k++) {
		l->y[k] = malloc(n * sizeof *l->y[k]);
		l->line_x[k] = malloc(n * sizeof *l->line_x[k]);
		l->line_y[k] = malloc(n * sizeof *l->line_y[k]);
		if (!l->y[k] || !l->line_x[k] || !l->line_y[k])
			st = HA_ENOMEM;
	}
	if (!l->x)
		st = HA_ENOMEM;
	for (size_t i = 0; st == HA_OK && i < n; i++) {
		const struct ha_terms *t = &a->divisors[i].terms;
		l->x[i] = log10((double)a->divisors[i].head_dim);
		l->y[MSE][i] = log10_or_nan(t->log_mse);
		l->y[BIAS][i] = log10_or_nan(t->log_bias2);
		l->y[VARIANCE][i] = log10_or_nan(t->log_variance);
		l->y[COVARIANCE][i] = log10_or_nan(t->log_covariance);
	}
	l->feasible_count = a->feasible_count;
	if (st != HA_OK)
		return ha_fail(err, st, "drawing the landscape: %s", ha_status_str(st));
	return HA_OK;
}

/* The window: every divisor across, and the error from 15 decades below
 * the optimum to 20 above (or less when the values span less), so that
 * the basin is seen; whatever lies beyond is marked and counted. */
static void choose_window(struct landscape *l)
{
	double m = l->y[MSE][0], lo = INFINITY, hi = -INFINITY;
	m = l->sol.optimum.terms.log_mse / log(10.0);
	int any_covariance = 0;
	for (size_t i = 0; i < l->count; i++)
		for (int k = 0; k < CURVES; k++) {
			double v = l->y[k][i];
			if (!isfinite(v))
				continue;
			any_covariance |= k == COVARIANCE;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	l->covariance_zero = !any_covariance;
	l->lowest = lo;
	l->highest = hi;
	double y0 = fmax(lo, m - 15.0), y1 = fmin(hi, m + 20.0);
	if (y1 - y0 < 1.0) {
		double mid = 0.5 * (y0 + y1);
		y0 = mid - 0.5;
		y1 = mid + 0.5;
	}
	double pad = 0.04 * (y1 - y0);
	l->y0 = y0 - pad;
	l->y1 = y1 + pad;
	l->log10_budget = log10((double)l->req->budget);
	double span = l->log10_budget, xpad = fmax(0.04 * span, 0.08);
	l->x0 = -xpad;
	l->x1 = span + xpad;
	for (size_t i = 0; i < l->count; i++) {
		for (int k = 0; k < CURVES; k++) {
			double v = l->y[k][i];
			l->above += isfinite(v) && v > l->y1;
			l->below += isfinite(v) && v < l->y0;
		}
		l->mse_off_axis |= l->y[MSE][i] > l->y1 || l->y[MSE][i] < l->y0;
	}
	for (int k = 0; k < CURVES; k++) {
		memcpy(l->line_x[k], l->x, l->count * sizeof *l->x);
		memcpy(l->line_y[k], l->y[k], l->count * sizeof *l->x);
		l->line_n[k] = thin(l->line_x[k], l->line_y[k], l->count, l->x0,
		                         l->x1, COLUMNS);
	}
}

/* A value of the MSE curve at its place, or an arrowhead at the edge of
 * the window it passes. */
static void mark(const struct plot_canvas *c, const struct landscape *l,
                 double x, double y, double r)
{
	if (y > l->y1)
		plot_arrowhead(c, x, l->y1 - 7.0 * plot_px_y(c), r, 1);
	else if (y < l->y0)
		plot_arrowhead(c, x, l->y0 + 7.0 * plot_px_y(c), r, -1);
	else
		plot_disc(c, x, y, r, 0);
}

static void draw_curves(const struct landscape *l)
{
	static const struct { enum plot_colour colour; PLINT style; double width; } look[CURVES] = {
		[MSE] = {PLOT_BLACK, 1, 2.5},
		[BIAS] = {PLOT_ORANGE, 2, 2.0},
		[VARIANCE] = {PLOT_GREEN, 3, 2.0},
		[COVARIANCE] = {PLOT_PURPLE, 4, 2.0},
	};
	for (int k = CURVES - 1; k >= 0; k--) {
		plcol0(look[k].colour);
		pllsty(look[k].style);
		plwidth(look[k].width);
		plot_polyline(l->line_x[k], l->line_y[k], l->line_n[k]);
	}
	pllsty(1);
	plwidth(1.0);
}

static void draw_legend(const struct landscape *l)
{
	char optimum[64], relaxed[64];
	snprintf(optimum, sizeof optimum, "integer optimum (d#dk#u = %" PRIu64 ")",
	         l->sol.optimum.head_dim);
	snprintf(relaxed, sizeof relaxed, "relaxed optimum (d#dk#u = %.4g)",
	         l->sol.relaxed.head_dim);
	const char *text[9];
	PLINT opts[9], text_colours[9], line_colours[9], styles[9], symbol_colours[9],
	      symbol_numbers[9];
	PLFLT widths[9], symbol_scales[9];
	const char *symbols[9];
	int n = 0;
#define ENTRY(o, t, colour, style, width, symbol)                             \
	do {                                                                  \
		opts[n] = (o);                                                \
		text[n] = (t);                                                \
		text_colours[n] = PLOT_BLACK;                                 \
		line_colours[n] = symbol_colours[n] = (colour);               \
		styles[n] = (style);                                          \
		widths[n] = (width);                                          \
		symbols[n] = (symbol);                                        \
		symbol_scales[n] = 1.0;                                       \
		symbol_numbers[n] = 1;                                        \
		n++;                                                          \
	} while (0)
	ENTRY(PL_LEGEND_LINE, "MSE", PLOT_BLACK, 1, 2.5, "");
	if (l->count <= MARKER_LIMIT)
		ENTRY(PL_LEGEND_SYMBOL, "feasible divisor", PLOT_BLUE, 1, 1.0, PLOT_DISC_GLYPH);
	if (l->feasible_count < l->count && l->count <= MARKER_LIMIT)
		ENTRY(PL_LEGEND_SYMBOL, "infeasible divisor", PLOT_GREY, 1, 1.0, PLOT_DISC_GLYPH);
	if (l->count <= MARKER_LIMIT && l->mse_off_axis)
		ENTRY(PL_LEGEND_SYMBOL, "MSE off the axis", PLOT_BLUE, 1, 1.0, PLOT_UP_GLYPH);
	ENTRY(PL_LEGEND_SYMBOL, optimum, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH);
	ENTRY(PL_LEGEND_LINE, relaxed, PLOT_VERMILION, 2, 1.5, "");
	ENTRY(PL_LEGEND_LINE, "bias" PLOT_SQUARED, PLOT_ORANGE, 2, 2.0, "");
	ENTRY(PL_LEGEND_LINE, "variance", PLOT_GREEN, 3, 2.0, "");
	ENTRY(PL_LEGEND_LINE, l->covariance_zero ? "covariance = 0" : "covariance",
	      PLOT_PURPLE, 4, 2.0, "");
#undef ENTRY
	PLFLT width = 0, height = 0;
	pllegend(&width, &height, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
	         PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.025, 0.0,
	         0.06, PLOT_WHITE, PLOT_BLACK, 1, 0, 0, n, opts, 1.0, 0.75, 2.0, 0.0,
	         text_colours, text, NULL, NULL, NULL, NULL, line_colours, styles,
	         widths, symbol_colours, symbol_scales, symbol_numbers, symbols);
}

static void draw(struct plot_canvas *c, const void *data)
{
	const struct landscape *l = data;
	const struct ha_plot_allocation_request *req = l->req;
	const struct ha_solution *sol = &l->sol;
	plot_panel(c, 0.075, 0.66, 0.27, 0.82, l->x0, l->x1, l->y0, l->y1, 1, 0);

	/* The relaxed optimum under everything else. */
	double xr = log10(sol->relaxed.head_dim);
	plcol0(PLOT_VERMILION);
	pllsty(2);
	plwidth(1.5);
	plot_segment(xr, l->y0, xr, l->y1);
	draw_curves(l);

	if (l->count <= MARKER_LIMIT)
		for (size_t i = 0; i < l->count; i++) {
			plcol0(req->allocation->divisors[i].feasible ? PLOT_BLUE : PLOT_GREY);
			mark(c, l, l->x[i], l->y[MSE][i], 4.0);
		}
	double xo = log10((double)sol->optimum.head_dim);
	double yo = sol->optimum.terms.log_mse / log(10.0);
	plcol0(PLOT_VERMILION);
	plot_disc(c, xo, yo, 8.0, 1);

	/* Few divisors (a log axis of a decade or two has one label or
	 * none): each is named, head_dim below and heads H = D / d above. */
	int named = l->count <= NAMED_LIMIT;
	plot_box(c, named ? "bstl" : "bcnstl", "bcnstv");
	plcol0(PLOT_BLACK);
	for (size_t i = 0; named && i < l->count; i++) {
		double at = (l->x[i] - l->x0) / (l->x1 - l->x0), d = pow(10.0, l->x[i]);
		plot_mtex("b", 1.3, at, 0.5, "%.0f", d);
		plot_mtex("t", 0.8, at, 0.5, "%.0f", (double)req->budget / d);
	}
	plot_mtex("b", 3.0, 0.5, 0.5, "head_dim d#dk#u (log scale)");
	plot_mtex("l", 4.0, 0.5, 0.5, "log#d10#u of the error (MSE and its parts)");
	/* The top axis: H = D / d, so log10 H = log10 D - log10 d, which runs
	 * backwards. */
	plwind(l->log10_budget - l->x0, l->log10_budget - l->x1, l->y0, l->y1);
	plot_axes_box(named ? "cstl" : "cmstl", l->x1 - l->x0, "", 0.0);
	plot_mtex("t", named ? 3.5 : 4.1, 0.5, 0.5, "heads H = D / d#dk#u (log scale)");
	plwind(l->x0, l->x1, l->y0, l->y1);
	draw_legend(l);

	char model[PLOT_CAPTION_MAX];
	plot_describe_model(model, sizeof model, req->model, req->constraints,
	                    req->hdi_source);
	plot_title(c, "Error landscape of D = %" PRIu64 " at n = %.6g", req->budget,
	           req->allocation->solution.samples);
	plot_caption(c, 0, "%s", model);
	plot_caption(c, 1, "integer optimum (" PLOT_DISC_GLYPH "): %" PRIu64 " heads " PLOT_TIMES
	             " d#dk#u = %" PRIu64 ", log#d10#u MSE = %.4f", sol->optimum.heads,
	             sol->optimum.head_dim, yo);
	plot_caption(c, 2, "relaxed optimum (dashed): d#dk#u = %.6g, H = %.6g, log#d10#u MSE = %.4f",
	             sol->relaxed.head_dim, sol->relaxed.heads,
	             sol->relaxed.log_mse / log(10.0));
	plot_caption(c, 3, "%zu divisors, %zu feasible%s;  off the axis: %zu values above"
	             " (to log#d10#u %.4g), %zu below (to %.4g)", l->count, l->feasible_count,
	             l->count > MARKER_LIMIT ? " (not marked)" : "", l->above, l->highest,
	             l->below, l->lowest);
}

enum ha_status ha_plot_allocation(struct ha_plot_target *target,
                                  const struct ha_plot_allocation_request *req,
                                  struct ha_error *err)
{
	enum ha_status st = plot_check_target(target, err);
	if (st != HA_OK)
		return st;
	if (!req || !req->model || req->budget < 1 || req->budget > HA_BUDGET_MAX ||
	    ha_model_validate(req->model) != HA_OK ||
	    ha_constraints_validate(req->constraints) != HA_OK)
		return ha_fail(err, HA_EINVAL, "a landscape needs a valid model, budget and constraints");
	struct landscape l = {.req = req};
	st = compute(&l, err);
	if (st == HA_OK) {
		choose_window(&l);
		st = plot_render(target, 1200, 800, draw, &l, err);
	}
	free_landscape(&l);
	return st;
}
