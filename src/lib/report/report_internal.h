/* What the report's sections share (library-internal): the document, its
 * sticky failure, and the small formatting helpers of both formats. */
#ifndef HEADALLOC_REPORT_INTERNAL_H
#define HEADALLOC_REPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include <headalloc/error.h>
#include <headalloc/fit.h>
#include <headalloc/report.h>
#include <headalloc/sweep.h>

#include "base/error_internal.h"
#include "report/yaml_writer.h"

struct ha_report {
	FILE *stream;
	struct ha_yaml_writer *yaml; /* YAML or JSON; NULL for text */
	int yaml_text;               /* YAML: long sections may write their
	                                items as YAML text past the emitter */
	struct ha_error failure;     /* the first failure; status HA_OK while none */
};

/* ---- the life of a section ----------------------------------------------
 * A section starts with report_start(), which refuses a NULL report or
 * request and repeats an earlier failure, and ends with report_end(),
 * which turns a failed stream into HA_EIO.  Both fill err (if not NULL). */
enum ha_status report_start(struct ha_report *r, const void *req,
                            struct ha_error *err);
enum ha_status report_end(struct ha_report *r, struct ha_error *err);

/* Record a failure of status st (the first one sticks) and copy it to
 * err.  Returns the report's first failure. */
enum ha_status report_fail(struct ha_report *r, struct ha_error *err,
                           enum ha_status st, const char *fmt, ...)
	HA_PRINTF(4, 5);

/* 1 when writing has failed so far (stream error or YAML writer error):
 * long sections check it to stop early. */
int report_write_failed(const struct ha_report *r);

/* ---- numbers ------------------------------------------------------------- */

/* ln x -> log10 x. */
double report_log10(double log_value);

/* A value for people: %.6g, or "inf" beyond a double.  Returns buf. */
const char *report_human(double v, char buf[32]);

/* ---- pieces more than one section writes --------------------------------- */

/* The key "model" and its map {smoothness, bias_coef, var_coef, hdi},
 * inside an open map.  A coefficient held as its log is written as that
 * exact logarithm instead (log_bias_coef, log_var_coef), and irreducible,
 * var_rate and var_power follow where they differ from the defaults: the
 * map reads back as a scenario file's model, bit for bit. */
void report_yaml_model(struct ha_yaml_writer *w, const struct ha_model *model);

/* The same parameters for people: "smoothness 2, bias_coef 1, var_coef 1,
 * hdi 1" (%.6g), with the same keys as the YAML map. */
void report_text_model(FILE *f, const struct ha_model *model);

/* For an uncalibrated model, the text report's last line: "note: the
 * model's coefficients are headalloc's defaults, ..." pointing at
 * headalloc calibrate; nothing otherwise. */
void report_text_caution(FILE *f, const struct ha_model *m);

/* ---- fits (headalloc-model(7), SCALING LAWS) --------------------------------------------------- */

/* What a fit is of, for its report. */
enum report_law {
	LAW_DIM_POWER,   /* ln d_k* = ln a + b ln ln n      (HA_FIT_POWER_LOGLN) */
	LAW_DIM_LOG,     /* d_k* = p + q ln n                (HA_FIT_LOG) */
	LAW_HEADS_POWER  /* ln H* = ln c + e ln D            (HA_FIT_POWER) */
};

/* A sweep's finished fit (sweep.h) of the law as a YAML map (open it
 * with a key first); a failed one's status in words. */
void report_yaml_fit(struct ha_yaml_writer *w, enum report_law law,
                     const struct ha_sweep_fit *fit);

/* The fit as report_yaml_fit writes it as the value of a key in a block
 * map, as raw text at p: the bytes the emitter writes, each of the fit's
 * keys on a new line, indent spaces in.  Returns the end of the text, or
 * NULL (nothing written) for a fit whose status is not HA_OK (it goes
 * through the emitter).  At most REPORT_RAW_FIT_MAX bytes for an indent
 * of at most 16. */
#define REPORT_RAW_FIT_MAX ((size_t)2048)
char *report_raw_fit(char *p, size_t indent, enum report_law law,
                     const struct ha_sweep_fit *fit);

#endif
