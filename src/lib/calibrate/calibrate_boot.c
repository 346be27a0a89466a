/* The bootstraps (headalloc-model(7), CALIBRATION (Uncertainty and
 * identifiability; Comparing laws)): the main law's, for its intervals
 * and the prediction's distribution, and the comparison's, for each
 * law's distribution of the optimum and the model-averaged one.  One
 * mechanism: resamples refitted on the pool, each into its own slot.
 *
 * Each resample is refitted from the same grid of starts as the full fit
 * (its linear starts recomputed on the resample) and from the full
 * data's optimum, by Levenberg–Marquardt from each (cal_refit_grid); the
 * best end wins: a refit from the optimum alone would never move along
 * a direction the data do not identify.
 *
 * Two kinds.  Cases: a resample draws m runs with replacement, entering
 * the objective as a multiplicity per run (no copy); resamples with fewer
 * distinct configurations than free parameters + 1 (or one head_dim
 * where that cannot be fitted) are "no answer", never dropped from the
 * shares' denominator.  Residuals: every run is kept and its ln L
 * replaced by ln L̂_i + e*_i / w_i (w = L/se, or 1) from the fit's
 * standardised log residuals e_j = w_j (ln L_j - ln L̂_j), each first
 * divided by sqrt(1 - h_jj), h the Gauss–Newton leverage
 * (cal_leverage): the modified residuals of Davison and Hinkley
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
 * The comparison: each of min(B, HA_CAL_COMPARE_RESAMPLES) case
 * resamples is refitted under every law by least squares (cal_refit_grid)
 * seeded with the law's full-data optimum and the optima of the laws it
 * contains in the same resample (so that nesting holds in every resample
 * too).  Resample b draws from the stream (seed, b) (calibrate_rng.h), so
 * the comparison's resamples are the first of the calibration's.  The
 * cap keeps the cost at a few hundred grid refits a law.
 *
 * Resamples are independent: worker threads refit them, each from its
 * own random stream, into its own slot (a comparison's resample: its
 * laws in the fitting order, on one thread); the tallies are made
 * afterwards in resample order, so results do not depend on the thread
 * count.  The calling thread refits too (base/pool.h) and tells the
 * progress callback of the resamples done, in resample order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calibrate_internal.h"
#include "calibrate_rng.h"
#include "alloc/solver_internal.h"

int cal_predict(const struct ha_solver *solver, double samples,
                const double *th, uint64_t *heads, uint64_t *head_dim,
                double *loss)
{
	struct ha_model m = ha_cal_model_of(th);
	struct ha_allocation a;
	if (!solver || ha_model_validate(&m) != HA_OK ||
	    ha_solver_solve_integer(solver, &m, samples, &a, NULL) != HA_OK)
		return 0;
	*heads = a.heads;
	*head_dim = a.head_dim;
	if (loss)
		*loss = a.terms.mse;
	return 1;
}

/* Each kind's name (the option's value) and its word before "bootstrap"
 * in the reports ("the case bootstrap"). */
static const char *const kind_words[][2] = {
	[HA_CAL_BOOT_CASES] = {"cases", "case"},
	[HA_CAL_BOOT_RESIDUALS] = {"residuals", "residual"},
	[HA_CAL_BOOT_WILD] = {"wild", "wild"},
};

const char *ha_cal_bootstrap_kind_str(enum ha_cal_bootstrap_kind kind)
{
	return (size_t)kind < sizeof kind_words / sizeof *kind_words
	       ? kind_words[kind][0] : NULL;
}

const char *cal_bootstrap_word(enum ha_cal_bootstrap_kind kind)
{
	return ha_cal_bootstrap_kind_str(kind) ? kind_words[kind][1] : NULL;
}

/* ---- resamples on the pool ----------------------------------------------- */

/* What became of one resample under one law (zeroed: not fitted). */
enum outcome_kind { OUT_UNFITTABLE = 0, OUT_FITTED, OUT_FAILED, OUT_NOMEM };

struct outcome {
	enum outcome_kind kind;
	int converged;
	int covering;  /* a case resample holding every distinct configuration */
	int predicted; /* an optimum at the target */
	uint64_t heads, head_dim;
	double th[HA_CAL_PARAMS];
};

/* A worker's workspace: its own weights and (residuals) losses, and in
 * the comparison each law's refit in the resample at hand. */
