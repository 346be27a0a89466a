/* The YAML reader's suites' own schema, a calibration runs file (the
 * next format that will be built on the reader),
 *
 *   runs:
 *     - {heads: 8, head_dim: 64, samples: 1e8, loss: 3.2, loss_se: 0.01}
 *
 * with a few extra keys to reach every kind of value (label: a string,
 * kind: a word, seeded: a boolean); read_ok() reads a text that must be
 * good, bad() and bad_n() one that must fail at a position with exactly
 * a message. */
#ifndef HEADALLOC_TESTS_YAML_RUNS_SCHEMA_H
#define HEADALLOC_TESTS_YAML_RUNS_SCHEMA_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/model.h>

#include "input/yaml_reader.h"

/* ---- the schema -------------------------------------------------------- */

#define MAX_RUNS 4
#define MAX_LABEL 8
#define MAX_INPUT 4096

struct run {
	uint64_t heads, head_dim;
	double samples, loss, loss_se;
	int has_se;
	char *label;
	size_t kind;
	int seeded;
};

struct runs {
	struct run *v;
	size_t n, cap;
};

static inline void runs_free(struct runs *runs)
{
	for (size_t i = 0; i < runs->n; i++)
		free(runs->v[i].label);
	free(runs->v);
	memset(runs, 0, sizeof *runs);
}

static const struct ha_yr_key run_keys[] = {
	{"heads", HA_YR_REQUIRED},   {"head_dim", HA_YR_REQUIRED},
	{"samples", HA_YR_REQUIRED}, {"loss", HA_YR_REQUIRED},
	{"loss_se", HA_YR_OPTIONAL}, {"label", HA_YR_OPTIONAL},
	{"kind", HA_YR_OPTIONAL},    {"seeded", HA_YR_OPTIONAL}};

static const char *const kinds[] = {"ablation", "sweep"};

static inline enum ha_status run_field(struct ha_yr *r, void *ctx, size_t key,
                                       const char *where)
{
	struct run *run = ctx;
	switch (key) {
	case 0:
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &run->heads);
	case 1:
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &run->head_dim);
	case 2:
		return ha_yr_real(r, where, "a number > 1", HA_YR_ABOVE, 1.0,
		                  HUGE_VAL, &run->samples);
	case 3:
		return ha_yr_real(r, where, "a number > 0", HA_YR_ABOVE, 0.0,
		                  HUGE_VAL, &run->loss);
	case 4:
		run->has_se = 1;
		return ha_yr_real(r, where, "a number >= 0", HA_YR_FROM, 0.0,
		                  HUGE_VAL, &run->loss_se);
	case 5:
		return ha_yr_string(r, where, MAX_LABEL, &run->label);
	case 6:
		return ha_yr_word(r, where, "ablation or sweep", kinds, 2,
		                  &run->kind);
	default:
		return ha_yr_bool(r, where, &run->seeded);
	}
}

static inline enum ha_status run_item(struct ha_yr *r, void *ctx, size_t i,
                                      const char *where)
{
	struct runs *runs = ctx;
	enum ha_status st = ha_yr_grow(r, (void **)&runs->v, &runs->cap, i,
	                               sizeof *runs->v);
	if (st != HA_OK)
		return st;
	memset(&runs->v[i], 0, sizeof runs->v[i]);
	runs->n = i + 1;
	struct ha_yr_map map = HA_YR_MAP(run_keys);
	return ha_yr_read_map(r, where, "a mapping {heads, head_dim, ...}", &map,
	                      run_field, &runs->v[i]);
}

static const struct ha_yr_key top_keys[] = {{"runs", HA_YR_REQUIRED}};

static inline enum ha_status top_field(struct ha_yr *r, void *ctx, size_t key,
                                       const char *where)
{
	(void)key;
	size_t n;
	return ha_yr_read_seq(r, where, "a list of runs", MAX_RUNS, run_item,
	                      ctx, &n);
}

static const struct ha_yr_options options = {.max_bytes = MAX_INPUT};

static inline enum ha_status read_runs(struct ha_yr *r, enum ha_status st,
                                       struct runs *runs)
{
	memset(runs, 0, sizeof *runs);
	static const char what[] = "a mapping with the key 'runs'";
	struct ha_yr_map map = HA_YR_MAP(top_keys);
	if (st == HA_OK)
		st = ha_yr_begin_document(r, what);
	if (st == HA_OK)
		st = ha_yr_read_map(r, "", what, &map, top_field, runs);
	if (st == HA_OK)
		st = ha_yr_end_document(r);
	ha_yr_close(r);
	if (st != HA_OK)
		runs_free(runs);
	return st;
}

static inline enum ha_status read_text(const char *text, size_t length,
                                       struct runs *runs, struct ha_error *err)
{
	struct ha_yr r;
	return read_runs(&r, ha_yr_open_text(&r, text, length, &options, err),
	                 runs);
}

/* ---- helpers ----------------------------------------------------------- */

static inline struct runs read_ok(const char *text)
{
	struct runs runs;
	struct ha_error err;
	enum ha_status st = read_text(text, strlen(text), &runs, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column,
	             err.message);
	cr_assert_eq(err.status, HA_OK);
	cr_assert_str_eq(err.message, "");
	return runs;
}

/* The text (length bytes) must fail with status at line:column with
 * exactly this message. */
static inline void bad_n(const char *text, size_t length,
                         enum ha_status status, long line, long column,
                         const char *message)
{
	struct runs runs;
	struct ha_error err;
	enum ha_status st = read_text(text, length, &runs, &err);
	cr_assert_eq(st, status, "status %d for: %s (%s)", (int)st, text,
	             err.message);
	cr_assert_eq(err.status, status);
	cr_assert_null(runs.v);
	cr_assert_null(err.file);
	cr_assert_str_eq(err.message, message, "for: %s\ngot: %s", text,
	                 err.message);
	cr_assert(err.line == line && err.column == column,
	          "at %ld:%ld, want %ld:%ld, for: %s (%s)", err.line, err.column,
	          line, column, text, err.message);
}

static inline void bad(const char *text, long line, long column,
                       const char *message)
{
	bad_n(text, strlen(text), HA_EFORMAT, line, column, message);
}

#endif
