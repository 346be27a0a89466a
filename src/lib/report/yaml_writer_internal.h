/* The writer's fast paths for long runs of items (library-internal, not
 * part of the public API: a caller's text must be the emitter's bytes,
 * which only the sweep's writers, tested byte for byte against the
 * emitter in tests/test_table.c, guarantee).  YAML only: in the JSON
 * syntax it fails with HA_EINVAL, and the report's long sections write
 * their items through the events instead (report->yaml_text says which). */
#ifndef HEADALLOC_YAML_WRITER_INTERNAL_H
#define HEADALLOC_YAML_WRITER_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "report/yaml_writer.h"

#include "report/format_double.h"

struct ha_report_events;

/* A writer whose events go to the callbacks of events (report.h) with
 * ctx, in place of a syntax: ha_report_new_events's.  Errors as
 * ha_yaml_writer_new's; a callback's nonzero return is a sticky
 * HA_EIO, as a failed write.  yaml_writer_raw fails in it as in JSON. */
enum ha_status yaml_writer_new_events(const struct ha_report_events *events,
                                      void *ctx, struct ha_yaml_writer **out);

/* Write length bytes of text as they are, after everything emitted so
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
 * bytes of room); returns its end.  Inline here for yaml_flat_item. */
static inline char *yaml_flat_double_inline(char *p, double value)
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

char *yaml_flat_double(char *p, double value);

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
			p = yaml_flat_double_inline(p, v->double_value);
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
