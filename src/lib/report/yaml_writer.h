/* headalloc — the one writer of machine-readable reports: YAML over
 * libyaml's emitter, or the same events as JSON (ha_yaml_writer_new_json).
 *
 * Block style by default; errors are sticky: after the first failure every
 * call is a no-op and ha_yaml_writer_end() reports it.  Floats are
 * written in the shortest form that reads back as the same double;
 * infinities as .inf / -.inf. */
#ifndef HEADALLOC_INTERNAL_YAML_WRITER_H
#define HEADALLOC_INTERNAL_YAML_WRITER_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <headalloc/report.h>
#include <headalloc/status.h>

#include "report/format_double.h"

struct ha_yaml_writer;

/* Start a YAML stream and one document on stream (not closed by the
 * writer).  HA_EINVAL for a NULL argument, HA_ENOMEM when the writer
 * cannot be allocated (then *out is NULL).  A failure to emit the stream
 * start is sticky and reported by ha_yaml_writer_end(). */
enum ha_status ha_yaml_writer_new(FILE *stream, struct ha_yaml_writer **out);

/* The same writer in the JSON syntax (RFC 8259): every call below writes
 * the same document as JSON, streamed as it is written (maps as objects,
 * sequences as arrays, the flow ones on one line, the block ones a line
 * an item, indented by two spaces); doubles beyond a double (the YAML's
 * .inf, -.inf, .nan) are null.  Calls out of order (a value in a map
 * without its key, an end that closes nothing) are HA_EINVAL, sticky.
 * Errors as ha_yaml_writer_new's. */
enum ha_status ha_yaml_writer_new_json(FILE *stream,
                                       struct ha_yaml_writer **out);

/* End the document and the stream, flush, and report the first error of
 * the writer's life (HA_EIO when the emitter or the stream failed).  The
 * writer is still to be freed. */
enum ha_status ha_yaml_writer_end(struct ha_yaml_writer *w);

/* Free the writer (NULL accepted); does not close the stream. */
void ha_yaml_writer_free(struct ha_yaml_writer *w);

/* Containers.  flow != 0 writes [a, b] / {k: v} on one line. */
void ha_yaml_begin_map(struct ha_yaml_writer *w, int flow);
void ha_yaml_end_map(struct ha_yaml_writer *w);
void ha_yaml_begin_seq(struct ha_yaml_writer *w, int flow);
void ha_yaml_end_seq(struct ha_yaml_writer *w);

/* Scalars.  Inside a map, write a key with ha_yaml_key then its value. */
void ha_yaml_key(struct ha_yaml_writer *w, const char *key);
void ha_yaml_string(struct ha_yaml_writer *w, const char *value);
void ha_yaml_uint(struct ha_yaml_writer *w, uint64_t value);
void ha_yaml_double(struct ha_yaml_writer *w, double value);
void ha_yaml_bool(struct ha_yaml_writer *w, int value);
void ha_yaml_null(struct ha_yaml_writer *w);

/* A key and its scalar value in one call, inside a map: most of a
 * report is such pairs. */
void ha_yaml_key_string(struct ha_yaml_writer *w, const char *key,
                        const char *value);
void ha_yaml_key_uint(struct ha_yaml_writer *w, const char *key, uint64_t value);
void ha_yaml_key_double(struct ha_yaml_writer *w, const char *key, double value);
void ha_yaml_key_bool(struct ha_yaml_writer *w, const char *key, int value);

/* A key and the map or sequence that is its value, opened in one call;
 * with key NULL, a map or sequence that is an item of a sequence. */
void ha_yaml_key_map(struct ha_yaml_writer *w, const char *key, int flow);
void ha_yaml_key_seq(struct ha_yaml_writer *w, const char *key, int flow);

/* The key, then null for its value when defined is 0.  Returns defined:
 * when it is not 0, the caller writes the value. */
