/* Picture 2: a sweep.  Against n: the optimal head_dim of each budget
 * (the exact integer steps, from the regimes, and the relaxed optimum;
 * of a grouped sweep, over (H, G, d), each step labelled "d, G")
 * with the scaling laws of headalloc-model(7), SCALING LAWS fitted as the report fits them, and
 * the seeds' claimed exponent.  Against D when there is one n.  Every
 * number is the picture data's (ha_sweep_picture_new, sweep_picture.h);
 * this file maps them onto the axes and draws. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/fit.h>
#include <headalloc/regime.h>
#include <headalloc/sweep_picture.h>

#include <plplot.h>

#include "plot_internal.h"

/* Points of each smooth curve, log-spaced over the axis. */
#define CURVE_POINTS HA_SWEEP_PICTURE_CURVE_POINTS

enum { FIT_POWER, FIT_LOG, FIT_CLAIM, FITS };

/* One budget's lines (against n), or the one line of each kind (against
 * D); each pair of arrays is one allocation, the second in the first's. */
struct series {
	const struct ha_sweep_picture_series *data; /* its budget, fits, rows */
	double *step_x, *step_y;  /* the integer optimum */
	size_t step_n;
	uint64_t *step_d, *step_kv; /* grouped: each step's d and G (step_n / 2) */
	double *mark_x, *mark_y;  /* the integer optimum at the request's points */
	size_t mark_n;
	double relaxed_x[CURVE_POINTS], relaxed_y[CURVE_POINTS];
	double fit_y[FITS][CURVE_POINTS]; /* NAN where a fit does not exist */
};

struct sweep {
	const struct ha_sweep_picture *picture;
	const struct ha_sweep_request *req; /* the picture's problem */
	int against_budget;   /* one n, several budgets */
	size_t count;         /* series */
	struct series *series;
	double x0, x1, y0, y1;
	int y_log;
	int grouped;          /* the rows are over (H, G, d): labelled "d, G" */
};

static void free_sweep(struct sweep *s)
{
	for (size_t i = 0; s->series && i < s->count; i++) {
		free(s->series[i].step_x);
		free(s->series[i].step_d);
		free(s->series[i].mark_x);
	}
	free(s->series);
}

/* ---- against n --------------------------------------------------------------- */

/* The integer optimum of one budget over [lo, hi] (ln n) as steps, from
 * the budget's regimes. */
static enum ha_status steps(struct series *s, const struct ha_budget_regimes *g,
                            double lo, double hi)
{
	size_t count = g->count;
	s->step_x = malloc(4 * count * sizeof *s->step_x);
	s->step_d = malloc(2 * count * sizeof *s->step_d);
	if (!s->step_x || !s->step_d)
		return HA_ENOMEM;
	s->step_y = s->step_x + 2 * count;
	s->step_kv = s->step_d + count;
	for (size_t i = 0; i < count; i++) {
		double from = fmax(g->regimes[i].log_samples_from, lo);
		double to = fmin(g->regimes[i].log_samples_to, hi);
		if (!(from < to))
			continue;
		double d = (double)g->regimes[i].head_dim;
		s->step_d[s->step_n / 2] = g->regimes[i].head_dim;
		s->step_kv[s->step_n / 2] = g->regimes[i].kv_heads;
		s->step_x[s->step_n] = from / log(10.0);
		s->step_y[s->step_n++] = d;
		s->step_x[s->step_n] = to / log(10.0);
		s->step_y[s->step_n++] = d;
	}
	return HA_OK;
}

/* One budget against n: steps, marks, the relaxed curve and the fits,
 * in the axes' units, from the picture's data. */
