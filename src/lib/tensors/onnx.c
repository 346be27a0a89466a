/* ONNX models as a weights format (see weights_internal.h, weights.h).
 *
 * Every size and offset read from the model is checked before use: the
 * framing (below) before protobuf-c sees the bytes, the memory
 * protobuf-c takes by a bounded allocator, each tensor's dims against its
 * data, each external file's range against the file's size. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <protobuf-c/protobuf-c.h>

#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "tensors/model_dir.h"
#include "tensors/weights_internal.h"
#include "onnx.pb-c.h"

/* What a model keeps: the unpacked message, its allocator, the copies of
 * the 16-bit types' int32_data. */
struct onnx_model {
	ProtobufCAllocator alloc;
	uint64_t used, budget; /* bytes protobuf-c has, and may have */
	int over;              /* an allocation was refused */
	Onnx__ModelProto *model;
	unsigned char **copies;
	size_t n_copies;
};

/* ------------------------------------------------------ the wire framing
 *
 * The protobuf framing of an ONNX model, checked before protobuf-c
 * unpacks it.
 *
 * protobuf-c unpacks a message by recursion with no depth limit (a model
 * nesting TypeProto in TypeProto a million times deep would overflow the
 * stack) and says only "failed" of a bad message.  This walk reads no
 * field's value: it follows the tags and lengths, with an explicit stack,
 * and descends into a length-delimited field only when protobuf-c's
 * generated descriptor says the field is a message, so that a truncated
 * varint, a length past the end of its message or nesting deeper than
 * HA_ONNX_MAX_DEPTH is refused naming its byte.
 *
 * Two more things protobuf-c would take without a word are refused here:
 * a field that holds one message (not a repeated one) given twice in the
 * same message, which protobuf-c merges into the first, copying it again
 * at each repeat (a small file that repeats its graph thousands of times
 * costs time quadratic in its size), and a string with a NUL byte, which
 * the unpacked model's C string would cut short without a trace. */

/* The most fields a message's descriptor may have for its singular
 * message fields to be tracked (ONNX's largest has fewer than 30). */
#define TRACKED_FIELDS 128

struct frame {
	size_t end; /* the message's end, in bytes from the file's start */
	const ProtobufCMessageDescriptor *desc;
	uint64_t seen[TRACKED_FIELDS / 64]; /* singular message fields met */
};

/* Refuse f, a field of desc at byte at, when it holds one message and
 * has been met in this message before (protobuf-c would merge them). */
static enum ha_status once(struct frame *fr, const ProtobufCFieldDescriptor *f,
                           size_t at, struct ha_error *err)
{
	if (f->label == PROTOBUF_C_LABEL_REPEATED)
		return HA_OK;
	size_t index = (size_t)(f - fr->desc->fields);
	if (index >= TRACKED_FIELDS)
		return HA_OK;
	uint64_t bit = (uint64_t)1 << (index % 64);
	if (fr->seen[index / 64] & bit)
		return ha_fail(err, HA_EFORMAT,
		               "byte %zu: a second '%s' in one %s, a field that "
		               "holds one message (protobuf-c would merge them)",
		               at, f->name, fr->desc->name);
	fr->seen[index / 64] |= bit;
	return HA_OK;
}

/* A base-128 varint at *pos, before end, into *v. */
static enum ha_status varint(const unsigned char *p, size_t *pos, size_t end,
                             uint64_t *v, struct ha_error *err)
{
	size_t at = *pos;
	uint64_t x = 0;
	*v = 0; /* set on every path: callers read it only after HA_OK */
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*pos >= end)
			return ha_fail(err, HA_EFORMAT,
			               "byte %zu: truncated varint (its message "
			               "ends at byte %zu)", at, end);
		unsigned char b = p[(*pos)++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return HA_OK;
		}
	}
	return ha_fail(err, HA_EFORMAT,
	               "byte %zu: varint longer than 10 bytes", at);
}

/* Check the wire framing of the n bytes at p as a message of type top:
 * every varint complete, every length within its message, every wire type
 * one ONNX uses, messages nested at most HA_ONNX_MAX_DEPTH deep.
 * HA_EFORMAT naming the byte otherwise. */
