/* The sweep's per-n fits, ln H* = ln c + e ln D over the budgets at each
 * n (headalloc-model(7), SCALING LAWS), written as the sweep's result
 * (sweep.h) makes them: one a value of n, so as many as the table has
 * points.
 *
 * A fit's YAML after the first is written past the emitter, as raw text:
 * an item of the block sequence by_samples, "\n  - samples: N\n
 * heads_law:" and the fit's map (report_raw_fit), exactly the emitter's
 * bytes.  The first item, and a fit that failed (reported in words), go
 * through the emitter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/format_double.h"
#include "report/report_table.h"

/* An item's text besides its fit: "\n  - samples: N\n    heads_law:" in
 * YAML, the label in text. */
#define ITEM_EXTRA ((size_t)96)

/* Items formatted before they are written together. */
#define TEXT_ITEMS ((size_t)128)

static char *put_text(char *p, const char *text)
{
	size_t length = strlen(text);
	memcpy(p, text, length);
	return p + length;
}

static void emit_point(struct ha_yaml_writer *w, double n,
                       const struct report_law_fit *f)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, n);
	ha_yaml_key(w, "heads_law");
	report_yaml_fit(w, f);
	ha_yaml_end_map(w);
}

static void flush(struct ha_report *r, const char *text, char **p)
{
	if (*p > text && r->yaml)
		yaml_writer_raw(r->yaml, text, (size_t)(*p - text));
	else if (*p > text)
		fwrite(text, 1, (size_t)(*p - text), r->stream);
	*p = (char *)text;
}

/* Per-n fits read from the result at a time. */
#define FITS_BATCH ((size_t)128)

void table_write_samples_fits(struct ha_sweep_result *result, struct ha_report *r)
{
	int yaml = r->yaml != NULL, json = yaml && !r->yaml_text;
	size_t item = (yaml ? REPORT_RAW_FIT_MAX : REPORT_TEXT_FIT_MAX) + ITEM_EXTRA;
	const struct ha_sweep_request *req = ha_sweep_result_request(result);
	size_t points = req->budget_count > 1 ? req->samples.count : 0;
	char *text = malloc(TEXT_ITEMS * item);
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
				emit_point(r->yaml, n, &f);
			}
			if ((size_t)(p - text) > (TEXT_ITEMS - 1) * item)
				flush(r, text, &p);
		}
		flush(r, text, &p);
	}
	free(text);
	free(fits);
}
