/* Weight tensors from .safetensors and .npy files (see weights.h).
 *
 * Every size read from a file is checked against the file size before it
 * is used in arithmetic, an allocation or a read. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <json-c/json.h>

#include <headalloc/weights.h>

#include "base/open_file.h"
#include "base/error_internal.h"

struct tensor {
	char *name;
	char dtype_name[16];
	enum ha_dtype dtype;
	size_t elem_size;   /* bytes per element */
	int big_endian;
	size_t ndim;
	uint64_t shape[HA_WEIGHTS_MAX_DIMS];
	uint64_t elements;
	uint64_t offset;    /* absolute, in the file */
	uint64_t nbytes;
};

struct ha_weights {
	FILE *file;                /* NULL for an image in memory */
	const unsigned char *mem;
	uint64_t size;             /* bytes in the file or image */
	struct tensor *tensors;
	size_t count;
};

/* ---------------------------------------------------------------- bytes */

static uint64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static int mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a != 0 && b > UINT64_MAX / a)
		return 1;
	*out = a * b;
	return 0;
}

/* Read n bytes at offset; a range beyond the end is HA_EFORMAT (the file
 * is truncated), a failing read HA_EIO. */
static enum ha_status read_at(const struct ha_weights *w, uint64_t offset,
                              void *buf, size_t n, const char *what,
                              struct ha_error *err)
{
	if (offset > w->size || n > w->size - offset)
		return ha_fail(err, HA_EFORMAT,
		               "truncated file: %s needs bytes %llu..%llu but "
		               "the file has %llu",
		               what, (unsigned long long)offset,
		               (unsigned long long)offset + n,
		               (unsigned long long)w->size);
	if (n == 0)
		return HA_OK;
	if (!w->file) {
		memcpy(buf, w->mem + offset, n);
		return HA_OK;
	}
	if (offset > (uint64_t)INT64_MAX ||
	    fseeko(w->file, (off_t)offset, SEEK_SET) != 0)
		return ha_fail(err, HA_EIO, "cannot seek to byte %llu: %s",
		               (unsigned long long)offset, strerror(errno));
	if (fread(buf, 1, n, w->file) != n)
		return ha_fail(err, HA_EIO, "cannot read %s (%zu bytes at %llu)%s",
		               what, n, (unsigned long long)offset,
		               ferror(w->file) ? "" : ": the file shrank");
	return HA_OK;
}

/* -------------------------------------------------------------- decoding */

double ha_f16_to_double(uint16_t bits)
{
	int sign = bits >> 15;
	int exponent = (bits >> 10) & 0x1f;
	int mantissa = bits & 0x3ff;
	double v;

	if (exponent == 0)           /* zero or subnormal: m * 2^-24 */
		v = ldexp((double)mantissa, -24);
	else if (exponent == 0x1f)   /* infinity or NaN */
		v = mantissa ? NAN : INFINITY;
	else                         /* (1024 + m) * 2^(e - 25) */
		v = ldexp((double)(mantissa + 1024), exponent - 25);
	return sign ? -v : v;
}

double ha_bf16_to_double(uint16_t bits)
{
	int sign = bits >> 15;
	int exponent = (bits >> 7) & 0xff;
	int mantissa = bits & 0x7f;
	double v;

	if (exponent == 0)           /* zero or subnormal: m * 2^-133 */
		v = ldexp((double)mantissa, -133);
	else if (exponent == 0xff)
		v = mantissa ? NAN : INFINITY;
	else                         /* (128 + m) * 2^(e - 134) */
		v = ldexp((double)(mantissa + 128), exponent - 134);
	return sign ? -v : v;
}

const char *ha_dtype_str(enum ha_dtype dtype)
{
	switch (dtype) {
	case HA_DTYPE_F64: return "F64";
	case HA_DTYPE_F32: return "F32";
	case HA_DTYPE_F16: return "F16";
	case HA_DTYPE_BF16: return "BF16";
	case HA_DTYPE_OTHER: break;
	}
	return "other";
}

