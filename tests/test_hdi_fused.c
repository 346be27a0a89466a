/* The tensors a weights file's HDI measures: the keys cut out
 * of fused q|k|v and k|v tensors, in both orders and layouts, against the
 * HDI of the plain key matrix; the default choice of key projections by
 * name; patterns passing by tensors that are not 2-D. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

static char path[64];

static void setup(void)
{
	snprintf(path, sizeof path, "/tmp/ha_test_hdi_fused_XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(hdi_fused, .init = setup, .fini = teardown);

struct tensor {
	const char *name;
	size_t rows, cols; /* cols 0: a 1-D tensor of rows */
	const double *v;
};

/* A safetensors file of F64 tensors at path. */
static void write_file(const struct tensor *t, size_t n)
{
	char header[4096];
	size_t hl = 0, off = 0;
	hl += (size_t)snprintf(header, sizeof header, "{");
	for (size_t i = 0; i < n; i++) {
		size_t bytes = t[i].rows * (t[i].cols ? t[i].cols : 1) * 8;
		if (t[i].cols)
			hl += (size_t)snprintf(header + hl, sizeof header - hl,
			                       "%s\"%s\":{\"dtype\":\"F64\",\"shape\":"
			                       "[%zu,%zu],\"data_offsets\":[%zu,%zu]}",
			                       i ? "," : "", t[i].name, t[i].rows,
			                       t[i].cols, off, off + bytes);
		else
			hl += (size_t)snprintf(header + hl, sizeof header - hl,
			                       "%s\"%s\":{\"dtype\":\"F64\",\"shape\":"
			                       "[%zu],\"data_offsets\":[%zu,%zu]}",
			                       i ? "," : "", t[i].name, t[i].rows, off,
			                       off + bytes);
		off += bytes;
	}
	header[hl++] = '}';
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	for (int b = 0; b < 8; b++)
		fputc((int)((uint64_t)hl >> (8 * b)) & 0xff, f);
	fwrite(header, 1, hl, f);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].rows * (t[i].cols ? t[i].cols : 1); k++) {
			unsigned char le[8];
			uint64_t u;
			memcpy(&u, &t[i].v[k], 8);
			for (int b = 0; b < 8; b++)
				le[b] = (unsigned char)(u >> (8 * b));
			fwrite(le, 1, 8, f);
		}
	fclose(f);
}

/* H = 3 heads of d = 2 over m = 5: q, k, v are 6 x 5 out-in. */
enum { H = 3, DK = 2, M = 5, D = H * DK };

static double q[D * M], k[D * M], v[D * M];

static void fill(void)
{
	uint64_t s = 12345;
	double *all[] = {q, k, v};
	for (int a = 0; a < 3; a++)
		for (size_t i = 0; i < D * M; i++) {
			s = s * 6364136223846793005u + 1442695040888963407u;
			all[a][i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
		}
}

/* Rows of the parts stacked (concat) or head by head (per-head). */
static void stack(double *out, const double *const *parts, size_t np,
                  int per_head)
{
	size_t r = 0;
	if (!per_head) {
		for (size_t p = 0; p < np; p++)
			for (size_t i = 0; i < D; i++, r++)
				memcpy(out + r * M, parts[p] + i * M, M * sizeof *out);
		return;
	}
	for (size_t h = 0; h < H; h++)
		for (size_t p = 0; p < np; p++)
			for (size_t j = 0; j < DK; j++, r++)
				memcpy(out + r * M, parts[p] + (h * DK + j) * M,
				       M * sizeof *out);
}

static void transpose(double *out, const double *in, size_t rows,
                      size_t cols)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			out[j * rows + i] = in[i * cols + j];
}