static enum ha_status budget_series(struct sweep *sw, struct series *s,
                                    const struct ha_sweep_picture_series *data)
{
	const struct ha_sweep_picture *p = sw->picture;
	s->data = data;
	enum ha_status st = steps(s, data->regimes, log(p->samples_low),
	                          log(p->samples_high));
	size_t ns = data->row_count;
	if (st == HA_OK && ns) {
		s->mark_x = malloc(2 * ns * sizeof *s->mark_x);
		s->mark_y = s->mark_x ? s->mark_x + ns : NULL;
		st = s->mark_x ? HA_OK : HA_ENOMEM;
	}
	for (size_t k = 0; st == HA_OK && k < ns; k++) {
		s->mark_x[s->mark_n] = log10(data->rows[k].samples);
		s->mark_y[s->mark_n++] = (double)data->rows[k].head_dim;
	}
	int ok = data->fit_status == HA_OK;
	for (size_t i = 0; st == HA_OK && i < CURVE_POINTS; i++) {
		double ln_n = data->curve_log_samples[i];
		s->relaxed_x[i] = ln_n / log(10.0);
		s->relaxed_y[i] = data->curve_relaxed_head_dim[i];
		double lnln = log(ln_n);
		s->fit_y[FIT_POWER][i] = ok ? exp(data->power.intercept + data->power.slope * lnln) : NAN;
		s->fit_y[FIT_LOG][i] = ok ? data->log_law.intercept + data->log_law.slope * ln_n : NAN;
		s->fit_y[FIT_CLAIM][i] = ok ? exp(data->claim_intercept + data->claimed * lnln) : NAN;
	}
	return st;
}

/* ---- against D ----------------------------------------------------------------- */

/* One n, several budgets: the optima at each D, the relaxed optimum
 * between them, and d = D / H* from the fitted ln H* = ln c + e ln D. */
static enum ha_status budget_line(struct series *s,
                                  const struct ha_sweep_picture_series *data)
{
	size_t nb = data->row_count;
	s->data = data;
	s->mark_x = malloc(4 * nb * sizeof *s->mark_x);
	if (!s->mark_x)
		return HA_ENOMEM;
	s->mark_y = s->mark_x + 2 * nb;
	/* marks: the integer optimum at each D; after them, the relaxed. */
	for (size_t i = 0; i < nb; i++) {
		s->mark_x[i] = log10((double)data->rows[i].budget);
		s->mark_y[i] = (double)data->rows[i].head_dim;
		s->mark_x[nb + i] = s->mark_x[i];
		s->mark_y[nb + i] = data->rows[i].relaxed_head_dim;
	}
	s->mark_n = nb;
	int ok = data->fit_status == HA_OK;
	double lo = log((double)data->rows[0].budget);
	double hi = log((double)data->rows[nb - 1].budget);
	for (int j = 0; j < CURVE_POINTS; j++) {
		double ln_d = lo + (hi - lo) * j / (CURVE_POINTS - 1);
		s->relaxed_x[j] = ln_d / log(10.0);
		s->relaxed_y[j] = NAN; /* the relaxed optimum is marked */
		/* d = D / H = exp(ln D - ln c - e ln D) */
		s->fit_y[FIT_POWER][j] = ok ? exp(ln_d - data->power.intercept - data->power.slope * ln_d) : NAN;
		s->fit_y[FIT_LOG][j] = NAN;
		s->fit_y[FIT_CLAIM][j] = ok ? exp(-data->claim_intercept) : NAN;
	}
	return HA_OK;
}

/* ---- the window ---------------------------------------------------------------- */

static void extend(double *lo, double *hi, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > 0) {
			*lo = fmin(*lo, v[i]);
			*hi = fmax(*hi, v[i]);
		}
}

/* y spans the optima and the fits; a log axis when they span more than
 * a factor 30. */
static void choose_window(struct sweep *sw, double x_lo, double x_hi)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t b = 0; b < sw->count; b++) {
		struct series *s = &sw->series[b];
		extend(&lo, &hi, s->step_y, s->step_n);
		extend(&lo, &hi, s->mark_y, sw->against_budget ? 2 * s->mark_n : s->mark_n);
		extend(&lo, &hi, s->relaxed_y, CURVE_POINTS);
		for (int k = 0; k < FITS; k++)
			extend(&lo, &hi, s->fit_y[k], CURVE_POINTS);
	}
	sw->y_log = hi / lo > 30.0;
	if (sw->y_log) {
		lo = log10(lo);
		hi = log10(hi);
	}
	if (hi - lo < 1.0) {
		double mid = 0.5 * (hi + lo);
		lo = mid - 0.5;
		hi = mid + 0.5;
	}
	double pad = 0.06 * (hi - lo);
	sw->y0 = sw->y_log ? lo - pad : fmax(lo - pad, 0.0);
	sw->y1 = hi + pad;
	double xpad = fmax(0.03 * (x_hi - x_lo), 0.05);
	sw->x0 = x_lo - xpad;
	sw->x1 = x_hi + xpad;
}

