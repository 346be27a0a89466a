/* The leverages of the runs at a fit: the diagonal of the Gauss–Newton
 * hat matrix H = J (J'J)^+ J' of the standardised residuals' Jacobian J
 * over the free parameters (headalloc-model(7), CALIBRATION (Uncertainty
 * and identifiability)).  The residual bootstrap divides each residual by
 * sqrt(1 - h_ii): a fit pulls its curve towards the runs it rests on
 * most, whose residuals are therefore smaller than the noise, and the
 * modified residuals have the noise's variance again (Davison and
 * Hinkley 1997, chapter 6, for a linear model; Gauss–Newton makes it
 * the first-order version for a nonlinear one).
 *
 * With the thin SVD J D = U S V' (D scaling each column to unit norm,
 * which changes no projection), H = U_r U_r' over the r singular values
 * the Jacobian resolves, so h_ii = sum_q U_iq^2: no inverse is formed,
 * and a direction the runs do not determine adds no leverage. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "calibrate_internal.h"

/* Singular values below this share of the largest are a direction the
 * runs do not determine (the covariance's rank test). */
#define LEVERAGE_RANK_TOL 1e-10

int cal_leverage(const struct cal_data *data, const struct ha_cal_law *law,
                 const double *th, double *h)
{
	size_t m = data->m, k = 0;
	int index[HA_CAL_PARAMS];
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (law->free[p])
			index[k++] = p;
	for (size_t i = 0; i < m; i++)
		h[i] = 0.0;
	if (k == 0)
		return 1;
	if (m <= k) {
		/* as many runs as parameters or fewer: the fit passes through
		 * every run (or could), and no residual is left to resample */
		for (size_t i = 0; i < m; i++)
			h[i] = 1.0;
		return 1;
	}
	int ok = 0;
	double *r = malloc(m * sizeof *r);
	double *jac = malloc(m * HA_CAL_PARAMS * sizeof *jac);
	gsl_matrix *a = gsl_matrix_alloc(m, k);
	gsl_matrix *v = gsl_matrix_alloc(k, k);
	gsl_vector *sv = gsl_vector_alloc(k);
	gsl_vector *work = gsl_vector_alloc(k);
	if (!r || !jac || !a || !v || !sv || !work)
		goto done;
	ok = 1;
	if (!cal_residuals(data, th, r, jac))
		goto done; /* no finite fit here: no leverage either */
	for (size_t j = 0; j < k; j++) {
		double s2 = 0.0;
		for (size_t i = 0; i < m; i++) {
			double x = jac[i * HA_CAL_PARAMS + index[j]];
			s2 += x * x;
		}
		double scale = s2 > 0.0 ? 1.0 / sqrt(s2) : 0.0;
		for (size_t i = 0; i < m; i++)
			gsl_matrix_set(a, i, j, jac[i * HA_CAL_PARAMS + index[j]] * scale);
	}
	if (gsl_linalg_SV_decomp(a, v, sv, work) != 0)
		goto done;
	double smax = gsl_vector_get(sv, 0);
	for (size_t q = 0; q < k; q++) {
		if (!(gsl_vector_get(sv, q) > LEVERAGE_RANK_TOL * smax))
			break; /* descending: the rest are below it too */
		for (size_t i = 0; i < m; i++) {
			double u = gsl_matrix_get(a, i, q);
			h[i] += u * u;
		}
	}
	for (size_t i = 0; i < m; i++)
		h[i] = h[i] > 1.0 ? 1.0 : h[i];
done:
	free(r);
	free(jac);
	gsl_matrix_free(a);
	gsl_matrix_free(v);
	gsl_vector_free(sv);
	gsl_vector_free(work);
	return ok;
}
