/* ln L of every posterior sample at a set of runs, each run evaluated as
 * the fit evaluates a measured one (cal_log_fitted on the runs' own
 * data), so that a run with kv_heads < heads takes the grouped factor
 * as it does in the fit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate_internal.h"
#include "plan_internal.h"

enum ha_status plan_eval(const struct plan_posterior *post,
                         const struct ha_run *runs, size_t m, double *out)
{
	if (m == 0)
		return HA_OK;
	/* The loss is not read by ln L̂; cal_data_init takes its log. */
	struct ha_run *copy = malloc(m * sizeof *copy);
	if (!copy)
		return HA_ENOMEM;
	for (size_t i = 0; i < m; i++) {
		copy[i] = runs[i];
		copy[i].loss = 1.0;
		copy[i].loss_se = NAN;
	}
	struct cal_data data;
	memset(&data, 0, sizeof data);
	enum ha_status st = cal_data_init(&data, copy, m);
	free(copy);
	if (st != HA_OK)
		return st;
	for (size_t j = 0; j < post->count; j++) {
		const double *th = post->theta + HA_CAL_PARAMS * j;
		for (size_t i = 0; i < m; i++) {
			double v = cal_log_fitted(&data, th, i);
			out[j * m + i] = isfinite(v) ? v : INFINITY;
		}
	}
	cal_data_free(&data);
	return HA_OK;
}
