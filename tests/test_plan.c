/* headalloc plan through the public API (plan.h): the plan on the
 * repository's runs is reproducible under its seed and free of NaN and
 * inf, its decision is the posterior's mode, the picks' probabilities
 * chain, a run already done is no candidate, the initial design
 * identifies the ladder, and bad options are refused before any work. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

/* data/runs.yaml: the seeds' law with 1% noise (data/synthetic-runs.c). */
static const struct ha_run runs[] = {
	{32, 8, 1e6, 2.43791, NAN, 0},   {16, 16, 1e6, 1.91131, NAN, 0},
	{8, 32, 1e6, 2.15375, NAN, 0},   {16, 12, 1e7, 2.10414, NAN, 0},
	{8, 24, 1e7, 1.89903, NAN, 0},   {16, 32, 1e7, 1.84171, NAN, 0},
	{64, 8, 1e8, 2.43068, NAN, 0},   {32, 16, 1e8, 1.95857, NAN, 0},
	{16, 32, 1e8, 1.84226, NAN, 0},  {4, 32, 1e6, 2.38548, NAN, 0},
};
#define RUNS (sizeof runs / sizeof *runs)

static void small(struct ha_plan_options *o)
{
	ha_plan_options_defaults(o);
	o->cal.target.budget = 512;
	o->cal.target.samples = 1e8;
	o->resamples = 20;
	o->outcomes = 64;
	o->cal.threads = 1;
}

static struct ha_plan *make(const struct ha_run *r, size_t n,
                            const struct ha_plan_options *o)
{
	struct ha_plan *plan = NULL;
	struct ha_error err;
	enum ha_status st = ha_plan_make(r, n, o, &plan, &err);
	cr_assert_eq(st, HA_OK, "%s", err.message);
	return plan;
}

static void assert_finite_plan(const struct ha_plan *p)
{
	cr_assert(isfinite(p->decision.p_correct) &&
	          isfinite(p->decision.expected_regret));
	for (size_t i = 0; i < p->candidate_count; i++) {
		const struct ha_plan_value *v = &p->candidates[i];
		cr_assert(isfinite(v->value) && isfinite(v->value_se) &&
		          isfinite(v->value_per_cost) && isfinite(v->ess_mean) &&
		          isfinite(v->run.cost) && v->run.cost > 0.0, "candidate %zu", i);
	}
	for (size_t i = 0; i < p->pick_count; i++) {
		const struct ha_plan_pick *k = &p->picks[i];
		cr_assert(isfinite(k->value) && isfinite(k->p_correct_before) &&
		          isfinite(k->p_correct_after) &&
		          isfinite(k->expected_regret_after) &&
		          isfinite(k->value_per_cost) && isfinite(k->batch_cost));
		cr_assert(k->p_correct_after >= 0.0 && k->p_correct_after <= 1.0);
	}
	cr_assert(isfinite(p->method.sigma) && p->method.sigma > 0.0);
}

Test(plan, reproducible_under_its_seed_and_finite)
{
	struct ha_plan_options o;
	small(&o);
	o.next = 3;
	struct ha_plan *a = make(runs, RUNS, &o);
	o.cal.threads = 2;
	struct ha_plan *b = make(runs, RUNS, &o);
	cr_assert_eq(a->candidate_count, b->candidate_count);
	cr_assert_eq(a->pick_count, 3);
	cr_assert_eq(b->pick_count, 3);
	cr_assert(memcmp(a->candidates, b->candidates,
	                 a->candidate_count * sizeof *a->candidates) == 0);
	cr_assert(memcmp(a->picks, b->picks, a->pick_count * sizeof *a->picks) == 0);
	assert_finite_plan(a);
	o.cal.seed = 2;
	struct ha_plan *c = make(runs, RUNS, &o);
	int differs = 0;
	for (size_t i = 0; i < c->candidate_count; i++)
		differs |= c->candidates[i].value != a->candidates[i].value;
	cr_assert(differs, "another seed draws other outcomes");
	ha_plan_free(a);
	ha_plan_free(b);
	ha_plan_free(c);
}

Test(plan, picks_chain_and_candidates_exclude_runs_done)
{
	struct ha_plan_options o;
	small(&o);
	o.next = 3;
	double pool_n[] = {1e6, 1e8};
	o.pool_samples = pool_n;
	o.pool_samples_count = 2;
	struct ha_plan *p = make(runs, RUNS, &o);
	/* 10 allocations of 512 at 2 n, less the three runs of D = 512 at
	 * 1e8 (64 x 8, 32 x 16, 16 x 32) */
	cr_assert_eq(p->candidate_count, 17);
	for (size_t i = 0; i < p->candidate_count; i++)
		for (size_t r = 0; r < RUNS; r++)
			cr_assert(!(p->candidates[i].run.heads == runs[r].heads &&
			            p->candidates[i].run.head_dim == runs[r].head_dim &&
			            p->candidates[i].run.samples == runs[r].samples));
	cr_assert(fabs(p->picks[0].p_correct_before - p->decision.p_correct) < 1e-15);
	double cost = 0.0;
	for (size_t k = 0; k < p->pick_count; k++) {
		cost += p->picks[k].run.cost;
		cr_assert(fabs(p->picks[k].batch_cost - cost) <= 1e-12 * cost);
		if (k)
			cr_assert_eq(p->picks[k].p_correct_before,
			             p->picks[k - 1].p_correct_after);
		cr_assert(fabs(p->picks[k].value - (p->picks[k].p_correct_after -
		                                    p->picks[k].p_correct_before)) < 1e-15);
	}
	/* the first pick maximises value per cost among the candidates alone */
	double best = -1.0;
	for (size_t i = 0; i < p->candidate_count; i++) {
		double v = p->candidates[i].value;
		double crit = (v > 0.0 ? v : 0.0) / p->candidates[i].run.cost;
		if (crit > best)
			best = crit;
	}
	cr_assert(fabs(p->picks[0].value_per_cost - best) <= 1e-12 * best);
	assert_finite_plan(p);
	ha_plan_free(p);
}

