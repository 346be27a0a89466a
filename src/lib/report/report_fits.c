/* The scaling-law fits of a sweep (headalloc-model(7), SCALING LAWS), in words and in YAML. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "report/format_double.h"
#include "alloc/model_internal.h"

void report_law_fit_of(struct report_law_fit *out, enum report_law law,
                       const struct ha_sweep_fit *fit)
{
	out->law = law;
	out->status = fit->status;
	out->points = fit->points;
	out->result = fit->result;
	out->largest_at = fit->largest_at;
	out->largest_budget = fit->largest_budget;
	out->claimed = fit->claimed;
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

/* text at p; returns its end. */
static char *put_str(char *p, const char *text)
{
	size_t length = strlen(text);
	memcpy(p, text, length);
	return p + length;
}

/* Where a fit's YAML goes: the emitter, or (w NULL) raw text at p, as
 * the emitter writes a block map whose keys are indent spaces in. */
struct fit_out {
	struct ha_yaml_writer *w;
	char *p;
	size_t indent;
};

static void out_key(struct fit_out *o, const char *key)
{
	if (o->w) {
		ha_yaml_key(o->w, key);
		return;
	}
	*o->p++ = '\n';
	memset(o->p, ' ', o->indent);
	o->p = put_str(o->p + o->indent, key);
	*o->p++ = ':';
}

/* A plain scalar after its key. */
static void out_plain(struct fit_out *o, const char *text)
{
	*o->p++ = ' ';
	o->p = put_str(o->p, text);
}

static void out_double(struct fit_out *o, double value)
{
	char buf[32];
	if (o->w)
		ha_yaml_double(o->w, value);
	else
		out_plain(o, ha_yaml_double_text(value, buf));
}

static void out_key_double(struct fit_out *o, const char *key, double value)
{
	out_key(o, key);
	out_double(o, value);
}

/* (ha_fd_put_uint writes 4 bytes however short the number: the text
 * that follows overwrites the rest, within REPORT_RAW_FIT_MAX.) */
static void out_uint(struct fit_out *o, uint64_t value)
{
	if (o->w) {
		ha_yaml_uint(o->w, value);
		return;
	}
	*o->p++ = ' ';
	o->p = ha_fd_put_uint(o->p, value);
}

static void out_null(struct fit_out *o)
{
	if (o->w)
		ha_yaml_null(o->w);
	else
		out_plain(o, "null");
}

/* The key a followed by b ("b" "_se"), into key[32] (every key is short). */
static const char *join(char key[32], const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	memcpy(key, a, la);
	memcpy(key + la, b, lb + 1);
	return key;
}

/* The keys and values of a fit; a failed one's status in words, which
 * only the emitter writes (report_raw_fit takes no failed fit). */
static void out_fit(struct fit_out *o, const struct report_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	char key[32];
	out_key(o, "form");
	if (o->w) {
		ha_yaml_string(o->w, n.form);
	} else {
		/* single-quoted, as the emitter quotes a form (not a plain
		 * word); the raw text holds no other string */
		*o->p++ = ' ';
		*o->p++ = '\'';
		o->p = put_str(o->p, n.form);
		*o->p++ = '\'';
	}
	out_key(o, "points");
	out_uint(o, fit->points);
	if (fit->status != HA_OK) {
		ha_yaml_key_string(o->w, "status", status_words(fit->status));
		return;
	}
	out_key_double(o, n.slope, r->slope);
	out_key_double(o, join(key, n.slope, "_se"), r->se_slope);
	out_key_double(o, join(key, n.slope, "_low"), r->slope_low);
	out_key_double(o, join(key, n.slope, "_high"), r->slope_high);
	out_key_double(o, n.intercept, r->intercept);
	out_key_double(o, join(key, n.intercept, "_se"), r->se_intercept);
	if (n.scale)
		out_key_double(o, n.scale, ha_exp_or_inf(r->intercept));
	out_key_double(o, "level", HA_FIT_LEVEL);
	out_key_double(o, "r2", r->r2);
	out_key(o, "max_residual");
	if (r->max_residual_known)
		out_double(o, r->max_abs_residual);
	else
		out_null(o);
	out_key(o, join(key, "max_residual_", n.abscissa));
	if (!r->max_residual_known)
		out_null(o);
	else if (fit->law == LAW_HEADS_POWER)
		out_uint(o, fit->largest_budget);
	else
		out_double(o, fit->largest_at);
	if (n.claim && !isnan(fit->claimed)) {
		out_key_double(o, join(key, "claimed_", n.slope), fit->claimed);
		int inside = fit->claimed >= r->slope_low &&
		             fit->claimed <= r->slope_high;
		out_key(o, "claim_in_interval");
		if (o->w)
			ha_yaml_bool(o->w, inside);
		else
			out_plain(o, inside ? "true" : "false");
	}
}