/* One element at p (elem_size bytes, in the tensor's byte order). */
static double decode(const struct tensor *t, const unsigned char *p)
{
	unsigned char b[8];
	size_t n = t->elem_size;

	for (size_t i = 0; i < n; i++)
		b[i] = t->big_endian ? p[n - 1 - i] : p[i];
	switch (t->dtype) {
	case HA_DTYPE_F64: {
		uint64_t u = le64(b);
		double d;
		memcpy(&d, &u, sizeof d);
		return d;
	}
	case HA_DTYPE_F32: {
		uint32_t u = le32(b);
		float f;
		memcpy(&f, &u, sizeof f);
		return (double)f;
	}
	case HA_DTYPE_F16:
		return ha_f16_to_double((uint16_t)(b[0] | b[1] << 8));
	case HA_DTYPE_BF16:
		return ha_bf16_to_double((uint16_t)(b[0] | b[1] << 8));
	case HA_DTYPE_OTHER:
		break;
	}
	return NAN;
}

/* ------------------------------------------------------------- handles */

void ha_weights_free(struct ha_weights *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->count; i++)
		free(w->tensors[i].name);
	free(w->tensors);
	if (w->file)
		fclose(w->file);
	free(w);
}

size_t ha_weights_count(const struct ha_weights *w)
{
	return w ? w->count : 0;
}

enum ha_status ha_weights_info(const struct ha_weights *w, size_t index,
                               struct ha_tensor_info *info)
{
	if (!w || !info || index >= w->count)
		return HA_EINVAL;
	const struct tensor *t = &w->tensors[index];
	info->name = t->name;
	info->dtype = t->dtype;
	info->dtype_name = t->dtype_name;
	info->ndim = t->ndim;
	info->shape = t->shape;
	info->elements = t->elements;
	return HA_OK;
}

static int cmp_tensor_name(const void *a, const void *b)
{
	const struct tensor *x = a, *y = b;
	return strcmp(x->name, y->name);
}

enum ha_status ha_weights_select(const struct ha_weights *w,
                                 const char *pattern, size_t **indices,
                                 size_t *count, struct ha_error *err)
{
	if (indices)
		*indices = NULL;
	if (count)
		*count = 0;
	if (!w || !indices || !count)
		return ha_fail(err, HA_EINVAL, "NULL argument");

	size_t *idx = malloc((w->count ? w->count : 1) * sizeof *idx);
	if (!idx)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	/* A name that exists selects that tensor alone, even when it reads as
	 * a pattern too ("layers[0].k" must not also pick "layers0.k"). */
	size_t n = 0;
	for (size_t i = 0; pattern && i < w->count && n == 0; i++)
		if (strcmp(pattern, w->tensors[i].name) == 0)
			idx[n++] = i;
	if (n == 0)
		for (size_t i = 0; i < w->count; i++)
			if (!pattern || fnmatch(pattern, w->tensors[i].name, 0) == 0)
				idx[n++] = i;
	if (n == 0) {
		free(idx);
		return ha_fail(err, HA_EINVAL,
		               "no tensor matches '%s' (the file has %zu tensors)",
		               pattern ? pattern : "*", w->count);
	}
	*indices = idx;
	*count = n;
	return HA_OK;
}

enum ha_status ha_weights_read(const struct ha_weights *w, size_t index,
                               double **out, struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!w || !out || index >= w->count)
		return ha_fail(err, HA_EINVAL, "NULL argument or bad index");

	const struct tensor *t = &w->tensors[index];
	if (t->dtype == HA_DTYPE_OTHER)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "tensor '%s' has dtype %s; only F64, F32, F16 and "
		               "BF16 can be read", t->name, t->dtype_name);
	if (t->elements > HA_WEIGHTS_MAX_ELEMENTS)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "tensor '%s' has %llu elements, more than the "
		               "limit of %llu", t->name,
		               (unsigned long long)t->elements,
		               (unsigned long long)HA_WEIGHTS_MAX_ELEMENTS);

	size_t n = (size_t)t->elements;
	double *v = malloc((n ? n : 1) * sizeof *v);
	enum { CHUNK = 1 << 16 };
	unsigned char *buf = malloc(CHUNK);
	enum ha_status st = HA_OK;
	if (!v || !buf) {
		st = ha_fail(err, HA_ENOMEM, "out of memory reading tensor '%s'",
		             t->name);
		goto out;
	}

	size_t per_chunk = CHUNK / t->elem_size;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < per_chunk ? n - done : per_chunk;
		st = read_at(w, t->offset + (uint64_t)done * t->elem_size, buf,
		             k * t->elem_size, "tensor data", err);
		if (st != HA_OK)
			goto out;
		for (size_t i = 0; i < k; i++) {
			double x = decode(t, buf + i * t->elem_size);
			if (!isfinite(x)) {
				st = ha_fail(err, HA_EFORMAT,
				             "tensor '%s': element %zu is %s; weights "
				             "must be finite", t->name, done + i,
				             isnan(x) ? "NaN" : "infinite");
				goto out;
			}
			v[done + i] = x;
		}
		done += k;
	}