int yaml_key_defined(struct ha_yaml_writer *w, const char *key, int defined);

/* A key and its value, or null when defined is 0. */
void yaml_maybe(struct ha_yaml_writer *w, const char *key, int defined, double value);
void yaml_maybe_uint(struct ha_yaml_writer *w, const char *key, int defined,
                     uint64_t value);

/* The plain scalar ha_yaml_double writes for value: ha_format_double's
 * text, or .nan, .inf, -.inf.  Returns buf (at least 32 bytes). */
const char *ha_yaml_double_text(double value, char buf[32]);

/* The status so far (HA_OK until something failed). */
enum ha_status ha_yaml_writer_status(const struct ha_yaml_writer *w);

/* Format a double in the shortest "%.{15,16,17}g" form that strtod reads
 * back exactly, with a dot in every mantissa (1.0e+08, 3.0: YAML 1.1
 * readers such as PyYAML take a float only so), into buf (at least 32
 * bytes); "inf", "-inf", "nan" for the non-finite.  Returns buf. */
char *ha_format_double(double value, char buf[32]);

/* The values of a report as events instead of text, for a front end
 * that builds its own objects (the Python package's dicts; the tests
 * compare them with the YAML report): the document's maps and
 * sequences, keys, and each scalar typed as the report has it (a double
 * as the double, never its text).  The events are those of the YAML
 * document, the document itself one map.  Each callback returns 0 to go
 * on, anything else to fail the report as a failed write does (HA_EIO,
 * "writing the report failed"): no event follows. */
struct ha_report_events {
	int (*begin)(void *ctx, int map); /* a map (1) or a sequence (0) opens */
	int (*end)(void *ctx);            /* the innermost one closes */
	int (*key)(void *ctx, const char *key);
	int (*string)(void *ctx, const char *value);
	int (*uint)(void *ctx, uint64_t value);
	int (*real)(void *ctx, double value);
	int (*boolean)(void *ctx, int value);
	int (*null)(void *ctx);
};

/* Start a report whose values go to events (every callback required,
 * called on the calling thread with ctx) rather than to a stream; the
 * sections write to it as to a YAML report.  Errors as ha_report_new's. */
enum ha_status ha_report_new_events(const struct ha_report_events *events,
                                    void *ctx, struct ha_report **out);

/* A writer whose events go to the callbacks of events with
 * ctx, in place of a syntax: ha_report_new_events's.  Errors as
 * ha_yaml_writer_new's; a callback's nonzero return is a sticky
 * HA_EIO, as a failed write.  yaml_writer_raw fails in it as in JSON. */
enum ha_status yaml_writer_new_events(const struct ha_report_events *events,
                                      void *ctx, struct ha_yaml_writer **out);

/* The writer's fast paths for long runs of items (library-internal: a
 * caller's text must be the emitter's bytes, which only the sweep's
 * writers, tested byte for byte against the emitter in
 * tests/test_table.c, guarantee).  YAML only: in the JSON syntax it
 * fails with HA_EINVAL, and the report's long sections write their items
 * through the events instead (report->yaml_text says which).
 *
 * Write length bytes of text as they are, after everything emitted so
 * far, bypassing the emitter (which is flushed first and never learns of
 * them).  For long runs of items a caller formats itself, such as the
 * rows of a sweep: text must be exactly what the emitter would write
 * there, and leave the document where the emitter believes it is.  Items
 * of a block sequence do both once the sequence holds one item emitted
 * the ordinary way: each further item is "\n" + its indentation + "- " +
 * the item, the emitter writes any next event from a new line either way,
 * and it never wraps a line (its width is unlimited).  A failure to write
 * is sticky, like any other. */
void yaml_writer_raw(struct ha_yaml_writer *w, const char *text, size_t length);

