/* The sweep table's rows: read from the sweep's result (sweep.h) a batch
 * at a time, formatted here without printf.  A grouped sweep's rows
 * (ha_sweep_request.kv) add kv_heads, kv_dim and kv_cache_bytes_per_token
 * to the columns, and (each the cost of a solve over every divisor
 * triple) take the emitter in YAML.
 *
 * YAML rows after the first are formatted by the writer's fast path for
 * flat rows (yaml_flat_item: a new line, "- ", a flow map of plain
 * scalars with ", " between pairs) and written past it with yaml_writer_raw;
 * the first row goes through the emitter, which then knows the sequence
 * holds an item (an empty one it would write as []). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/format_double.h"
#include "report/report_internal.h"
#include "report/yaml_writer.h"

/* The most bytes one row's text takes: a YAML row is at most ~330 bytes
 * (eight keys, three integers, five doubles of at most 24 characters), a
 * text row at most ~490 (fixed widths, %.6f of a log10 at most 316, a
 * grouped row's three integers). */
#define ROW_MAX ((size_t)512)

/* Rows formatted before they are written together. */
#define TEXT_ROWS HA_SWEEP_BATCH_MAX

static char *put_uint(char *p, uint64_t value)
{
	return ha_fd_put_uint(p, value);
}

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
	return put_padded(p, digits, (size_t)(put_uint(digits, value) - digits),
	                  width);
}

/* printf's "%{width}.6g". */
static char *put_g6(char *p, double value, size_t width)
{
	char buf[HA_FD_BUFSIZE];
	return put_padded(p, buf, ha_fd_format_g(value, 6, buf), width);
}

/* printf's "%{width}.6f" (snprintf's own beyond ha_fd_format_f's reach:
 * a value of more than 16 digits before the point, or below 10^-6). */
static char *put_f6(char *p, double value, size_t width)
{
	char buf[400];
	size_t length = ha_fd_format_f(value, 6, buf);
	if (length == 0) {
		int n = snprintf(buf, sizeof buf, "%.6f", value);
		length = n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0;
	}
	return put_padded(p, buf, length, width);
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
	p = put_f6(p, report_log10(row->log_mse), 12);
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
		if (k + 1 == count || (size_t)(p - text) > (TEXT_ROWS - 1) * ROW_MAX) {
			if (p > text && yaml)
				yaml_writer_raw(r->yaml, text, (size_t)(p - text));
			else if (p > text)
				fwrite(text, 1, (size_t)(p - text), r->stream);
			p = text;
		}
	}
}

enum ha_status table_write_rows(struct ha_sweep_result *result,
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
