/* The case bootstrap (headalloc-model(7), CALIBRATION (Uncertainty and identifiability)) and predictions at the target.
 *
 * A resample draws m runs with replacement; it enters the objective as a
 * multiplicity per run, so a resample costs no copy.  Each is refitted by
 * the local optimiser from the full-data optimum (a resample's optimum
 * lies near it; the grid's job, finding the basin, was done on the full
 * data).  Resamples that cannot be fitted — fewer distinct runs than free
 * parameters + 1, or one distinct head_dim — are counted, never dropped
 * silently. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calibrate_internal.h"

enum ha_status cal_predict(const struct ha_solver *solver, double samples,
                           const double *th, struct ha_allocation *out,
                           struct ha_certificate *certificate)
{
	struct ha_model m = ha_cal_model_of(th, samples);
	if (ha_model_validate(&m) != HA_OK)
		return HA_EINVAL;
	return ha_solver_solve_integer(solver, &m, out, certificate);
}

/* Tally of predicted head dimensions (the budget is fixed, so d names the
 * allocation). */
struct tally {
	struct ha_cal_share *rows;
	size_t count, cap;
};

static int tally_add(struct tally *t, const struct ha_allocation *a)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].head_dim == a->head_dim) {
			t->rows[i].count++;
			return 1;
		}
	if (t->count == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct ha_cal_share *rows = realloc(t->rows, cap * sizeof *rows);
		if (!rows)
			return 0;
		t->rows = rows;
		t->cap = cap;
	}
	t->rows[t->count++] = (struct ha_cal_share){a->heads, a->head_dim, 1, 0.0};
	return 1;
}

static int by_share(const void *a, const void *b)
{
	const struct ha_cal_share *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->head_dim > y->head_dim) - (x->head_dim < y->head_dim);
}

enum ha_status cal_bootstrap(const struct ha_run *runs, const struct cal_data *data,
                             double delta, size_t resamples, uint64_t seed,
                             const struct ha_solver *solver, double samples,
                             struct ha_calibration *c)
{
	struct ha_cal_fit *fit = &c->fit;
	struct ha_cal_bootstrap *boot = &c->bootstrap;
	size_t m = data->m, k = fit->free_count;
	boot->resamples = resamples;
	boot->seed = seed;
	if (resamples == 0)
		return HA_OK;

	struct cal_data local = *data;
	double *weight = malloc(m * sizeof *weight);
	double *values = malloc(resamples * HA_CAL_PARAMS * sizeof *values);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tally tally = {NULL, 0, 0};
	enum ha_status st = HA_ENOMEM;
	if (!weight || !values || !rng)
		goto done;
	/* gsl_rng_set takes an unsigned long: fold the seed's halves so
	 * that every bit of it matters where long is 32 bits. */
	gsl_rng_set(rng, (unsigned long)(seed ^ (seed >> 32)));
	local.weight = weight;
	char msg[HA_CAL_MESSAGE_MAX];
	for (size_t b = 0; b < resamples; b++) {
		for (size_t i = 0; i < m; i++)
			weight[i] = 0.0;
		for (size_t i = 0; i < m; i++)
			weight[gsl_rng_uniform_int(rng, m)] += 1.0;
		if (!cal_identifiable(&local, runs, k, msg)) {
			boot->unfittable++;
			continue;
		}
		double th[HA_CAL_PARAMS], objective;
		int converged;
		enum ha_status fs = cal_minimise(&local, &fit->law, delta,
		                                 fit->law.value, th, &objective, NULL,
		                                 NULL, &converged);
		if (fs == HA_ENOMEM)
			goto done;
		if (fs != HA_OK) {
			boot->failed++;
			continue;
		}
		boot->unconverged += !converged;
		memcpy(values + boot->fitted * HA_CAL_PARAMS, th, sizeof th);
		boot->fitted++;
		if (!solver)
			continue;
		struct ha_allocation a;
		if (cal_predict(solver, samples, th, &a, NULL) != HA_OK)
			continue;
		if (!tally_add(&tally, &a))
			goto done;
		boot->predicted++;
	}

	/* Percentile intervals of each free parameter over the fitted
	 * resamples (at least two are needed for an interval). */
	if (boot->fitted >= 2) {
		double *column = malloc(boot->fitted * sizeof *column);
		if (!column)
			goto done;
		for (int p = 0; p < HA_CAL_PARAMS; p++) {
			if (!fit->law.free[p])
				continue;
			for (size_t b = 0; b < boot->fitted; b++)
				column[b] = values[b * HA_CAL_PARAMS + p];
			gsl_sort(column, 1, boot->fitted);
			fit->param[p].has_ci = 1;
			fit->param[p].ci95[0] =
				gsl_stats_quantile_from_sorted_data(column, 1, boot->fitted, 0.025);
			fit->param[p].ci95[1] =
				gsl_stats_quantile_from_sorted_data(column, 1, boot->fitted, 0.975);
		}
		free(column);
	}
	if (tally.count > 0) {
		qsort(tally.rows, tally.count, sizeof *tally.rows, by_share);
		for (size_t i = 0; i < tally.count; i++)
			tally.rows[i].share = (double)tally.rows[i].count /
			                      (double)boot->predicted;
		c->prediction.distribution = tally.rows;
		c->prediction.distribution_count = tally.count;
		tally.rows = NULL;
	}
	/* The refits stay for the curves' bands (ha_cal_band), in as much
	 * memory as they need (a failed shrink keeps the larger block). */
	if (boot->fitted > 0) {
		double *kept = realloc(values, boot->fitted * HA_CAL_PARAMS * sizeof *values);
		boot->refits = kept ? kept : values;
		values = NULL;
	}
	st = HA_OK;
done:
	free(tally.rows);
	free(weight);
	free(values);
	gsl_rng_free(rng);
	return st;
}
