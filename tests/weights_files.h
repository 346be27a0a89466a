/* What the HDI suites (test_hdi.c, test_covariance.c, test_hdi_bad_files.c)
 * share: the encoders of F64, F32, F16 and BF16 (either byte order), and
 * writers of safetensors and version 1.0 .npy files holding given
 * matrices, into the temporary directory of weights_images.h. */
#ifndef HEADALLOC_TESTS_WEIGHTS_FILES_H
#define HEADALLOC_TESTS_WEIGHTS_FILES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "weights_images.h"

/* -------------------------------------------------------------- encoders */

static inline uint16_t to_f16(double x)
{
	uint16_t sign = signbit(x) ? 0x8000 : 0;
	x = fabs(x);
	if (x == 0.0)
		return sign;
	if (isnan(x))
		return 0x7e00;
	if (isinf(x))
		return sign | 0x7c00;
	int e;
	frexp(x, &e);
	if (e - 1 >= -14) {
		double r = nearbyint(ldexp(x, 10 - (e - 1)));
		int biased = e - 1 + 15;
		if (r == 2048.0) {
			r = 1024.0;
			biased++;
		}
		if (biased >= 31)
			return sign | 0x7c00;
		return (uint16_t)(sign | biased << 10 | ((int)r - 1024));
	}
	return (uint16_t)(sign | (uint16_t)nearbyint(ldexp(x, 24)));
}

static inline uint16_t to_bf16(double x)
{
	float f = (float)x;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static inline size_t dtype_size(const char *dtype)
{
	return strcmp(dtype, "F64") == 0 ? 8 : strcmp(dtype, "F32") == 0 ? 4 : 2;
}

/* v as little-endian bytes of dtype (F64, F32, F16, BF16); big = 1 for
 * big-endian. */
static inline unsigned char *encode(const double *v, size_t n,
                                    const char *dtype, int big)
{
	size_t es = dtype_size(dtype);
	unsigned char *out = malloc(n * es + 1);
	cr_assert_not_null(out);
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		if (es == 8) {
			memcpy(&u, &v[i], 8);
		} else if (es == 4) {
			float f = (float)v[i];
			uint32_t u32;
			memcpy(&u32, &f, 4);
			u = u32;
		} else {
			u = strcmp(dtype, "F16") == 0 ? to_f16(v[i]) : to_bf16(v[i]);
		}
		for (size_t b = 0; b < es; b++)
			out[i * es + (big ? es - 1 - b : b)] =
				(unsigned char)(u >> (8 * b));
	}
	return out;
}

/* ------------------------------------------------------------- writers */

struct tdesc {
	const char *name;
	const char *dtype;
	size_t rows, cols;
	const double *values;
};

static inline const char *write_safetensors(const char *file,
                                            const struct tdesc *t, size_t n)
{
	char header[8192];
	size_t hl = 0, off = 0;
	hl += (size_t)snprintf(header + hl, sizeof header - hl,
	                       "{\"__metadata__\":{\"format\":\"pt\"}");
	for (size_t i = 0; i < n; i++) {
		size_t bytes = t[i].rows * t[i].cols * dtype_size(t[i].dtype);
		hl += (size_t)snprintf(header + hl, sizeof header - hl,
		                       ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%zu,%zu],"
		                       "\"data_offsets\":[%zu,%zu]}",
		                       t[i].name, t[i].dtype, t[i].rows, t[i].cols,
		                       off, off + bytes);
		off += bytes;
	}
	header[hl++] = '}';
	while (hl % 8)
		header[hl++] = ' ';
	unsigned char *buf = malloc(8 + hl + off);
	cr_assert_not_null(buf);
	for (int b = 0; b < 8; b++)
		buf[b] = (unsigned char)((uint64_t)hl >> (8 * b));
	memcpy(buf + 8, header, hl);
	size_t at = 8 + hl;
	for (size_t i = 0; i < n; i++) {
		size_t cnt = t[i].rows * t[i].cols;
		size_t bytes = cnt * dtype_size(t[i].dtype);
		unsigned char *e = encode(t[i].values, cnt, t[i].dtype, 0);
		memcpy(buf + at, e, bytes);
		free(e);
		at += bytes;
	}
	const char *path = write_file(file, buf, at);
	free(buf);
	return path;
}

/* A version 1.0 .npy file; descr like "<f4" or ">f8". */
static inline const char *write_npy(const char *file, const char *descr,
                                    size_t rows, size_t cols,
                                    const double *v)
{
	char header[256];
	int hl = snprintf(header, sizeof header,
	                  "{'descr': '%s', 'fortran_order': False, "
	                  "'shape': (%zu, %zu), }", descr, rows, cols);
	while ((10 + hl + 1) % 64)
		header[hl++] = ' ';
	header[hl++] = '\n';
	const char *dt = descr[2] == '8' ? "F64" : descr[2] == '4' ? "F32" : "F16";
	size_t bytes = rows * cols * dtype_size(dt);
	unsigned char *buf = malloc(10 + (size_t)hl + bytes);
	cr_assert_not_null(buf);
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)(hl & 0xff);
	buf[9] = (unsigned char)(hl >> 8);
	memcpy(buf + 10, header, (size_t)hl);
	unsigned char *e = encode(v, rows * cols, dt, descr[0] == '>');
	memcpy(buf + 10 + hl, e, bytes);
	free(e);
	const char *path = write_file(file, buf, 10 + (size_t)hl + bytes);
	free(buf);
	return path;
}

#endif
