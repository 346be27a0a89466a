/* What the report suites share: a report written into memory (its
 * sections given as a function), and a YAML report read back with libyaml
 * at dotted paths (yaml_path.h). */
#ifndef HEADALLOC_TESTS_REPORT_READBACK_H
#define HEADALLOC_TESTS_REPORT_READBACK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

#include <headalloc/headalloc.h>

#include "yaml_path.h"

/* ---- writing into memory ------------------------------------------------ */

/* The sections of one report. */
typedef enum ha_status (*sections_fn)(struct ha_report *r, const void *ctx,
                                      struct ha_error *err);

/* Write a report into a new string (the caller frees it); the report's
 * final status must be HA_OK. */
static inline char *render(enum ha_report_format format, sections_fn sections,
                    const void *ctx)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_report *r = NULL;
	struct ha_error err;
	cr_assert_eq(ha_report_new(f, format, &r), HA_OK);
	enum ha_status st = sections(r, ctx, &err);
	cr_assert_eq(st, HA_OK, "%s", err.message);
	cr_assert_eq(ha_report_end(r), HA_OK);
	ha_report_free(r);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* ---- reading YAML back ------------------------------------------------------ */

static inline void load(const char *text, yaml_document_t *doc)
{
	yaml_parser_t parser;
	cr_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	                             strlen(text));
	cr_assert(yaml_parser_load(&parser, doc), "not YAML: %s", text);
	yaml_parser_delete(&parser);
	yaml_node_t *root = yaml_document_get_root_node(doc);
	cr_assert_not_null(root);
	cr_assert_eq(root->type, YAML_MAPPING_NODE);
}

static inline yaml_node_t *at(yaml_document_t *doc, const char *path)
{
	yaml_node_t *node = yaml_path(doc, yaml_document_get_root_node(doc), path);
	cr_assert_not_null(node, "no %s", path);
	return node;
}

static inline uint64_t uint_at(yaml_document_t *doc, const char *path)
{
	const char *s = str_at(doc, path);
	char *end;
	uint64_t v = strtoull(s, &end, 10);
	cr_assert(*s && !*end, "%s: '%s' is not an integer", path, s);
	return v;
}

static inline size_t length_at(yaml_document_t *doc, const char *path)
{
	yaml_node_t *node = at(doc, path);
	cr_assert_eq(node->type, YAML_SEQUENCE_NODE, "%s is not a list", path);
	return (size_t)(node->data.sequence.items.top -
	                node->data.sequence.items.start);
}

static inline int has(yaml_document_t *doc, const char *path)
{
	return yaml_path(doc, yaml_document_get_root_node(doc), path) != NULL;
}

#endif
