/* Helpers for the weights readers' suites (test_npy.c,
 * test_safetensors.c, test_weights.c): a temporary directory, and file
 * images built byte by byte so that each suite states exactly what it
 * feeds the reader. */
#ifndef TESTS_WEIGHTS_IMAGES_H
#define TESTS_WEIGHTS_IMAGES_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>
#include "tensors/weights_internal.h"

/* ------------------------------------------------------------- temp dir */

static char tmpdir[64];
static char created[16][160];
static size_t ncreated;

static inline void weights_setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/ha_test_weights_XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	ncreated = 0;
}

static inline void weights_teardown(void)
{
	for (size_t i = ncreated; i-- > 0;)
		if (unlink(created[i]) != 0)
			rmdir(created[i]);
	rmdir(tmpdir);
}

static inline const char *temp_path(const char *name)
{
	cr_assert_lt(ncreated, 16);
	char *path = created[ncreated++];
	snprintf(path, 160, "%s/%s", tmpdir, name);
	return path;
}

static inline const char *write_file(const char *name, const void *data,
                                     size_t n)
{
	const char *path = temp_path(name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* --------------------------------------------------------------- images */

struct image {
	unsigned char *bytes;
	size_t size;
};

/* A safetensors image: header (its length as written), then data_len
 * bytes of data (copied from data, or zero). */
static inline struct image safetensors(const char *header,
                                       const void *data, size_t data_len)
{
	size_t n = strlen(header);
	struct image im = {calloc(1, 8 + n + data_len + 1), 8 + n + data_len};
	cr_assert_not_null(im.bytes);
	for (int b = 0; b < 8; b++)
		im.bytes[b] = (unsigned char)((uint64_t)n >> (8 * b));
	memcpy(im.bytes + 8, header, n);
	if (data)
		memcpy(im.bytes + 8 + n, data, data_len);
	return im;
}

/* An .npy image of version major.minor: header, then data_len bytes. */
static inline struct image npy(int major, int minor, const char *header,
                        const void *data, size_t data_len)
{
	size_t n = strlen(header), pre = major == 1 ? 10 : 12;
	struct image im = {calloc(1, pre + n + data_len + 1), pre + n + data_len};
	cr_assert_not_null(im.bytes);
	memcpy(im.bytes, "\x93NUMPY", 6);
	im.bytes[6] = (unsigned char)major;
	im.bytes[7] = (unsigned char)minor;
	for (size_t b = 0; b < pre - 8; b++)
		im.bytes[8 + b] = (unsigned char)(n >> (8 * b));
	memcpy(im.bytes + pre, header, n);
	if (data)
		memcpy(im.bytes + pre + n, data, data_len);
	return im;
}

/* Open im as format; the status, with err filled. */
static inline enum ha_status open_image(struct image im,
                                 enum ha_weights_format format,
                                 struct ha_weights **w, struct ha_error *err)
{
	enum ha_status st = ha_weights_open_memory(im.bytes, im.size, format,
	                                           "t", w, err);
	if (st != HA_OK)
		cr_assert_null(*w);
	return st;
}

/* im must be refused with status and exactly message; frees im. */
static inline void expect_refused(struct image im, enum ha_weights_format format,
                           enum ha_status status, const char *message)
{
	struct ha_weights *w;
	struct ha_error err;
	enum ha_status st = open_image(im, format, &w, &err);
	cr_expect_eq(st, status, "status %d (%s), want %d (%s)", st,
	             err.message, status, message);
	cr_expect_str_eq(err.message, message);
	ha_weights_free(w);
	free(im.bytes);
}

/* im must be refused with status and a message containing needle. */
static inline void expect_refused_with(struct image im, enum ha_weights_format format,
                                enum ha_status status, const char *needle)
{
	struct ha_weights *w;
	struct ha_error err;
	enum ha_status st = open_image(im, format, &w, &err);
	cr_expect_eq(st, status, "status %d (%s), want %d", st, err.message,
	             status);
	cr_expect(strstr(err.message, needle), "'%s' lacks '%s'", err.message,
	          needle);
	ha_weights_free(w);
	free(im.bytes);
}

#define NPY HA_WEIGHTS_FORMAT_NPY
#define ST HA_WEIGHTS_FORMAT_SAFETENSORS

/* Little-endian bytes of u, n of them, at p. */
static inline void put_le(unsigned char *p, uint64_t u, size_t n)
{
	for (size_t b = 0; b < n; b++)
		p[b] = (unsigned char)(u >> (8 * b));
}


#endif
