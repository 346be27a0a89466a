/* Head bases and their overlaps: the numerical core of the HDI (headalloc-model(7), THE HEAD DIVERSITY INDEX;
 * the definitions are in hdi.h).
 *
 * A LLaMA-7B layer has 32 heads of [128 x 4096].  Two things make it fast:
 *
 * Bases.  Each head is orthonormalised by CholeskyQR2 (G = B Bᵀ, G = L Lᵀ,
 * B := L⁻¹ B, twice): four level-3 BLAS calls a head, where an SVD is
 * an unblocked sweep.  Its subspace is that of the SVD as long as the head
 * has full rank, and the Gram matrix squares the condition number, so the
 * fast path runs only under a certificate: trace(G) ≥ λ_max and
 * trace(G⁻¹) = ||L⁻¹||_F² ≥ 1/λ_min bound κ² from above, and the head is
 * taken when that bound times (m n + n²) ε is at most CERT_BUDGET.  Then
 * κ is many orders of magnitude below the 1/(max(m, n) ε) at which the
 * SVD rule of hdi.h would drop a direction, the rounding of G and of its
 * Cholesky factor cannot hide a small singular value, and the second pass
 * restores orthogonality to working precision.  A head without the
 * certificate takes the rank-revealing path: blocked Householder QR
 * (gsl_linalg_QR_decomp_r), an SVD of the small n x n factor R, whose
 * singular values are those of the head, the same rank rule as hdi.h, and
 * the basis Q U_R (the R-SVD: the left singular vectors of the head
 * itself).  A head wider than d_model (n > m) keeps the plain SVD.
 *
 * Overlaps.  Every basis is written over its head's block of the weight,
 * padded with zero vectors to n, so the weight buffer becomes the stacked
 * basis S ([H n x m] or [m x H n]) and every ||Q_aᵀ Q_b||_F² is the squared
 * Frobenius norm of one n x n block of the Gram matrix S Sᵀ: one syrk,
 * computed in panels of block rows (a syrk for the panel's diagonal part,
 * a gemm for the rest) so that at most PANEL_BYTES of it exist at once. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "base/error_internal.h"
#include "hdi_internal.h"

/* The most bytes of the overlap product held at once (at least one
 * head's block row is always held). */
#define PANEL_BYTES ((size_t)32 << 20)
/* The CholeskyQR2 certificate: kappa^2 bound * (m n + n^2) * eps. */
#define CERT_BUDGET 1e-2

/* Scratch for the fast path: two n x n matrices. */
struct scratch {
	gsl_matrix *g, *li;
};

/* G = B Bᵀ when the head's vectors are the rows of B, else Bᵀ B (lower
 * triangle). */
static void gram(const gsl_matrix *b, int rows, gsl_matrix *g)
{
	gsl_blas_dsyrk(CblasLower, rows ? CblasNoTrans : CblasTrans, 1.0, b,
	               0.0, g);
}

/* B := L⁻¹ B (rows) or B L⁻ᵀ (columns). */
static void apply_inverse(const gsl_matrix *l, int rows, gsl_matrix *b)
{
	if (rows)
		gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans,
		               CblasNonUnit, 1.0, l, b);
	else
		gsl_blas_dtrsm(CblasRight, CblasLower, CblasTrans,
		               CblasNonUnit, 1.0, l, b);
}

/* CholeskyQR2 under the certificate.  1: B now holds an orthonormal basis
 * of its former span (rank n).  0: no certificate; B spans what it
 * spanned (it may have been multiplied by an invertible factor). */
