/* Tests of the HDI of weights files and of matrices in memory: every
 * input file is written here, into a temporary directory, with known
 * subspaces (principal angles); the half-precision converters, the
 * layouts and the weights API (a file, memory) the HDI reads through.
 * The covariance weights are in test_covariance.c, the readers'
 * rejections of bad files in test_hdi_bad_files.c. */
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

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------- known subspaces */

/* The weight of H heads with d_k = n in d_model = 2n: column j of head h
 * is cos(a_hj) e_j + sin(a_hj) e_(n+j), then mixed by an invertible n x n
 * matrix and scaled (the column space is unchanged), so the principal
 * angles between heads h and h' are |a_hj - a_h'j| and
 * g = mean_j cos^2(a_hj - a_h'j).  Stored per layout. */
static double *rotated_heads(size_t heads, size_t n, const double *angle,
                             enum ha_layout layout)
{
	size_t m = 2 * n, out = heads * n;
	double *w = calloc(out * m, sizeof *w);
	cr_assert_not_null(w);
	for (size_t h = 0; h < heads; h++)
		for (size_t j = 0; j < n; j++)          /* mixed column j */
			for (size_t k = 0; k <= j; k++) { /* += (k+1)/(j+1) col k */
				double c = (h + 1.0) * (k == j ? 2.0 : 0.5);
				double a = angle[h * n + k];
				size_t rows[2] = {k, n + k};
				double val[2] = {c * cos(a), c * sin(a)};
				for (int t = 0; t < 2; t++) {
					size_t i = rows[t], o = h * n + j;
					if (layout == HA_LAYOUT_OUT_IN)
						w[o * m + i] += val[t];
					else
						w[i * out + o] += val[t];
				}
			}
	return w;
}

static double expected_overlap(const double *angle, size_t n, size_t a,
                               size_t b)
{
	double s = 0.0;
	for (size_t j = 0; j < n; j++) {
		double c = cos(angle[a * n + j] - angle[b * n + j]);
		s += c * c;
	}
	return s / (double)n;
}

static double expected_hdi(const double *angle, size_t heads, size_t n)
{
	double s = 0.0;
	for (size_t a = 0; a < heads; a++)
		for (size_t b = a + 1; b < heads; b++)
			s += expected_overlap(angle, n, a, b);
	return 1.0 - 2.0 * s / ((double)heads * (double)(heads - 1));
}

/* 12 heads, d_k = 2: angles h*pi/12 and h*pi/7 + 0.3. */
static void twelve_angles(double angle[24])
{
	for (size_t h = 0; h < 12; h++) {
		angle[2 * h] = (double)h * PI / 12.0;
		angle[2 * h + 1] = (double)h * PI / 7.0 + 0.3;
	}
}

static void check_report_angles(const struct ha_hdi_tensor *t,
                                const double *angle, size_t heads, size_t n,
                                double tol)
{
	cr_assert_eq(t->heads, heads);
	cr_assert_eq(t->head_dim, n);
	cr_assert_eq(t->model_dim, 2 * n);
	cr_assert_eq(t->pairs, heads * (heads - 1) / 2);
	for (size_t a = 0; a < heads; a++)
		for (size_t b = 0; b < heads; b++) {
			double want = a == b ? 1.0 : expected_overlap(angle, n, a, b);
			cr_assert(fabs(t->overlap[a * heads + b] - want) <= tol,
			          "%s overlap[%zu][%zu] = %.17g, want %.17g", t->name,
			          a, b, t->overlap[a * heads + b], want);
		}
	double want = expected_hdi(angle, heads, n);
	cr_assert(fabs(t->hdi - want) <= tol, "%s hdi %.17g want %.17g",
	          t->name, t->hdi, want);
	cr_assert_geq(t->most_similar.overlap, t->least_similar.overlap);
	cr_assert_lt(t->most_similar.first, t->most_similar.second);
}

/* ---------------------------------------------------------- converters */

