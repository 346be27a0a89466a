/* The verdict between laws (headalloc-model(7), CALIBRATION (Comparing laws)): Akaike weights from
 * the least-squares AICc, the rule that tells laws apart (ΔAICc <
 * HA_CAL_VERDICT_AICC: not told apart), the model-averaged distribution
 * of the optimum, and the main law by least squares beside its Huber fit
 * (does the prediction change; is δ below the residual scale). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "calibrate_internal.h"

static int has_aicc(const struct ha_cal_comparison *row)
{
	return row->status == HA_OK && row->aicc_defined;
}

/* "a", "a and b", "a, b and c" of the rows best and tied[] into buf. */
static void name_list(const struct ha_calibration *c, const struct ha_cal_verdict *v,
                      char *buf, size_t size)
{
	size_t used = 0, n = v->tied_count + 1;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t r = i == 0 ? v->best : v->tied[i - 1];
		const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
		int w = snprintf(buf + used, size - used, "%s%s", sep,
		                 c->comparison[r].law.name);
		if (w < 0 || (size_t)w >= size - used)
			return;
		used += (size_t)w;
	}
}

void cal_weights_and_verdict(struct ha_calibration *c)
{
	struct ha_cal_verdict *v = &c->verdict;
	memset(v, 0, sizeof *v);
	size_t n = c->comparison_count, with = 0, best = 0;
	for (size_t i = 0; i < n; i++)
		if (has_aicc(&c->comparison[i]) &&
		    (with++ == 0 || c->comparison[i].aicc < c->comparison[best].aicc))
			best = i;
	if (with == 0) {
		snprintf(v->text, sizeof v->text,
		         "no verdict: no law has an AICc (it needs more runs than "
		         "free parameters + 1)");
		return;
	}
	double sum = 0.0, top = c->comparison[best].aicc;
	for (size_t i = 0; i < n; i++) {
		struct ha_cal_comparison *row = &c->comparison[i];
		if (!has_aicc(row))
			continue;
		row->weight_defined = 1;
		row->delta_aicc = row->aicc - top;
		row->weight = exp(-0.5 * row->delta_aicc);
		sum += row->weight;
	}
	for (size_t i = 0; i < n; i++)
		if (c->comparison[i].weight_defined)
			c->comparison[i].weight /= sum;
	v->best = best;
	if (with < 2) {
		snprintf(v->text, sizeof v->text,
		         "no verdict: %s is the only law with an AICc",
		         c->comparison[best].law.name);
		return;
	}
	v->defined = 1;
	int have_runner = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ha_cal_comparison *row = &c->comparison[i];
		if (i == best || !row->weight_defined)
			continue;
		if (!have_runner || row->delta_aicc < c->comparison[v->runner_up].delta_aicc) {
			v->runner_up = i;
			have_runner = 1;
		}
		if (row->delta_aicc < HA_CAL_VERDICT_AICC) {
			v->tied[v->tied_count++] = i;
			v->delta = fmax(v->delta, row->delta_aicc);
		}
	}
	char names[HA_CAL_MESSAGE_MAX];
	if (v->tied_count) {
		name_list(c, v, names, sizeof names);
		snprintf(v->text, sizeof v->text,
		         "the data cannot tell %s apart: delta AICc %s%.3g < %g",
		         names, v->tied_count > 1 ? "up to " : "", v->delta,
		         HA_CAL_VERDICT_AICC);
		return;
	}
	const struct ha_cal_comparison *b = &c->comparison[best];
	v->delta = c->comparison[v->runner_up].delta_aicc;
	snprintf(v->text, sizeof v->text,
	         "%s is preferred: delta AICc %.3g >= %g to %s, the next "
	         "(Akaike weight %.3g)", b->law.name, v->delta, HA_CAL_VERDICT_AICC,
	         c->comparison[v->runner_up].law.name, b->weight);
}

/* ---- the model-averaged distribution ------------------------------------------ */