out:
	free(buf);
	if (st != HA_OK) {
		free(v);
		return st;
	}
	*out = v;
	return HA_OK;
}

/* --------------------------------------------------------- safetensors */

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
static enum ha_status parse_entry(struct tensor *t, struct json_object *o,
                                  uint64_t *begin, uint64_t *end,
                                  struct ha_error *err)
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
		return ha_fail(err, HA_EFORMAT, "tensor '%s': unknown dtype \"%.32s\"",
		               t->name, dn);
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
		if (mul_overflows(t->elements, t->shape[i], &t->elements))
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': shape overflows 64 bits",
			               t->name);
	}
	if (mul_overflows(t->elements, t->elem_size, &t->nbytes))
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

static enum ha_status open_safetensors(struct ha_weights *w,
                                       struct ha_error *err)
{
	unsigned char prefix[8];
	char *header = NULL;
	struct json_tokener *tok = NULL;
	struct json_object *root = NULL;
	struct span *spans = NULL;
	enum ha_status st;

	if (w->size < 8)
		return ha_fail(err, HA_EFORMAT,
		               "truncated file: %llu bytes, too short for a "
		               "safetensors header length",
		               (unsigned long long)w->size);
	st = read_at(w, 0, prefix, 8, "the header length", err);
	if (st != HA_OK)
		return st;
	uint64_t hlen = le64(prefix);
	if (hlen > HA_WEIGHTS_MAX_HEADER)
		return ha_fail(err, HA_EFORMAT,
		               "header length %llu exceeds the limit of %u bytes",
		               (unsigned long long)hlen, HA_WEIGHTS_MAX_HEADER);
	if (hlen > w->size - 8)
		return ha_fail(err, HA_EFORMAT,
		               "header length %llu goes beyond the end of the "
		               "file (%llu bytes)", (unsigned long long)hlen,
		               (unsigned long long)w->size);
	if (hlen < 2)
		return ha_fail(err, HA_EFORMAT,
		               "header length %llu is too short for a JSON object",
		               (unsigned long long)hlen);

	header = malloc((size_t)hlen + 1);
	if (!header)
		return ha_fail(err, HA_ENOMEM, "out of memory for the header");
	st = read_at(w, 8, header, (size_t)hlen, "the header", err);
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

	tok = json_tokener_new_ex(8);
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
		struct tensor *t = &w->tensors[w->count];
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
	uint64_t data_start = 8 + hlen;
	st = check_tiling(w, spans, w->size - data_start, err);
	if (st != HA_OK)
		goto out;
	for (size_t i = 0; i < w->count; i++)
		w->tensors[spans[i].tensor].offset = data_start + spans[i].begin;
	qsort(w->tensors, w->count, sizeof *w->tensors, cmp_tensor_name);
out:
	free(spans);
	if (root)
		json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	free(header);
	return st;
}

/* ----------------------------------------------------------------- npy */

/* A cursor over the npy header, a Python dict literal. */
struct cursor {
	const char *s;
	size_t n, at;
};

static void skip_space(struct cursor *c)
{
	while (c->at < c->n && (c->s[c->at] == ' ' || c->s[c->at] == '\t' ||
	                        c->s[c->at] == '\n' || c->s[c->at] == '\r'))
		c->at++;
}

static int peek(const struct cursor *c)
{
	return c->at < c->n ? (unsigned char)c->s[c->at] : -1;
}

static int accept(struct cursor *c, char ch)
{
	skip_space(c);
	if (peek(c) != (unsigned char)ch)
		return 0;
	c->at++;
	return 1;
}