static enum ha_status wire_check(const unsigned char *p, size_t n,
                                 const ProtobufCMessageDescriptor *top,
                                 struct ha_error *err)
{
	struct frame stack[HA_ONNX_MAX_DEPTH + 1];
	size_t depth = 0, pos = 0;
	memset(stack, 0, sizeof stack[0]);
	stack[0].end = n;
	stack[0].desc = top;
	for (;;) {
		if (pos == stack[depth].end) {
			if (depth == 0)
				return HA_OK;
			depth--;
			continue;
		}
		size_t end = stack[depth].end, at = pos;
		uint64_t tag, v;
		enum ha_status st = varint(p, &pos, end, &tag, err);
		if (st != HA_OK)
			return st;
		uint64_t field = tag >> 3;
		if (field == 0 || field > 0x1fffffff)
			return ha_fail(err, HA_EFORMAT,
			               "byte %zu: field number %llu (a protobuf "
			               "field is numbered 1 to 2^29-1)", at,
			               (unsigned long long)field);
		switch (tag & 7) {
		case 0:
			st = varint(p, &pos, end, &v, err);
			if (st != HA_OK)
				return st;
			break;
		case 1:
		case 5: {
			size_t k = (tag & 7) == 1 ? 8 : 4;
			if (end - pos < k)
				return ha_fail(err, HA_EFORMAT,
				               "byte %zu: a %zu-byte field runs past "
				               "the end of its message (byte %zu)",
				               at, k, end);
			pos += k;
			break;
		}
		case 2: {
			st = varint(p, &pos, end, &v, err);
			if (st != HA_OK)
				return st;
			if (v > end - pos)
				return ha_fail(err, HA_EFORMAT,
				               "byte %zu: a length of %llu bytes runs "
				               "past the end of its message (%zu byte(s) "
				               "left)", at, (unsigned long long)v,
				               end - pos);
			const ProtobufCFieldDescriptor *f =
			        stack[depth].desc
			                ? protobuf_c_message_descriptor_get_field(
			                          stack[depth].desc, (unsigned)field)
			                : NULL;
			if (f && f->type == PROTOBUF_C_TYPE_STRING &&
			    memchr(p + pos, '\0', (size_t)v))
				return ha_fail(err, HA_EFORMAT,
				               "byte %zu: the string '%s' in %s "
				               "holds a NUL byte", at, f->name,
				               stack[depth].desc->name);
			if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE) {
				pos += (size_t)v;
				break;
			}
			st = once(&stack[depth], f, at, err);
			if (st != HA_OK)
				return st;
			if (depth == HA_ONNX_MAX_DEPTH)
				return ha_fail(err, HA_EFORMAT,
				               "byte %zu: messages nest deeper than "
				               "the limit of %d", at,
				               HA_ONNX_MAX_DEPTH);
			depth++;
			memset(&stack[depth], 0, sizeof stack[depth]);
			stack[depth].end = pos + (size_t)v;
			stack[depth].desc = f->descriptor;
			break;
		}
		default:
			return ha_fail(err, HA_EFORMAT,
			               "byte %zu: wire type %u, which ONNX does "
			               "not use", at, (unsigned)(tag & 7));
		}
	}
}

/* ------------------------------------------------- the bounded allocator */

/* Each block carries its size ahead of it, so that free can count it. */
#define BLOCK_HEAD 16

static void *bounded_alloc(void *data, size_t size)
{
	struct onnx_model *m = data;
	if (size > SIZE_MAX - BLOCK_HEAD ||
	    size + BLOCK_HEAD > m->budget - m->used) {
		m->over = 1;
		return NULL;
	}
	unsigned char *p = malloc(size + BLOCK_HEAD);
	if (!p)
		return NULL;
	memcpy(p, &size, sizeof size);
	m->used += size + BLOCK_HEAD;
	return p + BLOCK_HEAD;
}

