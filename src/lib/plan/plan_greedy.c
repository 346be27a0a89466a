/* The plan: every candidate valued alone (for the picture and the
 * stop), then a batch picked greedily, each pick the candidate that
 * maximises the value per unit cost of the batch so far with it, the
 * earlier picks' outcomes simulated jointly with its own (the same
 * sample j_o, an independent noise a run).  --next K picks K at most;
 * --spend C picks while the batch's cost stays within C. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

struct greedy {
	const struct plan_frame *f;
	const double *mu;    /* C x S */
	size_t *drawn;       /* O */
	double *eps;         /* O */
	double *prior;       /* O x S: the batch's log-likelihood (NULL at first) */
	double *next_prior;  /* O x S: where the next pick's goes */
	double *buffer[2];   /* the two of them */
	double p0;
};

static int progress(const struct ha_plan_options *o, uint64_t done,
                    uint64_t total)
{
	return o->progress.fn && o->progress.fn(o->progress.ctx, "candidates",
	                                        done, total) != 0;
}

/* Every candidate alone: plan->candidates' values. */
static enum ha_status value_alone(struct greedy *g, const struct ha_plan_options *o,
                                  struct ha_plan *plan, struct ha_error *err)
{
	const struct plan_frame *f = g->f;
	size_t S = f->post->count;
	plan->stop = 1;
	for (size_t c = 0; c < plan->candidate_count; c++) {
		struct plan_outcome_stats st;
		plan_batch_value(f, NULL, g->drawn, g->mu + c * S, g->eps, NULL, &st);
		struct ha_plan_value *v = &plan->candidates[c];
		v->value = st.p_after - g->p0;
		v->value_se = st.p_after_se;
		v->value_per_cost = v->value / v->run.cost;
		v->ess_mean = st.ess_mean;
		v->degenerate = st.degenerate;
		plan->method.degenerate += st.degenerate;
		plan->method.evaluations += f->outcomes;
		if (v->value > o->stop_below)
			plan->stop = 0;
		if (progress(o, c + 1, plan->candidate_count))
			return ha_fail(err, HA_ECANCELED, "planning cancelled");
	}
	return HA_OK;
}

/* The criterion of a batch: its value (clipped at 0) over its cost. */
static double criterion(double p_after, double p0, double cost)
{
	double v = p_after - p0;
	return (v > 0.0 ? v : 0.0) / cost;
}

/* Pick k: the best candidate not yet picked that fits the spend; SIZE_MAX
 * when none. */
static size_t choose(struct greedy *g, const struct ha_plan_options *o,
                     struct ha_plan *plan, size_t k, double batch_cost,
                     double *best_crit)
{
	const struct plan_frame *f = g->f;
	size_t S = f->post->count, best = SIZE_MAX;
	double best_cost = INFINITY;
	*best_crit = -1.0;
	for (size_t c = 0; c < plan->candidate_count; c++) {
		const struct ha_plan_value *v = &plan->candidates[c];
		if (v->picked)
			continue;
		double cost = batch_cost + v->run.cost;
		if (o->spend > 0.0 && cost > o->spend)
			continue;
		double p_after;
		if (k == 0) {
			p_after = v->value + g->p0;
		} else {
			struct plan_outcome_stats st;
			plan_batch_value(f, g->prior, g->drawn, g->mu + c * S, g->eps,
			                 NULL, &st);
			plan->method.degenerate += st.degenerate;
			plan->method.evaluations += f->outcomes;
			p_after = st.p_after;
		}
		double crit = criterion(p_after, g->p0, cost);
		if (crit > *best_crit ||
		    (crit == *best_crit && v->run.cost < best_cost)) {
			best = c;
			*best_crit = crit;
			best_cost = v->run.cost;
		}
	}
	return best;
}

static size_t pick_limit(const struct ha_plan_options *o, size_t candidates)
{
	size_t k = o->next;
	if (o->spend > 0.0 && k == 0)
		k = HA_PLAN_PICKS_MAX;
	return k < candidates ? k : candidates;
}

static void pick_all(struct greedy *g, const struct ha_plan_options *o,
                     struct ha_plan *plan)
{
	const struct plan_frame *f = g->f;
	size_t S = f->post->count, limit = pick_limit(o, plan->candidate_count);
	double batch_cost = 0.0, p_before = g->p0;
	for (size_t k = 0; k < limit; k++) {
		if (k > 0)
			plan_draw_noise(f, k, g->eps);
		double crit;
		size_t c = choose(g, o, plan, k, batch_cost, &crit);
		if (c == SIZE_MAX)
			break;
		struct plan_outcome_stats st;
		plan_batch_value(f, g->prior, g->drawn, g->mu + c * S, g->eps,
		                 g->next_prior, &st);
		g->prior = g->next_prior;
		g->next_prior = g->next_prior == g->buffer[0] ? g->buffer[1]
		                                              : g->buffer[0];
		struct ha_plan_value *v = &plan->candidates[c];
		v->picked = k + 1;
		batch_cost += v->run.cost;
		struct ha_plan_pick *p = &plan->picks[plan->pick_count++];
		memset(p, 0, sizeof *p);
		p->run = v->run;
		p->value = st.p_after - p_before;
		p->value_se = st.p_after_se;
		p->value_per_cost = crit;
		p->batch_cost = batch_cost;
		p->p_correct_before = p_before;
		p->p_correct_after = st.p_after;
		p->expected_regret_after = st.regret_after;
		p->degenerate = st.degenerate;
		p_before = st.p_after;
	}
}

enum ha_status plan_greedy(const struct plan_frame *f,
                           const struct ha_plan_options *o,
                           const double *cand_mu, struct ha_plan *plan,
                           struct ha_error *err)
{
	size_t S = f->post->count, O = f->outcomes;
	struct greedy g = {.f = f, .mu = cand_mu, .p0 = plan->decision.p_correct};
	g.drawn = malloc(O * sizeof *g.drawn);
	g.eps = malloc(O * sizeof *g.eps);
	g.buffer[0] = malloc(O * S * sizeof *g.buffer[0]);
	g.buffer[1] = malloc(O * S * sizeof *g.buffer[1]);
	g.next_prior = g.buffer[0];
	size_t limit = pick_limit(o, plan->candidate_count);
	plan->picks = calloc(limit ? limit : 1, sizeof *plan->picks);
	enum ha_status st = HA_OK;
	if (!g.drawn || !g.eps || !g.buffer[0] || !g.buffer[1] || !plan->picks) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	plan_draw_samples(f, g.drawn);
	plan_draw_noise(f, 0, g.eps);
	st = value_alone(&g, o, plan, err);
	if (st == HA_OK)
		pick_all(&g, o, plan);
out:
	free(g.drawn);
	free(g.eps);
	free(g.buffer[0]);
	free(g.buffer[1]);
	return st;
}
