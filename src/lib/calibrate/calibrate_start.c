/* The linear start of a grid point (calibrate_search.c): ln c_b and
 * ln c_v enter linearly in the relative residuals (L̂_i / L_i - 1), so at
 * each start of the grid they, and E, come from a small linear
 * least-squares problem, and the grid covers only the nonlinear
 * parameters. */
#include <math.h>
#include <string.h>

#include "calibrate_internal.h"

/* Solve the n x n system a x = b (row-major, n <= 3) by Gaussian
 * elimination with partial pivoting; 0 when (nearly) singular. */
static int solve_small(double *a, double *b, int n)
{
	for (int c = 0; c < n; c++) {
		int p = c;
		for (int r = c + 1; r < n; r++)
			if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
				p = r;
		if (!(fabs(a[p * n + c]) > 1e-14))
			return 0;
		if (p != c) {
			for (int k = 0; k < n; k++) {
				double t = a[c * n + k];
				a[c * n + k] = a[p * n + k];
				a[p * n + k] = t;
			}
			double t = b[c];
			b[c] = b[p];
			b[p] = t;
		}
		for (int r = c + 1; r < n; r++) {
			double f = a[r * n + c] / a[c * n + c];
			for (int k = c; k < n; k++)
				a[r * n + k] -= f * a[c * n + k];
			b[r] -= f * b[c];
		}
	}
	for (int c = n - 1; c >= 0; c--) {
		for (int k = c + 1; k < n; k++)
			b[c] -= a[c * n + k] * b[k];
		b[c] /= a[c * n + c];
	}
	return 1;
}

/* Run i's columns of the linear start as logs, relative to L_i: E, c_b
 * X1 and c_v X2 at unit coefficients. */
static void log_columns(const struct cal_data *data, const double *th,
                        size_t i, double *x)
{
	double t[HA_CAL_PARAMS];
	memcpy(t, th, sizeof t);
	t[HA_CAL_IRREDUCIBLE] = 0.0;
	t[HA_CAL_DATA_COEF] = 0.0; /* a fixed part of the target (linear_solve) */
	t[HA_CAL_BIAS_COEF] = 0.0;
	t[HA_CAL_VAR_COEF] = -INFINITY;
	x[1] = cal_log_fitted(data, t, i) - data->log_loss[i];
	t[HA_CAL_BIAS_COEF] = -INFINITY;
	t[HA_CAL_VAR_COEF] = 0.0;
	x[2] = cal_log_fitted(data, t, i) - data->log_loss[i];
	x[0] = -data->log_loss[i];
}

/* Least squares over the columns in use (the others free ones are zero,
 * the fixed ones move to the target); 0 when singular or a coefficient
 * in use is not positive.  cols: each weighted run's three columns
 * scaled by e^-shift and its target before the fixed columns. */
static int linear_solve(const struct cal_data *data, const double *th,
                        const double *shift, const int *is_free,
                        const int *use, const double *cols, double *sol,
                        double *rss)
{
	static const int slot[3] = {HA_CAL_IRREDUCIBLE, HA_CAL_BIAS_COEF,
	                            HA_CAL_VAR_COEF};
	int idx[3], n = 0;
	for (int c = 0; c < 3; c++)
		if (use[c])
			idx[n++] = c;
	double fixed[3];
	for (int c = 0; c < 3; c++)
		fixed[c] = c == 0 ? th[slot[0]] * exp(shift[0])
		                  : exp(th[slot[c]] + shift[c]);
	double a[9] = {0}, b[3] = {0};
	for (int pass = 0; pass < 2; pass++) {
		*rss = 0.0;
		for (size_t i = 0; i < data->m; i++) {
			double w = data->weight[i];
			if (w == 0.0)
				continue;
			const double *x = cols + 4 * i;
			double target = x[3];
			for (int c = 0; c < 3; c++)
				if (!use[c] && !is_free[c])
					target -= fixed[c] * x[c];
			double ww = w * data->inv_w[i] * data->inv_w[i];
			if (pass == 0) {
				for (int r = 0; r < n; r++) {
					for (int c = 0; c < n; c++)
						a[r * n + c] += ww * x[idx[r]] * x[idx[c]];
					b[r] += ww * x[idx[r]] * target;
				}
			} else {
				double fit = 0.0;
				for (int r = 0; r < n; r++)
					fit += sol[idx[r]] * x[idx[r]];
				*rss += ww * (fit - target) * (fit - target);
			}
		}
		if (pass == 0) {
			if (n > 0 && !solve_small(a, b, n))
				return 0;
			for (int r = 0; r < n; r++)
				sol[idx[r]] = b[r];
			if ((use[1] && !(sol[1] > 0)) || (use[2] && !(sol[2] > 0)))
				return 0;
		}
	}
	return isfinite(*rss);
}

