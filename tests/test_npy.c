/* The .npy header reader through the public API (weights.h): the dict
 * parser's spellings, its buffers' limits, the format versions and every
 * byte order, each value checked against a hand-written bit pattern; and
 * Fortran-ordered arrays, read back in C order. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>

#include "weights_images.h"

TestSuite(npy, .init = weights_setup, .fini = weights_teardown);

/* ------------------------------------------------------- npy: accepted */

Test(npy, header_spellings_that_parse)
{
	const double v[6] = {1, -2, 0.5, 4, 1e300, -0.0};
	const struct {
		const char *header;
		size_t ndim;
		uint64_t shape0, elements;
	} cases[] = {
		/* double quotes, no trailing comma, keys in any order */
		{"{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f8\"}",
		 2, 2, 6},
		/* spaces, tabs, newlines everywhere; trailing commas */
		{"{ 'descr' : '<f8' ,\t'fortran_order':False,\n'shape':( 6 , ) , }"
		 "  \n", 1, 6, 6},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2,)}",
		 2, 3, 6},
		/* a scalar has one element, an empty array none */
		{"{'descr': '<f8', 'fortran_order': False, 'shape': ()}", 0, 0, 1},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 0)}",
		 2, 2, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t bytes = (size_t)cases[i].elements * 8;
		struct image im = npy(1, 0, cases[i].header, v, bytes);
		struct ha_weights *w;
		struct ha_error err;
		cr_assert_eq(open_image(im, NPY, &w, &err), HA_OK, "%s: %s",
		             cases[i].header, err.message);
		struct ha_tensor_info info;
		cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
		cr_expect_eq(info.ndim, cases[i].ndim, "%s", cases[i].header);
		if (info.ndim)
			cr_expect_eq(info.shape[0], cases[i].shape0);
		cr_expect_eq(info.elements, cases[i].elements);
		cr_expect_eq(info.dtype, HA_DTYPE_F64);
		cr_expect_str_eq(info.dtype_name, "<f8");
		double *d;
		cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK, "%s",
		             err.message);
		cr_expect_eq(memcmp(d, v, bytes), 0, "%s", cases[i].header);
		free(d);
		ha_weights_free(w);
		free(im.bytes);
	}
}

/* ------------------------------------------------------- npy: refused */

Test(npy, header_spellings_that_do_not)
{
	const struct {
		const char *header;
		enum ha_status status;
		const char *message;
	} cases[] = {
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (1 2)}",
		 HA_EFORMAT, "npy header: shape tuple is malformed"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (1,,)}",
		 HA_EFORMAT, "npy header: shape[1] is not a non-negative integer"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}",
		 HA_EFORMAT, "npy header: shape[0] is not a non-negative integer"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': [1]}",
		 HA_EFORMAT, "npy header: 'shape' is not a tuple"},
		{"{'descr' '<f8'}", HA_EFORMAT,
		 "npy header: expected ':' after 'descr'"},
		{"{descr: '<f8'}", HA_EFORMAT,
		 "npy header: expected a quoted key at byte 1"},
		{"{'descr': '<f8", HA_EFORMAT,
		 "npy header: 'descr' is not a short string"},
		{"{'descr': '<f\\8'}", HA_EFORMAT,
		 "npy header: 'descr' is not a short string"},
		{"{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}", HA_EFORMAT,
		 "npy header: 'fortran_order' is not True or False"},
		{"{}", HA_EFORMAT, "npy header lacks 'descr'"},
		{"{'descr': '<f8', 'shape': (1,)}", HA_EFORMAT,
		 "npy header lacks 'fortran_order'"},
		{"{'descr': '<f8', 'fortran_order': Falsey, 'shape': (1,)}",
		 HA_EFORMAT, "npy header: expected ',' or '}' at byte 39"},
		{"{'descr': '<fx', 'fortran_order': False, 'shape': (1,)}",
		 HA_EFORMAT, "npy header: bad descr '<fx'"},
		{"{'descr': '<f', 'fortran_order': False, 'shape': (1,)}",
		 HA_EFORMAT, "npy header: bad descr '<f'"},
		{"{'descr': '|f8', 'fortran_order': False, 'shape': (1,)}",
		 HA_EUNSUPPORTED, "npy dtype '|f8' is not supported (f2, f4 or f8)"},
		{"{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}",
		 HA_EUNSUPPORTED, "npy dtype '<f16' is not supported (f2, f4 or f8)"},
		{"{'descr': '<f3', 'fortran_order': False, 'shape': (1,)}",
		 HA_EUNSUPPORTED, "npy dtype '<f3' is not supported (f2, f4 or f8)"},
		/* 2^61 doubles: the element count fits 64 bits, the bytes not */
		{"{'descr': '<f8', 'fortran_order': False, "
		 "'shape': (2305843009213693952,)}",
		 HA_EFORMAT, "npy header: byte size overflows 64 bits"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_refused(npy(1, 0, cases[i].header, NULL, 8), NPY,
		               cases[i].status, cases[i].message);
}