Test(hdi, half_converters)
{
	cr_assert_eq(ha_f16_to_double(0x3c00), 1.0);
	cr_assert_eq(ha_f16_to_double(0xc000), -2.0);
	cr_assert_eq(ha_f16_to_double(0x7bff), 65504.0);
	cr_assert_eq(ha_f16_to_double(0x0001), ldexp(1.0, -24));
	cr_assert_eq(ha_f16_to_double(0x03ff), 1023.0 * ldexp(1.0, -24));
	cr_assert_eq(ha_f16_to_double(0x0400), ldexp(1.0, -14));
	cr_assert_eq(ha_f16_to_double(0x3555), 1365.0 * ldexp(1.0, -12));
	cr_assert(isinf(ha_f16_to_double(0x7c00)) && ha_f16_to_double(0x7c00) > 0);
	cr_assert(isinf(ha_f16_to_double(0xfc00)) && ha_f16_to_double(0xfc00) < 0);
	cr_assert(isnan(ha_f16_to_double(0x7e00)));
	cr_assert(isnan(ha_f16_to_double(0xfc01)));
	cr_assert(signbit(ha_f16_to_double(0x8000)));
	cr_assert_eq(ha_bf16_to_double(0x3f80), 1.0);
	cr_assert_eq(ha_bf16_to_double(0x4049), 3.140625);
	cr_assert_eq(ha_bf16_to_double(0x0001), ldexp(1.0, -133));
	cr_assert_eq(ha_bf16_to_double(0x0080), ldexp(1.0, -126));
	cr_assert_eq(ha_bf16_to_double(0x7f7f), 255.0 * ldexp(1.0, 120));
	cr_assert(isinf(ha_bf16_to_double(0xff80)));
	cr_assert(isnan(ha_bf16_to_double(0x7fc1)));
	/* every f16 pattern round-trips through the test encoder */
	for (uint32_t b = 0; b < 0x10000; b++) {
		double d = ha_f16_to_double((uint16_t)b);
		if (isfinite(d))
			cr_assert_eq(to_f16(d), (uint16_t)b, "f16 %04x", b);
	}
}

/* ------------------------------------------------------- HDI from files */

static const char *dtypes[] = {"F64", "F32", "F16", "BF16"};

/* Heads on disjoint coordinate blocks, small integers: exact in every
 * dtype, so HDI = 1 to 1e-12. */
Test(hdi, orthogonal_heads_every_dtype_and_layout)
{
	enum { H = 4, N = 3, M = H * N };
	for (int layout = 0; layout < 2; layout++)
		for (size_t d = 0; d < 4; d++) {
			double w[H * N * M] = {0};
			for (size_t h = 0; h < H; h++)
				for (size_t j = 0; j < N; j++)
					for (size_t k = 0; k <= j; k++) {
						size_t o = h * N + j, i = h * N + k;
						double v = (double)(j + k + 1);
						if (layout == HA_LAYOUT_OUT_IN)
							w[o * M + i] = v;
						else
							w[i * (H * N) + o] = v;
					}
			struct tdesc t = {"k", dtypes[d], layout ? M : H * N,
			                  layout ? H * N : M, w};
			const char *p = write_safetensors("orth.safetensors", &t, 1);
			struct ha_hdi_report *r = NULL;
			struct ha_error err;
			cr_assert_eq(hdi_measure_file(p, "k", H, (enum ha_layout)layout,
			                              &r, &err), HA_OK, "%s", err.message);
			cr_assert_eq(r->count, 1);
			cr_assert(fabs(r->tensors[0].hdi - 1.0) <= 1e-12,
			          "%s: hdi %.17g", dtypes[d], r->tensors[0].hdi);
			cr_assert(fabs(r->mean_hdi - 1.0) <= 1e-12);
			cr_assert(r->tensors[0].most_similar.overlap <= 1e-12);
			cr_assert_eq(r->tensors[0].rank_deficient, 0);
			ha_hdi_report_free(r);
			ncreated--; /* rewritten next round */
		}
}

