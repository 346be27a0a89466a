/* Runs files (runs.h): the entry points, and the YAML format on the YAML
 * reader every YAML input shares (yaml_reader.h), which holds the rules
 * on anchors, tags, keys, numbers and positions.  The CSV format is in
 * runs_csv.c. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/model.h>
#include <headalloc/runs.h>

#include "base/error_internal.h"
#include "base/open_file.h"
#include "runs_internal.h"
#include "yaml_reader.h"

/* The keys of a run in a YAML file. */
enum runs_column {
	RUNS_HEADS, RUNS_HEAD_DIM, RUNS_SAMPLES, RUNS_LOSS, RUNS_LOSS_SE,
	RUNS_KV_HEADS, RUNS_COLUMNS
};

/* The key of the runs tables (runs_key_what) each is. */
static const enum ha_runs_key runs_column_key[RUNS_COLUMNS] = {
	HA_RUNS_KEY_HEADS, HA_RUNS_KEY_HEAD_DIM, HA_RUNS_KEY_SAMPLES,
	HA_RUNS_KEY_LOSS,  HA_RUNS_KEY_LOSS_SE,  HA_RUNS_KEY_KV_HEADS,
};

static const struct ha_yr_options OPTIONS = {.max_bytes = HA_RUNS_MAX_FILE};

/* ---- YAML ---------------------------------------------------------------- */

static const struct ha_yr_key run_keys[RUNS_COLUMNS] = {
	{"heads", HA_YR_REQUIRED},   {"head_dim", HA_YR_REQUIRED},
	{"samples", HA_YR_REQUIRED}, {"loss", HA_YR_REQUIRED},
	{"loss_se", HA_YR_OPTIONAL}, {"kv_heads", HA_YR_OPTIONAL}};

/* A pool's runs (ha_runs_read_pool): not trained yet, so no loss, and
 * an optional cost, held in the run's loss until the reading ends. */
#define POOL_COST RUNS_COLUMNS
static const struct ha_yr_key pool_keys[RUNS_COLUMNS + 1] = {
	{"heads", HA_YR_REQUIRED},   {"head_dim", HA_YR_REQUIRED},
	{"samples", HA_YR_REQUIRED}, {"loss", HA_YR_OPTIONAL},
	{"loss_se", HA_YR_OPTIONAL}, {"kv_heads", HA_YR_OPTIONAL},
	{"cost", HA_YR_OPTIONAL}};

/* A run being read, and where its kv_heads value stands (for the check
 * that it divides heads, made when the mapping is whole). */
struct yaml_run {
	struct ha_run *run;
	yaml_mark_t kv_mark;
	int pool;
};

static enum ha_status run_field(struct ha_yr *r, void *ctx, size_t key,
                                const char *where)
{
	struct yaml_run *y = ctx;
	struct ha_run *run = y->run;
	if (y->pool && (key == RUNS_LOSS || key == RUNS_LOSS_SE))
		return ha_yr_fail_at(r, r->ev.start_mark, HA_EFORMAT,
		                     "%s: expected no %s in a pool (its runs are "
		                     "not trained yet), found one", where,
		                     pool_keys[key].name);
	if (key == POOL_COST)
		return ha_yr_real(r, where, "a number > 0", HA_YR_ABOVE, 0.0,
		                  HUGE_VAL, &run->loss);
	const char *what = runs_key_what[runs_column_key[key]];
	switch ((enum runs_column)key) {
	case RUNS_KV_HEADS:
		y->kv_mark = r->ev.start_mark;
		return ha_yr_uint(r, where, what, 1, HA_BUDGET_MAX, &run->kv_heads);
	case RUNS_HEADS:
		return ha_yr_uint(r, where, what, 1, HA_BUDGET_MAX, &run->heads);
	case RUNS_HEAD_DIM:
		return ha_yr_uint(r, where, what, 1, HA_BUDGET_MAX, &run->head_dim);
	case RUNS_SAMPLES:
		return ha_yr_real(r, where, what, HA_YR_ABOVE, 1.0,
		                  RUNS_SAMPLES_MAX, &run->samples);
	case RUNS_LOSS:
		return ha_yr_real(r, where, what, HA_YR_ABOVE, 0.0, HUGE_VAL,
		                  &run->loss);
	default:
		return ha_yr_real(r, where, what, HA_YR_ABOVE, 0.0, HUGE_VAL,
		                  &run->loss_se);
	}
}

struct yaml_runs {
	struct ha_run *runs;
	size_t count;
	size_t cap;
	int pool;
};