/* A key is read into a fixed buffer, so is a descr: the longest that fit
 * are still told apart by name, one more character is refused outright. */
Test(npy, key_and_descr_lengths)
{
	char header[256], message[256];
	char key31[32];
	memset(key31, 'k', 31);
	key31[31] = '\0';
	snprintf(header, sizeof header, "{'%s': 1}", key31);
	snprintf(message, sizeof message,
	         "npy header: unexpected or repeated key '%s'", key31);
	expect_refused(npy(1, 0, header, NULL, 0), NPY, HA_EFORMAT, message);
	/* the parser gives up on the 32nd character, byte 2 + 32 */
	snprintf(header, sizeof header, "{'%sk': 1}", key31);
	expect_refused(npy(1, 0, header, NULL, 0), NPY, HA_EFORMAT,
	               "npy header: expected a quoted key at byte 34");

	const char *descr15 = "<f0000000000008";
	cr_assert_eq(strlen(descr15), 15);
	snprintf(header, sizeof header,
	         "{'descr': '%s', 'fortran_order': False, 'shape': (1,)}",
	         descr15);
	snprintf(message, sizeof message,
	         "npy dtype '%s' is not supported (f2, f4 or f8)", descr15);
	expect_refused(npy(1, 0, header, NULL, 8), NPY, HA_EUNSUPPORTED,
	               message);
	const char *descr16 = "<f00000000000008";
	cr_assert_eq(strlen(descr16), 16);
	snprintf(header, sizeof header,
	         "{'descr': '%s', 'fortran_order': False, 'shape': (1,)}",
	         descr16);
	expect_refused(npy(1, 0, header, NULL, 8), NPY, HA_EFORMAT,
	               "npy header: 'descr' is not a short string");
}

/* "(1, 1, ..., 1)" with n ones into out. */
static void ones_tuple(char *out, size_t cap, size_t n)
{
	size_t at = (size_t)snprintf(out, cap, "(");
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(out + at, cap - at, "1, ");
	snprintf(out + at, cap - at, ")");
}

Test(npy, dimension_limit)
{
	char shape[256], header[512], message[128];
	const double one = 1.0;
	ones_tuple(shape, sizeof shape, HA_WEIGHTS_MAX_DIMS);
	snprintf(header, sizeof header,
	         "{'descr': '<f8', 'fortran_order': False, 'shape': %s}", shape);
	struct image im = npy(1, 0, header, &one, 8);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(open_image(im, NPY, &w, &err), HA_OK, "%s", err.message);
	struct ha_tensor_info info;
	cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
	cr_expect_eq(info.ndim, HA_WEIGHTS_MAX_DIMS);
	cr_expect_eq(info.elements, 1);
	ha_weights_free(w);
	free(im.bytes);

	ones_tuple(shape, sizeof shape, HA_WEIGHTS_MAX_DIMS + 1);
	snprintf(header, sizeof header,
	         "{'descr': '<f8', 'fortran_order': False, 'shape': %s}", shape);
	snprintf(message, sizeof message, "npy header: more than %d dimensions",
	         HA_WEIGHTS_MAX_DIMS);
	expect_refused(npy(1, 0, header, &one, 8), NPY, HA_EUNSUPPORTED,
	               message);
}

