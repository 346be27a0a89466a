/* Optimal head weights from a head covariance matrix (see head_weights.h);
 * the covariance file is read by input/covariance.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>

#include <headalloc/head_weights.h>

#include "base/error_internal.h"

void ha_head_weights_finish(struct ha_head_weights *w)
{
	if (!w)
		return;
	free(w->alpha);
	memset(w, 0, sizeof *w);
}

/* alpha^T S alpha for the H x H row-major s. */
static double quad_form(const double *s, const double *alpha, size_t h)
{
	double sum = 0.0;
	for (size_t i = 0; i < h; i++) {
		double row = 0.0;
		for (size_t j = 0; j < h; j++)
			row += s[i * h + j] * alpha[j];
		sum += alpha[i] * row;
	}
	return sum;
}

/* alpha from the eigenpairs of the scaled symmetric matrix in a. */
static enum ha_status solve(gsl_matrix *a, size_t h, double scale,
                            struct ha_head_weights *out)
{
	gsl_vector *eval = gsl_vector_alloc(h);
	gsl_matrix *evec = gsl_matrix_alloc(h, h);
	gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(h);
	double *u = calloc(h, sizeof *u);
	double *p = calloc(h, sizeof *p);
	enum ha_status st = HA_ENOMEM;
	if (!eval || !evec || !ws || !u || !p)
		goto out;
	st = HA_ENUMERIC;
	if (gsl_eigen_symmv(a, eval, evec, ws) != GSL_SUCCESS)
		goto out;

	double lmax = 0.0, lmin = INFINITY;
	for (size_t i = 0; i < h; i++) {
		double l = gsl_vector_get(eval, i);
		if (fabs(l) > lmax)
			lmax = fabs(l);
		if (l < lmin)
			lmin = l;
	}
	double tol = (double)h * DBL_EPSILON * lmax;
	out->min_eigenvalue = lmin * scale;
	/* A covariance is positive semi-definite; beyond rounding, a negative
	 * eigenvalue means the matrix is not one. */
	st = HA_EFORMAT;
	if (lmin < -1e-9 * lmax)
		goto out;
	out->pseudo_inverse = !(lmin > tol);

	/* Minimise alpha^T S alpha subject to 1^T alpha = 1.  When 1 has a
	 * component p in the null space of S, alpha = p / (1^T p) has error 0,
	 * the minimum.  Otherwise alpha = S^+ 1 / (1^T S^+ 1), with
	 * S^+ 1 = sum over non-zero l_i of (v_i . 1) / l_i v_i. */
	double in_null = 0.0, s_range = 0.0;
	for (size_t i = 0; i < h; i++) {
		double l = gsl_vector_get(eval, i);
		double dot = 0.0;
		for (size_t k = 0; k < h; k++)
			dot += gsl_matrix_get(evec, k, i);
		if (l > tol) {
			out->rank++;
			s_range += dot * dot / l;
			for (size_t k = 0; k < h; k++)
				u[k] += dot / l * gsl_matrix_get(evec, k, i);
		} else {
			in_null += dot * dot;
			for (size_t k = 0; k < h; k++)
				p[k] += dot * gsl_matrix_get(evec, k, i);
		}
	}
	/* |1|^2 = h; a null-space share above rounding is a real direction. */
	out->null_space = in_null > 1e-10 * (double)h;
	for (size_t k = 0; k < h; k++)
		out->alpha[k] = out->null_space ? p[k] / in_null : u[k] / s_range;
	st = HA_OK;
out:
	free(u);
	free(p);
	gsl_eigen_symmv_free(ws);
	gsl_matrix_free(evec);
	gsl_vector_free(eval);
	return st;
}

