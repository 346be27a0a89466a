/* A grouped-query allocation over (H, G, d) and its trade-off front
 * (headalloc-model(7), GROUPED-QUERY ATTENTION): rendered from the
 * solution ha_grouped_solve computed. */
#include <inttypes.h>

#include "report_internal.h"
#include "alloc/solver_internal.h"

/* The allocation as the value of key (NULL: an item of a sequence). */
static void yaml_allocation(struct ha_yaml_writer *w, const char *key, int flow,
                            const struct ha_grouped_allocation *a, int params)
{
	ha_yaml_key_map(w, key, flow);
	ha_yaml_key_uint(w, "heads", a->heads);
	ha_yaml_key_uint(w, "kv_heads", a->kv_heads);
	ha_yaml_key_uint(w, "group_size", a->group_size);
	ha_yaml_key_uint(w, "head_dim", a->head_dim);
	ha_yaml_key_uint(w, "kv_dim", a->kv_dim);
	ha_yaml_key_uint(w, "kv_cache_bytes_per_token", a->kv_cache_bytes_per_token);
	if (params)
		ha_yaml_key_uint(w, "attention_params", a->attention_params);
	report_yaml_error_terms(w, &a->terms);
	ha_yaml_key_double(w, "loss_ratio", a->loss_ratio);
	ha_yaml_end_map(w);
}