void cal_linear_columns(const struct cal_data *data, const double *th,
                        double *work)
{
	double *shift = work, *cols = work + 3;
	for (int c = 0; c < 3; c++)
		shift[c] = -INFINITY;
	/* Each column's largest log (its scale). */
	for (size_t i = 0; i < data->m; i++) {
		if (data->weight[i] == 0.0)
			continue;
		double *col = cols + 4 * i;
		log_columns(data, th, i, col);
		for (int c = 0; c < 3; c++)
			if (col[c] > shift[c])
				shift[c] = col[c];
	}
	for (size_t i = 0; i < data->m; i++) {
		if (data->weight[i] == 0.0)
			continue;
		double *col = cols + 4 * i;
		for (int c = 0; c < 3; c++)
			col[c] = exp(col[c] - shift[c]);
		col[3] = 1.0 - cal_data_share(data, th, i);
	}
}

/* Set the free ones of E, ln c_b, ln c_v in th (E only when e_free) from
 * the least-squares fit of the relative residuals
 *   sum_i w_i inv_w_i^2 ((E + c_b X1_i + c_v X2_i) / L_i - 1)^2,
 * c_b, c_v >= 0, the other parameters at their values in th.  Columns are
 * carried as logs and scaled to a largest entry of 1. */
void cal_linear_start(const struct cal_data *data, const int *free, int e_free,
                      double *th, const double *work)
{
	static const int slot[3] = {HA_CAL_IRREDUCIBLE, HA_CAL_BIAS_COEF,
	                            HA_CAL_VAR_COEF};
	int is_free[3] = {e_free, free[HA_CAL_BIAS_COEF], free[HA_CAL_VAR_COEF]};
	const double *shift = work;
	/* Try each set of free coefficients held at zero (at most 4), keep
	 * the best solution whose other coefficients are positive. */
	double best_rss = INFINITY, best[3] = {0, 0, 0};
	int best_zero = -1;
	for (int zero = 0; zero < 4; zero++) {
		if ((zero & 1 && !is_free[1]) || (zero & 2 && !is_free[2]))
			continue;
		int use[3] = {is_free[0], is_free[1] && !(zero & 1),
		              is_free[2] && !(zero & 2)};
		double sol[3] = {0, 0, 0}, rss = 0.0;
		if (!linear_solve(data, th, shift, is_free, use, work + 3, sol, &rss))
			continue;
		if (rss < best_rss) {
			best_rss = rss;
			memcpy(best, sol, sizeof best);
			best_zero = zero;
		}
	}
	for (int c = 0; c < 3; c++) {
		if (!is_free[c])
			continue;
		int zeroed = best_zero < 0 || (c == 1 && (best_zero & 1)) ||
		             (c == 2 && (best_zero & 2));
		if (c == 0)
			th[slot[0]] = best_zero < 0 ? th[slot[0]] : best[0] / exp(shift[0]);
		else if (zeroed)
			th[slot[c]] = log(0.01) - shift[c]; /* 1% of L at its best run */
		else
			th[slot[c]] = log(best[c]) - shift[c];
	}
}