Test(hdi_fused, keys_of_fused_tensors_are_the_keys)
{
	fill();
	static double qkv_c[3 * D * M], qkv_h[3 * D * M], kv_c[2 * D * M],
	        kv_h[2 * D * M], qkv_io[3 * D * M], kv_hio[2 * D * M];
	const double *qkv[] = {q, k, v}, *kv[] = {k, v};
	stack(qkv_c, qkv, 3, 0);
	stack(qkv_h, qkv, 3, 1);
	stack(kv_c, kv, 2, 0);
	stack(kv_h, kv, 2, 1);
	transpose(qkv_io, qkv_c, 3 * D, M);
	transpose(kv_hio, kv_h, 2 * D, M);
	const struct tensor t[] = {
		{"kv_c", 2 * D, M, kv_c},   {"kv_h", 2 * D, M, kv_h},
		{"kv_hio", M, 2 * D, kv_hio}, {"qkv_c", 3 * D, M, qkv_c},
		{"qkv_h", 3 * D, M, qkv_h}, {"qkv_io", M, 3 * D, qkv_io},
	};
	write_file(t, sizeof t / sizeof t[0]);

	struct ha_hdi_tensor want;
	struct ha_error err;
	cr_assert_eq(ha_hdi_compute(k, D, M, H, HA_LAYOUT_OUT_IN, "k", &want,
	                            &err), HA_OK, "%s", err.message);
	static const struct {
		const char *name;
		enum ha_fused fused;
		enum ha_fused_order order;
		enum ha_layout layout;
	} cases[] = {
		{"kv_c", HA_FUSED_KV, HA_FUSED_CONCAT, HA_LAYOUT_OUT_IN},
		{"kv_h", HA_FUSED_KV, HA_FUSED_PER_HEAD, HA_LAYOUT_OUT_IN},
		{"kv_hio", HA_FUSED_KV, HA_FUSED_PER_HEAD, HA_LAYOUT_IN_OUT},
		{"qkv_c", HA_FUSED_QKV, HA_FUSED_CONCAT, HA_LAYOUT_OUT_IN},
		{"qkv_h", HA_FUSED_QKV, HA_FUSED_PER_HEAD, HA_LAYOUT_OUT_IN},
		{"qkv_io", HA_FUSED_QKV, HA_FUSED_CONCAT, HA_LAYOUT_IN_OUT},
	};
	struct ha_weights *w = NULL;
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK, "%s", err.message);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct ha_hdi_options o = HA_HDI_OPTIONS_INIT;
		o.fused = cases[c].fused;
		o.fused_order = cases[c].order;
		struct ha_hdi_report *r = NULL;
		cr_assert_eq(ha_hdi_measure_weights(w, cases[c].name, H,
		                                    cases[c].layout, &o, &r, &err),
		             HA_OK, "%s: %s", cases[c].name, err.message);
		const struct ha_hdi_tensor *got = &r->tensors[0];
		cr_assert_eq(got->head_dim, DK, "%s", cases[c].name);
		cr_assert_eq(got->model_dim, M, "%s", cases[c].name);
		cr_assert(fabs(got->hdi - want.hdi) < 1e-12, "%s: hdi %.17g, "
		          "want %.17g", cases[c].name, got->hdi, want.hdi);
		for (size_t i = 0; i < H * H; i++)
			cr_assert(fabs(got->overlap[i] - want.overlap[i]) < 1e-12,
			          "%s overlap %zu", cases[c].name, i);
		ha_hdi_report_free(r);
	}
	/* Unfused, the same tensor is cut into heads of q, k and v: another
	 * HDI, so the cut is what makes the answer. */
	struct ha_hdi_report *r = NULL;
	cr_assert_eq(ha_hdi_measure_weights(w, "qkv_c", H, HA_LAYOUT_OUT_IN,
	                                    NULL, &r, &err), HA_OK);
	cr_assert(fabs(r->tensors[0].hdi - want.hdi) > 1e-3);
	ha_hdi_report_free(r);
	/* Widths that do not divide. */
	struct ha_hdi_options o = HA_HDI_OPTIONS_INIT;
	o.fused = HA_FUSED_QKV;
	cr_assert_eq(ha_hdi_measure_weights(w, "kv_c", 1, HA_LAYOUT_IN_OUT, &o,
	                                    &r, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "its 5 outputs cannot hold q|k|v (not a "
	                 "multiple of 3)"), "%s", err.message);
	o.fused = HA_FUSED_KV;
	cr_assert_eq(ha_hdi_measure_weights(w, "kv_c", 4, HA_LAYOUT_OUT_IN, &o,
	                                    &r, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "4 heads do not divide its 6 key "
	                 "outputs"), "%s", err.message);
	cr_assert_null(r);
	ha_weights_free(w);
	ha_hdi_tensor_finish(&want);
}