struct space {
	struct cal_data data;
	double *weight, *log_loss;
	unsigned char *seen; /* per configuration, cases */
	double *values;      /* laws x HA_CAL_PARAMS */
	int *done;           /* laws: values[law] holds its refit */
};

static void space_free(struct space *s)
{
	free(s->weight); /* log_loss's and values' block too */
	free(s->seen);
	free(s->done);
}

static int space_init(struct space *s, const struct cal_data *data, size_t laws)
{
	size_t m = data->m;
	s->data = *data;
	s->weight = malloc((2 * m + (laws + 1) * HA_CAL_PARAMS) * sizeof *s->weight);
	s->seen = malloc(m);
	s->done = malloc((laws + 1) * sizeof *s->done);
	if (!s->weight || !s->seen || !s->done) {
		space_free(s);
		return 0;
	}
	s->log_loss = s->weight + m;
	s->values = s->log_loss + m;
	s->data.weight = s->weight;
	s->data.log_loss = s->log_loss;
	memcpy(s->log_loss, data->log_loss, m * sizeof *s->log_loss);
	return 1;
}

typedef enum ha_status (*refit_fn)(const void *job, struct space *s, size_t b);

struct resampling {
	struct space *spaces; /* one a worker */
	refit_fn refit;
	const void *job;
};

static enum ha_status resample_task(void *ctx, size_t worker, size_t b)
{
	struct resampling *r = ctx;
	return r->refit(r->job, &r->spaces[worker], b);
}

/* refit(job, workspace, b) for every resample b on up to `threads`
 * workers: HA_OK, HA_ENOMEM or HA_ECANCELED. */
static enum ha_status resample_all(const struct cal_data *data, size_t laws,
                                   size_t resamples, size_t threads,
                                   const struct ha_progress *progress,
                                   refit_fn refit, const void *job)
{
	struct space spaces[POOL_MAX_THREADS];
	size_t wanted = pool_threads(threads, resamples), ready = 0;
	/* a thread without a workspace leaves its share to the others */
	while (ready < wanted && space_init(&spaces[ready], data, laws))
		ready++;
	if (ready == 0)
		return HA_ENOMEM;
	struct resampling r = {spaces, refit, job};
	enum ha_status st = pool_for(resamples, ready, resample_task, &r,
	                             progress, "resamples");
	for (size_t t = 0; t < ready; t++)
		space_free(&spaces[t]);
	return st;
}

/* ---- the distributions and refits of the outcomes ------------------------ */

int cal_add_share(struct ha_cal_share **rows, size_t *count, size_t *cap,
                  uint64_t heads, uint64_t head_dim, size_t more, double share)
{
	for (size_t i = 0; i < *count; i++)
		if ((*rows)[i].head_dim == head_dim) {
			(*rows)[i].count += more;
			(*rows)[i].share += share;
			return 1;
		}
	if (*count == *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		struct ha_cal_share *grown = realloc(*rows, n * sizeof *grown);
		if (!grown)
			return 0;
		*rows = grown;
		*cap = n;
	}
	(*rows)[(*count)++] = (struct ha_cal_share){heads, head_dim, more, share};
	return 1;
}

static int by_share(const void *a, const void *b)
{
	const struct ha_cal_share *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return (x->head_dim > y->head_dim) - (x->head_dim < y->head_dim);
}

void cal_sort_shares(struct ha_cal_share *rows, size_t count)
{
	if (count)
		qsort(rows, count, sizeof *rows, by_share);
}

/* The fitted outcomes out[b * stride] (one a resample): their parameters
 * into *refits (*refit_count of them; NULL when none) and, with predict,
 * the distribution of their optima into *rows (*count; most frequent
 * first, each a share of all the resamples), *answered the optima. */
static enum ha_status gather(const struct outcome *out, size_t stride,
                             size_t resamples, int predict, double **refits,
                             size_t *refit_count, struct ha_cal_share **rows,
                             size_t *count, size_t *answered)
{
	size_t fitted = 0, cap = 0;
	for (size_t b = 0; b < resamples; b++)
		fitted += out[b * stride].kind == OUT_FITTED;
	*refits = fitted ? malloc(fitted * HA_CAL_PARAMS * sizeof **refits) : NULL;
	*refit_count = 0;
	if (fitted && !*refits)
		return HA_ENOMEM;
	for (size_t b = 0; b < resamples; b++) {
		const struct outcome *o = &out[b * stride];
		if (o->kind != OUT_FITTED)
			continue;
		memcpy(*refits + HA_CAL_PARAMS * (*refit_count)++, o->th,
		       sizeof o->th);
		if (!predict || !o->predicted)
			continue;
		++*answered;
		if (!cal_add_share(rows, count, &cap, o->heads, o->head_dim, 1, 0.0))
			return HA_ENOMEM;
	}
	for (size_t i = 0; i < *count; i++)
		(*rows)[i].share = (double)(*rows)[i].count / (double)resamples;
	cal_sort_shares(*rows, *count);
	return HA_OK;
}

