/* The safetensors header reader (see weights.h for the format).
 *
 * An 8-byte little-endian length N, N bytes of JSON mapping tensor names
 * to {dtype, shape, data_offsets} (and an optional "__metadata__" map of
 * strings), then the data buffer, which the tensors' offsets must tile
 * exactly.  This file turns the header into the container's tensor
 * directory; weights.c reads and decodes the data. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/text.h"

#include "base/error_internal.h"
#include "tensors/json_strict.h"
#include "tensors/weights_internal.h"

/* The header length before the JSON: a little-endian uint64. */
#define LENGTH_BYTES 8

/* The shortest JSON object, "{}". */
#define MIN_HEADER 2

/* json-c's depth limit for the header: it refuses JSON nested
 * JSON_MAX_DEPTH levels deep (or deeper) with its own "nesting too deep"
 * message, so a hostile header cannot exhaust the stack.  A valid header
 * nests three levels: the root, a tensor's object, its shape array. */
#define JSON_MAX_DEPTH 8

/* json-c takes the header's length as an int. */
_Static_assert(HA_WEIGHTS_MAX_HEADER < INT_MAX,
               "the safetensors header limit must fit json-c's int length");

/* An unknown dtype string is quoted in the message up to this many
 * characters. */
#define DTYPE_SHOWN_MAX 32

struct dtype_entry {
	const char *name;
	enum ha_dtype dtype;
	size_t size;
};

static const struct dtype_entry safetensors_dtypes[] = {
	{"F64", HA_DTYPE_F64, 8},   {"F32", HA_DTYPE_F32, 4},
	{"F16", HA_DTYPE_F16, 2},   {"BF16", HA_DTYPE_BF16, 2},
	{"BOOL", HA_DTYPE_OTHER, 1}, {"U8", HA_DTYPE_OTHER, 1},
	{"I8", HA_DTYPE_OTHER, 1},  {"F8_E4M3", HA_DTYPE_OTHER, 1},
	{"F8_E5M2", HA_DTYPE_OTHER, 1}, {"I16", HA_DTYPE_OTHER, 2},
	{"U16", HA_DTYPE_OTHER, 2}, {"I32", HA_DTYPE_OTHER, 4},
	{"U32", HA_DTYPE_OTHER, 4}, {"I64", HA_DTYPE_OTHER, 8},
	{"U64", HA_DTYPE_OTHER, 8},
};

/* A non-negative JSON integer into *out. */
static int json_uint(struct json_object *o, uint64_t *out)
{
	if (!json_object_is_type(o, json_type_int) ||
	    json_object_get_int64(o) < 0)
		return 0;
	*out = json_object_get_uint64(o);
	return 1;
}

