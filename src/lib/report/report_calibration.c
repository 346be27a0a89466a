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
#include "calibrate/calibrate_internal.h"

/* ---- YAML ------------------------------------------------------------------ */

/* The keys heads and head_dim, or null values when not defined. */
static void put_pair(struct ha_yaml_writer *w, int defined, uint64_t heads,
                     uint64_t head_dim)
{
	yaml_maybe_uint(w, "heads", defined, heads);
	yaml_maybe_uint(w, "head_dim", defined, head_dim);
}

/* %.6g, or "-" when not defined. */
static const char *text_maybe(int defined, double v, char buf[32])
{
	if (!defined)
		return "-";
	return report_human(v, buf);
}

static void yaml_shares(struct ha_yaml_writer *w, const struct ha_cal_share *s,
                        size_t count)
{
	ha_yaml_begin_seq(w, count == 0);
	for (size_t i = 0; i < count; i++) {
		ha_yaml_begin_map(w, 1);
		put_pair(w, 1, s[i].heads, s[i].head_dim);
		ha_yaml_key_double(w, "share", s[i].share);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
}

static void yaml_goodness(struct ha_yaml_writer *w, const struct ha_cal_goodness *g)
{
	ha_yaml_key_map(w, "goodness", 1);
	ha_yaml_key_double(w, "rms_log_residual", g->rms_log_residual);
	ha_yaml_key_double(w, "loss_spread", g->loss_spread);
	yaml_maybe(w, "chi2", g->has_chi2, g->chi2);
	yaml_maybe_uint(w, "dof", g->has_chi2, g->dof);
	yaml_maybe(w, "p_value", g->has_p, g->p_value);
	ha_yaml_key_string(w, "verdict", g->lack_of_fit ? "lack of fit" : "fits");
	ha_yaml_end_map(w);
}

/* Every warning (all), or those that say the prediction is no evidence. */
static void yaml_warnings(struct ha_yaml_writer *w, const struct ha_calibration *c,
                          int all)
{
	ha_yaml_key(w, "warnings");
	size_t n = 0;
	for (size_t i = 0; i < c->warning_count; i++)
		n += all || c->warnings[i].kind == HA_CAL_WARN_UNSUPPORTED ||
		     c->warnings[i].kind == HA_CAL_WARN_LACK_OF_FIT;
	ha_yaml_begin_seq(w, n == 0);
	for (size_t i = 0; i < c->warning_count; i++)
		if (all || c->warnings[i].kind == HA_CAL_WARN_UNSUPPORTED ||
		    c->warnings[i].kind == HA_CAL_WARN_LACK_OF_FIT)
			ha_yaml_string(w, c->warnings[i].message);
	ha_yaml_end_seq(w);
}

static void yaml_support(struct ha_yaml_writer *w, const struct ha_calibration *c)
{
	const struct ha_cal_prediction *p = &c->prediction;
	const struct ha_cal_support *s = &p->support;
	yaml_maybe(w, "no_answer_share", c->bootstrap.resamples > 0, p->no_answer_share);
	ha_yaml_key_map(w, "support", 0);
	ha_yaml_key_bool(w, "inside_measured_head_dims", s->inside_measured_head_dims);
	ha_yaml_key_seq(w, "measured_head_dims", 1);
	ha_yaml_uint(w, s->measured_head_dims[0]);
	ha_yaml_uint(w, s->measured_head_dims[1]);
	ha_yaml_end_seq(w);
	if (yaml_key_defined(w, "runner_up", s->has_runner_up)) {
		ha_yaml_begin_map(w, 1);
		put_pair(w, 1, s->runner_heads, s->runner_head_dim);
		ha_yaml_key_double(w, "loss_gap", s->loss_gap);
		yaml_maybe(w, "probability_better", s->has_probability, s->probability_better);
		ha_yaml_end_map(w);
	}
	ha_yaml_key_double(w, "noise", s->noise);
	if (yaml_key_defined(w, "best_measured", s->has_best_measured)) {
		ha_yaml_begin_map(w, 1);
		put_pair(w, 1, s->best_heads, s->best_head_dim);
		ha_yaml_key_double(w, "loss", s->best_loss);
		ha_yaml_end_map(w);
	}
	if (yaml_key_defined(w, "beats_best_measured", s->has_best_measured))
		ha_yaml_bool(w, s->beats_best_measured);
	ha_yaml_key_seq(w, "unidentified", 1);
	for (size_t i = 0; i < s->unidentified_count; i++)
		ha_yaml_string(w, ha_cal_param_str((enum ha_cal_param)s->unidentified[i]));
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
	yaml_warnings(w, c, 0);
}

static void yaml_parameter(struct ha_yaml_writer *w,
                           const struct ha_cal_estimate *e)
{
	ha_yaml_key_map(w, e->name, 1);
	ha_yaml_key_string(w, "scale", e->log_scale ? "log" : "linear");
	ha_yaml_key_double(w, "value", e->value);
	ha_yaml_key_bool(w, "free", e->free);
	yaml_maybe(w, "se", e->has_se, e->se);
	if (yaml_key_defined(w, "ci95", e->has_ci)) {
		ha_yaml_begin_seq(w, 1);
		ha_yaml_double(w, e->ci95[0]);
		ha_yaml_double(w, e->ci95[1]);
		ha_yaml_end_seq(w);
	}
	ha_yaml_key_bool(w, "at_bound", e->at_bound);
	ha_yaml_end_map(w);
}

static void yaml_bootstrap(struct ha_yaml_writer *w,
                           const struct ha_cal_bootstrap *b)
{
	ha_yaml_key_map(w, "bootstrap", 1);
	ha_yaml_key_uint(w, "resamples", b->resamples);
	ha_yaml_key_uint(w, "seed", b->seed);
	ha_yaml_key_uint(w, "fitted", b->fitted);
	ha_yaml_key_uint(w, "unconverged", b->unconverged);
	ha_yaml_key_uint(w, "unfittable", b->unfittable);
	ha_yaml_key_uint(w, "failed", b->failed);
	ha_yaml_key_string(w, "kind", ha_cal_bootstrap_kind_str(b->kind));
	ha_yaml_key_bool(w, "degenerate", b->degenerate);
	ha_yaml_end_map(w);
}

/* calibration.least_squares: the main law by least squares beside the
 * Huber fit; null when the fit is least squares already. */
static void yaml_least_squares(struct ha_yaml_writer *w,
                               const struct ha_calibration *c)
{
	const struct ha_cal_least_squares *ls = &c->least_squares;
	if (!yaml_key_defined(w, "least_squares", ls->defined))
		return;
	ha_yaml_begin_map(w, 1);
	ha_yaml_key_double(w, "rss", ls->rss);
	ha_yaml_key_double(w, "residual_scale", ls->residual_scale);
	ha_yaml_key_bool(w, "delta_below_scale", ls->delta_below_scale);
	put_pair(w, ls->has_prediction, ls->heads, ls->head_dim);
	ha_yaml_key_bool(w, "prediction_changes", ls->prediction_changes);
	ha_yaml_end_map(w);
}

static void yaml_fit(struct ha_yaml_writer *w, const struct ha_calibration *c)
{
	const struct ha_cal_fit *fit = &c->fit;
	ha_yaml_key_map(w, "calibration", 0);
	ha_yaml_key_uint(w, "runs", fit->runs);
	ha_yaml_key_double(w, "huber_delta", fit->huber_delta);
	ha_yaml_key_double(w, "objective", fit->objective);
	ha_yaml_key_double(w, "rss", fit->rss);
	ha_yaml_key_double(w, "rms", fit->rms);
	yaml_maybe(w, "aicc", fit->aicc_defined, fit->aicc);
	yaml_maybe(w, "bic", fit->bic_defined, fit->bic);
	yaml_least_squares(w, c);
	ha_yaml_key_map(w, "starts", 1);
	ha_yaml_key_uint(w, "total", fit->starts);
	ha_yaml_key_uint(w, "reached_best", fit->reached_best);
	ha_yaml_end_map(w);
	ha_yaml_key_map(w, "parameters", 0);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (ha_cal_param_reported((enum ha_cal_param)p, &fit->param[p]))
			yaml_parameter(w, &fit->param[p]);
	ha_yaml_end_map(w);
	yaml_goodness(w, &c->goodness);
	yaml_bootstrap(w, &c->bootstrap);
	ha_yaml_key_seq(w, "residuals", 0);
	for (size_t i = 0; i < fit->runs; i++) {
		const struct ha_cal_residual *res = &fit->residuals[i];
		ha_yaml_begin_map(w, 1);
		put_pair(w, 1, res->heads, res->head_dim);
		ha_yaml_key_double(w, "samples", res->samples);
		ha_yaml_key_double(w, "loss", res->loss);
		ha_yaml_key_double(w, "fitted", res->fitted);
		ha_yaml_key_double(w, "residual", res->residual);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	yaml_warnings(w, c, 1);
	ha_yaml_end_map(w);
}

static void yaml_prediction(struct ha_yaml_writer *w,
                            const struct ha_calibration *c)
{
	const struct ha_cal_prediction *p = &c->prediction;
	ha_yaml_key_map(w, "prediction", 0);
	ha_yaml_key_uint(w, "budget", p->budget);
	ha_yaml_key_double(w, "samples", p->samples);
	put_pair(w, 1, p->heads, p->head_dim);
	ha_yaml_key_double(w, "loss", p->loss);
	ha_yaml_key(w, "distribution");
	yaml_shares(w, p->distribution, p->distribution_count);
	yaml_support(w, c);
	ha_yaml_end_map(w);
}

static void yaml_law(struct ha_yaml_writer *w, const struct ha_calibration *c,
                     const struct ha_cal_comparison *row)
{
	int fitted = row->status == HA_OK;
	ha_yaml_begin_map(w, 0);
	ha_yaml_key_string(w, "law", row->law.name);
	ha_yaml_key_bool(w, "user", row->user);
	ha_yaml_key_seq(w, "free", 1);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (row->law.free[p])
			ha_yaml_string(w, ha_cal_param_str((enum ha_cal_param)p));
	ha_yaml_end_seq(w);
	ha_yaml_key_seq(w, "contains", 1);
	for (size_t i = 0; i < row->contains_count; i++)
		ha_yaml_string(w, c->comparison[row->contains[i]].law.name);
	ha_yaml_end_seq(w);
	ha_yaml_key_uint(w, "k", row->free_count);
	if (!fitted)
		ha_yaml_key_string(w, "error", row->message[0] ? row->message
		                                       : ha_status_str(row->status));
	yaml_maybe(w, "rss", fitted, row->rss);
	yaml_maybe(w, "aicc", fitted && row->aicc_defined, row->aicc);
	yaml_maybe(w, "bic", fitted && row->bic_defined, row->bic);
	yaml_maybe(w, "loo_rmse", fitted && row->loo_defined, row->loo_rmse);
	yaml_maybe(w, "weight", row->weight_defined, row->weight);
	put_pair(w, fitted && row->has_prediction, row->heads, row->head_dim);
	yaml_maybe(w, "share", fitted && row->has_prediction && row->resamples > 0,
	          row->share);
	ha_yaml_key_uint(w, "resamples", row->resamples);
	ha_yaml_key_map(w, "huber", 1);
	yaml_maybe(w, "objective", row->huber_status == HA_OK, row->huber_objective);
	put_pair(w, row->huber_status == HA_OK && row->huber_has_prediction,
	         row->huber_heads, row->huber_head_dim);
	ha_yaml_key_bool(w, "prediction_changes", row->prediction_changes);
	ha_yaml_end_map(w);
	ha_yaml_end_map(w);
}

/* The comparison of laws: the laws, the verdict, the average over laws. */
static void yaml_comparison(struct ha_yaml_writer *w, const struct ha_calibration *c)
{
	ha_yaml_key_map(w, "comparison", 0);
	ha_yaml_key_string(w, "criteria", "least squares");
	ha_yaml_key_seq(w, "laws", 0);
	for (size_t i = 0; i < c->comparison_count; i++)
		yaml_law(w, c, &c->comparison[i]);
	ha_yaml_end_seq(w);
	ha_yaml_key_string(w, "verdict", c->verdict.text);
	ha_yaml_key(w, "averaged");
	yaml_shares(w, c->averaged, c->averaged_count);
	ha_yaml_key_double(w, "averaged_no_answer", c->averaged_no_answer);
	ha_yaml_end_map(w);
}

/* ---- text ------------------------------------------------------------------ */

/* "NAME h x d s%, ..." with the no-answer share, then the ending. */
static void text_shares(FILE *f, const char *name, const struct ha_cal_share *s,
                        size_t count, double no_answer, const char *ending)
{
	fputs(name, f);
	for (size_t i = 0; i < count; i++)
		fprintf(f, "%s %" PRIu64 " x %" PRIu64 " %.1f%%", i ? "," : "",
		        s[i].heads, s[i].head_dim, 100.0 * s[i].share);
	if (no_answer > 0.0)
		fprintf(f, ", no answer %.1f%%", 100.0 * no_answer);
	fputs(ending, f);
}

/* A file name on a line of text: control characters (a newline in a
 * hostile name) become '?'. */
static void put_name(FILE *f, const char *name)
{
	for (const char *c = name; *c; c++)
		fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, f);
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
	if (isinf(fit->huber_delta))
		fputs(", least squares\n", f);
	else
		fprintf(f, ", Huber delta %s\n", report_human(fit->huber_delta, b1));
	fprintf(f, "fit          objective %s, rss %s, rms %s, AICc %s, BIC %s\n",
	        report_human(fit->objective, b1), report_human(fit->rss, b2),
	        report_human(fit->rms, b3), text_maybe(fit->aicc_defined, fit->aicc, b4),
	        text_maybe(fit->bic_defined, fit->bic, b5));
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
	if (b->resamples)
		fprintf(f, "             kind %s%s\n", ha_cal_bootstrap_kind_str(b->kind),
		        b->degenerate ? ", DEGENERATE (see the warnings)" : "");

	fprintf(f, "\n%-16s %14s %14s  95%% interval (%s bootstrap)\n", "parameter",
	        "value", "se", !b->resamples ? "no"
	        : cal_bootstrap_word(b->kind));
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &fit->param[p];
		char name[HA_CAL_NAME_MAX + 4], interval[80];
		if (!ha_cal_param_reported((enum ha_cal_param)p, e))
			continue; /* the data term, unused */
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
		        report_human(e->value, b3), text_maybe(e->has_se, e->se, b4),
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

/* The goodness of fit and the prediction's support in words. */
static void text_goodness(FILE *f, const struct ha_cal_goodness *g)
{
	char b1[32], b2[32];
	fputs("goodness     ", f);
	if (g->has_chi2)
		fprintf(f, "chi2 %s on %zu dof, p %s; ", report_human(g->chi2, b1),
		        g->dof, text_maybe(g->has_p, g->p_value, b2));
	fprintf(f, "rms log residual %s, loss spread %s%s: %s\n",
	        report_human(g->rms_log_residual, b1),
	        report_human(g->loss_spread, b2),
	        g->has_chi2 ? "" : " (no loss_se: no chi2)",
	        g->lack_of_fit ? "lack of fit" : "fits");
}

static void text_support(FILE *f, const struct ha_calibration *c)
{
	const struct ha_cal_prediction *p = &c->prediction;
	const struct ha_cal_support *s = &p->support;
	char b1[32], b2[32], b3[32];
	fprintf(f, "support      head_dim %" PRIu64 " %s the measured [%" PRIu64
	        ", %" PRIu64 "]\n", p->head_dim,
	        s->inside_measured_head_dims ? "inside" : "OUTSIDE",
	        s->measured_head_dims[0], s->measured_head_dims[1]);
	if (s->has_runner_up) {
		fprintf(f, "             runner-up %" PRIu64 " x %" PRIu64 ": gap %s "
		        "against noise %s", s->runner_heads, s->runner_head_dim,
		        report_human(s->loss_gap, b1), report_human(s->noise, b2));
		if (s->has_probability)
			fprintf(f, ", better in %.1f%% of the refits",
			        100.0 * s->probability_better);
		fputc('\n', f);
	}
	if (s->has_best_measured)
		fprintf(f, "             best measured at the target: %" PRIu64 " x %"
		        PRIu64 ", loss %s: %s\n", s->best_heads, s->best_head_dim,
		        report_human(s->best_loss, b3),
		        s->beats_best_measured ? "the prediction beats it"
		                               : "the prediction does NOT beat it");
	for (size_t i = 0; i < s->unidentified_count; i++)
		fprintf(f, "             unidentified %s moves the argmin\n",
		        ha_cal_param_str((enum ha_cal_param)s->unidentified[i]));
	if (c->goodness.lack_of_fit)
		fputs("             the law misfits the runs; its prediction is not evidence\n", f);
}

static void text_prediction(FILE *f, const struct ha_cal_prediction *p)
{
	char b1[32], b2[32];
	fprintf(f, "\nprediction   budget %" PRIu64 ", samples %s: %" PRIu64
	        " heads x head_dim %" PRIu64 ", loss %s\n", p->budget,
	        report_human(p->samples, b1), p->heads, p->head_dim,
	        report_human(p->loss, b2));
	if (p->distribution_count)
		text_shares(f, "distribution", p->distribution, p->distribution_count,
		            p->no_answer_share, " of the bootstrap's resamples\n");
}

static void text_comparison(FILE *f, const struct ha_calibration *c)
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
		        text_maybe(row->aicc_defined, row->aicc, b2),
		        text_maybe(row->bic_defined, row->bic, b3),
		        text_maybe(row->loo_defined, row->loo_rmse, b4), weight, optimum,
		        share, huber);
		for (size_t q = 0; q < row->contains_count; q++)
			fprintf(f, "%s%s", q ? "," : "",
			        c->comparison[row->contains[q]].law.name);
		fputs(row->contains_count ? "\n" : "-\n", f);
	}
	fprintf(f, "verdict      %s\n", c->verdict.text);
	if (c->averaged_count)
		text_shares(f, "averaged", c->averaged, c->averaged_count,
		            c->averaged_no_answer,
		            " over laws (Akaike weights) and resamples\n");
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
			yaml_prediction(r->yaml, c);
		if (c->comparison_count)
			yaml_comparison(r->yaml, c);
		return report_end(r, err);
	}
	FILE *f = r->stream;
	text_fit(f, c, req->runs_file);
	text_goodness(f, &c->goodness);
	if (c->prediction.defined) {
		text_prediction(f, &c->prediction);
		text_support(f, c);
	}
	if (c->comparison_count)
		text_comparison(f, c);
	fputs("\nmodel        ", f);
	report_text_model(f, &c->model);
	fputc('\n', f);
	for (size_t i = 0; i < c->warning_count; i++)
		fprintf(f, "warning      %s\n", c->warnings[i].message);
	return report_end(r, err);
}
