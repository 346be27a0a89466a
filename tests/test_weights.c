/* The weights container through the public API (weights.h): reading
 * tensors longer than its read buffer, the element limit, the format and
 * tensor name chosen from a path, selection and argument checks.  The two
 * formats' headers have their own suites (test_npy.c, test_safetensors.c);
 * tests/test_hdi.c reads weights through hdi_measure_file.  The
 * half-precision decoders are checked bit for bit against the ldexp
 * ones they replaced. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

#include "weights_images.h"

TestSuite(weights, .init = weights_setup, .fini = weights_teardown);

/* ------------------------------------------------------ reading data */

/* n F32 values i - n/2 (exact in binary32) with a NaN at nan_at (n for
 * none), as a one-tensor safetensors image. */
static struct image f32_ramp(size_t n, size_t nan_at)
{
	char header[128];
	snprintf(header, sizeof header,
	         "{\"k\":{\"dtype\":\"F32\",\"shape\":[%zu],"
	         "\"data_offsets\":[0,%zu]}}", n, 4 * n);
	unsigned char *data = malloc(4 * n);
	cr_assert_not_null(data);
	for (size_t i = 0; i < n; i++) {
		float f = (float)((double)i - (double)(n / 2));
		uint32_t u;
		memcpy(&u, &f, 4);
		put_le(data + 4 * i, i == nan_at ? 0x7fc00000 : u, 4);
	}
	struct image im = safetensors(header, data, 4 * n);
	free(data);
	return im;
}

/* A tensor of several read buffers' worth, from a file and from memory:
 * every element where it belongs, and a NaN named by its index in a
 * later buffer. */
Test(weights, long_tensors_read_in_pieces)
{
	const size_t n = 50000; /* 200,000 bytes */
	struct image im = f32_ramp(n, n);
	const char *path = write_file("ramp.safetensors", im.bytes, im.size);
	for (int from_file = 0; from_file < 2; from_file++) {
		struct ha_weights *w;
		struct ha_error err;
		enum ha_status st = from_file ? ha_weights_open(path, &w, &err)
		                              : open_image(im, ST, &w, &err);
		cr_assert_eq(st, HA_OK, "%s", err.message);
		double *d;
		cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK, "%s",
		             err.message);
		size_t wrong = 0;
		for (size_t i = 0; i < n; i++)
			wrong += d[i] != (double)i - (double)(n / 2);
		cr_expect_eq(wrong, 0, "%zu of %zu elements wrong (file %d)", wrong,
		             n, from_file);
		free(d);
		ha_weights_free(w);
	}
	free(im.bytes);

	im = f32_ramp(n, 40000);
	path = write_file("nan.safetensors", im.bytes, im.size);
	for (int from_file = 0; from_file < 2; from_file++) {
		struct ha_weights *w;
		struct ha_error err;
		enum ha_status st = from_file ? ha_weights_open(path, &w, &err)
		                              : open_image(im, ST, &w, &err);
		cr_assert_eq(st, HA_OK, "%s", err.message);
		double *d = (double *)&d;
		cr_expect_eq(ha_weights_read(w, 0, &d, &err), HA_EFORMAT);
		cr_expect_null(d);
		cr_expect_str_eq(err.message, "tensor 'k': element 40000 is NaN; "
		                              "weights must be finite");
		ha_weights_free(w);
	}
	free(im.bytes);
}

/* A tensor one element over HA_WEIGHTS_MAX_ELEMENTS opens (its header is
 * fine) but is not read: a sparse file holds its 512 MiB of data. */
Test(weights, element_limit)
{
	unsigned long long n = (unsigned long long)HA_WEIGHTS_MAX_ELEMENTS + 1;
	char header[160], message[160];
	snprintf(header, sizeof header,
	         "{\"a\":{\"dtype\":\"F16\",\"shape\":[%llu],"
	         "\"data_offsets\":[0,%llu]}}", n, 2 * n);
	struct image im = safetensors(header, NULL, 0);
	const char *path = write_file("huge.safetensors", im.bytes, im.size);
	cr_assert_eq(truncate(path, (off_t)(im.size + 2 * n)), 0);
	free(im.bytes);

	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK, "%s", err.message);
	struct ha_tensor_info info;
	cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
	cr_expect_eq(info.elements, n);
	double *d = (double *)&d;
	cr_expect_eq(ha_weights_read(w, 0, &d, &err), HA_EUNSUPPORTED);
	cr_expect_null(d);
	snprintf(message, sizeof message,
	         "tensor 'a' has %llu elements, more than the limit of %llu", n,
	         (unsigned long long)HA_WEIGHTS_MAX_ELEMENTS);
	cr_expect_str_eq(err.message, message);
	ha_weights_free(w);
}

