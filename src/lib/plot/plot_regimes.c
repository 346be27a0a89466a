/* Picture 3: the exact regimes in n of each budget (headalloc-model(7), EXACT REGIMES IN N). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/regime.h>

#include <plplot.h>

#include "plot_internal.h"
#include "alloc/solver_internal.h"

/* The axis ends at n = 10^300, the largest n headalloc takes. */
#define LOG10_N_LIMIT 300.0
/* Distinct head dimensions listed in the legend at most. */
#define LEGEND_LIMIT 24
/* A full axis of more decades than this gets a second panel, n up to
 * 10^ZOOM_DECADES: the training-set sizes of practice, readable. */
#define ZOOM_OVER 40.0
#define ZOOM_DECADES 16.0

struct regimes {
	const struct ha_regimes_request *req;
	const struct ha_budget_regimes *rows; /* one per budget */
	uint64_t *dims;       /* the distinct optimal head_dims, ascending */
	size_t dim_count;
	double x1;            /* the axis' end, log10 n */
	size_t beyond;        /* regimes that start beyond LOG10_N_LIMIT */
	int zoom;             /* draw the zoom panel too */
};

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static double log10_from(const struct ha_regime *r)
{
	return r->log_samples_from / log(10.0);
}

static enum ha_status compute(struct regimes *g, struct ha_error *err)
{
	const struct ha_regimes_request *req = g->req;
	size_t nb = req->budget_count, total = 0;
	const struct ha_regimes *result = req->regimes;
	if (!result)
		return ha_fail(err, HA_EINVAL, "drawing the regimes: the regimes "
		               "(ha_regimes_new) are required");
	if (result->count != nb)
		return ha_fail(err, HA_EINVAL, "the regimes are of %zu budgets, the "
		               "request of %zu", result->count, nb);
	g->rows = result->budgets;
	for (size_t b = 0; b < nb; b++)
		total += g->rows[b].count;
	g->dims = malloc(total * sizeof *g->dims);
	if (!g->dims)
		return ha_fail(err, HA_ENOMEM, "drawing the regimes: %s", ha_status_str(HA_ENOMEM));
	double last = 0.0;
	for (size_t b = 0; b < nb; b++)
		for (size_t i = 0; i < g->rows[b].count; i++) {
			const struct ha_regime *r = &g->rows[b].regimes[i];
			if (log10_from(r) >= LOG10_N_LIMIT) {
				g->beyond++;
				continue;
			}
			g->dims[g->dim_count++] = r->head_dim;
			last = fmax(last, log10_from(r));
		}
	qsort(g->dims, g->dim_count, sizeof *g->dims, by_value);
	size_t unique = 0;
	for (size_t i = 0; i < g->dim_count; i++)
		if (i == 0 || g->dims[i] != g->dims[unique - 1])
			g->dims[unique++] = g->dims[i];
	g->dim_count = unique;
	g->x1 = g->beyond ? LOG10_N_LIMIT : last + fmax(0.1 * last, 1.0);
	g->zoom = g->x1 > ZOOM_OVER;
	return HA_OK;
}

/* The colour of a head_dim: its rank among those in the picture. */
static double colour_of(const struct regimes *g, uint64_t d)
{
	const uint64_t *at = bsearch(&d, g->dims, g->dim_count, sizeof d, by_value);
	return at && g->dim_count > 1 ? (double)(at - g->dims) / (double)(g->dim_count - 1)
	                              : 0.5;
}

/* Whether black or white text reads better on viridis at t. */
static enum plot_colour text_on_viridis(double t)
{
	unsigned rgb[3];
	plot_viridis_rgb(t, rgb);
	/* Relative luminance, roughly: the lighter half of viridis takes
	 * black text. */
	double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
	return y > 110.0 ? PLOT_BLACK : PLOT_WHITE_INK;
}

/* n for a label: plain below 10^4, else 10^x (from log10 n). */
static void format_n(char *buf, size_t size, double log10_n)
{
	if (log10_n < 4.0)
		snprintf(buf, size, "%.4g", pow(10.0, log10_n));
	else
		snprintf(buf, size, "10#u%.4g#d", log10_n);
}

/* One budget's row up to x1: its regimes as coloured bars, each
 * labelled with its head_dim where it fits, and the switches with their
 * n.  Returns the switches left unlabelled for want of room. */