static int cholqr2(gsl_matrix *b, int rows, size_t m, size_t n,
                   struct scratch *s)
{
	gram(b, rows, s->g);
	double trace = 0.0;
	for (size_t i = 0; i < n; i++)
		trace += gsl_matrix_get(s->g, i, i);
	if (gsl_linalg_cholesky_decomp1(s->g) != GSL_SUCCESS)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			gsl_matrix_set(s->li, i, j,
			               j <= i ? gsl_matrix_get(s->g, i, j) : 0.0);
	if (gsl_linalg_tri_invert(CblasLower, CblasNonUnit, s->li) !=
	    GSL_SUCCESS)
		return 0;
	double inv = 0.0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j <= i; j++) {
			double e = gsl_matrix_get(s->li, i, j);
			inv += e * e;
		}
	double bound = trace * inv *
	               ((double)m * (double)n + (double)n * (double)n) *
	               DBL_EPSILON;
	if (!(bound <= CERT_BUDGET)) /* also NaN and inf */
		return 0;
	apply_inverse(s->g, rows, b);
	gram(b, rows, s->g);
	if (gsl_linalg_cholesky_decomp1(s->g) != GSL_SUCCESS)
		return 0;
	apply_inverse(s->g, rows, b);
	return 1;
}

/* Write the first `rank` columns of src (m x rank or wider) into B as the
 * head's basis vectors, and zero vectors after them. */
static void write_basis(gsl_matrix *b, int rows, const gsl_matrix *src,
                        size_t m, size_t n, size_t rank)
{
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < m; i++) {
			double e = j < rank ? gsl_matrix_get(src, i, j) : 0.0;
			if (rows)
				gsl_matrix_set(b, j, i, e);
			else
				gsl_matrix_set(b, i, j, e);
		}
}

/* The number of singular values above max(m, n) eps s_0 (hdi.h). */
static size_t numerical_rank(const gsl_vector *s, size_t m, size_t n)
{
	double tol = (double)(m > n ? m : n) * DBL_EPSILON *
	             gsl_vector_get(s, 0);
	size_t r = 0;
	while (r < s->size && gsl_vector_get(s, r) > tol)
		r++;
	return r;
}

/* The rank-revealing path for m >= n: blocked Householder QR of the head
 * (m x n), SVD of R, basis Q U_R[:, :r]. */
static enum ha_status qr_basis(gsl_matrix *b, int rows, size_t m, size_t n,
                               size_t *rank)
{
	gsl_matrix *a = gsl_matrix_alloc(m, n), *u = gsl_matrix_alloc(m, n);
	gsl_matrix *t = gsl_matrix_alloc(n, n), *r = gsl_matrix_calloc(n, n);
	gsl_matrix *v = gsl_matrix_alloc(n, n), *x = gsl_matrix_calloc(n, n);
	gsl_vector *s = gsl_vector_alloc(n), *work = gsl_vector_alloc(n);
	enum ha_status st = HA_ENOMEM;
	if (!a || !u || !t || !r || !v || !x || !s || !work)
		goto out;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			gsl_matrix_set(a, i, j, rows ? gsl_matrix_get(b, j, i)
			                             : gsl_matrix_get(b, i, j));
	st = HA_ENUMERIC;
	if (gsl_linalg_QR_decomp_r(a, t) != GSL_SUCCESS)
		goto out;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			gsl_matrix_set(r, i, j, gsl_matrix_get(a, i, j));
	if (gsl_linalg_SV_decomp(r, v, s, work) != GSL_SUCCESS)
		goto out;
	*rank = numerical_rank(s, m, n);

	/* Q = I - V T Vᵀ (compact WY, V unit lower trapezoidal in a), so
	 * its first n columns are E - V (T V1ᵀ) with E = [I; 0] and V1 the
	 * top n x n of V. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			gsl_matrix_set(x, i, j,
			               i == j ? 1.0 : gsl_matrix_get(a, j, i));
	gsl_blas_dtrmm(CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 1.0,
	               t, x);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++)
			gsl_matrix_set(a, i, j, 0.0);
		gsl_matrix_set(a, i, i, 1.0);
	}
	gsl_blas_dtrmm(CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit,
	               -1.0, x, a);
	for (size_t i = 0; i < n; i++)
		gsl_matrix_set(a, i, i, gsl_matrix_get(a, i, i) + 1.0);

	st = HA_OK;
	if (*rank > 0) {
		gsl_matrix_view ur = gsl_matrix_submatrix(r, 0, 0, n, *rank);
		gsl_matrix_view basis = gsl_matrix_submatrix(u, 0, 0, m, *rank);
		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, a, &ur.matrix,
		               0.0, &basis.matrix);
	}
	write_basis(b, rows, u, m, n, *rank);
out:
	gsl_vector_free(work);
	gsl_vector_free(s);
	gsl_matrix_free(x);
	gsl_matrix_free(v);
	gsl_matrix_free(r);
	gsl_matrix_free(t);
	gsl_matrix_free(u);
	gsl_matrix_free(a);
	return st;
}

/* A head wider than the model (n > m): the SVD of its transpose (n x m,
 * tall); the right singular vectors are the head's left ones. */
static enum ha_status svd_basis(gsl_matrix *b, int rows, size_t m, size_t n,
                                size_t *rank)
{
	gsl_matrix *a = gsl_matrix_alloc(n, m), *x = gsl_matrix_alloc(m, m);
	gsl_matrix *v = gsl_matrix_alloc(m, m);
	gsl_vector *s = gsl_vector_alloc(m), *work = gsl_vector_alloc(m);
	enum ha_status st = HA_ENOMEM;
	if (!a || !x || !v || !s || !work)
		goto out;
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < m; i++)
			gsl_matrix_set(a, j, i, rows ? gsl_matrix_get(b, j, i)
			                             : gsl_matrix_get(b, i, j));
	st = HA_ENUMERIC;
	if (gsl_linalg_SV_decomp_mod(a, x, v, s, work) != GSL_SUCCESS)
		goto out;
	*rank = numerical_rank(s, m, n);
	write_basis(b, rows, v, m, n, *rank);
	st = HA_OK;
out:
	gsl_vector_free(work);
	gsl_vector_free(s);
	gsl_matrix_free(v);
	gsl_matrix_free(x);
	gsl_matrix_free(a);
	return st;
}