static int add_share(struct ha_calibration *c, size_t *cap, uint64_t heads,
                     uint64_t head_dim, double share)
{
	for (size_t i = 0; i < c->averaged_count; i++)
		if (c->averaged[i].head_dim == head_dim) {
			c->averaged[i].share += share;
			return 1;
		}
	if (c->averaged_count == *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		struct ha_cal_share *a = realloc(c->averaged, n * sizeof *a);
		if (!a)
			return 0;
		c->averaged = a;
		*cap = n;
	}
	c->averaged[c->averaged_count++] =
		(struct ha_cal_share){heads, head_dim, 0, share};
	return 1;
}

static int by_averaged_share(const void *a, const void *b)
{
	const struct ha_cal_share *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return (x->head_dim > y->head_dim) - (x->head_dim < y->head_dim);
}

enum ha_status cal_average(struct ha_calibration *c)
{
	size_t cap = 0;
	c->averaged_no_answer = 0.0;
	for (size_t i = 0; i < c->comparison_count; i++) {
		const struct ha_cal_comparison *row = &c->comparison[i];
		if (!row->weight_defined)
			continue;
		double w = row->weight;
		if (row->resamples > 0) {
			double answered = 0.0;
			for (size_t k = 0; k < row->distribution_count; k++) {
				const struct ha_cal_share *s = &row->distribution[k];
				answered += s->share;
				if (!add_share(c, &cap, s->heads, s->head_dim, w * s->share))
					return HA_ENOMEM;
			}
			c->averaged_no_answer += w * fmax(0.0, 1.0 - answered);
		} else if (row->has_prediction) {
			if (!add_share(c, &cap, row->heads, row->head_dim, w))
				return HA_ENOMEM;
		} else {
			c->averaged_no_answer += w;
		}
	}
	if (c->averaged_count)
		qsort(c->averaged, c->averaged_count, sizeof *c->averaged,
		      by_averaged_share);
	return HA_OK;
}

/* ---- least squares beside the Huber fit ----------------------------------------- */

enum ha_status cal_least_squares(const struct ha_run *runs,
                                 const struct cal_data *data, double delta,
                                 const struct ha_solver *solver, double samples,
                                 struct ha_calibration *c)
{
	struct ha_cal_least_squares *ls = &c->least_squares;
	memset(ls, 0, sizeof *ls);
	if (isinf(delta) || c->fit.free_count == 0)
		return HA_OK;
	struct ha_cal_fit fit;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = cal_fit_data(runs, data, &c->fit.law, INFINITY,
	                                 c->fit.law.value, 1, &fit, &err);
	if (st == HA_ENOMEM)
		return st;
	if (st != HA_OK)
		return HA_OK; /* no least-squares optimum: nothing to compare */
	ls->defined = 1;
	ls->rss = fit.rss;
	ls->residual_scale = sqrt(fit.rss / (double)fit.runs);
	ls->delta_below_scale = delta < ls->residual_scale;
	struct ha_allocation a;
	if (solver && cal_predict(solver, samples, fit.law.value, &a, NULL) == HA_OK) {
		ls->has_prediction = 1;
		ls->heads = a.heads;
		ls->head_dim = a.head_dim;
	}
	ha_cal_fit_finish(&fit);
	const struct ha_cal_prediction *p = &c->prediction;
	ls->prediction_changes = ls->has_prediction && p->defined &&
	                         p->head_dim != ls->head_dim;
	if (ls->delta_below_scale &&
	    !cal_warn(c, HA_CAL_WARN_HUBER_SCALE,
	                    "Huber delta %g is below the residual scale %.3g (rms "
	                    "of the least-squares residuals): most runs weigh in "
	                    "by their sign alone, as in a least-absolute-deviations "
	                    "fit", delta, ls->residual_scale))
		return HA_ENOMEM;
	if (ls->prediction_changes &&
	    !cal_warn(c, HA_CAL_WARN_LEAST_SQUARES,
	                    "least squares predicts %llu x %llu where the Huber fit "
	                    "(delta %g) predicts %llu x %llu: the answer rests on "
	                    "the choice of delta",
	                    (unsigned long long)ls->heads,
	                    (unsigned long long)ls->head_dim, delta,
	                    (unsigned long long)p->heads,
	                    (unsigned long long)p->head_dim))
		return HA_ENOMEM;
	return HA_OK;
}