/* The runs above test head dims 8 to 32 only: every answer outside that
 * range is flagged, every one inside is not. */
Test(plan, answers_outside_the_measured_head_dims_are_flagged)
{
	struct ha_plan_options o;
	small(&o);
	o.next = 2;
	struct ha_plan *p = make(runs, RUNS, &o);
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t r = 0; r < RUNS; r++) {
		lo = runs[r].head_dim < lo ? runs[r].head_dim : lo;
		hi = runs[r].head_dim > hi ? runs[r].head_dim : hi;
	}
	cr_assert_eq(p->measured_head_dims[0], lo);
	cr_assert_eq(p->measured_head_dims[1], hi);
	size_t inside = 0, outside = 0;
	for (size_t i = 0; i < p->candidate_count; i++) {
		uint64_t d = p->candidates[i].run.head_dim;
		int out = d < 8 || d > 32;
		cr_assert_eq(p->candidates[i].extrapolated, out, "head_dim %llu",
		             (unsigned long long)d);
		out ? outside++ : inside++;
	}
	cr_assert(inside > 0 && outside > 0, "the pool spans both sides");
	for (size_t k = 0; k < p->pick_count; k++) {
		uint64_t d = p->picks[k].run.head_dim;
		cr_assert_eq(p->picks[k].extrapolated, d < 8 || d > 32);
	}
	uint64_t d = p->decision.head_dim;
	cr_assert_eq(p->decision.extrapolated, d < 8 || d > 32);
	ha_plan_free(p);
	/* without runs nothing is measured and nothing flagged */
	struct ha_plan *q = make(NULL, 0, &o);
	cr_assert(q->initial);
	cr_assert_eq(q->measured_head_dims[0], 0);
	cr_assert_eq(q->measured_head_dims[1], 0);
	for (size_t k = 0; k < q->pick_count; k++)
		cr_assert_eq(q->picks[k].extrapolated, 0);
	ha_plan_free(q);
}

Test(plan, the_decision_alone)
{
	struct ha_plan_options o;
	small(&o);
	o.next = 0;
	struct ha_plan *p = make(runs, RUNS, &o);
	cr_assert(p->decision.defined);
	cr_assert_eq(p->pick_count, 0);
	cr_assert_eq(p->candidate_count, 0);
	cr_assert(p->decision.p_correct > 0.0 && p->decision.p_correct <= 1.0);
	/* the seeds' law the runs were drawn from puts the optimum at 16 x 32 */
	cr_assert_eq(p->decision.heads, 16);
	cr_assert_eq(p->decision.head_dim, 32);
	ha_plan_free(p);
}

Test(plan, spend_keeps_the_batch_within_it)
{
	struct ha_plan_options o;
	small(&o);
	double pool_n[] = {1e5, 1e6};
	o.pool_samples = pool_n;
	o.pool_samples_count = 2;
	o.next = 0;
	o.spend = 512.0 * 1e5 * 3.5; /* three runs at 1e5 (D n each) */
	struct ha_plan *p = make(runs, RUNS, &o);
	cr_assert(p->pick_count >= 1 && p->pick_count <= 3);
	cr_assert(p->picks[p->pick_count - 1].batch_cost <= o.spend);
	ha_plan_free(p);
}

Test(plan, initial_design_identifies_the_ladder)
{
	struct ha_plan_options o;
	small(&o);
	struct ha_plan *p = make(NULL, 0, &o);
	cr_assert(p->initial);
	cr_assert(!p->decision.defined);
	/* the ladder's largest law without the data term ("power") frees 5
	 * parameters: 6 distinct head_dims; the data term: 3 distinct n */
	uint64_t dims[16];
	double ns[16];
	size_t nd = 0, nn = 0;
	for (size_t k = 0; k < p->pick_count; k++) {
		const struct ha_plan_candidate *r = &p->picks[k].run;
		int seen = 0;
		for (size_t i = 0; i < nd; i++)
			seen |= dims[i] == r->head_dim;
		if (!seen)
			dims[nd++] = r->head_dim;
		seen = 0;
		for (size_t i = 0; i < nn; i++)
			seen |= ns[i] == r->samples;
		if (!seen)
			ns[nn++] = r->samples;
		cr_assert(p->picks[k].reason[0]);
		if (k)
			cr_assert(p->picks[k].run.cost >= p->picks[k - 1].run.cost);
	}
	cr_assert_eq(nd, 6);
	cr_assert_eq(nn, 3);
	cr_assert_eq(p->pick_count, 8);
	ha_plan_free(p);
}

