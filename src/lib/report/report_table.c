/* The sweep table: every row of a sweep's result (sweep.h), then the
 * scaling-law fits of headalloc-model(7), SCALING LAWS the sweep
 * computed.  The rows' writer is report_table_rows.c, the
 * per-n fits' report_table_heads.c; this file calls both, they call
 * nothing back.  Nothing here solves or fits. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report/report_table.h"

static void write_budget_fits(const struct ha_sweep_result *result,
                              struct ha_report *r, size_t b)
{
	const struct ha_sweep_request *req = ha_sweep_result_request(result);
	struct ha_sweep_fit fit_power, fit_log;
	struct report_law_fit power, logarithmic;
	ha_sweep_result_budget_fits(result, b, &fit_power, &fit_log);
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

static void write_fits(struct ha_sweep_result *result, struct ha_report *r)
{
	if (r->yaml) {
		ha_yaml_key(r->yaml, "fits");
		ha_yaml_begin_map(r->yaml, 0);
		ha_yaml_key(r->yaml, "by_budget");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fputc('\n', r->stream);
	}
	for (size_t b = 0; b < ha_sweep_result_request(result)->budget_count; b++)
		write_budget_fits(result, r, b);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_key(r->yaml, "by_samples");
		ha_yaml_begin_seq(r->yaml, 0);
	}
	table_write_samples_fits(result, r);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_end_map(r->yaml);
	}
}

enum ha_status ha_report_table(struct ha_report *r,
                               const struct ha_table_request *req,
                               struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->result)
		return report_fail(r, err, HA_EINVAL, "a table needs its sweep's result "
		                   "(ha_sweep_run)");
	st = table_write_rows(req->result, r, err);
	if (st == HA_OK)
		write_fits(req->result, r);
	if (st == HA_OK && !r->yaml)
		report_text_caution(r->stream, ha_sweep_result_request(req->result)->model);
	return st != HA_OK ? st : report_end(r, err);
}