/* Fill t (name already set) from one header entry. */
static enum ha_status parse_entry(struct ha_weights_tensor *t,
                                  struct json_object *o, uint64_t *begin,
                                  uint64_t *end, struct ha_error *err)
{
	struct json_object *dtype, *shape, *offsets;

	if (!json_object_is_type(o, json_type_object))
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': header entry is not an object",
		               t->name);
	if (!json_object_object_get_ex(o, "dtype", &dtype) ||
	    !json_object_is_type(dtype, json_type_string))
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': missing or non-string \"dtype\"",
		               t->name);
	const char *dn = json_object_get_string(dtype);
	const struct dtype_entry *de = NULL;
	for (size_t i = 0; i < sizeof safetensors_dtypes /
	                       sizeof safetensors_dtypes[0]; i++)
		if (strcmp(dn, safetensors_dtypes[i].name) == 0)
			de = &safetensors_dtypes[i];
	if (!de)
		return ha_fail(err, HA_EFORMAT, "tensor '%s': unknown dtype \"%.*s\"",
		               t->name, DTYPE_SHOWN_MAX, dn);
	snprintf(t->dtype_name, sizeof t->dtype_name, "%s", de->name);
	t->dtype = de->dtype;
	t->elem_size = de->size;
	t->big_endian = 0;

	if (!json_object_object_get_ex(o, "shape", &shape) ||
	    !json_object_is_type(shape, json_type_array))
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': missing or non-array \"shape\"",
		               t->name);
	size_t ndim = json_object_array_length(shape);
	if (ndim > HA_WEIGHTS_MAX_DIMS)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "tensor '%s': %zu dimensions (at most %d)", t->name,
		               ndim, HA_WEIGHTS_MAX_DIMS);
	t->ndim = ndim;
	t->elements = 1;
	for (size_t i = 0; i < ndim; i++) {
		if (!json_uint(json_object_array_get_idx(shape, i), &t->shape[i]))
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': shape[%zu] is not a "
			               "non-negative integer", t->name, i);
		if (ha_mul_overflows(t->elements, t->shape[i], &t->elements))
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': shape overflows 64 bits",
			               t->name);
	}
	if (ha_mul_overflows(t->elements, t->elem_size, &t->nbytes))
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': byte size overflows 64 bits", t->name);

	if (!json_object_object_get_ex(o, "data_offsets", &offsets) ||
	    !json_object_is_type(offsets, json_type_array) ||
	    json_object_array_length(offsets) != 2 ||
	    !json_uint(json_object_array_get_idx(offsets, 0), begin) ||
	    !json_uint(json_object_array_get_idx(offsets, 1), end))
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': \"data_offsets\" is not a pair of "
		               "non-negative integers", t->name);
	if (*begin > *end)
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': data_offsets [%llu, %llu] end before "
		               "they begin", t->name, (unsigned long long)*begin,
		               (unsigned long long)*end);
	if (*end - *begin != t->nbytes)
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': data_offsets [%llu, %llu] hold %llu "
		               "bytes but dtype %s and the shape need %llu",
		               t->name, (unsigned long long)*begin,
		               (unsigned long long)*end,
		               (unsigned long long)(*end - *begin), de->name,
		               (unsigned long long)t->nbytes);
	return HA_OK;
}

struct span {
	uint64_t begin, end;
	size_t tensor;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/* The offsets must tile [0, buffer) exactly. */
static enum ha_status check_tiling(const struct ha_weights *w,
                                   struct span *spans, uint64_t buffer,
                                   struct ha_error *err)
{
	qsort(spans, w->count, sizeof *spans, cmp_span);
	uint64_t at = 0;
	for (size_t i = 0; i < w->count; i++) {
		const char *name = w->tensors[spans[i].tensor].name;
		if (spans[i].end > buffer)
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': data_offsets end %llu is beyond "
			               "the data buffer (%llu bytes)", name,
			               (unsigned long long)spans[i].end,
			               (unsigned long long)buffer);
		if (spans[i].begin < at)
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': data_offsets [%llu, %llu] "
			               "overlap tensor '%s'", name,
			               (unsigned long long)spans[i].begin,
			               (unsigned long long)spans[i].end,
			               w->tensors[spans[i - 1].tensor].name);
		if (spans[i].begin > at)
			return ha_fail(err, HA_EFORMAT,
			               "data buffer not covered: bytes %llu..%llu "
			               "before tensor '%s' belong to no tensor",
			               (unsigned long long)at,
			               (unsigned long long)spans[i].begin, name);
		at = spans[i].end;
	}
	if (at != buffer)
		return ha_fail(err, HA_EFORMAT,
		               "data buffer not covered: its last %llu bytes "
		               "belong to no tensor",
		               (unsigned long long)(buffer - at));
	return HA_OK;
}

static int is_json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* "__metadata__" is a map of strings to strings (the safetensors format). */
static enum ha_status check_metadata(struct json_object *val,
                                     struct ha_error *err)
{
	if (!json_object_is_type(val, json_type_object))
		return ha_fail(err, HA_EFORMAT, "\"__metadata__\" is not an object");
	struct json_object_iterator it = json_object_iter_begin(val);
	struct json_object_iterator end = json_object_iter_end(val);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
		if (!json_object_is_type(json_object_iter_peek_value(&it),
		                         json_type_string))
			return ha_fail(err, HA_EFORMAT, "\"__metadata__\" value of "
			               "'%s' is not a string",
			               json_object_iter_peek_name(&it));
	return HA_OK;
}

