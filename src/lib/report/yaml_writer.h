/* headalloc — the one writer of machine-readable reports: YAML over
 * libyaml's emitter, or the same events as JSON (ha_yaml_writer_new_json).
 *
 * Block style by default; errors are sticky: after the first failure every
 * call is a no-op and ha_yaml_writer_end() reports it.  Floats are
 * written in the shortest form that reads back as the same double;
 * infinities as .inf / -.inf. */
#ifndef HEADALLOC_INTERNAL_YAML_WRITER_H
#define HEADALLOC_INTERNAL_YAML_WRITER_H

#include <stdint.h>
#include <stdio.h>

#include <headalloc/status.h>

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

/* The plain scalar ha_yaml_double writes for value: ha_format_double's
 * text, or .nan, .inf, -.inf.  Returns buf (at least 32 bytes). */
const char *ha_yaml_double_text(double value, char buf[32]);

/* The status so far (HA_OK until something failed). */
enum ha_status ha_yaml_writer_status(const struct ha_yaml_writer *w);

/* Format a double in the shortest "%.{15,16,17}g" form that strtod reads
 * back exactly, into buf (at least 32 bytes); "inf", "-inf", "nan" for the
 * non-finite.  Returns buf. */
char *ha_format_double(double value, char buf[32]);

#endif