/* The refit of one resample under law (cal_refit_grid) into o, with its
 * optimum at the target: HA_ENOMEM, else HA_OK whatever the outcome. */
static enum ha_status refit(const struct cal_data *data,
                            const struct ha_cal_law *law, double delta,
                            const double *seeds, size_t seed_count,
                            const struct ha_solver *solver, double samples,
                            struct outcome *o)
{
	double f;
	enum ha_status st = cal_refit_grid(data, law, delta, seeds, seed_count,
	                                   o->th, &f, &o->converged);
	o->kind = st == HA_OK ? OUT_FITTED : st == HA_ENOMEM ? OUT_NOMEM
	                                                     : OUT_FAILED;
	if (st == HA_OK)
		o->predicted = cal_predict(solver, samples, o->th, &o->heads,
		                           &o->head_dim, NULL);
	return st == HA_ENOMEM ? st : HA_OK;
}

/* ---- the main law's bootstrap -------------------------------------------- */

struct boot_job {
	const struct ha_run *runs;
	const struct cal_data *data;
	const struct ha_cal_fit *fit; /* law.value[] = the full-data optimum */
	double delta;
	enum ha_cal_bootstrap_kind kind;
	uint64_t seed;
	const struct ha_solver *solver;
	double samples;
	int wild;              /* residuals: each run's own, signed */
	const double *modified; /* residuals: wild: run i's; pooled: centred */
	size_t pool;            /* pooled: how many of modified to draw from */
	struct outcome *out;
};

static enum ha_status refit_one(const void *ctx, struct space *s, size_t b)
{
	const struct boot_job *job = ctx;
	struct outcome *o = &job->out[b];
	const struct cal_data *full = job->data;
	size_t m = full->m;
	struct cal_rng rng;
	cal_rng_init(&rng, job->seed, (uint64_t)b);
	memset(o, 0, sizeof *o);
	if (job->kind == HA_CAL_BOOT_CASES) {
		cal_rng_cases(&rng, s->weight, m);
		char msg[HA_CAL_MESSAGE_MAX];
		if (!cal_identifiable(&s->data, job->runs, job->fit->free_count,
		                      NULL, msg))
			return HA_OK; /* OUT_UNFITTABLE */
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
			s->log_loss[i] = job->fit->residuals[i].log_fitted +
			                 e / full->inv_w[i];
			lo = fmin(lo, s->log_loss[i]);
		}
		s->data.loss_min = exp(lo);
	}
	const struct ha_cal_law *law = &job->fit->law;
	return refit(&s->data, law, job->delta, law->value, 1, job->solver,
	             job->samples, o);
}

/* The modified residuals e_j / sqrt(1 - h_jj) into e, which holds the
 * leverages h on entry (e[j] is written once h_j and those before it
 * are read): each run's own (wild), or the centred pool of those whose
 * leverage leaves them a residual (h_jj < 1 - 1e-9: a run the fit
 * passes through has none), whose count is returned; 0 when none is
 * left. */
