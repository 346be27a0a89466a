/* The bootstrap (headalloc-model(7), CALIBRATION (Uncertainty and
 * identifiability)) and predictions at the target.
 *
 * Each resample is refitted from the same grid of starts as the full fit
 * (its linear starts recomputed on the resample) and from the full
 * data's optimum, by Levenberg–Marquardt from each (cal_refit_grid); the
 * best end wins.  A refit from the optimum alone never moves along a direction
 * the data do not identify, and its shares were an artefact of that.
 *
 * Two kinds.  Cases: a resample draws m runs with replacement, entering
 * the objective as a multiplicity per run (no copy); resamples with fewer
 * distinct configurations than free parameters + 1 (or one head_dim
 * where that cannot be fitted) are "no answer", never dropped from the
 * shares' denominator.  Residuals: every run is kept and its ln L
 * replaced by ln L̂_i + e*_i / w_i (w = L/se, or 1) from the fit's
 * standardised log residuals e_j = w_j (ln L_j - ln L̂_j), each first
 * divided by sqrt(1 - h_jj), h the Gauss–Newton leverage
 * (calibrate_leverage.c): the modified residuals of Davison and Hinkley
 * (1997, chapter 6), whose variance is the noise's where the raw
 * ones are shrunk by the fit.  Residuals draws e* from the centred
 * modified residuals, which assumes them exchangeable (the stated
 * loss_se, or their absence, right about which runs are noisier); wild
 * keeps each run's own modified residual times a Rademacher sign (Wu
 * 1986; Liu 1988; Rademacher after Davidson and Flachaire 2008), which
 * holds when the noise differs between runs in ways the se do not say.  Log residuals
 * because the fit's error model is multiplicative (the objective is on
 * ln L), so a resampled loss stays positive and a residual of a large
 * loss is not replayed on a small one.
 *
 * Resamples are independent: worker threads refit them, each from its
 * own random stream (calibrate_rng.h), into its own slot; the tallies
 * are made afterwards in resample order, so results do not depend on the
 * thread count.  The calling thread refits too (base/pool.h) and tells
 * the progress callback of the resamples done, in resample order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calibrate_internal.h"
#include "calibrate_rng.h"
#include "alloc/solver_internal.h"

enum ha_status cal_predict(const struct ha_solver *solver, double samples,
                           const double *th, struct ha_allocation *out,
                           struct ha_certificate *certificate)
{
	struct ha_model m = ha_cal_model_of(th);
	if (ha_model_validate(&m) != HA_OK)
		return HA_EINVAL;
	return ha_solver_solve_integer(solver, &m, samples, out, certificate);
}

const char *ha_cal_bootstrap_kind_str(enum ha_cal_bootstrap_kind kind)
{
	switch (kind) {
	case HA_CAL_BOOT_CASES:
		return "cases";
	case HA_CAL_BOOT_RESIDUALS:
		return "residuals";
	case HA_CAL_BOOT_WILD:
		return "wild";
	}
	return NULL;
}

/* What became of one resample. */
enum outcome_kind { OUT_FITTED = 0, OUT_UNFITTABLE, OUT_FAILED, OUT_NOMEM };

struct outcome {
	enum outcome_kind kind;
	int converged;
	int covering;  /* a case resample holding every distinct configuration */
	int predicted; /* an optimum at the target */
	uint64_t heads, head_dim;
	double th[HA_CAL_PARAMS];
};

struct boot_job {
	const struct ha_run *runs;
	const struct cal_data *data;
	const struct ha_cal_law *law; /* value[] = the full-data optimum */
	double delta;
	enum ha_cal_bootstrap_kind kind;
	uint64_t seed;
	size_t resamples;
	const struct ha_solver *solver;
	double samples;
	int wild;              /* residuals: each run's own, signed */
	const double *modified; /* residuals: wild: run i's; pooled: centred */
	size_t pool;            /* pooled: how many of modified to draw from */
	const double *log_fitted; /* residuals: ln L̂_i; m */
	struct outcome *out;
	struct boot_space *spaces; /* one a worker */
};

/* A thread's workspace: its own weights and (residuals) losses. */
struct boot_space {
	struct cal_data data;
	double *weight, *log_loss;
	unsigned char *seen; /* per configuration, cases */
};

static void space_free(struct boot_space *s)
{
	free(s->weight);
	free(s->log_loss);
	free(s->seen);
}

static int space_init(struct boot_space *s, const struct boot_job *job)
{
	size_t m = job->data->m;
	s->data = *job->data;
	s->weight = malloc(m * sizeof *s->weight);
	s->log_loss = malloc(m * sizeof *s->log_loss);
	s->seen = malloc(m);
	if (!s->weight || !s->log_loss || !s->seen) {
		space_free(s);
		return 0;
	}
	s->data.weight = s->weight;
	s->data.log_loss = s->log_loss;
	memcpy(s->log_loss, job->data->log_loss, m * sizeof *s->log_loss);
	return 1;
}

