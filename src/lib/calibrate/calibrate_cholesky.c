/* A small dense symmetric solve for the Levenberg–Marquardt steps
 * (k <= HA_CAL_PARAMS): the modified Cholesky factorisation of Gill,
 * Murray and Wright (Practical Optimization, 1981, §4.4.2.2) in its
 * outer-product form with diagonal pivoting (Golub and Van Loan, Matrix
 * Computations, 4th ed., algorithm 4.2.2),
 *
 *   P A P' = L D L',  L unit lower triangular,  D diagonal,
 *
 * where step j takes d_j = max(ε, |a_jj|, θ_j² / β²), θ_j the largest
 * entry below the pivot in its column and β² = max(γ, ξ / sqrt(k² - 1), ε)
 * from the largest diagonal entry γ and off-diagonal entry ξ.  A step
 * with d_j != a_jj perturbs the matrix, which the solver reads as "not
 * numerically positive definite" and answers with more damping.  This
 * is the test GSL's gsl_linalg_mcholesky_decomp applies (its θ_j taken,
 * as GSL 2.7 does, as the largest of the column's first entry, signed,
 * and the absolute values of the others), so the steps decide as they
 * did on GSL; written out here because on 9 x 9 matrices GSL's calls
 * into BLAS (views, a permutation object, BLAS's buffer locks) cost more
 * than the arithmetic. */
#include <math.h>
#include <float.h>

#include "calibrate_internal.h"

#define AT(i, j) a[(i) * n + (j)]

/* The larger of a and b (b when either is NaN, as GSL_MAX). */
static double larger(double a, double b)
{
	return a > b ? a : b;
}

/* The solve for one n; cal_cholesky_solve calls it with n a constant
 * so that the loops unroll (each entry's arithmetic, and its order, is
 * the same as with a variable n). */
static inline __attribute__((always_inline)) int factor(double *a, int *perm,
                                                        const int n)
{
	/* The lower triangle is the matrix; the upper one is never read or
	 * written (callers may fill the lower one only).  Every entry takes
	 * the arithmetic of the symmetric full-matrix form, in its order. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++)
			if (!isfinite(AT(i, j)))
				return 0;
	/* γ, ξ and β. */
	double gamma = 0.0, xi = 0.0;
	for (int i = 0; i < n; i++) {
		gamma = larger(gamma, fabs(AT(i, i)));
		for (int j = 0; j < i; j++)
			xi = larger(xi, fabs(AT(i, j)));
	}
	double beta2 = n == 1 ? larger(larger(gamma, xi), DBL_EPSILON)
	                      : larger(larger(gamma, xi / sqrt(n * n - 1.0)), DBL_EPSILON);
	double beta = sqrt(beta2);
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int j = 0; j < n; j++) {
		/* The pivot: the largest remaining diagonal entry (the first
		 * of equals). */
		int q = j;
		double top = AT(j, j);
		for (int i = j + 1; i < n; i++)
			if (fabs(AT(i, i)) > top) {
				top = fabs(AT(i, i));
				q = i;
			}
		if (q != j) {
			/* Swap j and q in the lower triangle: L's columns (c < j)
			 * by rows, the trailing block symmetrically. */
			int t = perm[j];
			perm[j] = perm[q];
			perm[q] = t;
			double x;
			for (int c = 0; c < j; c++) {
				x = AT(j, c);
				AT(j, c) = AT(q, c);
				AT(q, c) = x;
			}
			x = AT(j, j);
			AT(j, j) = AT(q, q);
			AT(q, q) = x;
			for (int i = j + 1; i < q; i++) {
				x = AT(i, j);
				AT(i, j) = AT(q, i);
				AT(q, i) = x;
			}
			for (int i = q + 1; i < n; i++) {
				x = AT(i, j);
				AT(i, j) = AT(i, q);
				AT(i, q) = x;
			}
		}
		double theta = 0.0;
		if (j < n - 1) {
			theta = AT(j + 1, j);
			for (int i = j + 2; i < n; i++)
				if (fabs(AT(i, j)) > theta)
					theta = fabs(AT(i, j));
		}
		double u = theta / beta, ajj = AT(j, j);
		double alpha = larger(larger(DBL_EPSILON, fabs(ajj)), u * u);
		if (alpha != ajj)
			return 0; /* perturbed: not positive definite */
		double inv = 1.0 / alpha;
		/* The trailing block minus v v' / alpha, then v / alpha into
		 * L's column. */
		for (int r = j + 1; r < n; r++) {
			double s = -inv * AT(r, j);
			for (int c = j + 1; c <= r; c++)
				AT(r, c) += s * AT(c, j);
		}
		for (int r = j + 1; r < n; r++)
			AT(r, j) *= inv;
	}
	return 1;
}

