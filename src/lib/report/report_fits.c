/* The scaling-law fits of a sweep (spec §6), in words and in YAML. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_internal.h"

void report_finish_fit(struct report_law_fit *out, enum report_law law,
                       const struct ha_fit *fit, ha_fit_replay_fn replay,
                       void *ctx)
{
	memset(out, 0, sizeof *out);
	out->law = law;
	out->points = ha_fit_count(fit);
	out->claimed = NAN;
	out->status = ha_fit_result(fit, replay, ctx, &out->result);
}

struct law_names {
	const char *form;      /* the law, for people and machines */
	const char *slope;     /* its slope's name */
	const char *intercept; /* its intercept's name (as fitted) */
	const char *scale;     /* exp(intercept)'s name, or NULL */
	const char *abscissa;  /* what largest_at is */
	const char *claim;     /* the seeds' claim, as "name = formula" */
};

static struct law_names law_names(enum report_law law)
{
	static const struct law_names names[] = {
		{"ln(head_dim) = ln(a) + b ln(ln(samples))", "b", "ln_a", "a",
		 "samples", "b = 2/(4+s)"},
		{"head_dim = p + q ln(samples)", "q", "p", NULL, "samples", NULL},
		{"ln(heads) = ln(c) + e ln(budget)", "e", "ln_c", "c", "budget",
		 "e"},
	};
	return names[law];
}

static const char *status_words(enum ha_status status)
{
	return status == HA_EDEGENERATE
		? "no fit: fewer than 3 distinct points" : ha_status_str(status);
}

void report_yaml_fit(struct ha_yaml_writer *w, const struct report_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "form");
	ha_yaml_string(w, n.form);
	ha_yaml_key(w, "points");
	ha_yaml_uint(w, fit->points);
	if (fit->status != HA_OK) {
		ha_yaml_key(w, "status");
		ha_yaml_string(w, status_words(fit->status));
		ha_yaml_end_map(w);
		return;
	}
	ha_yaml_key(w, n.slope);
	ha_yaml_double(w, r->slope);
	char key[32];
	snprintf(key, sizeof key, "%s_se", n.slope);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->se_slope);
	snprintf(key, sizeof key, "%s_low", n.slope);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->slope_low);
	snprintf(key, sizeof key, "%s_high", n.slope);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->slope_high);
	ha_yaml_key(w, n.intercept);
	ha_yaml_double(w, r->intercept);
	snprintf(key, sizeof key, "%s_se", n.intercept);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->se_intercept);
	if (n.scale) {
		ha_yaml_key(w, n.scale);
		ha_yaml_double(w, ha_exp_or_inf(r->intercept));
	}
	ha_yaml_key(w, "level");
	ha_yaml_double(w, HA_FIT_LEVEL);
	ha_yaml_key(w, "r2");
	ha_yaml_double(w, r->r2);
	ha_yaml_key(w, "max_residual");
	if (r->max_residual_known)
		ha_yaml_double(w, r->max_abs_residual);
	else
		ha_yaml_null(w);
	snprintf(key, sizeof key, "max_residual_%s", n.abscissa);
	ha_yaml_key(w, key);
	if (!r->max_residual_known)
		ha_yaml_null(w);
	else if (fit->law == LAW_HEADS_POWER)
		ha_yaml_uint(w, fit->largest_budget);
	else
		ha_yaml_double(w, fit->largest_at);
	if (n.claim && !isnan(fit->claimed)) {
		snprintf(key, sizeof key, "claimed_%s", n.slope);
		ha_yaml_key(w, key);
		ha_yaml_double(w, fit->claimed);
		ha_yaml_key(w, "claim_in_interval");
		ha_yaml_bool(w, fit->claimed >= r->slope_low &&
		                fit->claimed <= r->slope_high);
	}
	ha_yaml_end_map(w);
}

void report_text_fit(FILE *f, const char *label, const struct report_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	fprintf(f, "fit %s: %s: ", label, n.form);
	if (fit->status != HA_OK) {
		fprintf(f, "%s (%zu given)\n", status_words(fit->status), fit->points);
		return;
	}
	fprintf(f, "%s = %.6g +- %.2g (95%% [%.6g, %.6g]), %s = %.6g, R^2 = %.6f",
	        n.slope, r->slope, r->se_slope, r->slope_low, r->slope_high,
	        n.scale ? n.scale : n.intercept,
	        n.scale ? ha_exp_or_inf(r->intercept) : r->intercept, r->r2);
	if (r->max_residual_known && fit->law == LAW_HEADS_POWER)
		fprintf(f, ", largest residual %.3g at %s = %" PRIu64,
		        r->max_abs_residual, n.abscissa, fit->largest_budget);
	else if (r->max_residual_known)
		fprintf(f, ", largest residual %.3g at %s = %.6g", r->max_abs_residual,
		        n.abscissa, fit->largest_at);
	fprintf(f, ", %zu points", r->count);
	if (n.claim && !isnan(fit->claimed))
		fprintf(f, "; seeds claim %s = %.6g (%s the interval)", n.claim,
		        fit->claimed,
		        fit->claimed >= r->slope_low && fit->claimed <= r->slope_high
		                ? "inside" : "outside");
	fputc('\n', f);
}