static size_t modified_residuals(const struct ha_cal_fit *fit, int wild,
                                 double *e)
{
	size_t m = fit->runs, count = 0;
	double mean = 0.0;
	for (size_t i = 0; i < m; i++) {
		double room = 1.0 - e[i];
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
		.runs = runs, .data = data, .fit = fit, .delta = delta,
		.kind = o->bootstrap_kind, .seed = o->seed,
		.solver = solver, .samples = samples,
	};
	double *modified = NULL;
	job.out = malloc(resamples * sizeof *job.out);
	enum ha_status st = HA_ENOMEM;
	if (!job.out)
		goto done;
	if (o->bootstrap_kind != HA_CAL_BOOT_CASES) {
		modified = malloc(m * sizeof *modified);
		if (!modified ||
		    !cal_leverage(data, &fit->law, fit->law.value, modified))
			goto done;
		job.wild = o->bootstrap_kind == HA_CAL_BOOT_WILD;
		job.pool = modified_residuals(fit, job.wild, modified);
		if (job.pool == 0) { /* every run carries the fit: nothing to draw */
			modified[0] = 0.0;
			job.pool = 1;
		}
		job.modified = modified;
	}
	st = resample_all(data, 0, resamples, o->threads, &o->progress,
	                  refit_one, &job);
	if (st != HA_OK)
		goto done;
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
	/* The refits stay for the curves' bands (ha_cal_band). */
	size_t kept, answered = 0;
	struct ha_cal_prediction *pred = &c->prediction;
	st = gather(job.out, 1, resamples, solver != NULL, &boot->refits, &kept,
	            &pred->distribution, &pred->distribution_count, &answered);
	if (st == HA_OK && boot->fitted >= 2) {
		double *column = malloc(boot->fitted * sizeof *column);
		if (column)
			intervals(fit, boot->refits, boot->fitted, column);
		else
			st = HA_ENOMEM;
		free(column);
	}
	if (solver && st == HA_OK)
		pred->no_answer_share = (double)(resamples - answered) / (double)resamples;
done:
	free(job.out);
	free(modified);
	return st;
}

/* ---- the comparison's bootstrap ------------------------------------------ */

struct compare_job {
	const struct ha_run *runs;
	const struct cal_data *data;
	uint64_t seed;
	const struct ha_solver *solver;
	double samples;
	const struct ha_calibration *c;
	const size_t *order;
	const double *ls_values;
	const int *ls_fitted;
	size_t n;            /* laws */
	struct outcome *out; /* resamples x n */
};

/* Row r in one resample: its seeds are its full-data optimum and the
 * resample's optima of the rows it contains (done[q]). */
static enum ha_status refit_row(const struct compare_job *job, struct space *s,
                                size_t r, struct outcome *o)
{
	const struct ha_cal_comparison *row = &job->c->comparison[r];
	char msg[HA_CAL_MESSAGE_MAX];
	if (!cal_identifiable(&s->data, job->runs, row->free_count, NULL, msg) ||
	    !cal_data_term_identifiable(&s->data, &row->law, msg))
		return HA_OK;
	double seeds[(HA_CAL_COMPARE_MAX + 1) * HA_CAL_PARAMS];
	memcpy(seeds, job->ls_values + HA_CAL_PARAMS * r,
	       HA_CAL_PARAMS * sizeof *seeds);
	size_t ns = 1 + cal_row_seeds(job->c, r, s->values, s->done, NULL,
	                              seeds + HA_CAL_PARAMS);
	if (refit(&s->data, &row->law, INFINITY, seeds, ns, job->solver,
	          job->samples, o) != HA_OK)
		return HA_ENOMEM;
	s->done[r] = o->kind == OUT_FITTED;
	if (s->done[r])
		memcpy(s->values + HA_CAL_PARAMS * r, o->th, sizeof o->th);
	return HA_OK;
}

/* Resample b under every law, in the fitting order. */
static enum ha_status refit_resample(const void *ctx, struct space *s, size_t b)
{
	const struct compare_job *job = ctx;
	struct cal_rng rng;
	cal_rng_init(&rng, job->seed, (uint64_t)b);
	cal_rng_cases(&rng, s->weight, job->data->m);
	memset(s->done, 0, job->n * sizeof *s->done);
	struct outcome *out = job->out + b * job->n;
	for (size_t i = 0; i < job->n; i++) {
		size_t r = job->order[i];
		if (job->ls_fitted[r] && refit_row(job, s, r, &out[r]) != HA_OK)
			return HA_ENOMEM;
	}
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
		return HA_OK;
	struct compare_job job = {
		.runs = runs, .data = data, .seed = o->seed, .solver = solver,
		.samples = samples, .c = c, .order = order, .ls_values = ls_values,
		.ls_fitted = ls_fitted, .n = n,
	};
	job.out = calloc(resamples * n, sizeof *job.out);
	if (!job.out)
		return HA_ENOMEM;
	for (size_t r = 0; r < n; r++)
		c->comparison[r].resamples = ls_fitted[r] ? resamples : 0;
	enum ha_status st = resample_all(data, n, resamples, o->threads,
	                                 &o->progress, refit_resample, &job);
	for (size_t r = 0; r < n && st == HA_OK; r++) {
		struct ha_cal_comparison *row = &c->comparison[r];
		st = gather(job.out + r, n, resamples, 1, &row->refits,
		            &row->refit_count, &row->distribution,
		            &row->distribution_count, &row->answered);
		for (size_t k = 0; k < row->distribution_count; k++)
			if (row->has_prediction &&
			    row->distribution[k].head_dim == row->head_dim)
				row->share = row->distribution[k].share;
	}
	free(job.out);
	return st;
}

