/* The .npy header reader (see weights.h for what is accepted).
 *
 * A file is the magic "\x93NUMPY", a version (major, minor), the header
 * length (2 bytes little-endian in version 1.0, 4 in 2.0 and 3.0), the
 * header -- a Python dict literal {'descr': ..., 'fortran_order': ...,
 * 'shape': (...)} -- and then exactly the array's bytes.  This file parses
 * the header into the container's one tensor; weights.c reads and decodes
 * the data (and puts a Fortran-ordered array into C order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "tensors/weights_internal.h"

/* The bytes before the header: magic, major, minor and the header length
 * (a uint16 in version 1, a uint32 from version 2 on). */
#define PREAMBLE_V1 (HA_NPY_MAGIC_LEN + 2 + 2)
#define PREAMBLE_V2 (HA_NPY_MAGIC_LEN + 2 + 4)

/* The format versions read: major NPY_MAJOR_MIN..NPY_MAJOR_MAX, minor 0,
 * as the message refusing another lists them. */
#define NPY_MAJOR_MIN 1u
#define NPY_MAJOR_MAX 3u
#define KNOWN_VERSIONS "1.0, 2.0, 3.0"

/* Capacity of a dict key, with its NUL: the longest key read is
 * "fortran_order"; a longer one is refused as not a key. */
#define KEY_MAX 32

/* Capacity of the descr string, with its NUL: a longer descr is refused
 * ("not a short string") and a shorter one fits the tensor's dtype_name. */
#define DESCR_MAX HA_DTYPE_NAME_MAX

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
static enum ha_status parse_pyshape(struct cursor *c,
                                    struct ha_weights_tensor *t,
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

static enum ha_status parse_descr(struct ha_weights_tensor *t, const char *d,
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

static enum ha_status parse_npy_dict(struct ha_weights_tensor *t, const char *h,
                                     size_t n, struct ha_error *err)
{
	struct cursor c = {h, n, 0};
	char key[KEY_MAX], descr[DESCR_MAX] = "";
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
				c.at += 4;
				t->fortran_order = 1;
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

enum ha_status ha_npy_open(struct ha_weights *w, const char *name,
                           struct ha_error *err)
{
	unsigned char pre[PREAMBLE_V2];
	enum ha_status st;

	if (w->size < PREAMBLE_V1)
		return ha_fail(err, HA_EFORMAT,
		               "truncated npy file: %llu bytes",
		               (unsigned long long)w->size);
	st = ha_weights_read_at(w, 0, pre, PREAMBLE_V1, "the npy preamble", err);
	if (st != HA_OK)
		return st;
	if (memcmp(pre, HA_NPY_MAGIC, HA_NPY_MAGIC_LEN) != 0)
		return ha_fail(err, HA_EFORMAT, "bad npy magic");
	const unsigned char *version = pre + HA_NPY_MAGIC_LEN;
	unsigned major = version[0], minor = version[1];
	if (major < NPY_MAJOR_MIN || major > NPY_MAJOR_MAX || minor != 0) {
		return ha_fail(err, HA_EUNSUPPORTED,
		               "npy format version %u.%u is not supported (%s)",
		               major, minor, KNOWN_VERSIONS);
	}
	uint64_t prefix = major == 1 ? PREAMBLE_V1 : PREAMBLE_V2, hlen;
	const unsigned char *length = version + 2;
	if (major == 1) {
		hlen = (uint64_t)length[0] | (uint64_t)length[1] << 8;
	} else {
		st = ha_weights_read_at(w, 0, pre, PREAMBLE_V2, "the npy preamble",
		                        err);
		if (st != HA_OK)
			return st;
		hlen = ha_le32(length);
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
	st = ha_weights_read_at(w, prefix, h, (size_t)hlen, "the npy header",
	                        err);
	if (st == HA_OK)
		st = parse_npy_dict(&w->tensors[0], h, (size_t)hlen, err);
	free(h);
	if (st != HA_OK)
		return st;

	struct ha_weights_tensor *t = &w->tensors[0];
	t->elements = 1;
	for (size_t i = 0; i < t->ndim; i++)
		if (ha_mul_overflows(t->elements, t->shape[i], &t->elements))
			return ha_fail(err, HA_EFORMAT,
			               "npy header: shape overflows 64 bits");
	if (ha_mul_overflows(t->elements, t->elem_size, &t->nbytes))
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
	/* the file's name is the tensor's, in the report */
	st = ha_weights_check_name(name, name ? strlen(name) : 0, err);
	if (st != HA_OK)
		return st;
	t->name = strdup(name);
	if (!t->name)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	w->count = 1;
	return HA_OK;
}