/* The fast path for flat rows: an item after the first of a block
 * sequence at indentation 0 whose items are flow maps of plain scalars
 * (a sweep's table), formatted as the emitter writes it,
 *
 *     "\n- {" key ": " value (", " key ": " value)* "}",
 *
 * into the caller's buffer (any thread: no writer is involved), for
 * yaml_writer_raw.  Keys must be plain scalars that need no quotes
 * (identifiers); values are unsigned integers, doubles as ha_yaml_double
 * writes them in YAML (.nan, .inf, -.inf, a dot in every mantissa), or
 * text made by yaml_flat_double earlier.  Tested byte for byte against
 * the emitter on random tables (tests/test_yaml_writer.c). */
struct yaml_flat_key {
	char text[32]; /* the key, zero-padded: copied whole (a key < 32 bytes) */
	size_t length;
};
#define YAML_FLAT_KEY(literal) {literal, sizeof(literal) - 1}

enum yaml_flat_kind { YAML_FLAT_UINT, YAML_FLAT_DOUBLE, YAML_FLAT_TEXT };
struct yaml_flat_value {
	enum yaml_flat_kind kind;
	uint64_t uint_value;
	double double_value;
	const char *text; /* YAML_FLAT_TEXT: length bytes */
	size_t length;
};

/* The most bytes yaml_flat_double writes (no NUL), and the most a value
 * takes in an item: a double's text. */
#define YAML_FLAT_DOUBLE_MAX ((size_t)26)

/* A string literal, its length known to the compiler. */
#define YAML_FLAT_LITERAL(p, literal) \
	(memcpy((p), (literal), sizeof(literal) - 1), (p) + sizeof(literal) - 1)

/* ha_yaml_double_text(value) written at p (YAML_FLAT_DOUBLE_MAX + 6
 * bytes of room), no NUL; returns its end.  Inline for yaml_flat_item. */
static inline char *yaml_flat_double(char *p, double value)
{
	if (!isfinite(value)) {
		if (isnan(value))
			return YAML_FLAT_LITERAL(p, ".nan");
		return value > 0 ? YAML_FLAT_LITERAL(p, ".inf")
		                 : YAML_FLAT_LITERAL(p, "-.inf");
	}
	/* ha_format_double in place (HA_FD_BUFSIZE bytes of room). */
	return p + ha_fd_format_dotted(value, p);
}

/* The item at p: room for 7 + Σ(key length + 4 + YAML_FLAT_DOUBLE_MAX +
 * 6) bytes (text values: their length) and 32 more (each key is copied
 * whole); returns its end.  Inline, so that a caller's constant keys and
 * kinds (a sweep's row) compile to straight-line code: no loop, no
 * switch. */
static inline char *yaml_flat_item(char *p, const struct yaml_flat_key *keys,
                                   const struct yaml_flat_value *values,
                                   size_t count)
{
	p = YAML_FLAT_LITERAL(p, "\n- {");
/* gcc only: clang's pragma warns where count is not constant; and not
 * under gcc's sanitizers, whose instrumented unrolled copies past count
 * draw a false -Warray-bounds on the keys. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#pragma GCC unroll 16
#endif
	for (size_t i = 0; i < count; i++) {
		if (i > 0)
			p = YAML_FLAT_LITERAL(p, ", ");
		/* All 32 bytes: a copy of fixed size, within the key's room
		 * (its length + 36 bytes or more, see above). */
		memcpy(p, keys[i].text, sizeof keys[i].text);
		p = YAML_FLAT_LITERAL(p + keys[i].length, ": ");
		const struct yaml_flat_value *v = &values[i];
		switch (v->kind) {
		case YAML_FLAT_UINT:
			p = ha_fd_put_uint(p, v->uint_value);
			break;
		case YAML_FLAT_DOUBLE:
			p = yaml_flat_double(p, v->double_value);
			break;
		case YAML_FLAT_TEXT:
			memcpy(p, v->text, v->length);
			p += v->length;
			break;
		}
	}
	return YAML_FLAT_LITERAL(p, "}");
}

#endif