static void refit_one(const struct boot_job *job, struct boot_space *s, size_t b)
{
	struct outcome *o = &job->out[b];
	const struct cal_data *full = job->data;
	size_t m = full->m;
	struct cal_rng rng;
	cal_rng_init(&rng, job->seed, (uint64_t)b);
	memset(o, 0, sizeof *o);
	if (job->kind == HA_CAL_BOOT_CASES) {
		cal_rng_cases(&rng, s->weight, m);
		char msg[HA_CAL_MESSAGE_MAX];
		if (!cal_identifiable(&s->data, job->runs, cal_free_count(job->law),
		                      msg)) {
			o->kind = OUT_UNFITTABLE;
			return;
		}
		memset(s->seen, 0, full->distinct);
		size_t held = 0;
		for (size_t i = 0; i < m; i++)
			if (s->weight[i] > 0.0 && !s->seen[full->config[i]]) {
				s->seen[full->config[i]] = 1;
				held++;
			}
		o->covering = held == full->distinct;
	} else {
		double lo = INFINITY;
		for (size_t i = 0; i < m; i++) {
			s->weight[i] = 1.0;
			double e = job->wild
				? (cal_rng_next(&rng) >> 63 ? job->modified[i]
				                            : -job->modified[i])
				: job->modified[cal_rng_below(&rng, job->pool)];
			s->log_loss[i] = job->log_fitted[i] + e / full->inv_w[i];
			lo = fmin(lo, s->log_loss[i]);
		}
		s->data.loss_min = exp(lo);
	}
	double f;
	enum ha_status st = cal_refit_grid(&s->data, job->law, job->delta,
	                                   job->law->value, 1, o->th, &f,
	                                   &o->converged);
	if (st == HA_ENOMEM) {
		o->kind = OUT_NOMEM;
		return;
	}
	if (st != HA_OK) {
		o->kind = OUT_FAILED;
		return;
	}
	o->kind = OUT_FITTED;
	if (!job->solver)
		return;
	struct ha_allocation a;
	if (cal_predict(job->solver, job->samples, o->th, &a, NULL) == HA_OK) {
		o->predicted = 1;
		o->heads = a.heads;
		o->head_dim = a.head_dim;
	}
}

/* Resample b (pool_for's task) on the worker's own workspace. */
static enum ha_status refit_task(void *ctx, size_t worker, size_t b)
{
	struct boot_job *job = ctx;
	refit_one(job, &job->spaces[worker], b);
	return job->out[b].kind == OUT_NOMEM ? HA_ENOMEM : HA_OK;
}

/* Refit every resample into job->out: HA_OK, HA_ENOMEM or HA_ECANCELED. */
static enum ha_status run_job(struct boot_job *job, size_t threads,
                              const struct ha_progress *progress)
{
	struct boot_space spaces[POOL_MAX_THREADS];
	size_t wanted = pool_threads(threads, job->resamples), ready = 0;
	/* a thread without a workspace leaves its share to the others */
	while (ready < wanted && space_init(&spaces[ready], job))
		ready++;
	if (ready == 0)
		return HA_ENOMEM;
	job->spaces = spaces;
	enum ha_status st = pool_for(job->resamples, ready, refit_task, job,
	                             progress, "resamples");
	for (size_t t = 0; t < ready; t++)
		space_free(&spaces[t]);
	return st;
}

static int by_share(const void *a, const void *b)
{
	const struct ha_cal_share *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->head_dim > y->head_dim) - (x->head_dim < y->head_dim);
}

/* The distribution of the optima over all B, most frequent first. */
static enum ha_status tally(const struct outcome *out, size_t resamples,
                            struct ha_cal_prediction *pred)
{
	struct ha_cal_share *rows = NULL;
	size_t count = 0, cap = 0, answered = 0;
	for (size_t b = 0; b < resamples; b++) {
		if (out[b].kind != OUT_FITTED || !out[b].predicted)
			continue;
		answered++;
		size_t i = 0;
		while (i < count && rows[i].head_dim != out[b].head_dim)
			i++;
		if (i < count) {
			rows[i].count++;
			continue;
		}
		if (count == cap) {
			cap = cap ? 2 * cap : 8;
			struct ha_cal_share *grown = realloc(rows, cap * sizeof *rows);
			if (!grown) {
				free(rows);
				return HA_ENOMEM;
			}
			rows = grown;
		}
		rows[count++] = (struct ha_cal_share){out[b].heads, out[b].head_dim, 1, 0.0};
	}
	if (count)
		qsort(rows, count, sizeof *rows, by_share);
	for (size_t i = 0; i < count; i++)
		rows[i].share = (double)rows[i].count / (double)resamples;
	pred->distribution = rows;
	pred->distribution_count = count;
	pred->no_answer_share = (double)(resamples - answered) / (double)resamples;
	return HA_OK;
}

/* The modified residuals e_j / sqrt(1 - h_jj) into e: each run's own
 * (wild), or the centred pool of those whose leverage leaves them a
 * residual (h_jj < 1 - 1e-9: a run the fit passes through has none),
 * whose count is returned; 0 when none is left. */