/* ------------------------------------------------ formats, names, paths */

/* The suffix picks the format (and an .npy tensor is named after the
 * file); without one, the magic does. */
Test(weights, format_and_name_from_the_path)
{
	const double x = 0.75;
	struct image n = npy(1, 0, "{'descr': '<f8', 'fortran_order': False, "
	                           "'shape': (1,)}", &x, 8);
	struct image s = safetensors("{\"q\":{\"dtype\":\"F64\",\"shape\":[1],"
	                             "\"data_offsets\":[0,8]}}", &x, 8);
	const struct image zip = {(unsigned char *)"PK\x03\x04\x14\0\0\0\0\0", 10};
	const struct image pickle = {(unsigned char *)"\x80\x02}q\0(X\x01\0\0\0", 12};
	const struct {
		const char *file;
		const struct image *im;
		enum ha_status status;
		const char *name_or_needle;
	} cases[] = {
		{"layer.k.npy", &n, HA_OK, "layer.k"},
		{"weights.bin", &n, HA_OK, "weights.bin"},
		{"noext", &s, HA_OK, "q"},
		{"s.safetensors", &s, HA_OK, "q"},
		/* a file of the other format says so, not what its first
		 * bytes would mean (an absurd header length, a bad magic) */
		{"n.safetensors", &n, HA_EFORMAT,
		 "not a safetensors file: it is an .npy file"},
		{"s.npy", &s, HA_EFORMAT,
		 "not an .npy file: it looks like a safetensors file"},
		{"zip.safetensors", &zip, HA_EFORMAT, "it looks like a zip archive"},
		{"pickle.bin", &pickle, HA_EFORMAT,
		 "not a safetensors or .npy file: it looks like a Python pickle"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *path = write_file(cases[i].file, cases[i].im->bytes,
		                              cases[i].im->size);
		struct ha_weights *w;
		struct ha_error err;
		enum ha_status st = ha_weights_open(path, &w, &err);
		cr_expect_eq(st, cases[i].status, "%s: %s", cases[i].file,
		             err.message);
		if (st != HA_OK) {
			cr_expect_null(w);
			cr_expect(strstr(err.message, cases[i].name_or_needle),
			          "%s: '%s'", cases[i].file, err.message);
			continue;
		}
		struct ha_tensor_info info;
		cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
		cr_expect_str_eq(info.name, cases[i].name_or_needle);
		double *d;
		cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK);
		cr_expect_eq(d[0], 0.75);
		free(d);
		ha_weights_free(w);
	}

	/* in memory, AUTO looks at the magic; an unnamed .npy is "array" */
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(ha_weights_open_memory(n.bytes, n.size,
	                                    HA_WEIGHTS_FORMAT_AUTO, NULL, &w,
	                                    &err), HA_OK, "%s", err.message);
	struct ha_tensor_info info;
	cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
	cr_expect_str_eq(info.name, "array");
	ha_weights_free(w);
	cr_assert_eq(ha_weights_open_memory(s.bytes, s.size,
	                                    HA_WEIGHTS_FORMAT_AUTO, NULL, &w,
	                                    &err), HA_OK, "%s", err.message);
	cr_expect_eq(ha_weights_count(w), 1);
	ha_weights_free(w);
	cr_expect_eq(ha_weights_open_memory(n.bytes, 6, HA_WEIGHTS_FORMAT_AUTO,
	                                    NULL, &w, &err), HA_EFORMAT);
	cr_expect_str_eq(err.message, "truncated npy file: 6 bytes");
	cr_expect_eq(ha_weights_open_memory(n.bytes, 5, HA_WEIGHTS_FORMAT_AUTO,
	                                    NULL, &w, &err), HA_EFORMAT);
	cr_expect_str_eq(err.message, "truncated file: 5 bytes, too short for a "
	                              "safetensors header length");
	free(n.bytes);
	free(s.bytes);

	const char *dir = temp_path("dir.npy");
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_expect_eq(ha_weights_open(dir, &w, &err), HA_EINVAL);
	cr_expect_str_eq(err.message, "cannot read weights from a directory: a "
	                              "regular file is needed");
	/* a FIFO without a writer is refused at once instead of blocking */
	const char *fifo = temp_path("fifo.safetensors");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(ha_weights_open(fifo, &w, &err), HA_EINVAL);
	cr_expect_str_eq(err.message, "cannot read weights from a FIFO: a "
	                              "regular file is needed");
	cr_expect_eq(ha_weights_open(temp_path("missing.npy"), &w, &err), HA_EIO);
	cr_expect_str_eq(err.message, "cannot open: No such file or directory");
	cr_expect_null(w);
}

