/* One solved allocation, ungrouped or grouped-query (over (H, G, d),
 * with its trade-off front: headalloc-model(7), GROUPED-QUERY ATTENTION),
 * public models' allocations against the theory's, the model as every
 * report writes it (and its caution when uncalibrated), and the problem
 * header of a sweep. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "report_internal.h"
#include "alloc/solver_internal.h"
#include "hdi/hdi_internal.h"

static void yaml_error_terms(struct ha_yaml_writer *w, const struct ha_terms *t)
{
	ha_yaml_key_double(w, "mse", t->mse);
	ha_yaml_key_double(w, "log10_mse", report_log10(t->log_mse));
	ha_yaml_key_double(w, "bias2", t->bias2);
	ha_yaml_key_double(w, "variance", t->variance);
	ha_yaml_key_double(w, "covariance", t->covariance);
}

/* An allocation as the map {heads, head_dim, its terms}, the value of key
 * (NULL: an item of a sequence). */
static void yaml_terms(struct ha_yaml_writer *w, const char *key, int flow,
                       const struct ha_allocation *a)
{
	ha_yaml_key_map(w, key, flow);
	ha_yaml_key_uint(w, "heads", a->heads);
	ha_yaml_key_uint(w, "head_dim", a->head_dim);
	yaml_error_terms(w, &a->terms);
	ha_yaml_end_map(w);
}

/* The model's parameters as written: the four of headalloc-model(7), THE
 * OBJECTS, always, each coefficient in the form it is held (plain, or its
 * exact logarithm, so that a calibrated c_v beyond a double reads back bit
 * for bit); every other one only off its default, α beside any A > 0. */
struct model_items {
	size_t count;
	const char *key[11];
	double value[11];
};

static struct model_items model_items(const struct ha_model *m)
{
	struct model_items it = {0, {NULL}, {0}};
	const struct ha_model defaults = ha_model_defaults();
#define ITEM(k, v) (it.key[it.count] = (k), it.value[it.count++] = (v))
	ITEM("smoothness", m->smoothness);
	if (!m->bias_coef_is_log)
		ITEM("bias_coef", m->bias_coef);
	else
		ITEM("log_bias_coef", ha_model_log_bias_coef(m));
	if (!m->var_coef_is_log)
		ITEM("var_coef", m->var_coef);
	else
		ITEM("log_var_coef", ha_model_log_var_coef(m));
	ITEM("hdi", m->hdi);
	if (m->irreducible != defaults.irreducible)
		ITEM("irreducible", m->irreducible);
	if (m->var_rate != defaults.var_rate)
		ITEM("var_rate", m->var_rate);
	if (m->var_power != defaults.var_power)
		ITEM("var_power", m->var_power);
	if (m->data_coef != defaults.data_coef)
		ITEM("data_coef", m->data_coef);
	if (m->data_coef != defaults.data_coef ||
	    m->data_power != defaults.data_power)
		ITEM("data_power", m->data_power);
	if (m->var_samples_power != defaults.var_samples_power)
		ITEM("var_samples_power", m->var_samples_power);
	if (m->group_hdi != defaults.group_hdi)
		ITEM("group_hdi", m->group_hdi);
#undef ITEM
	return it;
}

/* 0 when the loss law's coefficients are all headalloc's defaults (the
 * HDIs do not count: they describe the heads, not the law): the answer is
 * then the shape of the theory, not a measurement.  The YAML model map
 * carries it as calibrated: true|false. */
static int model_calibrated(const struct ha_model *m)
{
	const struct ha_model d = ha_model_defaults();
	return ha_model_log_bias_coef(m) != ha_model_log_bias_coef(&d) ||
	       ha_model_log_var_coef(m) != ha_model_log_var_coef(&d) ||
	       m->smoothness != d.smoothness || m->irreducible != d.irreducible ||
	       m->var_rate != d.var_rate || m->var_power != d.var_power ||
	       m->data_coef != d.data_coef ||
	       m->var_samples_power != d.var_samples_power;
}

void report_text_caution(FILE *f, const struct ha_model *m)
{
	if (!model_calibrated(m))
		fputs("note: the model's coefficients are headalloc's defaults, "
		      "a shape, not a measurement; fit them to your own runs "
		      "with 'headalloc calibrate'\n", f);
}

void report_yaml_model(struct ha_yaml_writer *w, const struct ha_model *model)
{
	struct model_items it = model_items(model);
	ha_yaml_key_map(w, "model", 0);
	for (size_t i = 0; i < it.count; i++)
		ha_yaml_key_double(w, it.key[i], it.value[i]);
	ha_yaml_key_bool(w, "calibrated", model_calibrated(model));
	ha_yaml_end_map(w);
}

void report_text_model(FILE *f, const struct ha_model *model)
{
	struct model_items it = model_items(model);
	for (size_t i = 0; i < it.count; i++)
		fprintf(f, "%s%s %.6g", i ? ", " : "", it.key[i], it.value[i]);
}