/* A quoted string without escapes into out (cap bytes with the NUL). */
static int parse_pystring(struct cursor *c, char *out, size_t cap)
{
	skip_space(c);
	int q = peek(c);
	if (q != '\'' && q != '"')
		return 0;
	c->at++;
	size_t len = 0;
	while (c->at < c->n && c->s[c->at] != q) {
		char ch = c->s[c->at++];
		if (ch == '\\' || ch == '\0' || ch == '\n' || len + 1 >= cap)
			return 0;
		out[len++] = ch;
	}
	if (c->at >= c->n)
		return 0;
	c->at++;
	out[len] = '\0';
	return 1;
}

static int parse_pyuint(struct cursor *c, uint64_t *out)
{
	skip_space(c);
	uint64_t v = 0;
	size_t start = c->at;
	while (c->at < c->n && c->s[c->at] >= '0' && c->s[c->at] <= '9') {
		unsigned digit = (unsigned)(c->s[c->at] - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return 0;
		v = v * 10 + digit;
		c->at++;
	}
	*out = v;
	return c->at > start;
}

/* "(a, b, ...)" with a trailing comma required for one element. */
static enum ha_status parse_pyshape(struct cursor *c, struct tensor *t,
                                    struct ha_error *err)
{
	if (!accept(c, '('))
		return ha_fail(err, HA_EFORMAT, "npy header: 'shape' is not a tuple");
	t->ndim = 0;
	if (accept(c, ')'))
		return HA_OK;
	for (;;) {
		if (t->ndim >= HA_WEIGHTS_MAX_DIMS)
			return ha_fail(err, HA_EUNSUPPORTED,
			               "npy header: more than %d dimensions",
			               HA_WEIGHTS_MAX_DIMS);
		if (!parse_pyuint(c, &t->shape[t->ndim]))
			return ha_fail(err, HA_EFORMAT,
			               "npy header: shape[%zu] is not a non-negative "
			               "integer", t->ndim);
		t->ndim++;
		int comma = accept(c, ',');
		if (accept(c, ')')) {
			if (t->ndim == 1 && !comma)
				return ha_fail(err, HA_EFORMAT,
				               "npy header: shape '(n)' is not a tuple");
			return HA_OK;
		}
		if (!comma)
			return ha_fail(err, HA_EFORMAT,
			               "npy header: shape tuple is malformed");
	}
}

static enum ha_status parse_descr(struct tensor *t, const char *d,
                                  struct ha_error *err)
{
	static const unsigned one = 1;
	int native_big = *(const unsigned char *)&one == 0;

	snprintf(t->dtype_name, sizeof t->dtype_name, "%s", d);
	if (strlen(d) < 3 || !strchr("<>=|", d[0]))
		return ha_fail(err, HA_EFORMAT, "npy header: bad descr '%s'", d);
	for (const char *p = d + 2; *p; p++)
		if (*p < '0' || *p > '9')
			return ha_fail(err, HA_EFORMAT, "npy header: bad descr '%s'",
			               d);
	if (d[1] != 'f' || d[0] == '|' ||
	    (strcmp(d + 2, "2") && strcmp(d + 2, "4") && strcmp(d + 2, "8")))
		return ha_fail(err, HA_EUNSUPPORTED,
		               "npy dtype '%s' is not supported (f2, f4 or f8)", d);
	t->big_endian = d[0] == '>' || (d[0] == '=' && native_big);
	t->elem_size = (size_t)(d[2] - '0');
	t->dtype = t->elem_size == 2 ? HA_DTYPE_F16
	         : t->elem_size == 4 ? HA_DTYPE_F32 : HA_DTYPE_F64;
	return HA_OK;
}

static enum ha_status parse_npy_dict(struct tensor *t, const char *h,
                                     size_t n, struct ha_error *err)
{
	struct cursor c = {h, n, 0};
	char key[32], descr[16] = "";
	int have_descr = 0, have_order = 0, have_shape = 0;
	enum ha_status st;

	if (!accept(&c, '{'))
		return ha_fail(err, HA_EFORMAT, "npy header is not a dict");
	while (!accept(&c, '}')) {
		if (!parse_pystring(&c, key, sizeof key))
			return ha_fail(err, HA_EFORMAT,
			               "npy header: expected a quoted key at byte %zu",
			               c.at);
		if (!accept(&c, ':'))
			return ha_fail(err, HA_EFORMAT,
			               "npy header: expected ':' after '%s'", key);
		if (strcmp(key, "descr") == 0 && !have_descr) {
			skip_space(&c);
			if (peek(&c) == '[')
				return ha_fail(err, HA_EUNSUPPORTED,
				               "npy structured dtypes are not supported");
			if (!parse_pystring(&c, descr, sizeof descr))
				return ha_fail(err, HA_EFORMAT,
				               "npy header: 'descr' is not a short string");
			have_descr = 1;
		} else if (strcmp(key, "fortran_order") == 0 && !have_order) {
			skip_space(&c);
			if (c.n - c.at >= 5 && memcmp(h + c.at, "False", 5) == 0) {
				c.at += 5;
			} else if (c.n - c.at >= 4 && memcmp(h + c.at, "True", 4) == 0) {
				return ha_fail(err, HA_EUNSUPPORTED,
				               "npy fortran_order True is not supported; "
				               "save a C-ordered array "
				               "(numpy.ascontiguousarray)");
			} else {
				return ha_fail(err, HA_EFORMAT,
				               "npy header: 'fortran_order' is not "
				               "True or False");
			}
			have_order = 1;
		} else if (strcmp(key, "shape") == 0 && !have_shape) {
			st = parse_pyshape(&c, t, err);
			if (st != HA_OK)
				return st;
			have_shape = 1;
		} else {
			return ha_fail(err, HA_EFORMAT,
			               "npy header: unexpected or repeated key '%s'",
			               key);
		}
		if (!accept(&c, ',')) {
			if (accept(&c, '}'))
				break;
			return ha_fail(err, HA_EFORMAT,
			               "npy header: expected ',' or '}' at byte %zu",
			               c.at);
		}
	}
	skip_space(&c);
	if (c.at != c.n)
		return ha_fail(err, HA_EFORMAT,
		               "npy header: trailing characters at byte %zu", c.at);
	if (!have_descr || !have_order || !have_shape)
		return ha_fail(err, HA_EFORMAT, "npy header lacks '%s'",
		               !have_descr ? "descr"
		               : !have_order ? "fortran_order" : "shape");
	return parse_descr(t, descr, err);
}

static enum ha_status open_npy(struct ha_weights *w, const char *name,
                               struct ha_error *err)
{
	unsigned char pre[12];
	enum ha_status st;

	if (w->size < 10)
		return ha_fail(err, HA_EFORMAT,
		               "truncated npy file: %llu bytes",
		               (unsigned long long)w->size);
	st = read_at(w, 0, pre, 10, "the npy preamble", err);
	if (st != HA_OK)
		return st;
	if (memcmp(pre, "\x93NUMPY", 6) != 0)
		return ha_fail(err, HA_EFORMAT, "bad npy magic");
	unsigned major = pre[6], minor = pre[7];
	if (major < 1 || major > 3 || minor != 0)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "npy format version %u.%u is not supported "
		               "(1.0, 2.0, 3.0)", major, minor);
	uint64_t prefix = major == 1 ? 10 : 12, hlen;
	if (major == 1) {
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
	} else {
		st = read_at(w, 0, pre, 12, "the npy preamble", err);
		if (st != HA_OK)
			return st;
		hlen = le32(pre + 8);
	}
	if (hlen > HA_WEIGHTS_MAX_HEADER)
		return ha_fail(err, HA_EFORMAT,
		               "npy header length %llu exceeds the limit of %u",
		               (unsigned long long)hlen, HA_WEIGHTS_MAX_HEADER);
	if (hlen > w->size - prefix)
		return ha_fail(err, HA_EFORMAT,
		               "npy header length %llu goes beyond the end of the "
		               "file (%llu bytes)", (unsigned long long)hlen,
		               (unsigned long long)w->size);

	w->tensors = calloc(1, sizeof *w->tensors);
	char *h = malloc((size_t)hlen + 1);
	if (!w->tensors || !h) {
		free(h);
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	st = read_at(w, prefix, h, (size_t)hlen, "the npy header", err);
	if (st == HA_OK)
		st = parse_npy_dict(&w->tensors[0], h, (size_t)hlen, err);
	free(h);
	if (st != HA_OK)
		return st;

	struct tensor *t = &w->tensors[0];
	t->elements = 1;
	for (size_t i = 0; i < t->ndim; i++)
		if (mul_overflows(t->elements, t->shape[i], &t->elements))
			return ha_fail(err, HA_EFORMAT,
			               "npy header: shape overflows 64 bits");
	if (mul_overflows(t->elements, t->elem_size, &t->nbytes))
		return ha_fail(err, HA_EFORMAT,
		               "npy header: byte size overflows 64 bits");
	t->offset = prefix + hlen;
	uint64_t have = w->size - t->offset;
	if (have < t->nbytes)
		return ha_fail(err, HA_EFORMAT,
		               "truncated npy data: %llu bytes, the shape needs "
		               "%llu", (unsigned long long)have,
		               (unsigned long long)t->nbytes);
	if (have > t->nbytes)
		return ha_fail(err, HA_EFORMAT,
		               "%llu trailing bytes after the npy array data",
		               (unsigned long long)(have - t->nbytes));
	t->name = strdup(name);
	if (!t->name)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	w->count = 1;
	return HA_OK;
}

/* -------------------------------------------------------------- opening */

static enum ha_status open_any(struct ha_weights *w,
                               enum ha_weights_format format,
                               const char *npy_name, struct ha_error *err)
{
	unsigned char magic[6];
	if (format == HA_FORMAT_AUTO && w->size >= 6 &&
	    read_at(w, 0, magic, 6, "magic", err) == HA_OK &&
	    memcmp(magic, "\x93NUMPY", 6) == 0)
		format = HA_FORMAT_NPY;
	ha_error_clear(err);
	if (format == HA_FORMAT_NPY)
		return open_npy(w, npy_name, err);
	return open_safetensors(w, err);
}

enum ha_status ha_weights_open_memory(const void *data, size_t size,
                                      enum ha_weights_format format,
                                      const char *npy_name,
                                      struct ha_weights **out,
                                      struct ha_error *err)
{
	ha_error_clear(err);
	if (out)
		*out = NULL;
	if (!out || (!data && size))
		return ha_fail(err, HA_EINVAL, "NULL argument");
	struct ha_weights *w = calloc(1, sizeof *w);
	if (!w)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	w->mem = data;
	w->size = size;
	enum ha_status st = open_any(w, format, npy_name ? npy_name : "array",
	                             err);
	if (st != HA_OK) {
		ha_weights_free(w);
		return st;
	}
	*out = w;
	return HA_OK;
}

/* The base name of path without a ".npy" suffix, in a new string. */
static char *stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".npy") == 0)
		n -= 4;
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, base, n);
		s[n] = '\0';
	}
	return s;
}

