/* headalloc — reports, for people (text) and for machines (YAML).
 *
 * Every output of headalloc is written here, and only here.  A report is
 * a document on a stream, in one format, made of sections:
 *
 *     struct ha_report *r;
 *     ha_report_new(stdout, HA_FORMAT_YAML, &r);
 *     ha_report_allocation(r, &(struct ha_allocation_request){...}, &err);
 *     ha_report_regimes(r, &(struct ha_regimes_request){...}, &err);
 *     ha_report_end(r);
 *     ha_report_free(r);
 *
 * In YAML the document is one map and each section adds its keys to it;
 * JSON is the same document in the other syntax of the same writer
 * (yaml_writer.h), so every section has it, with the same keys; in text
 * each section adds its lines.  Each section takes a small request
 * struct (what to report; zero-initialise it, so that fields added later
 * keep their default) and returns an enum ha_status.  Errors are sticky:
 * after a section fails, later sections and ha_report_end() write
 * nothing and return the first failure.  Sections only write: what they
 * write is computed by the layers below (the sweep table takes a sweep's
 * result, sweep.h, whose rows it reads back in batches, so that a sweep of
 * a million points is written in constant memory; the regimes take
 * ha_regimes_new's result, the allocation ha_allocation_result_new's).
 * The caller makes each result: no section computes.
 *
 * Writers write only to the stream they are given and never close it. */
#ifndef HEADALLOC_REPORT_H
#define HEADALLOC_REPORT_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calibrate.h"
#include "plan.h"
#include "compare.h"
#include "head_weights.h"
#include "error.h"
#include "hdi.h"
#include "hdi_groups.h"
#include "model.h"
#include "regime.h"
#include "solver.h"
#include "sweep.h"
#include "grouped.h"
#include "format.h"
#include "progress.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The formats (enum ha_report_format) are in format.h, below every reader, so that a scenario file can name one. */

/* ---- the document ------------------------------------------------------- */

struct ha_report;

/* Start a report on stream (not closed by the report) in the given
 * format; for YAML this writes the start of the document.  On HA_OK *out
 * owns a report to free with ha_report_free().  Errors: HA_EINVAL for a
 * NULL argument or an unknown format, HA_ENOMEM; then *out is NULL.  A
 * failure to write the start is sticky and returned by the first section
 * or ha_report_end(). */
HA_API enum ha_status ha_report_new(FILE *stream, enum ha_report_format format,
                                    struct ha_report **out);

/* End the document (YAML: close the top map and the stream), flush the
 * stream and return the report's first failure: HA_EIO when writing
 * failed, else a section's own failure, else HA_OK.  Call it once, after
 * the last section; the report is still to be freed. */
HA_API enum ha_status ha_report_end(struct ha_report *report);

/* Free a report (NULL accepted) without writing anything more. */
HA_API void ha_report_free(struct ha_report *report);

/* ---- sections ------------------------------------------------------------
 * Every section returns HA_OK; HA_EINVAL for a NULL report or request or a
 * request that breaks its contract; HA_EIO when writing fails; or the
 * status of an earlier failure.  When err is not NULL it is filled on
 * failure with a one-line message for people ("solving: out of memory";
 * "writing the report failed").  Pointers in a request are borrowed for
 * the call only. */

/* Where a measured HDI came from (the allocation command's --hdi-from):
 * the mean HDI over `tensors` tensors of file, read as heads heads each in
 * the given layout.  Reported as "mean over 2 tensors of FILE (PATTERN,
 * 12 heads, layout out-in)". */
struct ha_hdi_source {
	const char *file;      /* required */
	const char *pattern;   /* the tensors selected; NULL: all tensors */
	uint64_t heads;
	enum ha_layout layout;
	size_t tensors;
	/* group_hdi measured too (a grouped model directory): the mean
	 * within-group HDI over group_layers layers of key_heads groups of
	 * query_heads / key_heads query heads; 0 layers: not measured */
	size_t group_layers;
	size_t key_heads;
	size_t query_heads;
};

