/* The HDI's numerics: the fast bases (CholeskyQR2 under a certificate,
 * Householder QR + SVD of R otherwise) against an independent one-sided
 * Jacobi SVD of every head; the panelled overlap product against overlaps
 * known by counting; the random baseline against Monte Carlo. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <headalloc/headalloc.h>
#include "hdi/hdi_internal.h"

TestSuite(hdi_numerics);

/* Element (i, j) of head h (model coordinate i, key coordinate j). */
static double *elem(double *w, size_t heads, size_t m, size_t n,
                    enum ha_layout layout, size_t h, size_t i, size_t j)
{
	size_t out = h * n + j;
	return layout == HA_LAYOUT_OUT_IN ? &w[out * m + i]
	                                  : &w[i * heads * n + out];
}

/* An orthonormal basis of head h's column space by one-sided Jacobi SVD
 * (not the library's algorithms), with hdi.h's rank rule. */
static gsl_matrix *jacobi_basis(double *w, size_t heads, size_t m, size_t n,
                                enum ha_layout layout, size_t h, size_t *rank)
{
	int tall = m >= n;
	size_t rows = tall ? m : n, k = tall ? n : m;
	gsl_matrix *a = gsl_matrix_alloc(rows, k), *v = gsl_matrix_alloc(k, k);
	gsl_vector *s = gsl_vector_alloc(k);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double e = *elem(w, heads, m, n, layout, h, i, j);
			if (tall)
				gsl_matrix_set(a, i, j, e);
			else
				gsl_matrix_set(a, j, i, e);
		}
	cr_assert_eq(gsl_linalg_SV_decomp_jacobi(a, v, s), 0);
	/* Jacobi leaves the singular values unsorted */
	double smax = 0.0;
	for (size_t j = 0; j < k; j++)
		smax = fmax(smax, gsl_vector_get(s, j));
	double tol = (double)(m > n ? m : n) * DBL_EPSILON * smax;
	gsl_matrix *left = tall ? a : v;
	gsl_matrix *q = gsl_matrix_calloc(m, k);
	*rank = 0;
	for (size_t j = 0; j < k; j++)
		if (gsl_vector_get(s, j) > tol) {
			for (size_t i = 0; i < m; i++)
				gsl_matrix_set(q, i, *rank, gsl_matrix_get(left, i, j));
			(*rank)++;
		}
	gsl_vector_free(s);
	gsl_matrix_free(v);
	gsl_matrix_free(a);
	return q;
}

/* ha_hdi_compute against the Jacobi reference, overlap by overlap. */
static void check_against_jacobi(double *w, size_t heads, size_t m, size_t n,
                                 enum ha_layout layout, double tol)
{
	size_t rows = layout == HA_LAYOUT_OUT_IN ? heads * n : m;
	size_t cols = layout == HA_LAYOUT_OUT_IN ? m : heads * n;
	struct ha_hdi_tensor t;
	struct ha_error err;
	cr_assert_eq(ha_hdi_compute(w, rows, cols, heads, layout, "w", &t, &err),
	             HA_OK, "%s", err.message);
	gsl_matrix **q = calloc(heads, sizeof *q);
	size_t *rank = calloc(heads, sizeof *rank);
	for (size_t h = 0; h < heads; h++) {
		q[h] = jacobi_basis(w, heads, m, n, layout, h, &rank[h]);
		cr_assert_eq(t.rank[h], rank[h], "head %zu: rank %zu, Jacobi %zu",
		             h, t.rank[h], rank[h]);
	}
	double sum = 0.0;
	for (size_t a = 0; a < heads; a++)
		for (size_t b = a + 1; b < heads; b++) {
			gsl_matrix *c = gsl_matrix_alloc(q[a]->size2, q[b]->size2);
			gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, q[a], q[b], 0.0,
			               c);
			double g = 0.0;
			for (size_t i = 0; i < c->size1 * c->size2; i++)
				g += c->data[i] * c->data[i];
			gsl_matrix_free(c);
			g = rank[a] && rank[b]
			            ? fmin(1.0, g / sqrt((double)rank[a] * rank[b]))
			            : 0.0;
			sum += g;
			cr_assert(fabs(t.overlap[a * heads + b] - g) <= tol,
			          "(%zu, %zu): %.17g, Jacobi %.17g", a, b,
			          t.overlap[a * heads + b], g);
		}
	if (heads > 1)
		cr_assert(fabs(t.hdi - (1.0 - sum / (double)(heads * (heads - 1) / 2)))
		          <= tol);
	for (size_t h = 0; h < heads; h++)
		gsl_matrix_free(q[h]);
	free(q);
	free(rank);
	ha_hdi_tensor_finish(&t);
}