Test(npy, versions_and_preamble)
{
	static const char header[] =
		"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}";
	const double x = 2.5;
	for (int major = 1; major <= 3; major++) {
		struct image im = npy(major, 0, header, &x, 8);
		struct ha_weights *w;
		struct ha_error err;
		cr_assert_eq(open_image(im, NPY, &w, &err), HA_OK, "%d.0: %s",
		             major, err.message);
		double *d;
		cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK);
		cr_expect_eq(d[0], 2.5, "version %d.0", major);
		free(d);
		ha_weights_free(w);
		free(im.bytes);
	}
	const int bad[][2] = {{0, 0}, {1, 1}, {4, 0}, {255, 0}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char message[128];
		snprintf(message, sizeof message,
		         "npy format version %d.%d is not supported "
		         "(1.0, 2.0, 3.0)", bad[i][0], bad[i][1]);
		expect_refused(npy(bad[i][0], bad[i][1], header, &x, 8), NPY,
		               HA_EUNSUPPORTED, message);
	}

	/* version 2's 4-byte length can exceed the limit; exactly the limit
	 * passes it (and then the file is too short) */
	char message[160];
	struct image im = npy(2, 0, "{}", NULL, 0);
	uint32_t lengths[2] = {HA_WEIGHTS_MAX_HEADER + 1u, HA_WEIGHTS_MAX_HEADER};
	for (int k = 0; k < 2; k++) {
		for (int b = 0; b < 4; b++)
			im.bytes[8 + b] = (unsigned char)(lengths[k] >> (8 * b));
		if (k == 0)
			snprintf(message, sizeof message,
			         "npy header length %u exceeds the limit of %u",
			         lengths[k], HA_WEIGHTS_MAX_HEADER);
		else
			snprintf(message, sizeof message,
			         "npy header length %u goes beyond the end of the "
			         "file (14 bytes)", lengths[k]);
		struct ha_weights *w;
		struct ha_error err;
		cr_expect_eq(open_image(im, NPY, &w, &err), HA_EFORMAT);
		cr_expect_str_eq(err.message, message);
	}
	/* version 2 needs 12 bytes before its header */
	im.size = 11;
	expect_refused(im, NPY, HA_EFORMAT,
	               "truncated file: the npy preamble needs bytes 0..12 but "
	               "the file has 11");
}

/* The same values in every float dtype and byte order, against their bit
 * patterns written by hand: binary16 / binary32 / binary64. */
Test(npy, byte_orders)
{
	static const double want[7] = {-1.5, 0.25, 3, 1024, -0.0,
	                               0x1p-14 /* least normal binary16 */,
	                               0x1p-24 /* least subnormal binary16 */};
	static const uint16_t f16[7] = {0xbe00, 0x3400, 0x4200, 0x6400, 0x8000,
	                                0x0400, 0x0001};
	static const uint32_t f32[7] = {0xbfc00000, 0x3e800000, 0x40400000,
	                                0x44800000, 0x80000000, 0x38800000,
	                                0x33800000};
	static const uint64_t f64[7] = {
		0xbff8000000000000, 0x3fd0000000000000, 0x4008000000000000,
		0x4090000000000000, 0x8000000000000000, 0x3f10000000000000,
		0x3e70000000000000};
	static const unsigned one = 1;
	const char native = *(const unsigned char *)&one ? '<' : '>';
	const char *descrs[] = {"<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "=f4"};
	for (size_t k = 0; k < sizeof descrs / sizeof descrs[0]; k++) {
		const char *descr = descrs[k];
		char order = descr[0] == '=' ? native : descr[0];
		size_t es = (size_t)(descr[2] - '0');
		unsigned char data[7 * 8];
		for (size_t i = 0; i < 7; i++) {
			uint64_t u = es == 2 ? f16[i] : es == 4 ? f32[i] : f64[i];
			for (size_t b = 0; b < es; b++)
				data[i * es + (order == '>' ? es - 1 - b : b)] =
					(unsigned char)(u >> (8 * b));
		}
		char header[128];
		snprintf(header, sizeof header,
		         "{'descr': '%s', 'fortran_order': False, 'shape': (7,)}",
		         descr);
		struct image im = npy(1, 0, header, data, 7 * es);
		struct ha_weights *w;
		struct ha_error err;
		cr_assert_eq(open_image(im, NPY, &w, &err), HA_OK, "%s: %s", descr,
		             err.message);
		struct ha_tensor_info info;
		cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
		cr_expect_str_eq(info.dtype_name, descr);
		cr_expect_eq(info.dtype, es == 2 ? HA_DTYPE_F16
		                         : es == 4 ? HA_DTYPE_F32 : HA_DTYPE_F64);
		double *d;
		cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK);
		for (size_t i = 0; i < 7; i++) {
			cr_expect_eq(d[i], want[i], "%s[%zu]: %a", descr, i, d[i]);
			cr_expect_eq(signbit(d[i]) != 0, signbit(want[i]) != 0);
		}
		free(d);
		ha_weights_free(w);
		free(im.bytes);
	}
}


