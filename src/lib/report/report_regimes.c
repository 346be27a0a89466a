/* The exact regimes in n of each budget (headalloc-model(7), EXACT REGIMES IN N). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include <headalloc/regime.h>

#include "report_internal.h"
#include "alloc/model_internal.h"

static double log10_samples(double log_n)
{
	return isinf(log_n) ? log_n : report_log10(log_n);
}

static void yaml_regimes(struct ha_yaml_writer *w,
                         const struct ha_budget_regimes *row, int grouped)
{
	for (size_t i = 0; i < row->count; i++) {
		const struct ha_regime *g = &row->regimes[i];
		ha_yaml_begin_map(w, 1);
		ha_yaml_key_uint(w, "budget", row->budget);
		ha_yaml_key_uint(w, "heads", g->heads);
		if (grouped)
			ha_yaml_key_uint(w, "kv_heads", g->kv_heads);
		ha_yaml_key_uint(w, "head_dim", g->head_dim);
		if (grouped)
			ha_yaml_key_uint(w, "kv_dim", g->kv_heads * g->head_dim);
		ha_yaml_key_double(w, "samples_from",
		                   ha_exp_or_inf(g->log_samples_from));
		ha_yaml_key_double(w, "samples_to",
		                   ha_exp_or_inf(g->log_samples_to));
		ha_yaml_key_double(w, "log10_samples_from",
		                   log10_samples(g->log_samples_from));
		ha_yaml_key_double(w, "log10_samples_to",
		                   log10_samples(g->log_samples_to));
		ha_yaml_end_map(w);
	}
}

/* n from ln n for people: %.6g while it fits a double, else 10^x; "inf"
 * for an infinite ln n.  Returns buf. */
static const char *human_samples(double log_n, char buf[32])
{
	double v = ha_exp_or_inf(log_n);
	if (isinf(log_n))
		snprintf(buf, 32, "inf");
	else if (isinf(v))
		snprintf(buf, 32, "10^%.6g", report_log10(log_n));
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}

/* A table of pairs (H, d), or of triples (H, G, d) with G d. */
static void text_regimes(FILE *f, const struct ha_budget_regimes *row,
                         int grouped)
{
	char from[32], to[32];
	fprintf(f, "\nregimes of budget %" PRIu64 " (each %s is optimal for n in"
	        " [samples_from, samples_to]):\n", row->budget,
	        grouped ? "triple" : "pair");
	if (grouped)
		fprintf(f, "%20s %20s %20s %20s ", "heads", "kv_heads", "head_dim",
		        "kv_dim");
	else
		fprintf(f, "%20s %20s ", "heads", "head_dim");
	fprintf(f, "%16s %16s\n", "samples_from", "samples_to");
	for (const struct ha_regime *g = row->regimes;
	     g < row->regimes + row->count; g++) {
		if (grouped)
			fprintf(f, "%20" PRIu64 " %20" PRIu64 " %20" PRIu64 " %20"
			        PRIu64 " ", g->heads, g->kv_heads, g->head_dim,
			        g->kv_heads * g->head_dim);
		else
			fprintf(f, "%20" PRIu64 " %20" PRIu64 " ", g->heads, g->head_dim);
		fprintf(f, "%16s %16s\n", human_samples(g->log_samples_from, from),
		        human_samples(g->log_samples_to, to));
	}
}

enum ha_status ha_report_regimes(struct ha_report *r,
                                 const struct ha_regimes_request *req,
                                 struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->model || !req->regimes)
		return report_fail(r, err, HA_EINVAL, "regimes need a model and their "
		                   "regimes (ha_regimes_new)");
	const struct ha_regimes *g = req->regimes;
	if (r->yaml) {
		ha_yaml_key_seq(r->yaml, "regimes", 0);
	}
	for (size_t b = 0; b < g->count && !report_write_failed(r); b++) {
		if (r->yaml)
			yaml_regimes(r->yaml, &g->budgets[b], g->grouped);
		else
			text_regimes(r->stream, &g->budgets[b], g->grouped);
	}
	if (report_write_failed(r))
		return report_end(r, err);
	if (r->yaml)
		ha_yaml_end_seq(r->yaml);
	else
		report_text_caution(r->stream, req->model);
	return report_end(r, err);
}
