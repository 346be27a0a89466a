/* The weights container (weights.h; what it holds and how the formats'
 * readers fill it: weights_internal.h). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/text.h"
#include <headalloc/weights.h>

#include "base/open_file.h"
#include "base/error_internal.h"
#include "tensors/weights_internal.h"

/* ha_weights_read() decodes a tensor through a buffer of this many bytes,
 * so that reading from a file costs no more memory than the doubles. */
#define READ_CHUNK (1u << 16)

/* A tensor of HA_WEIGHTS_MAX_ELEMENTS doubles must be addressable. */
_Static_assert(HA_WEIGHTS_MAX_ELEMENTS <= SIZE_MAX / sizeof(double),
               "HA_WEIGHTS_MAX_ELEMENTS doubles must fit in a size_t");

/* ---------------------------------------------------------------- bytes */

enum ha_status ha_weights_check_name(const char *name, size_t len,
                                     struct ha_error *err)
{
	const char *fault = ha_name_fault(name, len, NULL);
	if (!fault)
		return HA_OK;
	char shown[128];
	return ha_fail(err, HA_EFORMAT, "tensor name '%s' %s",
	               name ? ha_text_safe(name, shown, sizeof shown) : "", fault);
}

enum ha_status ha_weights_read_at(const struct ha_weights *w, uint64_t offset,
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
	/* pread on the descriptor, not stdio: a buffer filled before the
	 * file shrank would hide the shrink, and no file position is
	 * shared.  Short of n bytes at the end of the file: it shrank
	 * since its size was taken (another process rewriting it). */
	if (offset > (uint64_t)INT64_MAX - n)
		return ha_fail(err, HA_EIO, "cannot read %s at byte %llu: past "
		               "the largest offset", what,
		               (unsigned long long)offset);
	int fd = fileno(w->file);
	for (size_t got = 0; got < n;) {
		ssize_t k = pread(fd, (unsigned char *)buf + got, n - got,
		                  (off_t)(offset + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return ha_fail(err, HA_EIO, "cannot read %s (%zu bytes at "
			               "%llu)%s%s", what, n,
			               (unsigned long long)offset,
			               k < 0 ? ": " : ": the file shrank",
			               k < 0 ? strerror(errno) : "");
		got += (size_t)k;
	}
	return HA_OK;
}

/* -------------------------------------------------------------- decoding */

/* binary16 and bfloat16 through binary32's bits, not ldexp per element:
 * exact, as every binary16 and bfloat16 value is a binary32 value and
 * every binary32 value a double. */

double ha_f16_to_double(uint16_t bits)
{
	uint32_t sign = (uint32_t)(bits & 0x8000) << 16;
	uint32_t exponent = (bits >> 10) & 0x1f;
	uint32_t mantissa = bits & 0x3ff;
	double v;

	if (exponent == 0x1f) {      /* infinity or NaN */
		v = mantissa ? NAN : INFINITY;
		return sign ? -v : v;
	}
	if (exponent == 0) {         /* zero or subnormal: m * 2^-24, exact */
		v = (double)mantissa * 0x1p-24;
		return sign ? -v : v;
	}
	/* normal: the same significand, the exponent rebiased 15 -> 127 */
	uint32_t u = sign | (exponent + (127 - 15)) << 23 | mantissa << 13;
	float f;
	memcpy(&f, &u, sizeof f);
	return (double)f;
}

double ha_bf16_to_double(uint16_t bits)
{
	if ((bits & 0x7f80) == 0x7f80 && (bits & 0x7f)) /* NaN */
		return bits & 0x8000 ? -NAN : NAN;
	/* the top half of a binary32, subnormals and infinities included */
	uint32_t u = (uint32_t)bits << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return (double)f;
}

static inline uint16_t load16(const unsigned char *p, int big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t load32(const unsigned char *p, int big)
{
	if (!big)
		return ha_le32(p);
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[0] << 24;
}

static inline uint64_t load64(const unsigned char *p, int big)
{
	if (!big)
		return ha_le64(p);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* k elements at p (in the tensor's dtype and byte order) into out: one
 * loop per dtype, so that the per-element work is a load and a
 * conversion. */
static void decode_run(const struct ha_weights_tensor *t,
                       const unsigned char *p, size_t k, double *out)
{
	int big = t->big_endian;
	switch (t->dtype) {
	case HA_DTYPE_F64:
		for (size_t i = 0; i < k; i++) {
			uint64_t u = load64(p + 8 * i, big);
			memcpy(&out[i], &u, sizeof u);
		}
		return;
	case HA_DTYPE_F32:
		for (size_t i = 0; i < k; i++) {
			uint32_t u = load32(p + 4 * i, big);
			float f;
			memcpy(&f, &u, sizeof f);
			out[i] = (double)f;
		}
		return;
	case HA_DTYPE_F16:
		for (size_t i = 0; i < k; i++)
			out[i] = ha_f16_to_double(load16(p + 2 * i, big));
		return;
	case HA_DTYPE_BF16:
		for (size_t i = 0; i < k; i++)
			out[i] = ha_bf16_to_double(load16(p + 2 * i, big));
		return;
	case HA_DTYPE_OTHER:
		break;
	}
	for (size_t i = 0; i < k; i++)
		out[i] = NAN;
}

/* ------------------------------------------------------------- handles */

void ha_weights_free(struct ha_weights *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->count; i++) {
		free(w->tensors[i].name);
		free(w->tensors[i].external);
	}
	free(w->tensors);
	ha_onnx_free(w->onnx);
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
	const struct ha_weights_tensor *t = &w->tensors[index];
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
	const struct ha_weights_tensor *x = a, *y = b;
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

/* Fortran order (the first index varies fastest in the file, as
 * numpy.save writes the transpose of a C array): where each element of
 * the file goes in C order.  c is the C offset of the file's current
 * element; a step advances the first index, carrying into the next. */
struct odometer {
	size_t ndim;
	uint64_t idx[HA_WEIGHTS_MAX_DIMS];
	const uint64_t *shape;
	size_t stride[HA_WEIGHTS_MAX_DIMS]; /* C strides, in elements */
	size_t c;
};

static void odometer_start(struct odometer *od,
                           const struct ha_weights_tensor *t)
{
	od->ndim = t->ndim;
	od->shape = t->shape;
	od->c = 0;
	size_t s = 1;
	for (size_t k = t->ndim; k-- > 0;) {
		od->idx[k] = 0;
		od->stride[k] = s;
		s *= (size_t)t->shape[k]; /* at most t->elements: no overflow */
	}
}

static void odometer_step(struct odometer *od)
{
	for (size_t k = 0; k < od->ndim; k++) {
		od->c += od->stride[k];
		if (++od->idx[k] < od->shape[k])
			return;
		od->c -= (size_t)od->shape[k] * od->stride[k];
		od->idx[k] = 0;
	}
}

/* ONNX external data: src reads t->external, its size as it is now
 * (HA_EIO when it no longer holds the tensor). */
static enum ha_status open_external(const struct ha_weights_tensor *t,
                                    struct ha_weights *src,
                                    struct ha_error *err)
{
	const char *kind;
	off_t end;
	src->mem = NULL;
	src->file = ha_open_regular(t->external, &kind);
	if (!src->file || fseeko(src->file, 0, SEEK_END) != 0 ||
	    (end = ftello(src->file)) < 0)
		return ha_fail(err, HA_EIO, "tensor '%s': cannot read its "
		               "external data %s: %s", t->name, t->external,
		               kind ? kind : strerror(errno));
	src->size = (uint64_t)end;
	/* onnx.c checked the range against the file when the model was
	 * opened: past its end now, the file shrank since. */
	if (t->offset > src->size || t->nbytes > src->size - t->offset)
		return ha_fail(err, HA_EIO, "tensor '%s': its external data %s "
		               "shrank to %llu bytes since the model was opened "
		               "(bytes %llu..%llu are needed)", t->name,
		               t->external, (unsigned long long)src->size,
		               (unsigned long long)t->offset,
		               (unsigned long long)(t->offset + t->nbytes));
	return HA_OK;
}

enum ha_status ha_weights_read(const struct ha_weights *w, size_t index,
                               double **out, struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!w || !out || index >= w->count)
		return ha_fail(err, HA_EINVAL, "NULL argument or bad index");

	const struct ha_weights_tensor *t = &w->tensors[index];
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
	size_t per_chunk = READ_CHUNK / t->elem_size;
	int transpose = t->fortran_order && t->ndim > 1;
	double *v = malloc((n ? n : 1) * sizeof *v);
	unsigned char *buf = malloc(READ_CHUNK);
	/* Fortran order: each run is decoded here, then scattered. */
	double *run = transpose ? malloc(per_chunk * sizeof *run) : NULL;
	enum ha_status st = HA_OK;
	struct ha_weights src = *w; /* where the bytes are: see below */
	if (!v || !buf || (transpose && !run)) {
		st = ha_fail(err, HA_ENOMEM, "out of memory reading tensor '%s'",
		             t->name);
		goto out;
	}

	/* The bytes are in w's file or image, or (ONNX) in memory or an
	 * external file: read through a view of the one they are in. */
	uint64_t base = t->offset;
	if (t->data) {
		src.file = NULL;
		src.mem = t->data;
		src.size = t->nbytes;
		base = 0;
	} else if (t->external) {
		st = open_external(t, &src, err);
		if (st != HA_OK)
			goto out;
	}
	struct odometer od;
	odometer_start(&od, t);
	for (size_t done = 0; done < n;) {
		size_t k = n - done < per_chunk ? n - done : per_chunk;
		st = ha_weights_read_at(&src, base +
		                               (uint64_t)done * t->elem_size,
		                        buf, k * t->elem_size, "tensor data", err);
		if (st != HA_OK)
			goto out;
		double *dst = transpose ? run : v + done;
		decode_run(t, buf, k, dst);
		for (size_t i = 0; i < k; i++) {
			size_t at = transpose ? od.c : done + i;
			if (!isfinite(dst[i])) {
				st = ha_weights_fail_nonfinite(t->name, at, dst[i], err);
				goto out;
			}
			if (transpose) {
				v[at] = dst[i];
				odometer_step(&od);
			}
		}
		done += k;
	}
out:
	if (t->external && src.file)
		fclose(src.file);
	free(run);
	free(buf);
	if (st != HA_OK) {
		free(v);
		return st;
	}
	*out = v;
	return HA_OK;
}

/* -------------------------------------------------------------- opening */

/* What the first bytes of a file say it is: one of the two formats read
 * here, another known one (named for the message), or unknown. */
enum sniffed { SNIFF_UNKNOWN, SNIFF_NPY, SNIFF_SAFETENSORS, SNIFF_OTHER };

static enum sniffed sniff(const struct ha_weights *w, const char **other)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} known[] = {
		{"PK\x03\x04", 4, "a zip archive (a PyTorch .pt or .bin checkpoint?)"},
		{"GGUF", 4, "a GGUF file"},
		{"\x89HDF\r\n\x1a\n", 8, "an HDF5 file (a Keras .h5 checkpoint?)"},
		{"\x1f\x8b", 2, "a gzip file"},
	};
	unsigned char b[16];
	size_t n = w->size < sizeof b ? (size_t)w->size : sizeof b;
	struct ha_error scratch;
	*other = NULL;
	if (ha_weights_read_at(w, 0, b, n, "magic", &scratch) != HA_OK)
		return SNIFF_UNKNOWN;
	if (n >= HA_NPY_MAGIC_LEN && memcmp(b, HA_NPY_MAGIC, HA_NPY_MAGIC_LEN) == 0)
		return SNIFF_NPY;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (n >= known[i].len && memcmp(b, known[i].magic, known[i].len) == 0) {
			*other = known[i].what;
			return SNIFF_OTHER;
		}
	/* A Python pickle (torch.save's old format) opens with PROTO 2..5. */
	if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5) {
		*other = "a Python pickle (a PyTorch checkpoint?)";
		return SNIFF_OTHER;
	}
	if (n >= 9 && b[8] == '{' && ha_le64(b) <= w->size - 8)
		return SNIFF_SAFETENSORS;
	if (n >= 1 && (b[0] == '{' || b[0] == '['))
		*other = "JSON text";
	else if (n >= 1 && b[0] >= 0x20 && b[0] < 0x7f)
		*other = "text";
	return *other ? SNIFF_OTHER : SNIFF_UNKNOWN;
}

static enum ha_status open_any(struct ha_weights *w,
                               enum ha_weights_format format,
                               const char *npy_name, const char *path,
                               struct ha_error *err)
{
	enum ha_status st = HA_OK;
	if (format == HA_WEIGHTS_FORMAT_ONNX) {
		ha_error_init(err);
		st = ha_onnx_open(w, path, err);
		goto sort;
	}
	const char *other;
	enum sniffed looks = sniff(w, &other);
	if (format == HA_WEIGHTS_FORMAT_AUTO && looks == SNIFF_NPY)
		format = HA_WEIGHTS_FORMAT_NPY;
	/* A file of the wrong format says which it looks like, instead of
	 * what its first bytes mean in the expected one (an absurd header
	 * length, a bad magic). */
	const char *want = format == HA_WEIGHTS_FORMAT_NPY ? "an .npy file"
	                 : format == HA_WEIGHTS_FORMAT_SAFETENSORS
	                         ? "a safetensors file"
	                         : "a safetensors or .npy file";
	if (format != HA_WEIGHTS_FORMAT_NPY && looks == SNIFF_NPY)
		return ha_fail(err, HA_EFORMAT, "not %s: it is an .npy file "
		               "(rename it *.npy)", want);
	if (format == HA_WEIGHTS_FORMAT_NPY && looks == SNIFF_SAFETENSORS)
		return ha_fail(err, HA_EFORMAT, "not %s: it looks like a "
		               "safetensors file (rename it *.safetensors)", want);
	if (looks == SNIFF_OTHER && w->size > 0)
		return ha_fail(err, HA_EFORMAT, "not %s: it looks like %s", want,
		               other);
	ha_error_init(err);
	st = format == HA_WEIGHTS_FORMAT_NPY ? ha_npy_open(w, npy_name, err)
	                                     : ha_safetensors_open(w, err);
sort:
	/* The directory is in name order whatever the file's order (the
	 * index contract of weights.h), each name once (a safetensors
	 * header's JSON has each key once already). */
	if (st != HA_OK)
		return st;
	if (w->count > 1)
		qsort(w->tensors, w->count, sizeof *w->tensors,
		      cmp_tensor_name);
	for (size_t i = 1; i < w->count; i++)
		if (strcmp(w->tensors[i - 1].name, w->tensors[i].name) == 0)
			return ha_fail(err, HA_EFORMAT, "two tensors are named "
			               "'%s'", w->tensors[i].name);
	return HA_OK;
}

enum ha_status ha_weights_open_memory(const void *data, size_t size,
                                      enum ha_weights_format format,
                                      const char *npy_name,
                                      struct ha_weights **out,
                                      struct ha_error *err)
{
	ha_error_init(err);
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
	                             NULL, err);
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
		/* the name is printed: a file name's control characters are
		 * shown as '?' (text.h) */
		char *safe = malloc(n + 1);
		if (safe)
			ha_text_safe(s, safe, n + 1);
		free(s);
		s = safe;
	}
	return s;
}

