/* ha_plan_make (plan.h; headalloc-model(7), PLANNING): the options
 * checked, the target's allocations and the pool made, the calibration
 * run for its posterior (or, with too few runs, the initial design), the
 * decision, every candidate's value and the greedy batch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

void ha_plan_options_defaults(struct ha_plan_options *o)
{
	memset(o, 0, sizeof *o);
	ha_cal_options_defaults(&o->cal);
	/* the seeds' free set, as headalloc calibrate has it */
	o->cal.law.free[HA_CAL_SMOOTHNESS] = 0;
	o->cal.law.name[0] = '\0';
	o->cal.compare = 1;
	o->cost = HA_PLAN_COST_PARAMS_TOKENS;
	o->next = 1;
	o->stop_below = HA_PLAN_STOP_BELOW_DEFAULT;
	o->outcomes = HA_PLAN_OUTCOMES_DEFAULT;
	o->resamples = HA_PLAN_RESAMPLES_DEFAULT;
}

static enum ha_status check_options(const struct ha_plan_options *o,
                                    struct ha_error *err)
{
	if (!o->cal.target.budget)
		return ha_fail(err, HA_EINVAL, "--budget: a plan needs the target "
		               "budget D");
	if (!(o->cal.target.samples > 1.0 && o->cal.target.samples <= 1e300))
		return ha_fail(err, HA_EINVAL, "--samples: expected a number n with "
		               "1 < n <= 1e300, found %g", o->cal.target.samples);
	if (o->next > HA_PLAN_PICKS_MAX)
		return ha_fail(err, HA_EINVAL, "--next: expected at most %zu picks, "
		               "found %zu", HA_PLAN_PICKS_MAX, o->next);
	if (!(o->spend >= 0.0 && isfinite(o->spend)))
		return ha_fail(err, HA_EINVAL, "--spend: expected a finite number > 0, "
		               "found %g", o->spend);
	if (!(o->stop_below > 0.0 && o->stop_below < 1.0))
		return ha_fail(err, HA_EINVAL, "--stop-below: expected a probability "
		               "strictly between 0 and 1, found %g", o->stop_below);
	if (o->outcomes < 2 || o->outcomes > 1000000)
		return ha_fail(err, HA_EINVAL, "--outcomes: expected 2 to 1000000, "
		               "found %zu", o->outcomes);
	if (o->resamples < 2 || o->resamples > 100000)
		return ha_fail(err, HA_EINVAL, "--resamples: expected 2 to 100000, "
		               "found %zu", o->resamples);
	if (o->cost != HA_PLAN_COST_TOKENS && o->cost != HA_PLAN_COST_PARAMS_TOKENS)
		return ha_fail(err, HA_EINVAL, "--cost: unknown cost %d", (int)o->cost);
	return HA_OK;
}

/* candidates x outcomes x samples x (picks or 1), the samples counted
 * before the calibration as resamples a law of every law. */
static double work_of(const struct ha_plan_options *o, size_t candidates)
{
	double laws = (double)(HA_CAL_LADDER + o->cal.law_count + 1);
	double picks = (double)(o->next ? o->next : 1);
	if (o->spend > 0.0 && o->next == 0)
		picks = (double)candidates;
	return (double)candidates * (double)o->outcomes *
	       ((double)o->resamples * laws) * picks;
}

static enum ha_status new_plan(const struct ha_plan_options *o,
                               struct ha_plan_candidate *pool, size_t n,
                               struct ha_plan *plan)
{
	plan->budget = o->cal.target.budget;
	plan->samples = o->cal.target.samples;
	plan->stop_below = o->stop_below;
	plan->method.outcomes = o->outcomes;
	plan->method.seed = o->cal.seed;
	plan->method.cost = o->cost;
	plan->method.model_dim = o->model_dim;
	plan->candidates = calloc(n, sizeof *plan->candidates);
	if (!plan->candidates)
		return HA_ENOMEM;
	for (size_t i = 0; i < n; i++)
		plan->candidates[i].run = pool[i];
	plan->candidate_count = n;
	return HA_OK;
}

/* The frame's target matrix, argmins and loss gaps. */
static enum ha_status frame_target(struct plan_frame *f)
{
	size_t S = f->post->count, A = f->allocs;
	f->target = malloc(S * A * sizeof *f->target);
	f->best = malloc(S * sizeof *f->best);
	f->loss_gap = malloc(S * A * sizeof *f->loss_gap);
	if (!f->target || !f->best || !f->loss_gap)
		return HA_ENOMEM;
	enum ha_status st = plan_eval(f->post, f->alloc, A, f->target);
	if (st != HA_OK)
		return st;
	for (size_t j = 0; j < S; j++) {
		const double *row = f->target + j * A;
		size_t b = 0;
		for (size_t a = 1; a < A; a++)
			if (row[a] < row[b])
				b = a;
		f->best[j] = b;
		for (size_t a = 0; a < A; a++) {
			double gap = isfinite(row[a]) && isfinite(row[b])
			                     ? exp(row[b]) * expm1(row[a] - row[b])
			                     : HUGE_VAL;
			f->loss_gap[j * A + a] = isfinite(gap) ? gap : 1e300;
		}
	}
	return HA_OK;
}