enum ha_status ha_covariance_weights(const double *sigma, size_t h,
                                     struct ha_head_weights *out,
                                     struct ha_error *err)
{
	ha_error_init(err);
	if (!out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	memset(out, 0, sizeof *out);
	if (!sigma)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (h == 0 || h > HA_COVARIANCE_MAX_HEADS)
		return ha_fail(err, HA_EINVAL,
		               "covariance of %zu heads (1..%d accepted)", h,
		               HA_COVARIANCE_MAX_HEADS);

	double scale = 0.0;
	for (size_t i = 0; i < h * h; i++) {
		if (!isfinite(sigma[i]))
			return ha_fail(err, HA_EFORMAT,
			               "covariance row %zu, column %zu is not finite",
			               i / h + 1, i % h + 1);
		if (fabs(sigma[i]) > scale)
			scale = fabs(sigma[i]);
	}
	for (size_t i = 0; i < h; i++)
		if (sigma[i * h + i] < 0.0)
			return ha_fail(err, HA_EFORMAT,
			               "covariance row %zu, column %zu is a variance: "
			               "expected a number >= 0, found %.17g", i + 1,
			               i + 1, sigma[i * h + i]);
	double worst = 0.0;
	size_t wi = 0, wj = 0;
	for (size_t i = 0; i < h; i++)
		for (size_t j = i + 1; j < h; j++) {
			double d = fabs(sigma[i * h + j] - sigma[j * h + i]);
			if (d > worst) {
				worst = d;
				wi = i;
				wj = j;
			}
		}
	if (worst > HA_COVARIANCE_SYMMETRY_TOL * scale)
		return ha_fail(err, HA_EFORMAT,
		               "covariance is not symmetric: row %zu, column %zu is "
		               "%.17g but row %zu, column %zu is %.17g", wi + 1,
		               wj + 1, sigma[wi * h + wj], wj + 1, wi + 1,
		               sigma[wj * h + wi]);
	if (scale == 0.0)
		scale = 1.0;

	double *sym = malloc(h * h * sizeof *sym);
	out->alpha = malloc(h * sizeof *out->alpha);
	gsl_matrix *a = gsl_matrix_alloc(h, h);
	enum ha_status st = HA_ENOMEM;
	if (!sym || !out->alpha || !a)
		goto out;
	for (size_t i = 0; i < h; i++)
		for (size_t j = 0; j < h; j++) {
			/* Scaled to max |S| = 1 first: 1e308 + 1e308 overflows. */
			sym[i * h + j] = 0.5 * (sigma[i * h + j] / scale) +
			                 0.5 * (sigma[j * h + i] / scale);
			gsl_matrix_set(a, i, j, sym[i * h + j]);
		}

	gsl_error_handler_t *old = gsl_set_error_handler_off();
	st = solve(a, h, scale, out);
	gsl_set_error_handler(old);
	if (st != HA_OK)
		goto out;

	out->heads = h;
	/* The errors in the scaled units, then back (alpha is scale-free). */
	out->error_optimal = quad_form(sym, out->alpha, h);
	if (out->null_space || out->error_optimal < 0.0)
		out->error_optimal = fmax(out->error_optimal, 0.0);
	out->error_optimal *= scale;
	double total = 0.0;
	for (size_t i = 0; i < h * h; i++)
		total += sym[i] / ((double)h * (double)h);
	out->error_uniform = fmax(total, 0.0) * scale;
	if (out->error_optimal != 0.0)
		out->gain = out->error_uniform / out->error_optimal;
	else
		out->gain = out->error_uniform == 0.0 ? 1.0 : INFINITY;
out:
	gsl_matrix_free(a);
	free(sym);
	if (st != HA_OK) {
		double min_eigenvalue = out->min_eigenvalue;
		ha_head_weights_finish(out);
		if (st == HA_EFORMAT)
			return ha_fail(err, st, "covariance is not positive "
			               "semi-definite (smallest eigenvalue %.6g)",
			               min_eigenvalue);
		return ha_fail(err, st, st == HA_ENOMEM
		                            ? "out of memory"
		                            : "the eigensolver did not converge");
	}
	if (out->pseudo_inverse)
		snprintf(out->warning, sizeof out->warning,
		         "covariance is singular (smallest eigenvalue %.3g, rank "
		         "%zu of %zu); %s", out->min_eigenvalue, out->rank,
		         out->heads,
		         out->null_space ? "weights in its null space cancel "
		                           "the error exactly"
		                         : "using the pseudo-inverse");
	return HA_OK;
}
