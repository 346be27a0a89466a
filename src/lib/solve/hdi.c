/* The Head Diversity Index of key projections (spec §5; see hdi.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include <headalloc/hdi.h>

#include "base/error_internal.h"

const char *ha_layout_str(enum ha_layout layout)
{
	return layout == HA_LAYOUT_IN_OUT ? "in-out" : "out-in";
}

enum ha_status ha_layout_parse(const char *text, enum ha_layout *out)
{
	if (!text || !out)
		return HA_EINVAL;
	if (strcmp(text, "out-in") == 0)
		*out = HA_LAYOUT_OUT_IN;
	else if (strcmp(text, "in-out") == 0)
		*out = HA_LAYOUT_IN_OUT;
	else
		return HA_EINVAL;
	return HA_OK;
}

void ha_hdi_tensor_clear(struct ha_hdi_tensor *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->overlap);
	free(t->rank);
	memset(t, 0, sizeof *t);
}

/* Element (i, j) of W_K^h: model coordinate i, key coordinate j. */
static double head_elem(const double *w, size_t cols, size_t head_dim,
                        enum ha_layout layout, size_t h, size_t i, size_t j)
{
	size_t out = h * head_dim + j;
	return layout == HA_LAYOUT_OUT_IN ? w[out * cols + i]
	                                  : w[i * cols + out];
}

/* An orthonormal basis of the column space of W_K^h (m x n) as a new
 * m x r matrix in *basis (NULL when r = 0). */
static enum ha_status head_basis(const double *w, size_t cols, size_t m,
                                 size_t n, enum ha_layout layout, size_t h,
                                 gsl_matrix **basis, size_t *rank)
{
	*basis = NULL;
	*rank = 0;

	double scale = 0.0;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double a = fabs(head_elem(w, cols, n, layout, h, i, j));
			if (a > scale)
				scale = a;
		}
	if (scale == 0.0)
		return HA_OK;

	/* SVD needs rows >= columns: decompose W (m x n) or W^T (n x m). */
	int tall = m >= n;
	size_t rows = tall ? m : n, k = tall ? n : m;
	gsl_matrix *a = gsl_matrix_alloc(rows, k);
	gsl_matrix *x = gsl_matrix_alloc(k, k);
	gsl_matrix *v = gsl_matrix_alloc(k, k);
	gsl_vector *s = gsl_vector_alloc(k);
	gsl_vector *work = gsl_vector_alloc(k);
	enum ha_status st = HA_ENOMEM;
	if (!a || !x || !v || !s || !work)
		goto out;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double e = head_elem(w, cols, n, layout, h, i, j) / scale;
			if (tall)
				gsl_matrix_set(a, i, j, e);
			else
				gsl_matrix_set(a, j, i, e);
		}
	st = HA_ENUMERIC;
	if (gsl_linalg_SV_decomp_mod(a, x, v, s, work) != GSL_SUCCESS)
		goto out;

	/* Left singular vectors of W: U of W when tall, V of W^T if not. */
	const gsl_matrix *left = tall ? a : v;
	double tol = (double)(m > n ? m : n) * DBL_EPSILON *
	             gsl_vector_get(s, 0);
	size_t r = 0;
	while (r < k && gsl_vector_get(s, r) > tol)
		r++;
	st = HA_OK;
	if (r == 0)
		goto out;
	gsl_matrix *q = gsl_matrix_alloc(m, r);
	if (!q) {
		st = HA_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < r; j++)
			gsl_matrix_set(q, i, j, gsl_matrix_get(left, i, j));
	*basis = q;
	*rank = r;
out:
	gsl_vector_free(work);
	gsl_vector_free(s);
	gsl_matrix_free(v);
	gsl_matrix_free(x);
	gsl_matrix_free(a);
	return st;
}

