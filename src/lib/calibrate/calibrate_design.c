/* The design of a calibration: the runs reduced to what the objective
 * needs, which runs are one configuration (H, d, n) — trackers export a
 * row per seed, and repeated rows add no design point — and whether the
 * weighted runs can fit a law's free parameters (headalloc-model(7),
 * CALIBRATION (Uncertainty and identifiability)). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"

static const struct ha_run *sort_runs; /* qsort has no context argument */

static int by_config(const void *a, const void *b)
{
	const struct ha_run *x = &sort_runs[*(const size_t *)a];
	const struct ha_run *y = &sort_runs[*(const size_t *)b];
	if (x->heads != y->heads)
		return x->heads < y->heads ? -1 : 1;
	if (x->head_dim != y->head_dim)
		return x->head_dim < y->head_dim ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? -1 : 1;
	if (x->kv_heads != y->kv_heads)
		return x->kv_heads < y->kv_heads ? -1 : 1;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return (i > j) - (i < j);
}

static int same_config(const struct ha_run *x, const struct ha_run *y)
{
	return x->heads == y->heads && x->head_dim == y->head_dim &&
	       x->samples == y->samples && x->kv_heads == y->kv_heads;
}

static enum ha_status data_configs(struct cal_data *data, const struct ha_run *runs)
{
	size_t m = data->m;
	data->config = malloc((2 * m + 1) * sizeof *data->config);
	if (!data->config)
		return HA_ENOMEM;
	data->order = data->config + m;
	for (size_t i = 0; i < m; i++)
		data->order[i] = i;
	/* not reentrant through sort_runs: guarded */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	sort_runs = runs;
	qsort(data->order, m, sizeof *data->order, by_config);
	pthread_mutex_unlock(&lock);
	size_t id = 0;
	for (size_t j = 0; j < m; j++) {
		if (j > 0 && !same_config(&runs[data->order[j]], &runs[data->order[j - 1]]))
			id++;
		data->config[data->order[j]] = id;
	}
	data->distinct = m ? id + 1 : 0;
	return HA_OK;
}

enum ha_status cal_data_init(struct cal_data *data, const struct ha_run *runs,
                             size_t count)
{
	double **array[] = {&data->log_d, &data->d_log_d, &data->log_n,
	                    &data->log_loss, &data->inv_w, &data->cover,
	                    &data->weight, &data->log_q1, &data->gcover};
	const size_t arrays = sizeof array / sizeof *array;
	double *block = malloc(arrays * count * sizeof *block);
	if (!block)
		return HA_ENOMEM;
	data->block = block;
	data->m = count;
	for (size_t a = 0; a < arrays; a++)
		*array[a] = block + a * count;
	data->grouped = 0;
	data->loss_min = INFINITY;
	data->log_n_min = INFINITY;
	data->threads = 1;
	data->poll = NULL;
	for (size_t i = 0; i < count; i++) {
		double d = (double)runs[i].head_dim;
		data->log_d[i] = log(d);
		data->d_log_d[i] = d * log(d);
		data->log_n[i] = log(runs[i].samples);
		data->log_loss[i] = log(runs[i].loss);
		data->inv_w[i] = isnan(runs[i].loss_se) ? 1.0
		                                        : runs[i].loss / runs[i].loss_se;
		uint64_t h = runs[i].heads, g = runs[i].kv_heads;
		if (g == 0 || g == h) {
			data->cover[i] = 1.0 - 1.0 / (double)h; /* as before groups */
			data->gcover[i] = 0.0;
		} else { /* g query heads a group: F = 1 - hdi (H-g)/H - group_hdi (g-1)/H */
			uint64_t size = h / g;
			data->cover[i] = (double)(h - size) / (double)h;
			data->gcover[i] = (double)(size - 1) / (double)h;
			data->grouped = 1;
		}
		data->log_q1[i] = log(1.0 - 1.0 * data->cover[i]);
		data->weight[i] = 1.0;
		if (runs[i].loss < data->loss_min)
			data->loss_min = runs[i].loss;
		if (data->log_n[i] < data->log_n_min)
			data->log_n_min = data->log_n[i];
	}
	if (data_configs(data, runs) != HA_OK) {
		free(block);
		data->block = NULL;
		return HA_ENOMEM;
	}
	return HA_OK;
}