/* Every y in axis units: log10 on a log axis. */
static void map_to_axis(struct sweep *sw)
{
	if (!sw->y_log)
		return;
	for (size_t b = 0; b < sw->count; b++) {
		struct series *s = &sw->series[b];
		for (size_t i = 0; i < s->step_n; i++)
			s->step_y[i] = log10(s->step_y[i]);
		size_t marks = sw->against_budget ? 2 * s->mark_n : s->mark_n;
		for (size_t i = 0; i < marks; i++)
			s->mark_y[i] = log10(s->mark_y[i]);
		for (int i = 0; i < CURVE_POINTS; i++) {
			s->relaxed_y[i] = log10(s->relaxed_y[i]);
			for (int k = 0; k < FITS; k++)
				s->fit_y[k][i] = log10(s->fit_y[k][i]);
		}
	}
}

/* ---- drawing -------------------------------------------------------------------- */

/* Each kind of line, and its label in the legend (against n, of a
 * grouped sweep where it differs, against D: NULL, none). */
static const struct {
	PLINT line;
	double width;
	const char *label, *grouped, *against_budget;
} looks[] = {
	{1, 3.0, "integer optimum (exact steps)", "integer optimum, labelled d#dk#u, G",
	 "integer optimum d#dk#u*"},
	{1, 1.2, "relaxed optimum", "relaxed optimum over (d#dk#u, G)", "relaxed optimum"},
	{4, 1.5, "fit ln d = ln a + b ln ln n", NULL, "fit ln H = ln c + e ln D"},
	{5, 1.5, "fit d = p + q ln n", NULL, NULL},
	{2, 1.5, "seeds' b = 2/(4+s), fitted a", NULL, "seeds' e = 1, fitted c"},
};

static void draw_legend(const struct sweep *sw)
{
	struct plot_legend l = {.max = 24}; /* as many as fit beside the panel */
	for (size_t k = 0; k < sizeof looks / sizeof *looks; k++) {
		const char *label = sw->grouped && looks[k].grouped ? looks[k].grouped
		                    : sw->against_budget ? looks[k].against_budget
		                                         : looks[k].label;
		/* the key to the styles in grey: black may be a budget's;
		 * against D, the optima are marks in colour */
		int opt = PL_LEGEND_LINE, colour = PLOT_DARK_GREY;
		const char *symbol = NULL;
		if (sw->against_budget && k == 0) {
			opt = PL_LEGEND_SYMBOL;
			colour = PLOT_BLUE;
			symbol = PLOT_DISC_GLYPH;
		} else if (sw->against_budget && k == 1) {
			opt |= PL_LEGEND_SYMBOL;
			colour = PLOT_VERMILION;
			symbol = PLOT_RING_GLYPH;
		}
		if (label)
			plot_legend_entry(&l, opt, colour, looks[k].line, looks[k].width, symbol,
			                  1.0, "%s", label);
	}
	for (size_t b = 0; !sw->against_budget && b < sw->count; b++)
		plot_legend_entry(&l, PL_LEGEND_LINE, plot_category(b, sw->count), 1, 3.0, NULL,
		                  1.0, "D = %" PRIu64, sw->picture->series[b].budget);
	plot_legend_draw(&l, PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.025, 0.06, 0, 0,
	                 0.7, 2.0);
}

/* A grouped sweep's integer optimum named "d, G": over each step wide
 * enough for it (against n, a budget's labels a row above the previous
 * budget's), or over each disc (against D). */
