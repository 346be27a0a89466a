/* The initial design (headalloc-model(7), PLANNING): with too few runs
 * to fit, the smallest set of the pool that lets the ladder be fitted.
 * Its largest law without the data term frees k parameters, which k + 1
 * runs at distinct head dimensions can identify (one run more than
 * parameters, for a residual); they are spread over the pool's head
 * dimensions (evenly by rank, the extremes included), each at its
 * cheapest candidate.  The data term's A and α need 3 distinct n: the
 * cheapest candidates at new n are added until the runs and the design
 * hold 3.  The runs given count towards both.  Cheapest first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

#define DATA_SAMPLES 3

/* The parameters a rung without the data term frees, in the order the
 * distinct head dimensions are said to identify them. */
static const enum ha_cal_param order[] = {
	HA_CAL_IRREDUCIBLE, HA_CAL_BIAS_COEF, HA_CAL_VAR_COEF, HA_CAL_SMOOTHNESS,
	HA_CAL_VAR_POWER, HA_CAL_VAR_RATE, HA_CAL_HDI, HA_CAL_GROUP_HDI,
};

/* The free parameters of the ladder's largest rung without the data
 * term, in `order`'s order. */
static size_t ladder_params(const struct ha_plan_options *o,
                            enum ha_cal_param *out)
{
	struct ha_cal_law ladder[HA_CAL_LADDER];
	ha_cal_ladder(&o->cal.law, ladder);
	size_t best = 0, k_best = 0;
	for (size_t r = 0; r < HA_CAL_LADDER; r++) {
		if (ladder[r].free[HA_CAL_DATA_COEF])
			continue;
		size_t k = 0;
		for (int p = 0; p < HA_CAL_PARAMS; p++)
			k += ladder[r].free[p] != 0;
		if (k > k_best) {
			k_best = k;
			best = r;
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++)
		if (ladder[best].free[order[i]])
			out[n++] = order[i];
	return n;
}

static const char *ordinal(size_t n, char buf[32])
{
	const char *s = "th";
	if (n % 100 < 11 || n % 100 > 13)
		s = n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
	snprintf(buf, 32, "%zu%s", n, s);
	return buf;
}

static int has_dim(const uint64_t *dims, size_t n, uint64_t d)
{
	for (size_t i = 0; i < n; i++)
		if (dims[i] == d)
			return 1;
	return 0;
}

static int has_samples(const double *s, size_t n, double v)
{
	for (size_t i = 0; i < n; i++)
		if (fabs(s[i] - v) <= 1e-9 * fabs(v))
			return 1;
	return 0;
}

static int by_dim(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The cheapest candidate (ties: the earlier) satisfying keep, or SIZE_MAX. */
static size_t cheapest(const struct ha_plan *plan, const int *taken,
                       uint64_t dim, const double *seen_n, size_t seen)
{
	size_t best = SIZE_MAX;
	for (size_t c = 0; c < plan->candidate_count; c++) {
		const struct ha_plan_candidate *r = &plan->candidates[c].run;
		if (taken[c] || (dim && r->head_dim != dim) ||
		    (seen_n && has_samples(seen_n, seen, r->samples)))
			continue;
		if (best == SIZE_MAX || r->cost < plan->candidates[best].run.cost)
			best = c;
	}
	return best;
}

static void add_pick(struct ha_plan *plan, int *taken, size_t c,
                     const char *reason)
{
	taken[c] = 1;
	struct ha_plan_pick *p = &plan->picks[plan->pick_count++];
	memset(p, 0, sizeof *p);
	p->run = plan->candidates[c].run;
	snprintf(p->reason, sizeof p->reason, "%s", reason);
	plan->candidates[c].picked = plan->pick_count;
}

static int by_cost(const void *a, const void *b)
{
	const struct ha_plan_pick *x = a, *y = b;
	return (x->run.cost > y->run.cost) - (x->run.cost < y->run.cost);
}

/* The head dimensions: k + 1 distinct, spread over the pool's. */
static void pick_dims(struct ha_plan *plan, int *taken, const uint64_t *have,
                      size_t have_n, const enum ha_cal_param *params, size_t k,
                      uint64_t *pool_dims)
{
	size_t pd = 0;
	for (size_t c = 0; c < plan->candidate_count; c++) {
		uint64_t d = plan->candidates[c].run.head_dim;
		if (!has_dim(have, have_n, d) && !has_dim(pool_dims, pd, d))
			pool_dims[pd++] = d;
	}
	qsort(pool_dims, pd, sizeof *pool_dims, by_dim);
	size_t need = k + 1 > have_n ? k + 1 - have_n : 0;
	if (need > pd)
		need = pd;
	for (size_t i = 0; i < need; i++) {
		size_t at = need == 1 ? pd / 2
		                      : (size_t)llround((double)i * (double)(pd - 1) /
		                                        (double)(need - 1));
		size_t c = cheapest(plan, taken, pool_dims[at], NULL, 0);
		if (c == SIZE_MAX)
			continue;
		size_t q = have_n + i + 1;
		char buf[32], reason[HA_PLAN_REASON_MAX];
		if (q <= k)
			snprintf(reason, sizeof reason, "%s distinct head_dim: identifies %s",
			         ordinal(q, buf), ha_cal_param_name(params[q - 1]));
		else
			snprintf(reason, sizeof reason, "%s distinct head_dim: one run more "
			         "than the %zu free parameters, for a residual",
			         ordinal(q, buf), k);
		add_pick(plan, taken, c, reason);
	}
}

/* The sample sizes: 3 distinct among the runs and the design. */
static void pick_samples(struct ha_plan *plan, int *taken, double *seen,
                         size_t seen_n)
{
	for (size_t i = 0; i < plan->pick_count; i++)
		if (!has_samples(seen, seen_n, plan->picks[i].run.samples))
			seen[seen_n++] = plan->picks[i].run.samples;
	static const char *const what[DATA_SAMPLES] = {
		"a first n", "identifies data_coef (A)", "identifies data_power (alpha)"};
	while (seen_n < DATA_SAMPLES) {
		size_t c = cheapest(plan, taken, 0, seen, seen_n);
		if (c == SIZE_MAX)
			return;
		char buf[32], reason[HA_PLAN_REASON_MAX];
		snprintf(reason, sizeof reason, "%s distinct n: %s",
		         ordinal(seen_n + 1, buf), what[seen_n]);
		seen[seen_n++] = plan->candidates[c].run.samples;
		add_pick(plan, taken, c, reason);
	}
}

enum ha_status plan_design(const struct ha_plan_options *o,
                           const struct ha_run *runs, size_t count,
                           struct ha_plan *plan, struct ha_error *err)
{
	plan->initial = 1;
	plan->decision.defined = 0;
	size_t C = plan->candidate_count;
	enum ha_cal_param params[HA_CAL_PARAMS];
	size_t k = ladder_params(o, params);
	int *taken = calloc(C, sizeof *taken);
	uint64_t *dims = malloc((count + C + 1) * sizeof *dims);
	double *seen = malloc((count + C + DATA_SAMPLES) * sizeof *seen);
	plan->picks = calloc(C, sizeof *plan->picks);
	if (!taken || !dims || !seen || !plan->picks) {
		free(taken);
		free(dims);
		free(seen);
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	size_t have = 0, seen_n = 0;
	for (size_t i = 0; i < count; i++) {
		if (!has_dim(dims, have, runs[i].head_dim))
			dims[have++] = runs[i].head_dim;
		if (!has_samples(seen, seen_n, runs[i].samples))
			seen[seen_n++] = runs[i].samples;
	}
	pick_dims(plan, taken, dims, have, params, k, dims + have);
	pick_samples(plan, taken, seen, seen_n);
	qsort(plan->picks, plan->pick_count, sizeof *plan->picks, by_cost);
	double total = 0.0;
	for (size_t i = 0; i < plan->pick_count; i++) {
		total += plan->picks[i].run.cost;
		plan->picks[i].batch_cost = total;
	}
	for (size_t c = 0; c < C; c++)
		plan->candidates[c].picked = 0;
	for (size_t i = 0; i < plan->pick_count; i++)
		for (size_t c = 0; c < C; c++)
			if (taken[c] && !memcmp(&plan->candidates[c].run,
			                        &plan->picks[i].run, sizeof plan->picks[i].run))
				plan->candidates[c].picked = i + 1;
	free(taken);
	free(dims);
	free(seen);
	return HA_OK;
}