static enum ha_status run_item(struct ha_yr *r, void *ctx, size_t i,
                               const char *where)
{
	struct yaml_runs *y = ctx;
	enum ha_status st = ha_yr_grow(r, (void **)&y->runs, &y->cap, i,
	                               sizeof *y->runs);
	if (st != HA_OK)
		return st;
	struct ha_run *run = &y->runs[i];
	*run = (struct ha_run){0, 0, 0.0, y->pool ? NAN : 0.0, NAN, 0};
	struct yaml_run yr = {run, {0}, y->pool};
	struct ha_yr_map map = y->pool ? HA_YR_MAP(pool_keys) : HA_YR_MAP(run_keys);
	st = ha_yr_read_map(r, where,
	                    y->pool ? "a mapping {heads, head_dim, samples, "
	                              "kv_heads?, cost?}"
	                            : "a mapping {heads, head_dim, samples, loss, "
	                              "loss_se?}",
	                    &map, run_field, &yr);
	if (st != HA_OK)
		return st;
	if (run->heads > HA_BUDGET_MAX / run->head_dim)
		return ha_yr_fail_at(r, map.start, HA_EFORMAT,
		                     "%s: expected heads * head_dim <= %llu, found "
		                     "%llu * %llu", where,
		                     (unsigned long long)HA_BUDGET_MAX,
		                     (unsigned long long)run->heads,
		                     (unsigned long long)run->head_dim);
	if (run->kv_heads == 0)
		run->kv_heads = run->heads;
	else if (run->heads % run->kv_heads != 0)
		return ha_yr_fail_at(r, yr.kv_mark, HA_EFORMAT,
		                     "%s.kv_heads: expected a divisor of heads (%llu), "
		                     "found %llu", where,
		                     (unsigned long long)run->heads,
		                     (unsigned long long)run->kv_heads);
	y->count = i + 1;
	return HA_OK;
}

static const struct ha_yr_key top_keys[] = {{"runs", HA_YR_REQUIRED}};

static enum ha_status top_field(struct ha_yr *r, void *ctx, size_t key,
                                const char *where)
{
	(void)key;
	struct yaml_runs *y = ctx;
	yaml_mark_t start = r->ev.start_mark;
	size_t n;
	enum ha_status st = ha_yr_read_seq(r, where, "a list of runs",
	                                   HA_RUNS_MAX, run_item, y, &n);
	if (st == HA_OK && n == 0)
		return ha_yr_fail_at(r, start, HA_EFORMAT,
		                     "%s: expected at least one run, found an "
		                     "empty list", where);
	return st;
}

static enum ha_status read_yaml(struct ha_yr *r, enum ha_status st, int pool,
                                struct ha_run **runs, size_t *count)
{
	static const char what[] = "a mapping with the key 'runs'";
	struct yaml_runs y = {NULL, 0, 0, pool};
	if (st == HA_OK)
		st = ha_yr_begin_document(r, what);
	struct ha_yr_map map = HA_YR_MAP(top_keys);
	if (st == HA_OK)
		st = ha_yr_read_map(r, "", what, &map, top_field, &y);
	if (st == HA_OK)
		st = ha_yr_end_document(r);
	ha_yr_close(r);
	if (st != HA_OK) {
		free(y.runs);
		return st;
	}
	*runs = y.runs;
	*count = y.count;
	return HA_OK;
}

/* ---- reading a CSV file whole -------------------------------------------- */

/* The file's bytes in a new buffer (a CSV file is parsed in memory: at
 * most HA_RUNS_MAX_FILE bytes). */
static enum ha_status slurp(const char *path, char **text, size_t *length,
                            struct ha_error *err)
{
	FILE *f = ha_open_input(path);
	if (!f) {
		ha_fail(err, HA_EIO, "cannot open the file: %s", strerror(errno));
		return HA_EIO;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	enum ha_status st = buf ? HA_OK : HA_ENOMEM;
	while (st == HA_OK) {
		if (n == cap) {
			size_t next = cap * 2;
			if (next > HA_RUNS_MAX_FILE + 1)
				next = HA_RUNS_MAX_FILE + 1;
			char *p = realloc(buf, next);
			if (!p) {
				st = HA_ENOMEM;
				break;
			}
			buf = p;
			cap = next;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n > HA_RUNS_MAX_FILE) {
			st = ha_fail(err, HA_EFORMAT, "expected at most %zu bytes of "
			             "input, found more", HA_RUNS_MAX_FILE);
		} else if (got == 0) {
			if (ferror(f))
				st = ha_fail(err, HA_EIO, "reading failed: %s",
				             strerror(errno ? errno : EIO));
			break;
		}
	}
	fclose(f);
	if (st == HA_ENOMEM)
		ha_fail(err, st, "out of memory");
	if (st != HA_OK) {
		free(buf);
		return st;
	}
	*text = buf;
	*length = n;
	return HA_OK;
}

/* ---- entry points -------------------------------------------------------- */

enum ha_runs_format ha_runs_format_of(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n < 4)
		return HA_RUNS_YAML;
	const char *ext = path + n - 4;
	return ext[0] == '.' && tolower((unsigned char)ext[1]) == 'c' &&
	                       tolower((unsigned char)ext[2]) == 's' &&
	                       tolower((unsigned char)ext[3]) == 'v'
	               ? HA_RUNS_CSV
	               : HA_RUNS_YAML;
}

