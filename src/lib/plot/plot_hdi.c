/* Pictures 4 and 5 (headalloc hdi, headalloc weights): matrices of heads
 * as heatmaps, the HDI of each layer, the optimal head weights. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"
#include "hdi/hdi_internal.h"

/* Matrices of more heads are drawn as means over square blocks. */
#define HEATMAP_CELLS 128
/* Up to this many heads (layers) every one gets a numbered tick. */
#define TICK_EACH 16

/* ---- heatmaps ---------------------------------------------------------------------- */

struct heatmap {
	size_t heads, block, cells; /* cells x cells blocks of block x block heads */
	double *cell;               /* cell[x * cells + y]: column x, row y */
	double zmin, zmax;          /* the colour scale */
};

/* The heads x heads row-major matrix m as a grid of at most
 * HEATMAP_CELLS^2 block means, on the scale [zmin, zmax]. */
static enum ha_status heatmap_make(struct heatmap *h, const double *m,
                                   size_t heads, double zmin, double zmax)
{
	h->heads = heads;
	h->block = (heads + HEATMAP_CELLS - 1) / HEATMAP_CELLS;
	h->cells = (heads + h->block - 1) / h->block;
	h->zmin = zmin;
	h->zmax = zmax;
	size_t n = h->cells;
	h->cell = calloc(n * n, sizeof *h->cell);
	if (!h->cell)
		return HA_ENOMEM;
	for (size_t y = 0; y < n; y++)
		for (size_t x = 0; x < n; x++) {
			double sum = 0.0;
			size_t count = 0;
			for (size_t i = y * h->block; i < heads && i < (y + 1) * h->block; i++)
				for (size_t j = x * h->block; j < heads && j < (x + 1) * h->block; j++) {
					sum += m[i * heads + j];
					count++;
				}
			h->cell[x * n + y] = sum / (double)count;
		}
	return HA_OK;
}

/* The matrix in a square frame, row 0 at the top: one filled rectangle a
 * cell (PLplot's plimage treats values as the nodes of a grid, one cell
 * fewer each way, which is not this picture). */
static void heatmap_draw(struct plot_canvas *c, const struct heatmap *h,
                         double left, double right, double bottom, double top)
{
	double far = (double)h->heads - 0.5, b = (double)h->block;
	plot_panel(c, left, right, bottom, top, -0.5, far, far, -0.5, 0, 0);
	for (size_t x = 0; x < h->cells; x++)
		for (size_t y = 0; y < h->cells; y++) {
			plot_viridis_ink((h->cell[x * h->cells + y] - h->zmin) /
			                 (h->zmax - h->zmin));
			plot_rect(-0.5 + b * (double)x, fmin(-0.5 + b * (double)(x + 1), far),
			          -0.5 + b * (double)y, fmin(-0.5 + b * (double)(y + 1), far));
		}
	/* ticks outward ('i'), off the cells */
	double tick = h->heads <= TICK_EACH ? 1.0 : 0.0;
	plcol0(PLOT_BLACK);
	plschr(0.0, h->heads > 9 ? 0.6 : 0.75);
	plbox("binst", tick, 1, "binstv", tick, 1);
	plbox("c", 0.0, 0, "c", 0.0, 0);
	plschr(0.0, 0.8);
}

/* A vertical colour bar for [zmin, zmax] right of the current panel, as
 * an image of its values (PLplot's gradient bar leaks cairo's pattern). */
static void colour_bar(double zmin, double zmax, const char *label)
{
	enum { STEPS = 101 };
	PLINT label_opts[1] = {PL_COLORBAR_LABEL_TOP};
	const char *labels[1] = {label};
	const char *axis_opts[1] = {"bcvtm"};
	PLFLT ticks[1] = {0.0};
	PLINT sub_ticks[1] = {0};
	PLINT n_values[1] = {STEPS};
	PLFLT steps[STEPS];
	for (int i = 0; i < STEPS; i++)
		steps[i] = zmin + (zmax - zmin) * i / (STEPS - 1);
	const PLFLT *values[1] = {steps};
	PLFLT width = 0, height = 0;
	plcol0(PLOT_BLACK);
	plcolorbar(&width, &height, PL_COLORBAR_IMAGE,
	           PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.10, 0.0, 0.06, 0.85,
	           PLOT_WHITE, PLOT_BLACK, 1, 0.0, 0.0, 0, 0.0, 1, label_opts, labels,
	           1, axis_opts, ticks, sub_ticks, n_values, values);
}