static void yaml_kv(struct ha_yaml_writer *w, const struct ha_kv_constraints *kv,
                    const struct ha_kv_shape *shape)
{
	ha_yaml_key_map(w, "kv", 1);
	if (kv->kv_heads)
		ha_yaml_key_uint(w, "kv_heads", kv->kv_heads);
	else
		ha_yaml_key_string(w, "kv_heads", "auto");
	const struct { const char *key; uint64_t value; } fields[] = {
		{"max_kv_dim", kv->max_kv_dim}, {"min_kv_heads", kv->min_kv_heads},
		{"max_kv_heads", kv->max_kv_heads}, {"layers", shape->layers},
		{"kv_bytes", shape->kv_bytes}, {"model_dim", shape->model_dim},
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (fields[i].value)
			ha_yaml_key_uint(w, fields[i].key, fields[i].value);
	ha_yaml_end_map(w);
}

static void yaml_grouped(struct ha_yaml_writer *w,
                         const struct ha_grouped_report_request *req,
                         const struct ha_kv_constraints *kv,
                         const struct ha_kv_shape *shape)
{
	const struct ha_grouped_solution *sol = req->solution;
	int params = shape->model_dim != 0;
	ha_yaml_key_uint(w, "budget", sol->budget);
	ha_yaml_key_double(w, "samples", sol->samples);
	report_yaml_model(w, req->model);
	yaml_kv(w, kv, shape);
	yaml_allocation(w, "optimum", 0, &sol->optimum, params);
	yaml_allocation(w, "unconstrained", 0, &sol->unconstrained, params);

	const struct ha_grouped_relaxed *x = &sol->relaxed;
	ha_yaml_key_map(w, "relaxed", 0);
	ha_yaml_key_double(w, "head_dim", x->head_dim);
	ha_yaml_key_double(w, "kv_heads", x->kv_heads);
	ha_yaml_key_double(w, "heads", x->heads);
	ha_yaml_key_double(w, "kv_dim", x->kv_dim);
	ha_yaml_key_double(w, "mse", ha_exp_or_inf(x->log_mse));
	ha_yaml_key_double(w, "log10_mse", report_log10(x->log_mse));
	ha_yaml_end_map(w);

	const struct ha_grouped_certificate *c = &sol->certificate;
	ha_yaml_key_map(w, "certificate", 0);
	ha_yaml_key_string(w, "method", ha_certificate_method_str(c->method));
	ha_yaml_key_uint(w, "divisors", c->divisors);
	ha_yaml_key_uint(w, "head_dims", c->head_dims);
	ha_yaml_key_uint(w, "candidates", c->candidates);
	ha_yaml_key_uint(w, "feasible", c->feasible);
	ha_yaml_key_uint(w, "bound", c->bound);
	ha_yaml_end_map(w);

	if (sol->front) {
		ha_yaml_key_seq(w, "front", 0);
		for (size_t i = 0; i < sol->front_count; i++)
			yaml_allocation(w, NULL, 1, &sol->front[i], params);
		ha_yaml_end_seq(w);
	}
	if (req->max_loss_ratio > 0.0) {
		ha_yaml_key_double(w, "max_loss_ratio", req->max_loss_ratio);
		if (sol->front && sol->chosen < sol->front_count)
			yaml_allocation(w, "chosen", 0, &sol->front[sol->chosen], params);
		else {
			ha_yaml_key(w, "chosen");
			ha_yaml_null(w);
		}
	}
}

static void text_allocation(FILE *f, const char *label,
                            const struct ha_grouped_allocation *a, int params)
{
	char b1[32];
	fprintf(f, "%-12s %" PRIu64 " heads x head_dim %" PRIu64 ", %" PRIu64
	        " kv heads (groups of %" PRIu64 ")\n", label, a->heads, a->head_dim,
	        a->kv_heads, a->group_size);
	fprintf(f, "  mse        %s (log10 %.6f), %.6g x the unconstrained\n",
	        report_human(a->terms.mse, b1), report_log10(a->terms.log_mse),
	        a->loss_ratio);
	fprintf(f, "  kv cache   kv_dim %" PRIu64 ", %" PRIu64 " bytes a token\n",
	        a->kv_dim, a->kv_cache_bytes_per_token);
	if (params)
		fprintf(f, "  attention  %" PRIu64 " parameters a layer\n",
		        a->attention_params);
}

static void text_front(FILE *f, const struct ha_grouped_solution *sol,
                       size_t chosen)
{
	char b[32];
	fprintf(f, "\nfront (best error to smallest KV cache)\n");
	fprintf(f, "%8s %8s %8s %8s %10s %14s %13s %13s %12s\n", "heads", "kv_heads",
	        "group", "head_dim", "kv_dim", "cache_bytes", "mse", "log10_mse",
	        "loss_ratio");
	for (size_t i = 0; i < sol->front_count; i++) {
		const struct ha_grouped_allocation *a = &sol->front[i];
		fprintf(f, "%8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10"
		        PRIu64 " %14" PRIu64 " %13s %13.6f %12.6g%s\n", a->heads,
		        a->kv_heads, a->group_size, a->head_dim, a->kv_dim,
		        a->kv_cache_bytes_per_token, report_human(a->terms.mse, b),
		        report_log10(a->terms.log_mse), a->loss_ratio,
		        i == chosen ? "  <- chosen" : "");
	}
}

static void text_grouped(FILE *f, const struct ha_grouped_report_request *req,
                         const struct ha_kv_constraints *kv,
                         const struct ha_kv_shape *shape)
{
	char b1[32];
	const struct ha_grouped_solution *sol = req->solution;
	int params = shape->model_dim != 0;
	fprintf(f, "budget D = %" PRIu64 ", samples n = %.6g (", sol->budget,
	        sol->samples);
	report_text_model(f, req->model);
	fputs(")\n", f);
	if (kv->kv_heads)
		fprintf(f, "kv heads %" PRIu64, kv->kv_heads);
	else
		fputs("kv heads auto", f);
	if (kv->max_kv_dim)
		fprintf(f, ", max kv_dim %" PRIu64, kv->max_kv_dim);
	if (kv->min_kv_heads)
		fprintf(f, ", min kv heads %" PRIu64, kv->min_kv_heads);
	if (kv->max_kv_heads)
		fprintf(f, ", max kv heads %" PRIu64, kv->max_kv_heads);
	fprintf(f, "; %" PRIu64 " layer%s, %" PRIu64 " bytes an element\n\n",
	        shape->layers, shape->layers == 1 ? "" : "s", shape->kv_bytes);
	text_allocation(f, "optimum", &sol->optimum, params);
	text_allocation(f, "unconstrained", &sol->unconstrained, params);
	const struct ha_grouped_relaxed *x = &sol->relaxed;
	fprintf(f, "relaxed      head_dim %.6g, kv heads %.6g, heads %.6g, kv_dim "
	        "%.6g, mse %s\n", x->head_dim, x->kv_heads, x->heads, x->kv_dim,
	        report_human(ha_exp_or_inf(x->log_mse), b1));
	const struct ha_grouped_certificate *c = &sol->certificate;
	fprintf(f, "certificate  %s: %zu triples (H, G, d) evaluated over %zu of "
	        "%zu divisors (bound %" PRIu64 "), %zu meet the KV constraints\n",
	        ha_certificate_method_str(c->method), c->candidates, c->head_dims,
	        c->divisors, c->bound, c->feasible);
	size_t chosen = req->max_loss_ratio > 0.0 ? sol->chosen : SIZE_MAX;
	if (req->max_loss_ratio > 0.0) {
		if (sol->front && sol->chosen < sol->front_count)
			text_allocation(f, "chosen", &sol->front[sol->chosen], params);
		else
			fprintf(f, "chosen       none within %.6g of the unconstrained "
			        "error\n", req->max_loss_ratio);
	}
	if (sol->front)
		text_front(f, sol, chosen);
}

enum ha_status ha_report_grouped(struct ha_report *r,
                                 const struct ha_grouped_report_request *req,
                                 struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->model || !req->solution)
		return report_fail(r, err, HA_EINVAL,
		                   "a grouped report needs a model and a solution");
	static const struct ha_kv_constraints none = {0, 0, 0, 0};
	const struct ha_kv_constraints *kv = req->kv ? req->kv : &none;
	struct ha_kv_shape shape = req->shape ? *req->shape : ha_kv_shape_defaults();
	if (r->yaml)
		yaml_grouped(r->yaml, req, kv, &shape);
	else
		text_grouped(r->stream, req, kv, &shape);
	st = report_hdi_source(r, err, req->model, req->hdi_source);
	if (st == HA_OK && !r->yaml)
		report_text_caution(r->stream, req->model);
	return st != HA_OK ? st : report_end(r, err);
}