static inline __attribute__((always_inline)) int apply(const double *a,
                                                       const int *perm,
                                                       double *b, const int n)
{
	/* x = P b; L w = x; D y = w; L' z = y; b = P' z. */
	double x[HA_CAL_PARAMS];
	for (int i = 0; i < n; i++)
		x[i] = b[perm[i]];
	for (int i = 0; i < n; i++)
		for (int c = 0; c < i; c++)
			x[i] -= AT(i, c) * x[c];
	for (int i = 0; i < n; i++)
		x[i] /= AT(i, i);
	for (int i = n - 1; i >= 0; i--)
		for (int r = i + 1; r < n; r++)
			x[i] -= AT(r, i) * x[r];
	for (int i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return 0;
		b[perm[i]] = x[i];
	}
	return 1;
}

static inline __attribute__((always_inline)) int solve(double *a, double *b,
                                                       const int n)
{
	int perm[HA_CAL_PARAMS];
	return factor(a, perm, n) && apply(a, perm, b, n);
}

#define BY_N(n, call_n)                                                     \
	switch (n) {                                                        \
	case 1: return call_n(1);                                           \
	case 2: return call_n(2);                                           \
	case 3: return call_n(3);                                           \
	case 4: return call_n(4);                                           \
	case 5: return call_n(5);                                           \
	case 6: return call_n(6);                                           \
	case 7: return call_n(7);                                           \
	default: return call_n(n);                                          \
	}

int cal_cholesky_solve(double *a, double *b, int n)
{
#define SOLVE_N(nn) solve(a, b, nn)
	BY_N(n, SOLVE_N)
#undef SOLVE_N
}

int cal_cholesky_factor(double *a, int *perm, int n)
{
#define FACTOR_N(nn) factor(a, perm, nn)
	BY_N(n, FACTOR_N)
#undef FACTOR_N
}

int cal_cholesky_apply(const double *a, const int *perm, double *b, int n)
{
#define APPLY_N(nn) apply(a, perm, b, nn)
	BY_N(n, APPLY_N)
#undef APPLY_N
}

/* ---- plain Cholesky, for a matrix scaled to a unit-sized diagonal ----
 * The least-squares step's Hessian in variables scaled by the damping
 * scales (calibrate_lm.c): no pivoting, and positive definiteness is
 * tested by each pivot against the largest diagonal entry: the step's
 * matrix is factored at every iteration, and this needs a third of the
 * pivoted factorisation's operations. */

#define LLT_PIVOT_MIN 1e-13

static inline __attribute__((always_inline)) int llt(double *a, const int n)
{
	double top = 0.0;
	for (int i = 0; i < n; i++)
		top = AT(i, i) > top ? AT(i, i) : top;
	if (!(top > 0.0) || !isfinite(top))
		return 0;
	for (int j = 0; j < n; j++) {
		double pivot = AT(j, j);
		for (int c = 0; c < j; c++)
			pivot -= AT(j, c) * AT(j, c);
		if (!(pivot > LLT_PIVOT_MIN * top))
			return 0;
		double root = sqrt(pivot), inv = 1.0 / root;
		AT(j, j) = root;
		for (int r = j + 1; r < n; r++) {
			double x = AT(r, j);
			for (int c = 0; c < j; c++)
				x -= AT(r, c) * AT(j, c);
			AT(r, j) = x * inv;
		}
	}
	return 1;
}

static inline __attribute__((always_inline)) int llt_apply(const double *a,
                                                           double *b, const int n)
{
	for (int i = 0; i < n; i++) {
		double x = b[i];
		for (int c = 0; c < i; c++)
			x -= AT(i, c) * b[c];
		b[i] = x / AT(i, i);
	}
	for (int i = n - 1; i >= 0; i--) {
		double x = b[i];
		for (int r = i + 1; r < n; r++)
			x -= AT(r, i) * b[r];
		b[i] = x / AT(i, i);
	}
	for (int i = 0; i < n; i++)
		if (!isfinite(b[i]))
			return 0;
	return 1;
}

int cal_cholesky_plain_solve(double *a, double *b, int n)
{
#define PLAIN_N(nn) (llt(a, nn) && llt_apply(a, b, nn))
	BY_N(n, PLAIN_N)
#undef PLAIN_N
}