/* The keys in json-c's tree: every object's, at every depth. */
static size_t tree_keys(struct json_object *o)
{
	size_t n = 0;
	if (json_object_is_type(o, json_type_object)) {
		struct json_object_iterator it = json_object_iter_begin(o);
		struct json_object_iterator end = json_object_iter_end(o);
		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
			n += 1 + tree_keys(json_object_iter_peek_value(&it));
	} else if (json_object_is_type(o, json_type_array)) {
		size_t len = json_object_array_length(o);
		for (size_t i = 0; i < len; i++)
			n += tree_keys(json_object_array_get_idx(o, i));
	}
	return n;
}

/* The grammar json-c's strict mode still lets through (single quotes,
 * NaN, raw control characters in strings: json_strict.h, the reader of
 * a model directory's config.json and index), and repeated keys: json-c
 * keeps the last of two equal keys without a word, so a tensor named
 * twice would silently lose its first entry (and a "dtype" given twice
 * its first value).  A repeated tensor is named when it is spelt the
 * same both times. */
static enum ha_status check_strict(const char *h, size_t n,
                                   struct json_object *root,
                                   struct ha_error *err)
{
	struct json_strict_fault f;
	size_t keys, top_keys;
	enum ha_status st = json_strict_check(h, n, JSON_MAX_DEPTH, &f, &keys,
	                                      &top_keys);
	if (st == HA_ENOMEM)
		return ha_fail(err, HA_ENOMEM, "out of memory for the header");
	if (st != HA_OK && f.depth == 1)
		return ha_fail(err, HA_EFORMAT, "header JSON: the tensor name "
		               "'%.*s' is given twice",
		               (int)(f.len > 200 ? 200 : f.len), h + f.at + 1);
	if (st != HA_OK && f.depth == 0)
		return ha_fail(err, HA_EFORMAT, "header JSON: %s at byte %zu",
		               f.why, f.at);
	if (st == HA_OK && keys == tree_keys(root))
		return HA_OK;
	if (st == HA_OK &&
	    top_keys != (size_t)json_object_object_length(root))
		return ha_fail(err, HA_EFORMAT, "header JSON: a tensor name is "
		               "given twice (spelt with different escapes)");
	return ha_fail(err, HA_EFORMAT, "header JSON: a key is given twice "
	               "in a tensor's entry");
}

enum ha_status ha_safetensors_open(struct ha_weights *w, struct ha_error *err)
{
	unsigned char prefix[LENGTH_BYTES];
	char *header = NULL;
	struct json_tokener *tok = NULL;
	struct json_object *root = NULL;
	struct span *spans = NULL;
	enum ha_status st;

	if (w->size < LENGTH_BYTES)
		return ha_fail(err, HA_EFORMAT,
		               "truncated file: %llu bytes, too short for a "
		               "safetensors header length",
		               (unsigned long long)w->size);
	st = ha_weights_read_at(w, 0, prefix, LENGTH_BYTES, "the header length",
	                        err);
	if (st != HA_OK)
		return st;
	uint64_t hlen = ha_le64(prefix);
	if (hlen > HA_WEIGHTS_MAX_HEADER)
		return ha_fail(err, HA_EFORMAT,
		               "header length %llu exceeds the limit of %u bytes",
		               (unsigned long long)hlen, HA_WEIGHTS_MAX_HEADER);
	if (hlen > w->size - LENGTH_BYTES)
		return ha_fail(err, HA_EFORMAT,
		               "header length %llu goes beyond the end of the "
		               "file (%llu bytes)", (unsigned long long)hlen,
		               (unsigned long long)w->size);
	if (hlen < MIN_HEADER)
		return ha_fail(err, HA_EFORMAT,
		               "header length %llu is too short for a JSON object",
		               (unsigned long long)hlen);

