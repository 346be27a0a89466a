/* The sweep table: every row of a sweep's result (sweep.h), then the
 * scaling-law fits of headalloc-model(7), SCALING LAWS the sweep
 * computed, in words and in YAML.  Nothing here solves or fits. */
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

/* "%.6f" (snprintf's own beyond ha_fd_format_f's reach: a value of more
 * than 16 digits before the point, or below 10^-6) */
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

/* The text from text to *p, written past the emitter in YAML; *p back to
 * text. */
static void flush(struct ha_report *r, const char *text, char **p)
{
	if (*p > text && r->yaml)
		yaml_writer_raw(r->yaml, text, (size_t)(*p - text));
	else if (*p > text)
		fwrite(text, 1, (size_t)(*p - text), r->stream);
	*p = (char *)text;
}

/* ---- the rows ----------------------------------------------------------
 * Read from the sweep's result (sweep.h) a batch at a time, formatted
 * here without printf.  A grouped sweep's rows (ha_sweep_request.kv) add
 * kv_heads, kv_dim and kv_cache_bytes_per_token to the columns, and
 * (each the cost of a solve over every divisor triple) take the emitter
 * in YAML.
 *
 * YAML rows after the first are formatted by the writer's fast path for
 * flat rows (yaml_flat_item: a new line, "- ", a flow map of plain
 * scalars with ", " between pairs) and written past it with yaml_writer_raw;
 * the first row goes through the emitter, which then knows the sequence
 * holds an item (an empty one it would write as []). */

/* The most bytes one row's text takes: a YAML row is at most ~330 bytes
 * (eight keys, three integers, five doubles of at most 24 characters), a
 * text row at most ~490 (fixed widths, %.6f of a log10 at most 316, a
 * grouped row's three integers). */
#define ROW_MAX ((size_t)512)

/* Rows formatted before they are written together. */
#define TEXT_ROWS HA_SWEEP_BATCH_MAX

/* A row after the first, by the writer's fast path for flat rows
 * (yaml_writer.h); samples_text is n's. */
static char *put_yaml_row(char *p, uint64_t budget, const char *samples_text,
                          size_t samples_length, const struct ha_sweep_row *row)
{
	static const struct yaml_flat_key keys[8] = {
		YAML_FLAT_KEY("budget"), YAML_FLAT_KEY("samples"),
		YAML_FLAT_KEY("heads"), YAML_FLAT_KEY("head_dim"),
		YAML_FLAT_KEY("mse"), YAML_FLAT_KEY("log10_mse"),
		YAML_FLAT_KEY("relaxed_head_dim"), YAML_FLAT_KEY("relaxed_heads"),
	};
	const struct yaml_flat_value values[8] = {
		{.kind = YAML_FLAT_UINT, .uint_value = budget},
		{.kind = YAML_FLAT_TEXT, .text = samples_text, .length = samples_length},
		{.kind = YAML_FLAT_UINT, .uint_value = row->heads},
		{.kind = YAML_FLAT_UINT, .uint_value = row->head_dim},
		{.kind = YAML_FLAT_DOUBLE, .double_value = row->mse},
		{.kind = YAML_FLAT_DOUBLE, .double_value = report_log10(row->log_mse)},
		{.kind = YAML_FLAT_DOUBLE, .double_value = row->relaxed_head_dim},
		{.kind = YAML_FLAT_DOUBLE, .double_value = row->relaxed_heads},
	};
	return yaml_flat_item(p, keys, values, 8);
}

/* text right-aligned in width columns, as printf's "%{width}s". */
static char *put_padded(char *p, const char *text, size_t length, size_t width)
{
	if (length < width) {
		memset(p, ' ', width - length);
		p += width - length;
	}
	memcpy(p, text, length);
	return p + length;
}

static char *put_uint_padded(char *p, uint64_t value, size_t width)
{
	char digits[24];
	return put_padded(p, digits, (size_t)(ha_fd_put_uint(digits, value) - digits),
	                  width);
}

/* printf's "%{width}.6g". */
static char *put_g6(char *p, double value, size_t width)
{
	char buf[HA_FD_BUFSIZE];
	return put_padded(p, buf, (size_t)(put_g(buf, value, 6) - buf), width);
}

/* printf's "%{width}.6f". */
static char *put_f6_padded(char *p, double value, size_t width)
{
	char buf[400];
	return put_padded(p, buf, (size_t)(put_f6(buf, value) - buf), width);
}

/* A text row, as fprintf(f, "%20" PRIu64 " %12.6g %20" PRIu64 " %10"
 * PRIu64 " %13s %12.6f %16.6g %14.6g\n", budget, samples, heads,
 * head_dim, report_human(mse), log10 mse, x*, H*) writes it, without
 * printf's cost (a fifth of a text sweep's); grouped, with " %10" PRIu64
 * " %12" PRIu64 " %16" PRIu64 " of kv_heads, kv_dim and the cache bytes
 * before the newline. */
