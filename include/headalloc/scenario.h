/* headalloc — scenario files: a YAML description of a sweep.
 *
 *   model:                      # optional; the defaults of headalloc-model(7), THE OBJECTS
 *     smoothness: 2             # s > 0
 *     bias_coef: 1              # c_b > 0 (or log_bias_coef: ln c_b)
 *     var_coef: 1               # c_v > 0 (or log_var_coef: ln c_v)
 *     hdi: 1                    # in [0, 1]
 *     irreducible: 0            # E >= 0        (headalloc-model(7), CALIBRATION (The parameters))
 *     var_rate: 0.5             # γ >= 0
 *     var_power: 0              # κ >= 0
 *   constraints:                # optional; 0 or absent = none
 *     head_dim_multiple: 8
 *     min_head_dim: 16
 *     max_head_dim: 256
 *     min_heads: 1
 *     max_heads: 128
 *   budgets: [512, 4096]        # an integer or a list, 1 .. 2^63 - 1
 *   samples: {from: 1e4, to: 1e12, points: 9}  # or a number or a list
 *   report:
 *     all: false                # list every feasible pair
 *     regimes: true             # print the regime table
 *     format: text              # text | yaml
 *   models:                     # optional: the public-model table
 *     - {name: BERT-base, heads: 12, head_dim: 64, samples: 3.3e9,
 *        note: "3.3B words"}
 *     - {name: Falcon-7B, budget: 4544, heads: 71, head_dim: 64}
 *
 * In a model row name, heads and head_dim are required; budget, when
 * given, must equal heads * head_dim; samples (> 1) and note are
 * optional, and so is kv_heads, the key/value heads the heads share (a
 * divisor of heads; default heads).
 *
 * log_bias_coef and log_var_coef set a coefficient exactly from its
 * logarithm (any finite value: a calibrated c_v may lie far beyond a
 * double); a coefficient is given plain or as its logarithm, not both.
 *
 * Every key is optional except that the file needs `budgets` or `models`.
 * A calibration report (`headalloc calibrate --format yaml`) is a
 * scenario too: its other top-level keys `calibration`, `prediction` and
 * `comparison` are accepted and skipped (by the same rules: no anchors,
 * tags or repeated keys), and a file with `calibration` needs no
 * `budgets` or `models`.
 * Unknown keys, repeated keys, merge keys (`<<`), anchors, aliases and
 * explicit tags are errors, as are quoted scalars where a number or
 * boolean belongs.
 * Numbers are read whole and strictly: budgets and counts as decimal
 * integers (no sign, fraction or exponent), real values as finite
 * decimals that may use an exponent ("1e8"); samples must be > 1 and at
 * most 1e300.  `{from, to, points}` is log-spaced with both ends exact
 * (from < to, 2 <= points).  Lists hold at most HA_SCENARIO_MAX_POINTS
 * entries (models: HA_SCENARIO_MAX_MODELS), strings at most
 * HA_SCENARIO_MAX_STRING bytes, the input at most HA_SCENARIO_MAX_FILE
 * bytes, so memory stays bounded on any input.  Numbers follow the one
 * grammar of headalloc-scenario(5), Values (a real number has at most 64
 * characters). */
#ifndef HEADALLOC_SCENARIO_H
#define HEADALLOC_SCENARIO_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "grouped.h"
#include "format.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HA_SCENARIO_MAX_POINTS ((size_t)1000000)
/* The limits of one run, file and command line alike, each measured by
 * bench/headalloc-bench (section "limits") to run in seconds and in
 * memory that grows with the input: at most HA_SCENARIO_MAX_BUDGETS
 * distinct budgets (a budget given twice is an error), at most
 * HA_SCENARIO_MAX_ROWS rows of a table (budgets x sample sizes), and at
 * most HA_SCENARIO_MAX_DIVISORS divisors over the distinct budgets (the
 * solver lists them; the most any budget has is HA_MAX_DIVISORS). */
