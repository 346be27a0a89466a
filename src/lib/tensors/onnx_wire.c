/* The protobuf framing of an ONNX model, checked before protobuf-c
 * unpacks it (see onnx_internal.h).
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
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "tensors/onnx_internal.h"

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

enum ha_status onnx_wire_check(const unsigned char *p, size_t n,
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