#define SOURCE_FORMAT "mean over %zu tensor%s of %s (%s, %" PRIu64 " heads, layout %s)"
#define SOURCE_ARGS(s) (s)->tensors, (s)->tensors == 1 ? "" : "s", (s)->file, \
	(s)->pattern ? (s)->pattern : "all tensors", (s)->heads, \
	ha_layout_str((s)->layout)
/* group_hdi beside it, when the directory's groups were measured */
#define GROUPS_FORMAT "; group_hdi %.6g, mean within the %zu key groups of " \
	"%zu query heads over %zu layer%s"

/* The HDI's source: the YAML key hdi_source, or the text line "hdi
 * VALUE, SOURCE".  Nothing for a NULL source.  HA_ENOMEM (recorded in r)
 * when the description cannot be allocated. */
static enum ha_status hdi_source(struct ha_report *r, struct ha_error *err,
                                 const struct ha_model *model,
                                 const struct ha_hdi_source *s)
{
	if (!s)
		return HA_OK;
	if (!s->file)
		return report_fail(r, err, HA_EINVAL, "the HDI's source names no file");
	char groups[256] = "";
	if (s->group_layers)
		snprintf(groups, sizeof groups, GROUPS_FORMAT, model->group_hdi,
		         s->key_heads, s->key_heads ? s->query_heads / s->key_heads : 0,
		         s->group_layers, s->group_layers == 1 ? "" : "s");
	if (!r->yaml) {
		fprintf(r->stream, "hdi          %.6g, " SOURCE_FORMAT "%s\n", model->hdi,
		        SOURCE_ARGS(s), groups);
		return HA_OK;
	}
	/* The YAML string must be whole: measure, then format. */
	int len = snprintf(NULL, 0, SOURCE_FORMAT "%s", SOURCE_ARGS(s), groups);
	char *text = len < 0 ? NULL : malloc((size_t)len + 1);
	if (!text)
		return report_fail(r, err, HA_ENOMEM, "describing the HDI's source: %s",
		                   ha_status_str(HA_ENOMEM));
	snprintf(text, (size_t)len + 1, SOURCE_FORMAT "%s", SOURCE_ARGS(s), groups);
	ha_yaml_key_string(r->yaml, "hdi_source", text);
	free(text);
	return HA_OK;
}

/* The end of an answer: the HDI's source, and in text the caution of an
 * uncalibrated model. */
static enum ha_status answer_end(struct ha_report *r, struct ha_error *err,
                                 const struct ha_model *model,
                                 const struct ha_hdi_source *source)
{
	enum ha_status st = hdi_source(r, err, model, source);
	if (st == HA_OK && !r->yaml)
		report_text_caution(r->stream, model);
	return st != HA_OK ? st : report_end(r, err);
}

/* ---- one allocation -------------------------------------------------------- */

static void yaml_solution(struct ha_yaml_writer *w,
                          const struct ha_allocation_request *req)
{
	const struct ha_solution *sol = req->solution;
	ha_yaml_key_uint(w, "budget", sol->budget);
	ha_yaml_key_double(w, "samples", sol->samples);

	report_yaml_model(w, req->model);

	yaml_terms(w, "optimum", 0, &sol->optimum);

	ha_yaml_key_map(w, "relaxed", 0);
	ha_yaml_key_double(w, "head_dim", sol->relaxed.head_dim);
	ha_yaml_key_double(w, "heads", sol->relaxed.heads);
	ha_yaml_key_double(w, "mse", ha_exp_or_inf(sol->relaxed.log_mse));
	ha_yaml_key_double(w, "log10_mse", report_log10(sol->relaxed.log_mse));
	ha_yaml_end_map(w);

	ha_yaml_key_map(w, "certificate", 0);
	ha_yaml_key_string(w, "method",
	                   ha_certificate_method_str(sol->certificate.method));
	ha_yaml_key_uint(w, "divisors", sol->certificate.divisors);
	ha_yaml_key_uint(w, "feasible", sol->certificate.feasible);
	ha_yaml_key_uint(w, "evaluated", sol->certificate.evaluated);
	ha_yaml_end_map(w);

	if (!req->candidates)
		return;
	ha_yaml_key_seq(w, "candidates", 0);
	for (size_t i = 0; i < req->candidate_count; i++)
		yaml_terms(w, NULL, 1, &req->candidates[i]);
	ha_yaml_end_seq(w);
}

