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
#include "report/report_calibration.h"
#include "calibrate/calibrate_internal.h"

/* ---- YAML ------------------------------------------------------------------ */

/* calboot: the bootstrap's kind and degeneracy, the goodness of fit, the
 * prediction's no-answer share, support and warnings. */
static void yaml_bootstrap_honest(struct ha_yaml_writer *w,
                                  const struct ha_cal_bootstrap *b)
{
	ha_yaml_key(w, "kind");
	ha_yaml_string(w, ha_cal_bootstrap_kind_str(b->kind));
	ha_yaml_key(w, "degenerate");
	ha_yaml_bool(w, b->degenerate);
}

static void yaml_goodness(struct ha_yaml_writer *w, const struct ha_cal_goodness *g)
{
	ha_yaml_key(w, "goodness");
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "rms_log_residual");
	ha_yaml_double(w, g->rms_log_residual);
	ha_yaml_key(w, "loss_spread");
	ha_yaml_double(w, g->loss_spread);
	ha_yaml_key(w, "chi2");
	report_cal_yaml_maybe(w, g->has_chi2, g->chi2);
	ha_yaml_key(w, "dof");
	if (g->has_chi2)
		ha_yaml_uint(w, g->dof);
	else
		ha_yaml_null(w);
	ha_yaml_key(w, "p_value");
	report_cal_yaml_maybe(w, g->has_p, g->p_value);
	ha_yaml_key(w, "verdict");
	ha_yaml_string(w, g->lack_of_fit ? "lack of fit" : "fits");
	ha_yaml_end_map(w);
}

static void yaml_allocation(struct ha_yaml_writer *w, uint64_t heads,
                            uint64_t head_dim)
{
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, head_dim);
}

static void yaml_support(struct ha_yaml_writer *w, const struct ha_calibration *c)
{
	const struct ha_cal_prediction *p = &c->prediction;
	const struct ha_cal_support *s = &p->support;
	ha_yaml_key(w, "no_answer_share");
	report_cal_yaml_maybe(w, c->bootstrap.resamples > 0, p->no_answer_share);
	ha_yaml_key(w, "support");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "inside_measured_head_dims");
	ha_yaml_bool(w, s->inside_measured_head_dims);
	ha_yaml_key(w, "measured_head_dims");
	ha_yaml_begin_seq(w, 1);
	ha_yaml_uint(w, s->measured_head_dims[0]);
	ha_yaml_uint(w, s->measured_head_dims[1]);
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "runner_up");
	if (s->has_runner_up) {
		ha_yaml_begin_map(w, 1);
		yaml_allocation(w, s->runner_heads, s->runner_head_dim);
		ha_yaml_key(w, "loss_gap");
		ha_yaml_double(w, s->loss_gap);
		ha_yaml_key(w, "probability_better");
		report_cal_yaml_maybe(w, s->has_probability, s->probability_better);
		ha_yaml_end_map(w);
	} else {
		ha_yaml_null(w);
	}
	ha_yaml_key(w, "noise");
	ha_yaml_double(w, s->noise);
	ha_yaml_key(w, "best_measured");
	if (s->has_best_measured) {
		ha_yaml_begin_map(w, 1);
		yaml_allocation(w, s->best_heads, s->best_head_dim);
		ha_yaml_key(w, "loss");
		ha_yaml_double(w, s->best_loss);
		ha_yaml_end_map(w);
	} else {
		ha_yaml_null(w);
	}
	ha_yaml_key(w, "beats_best_measured");
	if (s->has_best_measured)
		ha_yaml_bool(w, s->beats_best_measured);
	else
		ha_yaml_null(w);
	ha_yaml_key(w, "unidentified");
	ha_yaml_begin_seq(w, 1);
	for (size_t i = 0; i < s->unidentified_count; i++)
		ha_yaml_string(w, ha_cal_param_str((enum ha_cal_param)s->unidentified[i]));
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
	ha_yaml_key(w, "warnings");
	size_t n = 0;
	for (size_t i = 0; i < c->warning_count; i++)
		n += c->warnings[i].kind == HA_CAL_WARN_UNSUPPORTED ||
		     c->warnings[i].kind == HA_CAL_WARN_LACK_OF_FIT;
	ha_yaml_begin_seq(w, n == 0);
	for (size_t i = 0; i < c->warning_count; i++)
		if (c->warnings[i].kind == HA_CAL_WARN_UNSUPPORTED ||
		    c->warnings[i].kind == HA_CAL_WARN_LACK_OF_FIT)
			ha_yaml_string(w, c->warnings[i].message);
	ha_yaml_end_seq(w);
}

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
	report_cal_yaml_maybe(w, e->has_se, e->se);
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
	yaml_bootstrap_honest(w, b);
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
	report_cal_yaml_maybe(w, fit->aicc_defined, fit->aicc);
	ha_yaml_key(w, "bic");
	report_cal_yaml_maybe(w, fit->bic_defined, fit->bic);
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
		if (ha_cal_param_reported((enum ha_cal_param)p, &fit->param[p]))
			yaml_parameter(w, &fit->param[p]);
	ha_yaml_end_map(w);
	yaml_goodness(w, &c->goodness);
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
                            const struct ha_calibration *c)
{
	const struct ha_cal_prediction *p = &c->prediction;
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
	yaml_support(w, c);
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
	report_cal_yaml_pair(w, ls->has_prediction, ls->heads, ls->head_dim);
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
	        report_human(fit->rms, b3), report_cal_maybe(fit->aicc_defined, fit->aicc, b4),
	        report_cal_maybe(fit->bic_defined, fit->bic, b5));
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
	        : b->kind == HA_CAL_BOOT_CASES ? "case"
	        : b->kind == HA_CAL_BOOT_WILD ? "wild" : "residual");
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
		        report_human(e->value, b3), report_cal_maybe(e->has_se, e->se, b4),
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

/* calboot: the goodness of fit and the prediction's support in words. */
static void text_goodness(FILE *f, const struct ha_cal_goodness *g)
{
	char b1[32], b2[32], b3[32], b4[32];
	if (g->has_chi2)
		fprintf(f, "goodness     chi2 %s on %zu dof, p %s; rms log residual %s, "
		        "loss spread %s: %s\n", report_human(g->chi2, b1), g->dof,
		        report_cal_maybe(g->has_p, g->p_value, b2),
		        report_human(g->rms_log_residual, b3),
		        report_human(g->loss_spread, b4),
		        g->lack_of_fit ? "lack of fit" : "fits");
	else
		fprintf(f, "goodness     rms log residual %s, loss spread %s (no loss_se: "
		        "no chi2): %s\n", report_human(g->rms_log_residual, b1),
		        report_human(g->loss_spread, b2),
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
	if (!p->distribution_count)
		return;
	fputs("distribution", f);
	for (size_t i = 0; i < p->distribution_count; i++) {
		const struct ha_cal_share *s = &p->distribution[i];
		fprintf(f, "%s %" PRIu64 " x %" PRIu64 " %.1f%%", i ? "," : "",
		        s->heads, s->head_dim, 100.0 * s->share);
	}
	if (p->no_answer_share > 0.0)
		fprintf(f, ", no answer %.1f%%", 100.0 * p->no_answer_share);
	fputs(" of the bootstrap's resamples\n", f);
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
			report_cal_yaml_comparison(r->yaml, c);
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
		report_cal_text_comparison(f, c);
	fputs("\nmodel        ", f);
	report_text_model(f, &c->model);
	fputc('\n', f);
	for (size_t i = 0; i < c->warning_count; i++)
		fprintf(f, "warning      %s\n", c->warnings[i].message);
	return report_end(r, err);
}