static void bounded_free(void *data, void *ptr)
{
	struct onnx_model *m = data;
	if (!ptr)
		return;
	unsigned char *p = (unsigned char *)ptr - BLOCK_HEAD;
	size_t size;
	memcpy(&size, p, sizeof size);
	m->used -= size + BLOCK_HEAD;
	free(p);
}

void ha_onnx_free(void *onnx)
{
	struct onnx_model *m = onnx;
	if (!m)
		return;
	if (m->model)
		onnx__model_proto__free_unpacked(m->model, &m->alloc);
	for (size_t i = 0; i < m->n_copies; i++)
		free(m->copies[i]);
	free(m->copies);
	free(m);
}

/* ---------------------------------------------------------- one tensor */

struct reader {
	struct ha_weights *w;
	struct onnx_model *m;
	const char *path;    /* the model file, or NULL (an image) */
	struct ckpt_dir dir; /* its directory, opened on first use */
	int dir_open;
	size_t cap;          /* tensors allocated */
};

struct dtype_of {
	int32_t code;
	const char *name;
	enum ha_dtype dtype;
	size_t size;
};

static const struct dtype_of DTYPES[] = {
	{1, "FLOAT", HA_DTYPE_F32, 4},      {2, "UINT8", HA_DTYPE_OTHER, 0},
	{3, "INT8", HA_DTYPE_OTHER, 0},     {4, "UINT16", HA_DTYPE_OTHER, 0},
	{5, "INT16", HA_DTYPE_OTHER, 0},    {6, "INT32", HA_DTYPE_OTHER, 0},
	{7, "INT64", HA_DTYPE_OTHER, 0},    {8, "STRING", HA_DTYPE_OTHER, 0},
	{9, "BOOL", HA_DTYPE_OTHER, 0},     {10, "FLOAT16", HA_DTYPE_F16, 2},
	{11, "DOUBLE", HA_DTYPE_F64, 8},    {12, "UINT32", HA_DTYPE_OTHER, 0},
	{13, "UINT64", HA_DTYPE_OTHER, 0},  {14, "COMPLEX64", HA_DTYPE_OTHER, 0},
	{15, "COMPLEX128", HA_DTYPE_OTHER, 0},
	{16, "BFLOAT16", HA_DTYPE_BF16, 2},
};

/* A whole decimal number (an external_data offset or length) into *out. */
static int decimal(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return 0;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 1;
}

/* Tensor t's data in an external file: its keys, the file inside the
 * model's directory, the range within the file's size. */
static enum ha_status external(struct reader *r, const Onnx__TensorProto *tp,
                               struct ha_weights_tensor *t,
                               struct ha_error *err)
{
	const char *location = NULL;
	uint64_t offset = 0, length = t->nbytes;
	for (size_t i = 0; i < tp->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = tp->external_data[i];
		const char *key = e->key ? e->key : "";
		if (strcmp(key, "location") == 0)
			location = e->value;
		else if ((strcmp(key, "offset") == 0 &&
		          !decimal(e->value, &offset)) ||
		         (strcmp(key, "length") == 0 &&
		          !decimal(e->value, &length)))
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': external_data %s is '%.40s', "
			               "not a whole number of bytes", t->name, key,
			               e->value ? e->value : "");
	}
	if (!location || !*location)
		return ha_fail(err, HA_EFORMAT, "tensor '%s': external data "
		               "without a location", t->name);
	if (length != t->nbytes)
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': external data of %" PRIu64 " bytes, "
		               "but its dims make %" PRIu64 " bytes", t->name,
		               length, t->nbytes);
	if (!r->path)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "tensor '%s': external data is not read from a "
		               "model in memory", t->name);
	if (!r->dir_open) {
		const char *slash = strrchr(r->path, '/');
		char *dir = slash ? strndup(r->path, slash == r->path
		                                             ? 1
		                                             : (size_t)(slash -
		                                                        r->path))
		                  : strdup(".");
		if (!dir)
			return ha_fail(err, HA_ENOMEM, "out of memory");
		enum ha_status st = ckpt_dir_open(&r->dir, dir, err);
		if (st != HA_OK) {
			if (err)
				err->file = NULL; /* the path is the model's */
			free(dir);
			return st;
		}
		r->dir_open = 1;
	}
	char *real = NULL;
	enum ha_status st = ckpt_locate(&r->dir, location, 0, &real, err);
	if (st != HA_OK) {
		/* ckpt_locate's "LOCATION: why", said of this tensor */
		if (err) {
			char why[HA_ERROR_MESSAGE_MAX];
			snprintf(why, sizeof why, "%s", err->message);
			ha_fail(err, st, "tensor '%s': external data %s", t->name,
			        why);
			err->file = NULL;
		}
		return st;
	}
	struct stat sb;
	if (stat(real, &sb) != 0) {
		free(real);
		return ha_fail(err, HA_EIO, "tensor '%s': external data '%s': "
		               "%s", t->name, location, strerror(errno));
	}
	if (offset > (uint64_t)sb.st_size ||
	    length > (uint64_t)sb.st_size - offset) {
		free(real);
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': external data '%s' bytes %" PRIu64
		               "..%" PRIu64 " lie past its end (%lld bytes)",
		               t->name, location, offset, offset + length,
		               (long long)sb.st_size);
	}
	t->external = real;
	t->offset = offset;
	return HA_OK;
}