	header = malloc((size_t)hlen + 1);
	if (!header)
		return ha_fail(err, HA_ENOMEM, "out of memory for the header");
	st = ha_weights_read_at(w, LENGTH_BYTES, header, (size_t)hlen,
	                        "the header", err);
	if (st != HA_OK)
		goto out;
	header[hlen] = '\0';
	if (memchr(header, '\0', (size_t)hlen)) {
		st = ha_fail(err, HA_EFORMAT, "header contains a NUL byte");
		goto out;
	}
	if (header[0] != '{') {
		st = ha_fail(err, HA_EFORMAT,
		             "header does not start with '{': not a safetensors "
		             "file");
		goto out;
	}

	/* A NUL in a JSON string ("\u0000") would cut a tensor name short
	 * without a word from json-c: no name or dtype ever holds one. */
	for (size_t i = 0; i + 6 <= hlen; i++)
		if (header[i] == '\\' && header[i + 1] == 'u' &&
		    strncmp(header + i + 2, "0000", 4) == 0) {
			st = ha_fail(err, HA_EFORMAT, "header JSON: a NUL character "
			             "(\\u0000) at byte %zu", i);
			goto out;
		} else if (header[i] == '\\') {
			i++; /* skip the escaped character, e.g. the second '\\' */
		}

	tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!tok) {
		st = ha_fail(err, HA_ENOMEM, "out of memory for the JSON parser");
		goto out;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	                            JSON_TOKENER_ALLOW_TRAILING_CHARS |
	                            JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, header, (int)hlen + 1);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	if (jerr != json_tokener_success || !root) {
		st = ha_fail(err, HA_EFORMAT, "header JSON: %s near byte %zu",
		             json_tokener_error_desc(jerr),
		             json_tokener_get_parse_end(tok));
		goto out;
	}
	for (size_t i = json_tokener_get_parse_end(tok); i < hlen; i++)
		if (!is_json_space(header[i])) {
			st = ha_fail(err, HA_EFORMAT,
			             "header JSON: trailing characters at byte %zu",
			             i);
			goto out;
		}
	if (!json_object_is_type(root, json_type_object)) {
		st = ha_fail(err, HA_EFORMAT, "header JSON is not an object");
		goto out;
	}

	st = check_strict(header, (size_t)hlen, root, err);
	if (st != HA_OK)
		goto out;
	size_t keys = (size_t)json_object_object_length(root);
	w->tensors = calloc(keys ? keys : 1, sizeof *w->tensors);
	spans = calloc(keys ? keys : 1, sizeof *spans);
	if (!w->tensors || !spans) {
		st = ha_fail(err, HA_ENOMEM, "out of memory for %zu tensors", keys);
		goto out;
	}
	struct json_object_iterator it = json_object_iter_begin(root);
	struct json_object_iterator end = json_object_iter_end(root);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *name = json_object_iter_peek_name(&it);
		struct json_object *val = json_object_iter_peek_value(&it);
		if (strcmp(name, "__metadata__") == 0) {
			st = check_metadata(val, err);
			if (st != HA_OK)
				goto out;
			continue;
		}
		if (w->count >= keys)
			break;
		/* a name is printed in reports and messages: the one name
		 * rule (text.h) */
		st = ha_weights_check_name(name, strlen(name), err);
		if (st != HA_OK)
			goto out;
		struct ha_weights_tensor *t = &w->tensors[w->count];
		t->name = strdup(name);
		if (!t->name) {
			st = ha_fail(err, HA_ENOMEM, "out of memory");
			goto out;
		}
		w->count++;
		st = parse_entry(t, val, &spans[w->count - 1].begin,
		                 &spans[w->count - 1].end, err);
		if (st != HA_OK)
			goto out;
		spans[w->count - 1].tensor = w->count - 1;
	}
	uint64_t data_start = LENGTH_BYTES + hlen;
	st = check_tiling(w, spans, w->size - data_start, err);
	if (st != HA_OK)
		goto out;
	for (size_t i = 0; i < w->count; i++)
		w->tensors[spans[i].tensor].offset = data_start + spans[i].begin;
out:
	free(spans);
	if (root)
		json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	free(header);
	return st;
}