/* ------------------------------------------------------- Fortran order */

/* The bytes of the C array a (shape, ndim dims) written in Fortran order
 * (the first index fastest), each value in descr's dtype and byte
 * order; es bytes an element.  Built by walking the C indices in
 * Fortran order, independently of the reader's odometer. */
static unsigned char *fortran_bytes(const double *a, const size_t *shape,
                                    size_t ndim, char order, size_t es,
                                    size_t *nbytes)
{
	size_t n = 1;
	for (size_t k = 0; k < ndim; k++)
		n *= shape[k];
	unsigned char *out = malloc(n * es + 1);
	cr_assert_not_null(out);
	for (size_t f = 0; f < n; f++) {
		/* the C offset of Fortran position f */
		size_t rest = f, c = 0, stride = 1;
		size_t cstride[8];
		for (size_t k = ndim; k-- > 0;) {
			cstride[k] = stride;
			stride *= shape[k];
		}
		for (size_t k = 0; k < ndim; k++) {
			c += (rest % shape[k]) * cstride[k];
			rest /= shape[k];
		}
		uint64_t u;
		if (es == 8) {
			memcpy(&u, &a[c], 8);
		} else if (es == 4) {
			float x = (float)a[c];
			uint32_t v;
			memcpy(&v, &x, 4);
			u = v;
		} else { /* the test values are small integers: exact in f16 */
			double x = fabs(a[c]);
			int e;
			double m = frexp(x, &e); /* x = m 2^e, m in [0.5, 1) */
			u = x == 0 ? 0
			           : (uint64_t)((e + 14) << 10) |
			                     (uint64_t)((m * 2 - 1) * 1024);
			if (signbit(a[c]))
				u |= 0x8000;
		}
		for (size_t b = 0; b < es; b++)
			out[f * es + (order == '>' ? es - 1 - b : b)] =
				(unsigned char)(u >> (8 * b));
	}
	*nbytes = n * es;
	return out;
}

/* np.save(W.T) writes fortran_order True: the reader gives back the C
 * array, the same doubles as a C-ordered file of it, in every dtype,
 * byte order and number of dimensions. */