static size_t draw_row(const struct plot_canvas *c, const struct regimes *g,
                       size_t b, double x1)
{
	const struct ha_budget_regimes *row = &g->rows[b];
	double y0 = b + 0.18, y1 = b + 0.68, px = plot_px_x(c);
	double label_end[2] = {-INFINITY, -INFINITY};
	size_t skipped = 0;
	for (size_t i = 0; i < row->count; i++) {
		const struct ha_regime *r = &row->regimes[i];
		double from = log10_from(r);
		if (from >= x1)
			break;
		double to = r->unbounded ? x1 : fmin(r->log_samples_to / log(10.0), x1);
		double t = colour_of(g, r->head_dim);
		plot_viridis_ink(t);
		plot_rect(from, to, y0, y1);
		/* its head_dim inside when it fits: 8 points a character */
		char label[48];
		if (g->req->regimes->grouped)
			snprintf(label, sizeof label, "%" PRIu64 ", G %" PRIu64,
			         r->head_dim, r->kv_heads);
		else
			snprintf(label, sizeof label, "%" PRIu64, r->head_dim);
		/* (a grouped label's comma and spaces: a wider allowance) */
		double per = g->req->regimes->grouped ? 11.0 : 9.0;
		if ((to - from) / px > per * (double)strlen(label) + 6.0) {
			plcol0(text_on_viridis(t));
			plptex(0.5 * (from + to), 0.5 * (y0 + y1) - 0.04, 1.0, 0.0, 0.5, label);
		}
		if (i == 0)
			continue;
		/* The switch: a line through the row and its n above it, at
		 * one of two heights; a label that would touch its neighbour
		 * at both heights is left out (and counted). */
		plcol0(PLOT_BLACK);
		plwidth(1.5);
		plot_segment(from, y0 - 0.04, from, y1 + 0.04);
		plwidth(1.0);
		char n[48];
		format_n(n, sizeof n, from);
		double half = (5.5 * (double)plot_visible(n) + 4.0) * px;
		double at = fmin(fmax(from, half), x1 - half);
		int level = label_end[0] <= label_end[1] ? 0 : 1;
		if (at - half <= label_end[level]) {
			skipped++;
			continue;
		}
		label_end[level] = at + half;
		plptex(at, y1 + (12.0 + 31.0 * level) * plot_px_y(c), 1.0, 0.0, 0.5, n);
	}
	return skipped;
}

static void draw_legend(const struct regimes *g)
{
	struct plot_legend l = {0};
	for (size_t i = 0; i < g->dim_count; i++) {
		unsigned rgb[3];
		plot_viridis_rgb(colour_of(g, g->dims[i]), rgb);
		int slot = PLOT_EXTRA + l.n % PLOT_EXTRAS;
		plscol0(slot, (PLINT)rgb[0], (PLINT)rgb[1], (PLINT)rgb[2]);
		plot_legend_entry(&l, PL_LEGEND_COLOR_BOX, slot, 1, 1.0, NULL, 0.9,
		                  "d#dk#u = %" PRIu64, g->dims[i]);
	}
	plot_legend_draw(&l, PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.02, 0.04,
	                 l.n > 12 ? (l.n + 1) / 2 : l.n, l.n > 12 ? 2 : 1, 0.75, 1.8);
}

/* " 2 of D = 512 (from 10^312.3)," for each budget. */
static void beyond_caption(char *dst, size_t size, const struct regimes *g)
{
	size_t used = (size_t)snprintf(dst, size, "regimes beyond n = 10#u300#d:");
	for (size_t b = 0; b < g->req->budget_count && used + 1 < size; b++) {
		const struct ha_budget_regimes *row = &g->rows[b];
		size_t count = 0;
		double first = 0.0;
		for (size_t i = 0; i < row->count; i++) {
			double from = log10_from(&row->regimes[i]);
			if (from < LOG10_N_LIMIT)
				continue;
			if (count++ == 0)
				first = from;
		}
		if (count)
			used += (size_t)snprintf(dst + used, size - used, " %zu of D = %" PRIu64
			                         " (from 10#u%.4g#d),", count, row->budget, first);
	}
	if (used < size && dst[used - 1] == ',')
		dst[used - 1] = '\0';
}

/* One panel of every row, n from 1 to 10^x1, right of the rows'
 * labels ("D = 9223372036854775807" at most). */
