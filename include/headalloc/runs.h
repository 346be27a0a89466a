/* headalloc — runs files: the measured training runs a calibration is
 * fitted to (calibrate.h, headalloc-runs(5)).
 *
 * A run is (heads, head_dim, samples, loss[, loss_se][, kv_heads]).
 * kv_heads is G, the key/value heads of grouped-query attention: a
 * whole number that divides heads (default, and an empty CSV cell:
 * heads, no grouping).  Two formats:
 *
 *   YAML   one mapping whose only key is `runs`, a non-empty list of
 *          mappings {heads, head_dim, samples, loss, loss_se?}, read with
 *          the rules every YAML input of headalloc shares (no anchors,
 *          aliases, tags or merge keys; each key once; numbers plain, in
 *          the grammar of headalloc-scenario(5), Values);
 *
 *            runs:
 *              - {heads: 8, head_dim: 16, samples: 1e6, loss: 3.21}
 *              - {heads: 4, head_dim: 32, samples: 1e7, loss: 2.87,
 *                 loss_se: 0.01}
 *
 *   CSV    what experiment trackers export (RFC 4180): a header row that
 *          names the columns, then one row a run.
 *
 *            heads,head_dim,samples,loss,loss_se
 *            8,16,1e6,3.21,
 *            4,32,1e7,2.87,0.01
 *
 *          The columns heads, head_dim, samples and loss are required,
 *          loss_se is optional (an empty cell: no standard error for that
 *          run), in any order; model_dim (the width H * d_k) may stand in
 *          for head_dim, which is then model_dim / heads (it must divide
 *          exactly; with both, model_dim must be heads * head_dim).
 *          Other columns are allowed and ignored (trackers export
 *          dozens), and must still be well-formed CSV.  A tracker's names
 *          for the columns ("n_head", "val/loss", "params.n_head") are
 *          given by struct ha_runs_names (ha_runs_read_file_named).
 *          Names match exactly (case and all) after the spaces and tabs
 *          around an unquoted cell are trimmed; a name used twice is an
 *          error.  Cells may be quoted ("8", "a ""b"", c"), quoted cells
 *          may hold commas and line breaks; a quote inside an unquoted
 *          cell, or text after a closing quote, is an error.  Every row
 *          has as many cells as the header.  Lines end in LF or CRLF
 *          (a CR alone is an error); empty lines, and lines of spaces and
 *          tabs only, are skipped anywhere; a UTF-8 byte-order mark at
 *          the start is skipped.  The text must be UTF-8 without NUL or
 *          other control characters (tab, CR and LF aside).  No comments.
 *
 * In both, heads and head_dim are whole numbers from 1 with heads *
 * head_dim <= HA_BUDGET_MAX, samples a number > 1 and <= 1e300, loss and
 * loss_se numbers > 0 (the same grammar: "1e6", not "1,000,000").
 * Limits: at most HA_RUNS_MAX runs and HA_RUNS_MAX_FILE bytes, so that
 * memory stays bounded on any input.
 *
 * Errors fill struct ha_error with the file, the 1-based line and column
 * (in characters) of the offending value, and a message saying where,
 * what was expected and what was found:
 *   "runs[2].loss: expected a number > 0, found '-1'"        (YAML)
 *   "row 3, loss: expected a number > 0, found '-1'"          (CSV) */
#ifndef HEADALLOC_RUNS_H
#define HEADALLOC_RUNS_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One measured training run. */
struct ha_run {
	uint64_t heads;    /* H >= 1 */
	uint64_t head_dim; /* d >= 1, H d <= HA_BUDGET_MAX */
	double samples;    /* n > 1, finite */
	double loss;       /* L > 0, finite */
	double loss_se;    /* standard error of L, > 0 and finite; NaN if absent */
	uint64_t kv_heads; /* G, dividing H (the readers set H when absent);
	                      0 is taken as H, for runs built in code */
};

/* The most runs read from one file. */
#define HA_RUNS_MAX ((size_t)100000)
/* The largest runs file read: 64 MiB. */
#define HA_RUNS_MAX_FILE ((size_t)64 << 20)
/* The longest CSV cell of a column that is read (a number); ignored
 * columns' cells may be as long as the file. */
#define HA_RUNS_MAX_CELL 64

enum ha_runs_format {
	HA_RUNS_AUTO = 0, /* by the file name: CSV when it ends in ".csv" (any
	                     case), YAML otherwise */
	HA_RUNS_YAML = 1,
	HA_RUNS_CSV = 2
};

/* Read the runs of the file at path in format (HA_RUNS_AUTO: by its
 * name).  On HA_OK *runs is a new array of *count >= 1 runs, in the
 * file's order (free it with free()).  Otherwise *runs is NULL, *count 0
 * and err (if not NULL) says why: HA_EIO when the file cannot be opened
 * or read (no position), HA_EFORMAT for malformed content (with its
 * position), HA_ENOMEM, HA_EINVAL for a NULL argument or an unknown
 * format.  err->file is path. */
HA_API enum ha_status ha_runs_read_file(const char *path,
                                        enum ha_runs_format format,
                                        struct ha_run **runs, size_t *count,
                                        struct ha_error *err);