static void frame_free(struct plan_frame *f)
{
	free(f->target);
	free(f->best);
	free(f->loss_gap);
}

/* The candidates' ln L, candidate-major (C x S). */
static enum ha_status candidate_mu(const struct plan_posterior *post,
                                   const struct ha_plan *plan, double **out)
{
	size_t S = post->count, C = plan->candidate_count;
	struct ha_run *runs = malloc(C * sizeof *runs);
	double *by_sample = malloc(S * C * sizeof *by_sample);
	double *mu = malloc(S * C * sizeof *mu);
	enum ha_status st = HA_ENOMEM;
	if (runs && by_sample && mu) {
		for (size_t c = 0; c < C; c++) {
			const struct ha_plan_candidate *r = &plan->candidates[c].run;
			runs[c] = (struct ha_run){r->heads, r->head_dim, r->samples, 1.0,
			                          NAN, r->kv_heads};
		}
		st = plan_eval(post, runs, C, by_sample);
	}
	if (st == HA_OK)
		for (size_t j = 0; j < S; j++)
			for (size_t c = 0; c < C; c++)
				mu[c * S + j] = by_sample[j * C + c];
	free(runs);
	free(by_sample);
	if (st != HA_OK) {
		free(mu);
		return st;
	}
	*out = mu;
	return HA_OK;
}

static void set_decision(struct ha_plan *plan, const struct plan_frame *f)
{
	double *prob = malloc(f->allocs * sizeof *prob);
	if (!prob)
		return;
	double p, regret;
	size_t a = plan_decide(f, f->post->weight, prob, &p, &regret);
	free(prob);
	struct ha_plan_decision *d = &plan->decision;
	d->defined = 1;
	d->heads = f->alloc[a].heads;
	d->head_dim = f->alloc[a].head_dim;
	d->kv_heads = f->alloc[a].kv_heads;
	d->p_correct = p;
	d->expected_regret = regret;
}

/* The plan from a calibration c. */
static enum ha_status plan_from(const struct ha_calibration *c,
                                const struct ha_run *runs, size_t count,
                                const struct ha_plan_options *o,
                                const struct ha_run *alloc, size_t allocs,
                                struct ha_plan *plan, struct ha_error *err)
{
	struct plan_posterior post;
	enum ha_status st = plan_posterior_make(c, runs, count, &post,
	                                        &plan->method, err);
	struct plan_frame f = {.post = &post, .allocs = allocs, .alloc = alloc,
	                       .outcomes = o->outcomes, .seed = o->cal.seed,
	                       .threads = o->cal.threads};
	double *mu = NULL;
	if (st == HA_OK) {
		double bar = HA_PLAN_ESS_SHARE * (double)post.count;
		f.ess_bar = bar > HA_PLAN_ESS_MIN ? bar : HA_PLAN_ESS_MIN;
		plan->method.ess_threshold = f.ess_bar;
		st = frame_target(&f);
		if (st == HA_OK)
			st = candidate_mu(&post, plan, &mu);
		if (st == HA_ENOMEM)
			ha_fail(err, st, "out of memory");
	}
	if (st == HA_OK) {
		set_decision(plan, &f);
		if (!plan->decision.defined)
			st = ha_fail(err, HA_ENOMEM, "out of memory");
	}
	if (st == HA_OK && (o->next > 0 || o->spend > 0.0))
		st = plan_greedy(&f, o, mu, plan, err);
	else if (st == HA_OK)
		plan->candidate_count = 0; /* the decision alone: none valued */
	free(mu);
	frame_free(&f);
	plan_posterior_free(&post);
	return st;
}

static int outside(uint64_t head_dim, const uint64_t range[2])
{
	return head_dim < range[0] || head_dim > range[1];
}

