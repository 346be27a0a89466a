/* A sweep's per-n fits, ln H* = ln c + e ln D over the budgets at each
 * n (headalloc-model(7), SCALING LAWS): one a value of n, so as many as
 * the sweep has points.  Their points are read back from the journal (or
 * solved again) on the calling thread; the fits themselves are computed
 * in jobs of many n by worker threads (base/pool.h) and handed out in
 * the order of n. */
#include <math.h>
#include <stdlib.h>

#include "sweep/sweep_internal.h"
#include "base/error_internal.h"
#include "base/pool.h"
#include "fit/fit_internal.h"

/* Values of x* a job: the points of a job hold at most this many (and at
 * least one point, whatever its budgets). */
#define JOB_VALUES ((size_t)8192)
#define JOB_POINTS ((size_t)128)

/* Worker threads only for at least this many jobs, and for at most this
 * many budgets (each thread keeps a fit with room for every budget). */
#define THREADED_MIN_JOBS ((size_t)4)
#define THREADED_MAX_BUDGETS ((size_t)64)

struct heads_job {
	size_t first, count;               /* points [first, first + count) */
	double *dims;                      /* x* of point k, budget b: [k * nb + b] */
	struct ha_sweep_samples_fit *fits; /* of each point, n in each */
};

struct sweep_heads {
	const struct ha_sweep *s;
	size_t points_per_job;
	struct ha_fit **fits;         /* one per worker */
	size_t fit_count;
	struct heads_job *jobs;
	size_t slots;
	struct pool *pool;
	int held;                     /* a job handed out, to release */
	size_t next;                  /* the next point to fill */
};

/* Point b of a job's fit: (D_b, H*) with H* = D_b / x*, as the journal's
 * replay makes it. */
struct job_point {
	const struct ha_sweep_request *req;
	const double *dims;
};

static enum ha_status replay_job(void *ctx, size_t b, double *x, double *y)
{
	const struct job_point *jp = ctx;
	*x = (double)jp->req->budgets[b];
	*y = *x / jp->dims[b];
	return HA_OK;
}

void sweep_fit_point(const struct ha_sweep_request *req, struct ha_fit *fit,
                     const double *dims, struct ha_sweep_fit *f)
{
	struct job_point jp = {req, dims};
	ha_fit_reset(fit);
	for (size_t b = 0; b < req->budget_count; b++) {
		double x, y;
		replay_job(&jp, b, &x, &y);
		ha_fit_add(fit, x, y);
	}
	sweep_finish_fit(f, fit, replay_job, &jp);
	f->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
	if (f->status == HA_OK)
		f->largest_budget = req->budgets[f->result.max_residual_index];
}

/* The work of a job: fit its points. */
static void fit_points(void *ctx, size_t worker, size_t number)
{
	struct sweep_heads *hs = ctx;
	struct heads_job *job = &hs->jobs[number % hs->slots];
	size_t nb = hs->s->req.budget_count;
	for (size_t k = 0; k < job->count; k++)
		sweep_fit_point(&hs->s->req, hs->fits[worker], job->dims + k * nb,
		                &job->fits[k].heads_law);
}

/* Fill the next job: n and every budget's x* of its points. */
static void fill_job(struct sweep_heads *hs, struct heads_job *job,
                     struct ha_sweep *s, size_t points)
{
	size_t nb = s->req.budget_count, per = hs->points_per_job;
	job->first = hs->next;
	job->count = points - hs->next < per ? points - hs->next : per;
	for (size_t k = 0; k < job->count; k++) {
		size_t i = job->first + k;
		job->fits[k].samples = sweep_sample_at(s, i);
		/* Budget by budget: the journal reads a block of points of one
		 * budget at a time (and the sweep keeps every x* it solved, so
		 * a lost journal solves again with the same result). */
		for (size_t b = 0; b < nb; b++)
			sweep_relaxed_dim_at(s, b, i, &job->dims[k * nb + b]);
	}
	hs->next += job->count;
}