void cal_data_free(struct cal_data *data)
{
	if (data) {
		free(data->block);
		data->block = NULL;
		free(data->config);
		data->config = NULL;
	}
}

/* How many of the free set a single head_dim cannot tell apart: E, c_b
 * and s are one constant there, and so are c_v, γ and κ. */
static const char *one_dim_conflict(const struct ha_cal_law *law, char *names,
                                    size_t size)
{
	static const int groups[2][3] = {
		{HA_CAL_IRREDUCIBLE, HA_CAL_BIAS_COEF, HA_CAL_SMOOTHNESS},
		{HA_CAL_VAR_COEF, HA_CAL_VAR_RATE, HA_CAL_VAR_POWER},
	};
	for (int g = 0; g < 2; g++) {
		int n = 0;
		size_t used = 0;
		names[0] = '\0';
		for (int j = 0; j < 3; j++) {
			if (!law->free[groups[g][j]])
				continue;
			int w = snprintf(names + used, size - used, "%s%s",
			                 n ? " and " : "",
			                 ha_cal_param_str((enum ha_cal_param)groups[g][j]));
			if (w > 0 && (size_t)w < size - used)
				used += (size_t)w;
			n++;
		}
		if (n > 1)
			return names;
	}
	return NULL;
}

int cal_identifiable(const struct cal_data *data, const struct ha_run *runs,
                     size_t k, const struct ha_cal_law *law, char *msg)
{
	size_t distinct = 0, weighted = 0, current = (size_t)-1;
	int counted = 0, two_dims = 0;
	uint64_t first_dim = 0;
	for (size_t j = 0; j < data->m; j++) {
		size_t i = data->order[j];
		if (data->config[i] != current) {
			current = data->config[i];
			counted = 0;
		}
		if (data->weight[i] == 0.0)
			continue;
		weighted++;
		distinct += !counted;
		counted = 1;
		if (first_dim == 0)
			first_dim = runs[i].head_dim;
		else if (runs[i].head_dim != first_dim)
			two_dims = 1;
	}
	if (distinct < k + 1) {
		if (weighted > distinct)
			snprintf(msg, HA_CAL_MESSAGE_MAX,
			         "%zu runs are %zu distinct configurations (heads, head_dim, "
			         "samples), which cannot fit %zu free parameter%s: at least "
			         "%zu are needed (free parameters + 1; repeated rows of one "
			         "configuration count once)",
			         weighted, distinct, k, k == 1 ? "" : "s", k + 1);
		else
			snprintf(msg, HA_CAL_MESSAGE_MAX,
			         "%zu run%s cannot fit %zu free parameter%s: at least %zu "
			         "are needed (free parameters + 1)",
			         distinct, distinct == 1 ? "" : "s", k, k == 1 ? "" : "s",
			         k + 1);
		return 0;
	}
	if (k > 0 && !two_dims) {
		char names[96];
		const char *conflict = law ? one_dim_conflict(law, names, sizeof names)
		                           : "bias and variance";
		if (conflict) {
			snprintf(msg, HA_CAL_MESSAGE_MAX,
			         "every run has head_dim %llu, where %s are one number: "
			         "fix all but one of them (--fix), or add runs at another "
			         "head dimension",
			         (unsigned long long)first_dim, conflict);
			return 0;
		}
	}
	msg[0] = '\0';
	return 1;
}

int cal_data_term_identifiable(const struct cal_data *data,
                               const struct ha_cal_law *law, char *msg)
{
	msg[0] = '\0';
	if (!law->free[HA_CAL_DATA_COEF] && !law->free[HA_CAL_DATA_POWER])
		return 1;
	size_t distinct = 0; /* the weighted runs' sample sizes */
	for (size_t i = 0; i < data->m; i++) {
		int seen = data->weight[i] == 0.0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = data->weight[j] != 0.0 && data->log_n[j] == data->log_n[i];
		distinct += !seen;
	}
	if (distinct < 3) {
		snprintf(msg, HA_CAL_MESSAGE_MAX,
		         "the runs hold %zu distinct sample size%s: the data term "
		         "(data_coef, data_power) needs runs at 3 or more",
		         distinct, distinct == 1 ? "" : "s");
		return 0;
	}
	return 1;
}
