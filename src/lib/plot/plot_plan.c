/* Picture 8: a plan (headalloc-model(7), PLANNING): each candidate run's
 * value for the decision against its cost on a log axis, one colour per
 * sample size n, each value with its Monte-Carlo standard error as a
 * bar, the picks ringed in black and numbered, the stop threshold a dashed line.
 * An initial design has no values: its candidates lie on 0, the design's
 * runs ringed.  It draws the plan as it is and computes nothing. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"

/* At most this many distinct n get a colour and a legend entry each. */
#define SAMPLE_COLOURS 8

struct picture {
	const struct ha_plot_plan_request *req;
	const struct ha_plan *plan;
	double *x;          /* log10 cost */
	size_t *colour;     /* category of the candidate's n */
	double samples[SAMPLE_COLOURS];
	size_t sample_count;
	int more_samples;   /* more distinct n than colours */
	double x0, x1, y0, y1;
};

static size_t sample_category(struct picture *p, double n)
{
	for (size_t i = 0; i < p->sample_count; i++)
		if (fabs(p->samples[i] - n) <= 1e-9 * n)
			return i;
	if (p->sample_count == SAMPLE_COLOURS) {
		p->more_samples = 1;
		return SAMPLE_COLOURS - 1;
	}
	p->samples[p->sample_count] = n;
	return p->sample_count++;
}

static double value_of(const struct ha_plan *plan, size_t i)
{
	return plan->initial ? 0.0 : plan->candidates[i].value;
}

static enum ha_status collect(struct picture *p, struct ha_error *err)
{
	const struct ha_plan *plan = p->plan;
	size_t n = plan->candidate_count;
	p->x = malloc(n * sizeof *p->x);
	p->colour = malloc(n * sizeof *p->colour);
	if (!p->x || !p->colour)
		return ha_fail(err, HA_ENOMEM, "drawing the plan: %s",
		               ha_status_str(HA_ENOMEM));
	double lo = INFINITY, hi = -INFINITY, ylo = 0.0, yhi = plan->stop_below;
	for (size_t i = 0; i < n; i++) {
		const struct ha_plan_value *v = &plan->candidates[i];
		if (!(v->run.cost > 0.0 && isfinite(v->run.cost)) ||
		    !isfinite(v->value) || !isfinite(v->value_se))
			return ha_fail(err, HA_EINVAL, "drawing the plan: candidate %zu "
			               "has no finite cost or value", i + 1);
		p->x[i] = log10(v->run.cost);
		p->colour[i] = sample_category(p, v->run.samples);
		lo = fmin(lo, p->x[i]);
		hi = fmax(hi, p->x[i]);
		double y = value_of(plan, i), se = plan->initial ? 0.0 : v->value_se;
		ylo = fmin(ylo, y - se);
		yhi = fmax(yhi, y + se);
	}
	double xspan = fmax(hi - lo, 1.0), yspan = fmax(yhi - ylo, 0.02);
	p->x0 = lo - 0.06 * xspan;
	p->x1 = hi + 0.06 * xspan;
	p->y0 = ylo - 0.06 * yspan;
	p->y1 = yhi + 0.1 * yspan;
	return HA_OK;
}

static void draw_legend(const struct picture *p)
{
	struct plot_legend l = {0};
	for (size_t i = 0; i < p->sample_count; i++)
		plot_legend_entry(&l, PL_LEGEND_SYMBOL, plot_category(i, p->sample_count), 1,
		                  1.0, PLOT_DISC_GLYPH, 1.0, "n = %.4g%s", p->samples[i],
		                  p->more_samples && i + 1 == p->sample_count ? " and more" : "");
	plot_legend_entry(&l, PL_LEGEND_SYMBOL, PLOT_BLACK, 1, 1.0, PLOT_RING_GLYPH, 1.6,
	                  "%s", p->plan->initial ? "the initial design" : "a pick (its place)");
	if (!p->plan->initial)
		plot_legend_entry(&l, PL_LEGEND_LINE, PLOT_GREEN, 2, 1.5, NULL, 1.0,
		                  "--stop-below");
	plot_legend_draw(&l, PL_POSITION_OUTSIDE | PL_POSITION_RIGHT, 0.025, 0.06, 0, 0,
	                 0.75, 2.0);
}

