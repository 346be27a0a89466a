/* Runs from columns in memory (runs.h, ha_runs_from_columns): the rules
 * of a CSV runs file (runs_rules.c), applied to arrays, so that a table
 * in memory is refused as the CSV file of the same rows, in the same
 * words; a value is shown as the shortest text that reads back as it,
 * quoted as a cell is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <headalloc/model.h>
#include <headalloc/runs.h>

#include "base/error_internal.h"
#include "base/number.h"
#include "runs_internal.h"

/* 2^63: the whole numbers below it (from 1) are the files' domain,
 * 1 to HA_BUDGET_MAX, as doubles hold them. */
#define WHOLE_END 9223372036854775808.0

/* "'v'": a whole v below 2^53 in magnitude as its digits ("'130'"),
 * another in the fewest significant digits of %g that read back as it
 * ("'0.1'", "'1e+300'"), "'nan'", "'inf'": what a CSV cell holding the
 * same number shows. */
static const char *shown(double v, char buf[40])
{
	if (isnan(v))
		return "'nan'";
	if (isinf(v))
		return v > 0 ? "'inf'" : "'-inf'";
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, 40, "'%.0f'", v == 0.0 ? 0.0 : v);
		return buf;
	}
	char text[32];
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(text, sizeof text, "%.*g", digits, v);
		for (char *p = text; *p; p++)
			if (*p == ',') /* a locale's decimal comma */
				*p = '.';
		double back;
		if (ha_parse_real(text, &back) == HA_OK && back == v)
			break;
	}
	snprintf(buf, 40, "'%s'", text);
	return buf;
}

static int whole(double v)
{
	return v >= 1.0 && v < WHOLE_END && v == floor(v);
}

/* The value of key k of row into run (model_dim into *width); NaN in the
 * optional loss_se and kv_heads is none, as their empty cells. */
static enum ha_status value(const double *column, size_t i, int k,
                            struct ha_run *run, uint64_t *width,
                            struct ha_error *err)
{
	double v = column[i];
	if ((k == HA_RUNS_KEY_LOSS_SE || k == HA_RUNS_KEY_KV_HEADS) && isnan(v))
		return HA_OK; /* the run's loss_se NaN, kv_heads 0: heads */
	int ok;
	if (k <= HA_RUNS_KEY_MODEL_DIM || k == HA_RUNS_KEY_KV_HEADS) {
		ok = whole(v);
		uint64_t u = ok ? (uint64_t)v : 0;
		*(k == HA_RUNS_KEY_HEADS      ? &run->heads
		  : k == HA_RUNS_KEY_HEAD_DIM ? &run->head_dim
		  : k == HA_RUNS_KEY_KV_HEADS ? &run->kv_heads
		                              : width) = u;
	} else {
		ok = isfinite(v) && v > 0.0;
		if (k == HA_RUNS_KEY_SAMPLES)
			ok = ok && v > 1.0 && v <= RUNS_SAMPLES_MAX;
		*(k == HA_RUNS_KEY_SAMPLES ? &run->samples
		  : k == HA_RUNS_KEY_LOSS  ? &run->loss
		                           : &run->loss_se) = v;
	}
	if (ok)
		return HA_OK;
	char buf[40];
	return runs_bad_value(err, i + 1, ha_runs_key_str(k), runs_key_what[k],
	                      shown(v, buf));
}

static enum ha_status one_run(const double *const col[HA_RUNS_KEYS], size_t i,
                              struct ha_run *run, enum ha_runs_key *at,
                              struct ha_error *err)
{
	*run = (struct ha_run){0, 0, 0.0, 0.0, NAN, 0};
	uint64_t width = 0;
	for (int k = 0; k < HA_RUNS_KEYS; k++) {
		if (!col[k])
			continue;
		*at = (enum ha_runs_key)k;
		enum ha_status st = value(col[k], i, k, run, &width, err);
		if (st != HA_OK)
			return st;
	}
	char buf[40];
	int has_width = col[HA_RUNS_KEY_MODEL_DIM] != NULL;
	return runs_join(i + 1, run, col[HA_RUNS_KEY_HEAD_DIM] != NULL, has_width,
	                 width, has_width ? shown(col[HA_RUNS_KEY_MODEL_DIM][i], buf) : "",
	                 at, err);
}

/* The header's rules over the columns given and the names. */
static enum ha_status header(const double *const col[HA_RUNS_KEYS],
                             const struct ha_runs_names *names,
                             struct ha_error *err)
{
	struct runs_header h = {.pool = 0};
	for (int k = 0; k < HA_RUNS_KEYS; k++) {
		h.mapped[k] = names && names->name[k][0];
		h.name[k] = h.mapped[k] ? names->name[k]
		                        : ha_runs_key_str((enum ha_runs_key)k);
		h.present[k] = col[k] != NULL;
	}
	return runs_header_check(&h, err);
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
	const struct ha_runs_names *names = c->names;
	if (names && ha_runs_names_check(names, err) != HA_OK)
		return HA_EINVAL;
	/* in the keys' order (enum ha_runs_key), as the CSV reader reads a row */
	const double *const col[HA_RUNS_KEYS] = {c->heads, c->head_dim, c->model_dim,
	                                         c->samples, c->loss, c->loss_se,
	                                         c->kv_heads};
	enum ha_status st = header(col, names, err);
	if (st != HA_OK)
		return st;
	if (c->count == 0)
		return ha_fail(err, HA_EFORMAT, "expected at least one run after the "
		               "header row, found none");
	if (c->count > HA_RUNS_MAX)
		return ha_fail(err, HA_EFORMAT, "expected at most %zu runs, found more",
		               HA_RUNS_MAX);
	struct ha_run *out = malloc(c->count * sizeof *out);
	if (!out)
		return ha_fail(err, HA_ENOMEM, "out of memory for %zu runs", c->count);
	for (size_t i = 0; i < c->count; i++) {
		enum ha_runs_key at = HA_RUNS_KEY_HEADS;
		st = one_run(col, i, &out[i], &at, err);
		if (st != HA_OK) {
			free(out);
			if (err) {
				err->line = (long)(i + 1);
				err->column = (int)at + 1;
			}
			return st;
		}
	}
	*runs = out;
	*count = c->count;
	return HA_OK;
}