void sweep_heads_free(struct sweep_heads *hs)
{
	if (!hs)
		return;
	pool_free(hs->pool);
	/* Fit 0 is the sweep's own. */
	for (size_t w = 1; w < hs->fit_count; w++)
		ha_fit_free(hs->fits[w]);
	free(hs->fits);
	for (size_t i = 0; hs->jobs && i < hs->slots; i++) {
		free(hs->jobs[i].dims);
		free(hs->jobs[i].fits);
	}
	free(hs->jobs);
	free(hs);
}

static enum ha_status prepare_heads(struct sweep_heads *hs, struct ha_sweep *s,
                                    size_t threads)
{
	size_t nb = s->req.budget_count, per = hs->points_per_job;
	/* one fit a thread, fit 0 (the sweep's own) the calling thread's */
	size_t fits = threads;
	hs->slots = threads > 1 ? 2 * threads + 2 : 1;
	hs->fits = calloc(fits, sizeof *hs->fits);
	hs->jobs = calloc(hs->slots, sizeof *hs->jobs);
	if (!hs->fits || !hs->jobs)
		return HA_ENOMEM;
	hs->fits[0] = s->heads_power;
	hs->fit_count = 1;
	for (size_t w = 1; w < fits; w++) {
		if (ha_fit_new(HA_FIT_POWER, nb, &hs->fits[w]) != HA_OK)
			return HA_ENOMEM;
		hs->fit_count++;
	}
	for (size_t i = 0; i < hs->slots; i++) {
		struct heads_job *job = &hs->jobs[i];
		job->dims = malloc(per * nb * sizeof *job->dims);
		job->fits = malloc(per * sizeof *job->fits);
		if (!job->dims || !job->fits)
			return HA_ENOMEM;
	}
	return pool_new(threads, hs->slots, fit_points, hs, &hs->pool);
}

/* Workers and jobs of many points; short of memory for them, one point a
 * job on the calling thread. */
static enum ha_status heads_new(struct ha_sweep *s, struct sweep_heads **out)
{
	size_t nb = s->req.budget_count, points = s->req.samples.count;
	size_t per = JOB_VALUES / nb;
	if (per > JOB_POINTS)
		per = JOB_POINTS;
	if (per == 0)
		per = 1;
	size_t jobs = (points + per - 1) / per;
	size_t threads = jobs >= THREADED_MIN_JOBS && nb <= THREADED_MAX_BUDGETS
		? pool_threads(s->req.threads, jobs) : 1;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct sweep_heads *hs = calloc(1, sizeof *hs);
		if (!hs)
			return HA_ENOMEM;
		hs->s = s;
		hs->points_per_job = attempt ? 1 : per;
		if (prepare_heads(hs, s, attempt ? 1 : threads) == HA_OK) {
			*out = hs;
			return HA_OK;
		}
		sweep_heads_free(hs);
	}
	return HA_ENOMEM;
}

enum ha_status sweep_heads_next(struct ha_sweep *s,
                                const struct ha_sweep_samples_fit **fits,
                                size_t *count, struct ha_error *err)
{
	if (!s->heads && heads_new(s, &s->heads) != HA_OK)
		return ha_fail(err, HA_ENOMEM, "writing the fits: %s",
		               ha_status_str(HA_ENOMEM));
	struct sweep_heads *hs = s->heads;
	size_t points = s->req.samples.count;
	if (hs->held) {
		pool_release(hs->pool);
		hs->held = 0;
	}
	while (hs->next < points && pool_can_submit(hs->pool)) {
		fill_job(hs, &hs->jobs[pool_next(hs->pool) % hs->slots], s, points);
		pool_submit(hs->pool);
	}
	size_t number;
	if (!pool_wait(hs->pool, &number))
		return HA_OK;
	const struct heads_job *job = &hs->jobs[number % hs->slots];
	hs->held = 1;
	*fits = job->fits;
	*count = job->count;
	return HA_OK;
}