void report_yaml_fit(struct ha_yaml_writer *w, const struct report_law_fit *fit)
{
	struct fit_out o = {.w = w};
	ha_yaml_begin_map(w, 0);
	out_fit(&o, fit);
	ha_yaml_end_map(w);
}

char *report_raw_fit(char *p, size_t indent, const struct report_law_fit *fit)
{
	if (fit->status != HA_OK)
		return NULL;
	struct fit_out o = {.p = p, .indent = indent};
	out_fit(&o, fit);
	return o.p;
}

/* ---- text for people, appended at p: what fprintf's formats would
 * write, without printf (a line for each of a sweep's values of n) ---- */

/* "%.{precision}g" */
static char *put_g(char *p, double value, int precision)
{
	return p + ha_fd_format_g(value, precision, p);
}

/* "%.6f" */
static char *put_f6(char *p, double value)
{
	size_t length = ha_fd_format_f(value, 6, p);
	if (length == 0) {
		char buf[400];
		int n = snprintf(buf, sizeof buf, "%.6f", value);
		length = n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0;
		memcpy(p, buf, length);
	}
	return p + length;
}

char *report_text_fit_buf(char *p, const char *label,
                          const struct report_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	/* "fit %s: %s: " */
	p = put_str(p, "fit ");
	p = put_str(p, label);
	p = put_str(p, ": ");
	p = put_str(p, n.form);
	p = put_str(p, ": ");
	if (fit->status != HA_OK) {
		/* "%s (%zu given)\n" */
		p = put_str(p, status_words(fit->status));
		p = put_str(p, " (");
		p = ha_fd_put_uint(p, fit->points);
		return put_str(p, " given)\n");
	}
	/* "%s = %.6g +- %.2g (95%% [%.6g, %.6g]), %s = %.6g, R^2 = %.6f" */
	p = put_str(p, n.slope);
	p = put_str(p, " = ");
	p = put_g(p, r->slope, 6);
	p = put_str(p, " +- ");
	p = put_g(p, r->se_slope, 2);
	p = put_str(p, " (95% [");
	p = put_g(p, r->slope_low, 6);
	p = put_str(p, ", ");
	p = put_g(p, r->slope_high, 6);
	p = put_str(p, "]), ");
	p = put_str(p, n.scale ? n.scale : n.intercept);
	p = put_str(p, " = ");
	p = put_g(p, n.scale ? ha_exp_or_inf(r->intercept) : r->intercept, 6);
	p = put_str(p, ", R^2 = ");
	p = put_f6(p, r->r2);
	if (r->max_residual_known) {
		/* ", largest residual %.3g at %s = " and PRIu64 or %.6g */
		p = put_str(p, ", largest residual ");
		p = put_g(p, r->max_abs_residual, 3);
		p = put_str(p, " at ");
		p = put_str(p, n.abscissa);
		p = put_str(p, " = ");
		p = fit->law == LAW_HEADS_POWER ? ha_fd_put_uint(p, fit->largest_budget)
		                                : put_g(p, fit->largest_at, 6);
	}
	/* ", %zu points" */
	p = put_str(p, ", ");
	p = ha_fd_put_uint(p, r->count);
	p = put_str(p, " points");
	if (n.claim && !isnan(fit->claimed)) {
		/* "; seeds claim %s = %.6g (%s the interval)" */
		p = put_str(p, "; seeds claim ");
		p = put_str(p, n.claim);
		p = put_str(p, " = ");
		p = put_g(p, fit->claimed, 6);
		p = put_str(p, fit->claimed >= r->slope_low && fit->claimed <= r->slope_high
		                       ? " (inside the interval)" : " (outside the interval)");
	}
	return put_str(p, "\n");
}

void report_text_fit(FILE *f, const char *label, const struct report_law_fit *fit)
{
	char line[REPORT_TEXT_FIT_MAX];
	char *end = report_text_fit_buf(line, label, fit);
	fwrite(line, 1, (size_t)(end - line), f);
}