/* Replace head block B (n x m rows, or m x n columns) by its basis. */
static enum ha_status head_basis(gsl_matrix *b, int rows, size_t m, size_t n,
                                 struct scratch *s, size_t *rank)
{
	*rank = 0;
	/* Scaling by the largest magnitude keeps the Gram matrix and the
	 * SVD far from overflow and underflow; the span is unchanged. */
	double scale = 0.0;
	for (size_t i = 0; i < b->size1; i++)
		for (size_t j = 0; j < b->size2; j++) {
			double e = fabs(gsl_matrix_get(b, i, j));
			if (e > scale)
				scale = e;
		}
	if (scale == 0.0)
		return HA_OK; /* all zero: rank 0, and the block is its basis */
	gsl_matrix_scale(b, 1.0 / scale);
	if (n > m)
		return svd_basis(b, rows, m, n, rank);
	if (cholqr2(b, rows, m, n, s)) {
		*rank = n;
		return HA_OK;
	}
	return qr_basis(b, rows, m, n, rank);
}

/* The overlaps of heads a0..a1-1 with every later head, from one panel
 * of the Gram matrix of the stacked bases; pairs in (a, b) order. */
static void panel_overlaps(const gsl_matrix *stack, int rows, size_t n,
                           size_t heads, size_t a0, size_t a1, double *buf,
                           struct ha_hdi_tensor *t, double *sum, int *first)
{
	size_t p = a1 - a0, width = (heads - a0) * n;
	CBLAS_TRANSPOSE_t left = rows ? CblasNoTrans : CblasTrans;
	CBLAS_TRANSPOSE_t right = rows ? CblasTrans : CblasNoTrans;
	size_t m = rows ? stack->size2 : stack->size1;
	gsl_matrix_const_view sp =
		rows ? gsl_matrix_const_submatrix(stack, a0 * n, 0, p * n, m)
		     : gsl_matrix_const_submatrix(stack, 0, a0 * n, m, p * n);
	gsl_matrix_view c = gsl_matrix_view_array(buf, p * n, width);
	gsl_matrix_view cd = gsl_matrix_submatrix(&c.matrix, 0, 0, p * n, p * n);
	gsl_blas_dsyrk(CblasUpper, left, 1.0, &sp.matrix, 0.0, &cd.matrix);
	if (a1 < heads) {
		size_t rest = (heads - a1) * n;
		gsl_matrix_const_view sr =
			rows ? gsl_matrix_const_submatrix(stack, a1 * n, 0, rest, m)
			     : gsl_matrix_const_submatrix(stack, 0, a1 * n, m, rest);
		gsl_matrix_view cr =
			gsl_matrix_submatrix(&c.matrix, 0, p * n, p * n, rest);
		gsl_blas_dgemm(left, right, 1.0, &sp.matrix, &sr.matrix, 0.0,
		               &cr.matrix);
	}
	for (size_t a = a0; a < a1; a++)
		for (size_t b = a + 1; b < heads; b++) {
			double g = 0.0;
			size_t ra = t->rank[a], rb = t->rank[b];
			if (ra > 0 && rb > 0) {
				/* a < b: the block lies above the diagonal,
				 * where syrk wrote */
				const double *blk = buf + (a - a0) * n * width +
				                    (b - a0) * n;
				for (size_t i = 0; i < n; i++)
					for (size_t j = 0; j < n; j++) {
						double e = blk[i * width + j];
						g += e * e;
					}
				g /= sqrt((double)ra * (double)rb);
				if (g > 1.0)
					g = 1.0;
			}
			t->overlap[a * heads + b] = t->overlap[b * heads + a] = g;
			*sum += g;
			struct ha_head_pair pair = {a, b, g};
			if (*first || g > t->most_similar.overlap)
				t->most_similar = pair;
			if (*first || g < t->least_similar.overlap)
				t->least_similar = pair;
			*first = 0;
		}
}

