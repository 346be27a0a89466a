/* The safetensors header reader through the public API (weights.h): its
 * limits (header length, JSON nesting, dimensions, the quoted dtype), every
 * dtype of the format, empty tensors and the directory's name order. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>

#include "weights_images.h"

TestSuite(safetensors, .init = weights_setup, .fini = weights_teardown);

/* ------------------------------------------------ safetensors: the header */

Test(safetensors, unknown_dtype_is_quoted_in_part)
{
	char dtype[41], header[160], message[128];
	memset(dtype, 'Z', 40);
	dtype[40] = '\0';
	snprintf(header, sizeof header,
	         "{\"a\":{\"dtype\":\"%s\",\"shape\":[1],\"data_offsets\":[0,1]}}",
	         dtype);
	snprintf(message, sizeof message, "tensor 'a': unknown dtype \"%.32s\"",
	         dtype);
	cr_assert_eq(strlen(message), strlen("tensor 'a': unknown dtype \"\"") + 32);
	expect_refused(safetensors(header, NULL, 1), ST, HA_EFORMAT, message);
}

/* json-c is told how deep the header may nest, so that no header can
 * exhaust the stack: seven levels parse, eight do not. */
Test(safetensors, json_nesting_limit)
{
	expect_refused(safetensors("{\"__metadata__\":{\"x\":[[[[[1]]]]]}}",
	                           NULL, 0),
	               ST, HA_EFORMAT,
	               "\"__metadata__\" value of 'x' is not a string");
	expect_refused_with(safetensors("{\"__metadata__\":{\"x\":[[[[[[1]]]]]]}}",
	                                NULL, 0),
	                    ST, HA_EFORMAT, "header JSON: nesting too deep");
}

Test(safetensors, dimension_limit)
{
	char shape[256], header[512], message[128];
	size_t at = (size_t)snprintf(shape, sizeof shape, "[1");
	for (int i = 1; i < HA_WEIGHTS_MAX_DIMS; i++)
		at += (size_t)snprintf(shape + at, sizeof shape - at, ",1");
	snprintf(shape + at, sizeof shape - at, "]");
	snprintf(header, sizeof header,
	         "{\"a\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[0,4]}}",
	         shape);
	const float x = 0.5f;
	struct image im = safetensors(header, &x, 4);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(open_image(im, ST, &w, &err), HA_OK, "%s", err.message);
	struct ha_tensor_info info;
	cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
	cr_expect_eq(info.ndim, HA_WEIGHTS_MAX_DIMS);
	ha_weights_free(w);
	free(im.bytes);

	snprintf(shape + at, sizeof shape - at, ",1]");
	snprintf(header, sizeof header,
	         "{\"a\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[0,4]}}",
	         shape);
	snprintf(message, sizeof message, "tensor 'a': %d dimensions (at most %d)",
	         HA_WEIGHTS_MAX_DIMS + 1, HA_WEIGHTS_MAX_DIMS);
	expect_refused(safetensors(header, &x, 4), ST, HA_EUNSUPPORTED, message);
}

Test(safetensors, header_length_limit)
{
	char message[160];
	struct image im = safetensors("{}", NULL, 0);
	uint64_t lengths[2] = {(uint64_t)HA_WEIGHTS_MAX_HEADER + 1,
	                       HA_WEIGHTS_MAX_HEADER};
	for (int k = 0; k < 2; k++) {
		for (int b = 0; b < 8; b++)
			im.bytes[b] = (unsigned char)(lengths[k] >> (8 * b));
		if (k == 0)
			snprintf(message, sizeof message,
			         "header length %llu exceeds the limit of %u bytes",
			         (unsigned long long)lengths[k], HA_WEIGHTS_MAX_HEADER);
		else
			snprintf(message, sizeof message,
			         "header length %llu goes beyond the end of the file "
			         "(10 bytes)", (unsigned long long)lengths[k]);
		struct ha_weights *w;
		struct ha_error err;
		cr_expect_eq(open_image(im, ST, &w, &err), HA_EFORMAT);
		cr_expect_str_eq(err.message, message);
	}
	free(im.bytes);
}
/* Empty tensors anywhere in the buffer (also at its end), a scalar,
 * metadata and padding; the directory comes out in name order. */
