/* What the two readers of runs files share (library-internal): the
 * columns' domains in words, and the CSV reader's entry point. */
#ifndef HEADALLOC_RUNS_INTERNAL_H
#define HEADALLOC_RUNS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/error.h>
#include <headalloc/runs.h>
#include <headalloc/status.h>

/* The largest samples value, as ha_model_validate() has it (and a
 * scenario's sample sizes); spelled once so that the message states the
 * value compared with. */
#define RUNS_SAMPLES_MAX 1e300

/* Parse the CSV text of length bytes (runs.h has the format) with libcsv,
 * the columns under names (NULL: their own); pool: a pool's runs
 * (ha_runs_read_pool), no loss column, an optional cost column whose
 * values (NaN for an empty cell) are held in the runs' loss.  path is the file's name
 * for err->file (NULL for text).  On HA_OK *runs is a new
 * array of *count >= 1 runs. */
enum ha_status runs_parse_csv(const char *text, size_t length,
                              const char *path,
                              const struct ha_runs_names *names, int pool,
                              struct ha_run **runs,
                              size_t *count, struct ha_error *err);

/* The format a file name stands for: HA_RUNS_CSV for a name ending in
 * ".csv" in any case, else HA_RUNS_YAML (also for NULL). */
enum ha_runs_format ha_runs_format_of(const char *path);

/* "heads", "head_dim", "model_dim", "samples", "loss", "loss_se",
 * "kv_heads"; NULL
 * outside the enum. */
const char *ha_runs_key_str(enum ha_runs_key key);

/* Map the keys of spec, "KEY=COLUMN[,KEY=COLUMN...]" (headalloc
 * calibrate --columns: a column name cannot hold a comma there), onto
 * names (ha_runs_names_init'ed); then ha_runs_names_check.  HA_EINVAL
 * with the item in err's message. */
enum ha_status ha_runs_names_parse(struct ha_runs_names *names,
                                   const char *spec,
                                   struct ha_error *err);

/* HA_EINVAL when two keys stand for the same column ("heads=loss" with
 * loss under its own name). */
enum ha_status ha_runs_names_check(const struct ha_runs_names *names,
                                   struct ha_error *err);

/* ha_runs_read_file_named from length bytes at text (need not be
 * NUL-terminated); format must be HA_RUNS_YAML or HA_RUNS_CSV; err->file
 * is NULL. */
enum ha_status ha_runs_read_string_named(const char *text, size_t length,
                                         enum ha_runs_format format,
                                         const struct ha_runs_names *names,
                                         struct ha_run **runs, size_t *count,
                                         struct ha_error *err);

/* ---- the rules of a runs table, wherever its values come from
 * (runs_rules.c): the CSV reader and ha_runs_from_columns refuse with
 * these words, positions aside. */

/* What a value of each key must be, for "expected WHAT". */
extern const char *const runs_key_what[HA_RUNS_KEYS];

/* "a header row naming the columns heads, ...": what a header needs. */
extern const char runs_header_need[];

/* A table's columns: each key's name, whether the caller named it, and
 * whether the table has it; pool: a pool (no loss required). */
struct runs_header {
	const char *name[HA_RUNS_KEYS];
	int mapped[HA_RUNS_KEYS];
	int present[HA_RUNS_KEYS];
	int pool;
};

/* HA_OK when the header has every required column (model_dim standing
 * in for head_dim) and each named optional one; else HA_EFORMAT with the
 * first it lacks in err's message (no position). */
enum ha_status runs_header_check(const struct runs_header *header,
                                 struct ha_error *err);

/* "row ROW, KEY: expected WHAT, found FOUND" into err (no position);
 * HA_EFORMAT. */
enum ha_status runs_bad_value(struct ha_error *err, size_t row,
                              const char *key, const char *what,
                              const char *found);

/* The checks that join the values of run (row ROW), each already in its
 * domain: heads * head_dim <= HA_BUDGET_MAX (has_head_dim), kv_heads
 * divides heads (0: set to heads), and, has_width, the model width
 * (shown as width_text) a multiple of heads, head_dim then set to
 * width / heads (no head_dim), or heads * head_dim.  HA_OK, or
 * HA_EFORMAT with err's message (no position) and *at the key at
 * fault. */
enum ha_status runs_join(size_t row, struct ha_run *run, int has_head_dim,
                         int has_width, uint64_t width, const char *width_text,
                         enum ha_runs_key *at, struct ha_error *err);

#endif