/* The columns of a CSV runs file by the names a tracker gives them
 * (W&B: "n_head", "val/loss"; MLflow: "params.n_head",
 * "metrics.val_loss"): name[key] is the header of key's column, "" for
 * the key's own name ("heads", "head_dim", "model_dim", "samples",
 * "loss", "loss_se", "kv_heads"). */
enum ha_runs_key {
	HA_RUNS_KEY_HEADS = 0,
	HA_RUNS_KEY_HEAD_DIM,
	HA_RUNS_KEY_MODEL_DIM,
	HA_RUNS_KEY_SAMPLES,
	HA_RUNS_KEY_LOSS,
	HA_RUNS_KEY_LOSS_SE,
	HA_RUNS_KEY_KV_HEADS,
	HA_RUNS_KEYS
};
/* The longest header name a key maps to, in bytes (NUL included). */
#define HA_RUNS_NAME_MAX 256
struct ha_runs_names {
	char name[HA_RUNS_KEYS][HA_RUNS_NAME_MAX];
};

/* Every key under its own name. */
HA_API void ha_runs_names_init(struct ha_runs_names *names);

/* Map key (by its name) to the header column: HA_EINVAL (err says why)
 * for an unknown key, a key already mapped, or a column that is empty,
 * longer than HA_RUNS_NAME_MAX - 1 bytes or not UTF-8 text. */
HA_API enum ha_status ha_runs_names_set(struct ha_runs_names *names,
                                        const char *key, const char *column,
                                        struct ha_error *err);

/* ha_runs_read_file with the CSV columns under names (NULL: their own
 * names).  A mapping is for CSV: names that map any key with a YAML file
 * are HA_EINVAL. */
HA_API enum ha_status ha_runs_read_file_named(const char *path,
                                              enum ha_runs_format format,
                                              const struct ha_runs_names *names,
                                              struct ha_run **runs,
                                              size_t *count,
                                              struct ha_error *err);

/* A pool of runs not yet trained (headalloc plan --pool): a runs file
 * in either format without loss (and loss_se), which it refuses at its
 * position ("runs[2].loss: expected no loss in a pool ..."; in CSV the
 * header's loss column), with an optional cost (a number > 0; CSV: an
 * empty cell for none).  On HA_OK *runs holds *count runs whose loss is
 * NaN and *costs their costs (NaN where none was given); free both with
 * free().  Errors as ha_runs_read_file_named's. */
HA_API enum ha_status ha_runs_read_pool(const char *path,
                                        enum ha_runs_format format,
                                        const struct ha_runs_names *names,
                                        struct ha_run **runs, double **costs,
                                        size_t *count, struct ha_error *err);

/* Runs given as columns in memory (a DataFrame's, a tracker's API): one
 * array per column, count entries each, row i being run i.  The rules
 * and the words are those of a CSV runs file of the same rows, a NULL
 * column being one the header lacks: whole-number columns are doubles
 * (a DataFrame column of integers converts to them exactly up to 2^53)
 * and must hold integers from 1 to 9223372036854775807.
 *   heads, samples, loss   required
 *   head_dim               or NULL with model_dim: head_dim is then
 *                          model_dim / heads, which must divide exactly
 *   model_dim              NULL, or the width H * d_k of each run (with
 *                          head_dim too, it must be heads * head_dim)
 *   loss_se                NULL for none; a NaN entry: none for that run
 *                          (a CSV file's empty cell)
 *   kv_heads               NULL for heads; a NaN entry: heads for that run
 *   names                  NULL, or the names the columns stand under
 * The domains are those of the files (heads * head_dim <= HA_BUDGET_MAX,
 * 1 < samples <= 1e300, loss, loss_se > 0 and finite, kv_heads dividing
 * heads); NaN in another column is a value outside its domain. */
struct ha_runs_columns {
	size_t count; /* 1 to HA_RUNS_MAX */
	const double *heads;
	const double *head_dim;
	const double *model_dim;
	const double *samples;
	const double *loss;
	const double *loss_se;
	const double *kv_heads;
	/* NULL, or the columns' names (as a CSV file's header is with
	 * ha_runs_read_file_named): a NULL column whose key they name is
	 * refused as the header's missing column ("header: expected the
	 * column 'n_kv_head' (named for kv_heads), found none"); names
	 * standing two keys for one column are HA_EINVAL */
	const struct ha_runs_names *names;
};

/* Build runs from columns.  On HA_OK *runs is a new array of *count =
 * columns->count runs (free it with free()).  Otherwise *runs is NULL,
 * *count 0 and err says why, in the words of the CSV reader for the same
 * rows (its message, without the file's position): HA_EINVAL for a NULL
 * argument; HA_EFORMAT for a required column missing ("header: expected
 * the column 'loss' (...), found none"), count 0 or above HA_RUNS_MAX,
 * or a value outside its domain, with err->line the 1-based row and
 * err->column the 1-based key in the order of enum ha_runs_key ("row 3,
 * loss: expected a number > 0, found '-1'": a whole value below 2^53 as
 * its digits, another in the fewest digits of %g that read back as it,
 * quoted as a CSV cell is); HA_ENOMEM. */
HA_API enum ha_status ha_runs_from_columns(const struct ha_runs_columns *columns,
                                           struct ha_run **runs,
                                           size_t *count,
                                           struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
