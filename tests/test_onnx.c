/* The ONNX reader through the weights API: every storage of
 * tests/data/onnx/mixed.onnx (make_onnx.py) decodes to the same matrix,
 * the directory is in name order with ONNX's type names, and an image in
 * memory refuses external data.  (Its HDI against NumPy: onnx_numpy.py;
 * hostile models: tests/bad-input/hdi-bad-onnx-*.test.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>
#include "tensors/weights_internal.h"

#define MIXED HA_TEST_DATA "/onnx/mixed.onnx"

static size_t index_of(const struct ha_weights *w, const char *name)
{
	size_t *idx = NULL, n = 0;
	cr_assert_eq(ha_weights_select(w, name, &idx, &n, NULL), HA_OK, "%s", name);
	cr_assert_eq(n, 1);
	size_t i = idx[0];
	free(idx);
	return i;
}

Test(onnx, every_storage_reads_the_same_matrix)
{
	struct ha_weights *w = NULL;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(MIXED, &w, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_weights_count(w), 9);
	static const char *const names[] = {"bias", "const_bf16", "const_f16",
		"const_f32", "const_f64", "const_raw_bf16", "ext_f32",
		"init_raw_f32", "shape"};
	static const char *const types[] = {"FLOAT", "BFLOAT16", "FLOAT16",
		"FLOAT", "DOUBLE", "BFLOAT16", "FLOAT", "FLOAT", "INT64"};
	for (size_t i = 0; i < 9; i++) {
		struct ha_tensor_info info;
		cr_assert_eq(ha_weights_info(w, i, &info), HA_OK);
		cr_expect_str_eq(info.name, names[i]);
		cr_expect_str_eq(info.dtype_name, types[i]);
	}
	double *want = NULL;
	cr_assert_eq(ha_weights_read(w, index_of(w, "init_raw_f32"), &want, &err),
	             HA_OK, "%s", err.message);
	/* the generator's weights are multiples of 1/8 in [-1, 1], not all 0 */
	double sum = 0;
	for (size_t k = 0; k < 48 * 32; k++) {
		cr_assert_eq(want[k] * 8, (double)(long)(want[k] * 8));
		sum += want[k] * want[k];
	}
	cr_assert_gt(sum, 100);
	for (size_t i = 1; i < 7; i++) {
		double *got = NULL;
		cr_assert_eq(ha_weights_read(w, index_of(w, names[i]), &got, &err),
		             HA_OK, "%s: %s", names[i], err.message);
		cr_expect_eq(memcmp(got, want, 48 * 32 * sizeof *got), 0, "%s",
		             names[i]);
		free(got);
	}
	free(want);
	double *v = NULL;
	cr_expect_eq(ha_weights_read(w, index_of(w, "shape"), &v, &err),
	             HA_EUNSUPPORTED);
	cr_expect_null(v);
	ha_weights_free(w);
}

Test(onnx, an_image_in_memory_refuses_external_data)
{
	FILE *f = fopen(MIXED, "rb");
	cr_assert_not_null(f);
	static unsigned char bytes[1 << 16];
	size_t n = fread(bytes, 1, sizeof bytes, f);
	fclose(f);
	cr_assert_lt(n, sizeof bytes);
	struct ha_weights *w = NULL;
	struct ha_error err;
	cr_expect_eq(ha_weights_open_memory(bytes, n, HA_WEIGHTS_FORMAT_ONNX,
	                                    NULL, &w, &err), HA_EUNSUPPORTED);
	cr_expect_null(w);
	cr_expect_str_eq(err.message, "tensor 'ext_f32': external data is not "
	                 "read from a model in memory");
	/* cut short: the framing check names the byte */
	cr_expect_eq(ha_weights_open_memory(bytes, n - 1, HA_WEIGHTS_FORMAT_ONNX,
	                                    NULL, &w, &err), HA_EFORMAT);
	cr_expect_not_null(strstr(err.message, "runs past the end"), "%s",
	                   err.message);
}