/* ||Q_a^T Q_b||_F^2 / sqrt(r_a r_b), clamped to [0, 1]. */
static enum ha_status pair_overlap(const gsl_matrix *qa, size_t ra,
                                   const gsl_matrix *qb, size_t rb,
                                   double *g)
{
	*g = 0.0;
	if (ra == 0 || rb == 0)
		return HA_OK;
	gsl_matrix *c = gsl_matrix_alloc(ra, rb);
	if (!c)
		return HA_ENOMEM;
	gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, qa, qb, 0.0, c);
	double sum = 0.0;
	for (size_t i = 0; i < ra; i++)
		for (size_t j = 0; j < rb; j++) {
			double e = gsl_matrix_get(c, i, j);
			sum += e * e;
		}
	gsl_matrix_free(c);
	sum /= sqrt((double)ra * (double)rb);
	*g = sum > 1.0 ? 1.0 : sum;
	return HA_OK;
}

static enum ha_status compute(const double *weights, size_t cols, size_t m,
                              size_t n, size_t heads, enum ha_layout layout,
                              struct ha_hdi_tensor *t, struct ha_error *err)
{
	enum ha_status st = HA_OK;
	gsl_matrix **q = calloc(heads, sizeof *q);
	t->overlap = calloc(heads * heads, sizeof *t->overlap);
	t->rank = calloc(heads, sizeof *t->rank);
	if (!q || !t->overlap || !t->rank) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	size_t full = m < n ? m : n;
	for (size_t h = 0; h < heads; h++) {
		st = head_basis(weights, cols, m, n, layout, h, &q[h], &t->rank[h]);
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

	double sum = 0.0;
	int first = 1;
	for (size_t a = 0; a < heads; a++)
		for (size_t b = a + 1; b < heads; b++) {
			double g;
			st = pair_overlap(q[a], t->rank[a], q[b], t->rank[b], &g);
			if (st != HA_OK) {
				ha_fail(err, st, "out of memory");
				goto out;
			}
			t->overlap[a * heads + b] = t->overlap[b * heads + a] = g;
			sum += g;
			struct ha_head_pair p = {a, b, g};
			if (first || g > t->most_similar.overlap)
				t->most_similar = p;
			if (first || g < t->least_similar.overlap)
				t->least_similar = p;
			first = 0;
		}
	t->pairs = heads * (heads - 1) / 2;
	t->hdi = t->pairs ? 1.0 - sum / (double)t->pairs : 1.0;
	if (t->hdi < 0.0)
		t->hdi = 0.0;
out:
	if (q)
		for (size_t h = 0; h < heads; h++)
			gsl_matrix_free(q[h]);
	free(q);
	return st;
}

/* issue 9: H = 1.  There are no pairs, so the HDI is 1 whatever the
 * weights; only whether they are all zero (rank 0) is looked at. */
static enum ha_status single_head(const double *weights, size_t rows,
                                  size_t cols, struct ha_hdi_tensor *t,
                                  struct ha_error *err)
{
	t->overlap = calloc(1, sizeof *t->overlap);
	t->rank = calloc(1, sizeof *t->rank);
	if (!t->overlap || !t->rank) {
		ha_hdi_tensor_clear(t);
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	int zero = 1;
	for (size_t i = 0; i < rows * cols && zero; i++)
		zero = weights[i] == 0.0;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	t->rank[0] = zero ? 0 : full;
	t->rank_deficient = zero;
	t->overlap[0] = zero ? 0.0 : 1.0;
	t->hdi = 1.0;
	return HA_OK;
}

enum ha_status ha_hdi_compute(const double *weights, size_t rows,
                              size_t cols, size_t heads,
                              enum ha_layout layout, const char *name,
                              struct ha_hdi_tensor *out,
                              struct ha_error *err)
{
	ha_error_clear(err);
	if (!out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	memset(out, 0, sizeof *out);
	if (!weights)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (!name)
		name = "";
	if (heads == 0)
		return ha_fail(err, HA_EINVAL, "tensor '%s': heads must be >= 1",
		               name);
	if (rows == 0 || cols == 0)
		return ha_fail(err, HA_EINVAL, "tensor '%s': empty %zu x %zu matrix",
		               name, rows, cols);
	size_t outdim = layout == HA_LAYOUT_OUT_IN ? rows : cols;
	size_t model = layout == HA_LAYOUT_OUT_IN ? cols : rows;
	if (outdim % heads != 0)
		return ha_fail(err, HA_EINVAL,
		               "tensor '%s': %zu heads do not divide its output "
		               "dimension %zu (shape [%zu, %zu], layout %s)",
		               name, heads, outdim, rows, cols,
		               ha_layout_str(layout));
	if (heads > SIZE_MAX / sizeof(double) / heads)
		return ha_fail(err, HA_EINVAL, "tensor '%s': too many heads (%zu)",
		               name, heads);
	/* issue 9: the H x H overlap matrix stays bounded. */
	if (heads > HA_HDI_MAX_HEADS)
		return ha_fail(err, HA_EUNSUPPORTED, "tensor '%s': %zu heads; at "
		               "most %zu are supported", name, heads,
		               HA_HDI_MAX_HEADS);

	out->name = strdup(name);
	if (!out->name)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	out->heads = heads;
	out->head_dim = outdim / heads;
	out->model_dim = model;

	if (heads == 1) /* issue 9: no SVD for an answer that is always 1 */
		return single_head(weights, rows, cols, out, err);

	gsl_error_handler_t *old = gsl_set_error_handler_off();
	enum ha_status st = compute(weights, cols, model, out->head_dim, heads,
	                            layout, out, err);
	gsl_set_error_handler(old);
	if (st != HA_OK)
		ha_hdi_tensor_clear(out);
	return st;
}

void ha_hdi_report_free(struct ha_hdi_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->count; i++)
		ha_hdi_tensor_clear(&r->tensors[i]);
	free(r->tensors);
	free(r);
}

enum ha_status ha_hdi_from_weights(const struct ha_weights *w,
                                   const char *pattern, size_t heads,
                                   enum ha_layout layout,
                                   struct ha_hdi_report **out,
                                   struct ha_error *err)
{
	ha_error_clear(err);
	if (out)
		*out = NULL;
	if (!w || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");

	size_t *idx = NULL, n = 0;
	enum ha_status st = ha_weights_select(w, pattern, &idx, &n, err);
	if (st != HA_OK)
		return st;
	struct ha_hdi_report *r = calloc(1, sizeof *r);
	if (r)
		r->tensors = calloc(n, sizeof *r->tensors);
	if (!r || !r->tensors) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		struct ha_tensor_info info;
		double *data = NULL;
		ha_weights_info(w, idx[i], &info);
		if (info.ndim != 2) {
			st = ha_fail(err, HA_EUNSUPPORTED,
			             "tensor '%s' has %zu dimensions; a key "
			             "projection must be 2-D", info.name, info.ndim);
			goto out;
		}
		st = ha_weights_read(w, idx[i], &data, err);
		if (st != HA_OK)
			goto out;
		st = ha_hdi_compute(data, (size_t)info.shape[0],
		                    (size_t)info.shape[1], heads, layout,
		                    info.name, &r->tensors[i], err);
		free(data);
		if (st != HA_OK)
			goto out;
		r->count++;
		sum += r->tensors[i].hdi;
	}
	r->mean_hdi = sum / (double)n;
out:
	free(idx);
	if (st != HA_OK) {
		ha_hdi_report_free(r);
		return st;
	}
	*out = r;
	return HA_OK;
}

enum ha_status ha_hdi_from_file(const char *path, const char *pattern,
                                size_t heads, enum ha_layout layout,
                                struct ha_hdi_report **out,
                                struct ha_error *err)
{
	struct ha_weights *w = NULL;
	if (out)
		*out = NULL;
	enum ha_status st = ha_weights_open(path, &w, err);
	if (st != HA_OK)
		return st;
	st = ha_hdi_from_weights(w, pattern, heads, layout, out, err);
	ha_weights_free(w);
	return st;
}
