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
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "calibrate_rng.h"

/* What one law made of one resample. */
struct slot {
	int answered; /* an optimum at the target */
	uint64_t heads, head_dim;
	int fitted;   /* th holds the law's refit */
	double th[HA_CAL_PARAMS];
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
	struct space *spaces; /* one a worker */
	const struct ha_progress *progress; /* told by pool_for on the calling thread */
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
	slot->fitted = 1;
	memcpy(slot->th, th, sizeof th);
	struct ha_allocation a;
	if (cal_predict(job->solver, job->samples, th, &a, NULL) != HA_OK)
		return HA_OK;
	slot->answered = 1;
	slot->heads = a.heads;
	slot->head_dim = a.head_dim;
	return HA_OK;
}

/* Resample b under every law (pool_for's task), on the worker's own
 * workspace. */
static enum ha_status refit_resample(void *ctx, size_t worker, size_t b)
{
	struct job *job = ctx;
	struct space *s = &job->spaces[worker];
	struct cal_rng rng;
	cal_rng_init(&rng, job->seed, (uint64_t)b);
	cal_rng_cases(&rng, s->weight, job->data->m);
	memset(s->done, 0, job->n * sizeof *s->done);
	struct slot *out = job->out + b * job->n;
	for (size_t i = 0; i < job->n; i++) {
		size_t r = job->order[i];
		if (job->ls_fitted[r] && refit_row(job, s, r, &out[r]) != HA_OK)
			return HA_ENOMEM;
	}
	return HA_OK;
}

/* Refit every resample under every law into job->out: HA_OK, HA_ENOMEM
 * or HA_ECANCELED. */
static enum ha_status run_job(struct job *job, size_t threads)
{
	struct space spaces[POOL_MAX_THREADS];
	size_t wanted = pool_threads(threads, job->resamples), ready = 0;
	/* a thread without a workspace leaves its share to the others */
	while (ready < wanted && space_init(&spaces[ready], job))
		ready++;
	if (ready == 0)
		return HA_ENOMEM;
	job->spaces = spaces;
	enum ha_status st = pool_for(job->resamples, ready, refit_resample, job,
	                             job->progress, "resamples");
	for (size_t t = 0; t < ready; t++)
		space_free(&spaces[t]);
	return st;
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

/* The row's refits (slots stride apart, one a resample) into row->refits. */
static enum ha_status keep_refits(struct ha_cal_comparison *row,
                                  const struct slot *slots, size_t stride,
                                  size_t resamples)
{
	size_t fitted = 0;
	for (size_t b = 0; b < resamples; b++)
		fitted += slots[b * stride].fitted;
	if (!fitted)
		return HA_OK;
	row->refits = malloc(fitted * HA_CAL_PARAMS * sizeof *row->refits);
	if (!row->refits)
		return HA_ENOMEM;
	for (size_t b = 0; b < resamples; b++)
		if (slots[b * stride].fitted)
			memcpy(row->refits + HA_CAL_PARAMS * row->refit_count++,
			       slots[b * stride].th, sizeof slots[b * stride].th);
	return HA_OK;
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
	size_t cap_resamples = o->compare_resamples ? o->compare_resamples
	                                            : HA_CAL_COMPARE_RESAMPLES;
	size_t resamples = o->bootstrap < cap_resamples ? o->bootstrap
	                                                : cap_resamples;
	size_t n = c->comparison_count;
	if (!solver || resamples == 0)
		return cal_average(c);
	struct job job = {
		.runs = runs, .data = data, .seed = o->seed, .solver = solver,
		.samples = samples, .c = c, .order = order, .ls_values = ls_values,
		.ls_fitted = ls_fitted, .resamples = resamples, .n = n,
		.progress = &o->progress,
	};
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
	for (size_t r = 0; r < n && st == HA_OK; r++)
		st = keep_refits(&c->comparison[r], job.out + r, n, resamples);
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
