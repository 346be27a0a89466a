/* Runs files in CSV (runs.h has the format): a check of the whole text
 * (encoding, control characters, line ends), then libcsv (RFC 4180, its
 * strict mode) reads the records; this file keeps the positions.  libcsv
 * holds one cell at a time; of a data row only the cells of the columns
 * read are copied, each's first HA_RUNS_MAX_CELL bytes, so memory is the
 * runs and one cell.
 *
 * Positions: libcsv reports a cell when it meets the comma or line end
 * after it, and a record at its line end.  The text is fed to it in runs
 * of bytes that are none of , " CR LF (none of which ends a cell) and
 * those bytes one at a time, so the line and column of every report, and
 * of the byte a strict-mode error stops at, are known here.  A cell
 * starts at its first byte that is not a space or tab (as libcsv trims
 * them). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include <headalloc/model.h>
#include "base/number.h"
#include "base/text.h"

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

/* A refusal already in err (runs_rules.c's words) placed at line and
 * column of the file: status. */
static enum ha_status placed(struct csv *c, long line, long column,
                             enum ha_status status)
{
	if (c->err) {
		c->err->line = line;
		c->err->column = column;
		c->err->file = c->path;
	}
	return status;
}

/* "FMT..." at line and column of the file, HA_EFORMAT. */
#define fail_at(c, line, column, ...) \
	placed((c), (line), (column), \
	       ha_fail((c)->err, HA_EFORMAT, __VA_ARGS__))

/* ---- the text ---------------------------------------------------------- */

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
		size_t len = ha_utf8_length(p, (size_t)(c->end - p));
		if (len == 0)
			return fail_at(c, line, column,
			               "expected UTF-8 text, found the byte 0x%02X", b);
		p += len;
		column++;
	}
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

/* ---- the reader's state ---------------------------------------------------- */

struct reader {
	struct csv c;            /* line, column: of the byte being fed */
	const char *name[HA_RUNS_KEYS]; /* each key's header name */
	int mapped[HA_RUNS_KEYS];       /* named by the caller */
	int fresh;               /* no byte of the current cell seen yet */
	long start_line, start_column; /* the current cell's first byte */
	int quoted;              /* the current cell began with a quote */
	size_t field;            /* the current cell's index in its row */
	int header_done;
	long header_line;
	size_t cells;            /* the header's width */
	size_t where[HA_RUNS_KEYS]; /* each key's cell index, or SIZE_MAX */
	struct cell kept[HA_RUNS_KEYS];
	struct ha_run *out;
	size_t n, cap;
	enum ha_status st;
	int pool;                /* a pool: the loss key reads the cost column */
	const char *loss_name;   /* a pool's refused loss column */
};

static void stop(struct reader *r, enum ha_status st)
{
	if (r->st == HA_OK)
		r->st = st;
}

/* ---- the header ------------------------------------------------------------ */

static void header_cell(struct reader *r, const char *text, size_t length)
{
	if (r->pool && length == strlen(r->loss_name) &&
	    memcmp(text, r->loss_name, length) == 0) {
		stop(r, fail_at(&r->c, r->start_line, r->start_column,
		                "header: expected no column '%s' in a pool (its runs "
		                "are not trained yet), found one", r->loss_name));
		return;
	}
	for (int k = 0; k < HA_RUNS_KEYS; k++) {
		if (length != strlen(r->name[k]) ||
		    memcmp(text, r->name[k], length) != 0)
			continue;
		if (r->where[k] != SIZE_MAX) {
			stop(r, fail_at(&r->c, r->start_line, r->start_column,
			                "header: expected each column once, found "
			                "'%s' again (column %zu)", r->name[k],
			                r->where[k] + 1));
			return;
		}
		r->where[k] = r->field;
	}
}