static char *put_text_row(char *p, uint64_t budget, double samples,
                          const struct ha_sweep_row *row, int grouped)
{
	p = put_uint_padded(p, budget, 20);
	*p++ = ' ';
	p = put_g6(p, samples, 12);
	*p++ = ' ';
	p = put_uint_padded(p, row->heads, 20);
	*p++ = ' ';
	p = put_uint_padded(p, row->head_dim, 10);
	*p++ = ' ';
	/* report_human: "inf" beyond a double, else %.6g. */
	if (isinf(row->mse))
		p = put_padded(p, "inf", 3, 13);
	else
		p = put_g6(p, row->mse, 13);
	*p++ = ' ';
	p = put_f6_padded(p, report_log10(row->log_mse), 12);
	*p++ = ' ';
	p = put_g6(p, row->relaxed_head_dim, 16);
	*p++ = ' ';
	p = put_g6(p, row->relaxed_heads, 14);
	if (grouped) {
		*p++ = ' ';
		p = put_uint_padded(p, row->kv_heads, 10);
		*p++ = ' ';
		p = put_uint_padded(p, row->kv_dim, 12);
		*p++ = ' ';
		p = put_uint_padded(p, row->kv_cache_bytes_per_token, 16);
	}
	*p++ = '\n';
	return p;
}

/* A row through the emitter: the table's first, and every row in JSON or
 * of a grouped sweep. */
static void emit_row(struct ha_yaml_writer *w, const struct ha_sweep_row *row, int grouped)
{
	ha_yaml_begin_map(w, 1);
	ha_yaml_key_uint(w, "budget", row->budget);
	ha_yaml_key_double(w, "samples", row->samples);
	ha_yaml_key_uint(w, "heads", row->heads);
	ha_yaml_key_uint(w, "head_dim", row->head_dim);
	ha_yaml_key_double(w, "mse", row->mse);
	ha_yaml_key_double(w, "log10_mse", report_log10(row->log_mse));
	ha_yaml_key_double(w, "relaxed_head_dim", row->relaxed_head_dim);
	ha_yaml_key_double(w, "relaxed_heads", row->relaxed_heads);
	if (grouped) {
		ha_yaml_key_uint(w, "kv_heads", row->kv_heads);
		ha_yaml_key_uint(w, "kv_dim", row->kv_dim);
		ha_yaml_key_uint(w, "kv_cache_bytes_per_token", row->kv_cache_bytes_per_token);
	}
	ha_yaml_end_map(w);
}

/* Write the rows of a batch; at is the first one's index. */
static void write_batch(struct ha_report *r, const struct ha_sweep_row *rows,
                        size_t count, size_t at, char *text, int grouped)
{
	int yaml = r->yaml != NULL, json = yaml && !r->yaml_text;
	/* One n has a row a budget: its YAML text is made once. */
	double samples_of_text = NAN;
	char samples_text[HA_FD_BUFSIZE + 2];
	size_t samples_length = 0;
	char *p = text;
	for (size_t k = 0; k < count; k++, at++) {
		const struct ha_sweep_row *row = &rows[k];
		if (!yaml) {
			p = put_text_row(p, row->budget, row->samples, row, grouped);
		} else if (at == 0 || json || grouped) {
			/* p == text: nothing is held before an emitted row */
			emit_row(r->yaml, row, grouped);
		} else {
			if (!(samples_of_text == row->samples)) {
				samples_length = (size_t)(yaml_flat_double(samples_text, row->samples) -
				                          samples_text);
				samples_of_text = row->samples;
			}
			p = put_yaml_row(p, row->budget, samples_text, samples_length, row);
		}
		if (k + 1 == count || (size_t)(p - text) > (TEXT_ROWS - 1) * ROW_MAX)
			flush(r, text, &p);
	}
}

/* Every row of the result, n outer (YAML: the key table and its list).
 * HA_OK, or the report's failure (the rows' reading back). */
static enum ha_status write_rows(struct ha_sweep_result *result,
                                 struct ha_report *r, struct ha_error *err)
{
	size_t total = ha_sweep_result_row_count(result);
	char *text = malloc(TEXT_ROWS * ROW_MAX);
	struct ha_sweep_row *rows = malloc(HA_SWEEP_BATCH_MAX * sizeof *rows);
	if (!text || !rows) {
		free(text);
		free(rows);
		return report_fail(r, err, HA_ENOMEM, "preparing the table: %s",
		                   ha_status_str(HA_ENOMEM));
	}
	int grouped = ha_sweep_result_request(result)->kv != NULL;
	if (r->yaml) {
		ha_yaml_key_seq(r->yaml, "table", 0);
	} else {
		fprintf(r->stream, "\n%20s %12s %20s %10s %13s %12s %16s %14s",
		        "budget", "samples", "heads", "head_dim", "mse", "log10_mse",
		        "relaxed_head_dim", "relaxed_heads");
		if (grouped)
			fprintf(r->stream, " %10s %12s %16s", "kv_heads", "kv_dim",
			        "cache_bytes");
		fputc('\n', r->stream);
	}
	enum ha_status st = HA_OK;
	/* A closed pipe need not cost the rest of a long table. */
	for (size_t written = 0; written < total && !report_write_failed(r);) {
		size_t count = total - written < HA_SWEEP_BATCH_MAX
		               ? total - written : HA_SWEEP_BATCH_MAX;
		struct ha_error why;
		ha_error_init(&why);
		enum ha_status read = ha_sweep_result_rows(result, written, count, rows, &why);
		if (read != HA_OK) {
			st = report_fail(r, err, read, "%s", why.message);
			break;
		}
		write_batch(r, rows, count, written, text, grouped);
		written += count;
	}
	free(text);
	free(rows);
	if (st == HA_OK && r->yaml)
		ha_yaml_end_seq(r->yaml);
	return st;
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
	st = write_rows(req->result, r, err);
	if (st == HA_OK)
		write_fits(req->result, r);
	if (st == HA_OK && !r->yaml)
		report_text_caution(r->stream, ha_sweep_result_request(req->result)->model);
	return st != HA_OK ? st : report_end(r, err);
}
