/* The comparison of laws (headalloc-model(7), CALIBRATION (Comparing laws)): the same runs under the
 * ladder of ha_cal_ladder, side by side, each with its leave-one-out
 * prediction error and its optimum at the target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"

/* Leave-one-out: refit without each run (from the law's full-data
 * optimum) and predict it.  0 when some leave-one-out set cannot be
 * fitted, or a refit fails. */
static int leave_one_out(const struct ha_run *runs, const struct cal_data *data,
                         const struct ha_cal_fit *fit, double delta,
                         double *rmse, size_t *unconverged,
                         enum ha_status *oom)
{
	size_t m = data->m;
	struct cal_data local = *data;
	double *weight = malloc(m * sizeof *weight);
	*oom = HA_OK;
	if (!weight) {
		*oom = HA_ENOMEM;
		return 0;
	}
	local.weight = weight;
	double sum = 0.0;
	int ok = 1;
	char msg[HA_CAL_MESSAGE_MAX];
	for (size_t out = 0; out < m && ok; out++) {
		for (size_t i = 0; i < m; i++)
			weight[i] = i == out ? 0.0 : 1.0;
		if (!cal_identifiable(&local, runs, fit->free_count, msg)) {
			ok = 0;
			break;
		}
		double th[HA_CAL_PARAMS], objective;
		int converged;
		enum ha_status st = cal_minimise(&local, &fit->law, delta,
		                                 fit->law.value, th, &objective, NULL,
		                                 NULL, &converged);
		if (st != HA_OK) {
			if (st == HA_ENOMEM)
				*oom = st;
			ok = 0;
			break;
		}
		*unconverged += !converged;
		double e = data->log_loss[out] - cal_log_fitted(data, th, out);
		if (!isfinite(e)) {
			ok = 0;
			break;
		}
		sum += e * e;
	}
	free(weight);
	*rmse = ok ? sqrt(sum / (double)m) : 0.0;
	return ok;
}

enum ha_status cal_compare(const struct ha_run *runs, const struct cal_data *data,
                           const struct ha_cal_law *base, double delta,
                           const struct ha_solver *solver, double samples,
                           struct ha_calibration *c)
{
	struct ha_cal_law laws[HA_CAL_LADDER];
	size_t count = 0, all = ha_cal_ladder(base, laws);
	/* The data-term laws only where the runs can tell E, A and α apart. */
	char why[HA_CAL_MESSAGE_MAX];
	for (size_t l = 0; l < all; l++)
		if (cal_data_term_identifiable(data, &laws[l], why))
			laws[count++] = laws[l];
	c->comparison = calloc(count, sizeof *c->comparison);
	if (!c->comparison)
		return HA_ENOMEM;
	c->comparison_count = count;
	for (size_t l = 0; l < count; l++) {
		struct ha_cal_comparison *row = &c->comparison[l];
		row->law = laws[l];
		row->free_count = cal_free_count(&laws[l]);
		struct ha_cal_fit fit;
		struct ha_error err;
		ha_error_init(&err);
		row->status = cal_fit_data(runs, data, &laws[l],
		                           delta, &fit, &err);
		if (row->status == HA_ENOMEM)
			return HA_ENOMEM;
		if (row->status != HA_OK) {
			snprintf(row->message, sizeof row->message, "%s", err.message);
			continue;
		}
		row->law = fit.law;
		row->objective = fit.objective;
		row->rss = fit.rss;
		row->aicc_defined = fit.aicc_defined;
		row->aicc = fit.aicc;
		row->bic_defined = fit.bic_defined;
		row->bic = fit.bic;
		enum ha_status oom;
		row->loo_defined = leave_one_out(runs, data, &fit, delta,
		                                 &row->loo_rmse, &row->loo_unconverged,
		                                 &oom);
		ha_cal_fit_finish(&fit);
		if (oom == HA_ENOMEM)
			return HA_ENOMEM;
		if (solver) {
			struct ha_allocation a;
			if (cal_predict(solver, samples, row->law.value, &a, NULL) == HA_OK) {
				row->has_prediction = 1;
				row->heads = a.heads;
				row->head_dim = a.head_dim;
				row->loss = a.terms.mse;
			}
		}
	}
	return HA_OK;
}