/* ---- the HDI of a weights file ----------------------------------------------------- */

struct hdi_picture {
	const struct ha_plot_hdi_request *req;
	size_t *layers;            /* the layers drawn, of the report */
	size_t count;
	struct heatmap *maps;      /* one per selected layer */
	unsigned char *selected;   /* per layer of the report */
	size_t columns;            /* of the grid of panels */
};

/* Sizes in points: a heatmap's square, its cell of the grid (across,
 * down), the margins, the strip. */
enum { SQUARE = 290, CELL = 380, ROW = 365, MARGIN_LEFT = 90, MARGIN_RIGHT = 190,
       TITLE = 80, STRIP = 170, BOTTOM = 200 };

static void draw_strip(struct plot_canvas *c, const struct hdi_picture *p)
{
	const struct ha_hdi_report *hdi = p->req->hdi;
	/* every layer, or (selected_only) the selected ones at their indices */
	size_t first = 0, last = hdi->count - 1;
	while (p->req->selected_only && !p->selected[first])
		first++;
	while (p->req->selected_only && !p->selected[last])
		last--;
	size_t span = last - first + 1;
	double left = (double)MARGIN_LEFT / c->width;
	double right = 1.0 - (double)MARGIN_RIGHT / c->width;
	double bottom = (double)BOTTOM / c->height;
	double top = (double)(BOTTOM + STRIP - 40) / c->height;
	/* room above an HDI of 1 for its value */
	plot_panel(c, left, right, bottom, top, (double)first - 0.6,
	           (double)last + 0.4, 0.0, 1.15, 0, 0);
	double px = plot_px_x(c), half = fmin(0.3, 40.0 * px);
	for (size_t i = first; i <= last; i++) {
		if (p->req->selected_only && !p->selected[i])
			continue;
		plcol0(p->selected[i] ? PLOT_BLUE : PLOT_LIGHT_GREY);
		plot_rect((double)i - half, (double)i + half, 0.0, hdi->tensors[i].hdi);
	}
	if (span <= TICK_EACH) {
		plcol0(PLOT_BLACK);
		plschr(0.0, 0.6);
		for (size_t i = first; i <= last; i++)
			if (!p->req->selected_only || p->selected[i])
				plot_ptex((double)i, hdi->tensors[i].hdi + 12.0 * plot_px_y(c),
				          0.5, "%.4f", hdi->tensors[i].hdi);
		plschr(0.0, 0.8);
	}
	if (p->req->baseline) {
		plot_pen(PLOT_VERMILION, 2, 2.0);
		for (size_t i = first; i <= last; i++) {
			if (p->req->selected_only && !p->selected[i])
				continue;
			plot_segment((double)i - half - 0.1, p->req->baseline[i],
			             (double)i + half + 0.1, p->req->baseline[i]);
		}
		plot_style(1, 1.0);
		plschr(0.0, 0.65);
		plot_mtex("rv", 1.0, 0.5, 0.0, "- - %s", p->req->baseline_label
		          ? p->req->baseline_label : "baseline");
		plschr(0.0, 0.8);
	}
	plcol0(PLOT_BLACK);
	plbox("bcnst", span <= TICK_EACH ? 1.0 : 0.0, 1, "bcnstv", 0.5, 5);
	plot_mtex("b", 3.0, 0.5, 0.5, "layer (tensors in name order, from 0)");
	plot_mtex("l", 3.6, 0.5, 0.5, "HDI");
}