enum ha_status ha_hdi_overlaps(double *w, size_t cols, size_t m, size_t n,
                               size_t heads, enum ha_layout layout,
                               struct ha_hdi_tensor *t, struct ha_error *err)
{
	int rows = layout == HA_LAYOUT_OUT_IN;
	struct scratch s = {NULL, NULL};
	double *buf = NULL;
	enum ha_status st = HA_OK;
	if (n <= m) {
		s.g = gsl_matrix_alloc(n, n);
		s.li = gsl_matrix_alloc(n, n);
		if (!s.g || !s.li) {
			st = ha_fail(err, HA_ENOMEM, "out of memory");
			goto out;
		}
	}
	size_t full = m < n ? m : n;
	for (size_t h = 0; h < heads; h++) {
		gsl_matrix_view b =
			rows ? gsl_matrix_view_array_with_tda(w + h * n * cols, n,
			                                      m, cols)
			     : gsl_matrix_view_array_with_tda(w + h * n, m, n,
			                                      cols);
		st = head_basis(&b.matrix, rows, m, n, &s, &t->rank[h]);
		if (st != HA_OK) {
			ha_fail(err, st, "tensor '%s': head %zu: %s", t->name, h,
			        st == HA_ENOMEM ? "out of memory"
			                        : "the SVD did not converge");
			goto out;
		}
		if (t->rank[h] < full)
			t->rank_deficient++;
		t->overlap[h * heads + h] = t->rank[h] > 0 ? 1.0 : 0.0;
	}

	t->pairs = heads * (heads - 1) / 2;
	double sum = 0.0;
	if (heads > 1) {
		size_t row_bytes = n * heads * n * sizeof(double);
		size_t panel = PANEL_BYTES / row_bytes;
		if (panel < 1)
			panel = 1;
		if (panel > heads)
			panel = heads;
		buf = malloc(panel * row_bytes);
		if (!buf) {
			st = ha_fail(err, HA_ENOMEM, "out of memory");
			goto out;
		}
		gsl_matrix_view stack =
			rows ? gsl_matrix_view_array(w, heads * n, m)
			     : gsl_matrix_view_array(w, m, heads * n);
		int first = 1;
		for (size_t a0 = 0; a0 < heads; a0 += panel)
			panel_overlaps(&stack.matrix, rows, n, heads, a0,
			               a0 + panel < heads ? a0 + panel : heads, buf,
			               t, &sum, &first);
	}
	t->hdi = t->pairs ? 1.0 - sum / (double)t->pairs : 1.0;
	if (t->hdi < 0.0)
		t->hdi = 0.0;
out:
	free(buf);
	gsl_matrix_free(s.li);
	gsl_matrix_free(s.g);
	return st;
}
