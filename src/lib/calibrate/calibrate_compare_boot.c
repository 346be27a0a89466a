/* The comparison's bootstrap (headalloc-model(7), CALIBRATION (Comparing laws)): each law's
 * distribution of the optimum at the target over case resamples, for
 * the model-averaged distribution.
 *
 * Each of min(B, HA_CAL_COMPARE_RESAMPLES) resamples is refitted under
 * every law by least squares with the calibration bootstrap's refit
 * (cal_refit_grid: Levenberg–Marquardt from the law's whole grid of
 * starts) seeded with its full-data optimum and the optima of the laws
 * it contains in the same resample (so that nesting holds in every
 * resample too): a refit from the full-data optimum alone would leave
 * the directions the runs do not identify where they were.  Resample b
 * draws from the bootstrap's stream (seed, b) (calibrate_rng.h), so the
 * comparison's resamples are the first of the calibration's.  The cap
 * keeps the cost at a few hundred grid refits a law.  Resamples a law
 * cannot fit are "no answer" and stay in the denominator.
 *
 * Resamples are independent: worker threads (ha_cal_options.threads, as
 * the calibration's bootstrap) refit them, each resample's laws in the
 * fitting order on one thread, into the resample's own slots; the
 * tallies are made afterwards in resample order, so the distributions
 * do not depend on the thread count. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate_internal.h"
#include "calibrate_rng.h"

#define COMPARE_MAX_THREADS 8

/* What one law made of one resample. */
struct slot {
	int answered; /* an optimum at the target */
	uint64_t heads, head_dim;
};

struct job {
	const struct ha_run *runs;
	const struct cal_data *data;
	uint64_t seed;
	const struct ha_solver *solver;
	double samples;
	const struct ha_calibration *c;
	const size_t *order;
	const double *ls_values;
	const int *ls_fitted;
	size_t resamples, n;
	struct slot *out; /* resamples x n */
	const struct ha_progress *progress; /* called by the calling thread */
	atomic_size_t next;
	atomic_size_t done;
	atomic_int nomem;    /* 1: out of memory; 2: the caller's progress stopped it */
};

/* A thread's workspace. */
struct space {
	struct cal_data local;
	double *weight, *values;
	int *done;
};

static void space_free(struct space *s)
{
	free(s->weight);
	free(s->values);
	free(s->done);
}

static int space_init(struct space *s, const struct job *job)
{
	s->local = *job->data;
	s->weight = malloc(job->data->m * sizeof *s->weight);
	s->values = malloc(job->n * HA_CAL_PARAMS * sizeof *s->values);
	s->done = malloc(job->n * sizeof *s->done);
	if (!s->weight || !s->values || !s->done) {
		space_free(s);
		return 0;
	}
	s->local.weight = s->weight;
	return 1;
}

static int by_count(const void *a, const void *b)
{
	const struct ha_cal_share *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->head_dim > y->head_dim) - (x->head_dim < y->head_dim);
}

/* Row r in one resample: its seeds are its full-data optimum and the
 * resample's optima of the rows it contains (done[q]). */
static enum ha_status refit_row(const struct job *job, struct space *s,
                                size_t r, struct slot *slot)
{
	const struct ha_cal_comparison *row = &job->c->comparison[r];
	char msg[HA_CAL_MESSAGE_MAX];
	if (!cal_identifiable(&s->local, job->runs, row->free_count, msg) ||
	    !cal_data_term_identifiable(&s->local, &row->law, msg))
		return HA_OK;
	double seeds[(HA_CAL_COMPARE_MAX + 1) * HA_CAL_PARAMS];
	size_t ns = 0;
	memcpy(seeds, job->ls_values + HA_CAL_PARAMS * r,
	       HA_CAL_PARAMS * sizeof *seeds);
	ns++;
	for (size_t i = 0; i < row->contains_count; i++) {
		size_t q = row->contains[i];
		if (s->done[q])
			memcpy(seeds + HA_CAL_PARAMS * ns++, s->values + HA_CAL_PARAMS * q,
			       HA_CAL_PARAMS * sizeof *seeds);
	}
	double th[HA_CAL_PARAMS], objective;
	int converged;
	enum ha_status st = cal_refit_grid(&s->local, &row->law, INFINITY, seeds,
	                                   ns, th, &objective, &converged);
	if (st == HA_ENOMEM)
		return st;
	if (st != HA_OK)
		return HA_OK;
	s->done[r] = 1;
	memcpy(s->values + HA_CAL_PARAMS * r, th, sizeof th);
	struct ha_allocation a;
	if (cal_predict(job->solver, job->samples, th, &a, NULL) != HA_OK)
		return HA_OK;
	*slot = (struct slot){1, a.heads, a.head_dim};
	return HA_OK;
}

static void work(struct job *job, struct space *s, int caller)
{
	for (;;) {
		if (atomic_load(&job->nomem))
			return;
		size_t b = atomic_fetch_add(&job->next, 1);
		if (b >= job->resamples)
			return;
		struct cal_rng rng;
		cal_rng_init(&rng, job->seed, (uint64_t)b);
		cal_rng_cases(&rng, s->weight, job->data->m);
		memset(s->done, 0, job->n * sizeof *s->done);
		struct slot *out = job->out + b * job->n;
		for (size_t i = 0; i < job->n; i++) {
			size_t r = job->order[i];
			if (job->ls_fitted[r] && refit_row(job, s, r, &out[r]) != HA_OK) {
				atomic_store(&job->nomem, 1);
				return;
			}
		}
		size_t done = atomic_fetch_add(&job->done, 1) + 1;
		const struct ha_progress *p = job->progress;
		if (caller && p->fn &&
		    p->fn(p->ctx, "resamples", done, job->resamples) != 0)
			atomic_store(&job->nomem, 2);
	}
}

