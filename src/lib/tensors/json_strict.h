/* Strict JSON (RFC 8259) for hostile files: the grammar json-c's strict
 * mode still lets through (single quotes, NaN and Infinity, control
 * characters in strings, leading zeros after a space), a NUL escape
 * (\u0000, which json-c keeps but C strings cut at), a key given twice in
 * one object (json-c keeps the last without a word) and nesting deeper
 * than a limit are refused with the byte offset of the fault; then json-c
 * builds the tree.  An integer written beyond json-c's 64 bits keeps its
 * text: json_object_to_json_string_ext() gives it as written, not as the
 * saturated 18446744073709551615 json_object_get_uint64() returns.
 * (library-internal) */
#ifndef HEADALLOC_JSON_STRICT_H
#define HEADALLOC_JSON_STRICT_H

#include <stddef.h>

#include <json-c/json.h>

#include <headalloc/status.h>

/* A fault in the text: where and why. */
struct json_strict_fault {
	size_t at;       /* byte offset of the fault */
	const char *why; /* static text: "a single-quoted string", ... */
	size_t depth;    /* a key given twice: its object's depth (1: the
	                    top-level object) */
	size_t len;      /* and its length as written, from at + 1 */
};

/* Parse text[0..n) (text[n] must be '\0') as exactly one JSON value with
 * optional white space around, nested at most max_depth arrays and
 * objects deep.  HA_OK: *out is the tree (json_object_put() it).
 * HA_EFORMAT: *fault says where; HA_ENOMEM. */
enum ha_status json_strict_parse(const char *text, size_t n,
                                 size_t max_depth, json_object **out,
                                 struct json_strict_fault *fault);

/* The grammar alone, for a caller that builds its own tree: as
 * json_strict_parse without one, and *keys and *top_keys are the keys
 * written in the whole text and in its top-level object. */
enum ha_status json_strict_check(const char *text, size_t n, size_t max_depth,
                                 struct json_strict_fault *fault,
                                 size_t *keys, size_t *top_keys);

/* 1 when v is an integer written beyond 64 bits (above 2^64 - 1 or below
 * -2^63), whose json-c value is saturated. */
int json_strict_int_overflowed(json_object *v);

#endif