static void header_end(struct reader *r)
{
	r->cells = r->field;
	r->header_done = 1;
	struct runs_header h = {.pool = r->pool};
	for (int k = 0; k < HA_RUNS_KEYS; k++) {
		h.name[k] = r->name[k];
		h.mapped[k] = r->mapped[k];
		h.present[k] = r->where[k] != SIZE_MAX;
	}
	if (runs_header_check(&h, r->c.err) != HA_OK)
		stop(r, placed(&r->c, r->header_line, 1, HA_EFORMAT));
}

/* ---- the rows ------------------------------------------------------------ */

/* The value of kept cell k of row into run (model_dim into *width). */
static enum ha_status cell_value(struct reader *r, size_t row, int k,
                                 struct ha_run *run, uint64_t *width)
{
	const struct cell *cell = &r->kept[k];
	char buf[QUOTE_MAX + 8];
	if (k == HA_RUNS_KEY_LOSS_SE && cell->length == 0) {
		run->loss_se = NAN;
		return HA_OK;
	}
	if (k == HA_RUNS_KEY_KV_HEADS && cell->length == 0)
		return HA_OK; /* heads, set by row_values */
	if (r->pool && k == HA_RUNS_KEY_LOSS && cell->length == 0)
		return HA_OK; /* no cost: NaN, set by row_values */
	int ok = cell->length <= HA_RUNS_MAX_CELL;
	double v = 0.0;
	uint64_t u = 0;
	const char *what = runs_key_what[k];
	if (ok && (k <= HA_RUNS_KEY_MODEL_DIM || k == HA_RUNS_KEY_KV_HEADS)) {
		ok = ha_parse_uint(cell->text, 1, HA_BUDGET_MAX, &u) == HA_OK;
		*(k == HA_RUNS_KEY_HEADS      ? &run->heads
		  : k == HA_RUNS_KEY_HEAD_DIM ? &run->head_dim
		  : k == HA_RUNS_KEY_KV_HEADS ? &run->kv_heads
		                              : width) = u;
	} else if (ok) {
		enum ha_status parsed = ha_parse_real(cell->text, &v);
		if (parsed == HA_EINVAL) /* the grammar's, but overflows */
			return fail_at(&r->c, cell->line, cell->column,
			               "row %zu, %s: %s is beyond a double (at most %g "
			               "in magnitude)", row, ha_runs_key_str(k),
			               describe(cell, buf), DBL_MAX);
		ok = parsed == HA_OK && v > 0.0;
		if (k == HA_RUNS_KEY_SAMPLES)
			ok = ok && v > 1.0 && v <= RUNS_SAMPLES_MAX;
		*(k == HA_RUNS_KEY_SAMPLES ? &run->samples
		  : k == HA_RUNS_KEY_LOSS  ? &run->loss
		                           : &run->loss_se) = v;
	}
	if (!ok) {
		runs_bad_value(r->c.err, row,
		               r->pool && k == HA_RUNS_KEY_LOSS ? "cost"
		                                                : ha_runs_key_str(k),
		               what, describe(cell, buf));
		return placed(&r->c, cell->line, cell->column, HA_EFORMAT);
	}
	return HA_OK;
}

static enum ha_status row_values(struct reader *r, size_t row, struct ha_run *run)
{
	*run = (struct ha_run){0, 0, 0.0, r->pool ? NAN : 0.0, NAN, 0};
	uint64_t width = 0;
	for (int k = 0; k < HA_RUNS_KEYS; k++) {
		if (r->where[k] == SIZE_MAX)
			continue;
		enum ha_status st = cell_value(r, row, k, run, &width);
		if (st != HA_OK)
			return st;
	}
	char buf[QUOTE_MAX + 8];
	enum ha_runs_key at;
	int has_width = r->where[HA_RUNS_KEY_MODEL_DIM] != SIZE_MAX;
	if (runs_join(row, run, r->where[HA_RUNS_KEY_HEAD_DIM] != SIZE_MAX,
	              has_width, width,
	              has_width ? describe(&r->kept[HA_RUNS_KEY_MODEL_DIM], buf) : "",
	              &at, r->c.err) != HA_OK)
		return placed(&r->c, r->kept[at].line, r->kept[at].column,
		              HA_EFORMAT);
	return HA_OK;
}