/* The little-endian bytes of int32_data's 16-bit values, kept by m. */
static enum ha_status copy16(struct reader *r, const Onnx__TensorProto *tp,
                             struct ha_weights_tensor *t,
                             struct ha_error *err)
{
	struct onnx_model *m = r->m;
	unsigned char **grown = realloc(m->copies,
	                                (m->n_copies + 1) * sizeof *grown);
	if (!grown)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	m->copies = grown;
	unsigned char *b = malloc(tp->n_int32_data ? 2 * tp->n_int32_data : 1);
	if (!b)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	m->copies[m->n_copies++] = b;
	for (size_t i = 0; i < tp->n_int32_data; i++) {
		int32_t v = tp->int32_data[i];
		if (v < 0 || v > 0xffff)
			return ha_fail(err, HA_EFORMAT,
			               "tensor '%s': int32_data[%zu] is %" PRId32
			               ", not the bits of a %s", t->name, i, v,
			               t->dtype_name);
		b[2 * i] = (unsigned char)(v & 0xff);
		b[2 * i + 1] = (unsigned char)(v >> 8);
	}
	t->data = b;
	return HA_OK;
}

/* Where t's data is: raw_data, a typed field or an external file, with
 * exactly as many bytes or values as its dims make. */
static enum ha_status locate_data(struct reader *r,
                                  const Onnx__TensorProto *tp,
                                  struct ha_weights_tensor *t,
                                  struct ha_error *err)
{
	size_t typed = tp->n_float_data + tp->n_int32_data + tp->n_string_data +
	               tp->n_int64_data + tp->n_double_data + tp->n_uint64_data;
	int ext = tp->has_data_location &&
	          tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	int sources = (tp->has_raw_data && tp->raw_data.len > 0) + (typed > 0) +
	              ext;
	if (sources > 1)
		return ha_fail(err, HA_EFORMAT, "tensor '%s': its data is in "
		               "more than one of raw_data, a typed field and "
		               "an external file", t->name);
	if (tp->segment)
		return ha_fail(err, HA_EUNSUPPORTED, "tensor '%s': a segment of "
		               "a tensor is not read", t->name);
	if (t->dtype == HA_DTYPE_OTHER)
		return HA_OK; /* refused when read (weights.c) */
	if (ext)
		return external(r, tp, t, err);
	size_t have = 0;
	const void *at = NULL;
	const char *field = "raw_data";
	if (typed == 0) {
		at = tp->raw_data.data;
	} else if (t->dtype == HA_DTYPE_F32 &&
	           typed == tp->n_float_data) {
		have = tp->n_float_data, at = tp->float_data;
		field = "float_data";
	} else if (t->dtype == HA_DTYPE_F64 &&
	           typed == tp->n_double_data) {
		have = tp->n_double_data, at = tp->double_data;
		field = "double_data";
	} else if ((t->dtype == HA_DTYPE_F16 || t->dtype == HA_DTYPE_BF16) &&
	           typed == tp->n_int32_data) {
		have = tp->n_int32_data;
		field = "int32_data";
	} else {
		return ha_fail(err, HA_EFORMAT, "tensor '%s': a %s tensor with "
		               "its data in a typed field %s does not use",
		               t->name, t->dtype_name, t->dtype_name);
	}
	if (typed == 0 && (uint64_t)tp->raw_data.len != t->nbytes)
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': its dims make %" PRIu64 " elements "
		               "(%" PRIu64 " bytes) but raw_data holds %zu bytes",
		               t->name, t->elements, t->nbytes, tp->raw_data.len);
	if (typed && (uint64_t)have != t->elements)
		return ha_fail(err, HA_EFORMAT,
		               "tensor '%s': its dims make %" PRIu64 " elements "
		               "but %s holds %zu", t->name, t->elements, field,
		               have);
	if (typed && (t->dtype == HA_DTYPE_F16 || t->dtype == HA_DTYPE_BF16))
		return copy16(r, tp, t, err);
	t->data = at;
	/* raw_data is little-endian; a typed field in the host's order */
	static const uint16_t one = 1;
	t->big_endian = typed && *(const unsigned char *)&one == 0;
	return HA_OK;
}