static void draw_candidates(struct plot_canvas *c, const struct picture *p)
{
	const struct ha_plan *plan = p->plan;
	for (size_t i = 0; i < plan->candidate_count; i++) {
		double y = value_of(plan, i);
		if (!plan->initial && plan->candidates[i].value_se > 0.0) {
			double se = plan->candidates[i].value_se;
			plcol0(PLOT_GREY);
			plot_segment(p->x[i], y - se, p->x[i], y + se);
		}
		plot_category(p->colour[i], p->sample_count);
		plot_disc(c, p->x[i], y, 4.0, 0);
	}
	for (size_t i = 0; i < plan->candidate_count; i++) {
		size_t k = plan->candidates[i].picked;
		if (!k)
			continue;
		double y = value_of(plan, i);
		plcol0(PLOT_BLACK);
		plwidth(2.0);
		plot_ring(c, p->x[i], y, 9.0, 32);
		plwidth(1.0);
		plot_ptex(p->x[i] + 12.0 * plot_px_x(c), y + 10.0 * plot_px_y(c), 0.0,
		          "%zu", k);
	}
}

static void draw_captions(struct plot_canvas *c, const struct picture *p)
{
	const struct ha_plan *plan = p->plan;
	const struct ha_plan_decision *d = &plan->decision;
	if (d->defined)
		plot_caption(c, 0, "decision: %" PRIu64 " heads " PLOT_TIMES " d#dk#u = %"
		             PRIu64 " (%" PRIu64 " kv heads), optimal with probability "
		             "%.3f, expected regret %.4g", d->heads, d->head_dim,
		             d->kv_heads, d->p_correct, d->expected_regret);
	else
		plot_caption(c, 0, "decision: undefined, no fit yet: an initial design "
		             "of %zu runs", plan->pick_count);
	if (!plan->initial)
		plot_caption(c, 1, "%s", plan->stop
		             ? "no candidate is worth more than --stop-below: train the "
		               "target now"
		             : "the picks maximise the batch's value per unit cost");
	const struct ha_plan_method *m = &plan->method;
	if (!plan->initial)
		plot_caption(c, 2, "value: the expected rise of P(right decision), "
		             "%zu simulated outcomes a run over %zu posterior samples "
		             "(bars: " PLOT_PLUSMINUS "1 s.e.)", m->outcomes, m->samples);
	plot_caption(c, 3, "%zu candidates; cost %s", plan->candidate_count,
	             m->cost == HA_PLAN_COST_TOKENS ? "n (tokens)"
	             : m->model_dim ? "6 P n (attention parameters " PLOT_TIMES " tokens)"
	                            : "D n (budget " PLOT_TIMES " tokens)");
}

static void draw(struct plot_canvas *c, const void *data)
{
	const struct picture *p = data;
	const struct ha_plan *plan = p->plan;
	plot_panel(c, 0.085, 0.66, 0.27, 0.84, p->x0, p->x1, p->y0, p->y1, 1, 0);
	plot_rule(p->x0, 0.0, p->x1, 0.0, PLOT_GREY, 3, 1.5);
	if (!plan->initial)
		plot_rule(p->x0, plan->stop_below, p->x1, plan->stop_below, PLOT_GREEN, 2, 1.5);
	draw_candidates(c, p);
	plot_box(c, "bcnstl", "bcnstv");
	plcol0(PLOT_BLACK);
	plot_mtex("b", 3.0, 0.5, 0.5, "cost of the run (log scale)");
	plot_mtex("l", 4.6, 0.5, 0.5, "value: expected rise of P(right decision)");
	draw_legend(p);
	char file[80] = "";
	if (p->req->runs_file)
		plot_escape(file, sizeof file, p->req->runs_file, 60);
	plot_title(c, "Which run next: D = %" PRIu64 " at n = %.6g%s%s",
	           plan->budget, plan->samples, file[0] ? ", runs of " : "", file);
	draw_captions(c, p);
}

enum ha_status ha_plot_plan(struct ha_plot_target *target,
                            const struct ha_plot_plan_request *req,
                            struct ha_error *err)
{
	enum ha_status st = plot_check(target, req && req->plan && req->plan->candidate_count &&
	                               req->plan->candidates, "a plan's picture needs a plan "
	                               "with its candidates (not --next 0)", err);
	if (st != HA_OK)
		return st;
	struct picture p = {.req = req, .plan = req->plan};
	st = collect(&p, err);
	if (st == HA_OK)
		st = plot_render(target, 1200, 800, draw, &p, err);
	free(p.x);
	free(p.colour);
	return st;
}
