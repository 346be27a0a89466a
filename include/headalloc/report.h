/* headalloc — reports of a solved allocation, for people (text) and for
 * machines (YAML).  Writers write only to the stream they are given. */
#ifndef HEADALLOC_REPORT_H
#define HEADALLOC_REPORT_H

#include "export.h"

#include <stddef.h>
#include <stdio.h>

#include "fit.h"
#include "model.h"
#include "regime.h"
#include "solver.h"
#include "status.h"
#include "yaml_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The key "model" and its map {smoothness, bias_coef, var_coef, hdi},
 * inside an open YAML map. */
HA_API void ha_report_yaml_model(struct ha_yaml_writer *w, const struct ha_model *model);

/* Write the keys of one solved allocation into an open YAML map:
 * budget, samples, model, optimum, relaxed, certificate and, when
 * candidates is not NULL, candidates (count rows, in the given order). */
HA_API void ha_report_yaml_solution(struct ha_yaml_writer *w,
                             const struct ha_model *model,
                             const struct ha_solution *solution,
                             const struct ha_allocation *candidates,
                             size_t count);

/* The same for people: the optimum, the relaxed optimum, the error split,
 * the certificate and, when candidates is not NULL, an aligned table.
 * HA_EIO when writing fails. */
HA_API enum ha_status ha_report_text_solution(FILE *stream,
                                       const struct ha_model *model,
                                       const struct ha_solution *solution,
                                       const struct ha_allocation *candidates,
                                       size_t count);

/* ---- sweep tables ------------------------------------------------------
 * One row per (budget, samples): the integer optimum and the relaxed one. */

/* A row as a flow map {budget, samples, heads, head_dim, mse, log10_mse,
 * relaxed_head_dim, relaxed_heads} inside an open YAML sequence. */
HA_API void ha_report_yaml_table_row(struct ha_yaml_writer *w, double samples,
                              const struct ha_solution *solution);

/* The header line of the text table, then one line per row. */
HA_API void ha_report_text_table_header(FILE *stream);
HA_API void ha_report_text_table_row(FILE *stream, double samples,
                              const struct ha_solution *solution);

/* ---- fits (spec §6) ------------------------------------------------------ */

/* What a fit is of, for its report. */
enum ha_law {
	HA_LAW_DIM_POWER,   /* ln d_k* = ln a + b ln ln n      (HA_FIT_POWER_LOGLN) */
	HA_LAW_DIM_LOG,     /* d_k* = p + q ln n                (HA_FIT_LOG) */
	HA_LAW_HEADS_POWER  /* ln H* = ln c + e ln D            (HA_FIT_POWER) */
};

/* A finished fit: status is HA_OK (result valid), HA_EDEGENERATE (fewer
 * than 3 distinct points: reported in words), or another failure.
 * points is the number of points offered.  largest_at is the abscissa
 * n of the point with the largest residual (largest_budget, its D, for
 * HA_LAW_HEADS_POWER).  claimed is the seeds' value of the slope
 * (b = 2/(4+s), or e = 1); NaN for none. */
struct ha_law_fit {
	enum ha_law law;
	enum ha_status status;
	size_t points;
	struct ha_fit_result result;
	double largest_at;
	uint64_t largest_budget;
	double claimed;
};

/* The fit as a YAML map (open it with a key first). */
HA_API void ha_report_yaml_fit(struct ha_yaml_writer *w, const struct ha_law_fit *fit);

/* The fit in one line for people, prefixed by label ("budget 512"). */
HA_API void ha_report_text_fit(FILE *stream, const char *label,
                        const struct ha_law_fit *fit);

/* ---- regimes (spec §4) ---------------------------------------------------- */

/* Each regime as a flow map {budget, heads, head_dim, samples_from,
 * samples_to, log10_samples_from, log10_samples_to} inside an open YAML
 * sequence; samples beyond a double are .inf while their log10 is exact. */
HA_API void ha_report_yaml_regimes(struct ha_yaml_writer *w, uint64_t budget,
                            const struct ha_regime *regimes, size_t count);

/* The regime table of one budget for people. */
HA_API void ha_report_text_regimes(FILE *stream, uint64_t budget,
                            const struct ha_regime *regimes, size_t count);

/* ---- public models -------------------------------------------------------- */

/* A model's actual allocation against the theory's at its budget and n. */
struct ha_model_comparison {
	const char *name;
	const char *note;        /* may be NULL */
	double samples;
	int samples_assumed;     /* 1: the file gave no size; samples is assumed */
	struct ha_allocation actual;
	struct ha_solution theory;
	double log10_ratio;      /* log10(mse_actual / mse_theory), finite */
};

/* Compare a model of budget heads*head_dim: evaluate its own allocation
 * and solve for the theory's under c.  HA_EINVAL / HA_EINFEASIBLE as
 * ha_solve; the actual allocation need not meet c. */
HA_API enum ha_status ha_report_compare_model(const struct ha_model *model,
                                       const struct ha_constraints *c,
                                       uint64_t heads, uint64_t head_dim,
                                       struct ha_model_comparison *out);

HA_API void ha_report_yaml_comparison(struct ha_yaml_writer *w,
                               const struct ha_model_comparison *cmp);
HA_API void ha_report_text_comparison_header(FILE *stream);
HA_API void ha_report_text_comparison(FILE *stream, const struct ha_model_comparison *cmp);

#ifdef __cplusplus
}
#endif
#endif