static size_t modified_residuals(const struct ha_cal_fit *fit,
                                 const double *leverage, int wild, double *e,
                                 double *log_fitted)
{
	size_t m = fit->runs, count = 0;
	double mean = 0.0;
	for (size_t i = 0; i < m; i++) {
		log_fitted[i] = fit->residuals[i].log_fitted;
		double room = 1.0 - leverage[i];
		if (wild) {
			e[i] = room > 1e-9 ? fit->residuals[i].standardised / sqrt(room) : 0.0;
			continue;
		}
		if (!(room > 1e-9))
			continue;
		e[count] = fit->residuals[i].standardised / sqrt(room);
		mean += e[count++];
	}
	if (wild)
		return m;
	for (size_t j = 0; j < count; j++)
		e[j] -= mean / (double)count;
	return count;
}

static void intervals(struct ha_cal_fit *fit, const double *values, size_t n,
                      double *column)
{
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		if (!fit->law.free[p])
			continue;
		for (size_t b = 0; b < n; b++)
			column[b] = values[b * HA_CAL_PARAMS + p];
		gsl_sort(column, 1, n);
		fit->param[p].has_ci = 1;
		fit->param[p].ci95[0] =
			gsl_stats_quantile_from_sorted_data(column, 1, n, 0.025);
		fit->param[p].ci95[1] =
			gsl_stats_quantile_from_sorted_data(column, 1, n, 0.975);
	}
}

enum ha_status cal_bootstrap(const struct ha_run *runs, const struct cal_data *data,
                             double delta, const struct ha_cal_options *o,
                             const struct ha_solver *solver, double samples,
                             struct ha_calibration *c)
{
	struct ha_cal_fit *fit = &c->fit;
	struct ha_cal_bootstrap *boot = &c->bootstrap;
	size_t m = data->m, k = fit->free_count, resamples = o->bootstrap;
	boot->resamples = resamples;
	boot->seed = o->seed;
	boot->kind = o->bootstrap_kind;
	boot->distinct = data->distinct;
	if (resamples == 0)
		return HA_OK;

	struct boot_job job = {
		.runs = runs, .data = data, .law = &fit->law, .delta = delta,
		.kind = o->bootstrap_kind, .seed = o->seed, .resamples = resamples,
		.solver = solver, .samples = samples,
	};
	double *modified = NULL, *log_fitted = NULL, *leverage = NULL;
	double *values = NULL;
	job.out = malloc(resamples * sizeof *job.out);
	enum ha_status st = HA_ENOMEM;
	if (!job.out)
		goto done;
	if (o->bootstrap_kind != HA_CAL_BOOT_CASES) {
		modified = malloc(m * sizeof *modified);
		log_fitted = malloc(m * sizeof *log_fitted);
		leverage = malloc(m * sizeof *leverage);
		if (!modified || !log_fitted || !leverage ||
		    !cal_leverage(data, &fit->law, fit->law.value, leverage))
			goto done;
		job.wild = o->bootstrap_kind == HA_CAL_BOOT_WILD;
		job.pool = modified_residuals(fit, leverage, job.wild, modified,
		                              log_fitted);
		if (job.pool == 0) { /* every run carries the fit: nothing to draw */
			modified[0] = 0.0;
			job.pool = 1;
		}
		job.modified = modified;
		job.log_fitted = log_fitted;
	}
	st = run_job(&job, o->threads, &o->progress);
	if (st != HA_OK)
		goto done;
	st = HA_ENOMEM;
	for (size_t b = 0; b < resamples; b++) {
		const struct outcome *r = &job.out[b];
		boot->unfittable += r->kind == OUT_UNFITTABLE;
		boot->failed += r->kind == OUT_FAILED;
		if (r->kind != OUT_FITTED)
			continue;
		boot->fitted++;
		boot->unconverged += !r->converged;
		boot->covering += r->covering;
		boot->predicted += r->predicted;
	}
	/* Degenerate: the resamples are reorderings of the data itself. */
	boot->degenerate =
		data->distinct <= k + 2 ||
		(o->bootstrap_kind == HA_CAL_BOOT_CASES && boot->fitted > 0 &&
		 10 * boot->covering >= 9 * boot->fitted);
	if (boot->fitted > 0) {
		values = malloc(boot->fitted * HA_CAL_PARAMS * sizeof *values);
		if (!values)
			goto done;
		size_t f = 0;
		for (size_t b = 0; b < resamples; b++)
			if (job.out[b].kind == OUT_FITTED)
				memcpy(values + HA_CAL_PARAMS * f++, job.out[b].th,
				       sizeof job.out[b].th);
	}
	if (boot->fitted >= 2) {
		double *column = malloc(boot->fitted * sizeof *column);
		if (!column)
			goto done;
		intervals(fit, values, boot->fitted, column);
		free(column);
	}
	if (solver && tally(job.out, resamples, &c->prediction) != HA_OK)
		goto done;
	/* The refits stay for the curves' bands (ha_cal_band). */
	boot->refits = values;
	values = NULL;
	st = HA_OK;
done:
	free(job.out);
	free(modified);
	free(log_fitted);
	free(leverage);
	free(values);
	return st;
}
