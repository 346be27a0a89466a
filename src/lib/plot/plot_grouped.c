/* Picture 7: the trade-off front of a grouped-query allocation
 * (headalloc-model(7), GROUPED-QUERY ATTENTION): every non-dominated
 * (error, KV cache) allocation of the budget, the KV cache in bytes a
 * token on a log x axis, the loss ratio to the unconstrained optimum on a
 * log y axis; the optimum under the KV constraints and the
 * --max-loss-ratio pick marked.  It draws a ha_grouped_solution as it is
 * and computes nothing. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"

/* Fronts longer than this are drawn as a line only (no marker each). */
#define MARKER_LIMIT 400

struct front {
	const struct ha_plot_grouped_request *req;
	const struct ha_grouped_solution *sol;
	double *x, *y;      /* log10 bytes a token, log10 loss ratio */
	size_t n;
	double x0, x1, y0, y1;
	int has_pick;       /* a --max-loss-ratio with an entry within it */
	int unconstrained_on_front; /* the unconstrained optimum meets the KV constraints */
};

static void free_front(struct front *f)
{
	free(f->x);
	free(f->y);
}

static double log10_ratio(const struct ha_grouped_allocation *a)
{
	/* The ratio of two MSEs from their logarithms: never an overflowed
	 * quotient. */
	return a->loss_ratio > 0.0 && isfinite(a->loss_ratio) ? log10(a->loss_ratio)
	                                                       : NAN;
}

static enum ha_status collect(struct front *f, struct ha_error *err)
{
	const struct ha_grouped_solution *sol = f->sol;
	f->n = sol->front_count;
	f->x = malloc(f->n * sizeof *f->x);
	f->y = malloc(f->n * sizeof *f->y);
	if (!f->x || !f->y)
		return ha_fail(err, HA_ENOMEM, "drawing the front: %s",
		               ha_status_str(HA_ENOMEM));
	double lo = INFINITY, hi = -INFINITY, ylo = 0.0, yhi = 0.0;
	for (size_t i = 0; i < f->n; i++) {
		const struct ha_grouped_allocation *a = &sol->front[i];
		f->x[i] = log10((double)a->kv_cache_bytes_per_token);
		f->y[i] = log10_ratio(a);
		if (!isfinite(f->y[i]))
			return ha_fail(err, HA_EINVAL, "drawing the front: entry %zu has "
			               "no finite loss ratio", i);
		lo = fmin(lo, f->x[i]);
		hi = fmax(hi, f->x[i]);
		ylo = fmin(ylo, f->y[i]);
		yhi = fmax(yhi, f->y[i]);
		f->unconstrained_on_front |=
			a->heads == sol->unconstrained.heads &&
			a->kv_heads == sol->unconstrained.kv_heads &&
			a->head_dim == sol->unconstrained.head_dim;
	}
	double xu = log10((double)sol->unconstrained.kv_cache_bytes_per_token);
	lo = fmin(lo, xu);
	hi = fmax(hi, xu);
	f->has_pick = f->req->max_loss_ratio > 0.0 && sol->chosen < f->n;
	if (f->req->max_loss_ratio > 0.0)
		yhi = fmax(yhi, log10(f->req->max_loss_ratio));
	double xspan = fmax(hi - lo, 1.0), yspan = fmax(yhi - ylo, 0.5);
	f->x0 = lo - 0.06 * xspan;
	f->x1 = hi + 0.06 * xspan;
	f->y0 = ylo - 0.06 * yspan;
	f->y1 = yhi + 0.08 * yspan;
	return HA_OK;
}

static void hline(const struct front *f, double y, enum plot_colour colour,
                  PLINT style)
{
	PLFLT hx[2] = {f->x0, f->x1}, hy[2] = {y, y};
	plcol0(colour);
	pllsty(style);
	plwidth(1.5);
	plline(2, hx, hy);
	pllsty(1);
	plwidth(1.0);
}

