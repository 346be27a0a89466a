/* The plan: every candidate valued alone (for the picture and the
 * stop), then a batch picked greedily, each pick the candidate that
 * maximises the value per unit cost of the batch so far with it, the
 * earlier picks' outcomes simulated jointly with its own (the same
 * sample j_o, an independent noise a run).  --next K picks K at most;
 * --spend C picks while the batch's cost stays within C.
 *
 * Candidates are valued on worker threads (the library's pool), each into its
 * own slot, in chunks between which the calling thread reports progress;
 * the picks are chosen from the slots in the candidates' order, so the
 * plan does not depend on the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "calibrate/calibrate_internal.h"
#include "plan_internal.h"

/* Candidates valued between two progress reports, a thread. */
#define CHUNK 8

struct greedy {
	const struct plan_frame *f;
	const double *mu;    /* C x S */
	size_t *drawn;       /* O */
	double *eps;         /* O */
	double *prior;       /* O x S: the batch's log-likelihood (NULL at first) */
	double *next_prior;  /* O x S: where the next pick's goes */
	double *buffer[2];   /* the two of them */
	double p0;
	size_t threads;
	double *scratch;     /* threads x PLAN_SCRATCH */
	struct plan_outcome_stats *stats; /* C: this round's */
	const struct ha_plan *plan;
	size_t first;        /* the chunk's first candidate */
};

/* A difference of probabilities: what rounding leaves of an exact 0 is
 * 0. */
static double difference(double after, double before)
{
	double d = after - before;
	return fabs(d) < 1e-12 ? 0.0 : d;
}

static enum ha_status value_task(void *ctx, size_t worker, size_t task)
{
	struct greedy *g = ctx;
	size_t c = g->first + task, S = g->f->post->count;
	if (g->plan->candidates[c].picked)
		return HA_OK;
	plan_batch_value(g->f, g->scratch + worker * PLAN_SCRATCH(g->f), g->prior,
	                 g->drawn, g->mu + c * S, g->eps, NULL, &g->stats[c]);
	return HA_OK;
}

static int progress(const struct ha_plan_options *o, uint64_t done,
                    uint64_t total)
{
	return o->progress.fn && o->progress.fn(o->progress.ctx, "candidates",
	                                        done, total) != 0;
}

/* Every unpicked candidate's stats for this round, given the batch's
 * prior; HA_ECANCELED when the progress callback says so. */
static enum ha_status value_round(struct greedy *g, const struct ha_plan_options *o,
                                  struct ha_plan *plan, struct ha_error *err)
{
	size_t C = plan->candidate_count, chunk = CHUNK * g->threads;
	for (g->first = 0; g->first < C; g->first += chunk) {
		size_t n = C - g->first < chunk ? C - g->first : chunk;
		pool_for(n, g->threads, value_task, g, NULL, NULL);
		if (progress(o, g->first + n, C))
			return ha_fail(err, HA_ECANCELED, "planning cancelled");
	}
	for (size_t c = 0; c < C; c++)
		if (!plan->candidates[c].picked) {
			plan->method.degenerate += g->stats[c].degenerate;
			plan->method.evaluations += g->f->outcomes;
		}
	return HA_OK;
}

/* Every candidate alone: plan->candidates' values, and the stop. */
static void value_alone(struct greedy *g, const struct ha_plan_options *o,
                        struct ha_plan *plan)
{
	plan->stop = 1;
	for (size_t c = 0; c < plan->candidate_count; c++) {
		const struct plan_outcome_stats *st = &g->stats[c];
		struct ha_plan_value *v = &plan->candidates[c];
		v->value = difference(st->p_after, g->p0);
		v->value_se = st->p_after_se;
		v->value_per_cost = v->value / v->run.cost;
		v->ess_mean = st->ess_mean;
		v->degenerate = st->degenerate;
		if (v->value > o->stop_below)
			plan->stop = 0;
	}
}

/* The criterion of a batch: its value (clipped at 0) over its cost. */
static double criterion(double p_after, double p0, double cost)
{
	double v = difference(p_after, p0);
	return (v > 0.0 ? v : 0.0) / cost;
}

/* The best candidate of this round not yet picked that fits the spend
 * (ties: the cheaper, then the earlier); SIZE_MAX when none. */