/* The first row of a run: room for it. */
static void row_begin(struct reader *r)
{
	if (r->n == HA_RUNS_MAX) {
		stop(r, fail_at(&r->c, r->start_line, 1, "expected at most %zu "
		                "runs, found more", HA_RUNS_MAX));
		return;
	}
	if (r->n < r->cap)
		return;
	size_t next = r->cap ? 2 * r->cap : 16;
	struct ha_run *p = realloc(r->out, next * sizeof *p);
	if (!p) {
		stop(r, ha_fail(r->c.err, HA_ENOMEM, "out of memory"));
		return;
	}
	r->out = p;
	r->cap = next;
}

/* ---- libcsv's callbacks ------------------------------------------------------ */

static void on_cell(void *data, size_t length, void *ctx)
{
	struct reader *r = ctx;
	const char *text = data ? data : "";
	if (r->st != HA_OK)
		return;
	if (!r->header_done) {
		if (r->field == 0)
			r->header_line = r->start_line;
		header_cell(r, text, length);
	} else {
		if (r->field == 0)
			row_begin(r);
		if (r->st == HA_OK && r->field >= r->cells)
			stop(r, fail_at(&r->c, r->start_line, r->start_column,
			                "row %zu: expected %zu cells as in the header, "
			                "found more", r->n + 1, r->cells));
		for (int k = 0; r->st == HA_OK && k < HA_RUNS_KEYS; k++) {
			if (r->where[k] != r->field)
				continue;
			struct cell *cell = &r->kept[k];
			cell->line = r->start_line;
			cell->column = r->start_column;
			cell->quoted = r->quoted;
			cell->length = length;
			size_t n = length < HA_RUNS_MAX_CELL ? length : HA_RUNS_MAX_CELL;
			memcpy(cell->text, text, n);
			cell->text[n] = '\0';
		}
	}
	r->field++;
	r->fresh = 1;
}

static void on_record(int terminator, void *ctx)
{
	(void)terminator;
	struct reader *r = ctx;
	if (r->st != HA_OK)
		return;
	if (!r->header_done) {
		header_end(r);
	} else if (r->field < r->cells) {
		stop(r, fail_at(&r->c, r->c.line, r->c.column,
		                "row %zu: expected %zu cells as in the header, "
		                "found %zu", r->n + 1, r->cells, r->field));
	} else {
		enum ha_status st = row_values(r, r->n + 1, &r->out[r->n]);
		if (st != HA_OK)
			stop(r, st);
		else
			r->n++;
	}
	r->field = 0;
	r->fresh = 1;
}

/* ---- feeding libcsv ---------------------------------------------------------- */

static int special(unsigned char b)
{
	return b == ',' || b == '"' || b == '\r' || b == '\n';
}

/* libcsv stopped at byte at (strict mode) or ran out of memory. */
static void parse_error(struct reader *r, struct csv_parser *p,
                        const unsigned char *from, const unsigned char *at,
                        long column)
{
	if (csv_error(p) != CSV_EPARSE) {
		stop(r, ha_fail(r->c.err, HA_ENOMEM, "out of memory"));
		return;
	}
	for (const unsigned char *q = from; q < at; q++)
		column += (*q & 0xC0) != 0x80;
	if (r->quoted)
		stop(r, fail_at(&r->c, r->c.line, column,
		                "expected a comma or the end of the line after a "
		                "quoted cell, found '%c'",
		                *at < 0x80 ? (char)*at : '?'));
	else
		stop(r, fail_at(&r->c, r->c.line, column,
		                "expected a quote only around a whole cell, found "
		                "one inside an unquoted cell"));
}

