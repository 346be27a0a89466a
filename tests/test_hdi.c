/* Tests of the weights readers, the HDI and the covariance weights: every
 * input file is written here, into a temporary directory, with known
 * subspaces. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------- temp dir */

static char tmpdir[64];
static char created[64][160];
static size_t ncreated;

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/ha_test_hdi_XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	ncreated = 0;
}

static void teardown(void)
{
	for (size_t i = 0; i < ncreated; i++)
		unlink(created[i]);
	rmdir(tmpdir);
}

TestSuite(hdi, .init = setup, .fini = teardown);

static const char *write_file(const char *name, const void *data, size_t n)
{
	cr_assert_lt(ncreated, 64);
	char *path = created[ncreated++];
	snprintf(path, 160, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* -------------------------------------------------------------- encoders */

static uint16_t to_f16(double x)
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

static uint16_t to_bf16(double x)
{
	float f = (float)x;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static size_t dtype_size(const char *dtype)
{
	return strcmp(dtype, "F64") == 0 ? 8 : strcmp(dtype, "F32") == 0 ? 4 : 2;
}

/* v as little-endian bytes of dtype (F64, F32, F16, BF16); big = 1 for
 * big-endian. */
static unsigned char *encode(const double *v, size_t n, const char *dtype,
                             int big)
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

static const char *write_safetensors(const char *file,
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
static const char *write_npy(const char *file, const char *descr,
                             size_t rows, size_t cols, const double *v)
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
			cr_assert_eq(ha_hdi_from_file(p, "k", H, (enum ha_layout)layout,
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
		cr_assert_eq(ha_hdi_from_file(p, "*.k_proj.weight", H,
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
		cr_assert_eq(ha_hdi_from_file(p, "*.k_proj.weight", 12,
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
			cr_assert_eq(ha_hdi_from_file(p, "*k_proj*", 12,
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
	cr_assert_str_eq(ha_dtype_str(HA_DTYPE_F16), "F16");
}

/* ------------------------------------------------------------ covariance */

Test(hdi, covariance_hand_solved_3x3)
{
	/* Sigma^-1 = (1/4) [[3,-2,1],[-2,4,-2],[1,-2,3]], Sigma^-1 1 =
	 * (1/2, 0, 1/2): alpha = (1/2, 0, 1/2), error 1, uniform 10/9. */
	const double s[9] = {2, 1, 0, 1, 2, 1, 0, 1, 2};
	struct ha_head_weights hw;
	struct ha_error err;
	cr_assert_eq(ha_covariance_weights(s, 3, &hw, &err), HA_OK);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert(fabs(hw.alpha[1]) < 1e-14);
	cr_assert(fabs(hw.alpha[2] - 0.5) < 1e-14);
	cr_assert(fabs(hw.error_optimal - 1.0) < 1e-14);
	cr_assert(fabs(hw.error_uniform - 10.0 / 9.0) < 1e-14);
	cr_assert(fabs(hw.gain - 10.0 / 9.0) < 1e-14);
	cr_assert_eq(hw.pseudo_inverse, 0);
	cr_assert_eq(hw.rank, 3);
	cr_assert(fabs(hw.min_eigenvalue - (2.0 - sqrt(2.0))) < 1e-14);
	ha_head_weights_finish(&hw);
	ha_head_weights_finish(NULL);
}

Test(hdi, covariance_diagonal_and_singular)
{
	/* diag(1, 2, 4): alpha proportional to (1, 1/2, 1/4) */
	const double d[9] = {1, 0, 0, 0, 2, 0, 0, 0, 4};
	struct ha_head_weights hw;
	cr_assert_eq(ha_covariance_weights(d, 3, &hw, NULL), HA_OK);
	cr_assert(fabs(hw.alpha[0] - 4.0 / 7.0) < 1e-14);
	cr_assert(fabs(hw.alpha[2] - 1.0 / 7.0) < 1e-14);
	cr_assert(fabs(hw.error_optimal - 4.0 / 7.0) < 1e-14);
	ha_head_weights_finish(&hw);

	/* singular: two copies of one head, pseudo-inverse, flag set */
	const double s[4] = {1, 1, 1, 1};
	cr_assert_eq(ha_covariance_weights(s, 2, &hw, NULL), HA_OK);
	cr_assert_eq(hw.pseudo_inverse, 1);
	cr_assert_eq(hw.rank, 1);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert(fabs(hw.error_optimal - 1.0) < 1e-14);
	cr_assert(fabs(hw.gain - 1.0) < 1e-14);
	ha_head_weights_finish(&hw);

	/* zero matrix: every alpha has error 0; the null-space rule gives the
	 * uniform one */
	const double z[4] = {0, 0, 0, 0};
	cr_assert_eq(ha_covariance_weights(z, 2, &hw, NULL), HA_OK);
	cr_assert_eq(hw.null_space, 1);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert_eq(hw.gain, 1.0);
	ha_head_weights_finish(&hw);

	/* a head with no variance: all the weight on it, error 0, which the
	 * pseudo-inverse alone would miss (it gives alpha = (1, 0), error 1) */
	const double n[4] = {1, 0, 0, 0};
	cr_assert_eq(ha_covariance_weights(n, 2, &hw, NULL), HA_OK);
	cr_assert_eq(hw.null_space, 1);
	cr_assert(fabs(hw.alpha[0]) < 1e-14 && fabs(hw.alpha[1] - 1.0) < 1e-14);
	cr_assert_eq(hw.error_optimal, 0.0);
	cr_assert(fabs(hw.error_uniform - 0.25) < 1e-15);
	cr_assert(isinf(hw.gain));
	ha_head_weights_finish(&hw);

	/* entries near the largest double: no overflow on the way */
	const double big[4] = {1e308, 0, 0, 1e308};
	cr_assert_eq(ha_covariance_weights(big, 2, &hw, NULL), HA_OK);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert(fabs(hw.error_optimal / 0.5e308 - 1.0) < 1e-14);
	cr_assert(fabs(hw.gain - 1.0) < 1e-14);
	ha_head_weights_finish(&hw);
}

Test(hdi, covariance_rejects_asymmetric_and_nonfinite)
{
	const double a[4] = {1, 0.5, 0.5 + 1e-9, 1};
	struct ha_head_weights hw;
	struct ha_error err;
	cr_assert_eq(ha_covariance_weights(a, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "not symmetric"), "%s", err.message);
	cr_assert_null(hw.alpha);
	const double b[4] = {1, 0.5, 0.5 * (1 + 1e-14), 1};
	cr_assert_eq(ha_covariance_weights(b, 2, &hw, &err), HA_OK);
	ha_head_weights_finish(&hw);
	const double c[4] = {1, NAN, NAN, 1};
	cr_assert_eq(ha_covariance_weights(c, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "not finite"), "%s", err.message);
	cr_assert_eq(ha_covariance_weights(c, 0, &hw, &err), HA_EINVAL);
	/* not a covariance: a negative eigenvalue */
	const double neg[4] = {1, 2, 2, 1};
	cr_assert_eq(ha_covariance_weights(neg, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "not positive semi-definite"), "%s", err.message);
	cr_assert_null(hw.alpha);
	/* a negative variance, however small, is no rounding error: it was
	 * once taken for a singular matrix with gain inf */
	const double tiny[4] = {1, 0, 0, -1e-12};
	cr_assert_eq(ha_covariance_weights(tiny, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "row 2, column 2 is a variance"), "%s",
	          err.message);
	cr_assert_null(hw.alpha);
}

Test(hdi, covariance_yaml_read)
{
	const char *text = "# head covariance\ncovariance:\n"
	                   "  - [2, 1, 0]\n  - [1, 2.0, 1e0]\n  - [0, 1, 2]\n";
	const char *p = write_file("cov.yaml", text, strlen(text));
	double *s;
	size_t h;
	struct ha_error err;
	cr_assert_eq(ha_covariance_read(p, &s, &h, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(h, 3);
	cr_assert_eq(s[5], 1.0);
	cr_assert_eq(s[8], 2.0);
	free(s);
	const char *flow = "{covariance: [[4]]}";
	cr_assert_eq(ha_covariance_parse(flow, strlen(flow), &s, &h, &err), HA_OK);
	cr_assert_eq(h, 1);
	cr_assert_eq(s[0], 4.0);
	free(s);
	cr_assert_eq(ha_covariance_read("/nonexistent/cov.yaml", &s, &h, &err),
	             HA_EIO);
}

struct bad_yaml {
	const char *text;
	enum ha_status status;
	const char *needle;
	long line, column;
};

Test(hdi, covariance_yaml_errors)
{
	const struct bad_yaml cases[] = {
		{"", HA_EFORMAT, "found the end of the file", 1, 1},
		{"covariance: [[1, 2], [3]]\n", HA_EFORMAT, "row 2 has 1", 1, 22},
		{"covariance: [[1, 2], [3, 4], [5, 6]]\n", HA_EFORMAT,
		 "more rows than columns", 1, 30},
		{"covariance: [[1, 2]]\n", HA_EFORMAT, "not square", 1, 20},
		{"covariance:\n  - [1, \"2\"]\n  - [2, 1]\n", HA_EFORMAT, "quoted",
		 2, 9},
		{"covariance:\n  - [1, .nan]\n  - [2, 1]\n", HA_EFORMAT,
		 "'.nan' is not a finite", 2, 9},
		{"covariance: [[1, 1e999], [1, 1]]\n", HA_EFORMAT, "1e999", 1, 18},
		{"covariance: [[1, x], [1, 1]]\n", HA_EFORMAT, "'x' is not", 1, 18},
		{"heads: 2\n", HA_EFORMAT, "expected one of the keys covariance", 1, 1},
		{"- 1\n", HA_EFORMAT, "expected a mapping", 1, 1},
		{"covariance: [[1, 2], [2, 1]]\ncovariance: [[1]]\n", HA_EFORMAT,
		 "expected each key once", 2, 1},
		{"covariance: [[1, [2]], [2, 1]]\n", HA_EFORMAT, "expected a number",
		 1, 18},
		{"covariance: [1, 2]\n", HA_EFORMAT, "sequence of numbers", 1, 14},
		{"covariance: 3\n", HA_EFORMAT, "must be a sequence", 1, 13},
		{"covariance: [[]]\n", HA_EFORMAT, "empty covariance row", 1, 14},
		{"covariance: [[1, 2]\n", HA_EFORMAT, "YAML syntax", 2, 1},
		{"covariance: &a [[1]]\nx: *a\n", HA_EFORMAT, "the anchor '&a'", 1, 13},
		{"covariance: [[1]]\n---\ncovariance: [[1]]\n", HA_EFORMAT,
		 "found a second document", 2, 1},
		{"{}\n", HA_EFORMAT, "expected the key 'covariance'", 1, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double *s = (double *)&s;
		size_t h;
		struct ha_error err;
		enum ha_status st = ha_covariance_parse(
			cases[i].text, strlen(cases[i].text), &s, &h, &err);
		cr_assert_eq(st, cases[i].status, "case %zu: status %d (%s)", i,
		             st, err.message);
		cr_assert_null(s);
		cr_assert(strstr(err.message, cases[i].needle),
		          "case %zu: message '%s' lacks '%s'", i, err.message,
		          cases[i].needle);
		if (cases[i].line)
			cr_assert(err.line == cases[i].line &&
			          err.column == cases[i].column,
			          "case %zu (%s): at %ld:%ld, want %ld:%ld", i,
			          err.message, err.line, err.column, cases[i].line,
			          cases[i].column);
	}
}

/* ------------------------------------------------------------ bad files */

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
	enum ha_status st = ha_hdi_from_file(path, NULL, heads, HA_LAYOUT_OUT_IN,
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
		 "tensor name 'a?b' holds a control character"},
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
