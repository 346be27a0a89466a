/* The writer's fast path for long runs of items (library-internal, not
 * part of the public API: a caller's text must be the emitter's bytes,
 * which only the sweep's writers, tested byte for byte against the
 * emitter in tests/test_table.c, guarantee).  YAML only: in the JSON
 * syntax it fails with HA_EINVAL, and the report's long sections write
 * their items through the events instead (report->yaml_text says which). */
#ifndef HEADALLOC_YAML_WRITER_INTERNAL_H
#define HEADALLOC_YAML_WRITER_INTERNAL_H

#include <stddef.h>

#include <headalloc/yaml_writer.h>

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

#endif