static double *gaussian(gsl_rng *r, size_t count)
{
	double *w = malloc(count * sizeof *w);
	for (size_t i = 0; i < count; i++)
		w[i] = gsl_ran_gaussian(r, 1.0);
	return w;
}

/* Well-conditioned heads: the certified CholeskyQR2 path. */
Test(hdi_numerics, random_heads_match_jacobi)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (int layout = 0; layout < 2; layout++) {
		double *w = gaussian(r, 5 * 8 * 40);
		check_against_jacobi(w, 5, 40, 8, (enum ha_layout)layout, 1e-12);
		free(w);
	}
	gsl_rng_free(r);
}

/* Condition number ~1e8 (no certificate: Householder QR and the SVD of R)
 * but full rank; its span is defined only to ~kappa eps. */
Test(hdi_numerics, ill_conditioned_heads_match_jacobi)
{
	enum { H = 4, N = 6, M = 30 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (int layout = 0; layout < 2; layout++) {
		double *w = gaussian(r, H * N * M);
		for (size_t h = 0; h < H; h++)
			for (size_t i = 0; i < M; i++)
				for (size_t j = 0; j < N; j++)
					*elem(w, H, M, N, (enum ha_layout)layout, h, i,
					      j) *= pow(10.0, -8.0 * (double)j / (N - 1));
		check_against_jacobi(w, H, M, N, (enum ha_layout)layout, 1e-6);
		free(w);
	}
	gsl_rng_free(r);
}

/* Exactly rank-deficient heads (A B with an inner dimension 2 below d_k),
 * a zero head, and one head of full rank: the rank rule decides. */
Test(hdi_numerics, rank_deficient_heads_match_jacobi)
{
	enum { H = 4, N = 6, M = 20, R = N - 2 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (int layout = 0; layout < 2; layout++) {
		double *w = calloc(H * N * M, sizeof *w);
		for (size_t h = 0; h < 3; h++) {
			double *a = gaussian(r, M * R), *b = gaussian(r, R * N);
			for (size_t i = 0; i < M; i++)
				for (size_t j = 0; j < N; j++) {
					double s = 0.0;
					for (size_t k = 0; k < R; k++)
						s += a[i * R + k] * b[k * N + j];
					*elem(w, H, M, N, (enum ha_layout)layout,
					      h == 2 ? 3 : h, i, j) =
						h == 2 ? gsl_ran_gaussian(r, 1.0) : s;
				}
			free(a);
			free(b);
		}
		/* head 2 is all zero, head 3 of full rank */
		check_against_jacobi(w, H, M, N, (enum ha_layout)layout, 1e-10);
		struct ha_hdi_tensor t;
		size_t rows = layout ? M : H * N, cols = layout ? H * N : M;
		cr_assert_eq(ha_hdi_compute(w, rows, cols, H, (enum ha_layout)layout,
		                            NULL, &t, NULL), HA_OK);
		cr_assert_eq(t.rank[0], R);
		cr_assert_eq(t.rank[2], 0);
		cr_assert_eq(t.rank[3], N);
		cr_assert_eq(t.rank_deficient, 3);
		ha_hdi_tensor_finish(&t);
		free(w);
	}
	gsl_rng_free(r);
}

/* A direction 1e-16 times the others: the SVD rule drops it (below
 * max(m, n) eps), and so must the fast path, although the Gram matrix is
 * exact here and its Cholesky factorisation succeeds: the certificate
 * (kappa^2 bound) sends the head to the rank-revealing path. */
Test(hdi_numerics, tiny_direction_is_dropped_like_the_svd)
{
	enum { H = 2, N = 3, M = 8 };
	for (int layout = 0; layout < 2; layout++) {
		double w[H * N * M] = {0};
		enum ha_layout l = (enum ha_layout)layout;
		for (size_t j = 0; j < N; j++) {
			*elem(w, H, M, N, l, 0, j, j) = j == N - 1 ? 1e-16 : 1.0;
			*elem(w, H, M, N, l, 1, j + 1, j) = 1.0;
		}
		check_against_jacobi(w, H, M, N, l, 1e-12);
		struct ha_hdi_tensor t;
		size_t rows = layout ? M : H * N, cols = layout ? H * N : M;
		cr_assert_eq(ha_hdi_compute(w, rows, cols, H, l, NULL, &t, NULL),
		             HA_OK);
		cr_assert_eq(t.rank[0], N - 1);
		cr_assert_eq(t.rank[1], N);
		/* span(e0, e1) and span(e1, e2, e3): one common direction */
		cr_assert(fabs(t.overlap[1] - 1.0 / sqrt(2.0 * 3.0)) < 1e-12);
		ha_hdi_tensor_finish(&t);
	}
}

/* Heads wider than the model. */
Test(hdi_numerics, wide_heads_match_jacobi)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (int layout = 0; layout < 2; layout++) {
		double *w = gaussian(r, 3 * 7 * 5);
		check_against_jacobi(w, 3, 5, 7, (enum ha_layout)layout, 1e-12);
		free(w);
	}
	gsl_rng_free(r);
}

/* 33 heads of d_k = 64 in d_model = 128: the overlap product takes two
 * panels.  Every head spans a random set of coordinates, mixed, so the
 * overlaps are |S_a & S_b| / 64, by counting. */
Test(hdi_numerics, panels_against_counting)
{
	enum { H = 33, N = 64, M = 128 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t *set = malloc(H * N * sizeof *set), all[M];
	for (size_t i = 0; i < M; i++)
		all[i] = i;
	for (size_t h = 0; h < H; h++) {
		gsl_ran_shuffle(r, all, M, sizeof all[0]);
		memcpy(set + h * N, all, N * sizeof all[0]);
	}
	for (int layout = 0; layout < 2; layout++) {
		double *w = calloc(H * N * M, sizeof *w);
		for (size_t h = 0; h < H; h++)
			for (size_t j = 0; j < N; j++)
				for (size_t k = 0; k <= j; k++)
					*elem(w, H, M, N, (enum ha_layout)layout, h,
					      set[h * N + k], j) += k == j ? 2.0 : 1.0;
		struct ha_hdi_tensor t;
		size_t rows = layout ? M : H * N, cols = layout ? H * N : M;
		cr_assert_eq(ha_hdi_compute(w, rows, cols, H, (enum ha_layout)layout,
		                            NULL, &t, NULL), HA_OK);
		double sum = 0.0, best = -1.0, worst = 2.0;
		for (size_t a = 0; a < H; a++)
			for (size_t b = a + 1; b < H; b++) {
				size_t common = 0;
				for (size_t i = 0; i < N; i++)
					for (size_t k = 0; k < N; k++)
						common += set[a * N + i] == set[b * N + k];
				double g = (double)common / N;
				cr_assert(fabs(t.overlap[a * H + b] - g) < 1e-12,
				          "(%zu, %zu) %.17g want %.17g", a, b,
				          t.overlap[a * H + b], g);
				cr_assert_eq(t.overlap[b * H + a], t.overlap[a * H + b]);
				sum += g;
				best = fmax(best, g);
				worst = fmin(worst, g);
			}
		cr_assert(fabs(t.hdi - (1.0 - sum / (H * (H - 1) / 2))) < 1e-12);
		cr_assert(fabs(t.most_similar.overlap - best) < 1e-12);
		cr_assert(fabs(t.least_similar.overlap - worst) < 1e-12);
		ha_hdi_tensor_finish(&t);
		free(w);
	}
	free(set);
	gsl_rng_free(r);
}

/* ---------------------------------------------------------- baseline */

/* The mean HDI of `trials` sets of H Gaussian heads (their spans are
 * uniformly random subspaces) and its standard error; every HDI also
 * stays below the largest possible, 1 - (H r / m - 1) / (H - 1) with
 * r = min(n, m) when H r > m. */
static double monte_carlo(gsl_rng *r, size_t H, size_t n, size_t m,
                          size_t trials, double *se)
{
	double sum = 0.0, sq = 0.0, rank = (double)(n < m ? n : m);
	double top = H * rank > m ? 1.0 - (H * rank / m - 1.0) / (H - 1.0)
	                          : 1.0;
	for (size_t k = 0; k < trials; k++) {
		double *w = gaussian(r, H * n * m);
		struct ha_hdi_tensor t;
		cr_assert_eq(ha_hdi_compute(w, H * n, m, H, HA_LAYOUT_OUT_IN, NULL,
		                            &t, NULL), HA_OK);
		cr_assert_leq(t.hdi, top + 1e-12, "hdi %.17g above %.17g", t.hdi,
		              top);
		cr_assert_eq(t.baseline_hdi, ha_hdi_random_baseline(H, n, m));
		sum += t.hdi;
		sq += t.hdi * t.hdi;
		ha_hdi_tensor_finish(&t);
		free(w);
	}
	double mean = sum / trials;
	*se = sqrt(fmax(sq / trials - mean * mean, 0.0) / (trials - 1.0));
	return mean;
}

Test(hdi_numerics, baseline_is_the_random_expectation)
{
	static const struct {
		size_t heads, n, m;
	} cases[] = {
		{3, 3, 12}, /* 1 - 3/12 = 0.75 */
		{5, 3, 8},  /* H d_k = 15 > 8: still 1 - 3/8 */
		{2, 7, 10}, /* 0.3 */
		{6, 1, 3},  /* one-dimensional heads, crowded */
	};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 20240611);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t H = cases[i].heads, n = cases[i].n, m = cases[i].m;
		double se, mean = monte_carlo(r, H, n, m, 4000, &se);
		double base = ha_hdi_random_baseline(H, n, m);
		cr_assert(fabs(base - (1.0 - (double)n / m)) < 1e-15);
		cr_assert(fabs(mean - base) < 4.0 * se,
		          "H %zu d_k %zu m %zu: Monte Carlo %.5f +- %.5f, "
		          "baseline %.5f", H, n, m, mean, se, base);
		/* the test can tell: the unnormalised 1 - (d_k/m)^2 is far off */
		double wrong = 1.0 - ((double)n / m) * ((double)n / m);
		cr_assert(fabs(mean - wrong) > 10.0 * se, "%zu %zu %zu", H, n, m);
	}
	/* d_k >= d_model: every random head spans R^m */
	double se;
	cr_assert(fabs(monte_carlo(r, 3, 6, 4, 50, &se)) < 1e-12);
	cr_assert_eq(ha_hdi_random_baseline(3, 6, 4), 0.0);
	cr_assert_eq(ha_hdi_random_baseline(1, 2, 8), 1.0);
	cr_assert_eq(ha_hdi_random_baseline(4, 2, 0), 0.0);
	gsl_rng_free(r);
}