static void draw_hdi(struct plot_canvas *c, const void *data)
{
	const struct hdi_picture *p = data;
	const struct ha_plot_hdi_request *req = p->req;
	double size = SQUARE;
	/* text as on the page of one layer, whatever the grid: the cells and
	 * margins are in points */
	plot_text_as_on(c, 1000.0, (double)(TITLE + 40 + ROW + STRIP + BOTTOM));
	for (size_t k = 0; k < p->count; k++) {
		size_t col = k % p->columns, row = k / p->columns;
		const struct ha_hdi_tensor *t = &req->hdi->tensors[p->layers[k]];
		double x0 = MARGIN_LEFT + (double)col * CELL;
		double y1 = (double)c->height - TITLE - 40.0 - (double)row * ROW;
		heatmap_draw(c, &p->maps[k], x0 / c->width, (x0 + size) / c->width,
		             (y1 - size) / c->height, y1 / c->height);
		char name[96];
		plot_escape(name, sizeof name, t->name, 34);
		plschr(0.0, 0.65);
		plot_mtex("t", 2.6, 0.5, 0.5, "layer %zu: %s", p->layers[k], name);
		plot_mtex("t", 1.1, 0.5, 0.5, "HDI %.4f, %zu heads " PLOT_TIMES " d#dk#u %zu%s",
		          t->hdi, t->heads, t->head_dim,
		          p->maps[k].block > 1 ? " (block means)" : "");
		plschr(0.0, 0.8);
		if ((k == p->columns - 1 || k == p->count - 1) && row == 0)
			colour_bar(0.0, 1.0, "overlap g");
	}
	draw_strip(c, p);

	char file[96];
	plot_escape(file, sizeof file, req->file, 60);
	plot_title(c, "Head overlaps of %s", file);
	plot_caption(c, 0, "row i, column j: the overlap g of heads i and j, the mean cos"
	             PLOT_SQUARED " of the principal angles");
	plot_caption(c, 1, "between their key subspaces (1: the same subspace, 0: orthogonal;"
	             " 0 for a head of zero weights)");
	plot_caption(c, 2, "HDI = 1 - mean overlap of the pairs of heads;  mean HDI %.6f over %zu"
	             " layer%s (layout %s)", req->hdi->mean_hdi, req->hdi->count,
	             req->hdi->count == 1 ? "" : "s", ha_layout_str(req->layout));
	if (p->count < req->hdi->count)
		plot_caption(c, 3, "the strip: every layer's HDI, this picture's in blue");
}

enum ha_status ha_plot_hdi(struct ha_plot_target *target,
                           const struct ha_plot_hdi_request *req,
                           struct ha_error *err)
{
	enum ha_status st = plot_check(target, req && req->file && req->hdi && req->hdi->count &&
	                               req->hdi->tensors && (!req->layers || req->layer_count),
	                               "an HDI picture needs its file and at least one layer", err);
	if (st != HA_OK)
		return st;
	const struct ha_hdi_report *hdi = req->hdi;
	for (size_t i = 0; req->layers && i < req->layer_count; i++)
		if (req->layers[i] >= hdi->count)
			return ha_fail(err, HA_EINVAL, "layer %zu of %zu does not exist",
			               req->layers[i], hdi->count);
	for (size_t i = 0; req->baseline && i < hdi->count; i++)
		if (!(req->baseline[i] >= 0.0 && req->baseline[i] <= 1.0))
			return ha_fail(err, HA_EINVAL, "the baseline HDI of layer %zu is not in [0, 1]", i);
	struct hdi_picture p = {.req = req};
	p.count = req->layers ? req->layer_count : hdi->count;
	p.maps = calloc(p.count, sizeof *p.maps);
	p.selected = calloc(hdi->count, 1);
	p.layers = malloc(p.count * sizeof *p.layers);
	st = p.maps && p.selected && p.layers ? HA_OK : HA_ENOMEM;
	for (size_t k = 0; st == HA_OK && k < p.count; k++) {
		p.layers[k] = req->layers ? req->layers[k] : k;
		const struct ha_hdi_tensor *t = &hdi->tensors[p.layers[k]];
		p.selected[p.layers[k]] = 1;
		if (t->heads == 0 || !t->overlap)
			st = HA_EINVAL;
		else
			st = heatmap_make(&p.maps[k], t->overlap, t->heads, 0.0, 1.0);
	}
	if (st == HA_OK) {
		p.columns = p.count <= 3 ? p.count : (size_t)ceil(sqrt((double)p.count));
		size_t rows = (p.count + p.columns - 1) / p.columns;
		size_t w = MARGIN_LEFT + p.columns * CELL + MARGIN_RIGHT;
		size_t h = TITLE + 40 + rows * ROW + STRIP + BOTTOM;
		st = plot_render(target, w < 1000 ? 1000 : (unsigned)w, (unsigned)h, draw_hdi,
		                 &p, err);
	} else {
		st = ha_fail(err, st, "drawing the overlaps: %s", ha_status_str(st));
	}
	for (size_t k = 0; p.maps && k < p.count; k++)
		free(p.maps[k].cell);
	free(p.maps);
	free(p.selected);
	free(p.layers);
	return st;
}

/* ---- optimal head weights ----------------------------------------------------------- */

struct weights_picture {
	const struct ha_plot_head_weights_request *req;
	struct heatmap map;  /* when sigma is given */
	double y0, y1;
};

