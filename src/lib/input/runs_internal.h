/* What the two readers of runs files share (library-internal): the
 * columns, their domains in words, and the CSV reader's entry point. */
#ifndef HEADALLOC_RUNS_INTERNAL_H
#define HEADALLOC_RUNS_INTERNAL_H

#include <stddef.h>

#include <headalloc/error.h>
#include <headalloc/runs.h>
#include <headalloc/status.h>

/* The columns (YAML keys) of a run, in this order in both formats. */
enum runs_column {
	RUNS_HEADS = 0,
	RUNS_HEAD_DIM = 1,
	RUNS_SAMPLES = 2,
	RUNS_LOSS = 3,
	RUNS_LOSS_SE = 4,
	RUNS_KV_HEADS = 5
};
#define RUNS_COLUMNS 6

/* "heads", ..., "loss_se", "kv_heads". */
extern const char *const runs_column_name[RUNS_COLUMNS];

/* What each column holds, for "expected WHAT" ("a number > 0"). */
extern const char *const runs_column_what[RUNS_COLUMNS];

/* The largest samples value, as ha_model_validate() has it. */
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

#endif