/* ---- the warnings -------------------------------------------------------- */

/* What the bootstrap's 95% intervals were measured to hold
 * (headalloc-calibrate(1), COVERAGE): for each bootstrap kind, the
 * share of data sets drawn from a known law whose intervals held the
 * truth, on the designs of bench/calibrate_coverage.c (200 data sets of
 * B = 200 each, least squares, the lowest share over the free
 * parameters).  A calibration is compared with the measured design of
 * its kind and noise statement with the most spare runs (m - k) that it
 * has at least, or with the fewest when it has fewer than every design:
 * coverage grows with spare runs, so the design read errs towards
 * warning (and of two as near, the lower is read: runs10 and runs10-het
 * differ in noise the runs do not state).  Where that design's lowest
 * share lies more than 2 binomial standard deviations (of its
 * HA_CAL_COVERAGE_SETS data sets) below 0.95, the calibration warns: the
 * lowest of a design's three or four shares is itself low by chance, by
 * about one standard deviation at a true 95%, so a plain bar would warn
 * on designs whose intervals hold. */
struct measured {
	const char *design;
	enum ha_cal_bootstrap_kind kind;
	int unequal_se;  /* the runs state unequal loss_se / loss */
	size_t runs, free;
	double lowest;   /* the lowest share of the free parameters */
	enum ha_cal_param worst;
};

/* build/bench/headalloc-calibrate-coverage 200 200: the lowest share
 * over the free parameters (the first such in case of a tie). */
static const struct measured table[] = {
	{"runs7", HA_CAL_BOOT_CASES, 0, 7, 3, 0.860, HA_CAL_IRREDUCIBLE},
	{"runs10", HA_CAL_BOOT_CASES, 0, 10, 3, 0.915, HA_CAL_BIAS_COEF},
	{"runs10-se", HA_CAL_BOOT_CASES, 1, 10, 3, 0.935, HA_CAL_IRREDUCIBLE},
	{"runs10-het", HA_CAL_BOOT_CASES, 0, 10, 3, 0.920, HA_CAL_IRREDUCIBLE},
	{"runs24", HA_CAL_BOOT_CASES, 0, 24, 4, 0.910, HA_CAL_SMOOTHNESS},
	{"runs96", HA_CAL_BOOT_CASES, 0, 96, 4, 0.900, HA_CAL_VAR_COEF},
	{"runs7", HA_CAL_BOOT_RESIDUALS, 0, 7, 3, 0.855, HA_CAL_BIAS_COEF},
	{"runs10", HA_CAL_BOOT_RESIDUALS, 0, 10, 3, 0.905, HA_CAL_IRREDUCIBLE},
	{"runs10-se", HA_CAL_BOOT_RESIDUALS, 1, 10, 3, 0.885, HA_CAL_IRREDUCIBLE},
	{"runs10-het", HA_CAL_BOOT_RESIDUALS, 0, 10, 3, 0.855, HA_CAL_IRREDUCIBLE},
	{"runs24", HA_CAL_BOOT_RESIDUALS, 0, 24, 4, 0.910, HA_CAL_SMOOTHNESS},
	{"runs96", HA_CAL_BOOT_RESIDUALS, 0, 96, 4, 0.930, HA_CAL_IRREDUCIBLE},
	{"runs7", HA_CAL_BOOT_WILD, 0, 7, 3, 0.760, HA_CAL_VAR_COEF},
	{"runs10", HA_CAL_BOOT_WILD, 0, 10, 3, 0.785, HA_CAL_VAR_COEF},
	{"runs10-se", HA_CAL_BOOT_WILD, 1, 10, 3, 0.825, HA_CAL_VAR_COEF},
	{"runs10-het", HA_CAL_BOOT_WILD, 0, 10, 3, 0.865, HA_CAL_IRREDUCIBLE},
	{"runs24", HA_CAL_BOOT_WILD, 0, 24, 4, 0.855, HA_CAL_VAR_COEF},
	{"runs96", HA_CAL_BOOT_WILD, 0, 96, 4, 0.905, HA_CAL_VAR_COEF},
};

