/* The sweep table: every row of a sweep (sweep.h) written as the sweep
 * hands it out, then the scaling-law fits of headalloc-model(7), SCALING
 * LAWS the sweep computed.  The rows' writer is report_table_rows.c, the
 * per-n fits' report_table_heads.c; this file calls both, they call
 * nothing back.  Nothing here solves or fits. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report/report_table.h"

static void write_budget_fits(struct ha_sweep *sweep, struct ha_report *r,
                              size_t b)
{
	const struct ha_sweep_request *req = ha_sweep_request(sweep);
	struct ha_sweep_fit fit_power, fit_log;
	struct report_law_fit power, logarithmic;
	ha_sweep_budget_fits(sweep, b, &fit_power, &fit_log);
	report_law_fit_of(&power, LAW_DIM_POWER, &fit_power);
	report_law_fit_of(&logarithmic, LAW_DIM_LOG, &fit_log);
	if (!r->yaml) {
		char label[64];
		snprintf(label, sizeof label, "budget %" PRIu64, req->budgets[b]);
		report_text_fit(r->stream, label, &power);
		report_text_fit(r->stream, label, &logarithmic);
		return;
	}
	ha_yaml_begin_map(r->yaml, 0);
	ha_yaml_key(r->yaml, "budget");
	ha_yaml_uint(r->yaml, req->budgets[b]);
	ha_yaml_key(r->yaml, "power_law");
	report_yaml_fit(r->yaml, &power);
	ha_yaml_key(r->yaml, "log_law");
	report_yaml_fit(r->yaml, &logarithmic);
	ha_yaml_end_map(r->yaml);
}

static void write_fits(struct ha_sweep *sweep, struct ha_report *r)
{
	if (r->yaml) {
		ha_yaml_key(r->yaml, "fits");
		ha_yaml_begin_map(r->yaml, 0);
		ha_yaml_key(r->yaml, "by_budget");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fputc('\n', r->stream);
	}
	for (size_t b = 0; b < ha_sweep_request(sweep)->budget_count; b++)
		write_budget_fits(sweep, r, b);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_key(r->yaml, "by_samples");
		ha_yaml_begin_seq(r->yaml, 0);
	}
	table_write_samples_fits(sweep, r);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_end_map(r->yaml);
	}
}

void ha_report_table_hooks(struct ha_report *r, struct ha_sweep_request *req)
{
	if (!r || !req || req->kv)
		return; /* the grouped rows are written by the calling thread */
	r->table_format = (struct table_format){r->yaml != NULL,
	                                        r->yaml != NULL && !r->yaml_text};
	req->on_batch = table_format_batch;
	req->batch_ctx = &r->table_format;
	req->scratch_size = TABLE_SCRATCH;
}

enum ha_status ha_report_table(struct ha_report *r,
                               const struct ha_table_request *req,
                               struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->sweep)
		return report_fail(r, err, HA_EINVAL, "a table needs its sweep (ha_sweep_new)");
	st = table_write_rows(req->sweep, &req->progress, r, err);
	if (st == HA_OK)
		write_fits(req->sweep, r);
	if (st == HA_OK && !r->yaml)
		report_text_caution(r->stream, ha_sweep_request(req->sweep)->model);
	return st != HA_OK ? st : report_end(r, err);
}