static enum ha_status start(struct ha_run **runs, size_t *count,
                            struct ha_error *err)
{
	ha_error_init(err);
	if (runs)
		*runs = NULL;
	if (count)
		*count = 0;
	if (!runs || !count)
		return ha_fail(err, HA_EINVAL, "expected a result pointer, found NULL");
	return HA_OK;
}

/* Names that map a key, for a YAML file: a mapping is for CSV. */
static enum ha_status yaml_names(const struct ha_runs_names *names,
                                 struct ha_error *err)
{
	for (int k = 0; names && k < HA_RUNS_KEYS; k++)
		if (names->name[k][0])
			return ha_fail(err, HA_EINVAL, "expected a CSV file for the "
			               "column names (%s=%s), found a YAML one",
			               ha_runs_key_str((enum ha_runs_key)k),
			               names->name[k]);
	return HA_OK;
}

enum ha_status ha_runs_read_file(const char *path, enum ha_runs_format format,
                                 struct ha_run **runs, size_t *count,
                                 struct ha_error *err)
{
	return ha_runs_read_file_named(path, format, NULL, runs, count, err);
}

/* A runs file at path (from_file), or the length bytes at text. */
static enum ha_status read_runs(int from_file, const char *path,
                                const char *text, size_t length,
                                enum ha_runs_format format,
                                const struct ha_runs_names *names, int pool,
                                struct ha_run **runs, size_t *count,
                                struct ha_error *err)
{
	enum ha_status st = start(runs, count, err);
	if (st != HA_OK)
		return st;
	if (from_file && !path)
		return ha_fail(err, HA_EINVAL, "expected a path, found NULL");
	if (!from_file && !text && length > 0)
		return ha_fail(err, HA_EINVAL, "expected a text, found NULL");
	if (from_file && format == HA_RUNS_AUTO)
		format = ha_runs_format_of(path);
	if (format == HA_RUNS_YAML) {
		struct ha_yr r;
		if (yaml_names(names, err) != HA_OK)
			return HA_EINVAL;
		st = from_file ? ha_yr_open_file(&r, path, &OPTIONS, err)
		               : ha_yr_open_text(&r, text, length, &OPTIONS, err);
		return read_yaml(&r, st, pool, runs, count);
	}
	if (format != HA_RUNS_CSV)
		return ha_fail(err, HA_EINVAL, "unknown runs format %d", (int)format);
	char *buf = NULL;
	if (from_file) {
		st = slurp(path, &buf, &length, err);
		text = buf;
		if (st != HA_OK && err)
			err->file = path;
	} else if (length > HA_RUNS_MAX_FILE) {
		st = ha_fail(err, HA_EFORMAT, "expected at most %zu bytes of "
		             "input, found more", HA_RUNS_MAX_FILE);
	}
	if (st == HA_OK)
		st = runs_parse_csv(text ? text : "", length, path, names, pool,
		                    runs, count, err);
	free(buf);
	return st;
}

enum ha_status ha_runs_read_file_named(const char *path,
                                       enum ha_runs_format format,
                                       const struct ha_runs_names *names,
                                       struct ha_run **runs, size_t *count,
                                       struct ha_error *err)
{
	return read_runs(1, path, NULL, 0, format, names, 0, runs, count,
	                 err);
}

enum ha_status ha_runs_read_pool(const char *path, enum ha_runs_format format,
                                 const struct ha_runs_names *names,
                                 struct ha_run **runs, double **costs,
                                 size_t *count, struct ha_error *err)
{
	if (costs)
		*costs = NULL;
	if (!costs) {
		enum ha_status st = start(runs, count, err);
		return st != HA_OK ? st : ha_fail(err, HA_EINVAL, "expected a result "
		                                  "pointer, found NULL");
	}
	enum ha_status st = read_runs(1, path, NULL, 0, format, names, 1, runs,
	                              count, err);
	if (st != HA_OK)
		return st;
	*costs = malloc(*count * sizeof **costs);
	if (!*costs) {
		free(*runs);
		*runs = NULL;
		*count = 0;
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < *count; i++) {
		(*costs)[i] = (*runs)[i].loss; /* the cost, held there while read */
		(*runs)[i].loss = NAN;
	}
	return HA_OK;
}

enum ha_status ha_runs_read_string_named(const char *text, size_t length,
                                         enum ha_runs_format format,
                                         const struct ha_runs_names *names,
                                         struct ha_run **runs, size_t *count,
                                         struct ha_error *err)
{
	return read_runs(0, NULL, text, length, format, names, 0, runs, count,
	                 err);
}