static enum ha_status add_tensor(struct reader *r, const char *name,
                                 const Onnx__TensorProto *tp,
                                 struct ha_error *err)
{
	struct ha_weights *w = r->w;
	if (!name || !*name)
		return ha_fail(err, HA_EFORMAT, "a tensor of the graph has no "
		               "name");
	enum ha_status named = ha_weights_check_name(name, strlen(name), err);
	if (named != HA_OK)
		return named;
	if (w->count == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct ha_weights_tensor *g = realloc(w->tensors,
		                                      cap * sizeof *g);
		if (!g)
			return ha_fail(err, HA_ENOMEM, "out of memory");
		w->tensors = g;
		r->cap = cap;
	}
	struct ha_weights_tensor *t = &w->tensors[w->count];
	memset(t, 0, sizeof *t);
	t->name = strdup(name);
	if (!t->name)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	w->count++;
	int32_t code = tp->has_data_type ? tp->data_type : 0;
	snprintf(t->dtype_name, sizeof t->dtype_name, "type %" PRId32, code);
	t->dtype = HA_DTYPE_OTHER;
	for (size_t i = 0; i < sizeof DTYPES / sizeof *DTYPES; i++)
		if (DTYPES[i].code == code) {
			snprintf(t->dtype_name, sizeof t->dtype_name, "%s",
			         DTYPES[i].name);
			t->dtype = DTYPES[i].dtype;
			t->elem_size = DTYPES[i].size;
		}
	if (tp->n_dims > HA_WEIGHTS_MAX_DIMS)
		return ha_fail(err, HA_EUNSUPPORTED, "tensor '%s': %zu dims, "
		               "more than the limit of %d", t->name, tp->n_dims,
		               HA_WEIGHTS_MAX_DIMS);
	t->ndim = tp->n_dims;
	t->elements = 1;
	for (size_t k = 0; k < tp->n_dims; k++) {
		if (tp->dims[k] < 0)
			return ha_fail(err, HA_EFORMAT, "tensor '%s': dims[%zu] is "
			               "%" PRId64 ", not a size", t->name, k,
			               tp->dims[k]);
		t->shape[k] = (uint64_t)tp->dims[k];
		if (ha_mul_overflows(t->elements, t->shape[k], &t->elements))
			return ha_fail(err, HA_EFORMAT, "tensor '%s': its dims' "
			               "product overflows 64 bits", t->name);
	}
	if (t->elem_size &&
	    ha_mul_overflows(t->elements, t->elem_size, &t->nbytes))
		return ha_fail(err, HA_EFORMAT, "tensor '%s': its size in bytes "
		               "overflows 64 bits", t->name);
	return locate_data(r, tp, t, err);
}