/* Every head the same (up to an invertible mixing): HDI = 0. */
Test(hdi, identical_heads_every_dtype)
{
	enum { H = 5, N = 2, M = 6 };
	for (size_t d = 0; d < 4; d++) {
		double w[H * N * M];
		for (size_t h = 0; h < H; h++)
			for (size_t j = 0; j < N; j++)
				for (size_t i = 0; i < M; i++)
					w[(h * N + j) * M + i] =
						(double)((i * 7 + j * 3) % 5) - 2.0 +
						(j == 1 ? (double)h * ((i * 7) % 5 - 2.0) : 0.0);
		struct tdesc t = {"layer.0.k_proj.weight", dtypes[d], H * N, M, w};
		const char *p = write_safetensors("same.safetensors", &t, 1);
		struct ha_hdi_report *r = NULL;
		struct ha_error err;
		cr_assert_eq(hdi_measure_file(p, "*.k_proj.weight", H,
		                              HA_LAYOUT_OUT_IN, &r, &err),
		             HA_OK, "%s", err.message);
		cr_assert(fabs(r->tensors[0].hdi) <= 1e-12, "%s: hdi %.17g",
		          dtypes[d], r->tensors[0].hdi);
		cr_assert(fabs(r->tensors[0].least_similar.overlap - 1.0) <= 1e-12);
		ha_hdi_report_free(r);
		ncreated--;
	}
}

/* A 12-head, two-layer safetensors file with known principal angles, in
 * every dtype; the pattern selects one tensor per layer, sorted by name. */
Test(hdi, twelve_heads_known_angles_safetensors)
{
	double angle[24], angle2[24];
	twelve_angles(angle);
	for (size_t i = 0; i < 24; i++)
		angle2[i] = angle[i] * 0.5;
	const double tol[4] = {1e-12, 1e-6, 5e-3, 3e-2};
	for (size_t d = 0; d < 4; d++) {
		double *w0 = rotated_heads(12, 2, angle, HA_LAYOUT_OUT_IN);
		double *w1 = rotated_heads(12, 2, angle2, HA_LAYOUT_OUT_IN);
		double other[4] = {1, 2, 3, 4};
		struct tdesc t[3] = {
			{"model.layers.1.self_attn.k_proj.weight", dtypes[d], 24, 4, w1},
			{"model.layers.0.self_attn.k_proj.weight", dtypes[d], 24, 4, w0},
			{"model.layers.0.self_attn.q_proj.bias", "F32", 2, 2, other},
		};
		const char *p = write_safetensors("twelve.safetensors", t, 3);
		struct ha_hdi_report *r = NULL;
		struct ha_error err;
		cr_assert_eq(hdi_measure_file(p, "*.k_proj.weight", 12,
		                              HA_LAYOUT_OUT_IN, &r, &err),
		             HA_OK, "%s", err.message);
		cr_assert_eq(r->count, 2);
		cr_assert_str_eq(r->tensors[0].name,
		                 "model.layers.0.self_attn.k_proj.weight");
		check_report_angles(&r->tensors[0], angle, 12, 2, tol[d]);
		check_report_angles(&r->tensors[1], angle2, 12, 2, tol[d]);
		double mean = 0.5 * (expected_hdi(angle, 12, 2) +
		                     expected_hdi(angle2, 12, 2));
		cr_assert(fabs(r->mean_hdi - mean) <= tol[d]);
		if (d == 0) {
			/* angle differences: heads 0 and 1 differ by pi/12 and
			 * pi/7; the least similar pair is the one nearest pi/2 */
			double best = -1, worst = 2;
			for (size_t a = 0; a < 12; a++)
				for (size_t b = a + 1; b < 12; b++) {
					double g = expected_overlap(angle, 2, a, b);
					best = g > best ? g : best;
					worst = g < worst ? g : worst;
				}
			cr_assert(fabs(r->tensors[0].most_similar.overlap - best) < 1e-12);
			cr_assert(fabs(r->tensors[0].least_similar.overlap - worst) < 1e-12);
		}
		ha_hdi_report_free(r);
		free(w0);
		free(w1);
		ncreated--;
	}
}

/* The same 12 heads in .npy, f8/f4/f2, little and big endian, and the
 * [d_model, H d_k] layout. */