struct worker {
	pthread_t thread;
	struct job *job;
	struct space space;
	int has_space, started;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	work(w->job, &w->space, 0);
	return NULL;
}

static size_t threads_for(size_t wanted, size_t resamples)
{
	if (wanted == 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		wanted = online > 0 ? (size_t)online : 1;
	}
	if (wanted > COMPARE_MAX_THREADS)
		wanted = COMPARE_MAX_THREADS;
	if (wanted > resamples)
		wanted = resamples;
	return wanted ? wanted : 1;
}

/* Refit every resample under every law into job->out: HA_OK, HA_ENOMEM
 * or HA_ECANCELED. */
static enum ha_status run_job(struct job *job, size_t threads)
{
	struct worker workers[COMPARE_MAX_THREADS];
	struct space mine;
	if (!space_init(&mine, job))
		return HA_ENOMEM;
	size_t extra = threads_for(threads, job->resamples) - 1;
	for (size_t t = 0; t < extra; t++) {
		workers[t].job = job;
		workers[t].has_space = space_init(&workers[t].space, job);
		workers[t].started = workers[t].has_space &&
		                     pthread_create(&workers[t].thread, NULL,
		                                    worker_main, &workers[t]) == 0;
		/* a thread that could not start leaves its share to the others */
	}
	work(job, &mine, 1);
	for (size_t t = 0; t < extra; t++) {
		if (workers[t].started)
			pthread_join(workers[t].thread, NULL);
		if (workers[t].has_space)
			space_free(&workers[t].space);
	}
	space_free(&mine);
	int stopped = atomic_load(&job->nomem);
	return stopped == 2 ? HA_ECANCELED : stopped ? HA_ENOMEM : HA_OK;
}

/* Slot s of row into its distribution. */
static int tally(struct ha_cal_comparison *row, size_t *cap, const struct slot *s)
{
	row->answered++;
	for (size_t i = 0; i < row->distribution_count; i++)
		if (row->distribution[i].head_dim == s->head_dim) {
			row->distribution[i].count++;
			return 1;
		}
	if (row->distribution_count == *cap) {
		size_t n = *cap ? 2 * *cap : 4;
		struct ha_cal_share *d = realloc(row->distribution, n * sizeof *d);
		if (!d)
			return 0;
		row->distribution = d;
		*cap = n;
	}
	row->distribution[row->distribution_count++] =
		(struct ha_cal_share){s->heads, s->head_dim, 1, 0.0};
	return 1;
}

enum ha_status cal_compare_bootstrap(const struct ha_run *runs,
                                     const struct cal_data *data,
                                     const struct ha_cal_options *o,
                                     const struct ha_solver *solver,
                                     double samples, struct ha_calibration *c,
                                     const size_t *order,
                                     const double *ls_values,
                                     const int *ls_fitted)
{
	size_t resamples = o->bootstrap < HA_CAL_COMPARE_RESAMPLES
	                           ? o->bootstrap
	                           : HA_CAL_COMPARE_RESAMPLES;
	size_t n = c->comparison_count;
	if (!solver || resamples == 0)
		return cal_average(c);
	struct job job = {
		.runs = runs, .data = data, .seed = o->seed, .solver = solver,
		.samples = samples, .c = c, .order = order, .ls_values = ls_values,
		.ls_fitted = ls_fitted, .resamples = resamples, .n = n,
		.progress = &o->progress,
	};
	atomic_init(&job.next, 0);
	atomic_init(&job.done, 0);
	atomic_init(&job.nomem, 0);
	job.out = calloc(resamples * n, sizeof *job.out);
	size_t *cap = calloc(n, sizeof *cap);
	enum ha_status st = HA_ENOMEM;
	if (!job.out || !cap)
		goto out;
	for (size_t r = 0; r < n; r++)
		c->comparison[r].resamples = ls_fitted[r] ? resamples : 0;
	st = run_job(&job, o->threads);
	for (size_t b = 0; b < resamples && st == HA_OK; b++)
		for (size_t r = 0; r < n && st == HA_OK; r++)
			if (job.out[b * n + r].answered &&
			    !tally(&c->comparison[r], &cap[r], &job.out[b * n + r]))
				st = HA_ENOMEM;
	for (size_t r = 0; r < n && st == HA_OK; r++) {
		struct ha_cal_comparison *row = &c->comparison[r];
		if (!row->resamples)
			continue;
		if (row->distribution_count)
			qsort(row->distribution, row->distribution_count,
			      sizeof *row->distribution, by_count);
		for (size_t k = 0; k < row->distribution_count; k++) {
			struct ha_cal_share *s = &row->distribution[k];
			s->share = (double)s->count / (double)row->resamples;
			if (row->has_prediction && s->head_dim == row->head_dim)
				row->share = s->share;
		}
	}
	if (st == HA_OK)
		st = cal_average(c);
out:
	free(job.out);
	free(cap);
	return st;
}