static void label_grouped(const struct plot_canvas *c, const struct sweep *sw,
                          size_t b)
{
	const struct series *s = &sw->series[b];
	double px = plot_px_x(c), py = plot_px_y(c);
	char label[48];
	plschr(0.0, 0.65);
	if (sw->against_budget) {
		const struct ha_sweep_picture_series *data = &sw->picture->series[0];
		for (size_t i = 0; i < s->mark_n; i++) {
			/* the ends' labels inward, inside the axes */
			double just = i == 0 ? 0.1 : i + 1 == s->mark_n ? 0.9 : 0.5;
			plot_ptex(s->mark_x[i], s->mark_y[i] + 14.0 * py, just, "%" PRIu64 ", G %"
			          PRIu64, data->rows[i].head_dim, data->rows[i].kv_heads);
		}
	} else {
		for (size_t i = 0; 2 * i + 1 < s->step_n; i++) {
			double from = s->step_x[2 * i], to = s->step_x[2 * i + 1];
			snprintf(label, sizeof label, "%" PRIu64 ", G %" PRIu64,
			         s->step_d[i], s->step_kv[i]);
			if ((to - from) / px > 7.0 * (double)strlen(label) + 6.0)
				plot_ptex(0.5 * (from + to), s->step_y[2 * i] +
				          (12.0 + 14.0 * (double)b) * py, 0.5, "%s", label);
		}
	}
	plschr(0.0, 0.8);
}

static void draw_series(const struct plot_canvas *c, const struct sweep *sw,
                        size_t b)
{
	const struct series *s = &sw->series[b];
	if (sw->against_budget) {
		plcol0(PLOT_VERMILION);
		plot_style(1, 1.5);
		plot_polyline(s->mark_x, s->mark_y + s->mark_n, s->mark_n);
		for (size_t i = 0; i < s->mark_n; i++) {
			plcol0(PLOT_VERMILION);
			plot_disc(c, s->mark_x[i], s->mark_y[s->mark_n + i], 5.0, 0);
			plcol0(PLOT_WHITE);
			plot_disc(c, s->mark_x[i], s->mark_y[s->mark_n + i], 2.5, 0);
		}
		plcol0(PLOT_BLUE);
		for (size_t i = 0; i < s->mark_n; i++)
			plot_disc(c, s->mark_x[i], s->mark_y[i], 5.0, 0);
		if (sw->grouped)
			label_grouped(c, sw, b);
		plcol0(PLOT_BLACK);
	} else {
		plot_category(b, sw->count);
		/* budgets that share a step stay visible: the later, the
		 * thinner, drawn over the earlier */
		plot_style(1, sw->count > 1 ? 6.0 - 4.0 * (double)b / (double)(sw->count - 1) : 3.0);
		plot_polyline(s->step_x, s->step_y, s->step_n);
		plot_style(1, 1.2);
		plot_polyline(s->relaxed_x, s->relaxed_y, CURVE_POINTS);
		for (size_t i = 0; i < s->mark_n; i++)
			plot_disc(c, s->mark_x[i], s->mark_y[i], 3.5, 0);
		if (sw->grouped)
			label_grouped(c, sw, b);
	}
	for (int k = 0; k < FITS; k++) {
		plot_style(looks[2 + k].line, looks[2 + k].width);
		plot_polyline(s->relaxed_x, s->fit_y[k], CURVE_POINTS);
	}
	plot_style(1, 1.0);
}

static void fit_caption(const struct plot_canvas *c, const struct sweep *sw,
                        int line, const struct ha_sweep_picture_series *data)
{
	char law[96];
	if (sw->against_budget)
		snprintf(law, sizeof law, "n = %.6g", sw->picture->samples_low);
	else
		snprintf(law, sizeof law, "D = %" PRIu64, data->budget);
	if (data->fit_status != HA_OK) {
		plot_caption(c, line, "%s: no fit (%s)", law,
		             data->fit_status == HA_EDEGENERATE ? "fewer than 3 distinct points"
		                                                : ha_status_str(data->fit_status));
		return;
	}
	const struct ha_fit_result *r = &data->power;
	const char *name = sw->against_budget ? "e" : "b";
	plot_caption(c, line, "%s: %s = %.4g " PLOT_PLUSMINUS " %.2g (95%% [%.4g, %.4g]),"
	             " R" PLOT_SQUARED " = %.4f; seeds claim %s = %.4g (%s the interval)",
	             law, name, r->slope, r->se_slope, r->slope_low, r->slope_high, r->r2,
	             name, data->claimed,
	             data->claimed >= r->slope_low && data->claimed <= r->slope_high ? "inside"
	                                                                       : "outside");
}