Test(hdi, twelve_heads_known_angles_npy)
{
	double angle[24];
	twelve_angles(angle);
	const char *descr[] = {"<f8", "<f4", "<f2", ">f8", ">f4"};
	const double tol[] = {1e-12, 1e-6, 5e-3, 1e-12, 1e-6};
	for (size_t d = 0; d < 5; d++)
		for (int layout = 0; layout < 2; layout++) {
			double *w = rotated_heads(12, 2, angle, (enum ha_layout)layout);
			const char *p = write_npy("layer0.k_proj.weight.npy", descr[d],
			                          layout ? 4 : 24, layout ? 24 : 4, w);
			struct ha_hdi_report *r = NULL;
			struct ha_error err;
			cr_assert_eq(hdi_measure_file(p, "*k_proj*", 12,
			                              (enum ha_layout)layout, &r, &err),
			             HA_OK, "%s: %s", descr[d], err.message);
			cr_assert_str_eq(r->tensors[0].name, "layer0.k_proj.weight");
			check_report_angles(&r->tensors[0], angle, 12, 2, tol[d]);
			ha_hdi_report_free(r);
			free(w);
			ncreated--;
		}
}

/* Wider heads: d_k = 8 with eight different angles per head. */
Test(hdi, wide_heads_in_memory)
{
	enum { H = 6, N = 8 };
	double angle[H * N];
	for (size_t i = 0; i < H * N; i++)
		angle[i] = sin((double)i * 1.7) * 1.3;
	double *w = rotated_heads(H, N, angle, HA_LAYOUT_IN_OUT);
	struct ha_hdi_tensor t;
	struct ha_error err;
	cr_assert_eq(ha_hdi_compute(w, 2 * N, H * N, H, HA_LAYOUT_IN_OUT, "w",
	                            &t, &err), HA_OK, "%s", err.message);
	check_report_angles(&t, angle, H, N, 1e-12);
	ha_hdi_tensor_finish(&t);
	ha_hdi_tensor_finish(NULL);
	free(w);
}

Test(hdi, one_head_is_defined_as_one)
{
	double w[6] = {1, 2, 3, 4, 5, 7};
	struct ha_hdi_tensor t;
	cr_assert_eq(ha_hdi_compute(w, 2, 3, 1, HA_LAYOUT_OUT_IN, NULL, &t, NULL),
	             HA_OK);
	cr_assert_eq(t.hdi, 1.0);
	cr_assert_eq(t.pairs, 0);
	cr_assert_eq(t.overlap[0], 1.0);
	cr_assert_eq(t.rank[0], 2);
	ha_hdi_tensor_finish(&t);
}

/* Rank deficiency: a head whose two columns are parallel has rank 1, a
 * zero head rank 0 (overlap 0 with everyone). */
Test(hdi, rank_deficient_heads)
{
	/* out-in, H = 3, d_k = 2, d_model = 3 */
	double w[18] = {
		1, 0, 0,  0, 1, 0,   /* head 0: span(e1, e2) */
		2, 0, 0,  4, 0, 0,   /* head 1: span(e1), rank 1 */
		0, 0, 0,  0, 0, 0,   /* head 2: zero */
	};
	struct ha_hdi_tensor t;
	struct ha_error err;
	cr_assert_eq(ha_hdi_compute(w, 6, 3, 3, HA_LAYOUT_OUT_IN, "r", &t, &err),
	             HA_OK);
	cr_assert_eq(t.rank[0], 2);
	cr_assert_eq(t.rank[1], 1);
	cr_assert_eq(t.rank[2], 0);
	cr_assert_eq(t.rank_deficient, 2);
	/* ||Q0^T Q1||^2 = 1, / sqrt(2 * 1) */
	cr_assert(fabs(t.overlap[0 * 3 + 1] - 1.0 / sqrt(2.0)) < 1e-12);
	cr_assert_eq(t.overlap[0 * 3 + 2], 0.0);
	cr_assert_eq(t.overlap[2 * 3 + 2], 0.0);
	cr_assert(fabs(t.hdi - (1.0 - (1.0 / sqrt(2.0)) / 3.0)) < 1e-12);
	cr_assert_eq(t.most_similar.first, 0);
	cr_assert_eq(t.most_similar.second, 1);
	ha_hdi_tensor_finish(&t);
}