enum ha_status ha_weights_open(const char *path, struct ha_weights **out,
                               struct ha_error *err)
{
	ha_error_clear(err);
	if (out)
		*out = NULL;
	if (!path || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");

	struct ha_weights *w = calloc(1, sizeof *w);
	char *name = stem(path);
	enum ha_status st = HA_OK;
	if (!w || !name) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	w->file = ha_open_input(path);
	if (!w->file) {
		st = ha_fail(err, HA_EIO, "cannot open: %s", strerror(errno));
		goto out;
	}
	off_t end;
	if (fseeko(w->file, 0, SEEK_END) != 0 ||
	    (end = ftello(w->file)) < 0) {
		st = ha_fail(err, HA_EIO, "cannot seek: %s", strerror(errno));
		goto out;
	}
	w->size = (uint64_t)end;
	size_t n = strlen(path);
	enum ha_weights_format format = HA_FORMAT_AUTO;
	if (n >= 4 && strcmp(path + n - 4, ".npy") == 0)
		format = HA_FORMAT_NPY;
	else if (n >= 12 && strcmp(path + n - 12, ".safetensors") == 0)
		format = HA_FORMAT_SAFETENSORS;
	st = open_any(w, format, name, err);
out:
	free(name);
	if (st != HA_OK) {
		ha_weights_free(w);
		return st;
	}
	*out = w;
	return HA_OK;
}
