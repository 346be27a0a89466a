/* The scaling-law fits of a sweep (spec §6), in words and in YAML. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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
	o->p += o->indent;
	size_t length = strlen(key);
	memcpy(o->p, key, length);
	o->p += length;
	*o->p++ = ':';
}

/* A plain scalar after its key. */
static void out_plain(struct fit_out *o, const char *text)
{
	size_t length = strlen(text);
	*o->p++ = ' ';
	memcpy(o->p, text, length);
	o->p += length;
}

static void out_double(struct fit_out *o, double value)
{
	char buf[32];
	if (o->w)
		ha_yaml_double(o->w, value);
	else
		out_plain(o, ha_yaml_double_text(value, buf));
}

static void out_uint(struct fit_out *o, uint64_t value)
{
	char buf[32];
	if (o->w) {
		ha_yaml_uint(o->w, value);
		return;
	}
	snprintf(buf, sizeof buf, "%" PRIu64, value);
	out_plain(o, buf);
}

static void out_null(struct fit_out *o)
{
	if (o->w)
		ha_yaml_null(o->w);
	else
		out_plain(o, "null");
}

static void out_bool(struct fit_out *o, int value)
{
	if (o->w)
		ha_yaml_bool(o->w, value);
	else
		out_plain(o, value ? "true" : "false");
}

/* The forms: single-quoted by the emitter (they are not plain words), as
 * a raw string is here; report_raw_fit writes no other string. */
static void out_form(struct fit_out *o, const char *form)
{
	if (o->w) {
		ha_yaml_string(o->w, form);
		return;
	}
	size_t length = strlen(form);
	*o->p++ = ' ';
	*o->p++ = '\'';
	memcpy(o->p, form, length);
	o->p += length;
	*o->p++ = '\'';
}

/* The keys and values of a fit (status HA_OK) after form and points. */
static void out_fit(struct fit_out *o, const struct report_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	char key[32];
	out_key(o, n.slope);
	out_double(o, r->slope);
	snprintf(key, sizeof key, "%s_se", n.slope);
	out_key(o, key);
	out_double(o, r->se_slope);
	snprintf(key, sizeof key, "%s_low", n.slope);
	out_key(o, key);
	out_double(o, r->slope_low);
	snprintf(key, sizeof key, "%s_high", n.slope);
	out_key(o, key);
	out_double(o, r->slope_high);
	out_key(o, n.intercept);
	out_double(o, r->intercept);
	snprintf(key, sizeof key, "%s_se", n.intercept);
	out_key(o, key);
	out_double(o, r->se_intercept);
	if (n.scale) {
		out_key(o, n.scale);
		out_double(o, ha_exp_or_inf(r->intercept));
	}
	out_key(o, "level");
	out_double(o, HA_FIT_LEVEL);
	out_key(o, "r2");
	out_double(o, r->r2);
	out_key(o, "max_residual");
	if (r->max_residual_known)
		out_double(o, r->max_abs_residual);
	else
		out_null(o);
	snprintf(key, sizeof key, "max_residual_%s", n.abscissa);
	out_key(o, key);
	if (!r->max_residual_known)
		out_null(o);
	else if (fit->law == LAW_HEADS_POWER)
		out_uint(o, fit->largest_budget);
	else
		out_double(o, fit->largest_at);
	if (n.claim && !isnan(fit->claimed)) {
		snprintf(key, sizeof key, "claimed_%s", n.slope);
		out_key(o, key);
		out_double(o, fit->claimed);
		out_key(o, "claim_in_interval");
		out_bool(o, fit->claimed >= r->slope_low &&
		            fit->claimed <= r->slope_high);
	}
}

void report_yaml_fit(struct ha_yaml_writer *w, const struct report_law_fit *fit)
{
	struct fit_out o = {.w = w};
	ha_yaml_begin_map(w, 0);
	out_key(&o, "form");
	out_form(&o, law_names(fit->law).form);
	out_key(&o, "points");
	out_uint(&o, fit->points);
	if (fit->status != HA_OK) {
		ha_yaml_key(w, "status");
		ha_yaml_string(w, status_words(fit->status));
		ha_yaml_end_map(w);
		return;
	}
	out_fit(&o, fit);
	ha_yaml_end_map(w);
}

char *report_raw_fit(char *p, size_t indent, const struct report_law_fit *fit)
{
	if (fit->status != HA_OK)
		return NULL;
	struct fit_out o = {.p = p, .indent = indent};
	out_key(&o, "form");
	out_form(&o, law_names(fit->law).form);
	out_key(&o, "points");
	out_uint(&o, fit->points);
	out_fit(&o, fit);
	return o.p;
}

/* Text appended at b->p, never past b->end (the line's length is
 * bounded: see REPORT_TEXT_FIT_MAX). */
struct text_buf {
	char *p, *end;
};

static void append(struct text_buf *b, const char *fmt, ...) HA_PRINTF(2, 3);

static void append(struct text_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p, (size_t)(b->end - b->p), fmt, ap);
	va_end(ap);
	if (n > 0)
		b->p += (size_t)n < (size_t)(b->end - b->p) ? (size_t)n
		                                            : (size_t)(b->end - b->p) - 1;
}

char *report_text_fit_buf(char *buf, const char *label,
                          const struct report_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	struct text_buf b = {buf, buf + REPORT_TEXT_FIT_MAX};
	append(&b, "fit %s: %s: ", label, n.form);
	if (fit->status != HA_OK) {
		append(&b, "%s (%zu given)\n", status_words(fit->status), fit->points);
		return b.p;
	}
	append(&b, "%s = %.6g +- %.2g (95%% [%.6g, %.6g]), %s = %.6g, R^2 = %.6f",
	       n.slope, r->slope, r->se_slope, r->slope_low, r->slope_high,
	       n.scale ? n.scale : n.intercept,
	       n.scale ? ha_exp_or_inf(r->intercept) : r->intercept, r->r2);
	if (r->max_residual_known && fit->law == LAW_HEADS_POWER)
		append(&b, ", largest residual %.3g at %s = %" PRIu64,
		       r->max_abs_residual, n.abscissa, fit->largest_budget);
	else if (r->max_residual_known)
		append(&b, ", largest residual %.3g at %s = %.6g", r->max_abs_residual,
		       n.abscissa, fit->largest_at);
	append(&b, ", %zu points", r->count);
	if (n.claim && !isnan(fit->claimed))
		append(&b, "; seeds claim %s = %.6g (%s the interval)", n.claim,
		       fit->claimed,
		       fit->claimed >= r->slope_low && fit->claimed <= r->slope_high
		               ? "inside" : "outside");
	append(&b, "\n");
	return b.p;
}

void report_text_fit(FILE *f, const char *label, const struct report_law_fit *fit)
{
	char line[REPORT_TEXT_FIT_MAX];
	char *end = report_text_fit_buf(line, label, fit);
	fwrite(line, 1, (size_t)(end - line), f);
}