static void draw(struct plot_canvas *c, const void *data)
{
	const struct sweep *sw = data;
	const struct ha_sweep_request *req = sw->req;
	plot_panel(c, 0.075, 0.64, 0.27, 0.86, sw->x0, sw->x1, sw->y0, sw->y1, 1,
	           sw->y_log);
	for (size_t b = 0; b < sw->count; b++)
		draw_series(c, sw, b);
	/* a log axis of a decade or two has one label or none: against D,
	 * each budget is named under its optimum instead */
	int named = sw->against_budget && req->budget_count <= 12;
	plot_box(c, named ? "bcstl" : "bcnstl", sw->y_log ? "bcnstvl" : "bcnstv");
	for (size_t b = 0; named && b < req->budget_count; b++)
		plot_mtex("b", 1.3, (log10((double)req->budgets[b]) - sw->x0) /
		          (sw->x1 - sw->x0), 0.5, "%" PRIu64, req->budgets[b]);
	plcol0(PLOT_BLACK);
	plot_mtex("b", 3.0, 0.5, 0.5, sw->against_budget
	          ? "budget D = H d#dk#u (log scale)" : "samples n (log scale)");
	plot_mtex("l", 3.6, 0.5, 0.5, "optimal head_dim d#dk#u%s",
	          sw->y_log ? " (log scale)" : "");
	draw_legend(sw);

	char model[PLOT_CAPTION_MAX];
	plot_describe_model(model, sizeof model, req->model, req->constraints, NULL);
	const char *grouped = sw->grouped ? " with grouped key heads G" : "";
	if (sw->against_budget)
		plot_title(c, "Optimal head_dim%s against the budget at n = %.6g",
		           grouped, sw->picture->samples_low);
	else
		plot_title(c, "Optimal head_dim%s against n (%zu budget%s, %zu values of n)",
		           grouped, sw->count, sw->count == 1 ? "" : "s", req->samples.count);
	plot_caption(c, 0, "%s", model);
	/* a grouped sweep's KV constraints take the second line */
	int first = 1;
	if (sw->grouped) {
		char kv[PLOT_CAPTION_MAX];
		plot_describe_kv(kv, sizeof kv, req->model, req->kv, req->shape);
		plot_caption(c, first++, "optimum over (H, G key heads, d#dk#u) under %s", kv);
	}
	size_t room = (size_t)(4 - first);
	size_t shown = sw->count <= room ? sw->count : room - 1;
	for (size_t b = 0; b < shown; b++)
		fit_caption(c, sw, first + (int)b, &sw->picture->series[b]);
	if (shown < sw->count)
		plot_caption(c, 3, "... and %zu more budgets: every fit is in the report"
		             " (fits.by_budget)", sw->count - shown);
}

enum ha_status ha_plot_sweep(struct ha_plot_target *target,
                             const struct ha_plot_sweep_request *req,
                             struct ha_error *err)
{
	const struct ha_sweep_picture *p = req ? req->picture : NULL;
	int drawable = p && p->series && p->count &&
	               (p->against_budget ? p->series[0].row_count > 0 : p->regimes != NULL);
	enum ha_status st = plot_check(target, drawable, "a sweep's picture needs its data "
	                               "(ha_sweep_picture_new)", err);
	if (st != HA_OK)
		return st;
	struct sweep sw = {.picture = p, .req = &p->request};
	sw.against_budget = p->against_budget;
	sw.grouped = p->request.kv != NULL;
	sw.count = p->count;
	sw.series = calloc(sw.count, sizeof *sw.series);
	if (!sw.series)
		return ha_fail(err, HA_ENOMEM, "drawing the sweep: %s", ha_status_str(HA_ENOMEM));
	for (size_t b = 0; st == HA_OK && b < sw.count; b++) {
		struct series *s = &sw.series[b];
		st = sw.against_budget ? budget_line(s, &p->series[b])
		                       : budget_series(&sw, s, &p->series[b]);
		if (st != HA_OK)
			st = ha_fail(err, st, "drawing the sweep: %s", ha_status_str(st));
	}
	if (st == HA_OK) {
		/* against D, the rows are in ascending D */
		const struct ha_sweep_picture_series *line = &p->series[0];
		if (sw.against_budget)
			choose_window(&sw, log10((double)line->rows[0].budget),
			              log10((double)line->rows[line->row_count - 1].budget));
		else
			choose_window(&sw, log10(p->samples_low), log10(p->samples_high));
		map_to_axis(&sw);
		st = plot_render(target, 1200, 800, draw, &sw, err);
	}
	free_sweep(&sw);
	return st;
}
