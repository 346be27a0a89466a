/* ONNX models as a weights format (library-internal; see weights.h).
 *
 * onnx.c maps the file, checks its framing, unpacks it with
 * protobuf-c under a bounded allocator and fills the weights container's
 * tensor directory: each tensor's bytes are either in memory (the unpacked
 * model's raw_data or typed field, or a little-endian copy of int32_data
 * for the 16-bit types) or in an external data file of the model's
 * directory, read on demand. */
#ifndef HEADALLOC_ONNX_INTERNAL_H
#define HEADALLOC_ONNX_INTERNAL_H

#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

#include <headalloc/error.h>
#include <headalloc/status.h>

struct ha_weights;

/* Fill w's tensor directory from the ONNX model in w's file or image
 * (w->size bytes).  path is the file's (its directory holds the external
 * data), or NULL for an image in memory, whose external data is refused.
 * On failure w may hold a partial directory, which ha_weights_free frees
 * (with onnx_free). */
enum ha_status ha_onnx_open(struct ha_weights *w, const char *path,
                            struct ha_error *err);

/* Free what ha_onnx_open kept (w->onnx); NULL is accepted. */
void ha_onnx_free(void *onnx);

#endif
