/* Tests of the weights readers' rejections, through hdi_measure_file: bad
 * safetensors headers, sizes and values, bad .npy headers and files, each
 * with its status and message (every file written here, into a temporary
 * directory). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

#include "weights_files.h"
#include "hdi/hdi_internal.h"
#include "hdi_measure_file.h"

TestSuite(hdi, .init = weights_setup, .fini = weights_teardown);

/* A safetensors file: header length hlen (as written), header text, then
 * data_len bytes of 0x3f (F32 0.75 when aligned). */
static const char *raw_safetensors(const char *file, uint64_t hlen,
                                   const char *header, size_t data_len)
{
	size_t n = strlen(header);
	unsigned char *buf = malloc(8 + n + data_len);
	cr_assert_not_null(buf);
	for (int b = 0; b < 8; b++)
		buf[b] = (unsigned char)(hlen >> (8 * b));
	memcpy(buf + 8, header, n);
	memset(buf + 8 + n, 0x3f, data_len);
	const char *p = write_file(file, buf, 8 + n + data_len);
	free(buf);
	return p;
}

struct bad_file {
	const char *header;
	size_t data_len;
	enum ha_status status;
	const char *needle;
};

#define HLEN_AUTO UINT64_MAX

static void expect_hdi_error(const char *path, size_t heads,
                             enum ha_status status, const char *needle)
{
	struct ha_hdi_report *r = (struct ha_hdi_report *)&r;
	struct ha_error err;
	enum ha_status st = hdi_measure_file(path, NULL, heads, HA_LAYOUT_OUT_IN,
	                                     &r, &err);
	cr_assert_eq(st, status, "%s: status %d (%s), want %d", path, st,
	             err.message, status);
	cr_assert_null(r);
	cr_assert(strstr(err.message, needle), "%s: message '%s' lacks '%s'",
	          path, err.message, needle);
}

Test(hdi, bad_safetensors_files)
{
	const struct bad_file cases[] = {
		{"{\"a\":", 0, HA_EFORMAT, "header JSON"},
		{"{\"a\":{\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,4]}}",
		 4, HA_EFORMAT, "unknown dtype \"F99\""},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
		 8, HA_EFORMAT, "beyond the data buffer"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		 "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
		 12, HA_EFORMAT, "overlap"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		 "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
		 12, HA_EFORMAT, "not covered"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
		 8, HA_EFORMAT, "not covered"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
		 8, HA_EFORMAT, "hold 8 bytes"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,0]}}",
		 0, HA_EFORMAT, "shape[0] is not"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,16],"
		 "\"data_offsets\":[0,0]}}", 0, HA_EFORMAT, "overflows"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}",
		 4, HA_EFORMAT, "end before"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, HA_EFORMAT,
		 "data_offsets"},
		{"{\"a\":7}", 0, HA_EFORMAT, "not an object"},
		{"[1, 2]", 0, HA_EFORMAT, "not a safetensors"},
		{"{} x", 0, HA_EFORMAT, "trailing"},
		{"{\"a\":{\"dtype\":\"I32\",\"shape\":[1,1],\"data_offsets\":[0,4]}}",
		 4, HA_EUNSUPPORTED, "only F64, F32, F16 and BF16"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1],"
		 "\"data_offsets\":[0,4]}}", 4, HA_EUNSUPPORTED, "must be 2-D"},
		{"{\"a\":{\"dtype\":\"F32\",\"shape\":[5,4],"
		 "\"data_offsets\":[0,80]}}", 80, HA_EINVAL, "do not divide"},
		{"{\"__metadata__\":3}", 0, HA_EFORMAT, "__metadata__"},
		{"{\"__metadata__\":{\"format\":5}}", 0, HA_EFORMAT,
		 "value of 'format' is not a string"},
		{"{\"k\\u0000x\":{\"dtype\":\"F32\",\"shape\":[1,1],"
		 "\"data_offsets\":[0,4]}}", 4, HA_EFORMAT, "NUL character"},
		{"{\"a\\nb\":{\"dtype\":\"F32\",\"shape\":[1],"
		 "\"data_offsets\":[0,4]}}", 4, HA_EFORMAT,
		 "tensor name 'a?b' holds a control character"},
		/* a C1 control (U+009B, a one-byte CSI) and a bidi override */
		{"{\"a\\u009bb\":{\"dtype\":\"F32\",\"shape\":[1],"
		 "\"data_offsets\":[0,4]}}", 4, HA_EFORMAT,
		 "tensor name 'a?b' holds a control character"},
		{"{\"a\\u202eb\":{\"dtype\":\"F32\",\"shape\":[1],"
		 "\"data_offsets\":[0,4]}}", 4, HA_EFORMAT,
		 "tensor name 'a?b' holds a bidirectional control character"},
		{"{}", 0, HA_EINVAL, "no tensor matches"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *p = raw_safetensors("bad.safetensors",
		                                strlen(cases[i].header),
		                                cases[i].header, cases[i].data_len);
		expect_hdi_error(p, 2, cases[i].status, cases[i].needle);
		unlink(p); /* the next case rewrites it: its slot is reused */
		ncreated--;
	}
}