/* One solved allocation.  YAML keys: budget, samples (the solution's n), model {smoothness,
 * bias_coef, var_coef, hdi}, optimum {heads, head_dim, mse, log10_mse,
 * bias2, variance, covariance}, relaxed {head_dim, heads, mse, log10_mse},
 * certificate {method, divisors, feasible, evaluated}, then candidates (a
 * list of maps like optimum, in the given order) when candidates is not
 * NULL, then hdi_source when hdi_source is not NULL.  Text: the same
 * account in lines, the candidates as an aligned table. */
struct ha_allocation_request {
	const struct ha_model *model;          /* required */
	const struct ha_solution *solution;    /* required */
	const struct ha_allocation *candidates; /* NULL: none */
	size_t candidate_count;
	const struct ha_hdi_source *hdi_source; /* NULL: the HDI was given */
};
HA_API enum ha_status ha_report_allocation(struct ha_report *report,
                                           const struct ha_allocation_request *req,
                                           struct ha_error *err);

/* The problem of a sweep: YAML keys model (as above), hdi_source when
 * given, and constraints (a flow map of the constraints in force, zero
 * fields left out, so that it reads back as a scenario file's); text: a
 * "model:" line and the HDI's source. */
struct ha_header_request {
	const struct ha_model *model;             /* required */
	const struct ha_constraints *constraints; /* NULL: none */
	const struct ha_hdi_source *hdi_source;   /* NULL: the HDI was given */
};
HA_API enum ha_status ha_report_header(struct ha_report *report,
                                       const struct ha_header_request *req,
                                       struct ha_error *err);

/* The values of n of a sweep (struct ha_samples) and its threads are in
 * sweep.h. */

/* The sweep table: one row for each (n, D) of a sweep's result
 * (ha_sweep_run, sweep.h), n outer (YAML: key table, a list of flow maps
 * {budget, samples, heads, head_dim, mse, log10_mse, relaxed_head_dim,
 * relaxed_heads}), then the scaling-law fits of headalloc-model(7),
 * SCALING LAWS the sweep computed (YAML: key fits {by_budget,
 * by_samples}): per budget ln d* = ln a + b ln ln n and d* = p + q ln n,
 * per n (with several budgets) ln H* = ln c + e ln D, each with its
 * interval, R^2, largest residual and the seeds' claimed slope.  A fit
 * of fewer than three distinct points is reported in words.  The section
 * reads the result and computes nothing (its memory does not grow with
 * the rows).  Write ha_report_header() first.  Errors besides the common
 * ones: HA_EIO when the result's rows cannot be read back; HA_EINVAL
 * without a result. */
struct ha_table_request {
	/* Required: the result of ha_sweep_run, borrowed (freed by the
	 * caller; read, so not shared with another thread meanwhile). */
	struct ha_sweep_result *result;
};
HA_API enum ha_status ha_report_table(struct ha_report *report,
                                      const struct ha_table_request *req,
                                      struct ha_error *err);

/* The exact regimes in n of each budget (headalloc-model(7), EXACT REGIMES IN N): YAML key regimes, a
 * list of flow maps {budget, heads, head_dim, samples_from, samples_to,
 * log10_samples_from, log10_samples_to} (samples beyond a double are .inf
 * while their log10 is exact); text: one table per budget. */
struct ha_regimes_request {
	const struct ha_model *model;             /* required */
	const struct ha_constraints *constraints; /* NULL: none */
	const uint64_t *budgets;
	size_t budget_count;
	struct ha_solver *const *solvers;         /* not read: the regimes are
	                                             made by the caller */
	/* Required: the regimes computed (ha_regimes_new, regime.h) for these
	 * budgets, borrowed, rendered as they are (the report and the picture
	 * compute nothing); HA_EINVAL without them. */
	const struct ha_regimes *regimes;
};
HA_API enum ha_status ha_report_regimes(struct ha_report *report,
                                        const struct ha_regimes_request *req,
                                        struct ha_error *err);