static size_t choose(const struct greedy *g, const struct ha_plan_options *o,
                     const struct ha_plan *plan, double batch_cost,
                     double *best_crit)
{
	size_t best = SIZE_MAX;
	double best_cost = INFINITY;
	*best_crit = -1.0;
	for (size_t c = 0; c < plan->candidate_count; c++) {
		const struct ha_plan_value *v = &plan->candidates[c];
		double cost = batch_cost + v->run.cost;
		if (v->picked || (o->spend > 0.0 && cost > o->spend))
			continue;
		double crit = criterion(g->stats[c].p_after, g->p0, cost);
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

/* Pick c as pick k: its batch's log-likelihood becomes the prior. */
static void take(struct greedy *g, struct ha_plan *plan, size_t c, size_t k,
                 double crit, double *batch_cost, double *p_before)
{
	const struct plan_frame *f = g->f;
	size_t S = f->post->count;
	struct plan_outcome_stats st;
	plan_batch_value(f, g->scratch, g->prior, g->drawn, g->mu + c * S, g->eps,
	                 g->next_prior, &st);
	g->prior = g->next_prior;
	g->next_prior = g->next_prior == g->buffer[0] ? g->buffer[1] : g->buffer[0];
	struct ha_plan_value *v = &plan->candidates[c];
	v->picked = k + 1;
	*batch_cost += v->run.cost;
	struct ha_plan_pick *p = &plan->picks[plan->pick_count++];
	memset(p, 0, sizeof *p);
	p->run = v->run;
	p->value = difference(st.p_after, *p_before);
	p->value_se = st.p_after_se;
	p->value_per_cost = crit;
	p->batch_cost = *batch_cost;
	p->p_correct_before = *p_before;
	p->p_correct_after = st.p_after;
	p->expected_regret_after = st.regret_after;
	p->degenerate = st.degenerate;
	*p_before = st.p_after;
}

static enum ha_status pick_all(struct greedy *g, const struct ha_plan_options *o,
                               struct ha_plan *plan, struct ha_error *err)
{
	size_t limit = pick_limit(o, plan->candidate_count);
	double batch_cost = 0.0, p_before = g->p0;
	for (size_t k = 0; k < limit; k++) {
		if (k > 0) {
			plan_draw_noise(g->f, k, g->eps);
			enum ha_status st = value_round(g, o, plan, err);
			if (st != HA_OK)
				return st;
		}
		double crit;
		size_t c = choose(g, o, plan, batch_cost, &crit);
		if (c == SIZE_MAX)
			break;
		take(g, plan, c, k, crit, &batch_cost, &p_before);
	}
	return HA_OK;
}

enum ha_status plan_greedy(const struct plan_frame *f,
                           const struct ha_plan_options *o,
                           const double *cand_mu, struct ha_plan *plan,
                           struct ha_error *err)
{
	size_t S = f->post->count, O = f->outcomes, C = plan->candidate_count;
	struct greedy g = {.f = f, .mu = cand_mu, .p0 = plan->decision.p_correct,
	                   .plan = plan};
	g.threads = pool_threads(f->threads, C);
	g.drawn = malloc(O * sizeof *g.drawn);
	g.eps = malloc(O * sizeof *g.eps);
	g.buffer[0] = malloc(O * S * sizeof *g.buffer[0]);
	g.buffer[1] = malloc(O * S * sizeof *g.buffer[1]);
	g.next_prior = g.buffer[0];
	g.scratch = malloc(g.threads * PLAN_SCRATCH(f) * sizeof *g.scratch);
	g.stats = calloc(C, sizeof *g.stats);
	size_t limit = pick_limit(o, C);
	plan->picks = calloc(limit ? limit : 1, sizeof *plan->picks);
	enum ha_status st = HA_OK;
	if (!g.drawn || !g.eps || !g.buffer[0] || !g.buffer[1] || !g.scratch ||
	    !g.stats || !plan->picks) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	plan_draw_samples(f, g.drawn);
	plan_draw_noise(f, 0, g.eps);
	st = value_round(&g, o, plan, err);
	if (st == HA_OK) {
		value_alone(&g, o, plan);
		st = pick_all(&g, o, plan, err);
	}
out:
	free(g.drawn);
	free(g.eps);
	free(g.buffer[0]);
	free(g.buffer[1]);
	free(g.scratch);
	free(g.stats);
	return st;
}
