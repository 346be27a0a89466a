/* The candidates of a plan: the pool given, or every allocation of the
 * target's budget the constraints allow (with the key/value heads asked
 * for) at each pool sample size; each with its cost; less the runs
 * already done (the same heads, head_dim, kv_heads and n). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/solver.h>

#include "plan_internal.h"

double plan_cost_of(const struct ha_plan_options *o, uint64_t heads,
                    uint64_t head_dim, uint64_t kv_heads, double samples)
{
	if (o->cost == HA_PLAN_COST_TOKENS)
		return samples;
	double budget = (double)heads * (double)head_dim;
	if (!o->model_dim)
		return budget * samples;
	double g = (double)(kv_heads ? kv_heads : heads);
	double width = (double)o->model_dim;
	double params = 2.0 * budget * width + 2.0 * g * (double)head_dim * width;
	return 6.0 * params * samples;
}

static size_t kv_choices(uint64_t heads, uint64_t kv, uint64_t *out)
{
	if (kv == 0) {
		out[0] = heads;
		return 1;
	}
	if (kv != HA_PLAN_KV_ALL) {
		if (heads % kv)
			return 0;
		out[0] = kv;
		return 1;
	}
	size_t n = 0;
	for (uint64_t g = 1; g <= heads && n < 64; g++)
		if (heads % g == 0)
			out[n++] = g;
	return n;
}

enum ha_status plan_allocations(uint64_t budget,
                                const struct ha_constraints *constraints,
                                uint64_t kv_heads, double samples,
                                struct ha_run **out, size_t *count,
                                struct ha_error *err)
{
	*out = NULL;
	*count = 0;
	struct ha_solver *solver = NULL;
	enum ha_status st = ha_solver_new(budget, constraints, &solver);
	if (st == HA_EINFEASIBLE)
		return ha_fail(err, st, "target budget %llu: no allocation meets the "
		               "constraints", (unsigned long long)budget);
	if (st != HA_OK)
		return ha_fail(err, st, "target budget %llu: %s",
		               (unsigned long long)budget, ha_status_str(st));
	size_t dims = 0;
	const uint64_t *d = ha_solver_feasible(solver, &dims);
	struct ha_run *runs = malloc((dims ? dims : 1) * 64 * sizeof *runs);
	if (!runs) {
		ha_solver_free(solver);
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	size_t n = 0;
	for (size_t i = 0; i < dims; i++) {
		uint64_t heads = budget / d[i], g[64];
		size_t k = kv_choices(heads, kv_heads, g);
		for (size_t q = 0; q < k; q++)
			runs[n++] = (struct ha_run){heads, d[i], samples, 1.0, NAN, g[q]};
	}
	ha_solver_free(solver);
	if (n == 0) {
		free(runs);
		return ha_fail(err, HA_EINFEASIBLE, "target budget %llu: no allocation "
		               "has %llu key/value heads dividing its heads",
		               (unsigned long long)budget,
		               (unsigned long long)kv_heads);
	}
	*out = runs;
	*count = n;
	return HA_OK;
}

/* v to three significant digits, so that the default n read as people
 * write them (464000 rather than 464158.88...). */
static double three_digits(double v)
{
	double scale = pow(10.0, floor(log10(v)) - 2.0);
	double r = round(v / scale) * scale;
	return r > 1.0 ? r : v;
}

/* The default pool samples: log-spaced from N/1000 to N/10. */
static enum ha_status default_samples(double n, double *out, size_t *count,
                                      struct ha_error *err)
{
	double lo = n / 1000.0, hi = n / 10.0;
	if (!(hi > 1.0))
		return ha_fail(err, HA_EINVAL, "--pool-samples: the default, from "
		               "N/1000 to N/10, needs N > 10 (found %g): give the "
		               "pool's n", n);
	if (!(lo > 1.0))
		lo = hi > 2.0 ? 2.0 : (1.0 + hi) / 2.0;
	size_t k = HA_PLAN_POOL_SAMPLES_DEFAULT;
	for (size_t i = 0; i < k; i++)
		out[i] = three_digits(exp(log(lo) + (log(hi) - log(lo)) * (double)i /
		                              (double)(k - 1)));
	*count = k;
	return HA_OK;
}

static int same_run(const struct ha_plan_candidate *c, const struct ha_run *r)
{
	uint64_t g = c->kv_heads ? c->kv_heads : c->heads;
	uint64_t rg = r->kv_heads ? r->kv_heads : r->heads;
	return c->heads == r->heads && c->head_dim == r->head_dim && g == rg &&
	       fabs(c->samples - r->samples) <= 1e-9 * fabs(r->samples);
}

static int done_already(const struct ha_plan_candidate *c,
                        const struct ha_run *runs, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (same_run(c, &runs[i]))
			return 1;
	return 0;
}