/* Public models against the theory (from ha_compare_model, with name, note
 * and samples_assumed set): YAML key models, a list of maps {name, budget,
 * kv_heads, samples, samples_assumed, note (when not NULL), actual, theory,
 * relaxed_head_dim, mse_ratio, log10_mse_ratio}; text: a table. */
struct ha_models_request {
	const struct ha_model_comparison *comparisons;
	size_t count;
};
HA_API enum ha_status ha_report_models(struct ha_report *report,
                                       const struct ha_models_request *req,
                                       struct ha_error *err);

/* The Head Diversity Index of a weights file or a model directory
 * (headalloc hdi), each tensor's HDI beside the random baseline, the HDI
 * random heads of its shape would have (hdi.h).  YAML keys file, layout,
 * checkpoint (a model directory only: model_type, fusion, query_heads,
 * key_heads, head_dim, model_dim as the plan has them, heads as measured
 * and heads_reason), layers (one map per tensor: tensor, for a directory
 * shard, role and block, then heads, head_dim, model_dim, hdi,
 * baseline_hdi, rank_deficient, most_similar, least_similar and the
 * overlap matrix), mean_hdi and mean_baseline_hdi.  Text: a line per
 * tensor (for a directory: after lines naming the model type, the heads
 * and why, the fusion, layout, head_dim and d_model; each line with its
 * shard), each followed by its overlap matrix when overlap is not 0,
 * then the means; control characters in names shown as '?'. */
struct ha_hdi_request {
	const char *file;                  /* required: what was measured,
	                                      as given */
	enum ha_layout layout;
	const struct ha_hdi_report *hdi;   /* required */
	int overlap;                       /* text: print the overlap matrices */
	/* A model directory's plan, whose layer i hdi->tensors[i] measures
	 * (hdi->count == checkpoint->count), or NULL for a weights file. */
	const struct ha_checkpoint *checkpoint;
	/* Which heads were measured and why, for a directory; NULL: the
	 * plan's reason. */
	const char *heads_reason;
	/* The within-group diversity of a grouped directory (hdi --groups),
	 * measured on the same plan (groups->count == checkpoint->count), or
	 * NULL.  YAML: each layer adds group_hdi and groups (each key
	 * group's HDI, in key-head order); then the key groups {key_heads,
	 * query_heads, group_size, baseline_group_hdi} and mean_group_hdi
	 * after mean_baseline_hdi.  Text: a table of the same after the
	 * means. */
	const struct ha_hdi_groups *groups;
};
HA_API enum ha_status ha_report_hdi(struct ha_report *report,
                                    const struct ha_hdi_request *req,
                                    struct ha_error *err);

/* Optimal head weights (headalloc weights): YAML keys heads, alpha,
 * error_optimal, error_uniform, gain, pseudo_inverse, null_space; text:
 * the first five, one a line. */
struct ha_head_weights_request {
	const struct ha_head_weights *weights; /* required */
};
HA_API enum ha_status ha_report_head_weights(struct ha_report *report,
                                             const struct ha_head_weights_request *req,
                                             struct ha_error *err);

/* A calibration (headalloc calibrate; headalloc-model(7), CALIBRATION).  YAML keys:
 *   calibration {runs, huber_delta, objective, rss, rms, aicc, bic,
 *                starts {total, reached_best},
 *                parameters {NAME: {scale, value, free, se, ci95: [lo, hi],
 *                                   at_bound}} for the seven parameters,
 *                bootstrap {resamples, seed, fitted, unconverged,
 *                           unfittable, failed},
 *                residuals [{heads, head_dim, samples, loss, fitted,
 *                            residual}],
 *                warnings [MESSAGE...]}
 *   model {...}        the calibrated model, as the allocation report's
 *                      (a scenario file's model: it reads back exactly)
 *   prediction {budget, samples, heads, head_dim, loss,
 *               distribution [{heads, head_dim, share}]}  with a target
 *   comparison [{law, free [NAME...], k, error (a law not fitted), rss,
 *                aicc, bic, loo_rmse, heads, head_dim}]   with a ladder
 * scale is "log" for bias_coef and var_coef, whose value, se and ci95 are
 * then of ln c (exact however far beyond a double c lies), "linear" for
 * the others.  A quantity that is not defined (the se of a fixed
 * parameter or without full rank, ci95 without bootstrap refits, AICc
 * with m - k - 1 <= 0) is null.  Text: the same account in lines and
 * tables for people, the warnings last, one a line. */
