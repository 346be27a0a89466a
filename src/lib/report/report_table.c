/* The sweep table: every row of a sweep's result (sweep.h), then the
 * scaling-law fits of headalloc-model(7), SCALING LAWS the sweep
 * computed, in words and in YAML.  The rows' writer is
 * report_table_rows.c; this file calls it and writes the fits.  Nothing
 * here solves or fits. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report/format_double.h"
#include "alloc/model_internal.h"

/* The most bytes of a fit's line in text. */
#define REPORT_TEXT_FIT_MAX ((size_t)1024)

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
static void out_fit(struct fit_out *o, enum report_law law,
                    const struct ha_sweep_fit *fit)
{
	struct law_names n = law_names(law);
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
	else if (law == LAW_HEADS_POWER)
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

void report_yaml_fit(struct ha_yaml_writer *w, enum report_law law,
                     const struct ha_sweep_fit *fit)
{
	struct fit_out o = {.w = w};
	ha_yaml_begin_map(w, 0);
	out_fit(&o, law, fit);
	ha_yaml_end_map(w);
}

char *report_raw_fit(char *p, size_t indent, enum report_law law,
                     const struct ha_sweep_fit *fit)
{
	if (fit->status != HA_OK)
		return NULL;
	struct fit_out o = {.p = p, .indent = indent};
	out_fit(&o, law, fit);
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

/* The fit in one line for people, prefixed by label ("budget 512"), at p
 * (REPORT_TEXT_FIT_MAX bytes of room, for a label of at most 64
 * characters); returns its end (not terminated). */
static char *text_fit(char *p, const char *label, enum report_law law,
                      const struct ha_sweep_fit *fit)
{
	struct law_names n = law_names(law);
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
		p = law == LAW_HEADS_POWER ? ha_fd_put_uint(p, fit->largest_budget)
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

/* ---- the section ------------------------------------------------------- */


static void write_budget_fits(const struct ha_sweep_result *result,
                              struct ha_report *r, size_t b)
{
	const struct ha_sweep_request *req = ha_sweep_result_request(result);
	struct ha_sweep_fit power, logarithmic;
	ha_sweep_result_budget_fits(result, b, &power, &logarithmic);
	if (!r->yaml) {
		char label[64], line[2 * REPORT_TEXT_FIT_MAX];
		snprintf(label, sizeof label, "budget %" PRIu64, req->budgets[b]);
		char *end = text_fit(line, label, LAW_DIM_POWER, &power);
		end = text_fit(end, label, LAW_DIM_LOG, &logarithmic);
		fwrite(line, 1, (size_t)(end - line), r->stream);
		return;
	}
	ha_yaml_begin_map(r->yaml, 0);
	ha_yaml_key_uint(r->yaml, "budget", req->budgets[b]);
	ha_yaml_key(r->yaml, "power_law");
	report_yaml_fit(r->yaml, LAW_DIM_POWER, &power);
	ha_yaml_key(r->yaml, "log_law");
	report_yaml_fit(r->yaml, LAW_DIM_LOG, &logarithmic);
	ha_yaml_end_map(r->yaml);
}

/* An item's text besides its fit: "\n  - samples: N\n    heads_law:" in
 * YAML, the label in text. */
#define ITEM_EXTRA ((size_t)96)

/* Per-n fits read from the result, formatted, then written together. */
#define FITS_BATCH ((size_t)128)

static void flush(struct ha_report *r, const char *text, char **p)
{
	if (*p > text && r->yaml)
		yaml_writer_raw(r->yaml, text, (size_t)(*p - text));
	else if (*p > text)
		fwrite(text, 1, (size_t)(*p - text), r->stream);
	*p = (char *)text;
}

/* The per-n fits ln H* = ln c + e ln D over the budgets at each n, as the
 * result makes them: one a value of n, so as many as the table has
 * points (YAML: the items of fits.by_samples; text: a line each).
 *
 * A fit's YAML after the first is written past the emitter, as raw text:
 * an item of the block sequence by_samples, "\n  - samples: N\n
 * heads_law:" and the fit's map (report_raw_fit), exactly the emitter's
 * bytes.  The first item, and a fit that failed (reported in words), go
 * through the emitter.  Stops early once writing has failed (the report
 * knows). */
static void write_samples_fits(struct ha_sweep_result *result, struct ha_report *r)
{
	int yaml = r->yaml != NULL, json = yaml && !r->yaml_text;
	size_t item = (yaml ? REPORT_RAW_FIT_MAX : REPORT_TEXT_FIT_MAX) + ITEM_EXTRA;
	const struct ha_sweep_request *req = ha_sweep_result_request(result);
	size_t points = req->budget_count > 1 ? req->samples.count : 0;
	char *text = malloc(FITS_BATCH * item);
	struct ha_sweep_samples_fit *fits = malloc(FITS_BATCH * sizeof *fits);
	if (!text || !fits) {
		report_fail(r, NULL, HA_ENOMEM, "writing the fits: %s",
		            ha_status_str(HA_ENOMEM));
		free(text);
		free(fits);
		return;
	}
	size_t at = 0;
	while (at < points && !report_write_failed(r)) {
		size_t count = points - at < FITS_BATCH ? points - at : FITS_BATCH;
		struct ha_error why;
		ha_error_init(&why);
		enum ha_status st = ha_sweep_result_samples_fits(result, at, count, fits, &why);
		if (st != HA_OK) {
			report_fail(r, NULL, st, "%s", why.message);
			break;
		}
		char *p = text;
		for (size_t k = 0; k < count; k++, at++) {
			const struct ha_sweep_fit *f = &fits[k].heads_law;
			double n = fits[k].samples;
			if (!yaml) {
				/* "samples %.6g" */
				char label[64] = "samples ";
				ha_fd_format_g(n, 6, label + 8);
				p = text_fit(p, label, LAW_HEADS_POWER, f);
			} else if (at > 0 && f->status == HA_OK && !json) {
				char buf[32];
				p = put_str(p, "\n  - samples: ");
				p = put_str(p, ha_yaml_double_text(n, buf));
				p = put_str(p, "\n    heads_law:");
				p = report_raw_fit(p, 6, LAW_HEADS_POWER, f);
			} else {
				/* Through the emitter, after the text before it. */
				flush(r, text, &p);
				ha_yaml_begin_map(r->yaml, 0);
				ha_yaml_key_double(r->yaml, "samples", n);
				ha_yaml_key(r->yaml, "heads_law");
				report_yaml_fit(r->yaml, LAW_HEADS_POWER, f);
				ha_yaml_end_map(r->yaml);
			}
		}
		flush(r, text, &p);
	}
	free(text);
	free(fits);
}

static void write_fits(struct ha_sweep_result *result, struct ha_report *r)
{
	if (r->yaml) {
		ha_yaml_key_map(r->yaml, "fits", 0);
		ha_yaml_key_seq(r->yaml, "by_budget", 0);
	} else {
		fputc('\n', r->stream);
	}
	for (size_t b = 0; b < ha_sweep_result_request(result)->budget_count; b++)
		write_budget_fits(result, r, b);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_key_seq(r->yaml, "by_samples", 0);
	}
	write_samples_fits(result, r);
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