static int runs_unequal_se(const struct cal_data *data, const struct ha_run *runs)
{
	for (size_t i = 0; i < data->m; i++)
		if (!(runs[i].loss_se > 0.0))
			return 0;
	for (size_t i = 1; i < data->m; i++)
		if (fabs(data->inv_w[i] - data->inv_w[0]) > 1e-9 * data->inv_w[0])
			return 1;
	return 0;
}

static const struct measured *design_for(enum ha_cal_bootstrap_kind kind,
                                         int unequal_se, size_t spare)
{
	const struct measured *below = NULL, *fewest = NULL;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct measured *t = &table[i];
		if (t->kind != kind || t->unequal_se != unequal_se)
			continue;
		size_t its = t->runs - t->free;
		if (!fewest || its < fewest->runs - fewest->free)
			fewest = t;
		size_t below_its = below ? below->runs - below->free : 0;
		/* of two designs as near, the one measured lower */
		if (its <= spare && (!below || its > below_its ||
		                     (its == below_its && t->lowest < below->lowest)))
			below = t;
	}
	return below ? below : fewest;
}

static int coverage_warning(struct ha_calibration *c, int unequal_se)
{
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	size_t m = c->fit.runs, k = c->fit.free_count;
	if (b->fitted < 2 || k == 0)
		return 1; /* no interval */
	const struct measured *t = design_for(b->kind, unequal_se, m > k ? m - k : 0);
	if (!t)
		return 1;
	double sd = sqrt(t->lowest * (1.0 - t->lowest) / HA_CAL_COVERAGE_SETS);
	if (!(t->lowest + 2.0 * sd < 0.95))
		return 1;
	return cal_warn(c, HA_CAL_WARN_COVERAGE,
	            "the %s bootstrap's 95%% intervals held the truth in only "
	            "%.1f%% of data sets drawn from a known law on %s (%zu runs, "
	            "%zu free parameters; %s the lowest; headalloc-calibrate(1), "
	            "COVERAGE): with %zu runs and %zu free parameters here, read "
	            "them as narrower than 95%%",
	            cal_bootstrap_word(b->kind),
	            100.0 * t->lowest, t->design, t->runs, t->free,
	            ha_cal_param_str(t->worst), m, k);
}

int cal_bootstrap_warnings(struct ha_calibration *c,
                              const struct cal_data *data,
                              const struct ha_run *runs)
{
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	if (b->unconverged > 0 &&
	    !cal_warn(c, HA_CAL_WARN_UNCONVERGED,
	          "%zu of %zu bootstrap refits were still improving when they "
	          "stopped (a direction the resampled runs hardly determine): "
	          "their last values are in the intervals, whose ends may lie "
	          "further out still", b->unconverged, b->fitted))
		return 0;
	if (b->degenerate && b->fitted > 0 &&
	    !cal_warn(c, HA_CAL_WARN_DEGENERATE,
	          "the bootstrap is degenerate: %s; its intervals and shares "
	          "understate the uncertainty%s",
	          b->distinct <= c->fit.free_count + 2
	              ? "the runs' distinct configurations exceed the free "
	                "parameters by 2 or fewer"
	              : "almost every fittable resample holds every distinct run "
	                "(reorderings of the data itself)",
	          b->kind == HA_CAL_BOOT_CASES &&
	                  b->distinct > c->fit.free_count + 2
	              ? " (try --bootstrap-kind residuals)"
	              : " (more runs at new configurations are needed)"))
		return 0;
	if (b->resamples && !coverage_warning(c, runs_unequal_se(data, runs)))
		return 0;
	if (b->unfittable == 0 && b->failed == 0)
		return 1;
	return cal_warn(c, HA_CAL_WARN_UNFITTABLE,
	            "%zu of %zu bootstrap resamples could not be fitted (%zu with "
	            "fewer distinct runs than free parameters + 1 or one head_dim, "
	            "%zu without a finite optimum): the intervals rest on the "
	            "other %zu",
	            b->unfittable + b->failed, b->resamples, b->unfittable,
	            b->failed, b->fitted);
}
