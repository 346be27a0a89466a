/* The tests' way into a YAML report: the node at a dotted path of keys
 * and list indices ("table.3.heads"), for the suites that read reports
 * back with libyaml. */
#ifndef HEADALLOC_TESTS_YAML_PATH_H
#define HEADALLOC_TESTS_YAML_PATH_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

/* The node at path below node, or NULL when a step is missing. */
static inline yaml_node_t *yaml_path(yaml_document_t *doc, yaml_node_t *node,
                                     const char *path)
{
	char step[64];
	while (node && *path) {
		size_t len = strcspn(path, ".");
		cr_assert_lt(len, sizeof step);
		memcpy(step, path, len);
		step[len] = '\0';
		path += len + (path[len] == '.');
		yaml_node_t *next = NULL;
		if (node->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
			     p < node->data.mapping.pairs.top && !next; p++) {
				yaml_node_t *k = yaml_document_get_node(doc, p->key);
				if (strcmp((const char *)k->data.scalar.value, step) == 0)
					next = yaml_document_get_node(doc, p->value);
			}
		} else if (node->type == YAML_SEQUENCE_NODE) {
			long i = strtol(step, NULL, 10);
			yaml_node_item_t *items = node->data.sequence.items.start;
			if (i >= 0 && items + i < node->data.sequence.items.top)
				next = yaml_document_get_node(doc, items[i]);
		}
		node = next;
	}
	return node;
}

/* The scalar at path below the document's root: it must exist and be a
 * scalar. */
static inline const char *str_at(yaml_document_t *doc, const char *path)
{
	yaml_node_t *node = yaml_path(doc, yaml_document_get_root_node(doc), path);
	cr_assert_not_null(node, "no %s", path);
	cr_assert_eq(node->type, YAML_SCALAR_NODE, "%s is not a scalar", path);
	return (const char *)node->data.scalar.value;
}

/* The number at path (.inf included): the whole scalar must be one. */
static inline double num_at(yaml_document_t *doc, const char *path)
{
	const char *s = str_at(doc, path);
	if (strcmp(s, ".inf") == 0)
		return INFINITY;
	char *end;
	double v = strtod(s, &end);
	cr_assert(*s && !*end, "%s: '%s' is not a number", path, s);
	return v;
}

#endif