static size_t draw_panel(struct plot_canvas *c, const struct regimes *g,
                         double bottom, double top, double x1)
{
	size_t nb = g->req->budget_count, skipped = 0, longest = 0;
	for (size_t b = 0; b < nb; b++) {
		char label[32];
		snprintf(label, sizeof label, "%" PRIu64, g->rows[b].budget);
		if (strlen(label) > longest)
			longest = strlen(label);
	}
	double left = fmax(0.12, (40.0 + 15.0 * (double)(longest + 4)) / c->width);
	/* room above the top row for its labels */
	plot_panel(c, left, 0.74, bottom, top, 0.0, x1, 0.0, (double)nb + 0.3, 1, 0);
	plschr(0.0, 0.7);
	for (size_t b = 0; b < nb; b++)
		skipped += draw_row(c, g, b, x1);
	plschr(0.0, 0.8);
	plot_box(c, "bcnstl", "bc");
	plcol0(PLOT_BLACK);
	for (size_t b = 0; b < nb; b++)
		plot_mtex("lv", 0.8, ((double)b + 0.43) / ((double)nb + 0.3), 1.0,
		          "D = %" PRIu64, g->rows[b].budget);
	return skipped;
}

static void draw(struct plot_canvas *c, const void *data)
{
	const struct regimes *g = data;
	const struct ha_regimes_request *req = g->req;
	double top = 1.0 - 90.0 / c->height, bottom = 200.0 / c->height;
	double split = bottom + 0.5 * (top - bottom);
	/* text as on the page of two budgets, whatever the count */
	plot_text_as_on(c, 1200.0, g->zoom ? 1000.0 : 700.0);
	size_t skipped = draw_panel(c, g, g->zoom ? split + 50.0 / c->height : bottom,
	                            top, g->x1);
	plot_mtex("b", 3.0, 0.5, 0.5, "samples n (log scale)");
	if (g->dim_count <= LEGEND_LIMIT)
		draw_legend(g);
	if (g->zoom) {
		draw_panel(c, g, bottom, split - 30.0 / c->height, ZOOM_DECADES);
		/* below the ticks' exponents (and its own) */
		plot_mtex("b", 3.7, 0.5, 0.5, "samples n (log scale): the same up to"
		          " 10#u%.0f#d", ZOOM_DECADES);
	}

	char model[PLOT_CAPTION_MAX];
	plot_describe_model(model, sizeof model, req->model, req->constraints, NULL);
	plot_title(c, "Regimes: the optimal head_dim d#dk#u of each budget as n grows");
	plot_caption(c, 0, "%s%s", model, g->dim_count > LEGEND_LIMIT ?
	             ";  colours: d#dk#u by rank, dark to light" : "");
	if (req->regimes->grouped)
		plot_caption(c, 1, "bars: where (D / d#dk#u heads, G key heads, d#dk#u),"
		             " labelled d#dk#u, G, is optimal under the KV constraints;"
		             "  lines: the exact n of each switch");
	else
		plot_caption(c, 1, "bars: where (D / d#dk#u heads, d#dk#u) is optimal;  lines: the exact"
		             " n of each switch (ties: the smaller d#dk#u)");
	if (g->beyond) {
		char beyond[PLOT_CAPTION_MAX + 1];
		beyond_caption(beyond, sizeof beyond, g);
		plot_caption(c, 2, "%s", beyond);
	}
	if (skipped)
		plot_caption(c, 3, "%zu switch%s too close to a neighbour to label%s"
		             " (every n is in the --regimes report)", skipped,
		             skipped == 1 ? "" : "es", g->zoom ? " in the full range" : "");
}

enum ha_status ha_plot_regimes(struct ha_plot_target *target,
                               const struct ha_regimes_request *req,
                               struct ha_error *err)
{
	enum ha_status st = plot_check(target, req && req->model && req->budgets &&
	                               req->budget_count && ha_model_validate(req->model) == HA_OK &&
	                               ha_constraints_validate(req->constraints) == HA_OK,
	                               "regimes need a valid model and budgets", err);
	if (st != HA_OK)
		return st;
	struct regimes g = {.req = req};
	st = compute(&g, err);
	if (st == HA_OK) {
		/* 190 points a row beyond the second, in each panel: a row of
		 * two budgets' picture, room for its switches' labels */
		size_t extra = req->budget_count > 2 ? req->budget_count - 2 : 0;
		if (extra > 25)
			extra = 25;
		unsigned height = (g.zoom ? 1000 : 700) + (g.zoom ? 380 : 190) * (unsigned)extra;
		st = plot_render(target, 1200, height, draw, &g, err);
	}
	free(g.dims);
	return st;
}