/* d_model < d_k: at most d_model directions per head. */
Test(hdi, head_dim_above_model_dim)
{
	double w[2 * 3 * 2];  /* out-in: H = 2, d_k = 3, d_model = 2 */
	for (size_t i = 0; i < 12; i++)
		w[i] = (double)((i * 5) % 7) - 3.0;
	struct ha_hdi_tensor t;
	cr_assert_eq(ha_hdi_compute(w, 6, 2, 2, HA_LAYOUT_OUT_IN, "x", &t, NULL),
	             HA_OK);
	cr_assert_eq(t.rank[0], 2);
	cr_assert(fabs(t.hdi) < 1e-12); /* both span all of R^2 */
	ha_hdi_tensor_finish(&t);
}

Test(hdi, layout_strings)
{
	enum ha_layout l;
	cr_assert_eq(ha_layout_parse("in-out", &l), HA_OK);
	cr_assert_eq(l, HA_LAYOUT_IN_OUT);
	cr_assert_eq(ha_layout_parse("out-in", &l), HA_OK);
	cr_assert_eq(l, HA_LAYOUT_OUT_IN);
	cr_assert_eq(ha_layout_parse("rows", &l), HA_EINVAL);
	cr_assert_str_eq(ha_layout_str(HA_LAYOUT_IN_OUT), "in-out");
}

Test(hdi, weights_directory_api)
{
	double v[6] = {1, 2, 3, 4, 5, 6};
	struct tdesc t[2] = {{"b", "F32", 2, 3, v}, {"a", "BF16", 3, 2, v}};
	const char *p = write_safetensors("dir.safetensors", t, 2);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(p, &w, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_weights_count(w), 2);
	struct ha_tensor_info info;
	cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
	cr_assert_str_eq(info.name, "a");
	cr_assert_eq(info.dtype, HA_DTYPE_BF16);
	cr_assert_eq(info.shape[0], 3);
	cr_assert_eq(info.elements, 6);
	cr_assert_eq(ha_weights_info(w, 2, &info), HA_EINVAL);
	double *d;
	cr_assert_eq(ha_weights_read(w, 1, &d, &err), HA_OK);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(d[i], v[i]);
	free(d);
	size_t *idx, n;
	cr_assert_eq(ha_weights_select(w, NULL, &idx, &n, &err), HA_OK);
	cr_assert_eq(n, 2);
	free(idx);
	cr_assert_eq(ha_weights_select(w, "*.k_proj.weight", &idx, &n, &err),
	             HA_EINVAL);
	cr_assert(strstr(err.message, "no tensor matches"), "%s", err.message);
	cr_assert_null(idx);
	ha_weights_free(w);
	ha_weights_free(NULL);
}

/* Reading from memory, which the fuzz targets use. */
Test(hdi, open_memory)
{
	static const char npy[] = "\x93NUMPY\1\0\x39\0"
	                          "{'descr': '<f8', 'fortran_order': False, "
	                          "'shape': (0,), }";
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(ha_weights_open_memory(npy, sizeof npy - 1,
	                                    HA_WEIGHTS_FORMAT_AUTO, "x", &w, &err),
	             HA_OK, "%s", err.message);
	struct ha_tensor_info info;
	cr_assert_eq(ha_weights_info(w, 0, &info), HA_OK);
	cr_assert_str_eq(info.name, "x");
	cr_assert_eq(info.elements, 0);
	double *d;
	cr_assert_eq(ha_weights_read(w, 0, &d, &err), HA_OK);
	free(d);
	ha_weights_free(w);
	cr_assert_eq(ha_weights_open_memory(NULL, 0,
	                                    HA_WEIGHTS_FORMAT_SAFETENSORS, NULL,
	                                    &w, &err), HA_EFORMAT);
	cr_assert_null(w);
	cr_assert_eq(ha_weights_open_memory(npy, sizeof npy - 1,
	                                    HA_WEIGHTS_FORMAT_SAFETENSORS, NULL,
	                                    &w, &err), HA_EFORMAT);
}