/* The runs' head-dim range, and which answers lie outside it. */
static void mark_extrapolation(struct ha_plan *plan, const struct ha_run *runs,
                               size_t count)
{
	if (count == 0)
		return;
	uint64_t *r = plan->measured_head_dims;
	r[0] = r[1] = runs[0].head_dim;
	for (size_t i = 1; i < count; i++) {
		r[0] = runs[i].head_dim < r[0] ? runs[i].head_dim : r[0];
		r[1] = runs[i].head_dim > r[1] ? runs[i].head_dim : r[1];
	}
	plan->decision.extrapolated =
		plan->decision.defined && outside(plan->decision.head_dim, r);
	for (size_t i = 0; i < plan->pick_count; i++)
		plan->picks[i].extrapolated = outside(plan->picks[i].run.head_dim, r);
	for (size_t i = 0; i < plan->candidate_count; i++)
		plan->candidates[i].extrapolated =
			outside(plan->candidates[i].run.head_dim, r);
}

static enum ha_status calibrate(const struct ha_run *runs, size_t count,
                                const struct ha_plan_options *o,
                                struct ha_calibration **c, struct ha_error *err)
{
	struct ha_cal_options cal = o->cal;
	cal.compare = 1;
	cal.bootstrap = o->resamples;
	cal.compare_resamples = o->resamples;
	cal.compare_lean = 1; /* the plan reads the laws' LS fits and refits */
	return ha_calibrate(runs, count, &cal, c, err);
}

enum ha_status ha_plan_make(const struct ha_run *runs, size_t count,
                            const struct ha_plan_options *o,
                            struct ha_plan **out, struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!o || !out || (count && !runs))
		return ha_fail(err, HA_EINVAL, "a plan needs options and a result");
	enum ha_status st = check_options(o, err);
	if (st != HA_OK)
		return st;
	struct ha_run *alloc = NULL;
	size_t allocs = 0;
	st = plan_allocations(o->cal.target.budget, &o->cal.target.constraints,
	                      o->kv_heads, o->cal.target.samples, &alloc, &allocs,
	                      err);
	if (st != HA_OK)
		return st;
	struct ha_plan *plan = calloc(1, sizeof *plan);
	struct ha_plan_candidate *pool = NULL;
	size_t n = 0;
	struct ha_calibration *c = NULL;
	if (!plan) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	plan->runs = count;
	st = plan_pool_make(o, runs, count, &pool, &n, &plan->method, err);
	if (st != HA_OK)
		goto out;
	if (work_of(o, n) > HA_PLAN_WORK_MAX) {
		st = ha_fail(err, HA_EINVAL, "--outcomes: %zu candidates x %zu "
		             "outcomes x %zu samples a law need %.4g evaluations, "
		             "above the limit %.4g: lower --outcomes, --next or the "
		             "pool", n, o->outcomes, o->resamples, work_of(o, n),
		             HA_PLAN_WORK_MAX);
		goto out;
	}
	double laws = (double)(HA_CAL_LADDER + o->cal.law_count + 1);
	double cells = (double)o->outcomes * (double)o->resamples * laws;
	if (cells > HA_PLAN_MEMORY_MAX) {
		st = ha_fail(err, HA_EINVAL, "--outcomes: %zu outcomes x %zu "
		             "samples a law x %.0f laws need %.4g likelihoods in "
		             "memory, above the limit %.4g: lower --outcomes or "
		             "--bootstrap", o->outcomes, o->resamples, laws, cells,
		             HA_PLAN_MEMORY_MAX);
		goto out;
	}
	if (new_plan(o, pool, n, plan) != HA_OK) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	struct ha_error cal_err;
	ha_error_init(&cal_err);
	st = count ? calibrate(runs, count, o, &c, &cal_err) : HA_EDEGENERATE;
	if (st == HA_EDEGENERATE) {
		snprintf(plan->decision.undefined_reason,
		         sizeof plan->decision.undefined_reason, "%s",
		         count ? cal_err.message : "no runs yet");
		st = plan_design(o, runs, count, plan, err);
	} else if (st != HA_OK) {
		if (err)
			*err = cal_err;
	} else {
		struct ha_error from_err;
		ha_error_init(&from_err);
		st = plan_from(c, runs, count, o, alloc, allocs, plan, &from_err);
		if (st == HA_EDEGENERATE) {
			/* fitted, but no refit to sample a posterior from */
			snprintf(plan->decision.undefined_reason,
			         sizeof plan->decision.undefined_reason, "%s",
			         from_err.message);
			st = plan_design(o, runs, count, plan, err);
		} else if (st != HA_OK && err) {
			*err = from_err;
		}
	}
out:
	ha_calibration_free(c);
	free(pool);
	free(alloc);
	if (st != HA_OK) {
		ha_plan_free(plan);
		return st;
	}
	mark_extrapolation(plan, runs, count);
	*out = plan;
	return HA_OK;
}

void ha_plan_free(struct ha_plan *plan)
{
	if (!plan)
		return;
	free(plan->picks);
	free(plan->candidates);
	free(plan->method.laws);
	free(plan->method.pool_samples);
	free(plan);
}
