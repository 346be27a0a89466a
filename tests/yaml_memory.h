/* A YAML document written into memory by the library's writer, for the
 * suites that compare two ways of writing the same document byte for
 * byte: yaml_memory_open() starts the document's map, yaml_memory_close()
 * ends it after a last key (after: null, so that whatever was written
 * past the emitter is followed by the emitter's own bytes) and returns the
 * text (the caller frees it). */
#ifndef HEADALLOC_TESTS_YAML_MEMORY_H
#define HEADALLOC_TESTS_YAML_MEMORY_H

#include <stdio.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>
#include "report/yaml_writer.h"

struct yaml_memory {
	char *text;
	size_t size;
	FILE *stream;
	struct ha_yaml_writer *w;
};

static inline struct ha_yaml_writer *yaml_memory_open(struct yaml_memory *m)
{
	m->text = NULL;
	m->size = 0;
	m->stream = open_memstream(&m->text, &m->size);
	cr_assert_not_null(m->stream);
	cr_assert_eq(ha_yaml_writer_new(m->stream, &m->w), HA_OK);
	ha_yaml_begin_map(m->w, 0);
	return m->w;
}

static inline char *yaml_memory_close(struct yaml_memory *m)
{
	ha_yaml_key(m->w, "after");
	ha_yaml_null(m->w);
	ha_yaml_end_map(m->w);
	cr_assert_eq(ha_yaml_writer_end(m->w), HA_OK);
	ha_yaml_writer_free(m->w);
	cr_assert_eq(fclose(m->stream), 0);
	return m->text;
}

#endif
