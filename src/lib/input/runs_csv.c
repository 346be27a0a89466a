/* Runs files in CSV (runs.h has the format): a check of the whole text
 * (encoding, control characters, line ends), then a one-pass reader of
 * RFC 4180 records that copies only the cells of the five columns it
 * reads, each at most HA_RUNS_MAX_CELL bytes, so memory is the runs and
 * nothing else. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/model.h>
#include <headalloc/number.h>

#include "base/error_internal.h"
#include "runs_internal.h"

/* A cell quoted in a message: 40 bytes at most, then "...". */
#define QUOTE_MAX 40

struct csv {
	const unsigned char *p, *end;
	long line, column; /* of *p, 1-based; column in characters */
	const char *path;
	struct ha_error *err;
};

/* One cell as read: where it starts, and (when kept) its text. */
struct cell {
	long line, column;
	int quoted;
	size_t length;                     /* its full length in bytes */
	char text[HA_RUNS_MAX_CELL + 1];   /* the first bytes, NUL-terminated */
};

static enum ha_status fail_at(struct csv *c, long line, long column,
                              const char *fmt, ...) HA_PRINTF(4, 5);

static enum ha_status fail_at(struct csv *c, long line, long column,
                              const char *fmt, ...)
{
	char message[HA_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	if (vsnprintf(message, sizeof message, fmt, ap) < 0)
		message[0] = '\0';
	va_end(ap);
	ha_fail_at(c->err, HA_EFORMAT, line, column, "%s", message);
	if (c->err)
		c->err->file = c->path;
	return HA_EFORMAT;
}

/* ---- the text ---------------------------------------------------------- */

/* The length of the UTF-8 sequence at p (at most n bytes there), or 0
 * when it is not a valid one: no overlong forms, no surrogates, nothing
 * above U+10FFFF. */
static size_t utf8_length(const unsigned char *p, size_t n)
{
	unsigned char b = p[0];
	size_t len;
	uint32_t min, cp;
	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
		min = 0x80;
		cp = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		min = 0x800;
		cp = b & 0x0F;
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		min = 0x10000;
		cp = b & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* Every byte of the text: UTF-8, no control character but tab, and CR
 * only before LF.  Positions are counted as the reader counts them. */
static enum ha_status check_text(struct csv *c)
{
	long line = c->line, column = c->column;
	for (const unsigned char *p = c->p; p < c->end;) {
		unsigned char b = *p;
		if (b == '\n') {
			line++;
			column = 1;
			p++;
			continue;
		}
		if (b == '\r') {
			if (p + 1 == c->end || p[1] != '\n')
				return fail_at(c, line, column,
				               "expected a line feed after a carriage "
				               "return (lines end in LF or CRLF), found "
				               "a carriage return alone");
			p++;
			continue;
		}
		if (b == 0)
			return fail_at(c, line, column,
			               "expected text, found a NUL byte");
		if ((b < 0x20 && b != '\t') || b == 0x7F)
			return fail_at(c, line, column,
			               "expected text, found the control character "
			               "0x%02X", b);
		size_t len = utf8_length(p, (size_t)(c->end - p));
		if (len == 0)
			return fail_at(c, line, column,
			               "expected UTF-8 text, found the byte 0x%02X", b);
		p += len;
		column++;
	}
	return HA_OK;
}

/* ---- cells and records --------------------------------------------------- */

static int at_end(const struct csv *c)
{
	return c->p >= c->end;
}

/* At the end of a line (LF or CRLF) or of the text. */
static int at_line_end(const struct csv *c)
{
	return at_end(c) || *c->p == '\n' || *c->p == '\r';
}

/* Step over one character (a whole UTF-8 sequence, or a line end). */
static void advance(struct csv *c)
{
	if (*c->p == '\r')
		c->p++; /* checked: an LF follows */
	if (*c->p == '\n') {
		c->p++;
		c->line++;
		c->column = 1;
		return;
	}
	size_t len = utf8_length(c->p, (size_t)(c->end - c->p));
	c->p += len ? len : 1;
	c->column++;
}

static void skip_blanks(struct csv *c)
{
	while (!at_end(c) && (*c->p == ' ' || *c->p == '\t'))
		advance(c);
}

/* Skip the empty lines and the lines of blanks before a record. */
static void skip_blank_lines(struct csv *c)
{
	for (;;) {
		struct csv look = *c;
		skip_blanks(&look);
		if (!at_line_end(&look))
			return;
		if (at_end(&look)) {
			*c = look; /* a last line of blanks, without a line end */
			return;
		}
		advance(&look);
		*c = look;
	}
}

/* Keep byte b of a cell (its first HA_RUNS_MAX_CELL bytes). */
static void keep(struct cell *cell, const unsigned char *from, size_t n)
{
	for (size_t i = 0; i < n; i++, cell->length++)
		if (cell->length < HA_RUNS_MAX_CELL)
			cell->text[cell->length] = (char)from[i];
}

/* Read one cell, leaving c at the comma or line end after it.  Spaces
 * and tabs around an unquoted cell, and around the quotes of a quoted
 * one, are not part of it. */
static enum ha_status read_cell(struct csv *c, struct cell *cell)
{
	skip_blanks(c);
	cell->line = c->line;
	cell->column = c->column;
	cell->quoted = 0;
	cell->length = 0;
	if (!at_end(c) && *c->p == '"') {
		cell->quoted = 1;
		advance(c);
		for (;;) {
			if (at_end(c))
				return fail_at(c, cell->line, cell->column,
				               "expected a closing quote for this "
				               "cell, found the end of the file");
			if (*c->p == '"') {
				if (c->p + 1 < c->end && c->p[1] == '"') {
					keep(cell, c->p, 1);
					advance(c);
					advance(c);
					continue;
				}
				advance(c);
				break;
			}
			const unsigned char *from = c->p;
			advance(c);
			keep(cell, from, (size_t)(c->p - from));
		}
		skip_blanks(c);
		if (!at_line_end(c) && *c->p != ',')
			return fail_at(c, c->line, c->column,
			               "expected a comma or the end of the line "
			               "after a quoted cell, found '%c'",
			               *c->p < 0x80 ? (char)*c->p : '?');
	} else {
		size_t trailing = 0; /* blanks at the end so far */
		while (!at_line_end(c) && *c->p != ',') {
			if (*c->p == '"')
				return fail_at(c, c->line, c->column,
				               "expected a quote only around a whole "
				               "cell, found one inside an unquoted cell");
			const unsigned char *from = c->p;
			trailing = (*from == ' ' || *from == '\t') ? trailing + 1 : 0;
			advance(c);
			keep(cell, from, (size_t)(c->p - from));
		}
		cell->length -= trailing;
	}
	cell->text[cell->length < HA_RUNS_MAX_CELL ? cell->length
	                                            : HA_RUNS_MAX_CELL] = '\0';
	return HA_OK;
}

/* A cell for "found ...": "an empty cell", or its text quoted. */
static const char *describe(const struct cell *cell, char buf[QUOTE_MAX + 8])
{
	if (cell->length == 0)
		return cell->quoted ? "an empty quoted cell" : "an empty cell";
	size_t n = cell->length, shown = n > QUOTE_MAX ? QUOTE_MAX - 3 : n;
	if (shown > HA_RUNS_MAX_CELL)
		shown = HA_RUNS_MAX_CELL;
	/* Never cut a UTF-8 sequence. */
	while (shown < n && shown > 0 &&
	       ((unsigned char)cell->text[shown] & 0xC0) == 0x80)
		shown--;
	snprintf(buf, QUOTE_MAX + 8, "'%.*s%s'", (int)shown, cell->text,
	         shown < n ? "..." : "");
	return buf;
}

/* ---- the header ------------------------------------------------------------ */

struct header {
	size_t cells;                /* the row's width */
	size_t where[RUNS_COLUMNS];  /* each column's cell index, or SIZE_MAX */
	long line;
};

static enum ha_status read_header(struct csv *c, struct header *h)
{
	for (int k = 0; k < RUNS_COLUMNS; k++)
		h->where[k] = SIZE_MAX;
	h->cells = 0;
	h->line = c->line;
	static const char need[] =
		"a header row naming the columns heads, head_dim, samples and "
		"loss (and optionally loss_se)";
	if (at_end(c))
		return fail_at(c, c->line, c->column, "expected %s, found an "
		               "empty file", need);
	struct cell cell;
	long line0 = c->line, column0 = c->column;
	for (;;) {
		enum ha_status st = read_cell(c, &cell);
		if (st != HA_OK)
			return st;
		for (int k = 0; k < RUNS_COLUMNS; k++) {
			if (cell.length != strlen(runs_column_name[k]) ||
			    memcmp(cell.text, runs_column_name[k], cell.length) != 0)
				continue;
			if (h->where[k] != SIZE_MAX)
				return fail_at(c, cell.line, cell.column,
				               "header: expected each column once, "
				               "found '%s' again (column %zu)",
				               runs_column_name[k], h->where[k] + 1);
			h->where[k] = h->cells;
		}
		h->cells++;
		if (at_line_end(c))
			break;
		advance(c); /* the comma */
	}
	for (int k = 0; k < RUNS_LOSS_SE; k++)
		if (h->where[k] == SIZE_MAX)
			return fail_at(c, line0, column0,
			               "header: expected the column '%s' (%s), found "
			               "none", runs_column_name[k], need);
	if (!at_end(c))
		advance(c);
	return HA_OK;
}

/* ---- the rows ------------------------------------------------------------ */

/* The value of one kept cell into run. */
static enum ha_status cell_value(struct csv *c, size_t row, int k,
                                 const struct cell *cell, struct ha_run *run)
{
	char buf[QUOTE_MAX + 8];
	if (k == RUNS_LOSS_SE && cell->length == 0) {
		run->loss_se = NAN;
		return HA_OK;
	}
	int ok = cell->length <= HA_RUNS_MAX_CELL;
	double v = 0.0;
	uint64_t u = 0;
	if (ok && (k == RUNS_HEADS || k == RUNS_HEAD_DIM)) {
		ok = ha_parse_uint(cell->text, 1, HA_BUDGET_MAX, &u) == HA_OK;
		*(k == RUNS_HEADS ? &run->heads : &run->head_dim) = u;
	} else if (ok) {
		ok = ha_parse_real(cell->text, &v) == HA_OK && v > 0.0;
		if (k == RUNS_SAMPLES)
			ok = ok && v > 1.0 && v <= RUNS_SAMPLES_MAX;
		double *out[] = {NULL, NULL, &run->samples, &run->loss,
		                 &run->loss_se};
		*out[k] = v;
	}
	if (!ok)
		return fail_at(c, cell->line, cell->column,
		               "row %zu, %s: expected %s, found %s", row,
		               runs_column_name[k], runs_column_what[k],
		               describe(cell, buf));
	return HA_OK;
}

/* One data row into run; the header says which cells to keep. */
static enum ha_status read_row(struct csv *c, const struct header *h,
                               size_t row, struct ha_run *run)
{
	struct cell kept[RUNS_COLUMNS];
	struct cell cell;
	size_t i = 0;
	*run = (struct ha_run){0, 0, 0.0, 0.0, NAN};
	for (;; i++) {
		long line = c->line, column = c->column;
		enum ha_status st = read_cell(c, &cell);
		if (st != HA_OK)
			return st;
		if (i >= h->cells)
			return fail_at(c, line, column,
			               "row %zu: expected %zu cells as in the header, "
			               "found more", row, h->cells);
		for (int k = 0; k < RUNS_COLUMNS; k++)
			if (h->where[k] == i)
				kept[k] = cell;
		if (at_line_end(c))
			break;
		advance(c);
	}
	if (i + 1 < h->cells)
		return fail_at(c, c->line, c->column,
		               "row %zu: expected %zu cells as in the header, "
		               "found %zu", row, h->cells, i + 1);
	for (int k = 0; k < RUNS_COLUMNS; k++) {
		if (h->where[k] == SIZE_MAX)
			continue;
		enum ha_status st = cell_value(c, row, k, &kept[k], run);
		if (st != HA_OK)
			return st;
	}
	if (run->heads > HA_BUDGET_MAX / run->head_dim) {
		const struct cell *d = &kept[RUNS_HEAD_DIM];
		return fail_at(c, d->line, d->column,
		               "row %zu: expected heads * head_dim <= %llu, found "
		               "%llu * %llu", row, (unsigned long long)HA_BUDGET_MAX,
		               (unsigned long long)run->heads,
		               (unsigned long long)run->head_dim);
	}
	if (!at_end(c))
		advance(c);
	return HA_OK;
}

enum ha_status runs_parse_csv(const char *text, size_t length,
                              const char *path, struct ha_run **runs,
                              size_t *count, struct ha_error *err)
{
	struct csv c = {(const unsigned char *)text,
	                (const unsigned char *)text + length, 1, 1, path, err};
	static const unsigned char bom[] = {0xEF, 0xBB, 0xBF};
	if (length >= 3 && memcmp(c.p, bom, 3) == 0)
		c.p += 3;
	else if (length >= 2 && ((c.p[0] == 0xFF && c.p[1] == 0xFE) ||
	                         (c.p[0] == 0xFE && c.p[1] == 0xFF)))
		return fail_at(&c, 1, 1, "expected UTF-8 text, found a UTF-16 "
		               "byte-order mark");
	enum ha_status st = check_text(&c);
	if (st != HA_OK)
		return st;

	struct header h;
	skip_blank_lines(&c);
	st = read_header(&c, &h);
	if (st != HA_OK)
		return st;
	struct ha_run *out = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		skip_blank_lines(&c);
		if (at_end(&c))
			break;
		if (n == HA_RUNS_MAX) {
			st = fail_at(&c, c.line, c.column, "expected at most %zu runs, "
			             "found more", HA_RUNS_MAX);
			break;
		}
		if (n == cap) {
			size_t next = cap ? 2 * cap : 16;
			struct ha_run *p = realloc(out, next * sizeof *out);
			if (!p) {
				st = ha_fail(err, HA_ENOMEM, "out of memory");
				break;
			}
			out = p;
			cap = next;
		}
		st = read_row(&c, &h, n + 1, &out[n]);
		if (st != HA_OK)
			break;
		n++;
	}
	if (st == HA_OK && n == 0)
		st = fail_at(&c, h.line, 1, "expected at least one run after the "
		             "header row, found none");
	if (st != HA_OK) {
		free(out);
		return st;
	}
	*runs = out;
	*count = n;
	return HA_OK;
}