Test(hdi, bad_safetensors_sizes)
{
	const char *p = write_file("short.safetensors", "\x10\0\0", 3);
	expect_hdi_error(p, 1, HA_EFORMAT, "too short");
	p = raw_safetensors("beyond.safetensors", 1000, "{}", 4);
	expect_hdi_error(p, 1, HA_EFORMAT, "beyond the end of the file");
	p = raw_safetensors("huge.safetensors", 200000000, "{}", 4);
	expect_hdi_error(p, 1, HA_EFORMAT, "exceeds the limit");
	p = raw_safetensors("tiny.safetensors", 1, "{", 0);
	expect_hdi_error(p, 1, HA_EFORMAT, "too short for a JSON");
	p = write_file("nul.safetensors", "\4\0\0\0\0\0\0\0{\0}\n", 12);
	expect_hdi_error(p, 1, HA_EFORMAT, "NUL");
	expect_hdi_error("/nonexistent/x.safetensors", 1, HA_EIO, "cannot open");

	/* a NaN weight, named by its index */
	double v[4] = {1, NAN, 2, 3};
	struct tdesc t = {"k", "F32", 2, 2, v};
	p = write_safetensors("nan.safetensors", &t, 1);
	expect_hdi_error(p, 2, HA_EFORMAT, "element 1 is NaN");
	double inf[4] = {1, 2, 3, INFINITY};
	struct tdesc t2 = {"k", "F16", 2, 2, inf};
	p = write_safetensors("inf.safetensors", &t2, 1);
	expect_hdi_error(p, 2, HA_EFORMAT, "element 3 is infinite");
	double big[4] = {1, 2, 3, 1e6}; /* overflows binary16 */
	struct tdesc t3 = {"k", "F16", 2, 2, big};
	p = write_safetensors("big.safetensors", &t3, 1);
	expect_hdi_error(p, 2, HA_EFORMAT, "infinite");
}

/* A version major.minor .npy file with header text (padded) and data_len
 * bytes of data. */
static const char *raw_npy(const char *file, int major, const char *header,
                           size_t data_len)
{
	size_t n = strlen(header), pre = major == 1 ? 10 : 12;
	unsigned char *buf = calloc(1, pre + n + data_len + 1);
	cr_assert_not_null(buf);
	memcpy(buf, "\x93NUMPY", 6);
	buf[6] = (unsigned char)major;
	buf[7] = 0;
	buf[8] = (unsigned char)(n & 0xff);
	buf[9] = (unsigned char)(n >> 8);
	memcpy(buf + pre, header, n);
	const char *p = write_file(file, buf, pre + n + data_len);
	free(buf);
	return p;
}

Test(hdi, bad_npy_files)
{
	const struct {
		int major;
		const char *header;
		size_t data;
		enum ha_status status;
		const char *needle;
	} cases[] = {
		{4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }",
		 4, HA_EUNSUPPORTED, "version 4.0"},
		{1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }",
		 4, HA_EUNSUPPORTED, "'<i4' is not supported"},
		{1, "{'descr': [('a', '<f4')], 'fortran_order': False, "
		    "'shape': (1,), }", 4, HA_EUNSUPPORTED, "structured"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3) ",
		 24, HA_EFORMAT, "expected ',' or '}'"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
		 20, HA_EFORMAT, "truncated npy data"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
		 28, HA_EFORMAT, "4 trailing bytes"},
		{1, "{'descr': '<f4', 'fortran_order': False}", 4, HA_EFORMAT,
		 "lacks 'shape'"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), "
		    "'x': 1}", 4, HA_EFORMAT, "unexpected or repeated key 'x'"},
		{1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
		    "'shape': (1, 1)}", 4, HA_EFORMAT, "repeated key 'descr'"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", 16,
		 HA_EFORMAT, "not a tuple"},
		{1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", 4,
		 HA_EFORMAT, "True or False"},
		{1, "{'descr': 'f4', 'fortran_order': False, 'shape': (1,)}", 4,
		 HA_EFORMAT, "bad descr"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
		    "(99999999999999999999,)}", 4, HA_EFORMAT, "shape[0]"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
		    "(4294967296, 4294967296, 16)}", 4, HA_EFORMAT, "overflows"},
		{1, "['descr']", 0, HA_EFORMAT, "not a dict"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
		 4, HA_EFORMAT, "trailing characters"},
		{3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }",
		 4, HA_EINVAL, "do not divide"}, /* v3: u32 length, parses fine */
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 1), }",
		 20, HA_EINVAL, "do not divide"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
		 8, HA_EUNSUPPORTED, "must be 2-D"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *p = raw_npy("bad.npy", cases[i].major, cases[i].header,
		                        cases[i].data);
		expect_hdi_error(p, 2, cases[i].status, cases[i].needle);
		unlink(p); /* the next case rewrites it: its slot is reused */
		ncreated--;
	}

	const char *p = write_file("magic.npy", "\x93NUMPX\1\0\0\0\0\0", 12);
	expect_hdi_error(p, 1, HA_EFORMAT, "bad npy magic");
	p = write_file("short.npy", "\x93NUM", 4);
	expect_hdi_error(p, 1, HA_EFORMAT, "truncated npy file");
	/* a header length of 60000 in a 12-byte file */
	unsigned char b[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x60, 0xea,
	                       '{', '}'};
	p = write_file("beyond2.npy", b, sizeof b);
	expect_hdi_error(p, 1, HA_EFORMAT, "goes beyond the end");
}