static void draw_weights(struct plot_canvas *c, const void *data)
{
	const struct weights_picture *p = data;
	const struct ha_head_weights *w = p->req->weights;
	double right = p->req->sigma ? 0.50 : 0.86;
	plot_panel(c, 0.09, right, 0.27, 0.86, -0.6, (double)w->heads - 0.4, p->y0,
	           p->y1, 0, 0);
	double half = fmin(0.35, 30.0 * plot_px_x(c));
	plcol0(PLOT_BLUE);
	for (size_t i = 0; i < w->heads; i++)
		plot_rect((double)i - half, (double)i + half, 0.0, w->alpha[i]);
	plot_rule(-0.6, 1.0 / (double)w->heads, (double)w->heads - 0.4,
	          1.0 / (double)w->heads, PLOT_VERMILION, 2, 2.0);
	plcol0(PLOT_BLACK);
	plbox(p->y0 < 0.0 ? "binsta" : "binst", w->heads <= TICK_EACH ? 1.0 : 0.0, 1,
	      "bcnstv", 0.0, 0);
	plbox("c", 0.0, 0, "", 0.0, 0);
	plot_mtex("b", 3.4, 0.5, 0.5, "head (from 0)");
	plot_mtex("l", 5.0, 0.5, 0.5, "weight " PLOT_ALPHA "#di#u (bars); uniform 1/H (dashed)");
	if (p->req->sigma) {
		double size = 0.59 * c->height / c->width;
		heatmap_draw(c, &p->map, 0.58, 0.58 + size, 0.27, 0.86);
		plot_mtex("b", 3.0, 0.5, 0.5, "head j");
		plot_mtex("l", 3.0, 0.5, 0.5, "head i");
		plot_mtex("t", 1.6, 0.5, 0.5, "covariance " PLOT_SIGMA "#dij#u");
		colour_bar(p->map.zmin, p->map.zmax, PLOT_SIGMA);
	}
	plot_title(c, "Optimal head weights " PLOT_ALPHA " " PLOT_PROPTO " " PLOT_SIGMA
	           "#u-1#d 1 of %zu heads", w->heads);
	plot_caption(c, 0, PLOT_ALPHA " minimises the error " PLOT_ALPHA "#uT#d " PLOT_SIGMA " "
	             PLOT_ALPHA " of the weighted heads subject to the weights summing to 1");
	plot_caption(c, 1, "error with these weights %.6g, with uniform weights %.6g:"
	             " gain %.6g", w->error_optimal, w->error_uniform, w->gain);
	if (w->pseudo_inverse)
		plot_caption(c, 2, PLOT_SIGMA " is singular (rank %zu of %zu): %s", w->rank,
		             w->heads, w->null_space ? "weights in its null space cancel the error"
		                                     : "the pseudo-inverse's weights");
}

enum ha_status ha_plot_head_weights(struct ha_plot_target *target,
                                    const struct ha_plot_head_weights_request *req,
                                    struct ha_error *err)
{
	const struct ha_head_weights *w = req ? req->weights : NULL;
	enum ha_status st = plot_check(target, w && w->heads && w->alpha,
	                               "a head-weights picture needs the weights", err);
	if (st != HA_OK)
		return st;
	struct weights_picture p = {.req = req};
	double lo = 0.0, hi = 1.0 / (double)w->heads;
	for (size_t i = 0; i < w->heads; i++) {
		if (!isfinite(w->alpha[i]))
			return ha_fail(err, HA_EINVAL, "weight %zu is not finite", i);
		lo = fmin(lo, w->alpha[i]);
		hi = fmax(hi, w->alpha[i]);
	}
	double pad = 0.08 * (hi - lo);
	p.y0 = lo < 0.0 ? lo - pad : 0.0;
	p.y1 = hi + pad;
	if (req->sigma) {
		double zmin = INFINITY, zmax = -INFINITY;
		for (size_t i = 0; i < w->heads * w->heads; i++) {
			if (!isfinite(req->sigma[i]))
				return ha_fail(err, HA_EINVAL, "covariance entry %zu is not finite", i);
			zmin = fmin(zmin, req->sigma[i]);
			zmax = fmax(zmax, req->sigma[i]);
		}
		if (!(zmax > zmin)) { /* one value: a scale around it */
			zmin -= 0.5;
			zmax += 0.5;
		}
		st = heatmap_make(&p.map, req->sigma, w->heads, zmin, zmax);
		if (st != HA_OK)
			st = ha_fail(err, st, "drawing the weights: %s", ha_status_str(st));
	}
	if (st == HA_OK)
		st = plot_render(target, 1300, 720, draw_weights, &p, err);
	free(p.map.cell);
	return st;
}
