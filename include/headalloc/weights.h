/* headalloc — reading weight tensors from .safetensors, .npy and .onnx files.
 *
 * Every byte of a file is treated as hostile: sizes are checked before any
 * arithmetic or allocation, and a malformed file gives HA_EFORMAT with a
 * message in the caller's struct ha_error, never a crash.  Opening a file
 * reads and validates only its header; tensor data is read on demand with
 * fread, so a multi-gigabyte checkpoint is never loaded whole.
 *
 * .safetensors: an 8-byte little-endian header length N (at most
 * HA_WEIGHTS_MAX_HEADER), a JSON header of N bytes (parsed with json-c)
 * mapping tensor names to {dtype, shape, data_offsets}, then the data
 * buffer.  The offsets of all tensors must tile the data buffer exactly:
 * no gap, no overlap, nothing past its end.  Readable dtypes: F64, F32,
 * F16, BF16; other known dtypes (I32, U8, ...) open fine and give
 * HA_EUNSUPPORTED when read; an unknown dtype string is HA_EFORMAT.
 *
 * .npy (format versions 1.0, 2.0, 3.0): descr '<f8' '<f4' '<f2' (or the
 * big-endian '>' forms), fortran_order False or True (what
 * numpy.save(W.T) writes: the first index varies fastest; it is read back
 * in C order, the same matrix as a C-ordered file of it), any shape; the
 * data must be exactly the array's bytes.  The one tensor
 * is named after the file: its base name without a ".npy" suffix.
 *
 * .onnx (an ONNX ModelProto, unpacked by protobuf-c from C generated out
 * of Debian's onnx.proto): the tensors are the main graph's initializers
 * and its Constant nodes' `value` tensors (named by the node's output),
 * FLOAT, FLOAT16, BFLOAT16 or DOUBLE, in raw_data or the typed fields
 * (float_data, double_data, int32_data for the 16-bit types); other types
 * open and give HA_EUNSUPPORTED when read.  External data
 * (data_location EXTERNAL, keys location/offset/length) stays in its file,
 * which must resolve inside the model's directory; it is read on demand.
 * The file is mapped and unpacked whole: the unpacked model (about the
 * size of the tensors held in the file, plus the graph) may take at most
 * HA_ONNX_MAX_UNPACKED; the file is at most HA_ONNX_MAX_FILE bytes and
 * nests messages at most HA_ONNX_MAX_DEPTH deep. */
#ifndef HEADALLOC_WEIGHTS_H
#define HEADALLOC_WEIGHTS_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest header accepted (safetensors JSON or npy dict): 16 MB.
 * json-c takes about 25 bytes of memory for one of header, so a 16 MB
 * header costs about 400 MB and under two seconds (bench/headalloc-limits);
 * the 100 MB this was took 2 GB.  Real checkpoints' headers are well
 * under 1 MB. */
#define HA_WEIGHTS_MAX_HEADER (16u * 1000u * 1000u)
/* The most dimensions a tensor may have. */
#define HA_WEIGHTS_MAX_DIMS 32
/* The most elements ha_weights_read() decodes in one tensor (2^28, i.e.
 * 2 GiB of doubles); larger tensors give HA_EUNSUPPORTED. */
#define HA_WEIGHTS_MAX_ELEMENTS (UINT64_C(1) << 28)
/* ONNX: the largest .onnx file (protobuf's own limit on a message: 2 GiB),
 * how deep its messages may nest (real models: under ten; a subgraph
 * adds three), and the memory its unpacked model may take: twice the
 * file plus 64 MiB. */
#define HA_ONNX_MAX_FILE (UINT64_C(1) << 31)
#define HA_ONNX_MAX_DEPTH 64
#define HA_ONNX_MAX_UNPACKED(file_bytes) (2 * (uint64_t)(file_bytes) + (UINT64_C(64) << 20))

enum ha_dtype {
	HA_DTYPE_F64,
	HA_DTYPE_F32,
	HA_DTYPE_F16,  /* IEEE 754 binary16 */
	HA_DTYPE_BF16, /* bfloat16: the top half of a binary32 */
	HA_DTYPE_OTHER /* a known but unreadable dtype (integers, fp8, ...) */
};

/* A description of one tensor; the pointers stay valid until the
 * struct ha_weights it came from is freed. */
struct ha_tensor_info {
	const char *name;
	enum ha_dtype dtype;
	const char *dtype_name; /* as spelled in the file: "F32", "<f4", ... */
	size_t ndim;
	const uint64_t *shape;  /* ndim extents, outermost first */
	uint64_t elements;      /* product of the extents (1 for ndim = 0) */
};

/* An open weights file: its validated tensor directory. */
struct ha_weights;

/* The file formats. */
enum ha_weights_format {
	HA_WEIGHTS_FORMAT_AUTO, /* "\x93NUMPY" magic: .npy; else safetensors */
	HA_WEIGHTS_FORMAT_SAFETENSORS,
	HA_WEIGHTS_FORMAT_NPY,
	HA_WEIGHTS_FORMAT_ONNX  /* an image in memory: no external data */
};

/* Open path and read its header.  The format follows the name: a ".npy"
 * suffix is .npy, ".safetensors" is safetensors, ".onnx" ONNX (whose
 * external data files are resolved in path's directory), anything else is told by
 * the magic bytes (HA_WEIGHTS_FORMAT_AUTO).  On HA_OK *out owns the handle
 * (and the open file): free it with ha_weights_free().  Errors: HA_EINVAL
 * (NULL argument), HA_EIO (cannot open, seek or read), HA_EFORMAT
 * (malformed or truncated file), HA_EUNSUPPORTED (a non-float npy dtype, an npy version other than 1.0/2.0/3.0, more than
 * HA_WEIGHTS_MAX_DIMS dimensions), HA_ENOMEM; then *out is NULL and err
 * (if not NULL) says what is wrong. */
HA_API enum ha_status ha_weights_open(const char *path, struct ha_weights **out,
                               struct ha_error *err);

/* Close the file and free the handle; NULL is accepted. */
HA_API void ha_weights_free(struct ha_weights *w);

#ifdef __cplusplus
}
#endif
#endif
