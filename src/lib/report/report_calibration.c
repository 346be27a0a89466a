/* A calibration (headalloc calibrate, headalloc-model(7), CALIBRATION): the fit with its
 * uncertainty, the calibrated model, the prediction at the target and
 * the comparison of laws.  YAML keys calibration, model, prediction and
 * comparison; text: the same account in lines and tables.  The model map
 * is the allocator's own (report_yaml_model), so that the report reads
 * back as a scenario file. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_internal.h"

/* A value for YAML, or null when it is not defined. */
static void yaml_maybe(struct ha_yaml_writer *w, int defined, double v)
{
	if (defined)
		ha_yaml_double(w, v);
	else
		ha_yaml_null(w);
}

/* ---- YAML ------------------------------------------------------------------ */

static void yaml_parameter(struct ha_yaml_writer *w,
                           const struct ha_cal_estimate *e)
{
	ha_yaml_key(w, e->name);
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "scale");
	ha_yaml_string(w, e->log_scale ? "log" : "linear");
	ha_yaml_key(w, "value");
	ha_yaml_double(w, e->value);
	ha_yaml_key(w, "free");
	ha_yaml_bool(w, e->free);
	ha_yaml_key(w, "se");
	yaml_maybe(w, e->has_se, e->se);
	ha_yaml_key(w, "ci95");
	if (e->has_ci) {
		ha_yaml_begin_seq(w, 1);
		ha_yaml_double(w, e->ci95[0]);
		ha_yaml_double(w, e->ci95[1]);
		ha_yaml_end_seq(w);
	} else {
		ha_yaml_null(w);
	}
	ha_yaml_key(w, "at_bound");
	ha_yaml_bool(w, e->at_bound);
	ha_yaml_end_map(w);
}

static void yaml_bootstrap(struct ha_yaml_writer *w,
                           const struct ha_cal_bootstrap *b)
{
	const struct { const char *key; uint64_t value; } items[] = {
		{"resamples", b->resamples}, {"seed", b->seed},
		{"fitted", b->fitted},       {"unconverged", b->unconverged},
		{"unfittable", b->unfittable}, {"failed", b->failed},
	};
	ha_yaml_key(w, "bootstrap");
	ha_yaml_begin_map(w, 1);
	for (size_t i = 0; i < sizeof items / sizeof *items; i++) {
		ha_yaml_key(w, items[i].key);
		ha_yaml_uint(w, items[i].value);
	}
	ha_yaml_end_map(w);
}

static void yaml_least_squares(struct ha_yaml_writer *w,
                               const struct ha_calibration *c);

static void yaml_fit(struct ha_yaml_writer *w, const struct ha_calibration *c)
{
	const struct ha_cal_fit *fit = &c->fit;
	ha_yaml_key(w, "calibration");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "runs");
	ha_yaml_uint(w, fit->runs);
	ha_yaml_key(w, "huber_delta");
	ha_yaml_double(w, fit->huber_delta);
	ha_yaml_key(w, "objective");
	ha_yaml_double(w, fit->objective);
	ha_yaml_key(w, "rss");
	ha_yaml_double(w, fit->rss);
	ha_yaml_key(w, "rms");
	ha_yaml_double(w, fit->rms);
	ha_yaml_key(w, "aicc");
	yaml_maybe(w, fit->aicc_defined, fit->aicc);
	ha_yaml_key(w, "bic");
	yaml_maybe(w, fit->bic_defined, fit->bic);
	yaml_least_squares(w, c);
	ha_yaml_key(w, "starts");
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "total");
	ha_yaml_uint(w, fit->starts);
	ha_yaml_key(w, "reached_best");
	ha_yaml_uint(w, fit->reached_best);
	ha_yaml_end_map(w);
	ha_yaml_key(w, "parameters");
	ha_yaml_begin_map(w, 0);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		yaml_parameter(w, &fit->param[p]);
	ha_yaml_end_map(w);
	yaml_bootstrap(w, &c->bootstrap);
	ha_yaml_key(w, "residuals");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < fit->runs; i++) {
		const struct ha_cal_residual *res = &fit->residuals[i];
		ha_yaml_begin_map(w, 1);
		ha_yaml_key(w, "heads");
		ha_yaml_uint(w, res->heads);
		ha_yaml_key(w, "head_dim");
		ha_yaml_uint(w, res->head_dim);
		ha_yaml_key(w, "samples");
		ha_yaml_double(w, res->samples);
		ha_yaml_key(w, "loss");
		ha_yaml_double(w, res->loss);
		ha_yaml_key(w, "fitted");
		ha_yaml_double(w, res->fitted);
		ha_yaml_key(w, "residual");
		ha_yaml_double(w, res->residual);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "warnings");
	ha_yaml_begin_seq(w, c->warning_count == 0);
	for (size_t i = 0; i < c->warning_count; i++)
		ha_yaml_string(w, c->warnings[i].message);
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
}