static void draw_legend(const struct front *f)
{
	char optimum[96], pick[96], ratio[64];
	const struct ha_grouped_allocation *o = &f->sol->optimum;
	snprintf(optimum, sizeof optimum, "optimum (H %" PRIu64 ", G %" PRIu64
	         ", d#dk#u %" PRIu64 ")", o->heads, o->kv_heads, o->head_dim);
	if (f->has_pick) {
		const struct ha_grouped_allocation *p = &f->sol->front[f->sol->chosen];
		snprintf(pick, sizeof pick, "pick (H %" PRIu64 ", G %" PRIu64
		         ", d#dk#u %" PRIu64 ")", p->heads, p->kv_heads, p->head_dim);
	}
	snprintf(ratio, sizeof ratio, "--max-loss-ratio %.4g", f->req->max_loss_ratio);
	const char *text[7], *symbols[7];
	PLINT opts[7], text_colours[7], line_colours[7], styles[7], symbol_colours[7],
	      symbol_numbers[7];
	PLFLT widths[7], symbol_scales[7];
	int n = 0;
#define ENTRY(o, t, colour, style, width, symbol, scale)                      \
	do {                                                                  \
		opts[n] = (o);                                                \
		text[n] = (t);                                                \
		text_colours[n] = PLOT_BLACK;                                 \
		line_colours[n] = symbol_colours[n] = (colour);               \
		styles[n] = (style);                                          \
		widths[n] = (width);                                          \
		symbols[n] = (symbol);                                        \
		symbol_scales[n] = (scale);                                   \
		symbol_numbers[n] = 1;                                        \
		n++;                                                          \
	} while (0)
	ENTRY(PL_LEGEND_LINE, "the front", PLOT_BLACK, 1, 2.0, "", 1.0);
	if (f->n <= MARKER_LIMIT)
		ENTRY(PL_LEGEND_SYMBOL, "a non-dominated (H, G, d#dk#u)", PLOT_BLUE, 1,
		      1.0, PLOT_DISC_GLYPH, 1.0);
	ENTRY(PL_LEGEND_SYMBOL, optimum, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH, 1.4);
	if (f->has_pick)
		ENTRY(PL_LEGEND_SYMBOL, pick, PLOT_GREEN, 1, 1.0, PLOT_DISC_GLYPH, 1.4);
	if (f->req->max_loss_ratio > 0.0)
		ENTRY(PL_LEGEND_LINE, ratio, PLOT_GREEN, 2, 1.5, "", 1.0);
	ENTRY(PL_LEGEND_LINE, "ratio 1: unconstrained", PLOT_GREY, 3, 1.5, "", 1.0);
	if (!f->unconstrained_on_front)
		ENTRY(PL_LEGEND_SYMBOL, "unconstrained optimum", PLOT_GREY, 1, 1.0,
		      PLOT_DISC_GLYPH, 1.0);
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
	const struct front *f = data;
	const struct ha_plot_grouped_request *req = f->req;
	const struct ha_grouped_solution *sol = f->sol;
	plot_panel(c, 0.085, 0.62, 0.27, 0.84, f->x0, f->x1, f->y0, f->y1, 1, 1);

	hline(f, 0.0, PLOT_GREY, 3);
	if (req->max_loss_ratio > 0.0)
		hline(f, log10(req->max_loss_ratio), PLOT_GREEN, 2);
	plcol0(PLOT_BLACK);
	plwidth(2.0);
	plot_polyline(f->x, f->y, f->n);
	plwidth(1.0);
	if (f->n <= MARKER_LIMIT)
		for (size_t i = 0; i < f->n; i++) {
			plcol0(PLOT_BLUE);
			plot_disc(c, f->x[i], f->y[i], 4.0, 0);
		}
	if (!f->unconstrained_on_front) {
		plcol0(PLOT_GREY);
		plot_disc(c, log10((double)sol->unconstrained.kv_cache_bytes_per_token),
		          0.0, 6.0, 1);
	}
	if (f->has_pick) {
		plcol0(PLOT_GREEN);
		plot_disc(c, f->x[sol->chosen], f->y[sol->chosen], 11.0, 1);
	}
	double xo = log10((double)sol->optimum.kv_cache_bytes_per_token);
	plcol0(PLOT_VERMILION);
	plot_disc(c, xo, log10_ratio(&sol->optimum), 7.0, 1);

	plot_box(c, "bcnstl", "bcnstlv");
	plcol0(PLOT_BLACK);
	plot_mtex("b", 3.0, 0.5, 0.5, "KV cache, bytes a token (log scale)");
	plot_mtex("l", 4.6, 0.5, 0.5, "loss ratio to the unconstrained optimum (log scale)");
	draw_legend(f);

	char model[PLOT_CAPTION_MAX], kv[PLOT_CAPTION_MAX];
	plot_describe_model(model, sizeof model, req->model, req->constraints,
	                    req->hdi_source);
	plot_describe_kv(kv, sizeof kv, req->model, req->kv, req->shape);
	plot_title(c, "KV cache against error: D = %" PRIu64 " at n = %.6g",
	           sol->budget, sol->samples);
	plot_caption(c, 0, "%s", model);
	plot_caption(c, 1, "%s", kv);
	plot_caption(c, 2, "optimum (" PLOT_DISC_GLYPH "): %" PRIu64 " heads " PLOT_TIMES
	             " d#dk#u = %" PRIu64 " in %" PRIu64 " kv heads, %" PRIu64
	             " bytes a token, loss ratio %.6g", sol->optimum.heads,
	             sol->optimum.head_dim, sol->optimum.kv_heads,
	             sol->optimum.kv_cache_bytes_per_token, sol->optimum.loss_ratio);
	if (f->has_pick)
		plot_caption(c, 3, "%zu allocations on the front; the pick: %" PRIu64
		             " bytes a token at loss ratio %.6g (within %.6g)", f->n,
		             sol->front[sol->chosen].kv_cache_bytes_per_token,
		             sol->front[sol->chosen].loss_ratio, req->max_loss_ratio);
	else
		plot_caption(c, 3, "%zu allocations on the front, from the best error "
		             "to the smallest KV cache%s", f->n,
		             f->n > MARKER_LIMIT ? " (not marked)" : "");
}

enum ha_status ha_plot_grouped(struct ha_plot_target *target,
                               const struct ha_plot_grouped_request *req,
                               struct ha_error *err)
{
	enum ha_status st = plot_check_target(target, err);
	if (st != HA_OK)
		return st;
	if (!req || !req->model || !req->solution || !req->solution->front ||
	    req->solution->front_count == 0 ||
	    ha_model_validate(req->model) != HA_OK ||
	    !(req->max_loss_ratio == 0.0 || req->max_loss_ratio >= 1.0))
		return ha_fail(err, HA_EINVAL, "a front's picture needs a valid model "
		               "and a grouped solution with its front");
	struct front f = {.req = req, .sol = req->solution};
	st = collect(&f, err);
	if (st == HA_OK)
		st = plot_render(target, 1200, 800, draw, &f, err);
	free_front(&f);
	return st;
}