Test(weights, selection_by_name_and_pattern)
{
	struct image im = safetensors(
		"{\"m.k\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		"\"l[0].k\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
		"\"l0.k\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
		NULL, 12);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(open_image(im, ST, &w, &err), HA_OK, "%s", err.message);
	/* strcmp order: "l0.k" < "l[0].k" < "m.k" */
	const struct {
		const char *pattern;
		size_t count;
		size_t first;
	} cases[] = {
		{"l[0].k", 1, 1}, /* the exact name, though it matches "l0.k" */
		{"l?.k", 1, 0},
		{"*.k", 3, 0},
		{NULL, 3, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t *idx, count;
		cr_assert_eq(ha_weights_select(w, cases[i].pattern, &idx, &count,
		                               &err), HA_OK);
		cr_expect_eq(count, cases[i].count, "%s", cases[i].pattern);
		cr_expect_eq(idx[0], cases[i].first, "%s", cases[i].pattern);
		for (size_t k = 1; k < count; k++)
			cr_expect_gt(idx[k], idx[k - 1]);
		free(idx);
	}
	size_t *idx = (size_t *)&idx, count = 7;
	cr_expect_eq(ha_weights_select(w, "nope", &idx, &count, &err), HA_EINVAL);
	cr_expect_null(idx);
	cr_expect_eq(count, 0);
	cr_expect_str_eq(err.message,
	                 "no tensor matches 'nope' (the file has 3 tensors)");

	/* bad arguments */
	cr_expect_eq(ha_weights_select(NULL, NULL, &idx, &count, &err), HA_EINVAL);
	double *d = (double *)&d;
	cr_expect_eq(ha_weights_read(w, 3, &d, &err), HA_EINVAL);
	cr_expect_null(d);
	cr_expect_str_eq(err.message, "NULL argument or bad index");
	struct ha_tensor_info info;
	cr_expect_eq(ha_weights_info(w, 3, &info), HA_EINVAL);
	cr_expect_eq(ha_weights_info(NULL, 0, &info), HA_EINVAL);
	cr_expect_eq(ha_weights_count(NULL), 0);
	ha_weights_free(w);
	cr_expect_eq(ha_weights_open_memory(im.bytes, im.size, ST, NULL, NULL,
	                                    &err), HA_EINVAL);
	cr_expect_eq(ha_weights_open_memory(NULL, 1, ST, NULL, &w, &err),
	             HA_EINVAL);
	cr_expect_null(w);
	cr_expect_eq(ha_weights_open(NULL, &w, &err), HA_EINVAL);
	free(im.bytes);
}


/* ------------------------------------------------ half-precision decode */

/* The decoders as they were before the bit-level ones (ldexp per
 * element), kept here as the reference: the new ones must give the same
 * bits for all 65536 patterns. */
static double old_f16_to_double(uint16_t bits)
{
	int sign = bits >> 15;
	int exponent = (bits >> 10) & 0x1f;
	int mantissa = bits & 0x3ff;
	double v;
	if (exponent == 0)
		v = ldexp((double)mantissa, -24);
	else if (exponent == 0x1f)
		v = mantissa ? NAN : INFINITY;
	else
		v = ldexp((double)(mantissa + 1024), exponent - 25);
	return sign ? -v : v;
}

static double old_bf16_to_double(uint16_t bits)
{
	int sign = bits >> 15;
	int exponent = (bits >> 7) & 0xff;
	int mantissa = bits & 0x7f;
	double v;
	if (exponent == 0)
		v = ldexp((double)mantissa, -133);
	else if (exponent == 0xff)
		v = mantissa ? NAN : INFINITY;
	else
		v = ldexp((double)(mantissa + 128), exponent - 134);
	return sign ? -v : v;
}

static uint64_t bits_of(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

Test(weights, half_decoders_bit_exact)
{
	for (uint32_t b = 0; b < 0x10000; b++) {
		double want = old_f16_to_double((uint16_t)b);
		double got = ha_f16_to_double((uint16_t)b);
		cr_assert_eq(bits_of(got), bits_of(want),
		             "f16 %04x: %a (%016llx), want %a (%016llx)", b, got,
		             (unsigned long long)bits_of(got), want,
		             (unsigned long long)bits_of(want));
		want = old_bf16_to_double((uint16_t)b);
		got = ha_bf16_to_double((uint16_t)b);
		cr_assert_eq(bits_of(got), bits_of(want),
		             "bf16 %04x: %a (%016llx), want %a (%016llx)", b, got,
		             (unsigned long long)bits_of(got), want,
		             (unsigned long long)bits_of(want));
	}
}

/* The tensor reader's own decode loops (one per dtype and byte order):
 * every finite pattern of F16 and BF16 in one tensor, against the old
 * decoder. */
Test(weights, half_tensors_bit_exact)
{
	uint16_t *finite[2];
	size_t count[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		finite[k] = malloc(0x10000 * sizeof *finite[k]);
		cr_assert_not_null(finite[k]);
		for (uint32_t b = 0; b < 0x10000; b++) {
			double d = k ? old_bf16_to_double((uint16_t)b)
			             : old_f16_to_double((uint16_t)b);
			if (isfinite(d))
				finite[k][count[k]++] = (uint16_t)b;
		}
	}
	/* 63488 finite binary16 patterns, 65280 bfloat16 */
	cr_assert_eq(count[0], 0x10000 - 2 * 0x400);
	cr_assert_eq(count[1], 0x10000 - 2 * 0x80);
	const char *dtypes[] = {"F16", "BF16", "<f2", ">f2"};
	for (size_t c = 0; c < 4; c++) {
		int bf = c == 1, big = c == 3, is_npy = c >= 2;
		size_t n = count[bf];
		unsigned char *data = malloc(2 * n);
		cr_assert_not_null(data);
		for (size_t i = 0; i < n; i++) {
			uint16_t u = finite[bf][i];
			data[2 * i + big] = (unsigned char)(u & 0xff);
			data[2 * i + !big] = (unsigned char)(u >> 8);
		}
		char header[160];
		struct image im;
		if (is_npy) {
			snprintf(header, sizeof header,
			         "{'descr': '%s', 'fortran_order': False, "
			         "'shape': (%zu,)}", dtypes[c], n);
			im = npy(1, 0, header, data, 2 * n);
		} else {
			snprintf(header, sizeof header,
			         "{\"k\":{\"dtype\":\"%s\",\"shape\":[%zu],"
			         "\"data_offsets\":[0,%zu]}}", dtypes[c], n, 2 * n);
			im = safetensors(header, data, 2 * n);
		}
		struct ha_weights *w;
		struct ha_error err;
		cr_assert_eq(open_image(im, is_npy ? HA_WEIGHTS_FORMAT_NPY
		                                   : HA_WEIGHTS_FORMAT_SAFETENSORS,
		                        &w, &err), HA_OK, "%s: %s", dtypes[c],
		             err.message);
		double *d;
		cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK, "%s: %s",
		             dtypes[c], err.message);
		for (size_t i = 0; i < n; i++) {
			uint16_t u = finite[bf][i];
			double want = bf ? old_bf16_to_double(u) : old_f16_to_double(u);
			cr_assert_eq(bits_of(d[i]), bits_of(want), "%s %04x: %a, "
			             "want %a", dtypes[c], u, d[i], want);
		}
		free(d);
		ha_weights_free(w);
		free(im.bytes);
		free(data);
	}
	free(finite[0]);
	free(finite[1]);
}