static void yaml_prediction(struct ha_yaml_writer *w,
                            const struct ha_cal_prediction *p)
{
	ha_yaml_key(w, "prediction");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "budget");
	ha_yaml_uint(w, p->budget);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, p->samples);
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, p->heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, p->head_dim);
	ha_yaml_key(w, "loss");
	ha_yaml_double(w, p->loss);
	ha_yaml_key(w, "distribution");
	ha_yaml_begin_seq(w, p->distribution_count == 0);
	for (size_t i = 0; i < p->distribution_count; i++) {
		const struct ha_cal_share *s = &p->distribution[i];
		ha_yaml_begin_map(w, 1);
		ha_yaml_key(w, "heads");
		ha_yaml_uint(w, s->heads);
		ha_yaml_key(w, "head_dim");
		ha_yaml_uint(w, s->head_dim);
		ha_yaml_key(w, "share");
		ha_yaml_double(w, s->share);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
}

/* ---- the comparison of laws (YAML) ----------------------------------------- */

static void yaml_allocation_or_null(struct ha_yaml_writer *w, int defined,
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
			ha_yaml_string(w, ha_cal_param_name((enum ha_cal_param)p));
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
	yaml_maybe(w, fitted, row->rss);
	ha_yaml_key(w, "aicc");
	yaml_maybe(w, fitted && row->aicc_defined, row->aicc);
	ha_yaml_key(w, "bic");
	yaml_maybe(w, fitted && row->bic_defined, row->bic);
	ha_yaml_key(w, "loo_rmse");
	yaml_maybe(w, fitted && row->loo_defined, row->loo_rmse);
	ha_yaml_key(w, "weight");
	yaml_maybe(w, row->weight_defined, row->weight);
	yaml_allocation_or_null(w, fitted && row->has_prediction, row->heads,
	                        row->head_dim);
	ha_yaml_key(w, "share");
	yaml_maybe(w, fitted && row->has_prediction && row->resamples > 0,
	           row->share);
	ha_yaml_key(w, "resamples");
	ha_yaml_uint(w, row->resamples);
	ha_yaml_key(w, "huber");
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "objective");
	yaml_maybe(w, row->huber_status == HA_OK, row->huber_objective);
	yaml_allocation_or_null(w, row->huber_status == HA_OK &&
	                               row->huber_has_prediction,
	                        row->huber_heads, row->huber_head_dim);
	ha_yaml_key(w, "prediction_changes");
	ha_yaml_bool(w, row->prediction_changes);
	ha_yaml_end_map(w);
	ha_yaml_end_map(w);
}

static void yaml_comparison(struct ha_yaml_writer *w,
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

/* calibration.least_squares: the main law by least squares beside the
 * Huber fit; null when the fit is least squares already. */
static void yaml_least_squares(struct ha_yaml_writer *w,
                               const struct ha_calibration *c)
{
	const struct ha_cal_least_squares *ls = &c->least_squares;
	ha_yaml_key(w, "least_squares");
	if (!ls->defined) {
		ha_yaml_null(w);
		return;
	}
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "rss");
	ha_yaml_double(w, ls->rss);
	ha_yaml_key(w, "residual_scale");
	ha_yaml_double(w, ls->residual_scale);
	ha_yaml_key(w, "delta_below_scale");
	ha_yaml_bool(w, ls->delta_below_scale);
	yaml_allocation_or_null(w, ls->has_prediction, ls->heads, ls->head_dim);
	ha_yaml_key(w, "prediction_changes");
	ha_yaml_bool(w, ls->prediction_changes);
	ha_yaml_end_map(w);
}

/* ---- text ------------------------------------------------------------------ */

/* A file name on a line of text: control characters (a newline in a
 * hostile name) become '?'. */
static void put_name(FILE *f, const char *name)
{
	for (const char *c = name; *c; c++)
		fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, f);
}

/* %.6g, or "-" when not defined. */
static const char *maybe(int defined, double v, char buf[32])
{
	if (!defined)
		return "-";
	return report_human(v, buf);
}

