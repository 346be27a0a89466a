/* A calibration's comparison of laws (headalloc-model(7), CALIBRATION),
 * in YAML (key comparison) and in text (the table of laws, the verdict,
 * the average over laws), and the small helpers the rest of the
 * calibration's report (report_calibration.c) shares with it. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_internal.h"
#include "report/report_calibration.h"

/* A value for YAML, or null when it is not defined. */
void report_cal_yaml_maybe(struct ha_yaml_writer *w, int defined, double v)
{
	if (defined)
		ha_yaml_double(w, v);
	else
		ha_yaml_null(w);
}

/* %.6g, or "-" when not defined. */
const char *report_cal_maybe(int defined, double v, char buf[32])
{
	if (!defined)
		return "-";
	return report_human(v, buf);
}

/* ---- the comparison of laws (YAML) ----------------------------------------- */

void report_cal_yaml_pair(struct ha_yaml_writer *w, int defined,
                                    uint64_t heads, uint64_t head_dim)
{
	ha_yaml_key(w, "heads");
	if (defined)
		ha_yaml_uint(w, heads);
	else
		ha_yaml_null(w);
	ha_yaml_key(w, "head_dim");
	if (defined)
		ha_yaml_uint(w, head_dim);
	else
		ha_yaml_null(w);
}

static void yaml_shares(struct ha_yaml_writer *w, const struct ha_cal_share *s,
                        size_t count)
{
	ha_yaml_begin_seq(w, count == 0);
	for (size_t i = 0; i < count; i++) {
		ha_yaml_begin_map(w, 1);
		ha_yaml_key(w, "heads");
		ha_yaml_uint(w, s[i].heads);
		ha_yaml_key(w, "head_dim");
		ha_yaml_uint(w, s[i].head_dim);
		ha_yaml_key(w, "share");
		ha_yaml_double(w, s[i].share);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
}

static void yaml_law(struct ha_yaml_writer *w, const struct ha_calibration *c,
                     const struct ha_cal_comparison *row)
{
	int fitted = row->status == HA_OK;
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "law");
	ha_yaml_string(w, row->law.name);
	ha_yaml_key(w, "user");
	ha_yaml_bool(w, row->user);
	ha_yaml_key(w, "free");
	ha_yaml_begin_seq(w, 1);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (row->law.free[p])
			ha_yaml_string(w, ha_cal_param_str((enum ha_cal_param)p));
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "contains");
	ha_yaml_begin_seq(w, 1);
	for (size_t i = 0; i < row->contains_count; i++)
		ha_yaml_string(w, c->comparison[row->contains[i]].law.name);
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "k");
	ha_yaml_uint(w, row->free_count);
	if (!fitted) {
		ha_yaml_key(w, "error");
		ha_yaml_string(w, row->message[0] ? row->message
		                                  : ha_status_str(row->status));
	}
	ha_yaml_key(w, "rss");
	report_cal_yaml_maybe(w, fitted, row->rss);
	ha_yaml_key(w, "aicc");
	report_cal_yaml_maybe(w, fitted && row->aicc_defined, row->aicc);
	ha_yaml_key(w, "bic");
	report_cal_yaml_maybe(w, fitted && row->bic_defined, row->bic);
	ha_yaml_key(w, "loo_rmse");
	report_cal_yaml_maybe(w, fitted && row->loo_defined, row->loo_rmse);
	ha_yaml_key(w, "weight");
	report_cal_yaml_maybe(w, row->weight_defined, row->weight);
	report_cal_yaml_pair(w, fitted && row->has_prediction, row->heads,
	                        row->head_dim);
	ha_yaml_key(w, "share");
	report_cal_yaml_maybe(w, fitted && row->has_prediction && row->resamples > 0,
	           row->share);
	ha_yaml_key(w, "resamples");
	ha_yaml_uint(w, row->resamples);
	ha_yaml_key(w, "huber");
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "objective");
	report_cal_yaml_maybe(w, row->huber_status == HA_OK, row->huber_objective);
	report_cal_yaml_pair(w, row->huber_status == HA_OK &&
	                               row->huber_has_prediction,
	                        row->huber_heads, row->huber_head_dim);
	ha_yaml_key(w, "prediction_changes");
	ha_yaml_bool(w, row->prediction_changes);
	ha_yaml_end_map(w);
	ha_yaml_end_map(w);
}