Test(safetensors, directory_in_name_order)
{
	static const char header[] =
		"{\"__metadata__\":{\"format\":\"pt\"},"
		"\"z\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		"\"e\":{\"dtype\":\"F64\",\"shape\":[0,3],\"data_offsets\":[8,8]},"
		"\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[8,16]},"
		"\"y\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[16,18]},"
		"\"f\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[18,18]}}"
		"      ";
	unsigned char data[18];
	put_le(data, 0x3fc00000, 4);           /* 1.5 */
	put_le(data + 4, 0xc0000000, 4);       /* -2 */
	put_le(data + 8, 0x401d000000000000, 8); /* 7.25 */
	put_le(data + 16, 0xc040, 2);          /* bfloat16 -3 */
	struct image im = safetensors(header, data, sizeof data);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(open_image(im, ST, &w, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_weights_count(w), 5);
	const struct {
		const char *name;
		enum ha_dtype dtype;
		size_t ndim;
		uint64_t elements;
		double first, second;
	} want[5] = {
		{"a", HA_DTYPE_F64, 1, 1, 7.25, 0},
		{"e", HA_DTYPE_F64, 2, 0, 0, 0},
		{"f", HA_DTYPE_F16, 1, 0, 0, 0},
		{"y", HA_DTYPE_BF16, 0, 1, -3, 0},
		{"z", HA_DTYPE_F32, 1, 2, 1.5, -2},
	};
	for (size_t i = 0; i < 5; i++) {
		struct ha_tensor_info info;
		cr_assert_eq(ha_weights_info(w, i, &info), HA_OK);
		cr_expect_str_eq(info.name, want[i].name);
		cr_expect_eq(info.dtype, want[i].dtype, "%s", info.name);
		cr_expect_eq(info.ndim, want[i].ndim, "%s", info.name);
		cr_expect_eq(info.elements, want[i].elements, "%s", info.name);
		double *d;
		cr_assert_eq(ha_weights_read(w, i, &d, &err), HA_OK, "%s: %s",
		             info.name, err.message);
		if (info.elements > 0)
			cr_expect_eq(d[0], want[i].first, "%s", info.name);
		if (info.elements > 1)
			cr_expect_eq(d[1], want[i].second, "%s", info.name);
		free(d);
	}
	ha_weights_free(w);
	free(im.bytes);
}

/* Every dtype of the format opens; only the floating ones read. */
Test(safetensors, every_known_dtype)
{
	const struct {
		const char *name;
		size_t size;
		enum ha_dtype dtype;
	} dtypes[] = {
		{"F64", 8, HA_DTYPE_F64}, {"F32", 4, HA_DTYPE_F32},
		{"F16", 2, HA_DTYPE_F16}, {"BF16", 2, HA_DTYPE_BF16},
		{"BOOL", 1, HA_DTYPE_OTHER}, {"U8", 1, HA_DTYPE_OTHER},
		{"I8", 1, HA_DTYPE_OTHER}, {"F8_E4M3", 1, HA_DTYPE_OTHER},
		{"F8_E5M2", 1, HA_DTYPE_OTHER}, {"I16", 2, HA_DTYPE_OTHER},
		{"U16", 2, HA_DTYPE_OTHER}, {"I32", 4, HA_DTYPE_OTHER},
		{"U32", 4, HA_DTYPE_OTHER}, {"I64", 8, HA_DTYPE_OTHER},
		{"U64", 8, HA_DTYPE_OTHER},
	};
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
		char header[160], message[160];
		snprintf(header, sizeof header,
		         "{\"a\":{\"dtype\":\"%s\",\"shape\":[3],"
		         "\"data_offsets\":[0,%zu]}}", dtypes[i].name,
		         3 * dtypes[i].size);
		struct image im = safetensors(header, NULL, 3 * dtypes[i].size);
		struct ha_weights *w;
		struct ha_error err;
		cr_assert_eq(open_image(im, ST, &w, &err), HA_OK, "%s: %s",
		             dtypes[i].name, err.message);
		struct ha_tensor_info info;
		cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
		cr_expect_eq(info.dtype, dtypes[i].dtype, "%s", dtypes[i].name);
		cr_expect_str_eq(info.dtype_name, dtypes[i].name);
		double *d = NULL;
		enum ha_status st = ha_weights_read(w, 0, &d, &err);
		if (dtypes[i].dtype == HA_DTYPE_OTHER) {
			cr_expect_eq(st, HA_EUNSUPPORTED, "%s", dtypes[i].name);
			cr_expect_null(d);
			snprintf(message, sizeof message,
			         "tensor 'a' has dtype %s; only F64, F32, F16 and BF16 "
			         "can be read", dtypes[i].name);
			cr_expect_str_eq(err.message, message);
		} else {
			cr_assert_eq(st, HA_OK, "%s: %s", dtypes[i].name, err.message);
			for (size_t k = 0; k < 3; k++)
				cr_expect_eq(d[k], 0.0);
		}
		free(d);
		ha_weights_free(w);
		free(im.bytes);
	}
}