Test(hdi_fused, keys_by_name_and_patterns)
{
	fill();
	static const double norm[M] = {1, 1, 1, 1, 1};
	const struct tensor t[] = {
		{"a.k_proj.weight", D, M, k},
		{"a.norm.weight", M, 0, norm},
		{"a.q_proj.weight", D, M, q},
	};
	write_file(t, 3);
	struct ha_weights *w = NULL;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK, "%s", err.message);
	struct ha_hdi_options o = HA_HDI_OPTIONS_INIT;
	struct ha_hdi_report *r = NULL;
	/* Every tensor, as before: the 1-D norm is refused. */
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, H, HA_LAYOUT_OUT_IN, &o, &r,
	                                    &err), HA_EUNSUPPORTED);
	/* By name: the keys alone, as ha_hdi_compute of k. */
	o.keys_by_name = 1;
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, H, HA_LAYOUT_OUT_IN, &o, &r,
	                                    &err), HA_OK, "%s", err.message);
	cr_assert_eq(r->count, 1);
	cr_assert_str_eq(r->tensors[0].name, "a.k_proj.weight");
	struct ha_hdi_tensor want;
	cr_assert_eq(ha_hdi_compute(k, D, M, H, HA_LAYOUT_OUT_IN, "k", &want,
	                            &err), HA_OK);
	cr_assert(fabs(r->tensors[0].hdi - want.hdi) < 1e-15);
	ha_hdi_tensor_finish(&want);
	ha_hdi_report_free(r);
	/* A glob passes by the norm and says so. */
	cr_assert_eq(ha_hdi_measure_weights(w, "a.*", H, HA_LAYOUT_OUT_IN, NULL,
	                                    &r, &err), HA_OK, "%s", err.message);
	cr_assert_eq(r->count, 2);
	cr_assert_eq(r->warning_count, 1);
	cr_assert_eq(r->warnings[0].kind, HA_HDI_WARN_SKIPPED);
	cr_assert_eq(r->warnings[0].tensor, SIZE_MAX);
	cr_assert(strstr(r->warnings[0].message, "1 tensor that is not 2-D"),
	          "%s", r->warnings[0].message);
	ha_hdi_report_free(r);
	/* Named exactly, or only 1-D tensors matched: an error. */
	cr_assert_eq(ha_hdi_measure_weights(w, "a.norm.weight", H,
	                                    HA_LAYOUT_OUT_IN, NULL, &r, &err),
	             HA_EUNSUPPORTED);
	cr_assert_eq(ha_hdi_measure_weights(w, "*norm*", H, HA_LAYOUT_OUT_IN,
	                                    NULL, &r, &err), HA_EUNSUPPORTED);
	ha_weights_free(w);

	/* No name says keys: the 2-D tensors are listed. */
	const struct tensor u[] = {
		{"embed.weight", D, M, k}, {"lm_head.weight", D, M, q},
		{"norm", M, 0, norm}};
	write_file(u, 3);
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK);
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, H, HA_LAYOUT_OUT_IN, &o, &r,
	                                    &err), HA_EINVAL);
	cr_assert_null(r);
	cr_assert(strstr(err.message, "'embed.weight' [6, 5], "
	                 "'lm_head.weight' [6, 5]"), "%s", err.message);
	cr_assert(!strstr(err.message, "'norm'"), "%s", err.message);
	cr_assert(strstr(err.message, "--tensor"), "%s", err.message);
	ha_weights_free(w);
}