static void feed(struct reader *r, struct csv_parser *p)
{
	const unsigned char *s = r->c.p, *end = r->c.end;
	while (s < end && r->st == HA_OK) {
		unsigned char b = *s;
		if (special(b)) {
			if (r->fresh) {
				r->start_line = r->c.line;
				r->start_column = r->c.column;
				r->quoted = b == '"';
				r->fresh = b != '"';
			}
			if (csv_parse(p, s, 1, on_cell, on_record, r) != 1) {
				parse_error(r, p, s, s, r->c.column);
				return;
			}
			if (b == '\n') {
				r->c.line++;
				r->c.column = 1;
			} else if (b != '\r') {
				r->c.column++; /* checked: an LF follows a CR */
			}
			s++;
			continue;
		}
		const unsigned char *q = s;
		long column = r->c.column;
		for (; q < end && !special(*q); q++) {
			if (r->fresh && *q != ' ' && *q != '\t') {
				r->start_line = r->c.line;
				r->start_column = r->c.column;
				r->quoted = 0;
				r->fresh = 0;
			}
			r->c.column += (*q & 0xC0) != 0x80;
		}
		size_t n = (size_t)(q - s);
		size_t done = csv_parse(p, s, n, on_cell, on_record, r);
		if (done != n) {
			parse_error(r, p, s, s + done, column);
			return;
		}
		s = q;
	}
	if (r->st != HA_OK)
		return;
	if (r->fresh) {
		r->start_line = r->c.line;
		r->start_column = r->c.column;
	}
	if (csv_fini(p, on_cell, on_record, r) != 0 && r->st == HA_OK) {
		if (csv_error(p) == CSV_EPARSE)
			stop(r, fail_at(&r->c, r->start_line, r->start_column,
			                "expected a closing quote for this cell, found "
			                "the end of the file"));
		else
			stop(r, ha_fail(r->c.err, HA_ENOMEM, "out of memory"));
	}
}

enum ha_status runs_parse_csv(const char *text, size_t length,
                              const char *path,
                              const struct ha_runs_names *names, int pool,
                              struct ha_run **runs, size_t *count,
                              struct ha_error *err)
{
	struct reader r = {
		.c = {(const unsigned char *)text,
		      (const unsigned char *)text + length, 1, 1, path, err},
		.fresh = 1,
	};
	for (int k = 0; k < HA_RUNS_KEYS; k++) {
		r.mapped[k] = names && names->name[k][0];
		r.name[k] = r.mapped[k] ? names->name[k]
		                        : ha_runs_key_str((enum ha_runs_key)k);
		r.where[k] = SIZE_MAX;
	}
	if (pool) {
		r.pool = 1;
		r.loss_name = r.name[HA_RUNS_KEY_LOSS];
		r.name[HA_RUNS_KEY_LOSS] = "cost";
		r.mapped[HA_RUNS_KEY_LOSS] = 0;
	}
	if (names && ha_runs_names_check(names, err) != HA_OK)
		return HA_EINVAL;
	static const unsigned char bom[] = {0xEF, 0xBB, 0xBF};
	if (length >= 3 && memcmp(r.c.p, bom, 3) == 0)
		r.c.p += 3;
	else if (length >= 2 && ((r.c.p[0] == 0xFF && r.c.p[1] == 0xFE) ||
	                         (r.c.p[0] == 0xFE && r.c.p[1] == 0xFF)))
		return fail_at(&r.c, 1, 1, "expected UTF-8 text, found a UTF-16 "
		               "byte-order mark");
	enum ha_status st = check_text(&r.c);
	if (st != HA_OK)
		return st;
	struct csv_parser p;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	feed(&r, &p);
	csv_free(&p);
	if (r.st == HA_OK && !r.header_done)
		stop(&r, fail_at(&r.c, r.c.line, r.c.column, "expected %s, found an "
		                 "empty file", runs_header_need));
	if (r.st == HA_OK && r.n == 0)
		stop(&r, fail_at(&r.c, r.header_line, 1, "expected at least one run "
		                 "after the header row, found none"));
	if (r.st != HA_OK) {
		free(r.out);
		return r.st;
	}
	*runs = r.out;
	*count = r.n;
	return HA_OK;
}
