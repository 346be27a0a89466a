/* Runs from columns in memory (runs.h, ha_runs_from_columns): the checks
 * of the file readers, applied to arrays, with the row and column of the
 * first value outside its domain. */
#include <math.h>
#include <stdlib.h>

#include <headalloc/model.h>
#include <headalloc/runs.h>

#include "base/error_internal.h"
#include "runs_internal.h"

/* The largest whole number every double below it represents exactly. */
#define WHOLE_MAX 9007199254740992.0 /* 2^53 */

/* 1-based positions of the columns, in the order of struct ha_runs_columns. */
enum { COL_HEADS = 1, COL_HEAD_DIM, COL_MODEL_DIM, COL_SAMPLES, COL_LOSS, COL_LOSS_SE,
       COL_KV_HEADS };

static enum ha_status bad(struct ha_error *err, size_t row, int column,
                          const char *name, const char *what, double v)
{
	enum ha_status st = ha_fail(err, HA_EFORMAT, "row %zu, %s: expected %s, found %.17g",
	                            row, name, what, v);
	if (err) {
		err->line = (long)row;
		err->column = column;
	}
	return st;
}

static int whole(double v)
{
	return v >= 1.0 && v <= WHOLE_MAX && v == floor(v);
}

static enum ha_status one_run(const struct ha_runs_columns *c, size_t i,
                              struct ha_run *run, struct ha_error *err)
{
	static const char WHOLE[] = "a whole number from 1 to 2^53";
	size_t row = i + 1;
	double h = c->heads[i];
	if (!whole(h))
		return bad(err, row, COL_HEADS, "heads", WHOLE, h);
	double d;
	if (c->head_dim) {
		d = c->head_dim[i];
		if (!whole(d))
			return bad(err, row, COL_HEAD_DIM, "head_dim", WHOLE, d);
	} else {
		double w = c->model_dim[i];
		if (!whole(w))
			return bad(err, row, COL_MODEL_DIM, "model_dim", WHOLE, w);
		if (fmod(w, h) != 0.0)
			return bad(err, row, COL_MODEL_DIM, "model_dim",
			           "a multiple of heads (head_dim = model_dim / heads)", w);
		d = w / h;
	}
	run->heads = (uint64_t)h;
	run->head_dim = (uint64_t)d;
	if (run->heads > HA_BUDGET_MAX / run->head_dim)
		return bad(err, row, c->head_dim ? COL_HEAD_DIM : COL_MODEL_DIM,
		           c->head_dim ? "head_dim" : "model_dim",
		           "heads * head_dim <= 9223372036854775807", d);
	run->samples = c->samples[i];
	if (!(run->samples > 1.0 && run->samples <= RUNS_SAMPLES_MAX))
		return bad(err, row, COL_SAMPLES, "samples",
		           runs_column_what[RUNS_SAMPLES], run->samples);
	run->loss = c->loss[i];
	if (!(isfinite(run->loss) && run->loss > 0.0))
		return bad(err, row, COL_LOSS, "loss", "a finite number > 0", run->loss);
	run->loss_se = c->loss_se ? c->loss_se[i] : NAN;
	if (!isnan(run->loss_se) && !(isfinite(run->loss_se) && run->loss_se > 0.0))
		return bad(err, row, COL_LOSS_SE, "loss_se",
		           "a finite number > 0 (or NaN for none)", run->loss_se);
	double g = c->kv_heads ? c->kv_heads[i] : NAN;
	if (isnan(g)) {
		run->kv_heads = run->heads;
	} else {
		if (!whole(g))
			return bad(err, row, COL_KV_HEADS, "kv_heads", WHOLE, g);
		run->kv_heads = (uint64_t)g;
		if (run->heads % run->kv_heads != 0)
			return bad(err, row, COL_KV_HEADS, "kv_heads",
			           "a divisor of heads", g);
	}
	return HA_OK;
}

enum ha_status ha_runs_from_columns(const struct ha_runs_columns *c,
                                    struct ha_run **runs, size_t *count,
                                    struct ha_error *err)
{
	ha_error_init(err);
	if (runs)
		*runs = NULL;
	if (count)
		*count = 0;
	if (!runs || !count || !c)
		return ha_fail(err, HA_EINVAL, "expected columns and result pointers, found NULL");
	if (c->count == 0 || c->count > HA_RUNS_MAX)
		return ha_fail(err, HA_EINVAL, "expected 1 to %zu runs, found %zu",
		               HA_RUNS_MAX, c->count);
	if (!c->heads || !c->samples || !c->loss || (!c->head_dim && !c->model_dim))
		return ha_fail(err, HA_EINVAL, "expected the columns heads, samples, "
		               "loss and head_dim or model_dim, found one NULL");
	struct ha_run *out = malloc(c->count * sizeof *out);
	if (!out)
		return ha_fail(err, HA_ENOMEM, "out of memory for %zu runs", c->count);
	for (size_t i = 0; i < c->count; i++) {
		enum ha_status st = one_run(c, i, &out[i], err);
		if (st != HA_OK) {
			free(out);
			return st;
		}
	}
	*runs = out;
	*count = c->count;
	return HA_OK;
}
