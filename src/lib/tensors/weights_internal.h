/* The weights container and its file formats (library-internal).
 *
 * weights.c is the container: it opens a file or an image in memory, picks
 * the format, keeps the tensor directory, selects tensors by name and
 * decodes their data.  safetensors.c and npy.c each read one format's
 * header into that directory (names, dtypes, shapes, absolute data
 * offsets) and check it against the file size; neither reads tensor data.
 * onnx.c fills it from an ONNX model (ha_onnx_open below).
 *
 * Every size read from a file is checked against the file size before it
 * is used in arithmetic, an allocation or a read. */
#ifndef HEADALLOC_WEIGHTS_INTERNAL_H
#define HEADALLOC_WEIGHTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <headalloc/error.h>
#include <headalloc/status.h>
#include <headalloc/weights.h>

/* Capacity of a tensor's dtype spelling, with its NUL: the longest
 * safetensors dtype ("F8_E4M3") fits, and npy.c refuses a longer descr. */
#define HA_DTYPE_NAME_MAX 16

/* The first bytes of every .npy file; without them a file is safetensors
 * (HA_WEIGHTS_FORMAT_AUTO). */
#define HA_NPY_MAGIC "\x93NUMPY"
#define HA_NPY_MAGIC_LEN 6

/* One tensor of the directory. */
struct ha_weights_tensor {
	char *name;
	char dtype_name[HA_DTYPE_NAME_MAX];
	enum ha_dtype dtype;
	size_t elem_size;   /* bytes per element */
	int big_endian;
	int fortran_order;  /* npy: the first index varies fastest */
	size_t ndim;
	uint64_t shape[HA_WEIGHTS_MAX_DIMS];
	uint64_t elements;
	uint64_t offset;    /* absolute, in the file (or in `external`) */
	uint64_t nbytes;
	const unsigned char *data; /* ONNX: the bytes in memory, or NULL */
	char *external;     /* ONNX: the resolved external data file, or NULL */
};

struct ha_weights {
	FILE *file;                /* NULL for an image in memory */
	const unsigned char *mem;
	uint64_t size;             /* bytes in the file or image */
	struct ha_weights_tensor *tensors;
	size_t count;              /* tensors in the directory, names set */
	void *onnx;                /* ONNX: the unpacked model (onnx.c) */
};

/* ---------------------------------------------------------------- bytes */

static inline uint64_t ha_le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline uint32_t ha_le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* a * b into *out, or 1 (and *out untouched) when it overflows 64 bits. */
static inline int ha_mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a != 0 && b > UINT64_MAX / a)
		return 1;
	*out = a * b;
	return 0;
}

/* A tensor's name of any format under the one name rule (text.h,
 * ha_name_fault): HA_OK, or HA_EFORMAT "tensor name 'NAME' holds a
 * control character" (the name shown safe). */
enum ha_status ha_weights_check_name(const char *name, size_t len,
                                     struct ha_error *err);

/* Read n bytes at offset of w's file or image; a range beyond the end is
 * HA_EFORMAT (the file is truncated; `what` names the bytes wanted in the
 * message), a failing seek or read HA_EIO. */
enum ha_status ha_weights_read_at(const struct ha_weights *w, uint64_t offset,
                                  void *buf, size_t n, const char *what,
                                  struct ha_error *err);

/* ---------------------------------------------------------- the formats */

/* Fill w's tensor directory (w->tensors, w->count; their order is left to
 * the caller) from the safetensors file or image w->size bytes long.  On
 * failure w may hold a partial directory, which ha_weights_free frees. */
enum ha_status ha_safetensors_open(struct ha_weights *w, struct ha_error *err);

/* The same for an .npy file or image, whose one tensor is named name. */
enum ha_status ha_npy_open(struct ha_weights *w, const char *name,
                           struct ha_error *err);

/* The same for an ONNX model (onnx.c), each tensor's bytes either in
 * the unpacked model, kept in w->onnx and freed by ha_onnx_free (NULL is
 * accepted), or in an external data file of path's directory, read on
 * demand; path NULL: an image in memory, whose external data is refused. */
enum ha_status ha_onnx_open(struct ha_weights *w, const char *path,
                            struct ha_error *err);
void ha_onnx_free(void *onnx);

/* The same over a file image in memory (size bytes at data), which must
 * stay valid and unchanged until ha_weights_free().  npy_name names the
 * tensor of an .npy image (NULL: "array"). */
enum ha_status ha_weights_open_memory(const void *data, size_t size,
                                      enum ha_weights_format format,
                                      const char *npy_name,
                                      struct ha_weights **out,
                                      struct ha_error *err);

/* The number of tensors (0 for NULL).  Tensors are indexed 0..count-1 in
 * ascending strcmp order of their names. */
size_t ha_weights_count(const struct ha_weights *w);

/* Describe tensor index into *info.  HA_EINVAL for NULL or a bad index. */
enum ha_status ha_weights_info(const struct ha_weights *w, size_t index,
                               struct ha_tensor_info *info);

/* The tensors whose names match pattern (fnmatch(3), no flags; an exact
 * name selects that tensor alone, even if it reads as a pattern that would
 * match others; NULL matches every tensor), as a new
 * array of indices in ascending name order that the caller frees with
 * free().  A pattern matching nothing is HA_EINVAL with a message naming
 * the pattern; then *indices is NULL and *count 0.  HA_ENOMEM. */
enum ha_status ha_weights_select(const struct ha_weights *w,
                                 const char *pattern, size_t **indices,
                                 size_t *count, struct ha_error *err);

/* Decode tensor index into a new array of info.elements doubles in C
 * (row-major) order, whatever the file's order, that the caller frees
 * with free().
 * Errors: HA_EINVAL (NULL, bad index), HA_EUNSUPPORTED (a dtype that is
 * not floating point, more than HA_WEIGHTS_MAX_ELEMENTS elements),
 * HA_EIO (a read failed or the file shrank), HA_EFORMAT (a NaN or
 * infinite element, named by its flat index in C order), HA_ENOMEM; then
 * *out is NULL. */
enum ha_status ha_weights_read(const struct ha_weights *w, size_t index,
                               double **out, struct ha_error *err);

/* Exact conversions of binary16 and bfloat16 bit patterns to double,
 * including subnormals, signed zeros, infinities and NaN. */
double ha_f16_to_double(uint16_t bits);
double ha_bf16_to_double(uint16_t bits);

/* HA_EFORMAT "tensor 'NAME': element AT is NaN (infinite); weights must
 * be finite": the one refusal of a non-finite weight, a file's or an
 * array's. */
enum ha_status ha_weights_fail_nonfinite(const char *name, size_t at, double v,
                                         struct ha_error *err);

#endif