#define HA_SCENARIO_MAX_BUDGETS ((size_t)100000)
#define HA_SCENARIO_MAX_ROWS ((uint64_t)1000000)
#define HA_SCENARIO_MAX_DIVISORS ((uint64_t)1 << 22)
#define HA_SCENARIO_MAX_MODELS ((size_t)10000)
#define HA_SCENARIO_MAX_STRING ((size_t)256)
/* The largest scenario read, file or text: 64 MiB (a full
 * HA_SCENARIO_MAX_POINTS list is about 25 MiB). */
#define HA_SCENARIO_MAX_FILE ((size_t)64 << 20)

/* One row of the public-model table. */
struct ha_scenario_entry {
	char *name;         /* non-empty, owned by the scenario */
	uint64_t budget;    /* heads * head_dim */
	uint64_t heads;
	uint64_t head_dim;
	double samples;     /* training-set size, valid when has_samples */
	int has_samples;    /* 0 when the file gives none ("not disclosed") */
	char *note;         /* owned; NULL when absent */
	uint64_t kv_heads;  /* key/value heads (grouped-query: fewer than
	                       heads, dividing them); heads when absent */
};

/* The keys of the `kv` map, in the order of ha_scenario.kv_line. */
enum ha_scenario_kv_key {
	HA_SCENARIO_KV_HEADS, HA_SCENARIO_MAX_KV_DIM, HA_SCENARIO_MIN_KV_HEADS,
	HA_SCENARIO_MAX_KV_HEADS, HA_SCENARIO_LAYERS, HA_SCENARIO_KV_BYTES,
	HA_SCENARIO_MODEL_DIM, HA_SCENARIO_KV_KEYS
};

/* A scenario read from a file.  Arrays and strings are owned by it and
 * freed by ha_scenario_free(). */
struct ha_scenario {
	struct ha_model model;
	struct ha_constraints constraints; /* zero fields: no constraint */
	uint64_t *budgets;                 /* in file order */
	size_t budget_count;
	double *samples;                   /* in file order (sweeps: ascending) */
	size_t sample_count;               /* 0 when the file gives none */
	int report_all;
	int report_regimes;
	enum ha_report_format report_format;
	struct ha_scenario_entry *models;
	size_t model_count;
	/* The grouped-query allocation (grouped.h): the `kv` map, with the
	 * keys of the grouped report's kv; has_kv when the file gives it. */
	struct ha_kv_constraints kv;
	struct ha_kv_shape kv_shape;
	int has_kv;
	/* Where the file gives each key of kv (its value's 1-based line and
	 * column; 0 when absent), so that a check made later, against the
	 * command line's values, can point at it. */
	unsigned kv_line[HA_SCENARIO_KV_KEYS], kv_column[HA_SCENARIO_KV_KEYS];
};

/* Read a scenario from a file.  On HA_OK *out owns a new scenario (free
 * with ha_scenario_free()).  Otherwise *out is NULL and, when err is not
 * NULL, *err says where and why: err->file is path, line and column are
 * 1-based (0 when the error has no position, e.g. a file that cannot be
 * opened) and the message says what was expected and what was found, e.g.
 *   "model.smoothness: expected a number > 0, found '-1'".
 * HA_EIO when the file cannot be opened or read, HA_EFORMAT for malformed
 * YAML or content, HA_ENOMEM; HA_EINVAL for a NULL path or out (no
 * position, no file). */
HA_API enum ha_status ha_scenario_read_file(const char *path,
                                            struct ha_scenario **out,
                                            struct ha_error *err);

/* The same from a buffer of len bytes (need not be NUL-terminated);
 * err->file is NULL. */
HA_API enum ha_status ha_scenario_read_string(const char *text, size_t len,
                                              struct ha_scenario **out,
                                              struct ha_error *err);

/* Free a scenario and everything it owns; NULL is accepted. */
HA_API void ha_scenario_free(struct ha_scenario *scenario);

#ifdef __cplusplus
}
#endif
#endif