static void text_candidates(FILE *f, const struct ha_allocation *rows,
                            size_t count)
{
	char b1[32], b2[32], b3[32], b4[32];
	/* heads and head_dim columns as wide as their widest entry (the
	 * largest H and d are the two ends of the divisor list). */
	int width = 8;
	for (size_t i = 0; i < count; i++) {
		int digits = snprintf(NULL, 0, "%" PRIu64, rows[i].heads);
		width = digits > width ? digits : width;
		digits = snprintf(NULL, 0, "%" PRIu64, rows[i].head_dim);
		width = digits > width ? digits : width;
	}
	fprintf(f, "\n%*s %*s %13s %13s %13s %13s %13s\n", width, "heads", width,
	        "head_dim", "mse", "log10_mse", "bias2", "variance", "covariance");
	for (size_t i = 0; i < count; i++) {
		const struct ha_terms *t = &rows[i].terms;
		fprintf(f, "%*" PRIu64 " %*" PRIu64 " %13s %13.6f %13s %13s %13s\n",
		        width, rows[i].heads, width, rows[i].head_dim,
		        report_human(t->mse, b1), report_log10(t->log_mse),
		        report_human(t->bias2, b2), report_human(t->variance, b3),
		        report_human(t->covariance, b4));
	}
}

static void text_solution(FILE *f, const struct ha_allocation_request *req)
{
	char b1[32], b2[32], b3[32], b4[32];
	const struct ha_model *model = req->model;
	const struct ha_solution *sol = req->solution;
	const struct ha_terms *t = &sol->optimum.terms;
	const struct ha_certificate *c = &sol->certificate;

	fprintf(f, "budget D = %" PRIu64 ", samples n = %.6g (", sol->budget,
	        sol->samples);
	report_text_model(f, model);
	fputs(")\n\n", f);
	fprintf(f, "optimum      %" PRIu64 " heads x head_dim %" PRIu64 "\n",
	        sol->optimum.heads, sol->optimum.head_dim);
	fprintf(f, "  mse        %s (log10 %.6f)\n", report_human(t->mse, b1),
	        report_log10(t->log_mse));
	fprintf(f, "  bias^2     %s\n", report_human(t->bias2, b2));
	fprintf(f, "  variance   %s\n", report_human(t->variance, b3));
	fprintf(f, "  covariance %s\n", report_human(t->covariance, b4));
	fprintf(f, "relaxed      head_dim %.6g, heads %.6g, mse %s\n",
	        sol->relaxed.head_dim, sol->relaxed.heads,
	        report_human(ha_exp_or_inf(sol->relaxed.log_mse), b1));
	fprintf(f, "certificate  %s: %zu evaluations, %zu feasible of %zu divisors\n",
	        ha_certificate_method_str(c->method), c->evaluated, c->feasible,
	        c->divisors);
	if (req->candidates)
		text_candidates(f, req->candidates, req->candidate_count);
}

enum ha_status ha_report_allocation(struct ha_report *r,
                                    const struct ha_allocation_request *req,
                                    struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->model || !req->solution)
		return report_fail(r, err, HA_EINVAL,
		                   "an allocation report needs a model and a solution");
	if (r->yaml)
		yaml_solution(r->yaml, req);
	else
		text_solution(r->stream, req);
	return answer_end(r, err, req->model, req->hdi_source);
}

/* ---- a grouped-query allocation -------------------------------------------- */

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
	yaml_error_terms(w, &a->terms);
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
		else
			yaml_key_defined(w, "chosen", 0); /* null: none chosen */
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
	return answer_end(r, err, req->model, req->hdi_source);
}

/* ---- public models against the theory: what ha_compare_model found ------- */

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
	yaml_terms(w, "actual", 1, &cmp->actual);
	yaml_terms(w, "theory", 1, &cmp->theory.optimum);
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

/* ---- the problem of a sweep ------------------------------------------------ */

static void yaml_constraints(struct ha_yaml_writer *w,
                             const struct ha_constraints *c)
{
	static const struct ha_constraints none = {0, 0, 0, 0, 0};
	if (!c)
		c = &none;
	const struct { const char *key; uint64_t value; } fields[] = {
		{"head_dim_multiple", c->head_dim_multiple},
		{"min_head_dim", c->min_head_dim},
		{"max_head_dim", c->max_head_dim},
		{"min_heads", c->min_heads},
		{"max_heads", c->max_heads},
	};
	ha_yaml_key_map(w, "constraints", 1);
	/* Only the constraints in force, so that the map reads back as a
	 * scenario file's constraints. */
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (fields[i].value)
			ha_yaml_key_uint(w, fields[i].key, fields[i].value);
	ha_yaml_end_map(w);
}

enum ha_status ha_report_header(struct ha_report *r,
                                const struct ha_header_request *req,
                                struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	const struct ha_model *m = req->model;
	if (!m)
		return report_fail(r, err, HA_EINVAL, "a report header needs a model");
	if (r->yaml)
		report_yaml_model(r->yaml, m);
	else {
		fputs("model: ", r->stream);
		report_text_model(r->stream, m);
		fputc('\n', r->stream);
	}
	st = hdi_source(r, err, m, req->hdi_source);
	if (st != HA_OK)
		return st;
	if (r->yaml)
		yaml_constraints(r->yaml, req->constraints);
	return report_end(r, err);
}