/* The graph's initializers and Constant nodes' value tensors. */
static enum ha_status read_graph(struct reader *r, const Onnx__GraphProto *g,
                                 struct ha_error *err)
{
	enum ha_status st = HA_OK;
	for (size_t i = 0; st == HA_OK && i < g->n_initializer; i++)
		st = add_tensor(r, g->initializer[i]->name, g->initializer[i],
		                err);
	for (size_t i = 0; st == HA_OK && i < g->n_node; i++) {
		const Onnx__NodeProto *node = g->node[i];
		if (!node->op_type || strcmp(node->op_type, "Constant") != 0 ||
		    (node->domain && *node->domain &&
		     strcmp(node->domain, "ai.onnx") != 0))
			continue;
		for (size_t a = 0; st == HA_OK && a < node->n_attribute; a++) {
			const Onnx__AttributeProto *at = node->attribute[a];
			if (!at->name || strcmp(at->name, "value") != 0 || !at->t)
				continue;
			if (node->n_output != 1)
				return ha_fail(err, HA_EFORMAT, "Constant node %zu "
				               "has %zu outputs, not one", i,
				               node->n_output);
			st = add_tensor(r, node->output[0], at->t, err);
		}
	}
	return st;
}

/* ---------------------------------------------------------- the model */

static enum ha_status unpack(struct ha_weights *w, struct onnx_model *m,
                             struct ha_error *err)
{
	if (w->size == 0)
		return ha_fail(err, HA_EFORMAT, "not an ONNX model: the file is "
		               "empty");
	if (w->size > HA_ONNX_MAX_FILE)
		return ha_fail(err, HA_EUNSUPPORTED, "%" PRIu64 " bytes, more "
		               "than the limit of %" PRIu64 " for an ONNX model "
		               "(keep its tensors as external data)", w->size,
		               (uint64_t)HA_ONNX_MAX_FILE);
	size_t n = (size_t)w->size;
	const unsigned char *bytes = w->mem;
	/* A file is read into memory, not mapped: a mapped file that another
	 * process truncates raises SIGBUS where its lost pages are touched,
	 * and a library may not catch signals.  A read that comes up short
	 * is an error instead; the peak is the same (file and message). */
	unsigned char *copy = NULL;
	enum ha_status st = HA_OK;
	if (w->file) {
		copy = malloc(n);
		if (!copy)
			return ha_fail(err, HA_ENOMEM, "out of memory reading "
			               "%zu bytes", n);
		st = ha_weights_read_at(w, 0, copy, n, "the model", err);
		bytes = copy;
	}
	if (st == HA_OK)
		st = wire_check(bytes, n, &onnx__model_proto__descriptor,
		                     err);
	if (st == HA_OK) {
		m->model = onnx__model_proto__unpack(&m->alloc, n, bytes);
		if (!m->model && m->over)
			st = ha_fail(err, HA_EUNSUPPORTED,
			             "the unpacked model needs more than %" PRIu64
			             " bytes, the limit for a file of %zu bytes",
			             m->budget, n);
		else if (!m->model)
			st = ha_fail(err, HA_EFORMAT,
			             "not an ONNX model: protobuf-c cannot unpack "
			             "it as an onnx.ModelProto");
	}
	free(copy); /* the tensors' bytes are in the message now */
	return st;
}

enum ha_status ha_onnx_open(struct ha_weights *w, const char *path,
                            struct ha_error *err)
{
	struct onnx_model *m = calloc(1, sizeof *m);
	if (!m)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	w->onnx = m;
	m->alloc.alloc = bounded_alloc;
	m->alloc.free = bounded_free;
	m->alloc.allocator_data = m;
	m->budget = HA_ONNX_MAX_UNPACKED(w->size);
	enum ha_status st = unpack(w, m, err);
	if (st != HA_OK)
		return st;
	if (!m->model->graph)
		return ha_fail(err, HA_EFORMAT, "not an ONNX model: it has no "
		               "graph");
	struct reader r = {.w = w, .m = m, .path = path};
	st = read_graph(&r, m->model->graph, err);
	if (r.dir_open) {
		free((char *)r.dir.dir);
		ckpt_dir_close(&r.dir);
	}
	return st;
}