Test(npy, fortran_order_reads_as_c_order)
{
	static const size_t shapes[][4] = {
		{2, 3, 0, 0}, {3, 2, 0, 0}, {1, 5, 0, 0}, {2, 3, 4, 0},
		{3, 1, 2, 2}, {7, 0, 0, 0}, {2, 0, 0, 0}, {4, 4, 0, 0},
	};
	static const size_t ndims[] = {2, 2, 2, 3, 4, 1, 2, 2};
	const char *descrs[] = {"<f8", ">f8", "<f4", ">f4", "<f2", ">f2"};
	for (size_t s = 0; s < sizeof ndims / sizeof ndims[0]; s++) {
		size_t ndim = ndims[s];
		/* shape {2, 0} stands for (2, 0): an empty array */
		size_t shape[4], n = 1;
		char tuple[64];
		size_t at = (size_t)snprintf(tuple, sizeof tuple, "(");
		for (size_t k = 0; k < ndim; k++) {
			shape[k] = s == 6 && k == 1 ? 0 : shapes[s][k];
			n *= shape[k];
			at += (size_t)snprintf(tuple + at, sizeof tuple - at, "%zu,",
			                       shape[k]);
		}
		snprintf(tuple + at, sizeof tuple - at, ")");
		double a[64];
		for (size_t i = 0; i < n; i++) /* distinct, exact in binary16 */
			a[i] = (double)((int)i - 20) * (i % 2 ? 1.0 : -0.5);
		for (size_t d = 0; d < sizeof descrs / sizeof descrs[0]; d++) {
			size_t es = (size_t)(descrs[d][2] - '0'), nbytes;
			unsigned char *bytes = fortran_bytes(a, shape, ndim,
			                                     descrs[d][0], es, &nbytes);
			char header[160];
			snprintf(header, sizeof header,
			         "{'descr': '%s', 'fortran_order': True, "
			         "'shape': %s}", descrs[d], tuple);
			struct image im = npy(1, 0, header, bytes, nbytes);
			struct ha_weights *w;
			struct ha_error err;
			cr_assert_eq(open_image(im, NPY, &w, &err), HA_OK, "%s: %s",
			             header, err.message);
			struct ha_tensor_info info;
			cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
			cr_assert_eq(info.ndim, ndim);
			for (size_t k = 0; k < ndim; k++)
				cr_assert_eq(info.shape[k], shape[k], "%s", header);
			double *got;
			cr_assert_eq(ha_weights_read(w, 0, &got, &err), HA_OK, "%s: %s",
			             header, err.message);
			for (size_t i = 0; i < n; i++)
				cr_assert_eq(got[i], a[i], "%s: element %zu is %g, "
				             "want %g", header, i, got[i], a[i]);
			free(got);
			ha_weights_free(w);
			free(im.bytes);
			free(bytes);
		}
	}
}

/* A NaN in a Fortran-ordered file is named by its index in the array
 * read back (C order), not by its place in the file. */
Test(npy, fortran_order_nonfinite_named_in_c_order)
{
	/* a 2 x 3 array; C element 1 = (0, 1) sits at Fortran position 2 */
	double a[6] = {1, NAN, 3, 4, 5, 6};
	size_t shape[2] = {2, 3}, nbytes;
	unsigned char *bytes = fortran_bytes(a, shape, 2, '<', 8, &nbytes);
	struct image im = npy(1, 0, "{'descr': '<f8', 'fortran_order': True, "
	                      "'shape': (2, 3)}", bytes, nbytes);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(open_image(im, NPY, &w, &err), HA_OK, "%s", err.message);
	double *got = (double *)&got;
	cr_assert_eq(ha_weights_read(w, 0, &got, &err), HA_EFORMAT);
	cr_assert_null(got);
	cr_assert_str_eq(err.message, "tensor 't': element 1 is NaN; weights "
	                 "must be finite");
	ha_weights_free(w);
	free(im.bytes);
	free(bytes);
}

/* Longer than the reader's buffer (64 KiB): the runs of the file land in
 * C order across buffer boundaries. */
Test(npy, fortran_order_across_read_buffers)
{
	const size_t rows = 300, cols = 70; /* 21000 doubles, 168000 bytes */
	double *a = malloc(rows * cols * sizeof *a);
	cr_assert_not_null(a);
	for (size_t i = 0; i < rows * cols; i++)
		a[i] = (double)i;
	size_t shape[2] = {rows, cols}, nbytes;
	unsigned char *bytes = fortran_bytes(a, shape, 2, '<', 8, &nbytes);
	struct image im = npy(1, 0, "{'descr': '<f8', 'fortran_order': True, "
	                      "'shape': (300, 70)}", bytes, nbytes);
	const char *path = write_file("f.npy", im.bytes, im.size);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK, "%s", err.message);
	double *got;
	cr_assert_eq(ha_weights_read(w, 0, &got, &err), HA_OK, "%s", err.message);
	for (size_t i = 0; i < rows * cols; i++)
		cr_assert_eq(got[i], a[i], "element %zu", i);
	free(got);
	ha_weights_free(w);
	free(im.bytes);
	free(bytes);
	free(a);
}