static enum ha_status check_candidate(const struct ha_plan_candidate *c,
                                      size_t i, struct ha_error *err)
{
	if (c->heads < 1 || c->head_dim < 1 ||
	    c->heads > HA_BUDGET_MAX / c->head_dim)
		return ha_fail(err, HA_EINVAL, "pool candidate %zu: heads and "
		               "head_dim must be whole numbers from 1 with heads * "
		               "head_dim <= %llu", i + 1,
		               (unsigned long long)HA_BUDGET_MAX);
	if (c->kv_heads && c->heads % c->kv_heads)
		return ha_fail(err, HA_EINVAL, "pool candidate %zu: kv_heads %llu "
		               "must divide heads %llu", i + 1,
		               (unsigned long long)c->kv_heads,
		               (unsigned long long)c->heads);
	if (!(c->samples > 1.0 && c->samples <= 1e300))
		return ha_fail(err, HA_EINVAL, "pool candidate %zu: samples must be "
		               "a number > 1 and <= 1e300, found %g", i + 1, c->samples);
	if (!isnan(c->cost) && !(isfinite(c->cost) && c->cost > 0.0))
		return ha_fail(err, HA_EINVAL, "pool candidate %zu: cost must be a "
		               "finite number > 0, found %g", i + 1, c->cost);
	return HA_OK;
}

/* The built pool: every allocation at every pool n. */
static enum ha_status build(const struct ha_plan_options *o,
                            const double *samples, size_t ns,
                            struct ha_plan_candidate **out, size_t *count,
                            struct ha_error *err)
{
	struct ha_run *alloc = NULL;
	size_t na = 0;
	enum ha_status st = plan_allocations(o->cal.target.budget,
	                                     &o->cal.target.constraints,
	                                     o->kv_heads, 1e6, &alloc, &na, err);
	if (st != HA_OK)
		return st;
	struct ha_plan_candidate *c = malloc(na * ns * sizeof *c);
	if (!c) {
		free(alloc);
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	size_t n = 0;
	for (size_t s = 0; s < ns; s++)
		for (size_t a = 0; a < na; a++)
			c[n++] = (struct ha_plan_candidate){alloc[a].heads, alloc[a].head_dim,
			                                    alloc[a].kv_heads, samples[s], NAN};
	free(alloc);
	*out = c;
	*count = n;
	return HA_OK;
}

static enum ha_status pool_samples(const struct ha_plan_options *o,
                                   struct ha_plan_method *m,
                                   struct ha_error *err)
{
	size_t ns = o->pool_samples ? o->pool_samples_count
	                            : HA_PLAN_POOL_SAMPLES_DEFAULT;
	if (ns == 0 || ns > HA_PLAN_POOL_SAMPLES_MAX)
		return ha_fail(err, HA_EINVAL, "--pool-samples: expected 1 to %zu "
		               "values, found %zu", HA_PLAN_POOL_SAMPLES_MAX, ns);
	m->pool_samples = malloc(ns * sizeof *m->pool_samples);
	if (!m->pool_samples)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	m->pool_samples_default = !o->pool_samples;
	if (!o->pool_samples)
		return default_samples(o->cal.target.samples, m->pool_samples,
		                       &m->pool_samples_count, err);
	for (size_t i = 0; i < ns; i++)
		if (!(o->pool_samples[i] > 1.0 && o->pool_samples[i] <= 1e300))
			return ha_fail(err, HA_EINVAL, "--pool-samples: expected numbers "
			               "n with 1 < n <= 1e300, found %g",
			               o->pool_samples[i]);
	memcpy(m->pool_samples, o->pool_samples, ns * sizeof *m->pool_samples);
	m->pool_samples_count = ns;
	return HA_OK;
}

enum ha_status plan_pool_make(const struct ha_plan_options *o,
                              const struct ha_run *runs, size_t count,
                              struct ha_plan_candidate **out, size_t *out_count,
                              struct ha_plan_method *m, struct ha_error *err)
{
	*out = NULL;
	*out_count = 0;
	struct ha_plan_candidate *c = NULL;
	size_t n = 0;
	enum ha_status st = HA_OK;
	if (o->pool) {
		if (o->pool_count == 0)
			return ha_fail(err, HA_EINVAL, "the pool is empty");
		for (size_t i = 0; i < o->pool_count && st == HA_OK; i++)
			st = check_candidate(&o->pool[i], i, err);
		if (st != HA_OK)
			return st;
		c = malloc(o->pool_count * sizeof *c);
		if (!c)
			return ha_fail(err, HA_ENOMEM, "out of memory");
		memcpy(c, o->pool, o->pool_count * sizeof *c);
		n = o->pool_count;
	} else {
		st = pool_samples(o, m, err);
		if (st == HA_OK)
			st = build(o, m->pool_samples, m->pool_samples_count, &c, &n, err);
		if (st != HA_OK)
			return st;
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (!c[i].kv_heads)
			c[i].kv_heads = c[i].heads;
		if (done_already(&c[i], runs, count))
			continue;
		if (isnan(c[i].cost))
			c[i].cost = plan_cost_of(o, c[i].heads, c[i].head_dim,
			                         c[i].kv_heads, c[i].samples);
		if (!(isfinite(c[i].cost) && c[i].cost > 0.0)) {
			ha_fail(err, HA_EINVAL, "--cost: the cost of heads %llu, "
			        "head_dim %llu at n %g is %g, not a finite number > 0",
			        (unsigned long long)c[i].heads,
			        (unsigned long long)c[i].head_dim, c[i].samples,
			        c[i].cost);
			free(c);
			return HA_EINVAL;
		}
		c[kept++] = c[i];
	}
	if (kept == 0) {
		free(c);
		return ha_fail(err, HA_EINVAL, "the pool holds no candidate that is "
		               "not already a run (%zu of %zu run already)", n, n);
	}
	*out = c;
	*out_count = kept;
	return HA_OK;
}
