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
 * cannot fit are "no answer" and stay in the denominator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "calibrate_rng.h"

static int tally(struct ha_cal_comparison *row, size_t *cap,
                 const struct ha_allocation *a)
{
	for (size_t i = 0; i < row->distribution_count; i++)
		if (row->distribution[i].head_dim == a->head_dim) {
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
		(struct ha_cal_share){a->heads, a->head_dim, 1, 0.0};
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
static enum ha_status refit_row(const struct ha_run *runs,
                                const struct cal_data *local,
                                const struct ha_solver *solver, double samples,
                                struct ha_calibration *c, size_t r,
                                const double *ls_values, double *values,
                                int *done, size_t *cap)
{
	struct ha_cal_comparison *row = &c->comparison[r];
	char msg[HA_CAL_MESSAGE_MAX];
	if (!cal_identifiable(local, runs, row->free_count, msg) ||
	    !cal_data_term_identifiable(local, &row->law, msg))
		return HA_OK;
	double seeds[(HA_CAL_COMPARE_MAX + 1) * HA_CAL_PARAMS];
	size_t ns = 0;
	memcpy(seeds, ls_values + HA_CAL_PARAMS * r, HA_CAL_PARAMS * sizeof *seeds);
	ns++;
	for (size_t i = 0; i < row->contains_count; i++) {
		size_t q = row->contains[i];
		if (done[q])
			memcpy(seeds + HA_CAL_PARAMS * ns++, values + HA_CAL_PARAMS * q,
			       HA_CAL_PARAMS * sizeof *seeds);
	}
	double th[HA_CAL_PARAMS], objective;
	int converged;
	enum ha_status st = cal_refit_grid(local, &row->law, INFINITY, seeds, ns,
	                                   th, &objective, &converged);
	if (st == HA_ENOMEM)
		return st;
	if (st != HA_OK)
		return HA_OK;
	done[r] = 1;
	memcpy(values + HA_CAL_PARAMS * r, th, sizeof th);
	struct ha_allocation a;
	if (cal_predict(solver, samples, th, &a, NULL) != HA_OK)
		return HA_OK;
	if (!tally(row, cap, &a))
		return HA_ENOMEM;
	row->answered++;
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
	size_t resamples = o->bootstrap < HA_CAL_COMPARE_RESAMPLES
	                           ? o->bootstrap
	                           : HA_CAL_COMPARE_RESAMPLES;
	size_t n = c->comparison_count, m = data->m;
	if (!solver || resamples == 0)
		return cal_average(c);
	struct cal_data local = *data;
	double *weight = malloc(m * sizeof *weight);
	double *values = malloc(n * HA_CAL_PARAMS * sizeof *values);
	int *done = malloc(n * sizeof *done);
	size_t *cap = calloc(n, sizeof *cap);
	enum ha_status st = HA_ENOMEM;
	if (!weight || !values || !done || !cap)
		goto out;
	local.weight = weight;
	for (size_t r = 0; r < n; r++)
		c->comparison[r].resamples = ls_fitted[r] ? resamples : 0;
	st = HA_OK;
	for (size_t b = 0; b < resamples && st == HA_OK; b++) {
		struct cal_rng rng;
		cal_rng_init(&rng, o->seed, (uint64_t)b);
		cal_rng_cases(&rng, weight, m);
		memset(done, 0, n * sizeof *done);
		for (size_t i = 0; i < n && st == HA_OK; i++)
			if (ls_fitted[order[i]])
				st = refit_row(runs, &local, solver, samples, c, order[i],
				               ls_values, values, done, &cap[order[i]]);
	}
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
	free(weight);
	free(values);
	free(done);
	free(cap);
	return st;
}
