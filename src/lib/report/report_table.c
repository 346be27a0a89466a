/* The sweep table: every row of a sweep's result (sweep.h), then the
 * scaling-law fits of headalloc-model(7), SCALING LAWS the sweep
 * computed.  The rows' writer is report_table_rows.c; this file calls it
 * and writes the fits.  Nothing here solves or fits. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report/format_double.h"

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
	ha_yaml_key_uint(r->yaml, "budget", req->budgets[b]);
	ha_yaml_key(r->yaml, "power_law");
	report_yaml_fit(r->yaml, &power);
	ha_yaml_key(r->yaml, "log_law");
	report_yaml_fit(r->yaml, &logarithmic);
	ha_yaml_end_map(r->yaml);
}

/* An item's text besides its fit: "\n  - samples: N\n    heads_law:" in
 * YAML, the label in text. */
#define ITEM_EXTRA ((size_t)96)

/* Per-n fits read from the result, formatted, then written together. */
#define FITS_BATCH ((size_t)128)

static char *put_text(char *p, const char *text)
{
	size_t length = strlen(text);
	memcpy(p, text, length);
	return p + length;
}

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
			struct report_law_fit f;
			double n = fits[k].samples;
			report_law_fit_of(&f, LAW_HEADS_POWER, &fits[k].heads_law);
			if (!yaml) {
				/* "samples %.6g" */
				char label[64] = "samples ";
				ha_fd_format_g(n, 6, label + 8);
				p = report_text_fit_buf(p, label, &f);
			} else if (at > 0 && f.status == HA_OK && !json) {
				char buf[32];
				p = put_text(p, "\n  - samples: ");
				p = put_text(p, ha_yaml_double_text(n, buf));
				p = put_text(p, "\n    heads_law:");
				p = report_raw_fit(p, 6, &f);
			} else {
				/* Through the emitter, after the text before it. */
				flush(r, text, &p);
				ha_yaml_begin_map(r->yaml, 0);
				ha_yaml_key_double(r->yaml, "samples", n);
				ha_yaml_key(r->yaml, "heads_law");
				report_yaml_fit(r->yaml, &f);
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