void report_cal_yaml_comparison(struct ha_yaml_writer *w,
                            const struct ha_calibration *c)
{
	ha_yaml_key(w, "comparison");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "criteria");
	ha_yaml_string(w, "least squares");
	ha_yaml_key(w, "laws");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < c->comparison_count; i++)
		yaml_law(w, c, &c->comparison[i]);
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "verdict");
	ha_yaml_string(w, c->verdict.text);
	ha_yaml_key(w, "averaged");
	yaml_shares(w, c->averaged, c->averaged_count);
	ha_yaml_key(w, "averaged_no_answer");
	ha_yaml_double(w, c->averaged_no_answer);
	ha_yaml_end_map(w);
}

void report_cal_text_comparison(FILE *f, const struct ha_calibration *c)
{
	char b1[32], b2[32], b3[32], b4[32];
	fprintf(f, "\nlaws by least squares (the criteria's likelihood); %s\n",
	        isinf(c->fit.huber_delta)
	                ? "so is the main fit, whose optimum the huber column repeats"
	                : "Huber optimum beside");
	fprintf(f, "%-12s %2s %12s %12s %12s %12s %8s  %-10s %6s  %-10s %s\n",
	        "law", "k", "rss", "AICc", "BIC", "loo_rmse", "weight", "optimum",
	        "share", "huber", "contains");
	for (size_t i = 0; i < c->comparison_count; i++) {
		const struct ha_cal_comparison *row = &c->comparison[i];
		if (row->status != HA_OK) {
			fprintf(f, "%-12s %2zu  not fitted: %s\n", row->law.name,
			        row->free_count, row->message[0]
			                                 ? row->message
			                                 : ha_status_str(row->status));
			continue;
		}
		char optimum[48] = "-", huber[48] = "-", share[16] = "-";
		char weight[16] = "-";
		if (row->weight_defined)
			snprintf(weight, sizeof weight, "%.3g", row->weight);
		if (row->has_prediction)
			snprintf(optimum, sizeof optimum, "%" PRIu64 " x %" PRIu64,
			         row->heads, row->head_dim);
		if (row->huber_status == HA_OK && row->huber_has_prediction)
			snprintf(huber, sizeof huber, "%" PRIu64 " x %" PRIu64 "%s",
			         row->huber_heads, row->huber_head_dim,
			         row->prediction_changes ? "*" : "");
		if (row->has_prediction && row->resamples)
			snprintf(share, sizeof share, "%.0f%%", 100.0 * row->share);
		fprintf(f, "%-12s %2zu %12s %12s %12s %12s %8s  %-10s %6s  %-10s ",
		        row->law.name, row->free_count, report_human(row->rss, b1),
		        report_cal_maybe(row->aicc_defined, row->aicc, b2),
		        report_cal_maybe(row->bic_defined, row->bic, b3),
		        report_cal_maybe(row->loo_defined, row->loo_rmse, b4), weight, optimum,
		        share, huber);
		for (size_t q = 0; q < row->contains_count; q++)
			fprintf(f, "%s%s", q ? "," : "",
			        c->comparison[row->contains[q]].law.name);
		fputs(row->contains_count ? "\n" : "-\n", f);
	}
	fprintf(f, "verdict      %s\n", c->verdict.text);
	if (c->averaged_count) {
		fputs("averaged", f);
		for (size_t i = 0; i < c->averaged_count; i++)
			fprintf(f, "%s %" PRIu64 " x %" PRIu64 " %.1f%%", i ? "," : "",
			        c->averaged[i].heads, c->averaged[i].head_dim,
			        100.0 * c->averaged[i].share);
		if (c->averaged_no_answer > 0.0)
			fprintf(f, ", no answer %.1f%%", 100.0 * c->averaged_no_answer);
		fputs(" over laws (Akaike weights) and resamples\n", f);
	}
}