struct ha_calibration_request {
	const struct ha_calibration *calibration; /* required */
	const char *runs_file; /* text: named in the first line; NULL: not */
};
HA_API enum ha_status ha_report_calibration(struct ha_report *report,
                                            const struct ha_calibration_request *req,
                                            struct ha_error *err);

/* A plan (headalloc plan; plan.h, headalloc-model(7), PLANNING).  YAML
 * and JSON keys:
 *   target {budget, samples, runs}
 *   plan [{heads, head_dim, kv_heads, samples, cost, value, value_se,
 *          value_per_cost, batch_cost, p_correct_before, p_correct_after,
 *          expected_regret_after, degenerate_outcomes | reason}]
 *   decision {heads, head_dim, kv_heads, p_correct, expected_regret
 *             [, undefined]}
 *   stop, stop_below, initial_design
 *   candidates [{heads, head_dim, kv_heads, samples, cost, value,
 *                value_se, value_per_cost, ess, picked}]
 *   method {posterior, samples, laws [{law, weight, samples, sigma}],
 *           outcomes, sigma, sigma_from, ess_threshold,
 *           degenerate_outcomes, evaluations, refits, seed, cost,
 *           model_dim, pool_samples, pool_samples_default}
 * In an initial design the values are null (nothing is fitted yet) and
 * each pick has its reason; an undefined decision's fields are null.
 * Text: the same account in lines, the picks as a table. */
struct ha_plan_request {
	const struct ha_plan *plan; /* required */
	const char *runs_file;      /* text: named in the first line; NULL: not */
};
HA_API enum ha_status ha_report_plan(struct ha_report *report,
                                     const struct ha_plan_request *req,
                                     struct ha_error *err);

/* A grouped-query allocation (grouped.h; written instead of the
 * allocation section when the allocation is over (H, G, d)).  YAML keys:
 * budget, samples, model (as above, with group_hdi when it is not 0),
 * kv {kv_heads (a number or auto), max_kv_dim, min_kv_heads,
 * max_kv_heads (those set), layers, kv_bytes, model_dim (when set)},
 * optimum and unconstrained {heads, kv_heads, group_size, head_dim,
 * kv_dim, kv_cache_bytes_per_token, attention_params (with model_dim),
 * mse, log10_mse, bias2, variance, covariance, loss_ratio}, relaxed
 * {head_dim, kv_heads, heads, kv_dim, mse, log10_mse}, certificate
 * {method, divisors, head_dims, candidates, feasible, bound}, then front
 * (a list of maps like optimum) when the solution has one, and chosen
 * (the front's entry within max_loss_ratio, or null) with
 * max_loss_ratio.  Text: the same account in lines, the front as a
 * table. */
struct ha_grouped_report_request {
	const struct ha_model *model;                /* required */
	const struct ha_grouped_solution *solution;  /* required */
	const struct ha_kv_constraints *kv;          /* NULL: none */
	const struct ha_kv_shape *shape;             /* NULL: the defaults */
	double max_loss_ratio;                       /* 0: none */
	const struct ha_hdi_source *hdi_source;      /* NULL: the HDI was given */
};
HA_API enum ha_status ha_report_grouped(struct ha_report *report,
                                        const struct ha_grouped_report_request *req,
                                        struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
