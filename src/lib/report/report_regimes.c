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

static void yaml_regimes(struct ha_yaml_writer *w, uint64_t budget,
                         const struct ha_regime *regimes, size_t count,
                         int grouped)
{
	for (size_t i = 0; i < count; i++) {
		const struct ha_regime *g = &regimes[i];
		ha_yaml_begin_map(w, 1);
		ha_yaml_key_uint(w, "budget", budget);
		ha_yaml_key_uint(w, "heads", g->heads);
		if (grouped) {
			ha_yaml_key_uint(w, "kv_heads", g->kv_heads);
		}
		ha_yaml_key_uint(w, "head_dim", g->head_dim);
		if (grouped) {
			ha_yaml_key_uint(w, "kv_dim",
			                 g->kv_heads * g->head_dim);
		}
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

/* The grouped table: the triple (H, G, d) and G d of each regime. */
static void text_regimes_grouped(FILE *f, uint64_t budget,
                                 const struct ha_regime *regimes, size_t count)
{
	char from[32], to[32];
	fprintf(f, "\nregimes of budget %" PRIu64 " (each triple is optimal for n"
	        " in [samples_from, samples_to]):\n", budget);
	fprintf(f, "%20s %20s %20s %20s %16s %16s\n", "heads", "kv_heads",
	        "head_dim", "kv_dim", "samples_from", "samples_to");
	for (size_t i = 0; i < count; i++)
		fprintf(f, "%20" PRIu64 " %20" PRIu64 " %20" PRIu64 " %20" PRIu64
		        " %16s %16s\n", regimes[i].heads, regimes[i].kv_heads,
		        regimes[i].head_dim, regimes[i].kv_heads * regimes[i].head_dim,
		        report_human_samples(regimes[i].log_samples_from, from),
		        report_human_samples(regimes[i].log_samples_to, to));
}

static void text_regimes(FILE *f, uint64_t budget,
                         const struct ha_regime *regimes, size_t count)
{
	char from[32], to[32];
	fprintf(f, "\nregimes of budget %" PRIu64 " (each pair is optimal for n in"
	        " [samples_from, samples_to]):\n", budget);
	fprintf(f, "%20s %20s %16s %16s\n", "heads", "head_dim", "samples_from",
	        "samples_to");
	for (size_t i = 0; i < count; i++)
		fprintf(f, "%20" PRIu64 " %20" PRIu64 " %16s %16s\n",
		        regimes[i].heads, regimes[i].head_dim,
		        report_human_samples(regimes[i].log_samples_from, from),
		        report_human_samples(regimes[i].log_samples_to, to));
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
		ha_yaml_key(r->yaml, "regimes");
		ha_yaml_begin_seq(r->yaml, 0);
	}
	for (size_t b = 0; b < g->count && !report_write_failed(r); b++) {
		const struct ha_budget_regimes *row = &g->budgets[b];
		if (r->yaml)
			yaml_regimes(r->yaml, row->budget, row->regimes, row->count,
			             g->grouped);
		else if (g->grouped)
			text_regimes_grouped(r->stream, row->budget, row->regimes,
			                     row->count);
		else
			text_regimes(r->stream, row->budget, row->regimes, row->count);
	}
	if (report_write_failed(r))
		return report_end(r, err);
	if (r->yaml)
		ha_yaml_end_seq(r->yaml);
	else
		report_text_caution(r->stream, req->model);
	return report_end(r, err);
}
