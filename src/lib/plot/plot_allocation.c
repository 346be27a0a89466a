/* The pictures of one budget at one n.  Picture 1: the error landscape
 * of its divisors (headalloc-model(7), THE ERROR MODEL and THE ALLOCATION
 * PROBLEM).  Picture 7: the trade-off front of a grouped-query allocation
 * (headalloc-model(7), GROUPED-QUERY ATTENTION): every non-dominated
 * (error, KV cache) allocation, the KV cache in bytes a token on a log x
 * axis, the loss ratio to the unconstrained optimum on a log y axis; the
 * optimum under the KV constraints and the --max-loss-ratio pick marked.
 * Both draw the solution they are given and compute nothing. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"
#include "alloc/solver_internal.h"

enum { MSE, BIAS, VARIANCE, COVARIANCE, CURVES };

/* Divisors (allocations of a front) beyond this many are drawn as curves
 * only (no marker each). */
#define MARKER_LIMIT 400
/* Divisors up to this many are named on the axes. */
#define NAMED_LIMIT 12
/* Curves keep at most 4 points a column of this many. */
#define COLUMNS 1200

/* ---- the landscape ------------------------------------------------------------------ */

struct landscape {
	const struct ha_plot_allocation_request *req;
	struct ha_solution sol;
	size_t count;                 /* divisors */
	size_t feasible_count;
	double *block;                /* the arrays below, in one allocation */
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
	size_t n = a->divisor_count;
	l->sol = a->solution;
	l->count = n;
	l->block = malloc((1 + 3 * CURVES) * n * sizeof *l->block);
	if (!l->block)
		return ha_fail(err, HA_ENOMEM, "drawing the landscape: %s",
		               ha_status_str(HA_ENOMEM));
	l->x = l->block;
	for (int k = 0; k < CURVES; k++) {
		l->y[k] = l->block + (1 + 3 * k) * n;
		l->line_x[k] = l->y[k] + n;
		l->line_y[k] = l->y[k] + 2 * n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ha_terms *t = &a->divisors[i].terms;
		l->x[i] = log10((double)a->divisors[i].head_dim);
		l->y[MSE][i] = log10_or_nan(t->log_mse);
		l->y[BIAS][i] = log10_or_nan(t->log_bias2);
		l->y[VARIANCE][i] = log10_or_nan(t->log_variance);
		l->y[COVARIANCE][i] = log10_or_nan(t->log_covariance);
	}
	l->feasible_count = a->feasible_count;
	return HA_OK;
}

/* The window: every divisor across, and the error from 15 decades below
 * the optimum to 20 above (or less when the values span less), so that
 * the basin is seen; whatever lies beyond is marked and counted. */