static void text_fit(FILE *f, const struct ha_calibration *c,
                     const char *runs_file)
{
	const struct ha_cal_fit *fit = &c->fit;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	fprintf(f, "calibration  %zu runs", fit->runs);
	if (runs_file) {
		fputs(" of ", f);
		put_name(f, runs_file);
	}
	fprintf(f, ", Huber delta %s\n", report_human(fit->huber_delta, b1));
	fprintf(f, "fit          objective %s, rss %s, rms %s, AICc %s, BIC %s\n",
	        report_human(fit->objective, b1), report_human(fit->rss, b2),
	        report_human(fit->rms, b3), maybe(fit->aicc_defined, fit->aicc, b4),
	        maybe(fit->bic_defined, fit->bic, b5));
	fprintf(f, "starts       %zu of %zu reached the best\n", fit->reached_best,
	        fit->starts);
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	if (b->resamples == 0)
		fputs("bootstrap    none\n", f);
	else
		fprintf(f, "bootstrap    %zu resamples (seed %" PRIu64 "): %zu refitted "
		        "(%zu stopped still improving), %zu unfittable, %zu "
		        "without an optimum\n", b->resamples, b->seed, b->fitted,
		        b->unconverged, b->unfittable, b->failed);

	fprintf(f, "\n%-16s %14s %14s  %s\n", "parameter", "value", "se",
	        "95% interval (bootstrap)");
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &fit->param[p];
		char name[HA_CAL_NAME_MAX + 4], interval[80];
		snprintf(name, sizeof name, "%s%s", e->log_scale ? "ln " : "",
		         e->name);
		if (!e->free)
			snprintf(interval, sizeof interval, "fixed");
		else if (e->has_ci)
			snprintf(interval, sizeof interval, "[%s, %s]",
			         report_human(e->ci95[0], b1),
			         report_human(e->ci95[1], b2));
		else
			snprintf(interval, sizeof interval, "-");
		fprintf(f, "%-16s %14s %14s  %s%s\n", name,
		        report_human(e->value, b3), maybe(e->has_se, e->se, b4),
		        interval, e->at_bound ? " (at a bound)" : "");
	}

	fprintf(f, "\n%8s %8s %12s %12s %12s %12s\n", "heads", "head_dim",
	        "samples", "loss", "fitted", "residual");
	for (size_t i = 0; i < fit->runs; i++) {
		const struct ha_cal_residual *r = &fit->residuals[i];
		fprintf(f, "%8" PRIu64 " %8" PRIu64 " %12s %12s %12s %12s\n",
		        r->heads, r->head_dim, report_human(r->samples, b1),
		        report_human(r->loss, b2), report_human(r->fitted, b3),
		        report_human(r->residual, b4));
	}
}

static void text_prediction(FILE *f, const struct ha_cal_prediction *p)
{
	char b1[32], b2[32];
	fprintf(f, "\nprediction   budget %" PRIu64 ", samples %s: %" PRIu64
	        " heads x head_dim %" PRIu64 ", loss %s\n", p->budget,
	        report_human(p->samples, b1), p->heads, p->head_dim,
	        report_human(p->loss, b2));
	if (!p->distribution_count)
		return;
	fputs("distribution", f);
	for (size_t i = 0; i < p->distribution_count; i++) {
		const struct ha_cal_share *s = &p->distribution[i];
		fprintf(f, "%s %" PRIu64 " x %" PRIu64 " %.1f%%", i ? "," : "",
		        s->heads, s->head_dim, 100.0 * s->share);
	}
	fputs(" of the bootstrap's optima\n", f);
}

static void text_comparison(FILE *f, const struct ha_calibration *c)
{
	char b1[32], b2[32], b3[32], b4[32];
	fprintf(f, "\nlaws by least squares (the criteria's likelihood); "
	        "Huber optimum beside\n");
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
		        maybe(row->aicc_defined, row->aicc, b2),
		        maybe(row->bic_defined, row->bic, b3),
		        maybe(row->loo_defined, row->loo_rmse, b4), weight, optimum,
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

/* ---- the section ----------------------------------------------------------- */

enum ha_status ha_report_calibration(struct ha_report *r,
                                     const struct ha_calibration_request *req,
                                     struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	const struct ha_calibration *c = req->calibration;
	if (!c || (c->fit.runs && !c->fit.residuals) ||
	    (c->comparison_count && !c->comparison) ||
	    (c->averaged_count && !c->averaged) ||
	    (c->warning_count && !c->warnings) ||
	    (c->prediction.distribution_count && !c->prediction.distribution))
		return report_fail(r, err, HA_EINVAL,
		                   "a calibration report needs a whole calibration");
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (!c->fit.param[p].name)
			return report_fail(r, err, HA_EINVAL,
			                   "calibration parameter %d has no name", p);
	if (r->yaml) {
		yaml_fit(r->yaml, c);
		report_yaml_model(r->yaml, &c->model);
		if (c->prediction.defined)
			yaml_prediction(r->yaml, &c->prediction);
		if (c->comparison_count)
			yaml_comparison(r->yaml, c);
		return report_end(r, err);
	}
	FILE *f = r->stream;
	text_fit(f, c, req->runs_file);
	if (c->prediction.defined)
		text_prediction(f, &c->prediction);
	if (c->comparison_count)
		text_comparison(f, c);
	fputs("\nmodel        ", f);
	report_text_model(f, &c->model);
	fputc('\n', f);
	for (size_t i = 0; i < c->warning_count; i++)
		fprintf(f, "warning      %s\n", c->warnings[i].message);
	return report_end(r, err);
}
