/* The HDI of matrices in memory (hdi_matrices.h) applies the policy of the
 * file functions (hdi.h): the same tensors, warnings and means as
 * ha_hdi_measure_weights on the same matrices written as a safetensors
 * image, the work limit before any SVD, all-zero tensors refused with
 * the report left as it was. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>
#include "tensors/weights_internal.h"

TestSuite(hdi_matrices);

/* Tensors a and b, rows x cols F64 each, as a safetensors image. */
static unsigned char *image(const double *a, const double *b, size_t rows,
                            size_t cols, size_t *size)
{
	size_t bytes = rows * cols * sizeof(double);
	char header[512];
	int n = snprintf(header, sizeof header,
	                 "{\"a\":{\"dtype\":\"F64\",\"shape\":[%zu,%zu],"
	                 "\"data_offsets\":[0,%zu]},\"b\":{\"dtype\":\"F64\","
	                 "\"shape\":[%zu,%zu],\"data_offsets\":[%zu,%zu]}}",
	                 rows, cols, bytes, rows, cols, bytes, 2 * bytes);
	while (n % 8)
		header[n++] = ' ';
	*size = 8 + (size_t)n + 2 * bytes;
	unsigned char *img = malloc(*size);
	cr_assert_not_null(img);
	uint64_t len = (uint64_t)n;
	for (int i = 0; i < 8; i++)
		img[i] = (unsigned char)(len >> (8 * i));
	memcpy(img + 8, header, (size_t)n);
	memcpy(img + 8 + n, a, bytes); /* little-endian host */
	memcpy(img + 8 + n + bytes, b, bytes);
	return img;
}

Test(hdi_matrices, same_policy_as_files)
{
	enum { R = 24, C = 16, H = 3 };
	double a[R * C], b[R * C];
	unsigned s = 7;
	for (size_t i = 0; i < R * C; i++) {
		s = s * 1103515245u + 12345u;
		a[i] = (double)(s >> 16 & 0xff) / 64.0 - 2.0;
	}
	/* b after the whole of a: b[i] reads a[7i mod RC], often past i */
	for (size_t i = 0; i < R * C; i++)
		b[i] = a[(i * 7) % (R * C)] - 0.5;
	memset(b + 8 * C, 0, 8 * C * sizeof *b); /* b's head 1: all zero */
	for (size_t j = 0; j < C; j++)           /* b's head 2: rank 1 */
		for (size_t r = 16; r < 24; r++)
			b[r * C + j] = (double)(r - 15) * (double)(j + 1);

	struct ha_error err;
	struct ha_hdi_report *m = ha_hdi_report_new();
	cr_assert_not_null(m);
	cr_assert_eq(ha_hdi_report_add(m, a, R, C, H, HA_LAYOUT_OUT_IN, "a", &err),
	             HA_OK, "%s", err.message);
	cr_assert_eq(ha_hdi_report_add(m, b, R, C, H, HA_LAYOUT_OUT_IN, "b", &err),
	             HA_OK, "%s", err.message);

	size_t size;
	unsigned char *img = image(a, b, R, C, &size);
	struct ha_weights *w = NULL;
	cr_assert_eq(ha_weights_open_memory(img, size, HA_WEIGHTS_FORMAT_SAFETENSORS,
	                                    NULL, &w, &err), HA_OK, "%s",
	             err.message);
	struct ha_hdi_report *f = NULL;
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, H, HA_LAYOUT_OUT_IN, NULL, &f,
	                                    &err), HA_OK, "%s", err.message);
	cr_assert_eq(m->count, f->count);
	for (size_t i = 0; i < m->count; i++) {
		cr_assert_str_eq(m->tensors[i].name, f->tensors[i].name);
		cr_assert_eq(m->tensors[i].hdi, f->tensors[i].hdi);
		cr_assert_eq(m->tensors[i].rank_deficient, f->tensors[i].rank_deficient);
	}
	cr_assert_eq(m->mean_hdi, f->mean_hdi);
	cr_assert_eq(m->mean_baseline_hdi, f->mean_baseline_hdi);
	cr_assert_eq(m->warning_count, 2);
	cr_assert_eq(m->warning_count, f->warning_count);
	for (size_t i = 0; i < m->warning_count; i++) {
		cr_assert_eq(m->warnings[i].kind, f->warnings[i].kind);
		cr_assert_eq(m->warnings[i].tensor, 1);
		cr_assert_str_eq(m->warnings[i].message, f->warnings[i].message);
	}
	cr_assert(strstr(m->warnings[0].message, "head 1"), "%s",
	          m->warnings[0].message);
	ha_hdi_report_free(f);
	ha_weights_free(w);
	free(img);

	/* All zero: refused, and the report is as it was. */
	double zero[R * C] = {0};
	cr_assert_eq(ha_hdi_report_add(m, zero, R, C, H, HA_LAYOUT_OUT_IN, "z",
	                               &err), HA_EDEGENERATE);
	cr_assert(strstr(err.message, "tensor 'z'"), "%s", err.message);
	cr_assert_eq(m->count, 2);
	cr_assert_eq(m->warning_count, 2);
	ha_hdi_report_free(m);
}

Test(hdi_matrices, work_limit_before_any_svd)
{
	/* (H d_k)^2 d_model = 8192^2 * 1100 > 2^36: refused from the shape
	 * alone, so the weights need not even exist beyond one double. */
	double one = 1.0;
	struct ha_error err;
	struct ha_hdi_report *r = ha_hdi_report_new();
	cr_assert_eq(ha_hdi_report_add(r, &one, 8192, 1100, 2, HA_LAYOUT_OUT_IN,
	                               "big", &err), HA_EUNSUPPORTED);
	cr_assert(strstr(err.message, "multiply-adds"), "%s", err.message);
	cr_assert_eq(r->count, 0);
	cr_assert_eq(ha_hdi_report_add(NULL, &one, 1, 1, 1, HA_LAYOUT_OUT_IN, NULL,
	                               &err), HA_EINVAL);
	ha_hdi_report_free(r);
}