Test(plan, refusals)
{
	struct ha_plan_options o;
	struct ha_plan *p = NULL;
	struct ha_error err;
	small(&o);
	o.stop_below = 1.0;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINVAL);
	cr_assert_null(p);
	small(&o);
	o.next = HA_PLAN_PICKS_MAX + 1;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINVAL);
	small(&o);
	o.cal.target.constraints.min_heads = 1000;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINFEASIBLE);
	small(&o);
	struct ha_plan_candidate done[] = {{16, 32, 0, 1e8, NAN}};
	o.pool = done;
	o.pool_count = 1;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "already"), "%s", err.message);
	struct ha_plan_candidate bad[] = {{8, 64, 0, 1e6, -1.0}};
	o.pool = bad;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "cost"), "%s", err.message);
	small(&o);
	o.outcomes = 100000;
	o.resamples = 100;
	o.next = 1;
	o.pool_samples = (double[]){1e6};
	o.pool_samples_count = 1;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "memory"), "%s", err.message);
	small(&o);
	o.outcomes = 1000000;
	o.resamples = 100000;
	cr_assert_eq(ha_plan_make(runs, RUNS, &o, &p, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "limit"), "%s", err.message);
	cr_assert_null(p);
}

/* text into the file "pool" + suffix of a new directory in /tmp; its
 * path into path (unlink it, then rmdir its directory). */
static void write_file(char *path, size_t size, const char *suffix,
                       const char *text)
{
	char dir[32] = "/tmp/ha_test_pool_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, size, "%s/pool%s", dir, suffix);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void remove_file(char *path)
{
	cr_assert_eq(unlink(path), 0);
	*strrchr(path, '/') = '\0';
	cr_assert_eq(rmdir(path), 0);
}

Test(plan, pool_files)
{
	char path[80];
	struct ha_run *r = NULL;
	double *cost = NULL;
	size_t n = 0;
	struct ha_error err;
	write_file(path, sizeof path, ".yaml",
	           "runs:\n  - {heads: 8, head_dim: 64, samples: 1e6}\n"
	           "  - {heads: 4, head_dim: 128, samples: 1e7, kv_heads: 2, cost: 5}\n");
	cr_assert_eq(ha_runs_read_pool(path, HA_RUNS_AUTO, NULL, &r, &cost, &n,
	                               &err), HA_OK, "%s", err.message);
	remove_file(path);
	cr_assert_eq(n, 2);
	cr_assert(isnan(cost[0]) && cost[1] == 5.0);
	cr_assert(isnan(r[0].loss) && isnan(r[1].loss));
	cr_assert_eq(r[0].kv_heads, 8);
	cr_assert_eq(r[1].kv_heads, 2);
	cr_assert(r[1].samples == 1e7);
	free(r);
	free(cost);

	write_file(path, sizeof path, ".csv",
	           "samples,heads,cost,head_dim\n1e6,8,,64\n1e7,4,2.5,128\n");
	cr_assert_eq(ha_runs_read_pool(path, HA_RUNS_AUTO, NULL, &r, &cost, &n,
	                               &err), HA_OK, "%s", err.message);
	remove_file(path);
	cr_assert_eq(n, 2);
	cr_assert(isnan(cost[0]) && cost[1] == 2.5);
	cr_assert_eq(r[1].head_dim, 128);
	free(r);
	free(cost);

	/* a loss is refused where it stands, in both formats */
	write_file(path, sizeof path, ".yaml",
	           "runs:\n  - {heads: 8, head_dim: 64, samples: 1e6, loss: 2}\n");
	cr_assert_eq(ha_runs_read_pool(path, HA_RUNS_AUTO, NULL, &r, &cost, &n,
	                               &err), HA_EFORMAT);
	remove_file(path);
	cr_assert_eq(err.line, 2);
	cr_assert_eq(err.column, 50);
	cr_assert(strstr(err.message, "no loss"), "%s", err.message);
	cr_assert_null(r);
	cr_assert_null(cost);
	write_file(path, sizeof path, ".csv", "heads,head_dim,samples,loss\n8,64,1e6,2\n");
	cr_assert_eq(ha_runs_read_pool(path, HA_RUNS_AUTO, NULL, &r, &cost, &n,
	                               &err), HA_EFORMAT);
	remove_file(path);
	cr_assert_eq(err.line, 1);
	cr_assert_eq(err.column, 24);
	/* a runs file's reader still wants its loss */
	write_file(path, sizeof path, ".csv", "heads,head_dim,samples,cost\n8,64,1e6,2\n");
	cr_assert_eq(ha_runs_read_file(path, HA_RUNS_AUTO, &r, &n, &err), HA_EFORMAT);
	remove_file(path);
}
