/* Public models against the theory: what ha_compare_model found. */
#include <inttypes.h>
#include <math.h>

#include "report_internal.h"
#include "alloc/model_internal.h"

static void yaml_comparison(struct ha_yaml_writer *w,
                            const struct ha_model_comparison *cmp)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key_string(w, "name", cmp->name);
	ha_yaml_key_uint(w, "budget", cmp->theory.budget);
	ha_yaml_key_uint(w, "kv_heads",
	                 cmp->kv_heads ? cmp->kv_heads : cmp->actual.heads);
	ha_yaml_key_double(w, "samples", cmp->samples);
	ha_yaml_key_bool(w, "samples_assumed", cmp->samples_assumed);
	if (cmp->note)
		ha_yaml_key_string(w, "note", cmp->note);
	report_yaml_terms(w, "actual", 1, &cmp->actual);
	report_yaml_terms(w, "theory", 1, &cmp->theory.optimum);
	ha_yaml_key_double(w, "relaxed_head_dim", cmp->theory.relaxed.head_dim);
	ha_yaml_key_double(w, "mse_ratio",
	                   ha_exp_or_inf(cmp->log10_ratio * log(10.0)));
	ha_yaml_key_double(w, "log10_mse_ratio", cmp->log10_ratio);
	ha_yaml_end_map(w);
}

static void text_comparison(FILE *f, const struct ha_model_comparison *cmp)
{
	char actual[48], theory[48];
	snprintf(actual, sizeof actual, "%" PRIu64 " x %" PRIu64,
	         cmp->actual.heads, cmp->actual.head_dim);
	snprintf(theory, sizeof theory, "%" PRIu64 " x %" PRIu64,
	         cmp->theory.optimum.heads, cmp->theory.optimum.head_dim);
	fprintf(f, "%-18s %8" PRIu64 " %10.4g %13s %9" PRIu64 " %13s %16.6g  %s%s\n",
	        cmp->name, cmp->theory.budget, cmp->samples, actual,
	        cmp->kv_heads ? cmp->kv_heads : cmp->actual.heads, theory,
	        cmp->log10_ratio, cmp->samples_assumed ? "(samples assumed) " : "",
	        cmp->note ? cmp->note : "");
}

enum ha_status ha_report_models(struct ha_report *r,
                                const struct ha_models_request *req,
                                struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (req->count && !req->comparisons)
		return report_fail(r, err, HA_EINVAL, "a models table needs its comparisons");
	for (size_t i = 0; i < req->count; i++)
		if (!req->comparisons[i].name)
			return report_fail(r, err, HA_EINVAL,
			                   "model comparison %zu has no name", i);
	if (r->yaml) {
		ha_yaml_key_seq(r->yaml, "models", 0);
	} else {
		fprintf(r->stream, "\n%-18s %8s %10s %13s %9s %13s %16s  %s\n", "model",
		        "budget", "samples", "actual H x d", "kv heads", "theory H x d",
		        "log10 mse ratio", "note");
	}
	for (size_t i = 0; i < req->count; i++) {
		if (r->yaml)
			yaml_comparison(r->yaml, &req->comparisons[i]);
		else
			text_comparison(r->stream, &req->comparisons[i]);
	}
	if (r->yaml)
		ha_yaml_end_seq(r->yaml);
	return report_end(r, err);
}