enum ha_status ha_weights_open(const char *path, struct ha_weights **out,
                               struct ha_error *err)
{
	ha_error_init(err);
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
	const char *kind;
	w->file = ha_open_regular(path, &kind);
	if (!w->file && kind) {
		st = ha_fail(err, HA_EINVAL, "cannot read weights from %s: a "
		             "regular file is needed", kind);
		goto out;
	}
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
	enum ha_weights_format format = HA_WEIGHTS_FORMAT_AUTO;
	if (n >= 4 && strcmp(path + n - 4, ".npy") == 0)
		format = HA_WEIGHTS_FORMAT_NPY;
	else if (n >= 12 && strcmp(path + n - 12, ".safetensors") == 0)
		format = HA_WEIGHTS_FORMAT_SAFETENSORS;
	else if (n >= 5 && strcmp(path + n - 5, ".onnx") == 0)
		format = HA_WEIGHTS_FORMAT_ONNX;
	st = open_any(w, format, name, path, err);
out:
	free(name);
	if (st != HA_OK) {
		ha_weights_free(w);
		return st;
	}
	*out = w;
	return HA_OK;
}

enum ha_status ha_weights_fail_nonfinite(const char *name, size_t at, double v,
                                         struct ha_error *err)
{
	return ha_fail(err, HA_EFORMAT, "tensor '%s': element %zu is %s; weights "
	               "must be finite", name, at, isnan(v) ? "NaN" : "infinite");
}