static void choose_window(struct landscape *l)
{
	double m = l->sol.optimum.terms.log_mse / log(10.0);
	double lo = INFINITY, hi = -INFINITY;
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

/* Each curve's pen, and its name in the legend. */
static const struct { enum plot_colour colour; int style; double width; const char *name; } look[] = {
	[MSE] = {PLOT_BLACK, 1, 2.5, "MSE"},
	[BIAS] = {PLOT_ORANGE, 2, 2.0, "bias" PLOT_SQUARED},
	[VARIANCE] = {PLOT_GREEN, 3, 2.0, "variance"},
	[COVARIANCE] = {PLOT_PURPLE, 4, 2.0, "covariance"},
};

static void draw_curves(const struct landscape *l)
{
	for (int k = CURVES - 1; k >= 0; k--) {
		plot_pen(look[k].colour, look[k].style, look[k].width);
		plot_polyline(l->line_x[k], l->line_y[k], l->line_n[k]);
	}
	plot_style(1, 1.0);
}

static void landscape_legend(const struct landscape *l)
{
	struct plot_legend g = {0};
	plot_legend_entry(&g, PL_LEGEND_LINE, PLOT_BLACK, 1, 2.5, NULL, 1.0, "MSE");
	if (l->count <= MARKER_LIMIT)
		plot_legend_entry(&g, PL_LEGEND_SYMBOL, PLOT_BLUE, 1, 1.0, PLOT_DISC_GLYPH,
		                  1.0, "feasible divisor");
	if (l->feasible_count < l->count && l->count <= MARKER_LIMIT)
		plot_legend_entry(&g, PL_LEGEND_SYMBOL, PLOT_GREY, 1, 1.0, PLOT_DISC_GLYPH,
		                  1.0, "infeasible divisor");
	if (l->count <= MARKER_LIMIT && l->mse_off_axis)
		plot_legend_entry(&g, PL_LEGEND_SYMBOL, PLOT_BLUE, 1, 1.0, PLOT_UP_GLYPH,
		                  1.0, "MSE off the axis");
	plot_legend_entry(&g, PL_LEGEND_SYMBOL, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH,
	                  1.0, "integer optimum (d#dk#u = %" PRIu64 ")",
	                  l->sol.optimum.head_dim);
	plot_legend_entry(&g, PL_LEGEND_LINE, PLOT_VERMILION, 2, 1.5, NULL, 1.0,
	                  "relaxed optimum (d#dk#u = %.4g)", l->sol.relaxed.head_dim);
	for (int k = BIAS; k < CURVES; k++)
		plot_legend_entry(&g, PL_LEGEND_LINE, look[k].colour, look[k].style, look[k].width,
		                  NULL, 1.0, "%s%s", look[k].name,
		                  k == COVARIANCE && l->covariance_zero ? " = 0" : "");
	plot_legend_draw(&g, PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.025, 0.06, 0, 0,
	                 0.75, 2.0);
}

static void draw_landscape(struct plot_canvas *c, const void *data)
{
	const struct landscape *l = data;
	const struct ha_plot_allocation_request *req = l->req;
	const struct ha_solution *sol = &l->sol;
	plot_panel(c, 0.075, 0.66, 0.27, 0.82, l->x0, l->x1, l->y0, l->y1, 1, 0);

	/* The relaxed optimum under everything else. */
	double xr = log10(sol->relaxed.head_dim);
	plot_pen(PLOT_VERMILION, 2, 1.5);
	plot_segment(xr, l->y0, xr, l->y1);
	draw_curves(l);

	if (l->count <= MARKER_LIMIT)
		for (size_t i = 0; i < l->count; i++) {
			double y = l->y[MSE][i];
			plcol0(req->allocation->divisors[i].feasible ? PLOT_BLUE : PLOT_GREY);
			/* a value off the window: an arrowhead at the edge it passes */
			plot_mark(c, l->x[i], y, (y > l->y1) - (y < l->y0), 4.0);
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
	landscape_legend(l);

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
	enum ha_status st = plot_check(target, req && req->model && req->budget >= 1 &&
	                               req->budget <= HA_BUDGET_MAX &&
	                               ha_model_validate(req->model) == HA_OK &&
	                               ha_constraints_validate(req->constraints) == HA_OK,
	                               "a landscape needs a valid model, budget and constraints",
	                               err);
	if (st != HA_OK)
		return st;
	struct landscape l = {.req = req};
	st = compute(&l, err);
	if (st == HA_OK) {
		choose_window(&l);
		st = plot_render(target, 1200, 800, draw_landscape, &l, err);
	}
	free(l.block);
	return st;
}

/* ---- the grouped front ------------------------------------------------------------- */

struct front {
	const struct ha_plot_grouped_request *req;
	const struct ha_grouped_solution *sol;
	double *x, *y;      /* log10 bytes a token, log10 loss ratio (y in x's block) */
	size_t n;
	double x0, x1, y0, y1;
	int has_pick;       /* a --max-loss-ratio with an entry within it */
	int unconstrained_on_front; /* the unconstrained optimum meets the KV constraints */
};

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
	f->x = malloc(2 * f->n * sizeof *f->x);
	if (!f->x)
		return ha_fail(err, HA_ENOMEM, "drawing the front: %s",
		               ha_status_str(HA_ENOMEM));
	f->y = f->x + f->n;
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

static void front_legend(const struct front *f)
{
	const struct ha_grouped_allocation *o = &f->sol->optimum;
	struct plot_legend l = {0};
	plot_legend_entry(&l, PL_LEGEND_LINE, PLOT_BLACK, 1, 2.0, NULL, 1.0, "the front");
	if (f->n <= MARKER_LIMIT)
		plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_BLUE, 1, 1.0, PLOT_DISC_GLYPH,
		                  1.0, "a non-dominated (H, G, d#dk#u)");
	plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_VERMILION, 1, 1.0, PLOT_DISC_GLYPH,
	                  1.4, "optimum (H %" PRIu64 ", G %" PRIu64 ", d#dk#u %" PRIu64 ")",
	                  o->heads, o->kv_heads, o->head_dim);
	if (f->has_pick) {
		const struct ha_grouped_allocation *p = &f->sol->front[f->sol->chosen];
		plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_GREEN, 1, 1.0, PLOT_DISC_GLYPH,
		                  1.4, "pick (H %" PRIu64 ", G %" PRIu64 ", d#dk#u %" PRIu64 ")",
		                  p->heads, p->kv_heads, p->head_dim);
	}
	if (f->req->max_loss_ratio > 0.0)
		plot_legend_entry(&l, PL_LEGEND_LINE, PLOT_GREEN, 2, 1.5, NULL, 1.0,
		                  "--max-loss-ratio %.4g", f->req->max_loss_ratio);
	plot_legend_entry(&l, PL_LEGEND_LINE, PLOT_GREY, 3, 1.5, NULL, 1.0,
	                  "ratio 1: unconstrained");
	if (!f->unconstrained_on_front)
		plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_GREY, 1, 1.0, PLOT_DISC_GLYPH,
		                  1.0, "unconstrained optimum");
	plot_legend_draw(&l, PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.025, 0.06, 0, 0,
	                 0.75, 2.0);
}

static void draw_front(struct plot_canvas *c, const void *data)
{
	const struct front *f = data;
	const struct ha_plot_grouped_request *req = f->req;
	const struct ha_grouped_solution *sol = f->sol;
	plot_panel(c, 0.085, 0.62, 0.27, 0.84, f->x0, f->x1, f->y0, f->y1, 1, 1);

	plot_rule(f->x0, 0.0, f->x1, 0.0, PLOT_GREY, 3, 1.5);
	if (req->max_loss_ratio > 0.0)
		plot_rule(f->x0, log10(req->max_loss_ratio), f->x1, log10(req->max_loss_ratio),
		          PLOT_GREEN, 2, 1.5);
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
	front_legend(f);

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
	enum ha_status st = plot_check(target, req && req->model && req->solution &&
	                               req->solution->front && req->solution->front_count &&
	                               ha_model_validate(req->model) == HA_OK &&
	                               (req->max_loss_ratio == 0.0 || req->max_loss_ratio >= 1.0),
	                               "a front's picture needs a valid model and a grouped "
	                               "solution with its front", err);
	if (st != HA_OK)
		return st;
	struct front f = {.req = req, .sol = req->solution};
	st = collect(&f, err);
	if (st == HA_OK)
		st = plot_render(target, 1200, 800, draw_front, &f, err);
	free(f.x);
	return st;
}
