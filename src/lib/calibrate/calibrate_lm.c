/* Levenberg–Marquardt for a sum of Huber losses of nonlinear residuals.
 *
 * Why not plain Gauss–Newton or L-BFGS alone: with δ = 1e-3 and residuals
 * of a percent most runs sit on the linear arms of the Huber loss, so the
 * objective is an L1 fit smoothed in a band 1e-3 wide.  Its curvature
 * comes only from the residuals inside the band and jumps as they enter
 * or leave; quasi-Newton updates and reweighted least squares crawl along
 * such a surface.  Here each step minimises the exact Huber loss of the
 * linearised residuals, plus a damping term,
 *
 *   q(Δ) = sum_i w_i huber(r_i + J_i Δ) + μ/2 sum_j D_j^2 Δ_j^2,
 *
 * a strictly convex piecewise quadratic, by semismooth Newton (the
 * Hessian of the current piece, a backtracking line search on q), and μ
 * follows the ratio of actual to predicted reduction.  Inside the band —
 * noise-free runs — this is Levenberg–Marquardt on least squares and
 * converges quadratically.
 *
 * Least squares (δ = inf) is the one piece everywhere, and there the
 * step is the classic Levenberg–Marquardt one: the Gauss–Newton model
 *
 *   q(Δ) = 1/2 sum_i w_i (r_i + J_i Δ)^2 + μ/2 sum_j D_j^2 Δ_j^2,
 *
 * minimised by one solve with J'WJ + μD² (solve_least_squares).
 *
 * Neither model keeps the residuals' second derivatives C = sum w psi(r)
 * Hess r: with it they needed C + μD² positive definite, which held μ at
 * the size of C's most negative curvature and, along the curved, nearly
 * flat valleys of a law its runs hardly constrain, shrank every step to
 * a crawl (tests/test_calibrate_ls.c's leave-one-out refits ran out their
 * step cap).  The least-squares step is solved in variables scaled by D
 * and retried shorter where the box cuts it to no predicted gain: see
 * there. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "calibrate_internal.h"

/* ---- the linear algebra ------------------------------------------------- */

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
#define AT(i, j) a[(i) * n + (j)]

/* The hot loops are written for a constant k (K_ONLY: the pivoted
 * solves, the least-squares model and solve_model_k are inlined into a
 * copy per k from 1 to 7, so that the loops over the free parameters
 * unroll); each sum's terms and their order are those of the loops over
 * a variable k. */
#define K_ONLY static inline __attribute__((always_inline))
#define BY_K(k, call_k)                                                     \
	switch (k) {                                                        \
	case 1: return call_k(1);                                           \
	case 2: return call_k(2);                                           \
	case 3: return call_k(3);                                           \
	case 4: return call_k(4);                                           \
	case 5: return call_k(5);                                           \
	case 6: return call_k(6);                                           \
	case 7: return call_k(7);                                           \
	default: return call_k(k);                                          \
	}

/* The larger of a and b (b when either is NaN, as GSL_MAX). */
static double larger(double a, double b)
{
	return a > b ? a : b;
}

K_ONLY int factor(double *a, int *perm, const int n)
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
	double nu = n == 1 ? 1.0 : sqrt(n * n - 1.0);
	double beta = sqrt(larger(larger(gamma, xi / nu), DBL_EPSILON));
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
		/* d_j = max(ε, |a_jj|, u²) other than a_jj: perturbed, not
		 * positive definite */
		double u = theta / beta, ajj = AT(j, j);
		if (!(ajj >= DBL_EPSILON && ajj >= u * u))
			return 0;
		double inv = 1.0 / ajj;
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

K_ONLY int apply(const double *a, const int *perm, double *b, const int n)
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

/* The solves are called, not inlined: their eight unrolled copies are
 * each too large to repeat at every call. */
#define OUT_OF_LINE static __attribute__((noinline))

OUT_OF_LINE int cholesky_factor(double *a, int *perm, int n)
{
#define FACTOR_N(nn) factor(a, perm, nn)
	BY_K(n, FACTOR_N)
#undef FACTOR_N
}

OUT_OF_LINE int cholesky_apply(const double *a, const int *perm, double *b, int n)
{
#define APPLY_N(nn) apply(a, perm, b, nn)
	BY_K(n, APPLY_N)
#undef APPLY_N
}

/* ---- plain Cholesky, for a matrix scaled to a unit-sized diagonal ----
 * The least-squares step's Hessian in variables scaled by the damping
 * scales: no pivoting, and positive definiteness is
 * tested by each pivot against the largest diagonal entry: the step's
 * matrix is factored at every iteration, and this needs a third of the
 * pivoted factorisation's operations. */

#define LLT_PIVOT_MIN 1e-13

K_ONLY int llt(double *a, const int n)
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

K_ONLY int llt_apply(const double *a, double *b, const int n)
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

/* ---- the iteration ------------------------------------------------------- */

#define INNER_STEPS 40

/* Early stopping of a bootstrap refit (lm->bar finite: the best end
 * already reached from the earlier starts in the same resample;
 * headalloc-calibrate(1), --bootstrap), and of a seeded full search's
 * grid starts (bar: the seeds' best end, calibrate_search.c).  A search
 * keeps only its best end, so a start matters only if it would end below
 * bar.  After each accepted step t >= CATCH_WINDOW, with objective f_t
 * above bar + bar_margin (0 for refits; a full search's margin for
 * having reached the best), the start is abandoned when
 *   f_t - bar > CATCH_SAFETY (f_{t-W} - f_t) / W (steps - t):
 * the gap to bar is more than ten times what the start would gain in its
 * remaining steps (the refit's cap) at its mean gain per step over its
 * last W steps.  It then ends where it is, above bar: never the best.
 * The rule is a prediction, not a bound: LM can stall for many steps
 * under heavy damping and then descend, and from arbitrary starts far
 * from the data it does (tests/test_calibrate_stop.c counts such starts).
 * From the refit's own starts (the full fit's optimum first, then the
 * documented grid's linear starts) it changed the best end of 1 of the
 * about 1320 refits of one B = 1000 --compare calibration of the bench,
 * by 8.5e-7 of its objective.  bar depends only on the resample's starts
 * in their fixed order (a full search's: on its seeds), so the rule is
 * deterministic whatever the thread count.
 *
 * A second rule (lm->near > 0: bootstrap refits, CAL_NEAR_BAR) stops a
 * start that has come within near f_t above bar while its projected gain
 * over its remaining steps, at the same mean rate, is within near f_t
 * too: it can end at most about that far below bar, at the refit's
 * resolution the end it reached already (lm->abandoned = 2).  Why: where
 * a resample leaves a law no finite optimum (a variance term that
 * becomes a step in d, c_v -> 0 as κ -> inf), every start rides the same
 * ridge towards the same infimum at 1e-9 of the objective a step, to the
 * step cap; the first rule, rightly, cannot tell them from a start about
 * to descend.  On the calibration bench's --compare such crawls were
 * most of power+data's steps; the rule moves none of its 1320 refits'
 * best ends by 1e-9. */
#define CATCH_WINDOW 10
#define CATCH_SAFETY 10.0

/* After taken accepted steps at objective f, with past[t % W] the
 * objective after step t: 0 to go on, else stop by the first rule (1) or
 * the second (2) above. */
static int stop_early(const struct cal_lm *lm, const double *past, int taken,
                      double f)
{
	if (taken < CATCH_WINDOW || !(f > lm->bar))
		return 0;
	double rate = (past[taken % CATCH_WINDOW] - f) / CATCH_WINDOW;
	double remaining = rate * (double)(lm->steps - taken);
	if (f > lm->bar + lm->bar_margin && f - lm->bar > CATCH_SAFETY * remaining)
		return 1;
	if (f - lm->bar <= lm->near * f && remaining <= lm->near * f)
		return 2;
	return 0;
}

static double huber(double r, double delta)
{
	double a = fabs(r);
	return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

static double psi(double r, double delta)
{
	return r > delta ? delta : r < -delta ? -delta : r;
}

/* Run i's linearised residual r_i + J_i d. */
K_ONLY double linearised(const struct cal_lm *lm, size_t i, const double *d,
                         const int k)
{
	const double *ji = lm->jk + i * k;
	double a = lm->r[i];
	for (int j = 0; j < k; j++)
		a += ji[j] * d[j];
	return a;
}

/* The local model at step d (undamped): sum w huber(r + J d). */
K_ONLY double model_k(const struct cal_lm *lm, const double *d, const int k)
{
	const struct cal_data *data = lm->data;
	double q = 0.0;
	for (size_t i = 0; i < data->m; i++)
		if (data->weight[i] != 0.0)
			q += data->weight[i] * huber(linearised(lm, i, d, k), lm->delta);
	return q;
}

K_ONLY double damped_k(const struct cal_lm *lm, const double *d, double mu,
                       const double *dd, double *undamped, const int k)
{
	double q = model_k(lm, d, k);
	*undamped = q;
	for (int j = 0; j < k; j++)
		q += 0.5 * mu * dd[j] * d[j] * d[j];
	return q;
}

/* Run i's term w J_i' J_i of the Newton matrix, into its lower
 * triangle (all the solves read). */
K_ONLY void add_run(double *h, double w, const double *ji, const int k)
{
	for (int j = 0; j < k; j++) {
		double wj = w * ji[j];
		for (int l = 0; l <= j; l++)
			h[j * k + l] += wj * ji[l];
	}
}

K_ONLY void clear_lower(double *h, const int k)
{
	for (int j = 0; j < k; j++)
		for (int l = 0; l <= j; l++)
			h[j * k + l] = 0.0;
}

/* A held parameter's row and column of the Newton matrix: I's. */
static void hold(double *h, const int *held, int k)
{
	for (int j = 0; j < k; j++)
		if (held[j])
			for (int l = 0; l < k; l++)
				h[j * k + l] = h[l * k + j] = l == j ? 1.0 : 0.0;
}

#define BAND_RUNS 256

/* Minimise the damped model q over d (held parameters stay 0), *at the
 * undamped model at the d returned (model_k: the same double); 0
 * when the first Newton system is not numerically positive definite
 * (more damping is due). */
K_ONLY int solve_model_k(const struct cal_lm *lm, double mu, const double *dd,
                         const int *held, double *d, double *at, const int k)
{
	const struct cal_data *data = lm->data;
	for (int j = 0; j < k; j++)
		d[j] = 0.0;
	double q = damped_k(lm, d, mu, dd, at, k);
	/* The Newton matrix depends on d only through the runs in the band
	 * (|r + J d| <= δ): where that set is the one of the last iteration
	 * the matrix is the same doubles, and its factorisation is kept;
	 * only the right-hand side changes.  The set is tracked
	 * for up to BAND_RUNS runs.  (Least squares, one band everywhere,
	 * takes solve_least_squares instead.) */
	const int tracked = data->m <= BAND_RUNS;
	uint64_t band[BAND_RUNS / 64], last[BAND_RUNS / 64];
	/* h's lower triangle (all the factorisation reads) and the held
	 * rows and columns are set below, the rest never read: not cleared. */
	double h[HA_CAL_PARAMS * HA_CAL_PARAMS];
	int perm[HA_CAL_PARAMS];
	for (int it = 0; it < INNER_STEPS; it++) {
		int build = it == 0 || !tracked;
		double g[HA_CAL_PARAMS];
		for (int j = 0; j < k; j++)
			g[j] = mu * dd[j] * d[j];
		if (build && !tracked)
			clear_lower(h, k);
		if (tracked)
			memset(band, 0, sizeof band);
		for (size_t i = 0; i < data->m; i++) {
			double w = data->weight[i];
			if (w == 0.0)
				continue;
			const double *ji = lm->jk + i * k;
			double a = linearised(lm, i, d, k);
			double p = psi(a, lm->delta);
			for (int j = 0; j < k; j++)
				g[j] += w * p * ji[j];
			if (fabs(a) > lm->delta)
				continue;
			if (tracked) {
				band[i / 64] |= UINT64_C(1) << (i % 64);
				continue;
			}
			if (build)
				add_run(h, w, ji, k);
		}
		if (tracked) {
			build = build || memcmp(band, last, sizeof band) != 0;
			memcpy(last, band, sizeof band);
			if (build) {
				clear_lower(h, k);
				for (size_t i = 0; i < data->m; i++)
					if (band[i / 64] >> (i % 64) & 1)
						add_run(h, data->weight[i], lm->jk + i * k, k);
			}
		}
		double step[HA_CAL_PARAMS], slope = 0.0;
		for (int j = 0; j < k; j++)
			step[j] = held[j] ? 0.0 : -g[j];
		if (build) {
			for (int j = 0; j < k; j++)
				h[j * k + j] += mu * dd[j];
			hold(h, held, k);
			if (!cholesky_factor(h, perm, k))
				return it > 0;
		}
		if (!cholesky_apply(h, perm, step, k))
			return it > 0;
		for (int j = 0; j < k; j++)
			slope += g[j] * step[j];
		if (!(slope < 0.0))
			return 1;
		double t = 1.0, trial[HA_CAL_PARAMS], qt = q, at_trial = *at;
		for (int half = 0; half < 30; half++, t *= 0.5) {
			for (int j = 0; j < k; j++)
				trial[j] = d[j] + t * step[j];
			qt = damped_k(lm, trial, mu, dd, &at_trial, k);
			if (qt <= q + 1e-4 * t * slope)
				break;
		}
		if (!(qt < q))
			return 1;
		memcpy(d, trial, (size_t)k * sizeof *d);
		*at = at_trial;
		double gain = q - qt;
		q = qt;
		if (gain <= 1e-16 * (q > 0 ? q : 1e-300))
			return 1;
	}
	return 1;
}

/* Least squares: the Gauss–Newton model's undamped parts at this step
 * into lm (ls_h = J'WJ, ls_g = J'Wr), once for every damping tried;
 * returns its value at 0 (ls_q0). */
K_ONLY double least_squares_model_k(struct cal_lm *lm, const int k)
{
	const struct cal_data *data = lm->data;
	double *h = lm->ls_h, *g = lm->ls_g, q0 = 0.0;
	clear_lower(h, k);
	for (int j = 0; j < k; j++)
		g[j] = 0.0;
	for (size_t i = 0; i < data->m; i++) {
		double w = data->weight[i];
		if (w == 0.0)
			continue;
		const double *ji = lm->jk + i * k;
		q0 += 0.5 * w * lm->r[i] * lm->r[i];
		for (int j = 0; j < k; j++)
			g[j] += w * lm->r[i] * ji[j];
		add_run(h, w, ji, k);
	}
	return q0;
}

static double least_squares_model(struct cal_lm *lm)
{
#define LS_MODEL_K(kk) least_squares_model_k(lm, kk)
	BY_K(lm->k, LS_MODEL_K)
#undef LS_MODEL_K
}

/* The least-squares model at d: q(0) + g'd + d'J'WJd / 2. */
static double least_squares_at(const struct cal_lm *lm, const double *d)
{
	const int k = lm->k;
	double lin = 0.0, quad = 0.0;
	for (int j = 0; j < k; j++) {
		lin += lm->ls_g[j] * d[j];
		double row = 0.5 * lm->ls_h[j * k + j] * d[j];
		for (int l = 0; l < j; l++)
			row += lm->ls_h[j * k + l] * d[l];
		quad += d[j] * row;
	}
	return lm->ls_q0 + lin + quad;
}

/* solve_model under least squares: the damped Gauss–Newton model's
 * minimiser, from one factorisation of J'WJ + μD² (held parameters fixed
 * at 0); 0 when that is not numerically positive definite (more damping
 * is due). */
static int solve_least_squares(const struct cal_lm *lm, double mu,
                               const double *dd, const int *held, double *d,
                               double *at)
{
	const int k = lm->k;
	double h[HA_CAL_PARAMS * HA_CAL_PARAMS];
	/* Solved in the variables scaled by the damping scales D (unit
	 * diagonal but for μ), by plain Cholesky whose pivots are
	 * tested against the largest diagonal entry: a parameter the runs
	 * do not see at all (α while A = 0) has a pivot of μ 1e-10 max D²
	 * unscaled, which the pivoted factorisation's absolute test (a pivot
	 * above DBL_EPSILON) failed, holding μ up for every direction. */
	double scale[HA_CAL_PARAMS];
	for (int j = 0; j < k; j++)
		scale[j] = 1.0 / sqrt(dd[j]);
	for (int j = 0; j < k; j++) {
		d[j] = held[j] ? 0.0 : -lm->ls_g[j] * scale[j];
		for (int l = 0; l <= j; l++) /* a held row and column: I's */
			h[j * k + l] = held[j] || held[l]
				? (l == j ? 1.0 : 0.0)
				: (lm->ls_h[j * k + l] + (l == j ? mu * dd[j] : 0.0)) *
				  scale[j] * scale[l];
	}
	if (!llt(h, k) || !llt_apply(h, d, k))
		return 0;
	for (int j = 0; j < k; j++)
		d[j] *= scale[j];
	/* The minimiser of a convex q lies no higher than q(0): where the
	 * computed one does, the factorisation passed but the system is too
	 * ill-conditioned to solve at this damping (μ small against J'WJ's
	 * spread of scales). */
	*at = least_squares_at(lm, d);
	return *at <= lm->ls_q0;
}

static int solve_model(const struct cal_lm *lm, double mu, const double *dd,
                       const int *held, double *d, double *at)
{
	if (isinf(lm->delta))
		return solve_least_squares(lm, mu, dd, held, d, at);
#define SOLVE_K(kk) solve_model_k(lm, mu, dd, held, d, at, kk)
	BY_K(lm->k, SOLVE_K)
#undef SOLVE_K
}

/* The second-order correction of a step d whose in-band residuals (those
 * the model puts on the quadratic part of the loss) drifted off their
 * linear prediction — the Maratos effect of a narrow curved valley: the
 * least-squares shift c that puts them back, J_S c = -(r(th + d) - r - J_S d),
 * with the Jacobian at th.  r(th + d) comes from the parts the trial's
 * objective kept (kept, at trial: th + d clamped into the box, which
 * rounding can put an ulp from th + d itself), not computed again.  0
 * when there is nothing to correct. */
static int correction(const struct cal_lm *lm, const double *trial,
                      const double *kept, const double *d, const double *dd,
                      const int *held, double *c)
{
	const struct cal_data *data = lm->data;
	int k = lm->k;
	double *r2 = lm->r + data->m;
	if (!cal_residuals(data, trial, kept, lm->index, k, r2, NULL))
		return 0;
	double h[HA_CAL_PARAMS * HA_CAL_PARAMS], g[HA_CAL_PARAMS] = {0};
	clear_lower(h, k);
	int inside = 0, perm[HA_CAL_PARAMS];
	for (size_t i = 0; i < data->m; i++) {
		double w = data->weight[i];
		double a = linearised(lm, i, d, k);
		if (w == 0.0 || fabs(a) > lm->delta)
			continue;
		inside++;
		const double *ji = lm->jk + i * k;
		for (int j = 0; j < k; j++)
			g[j] -= w * ji[j] * (r2[i] - a);
		add_run(h, w, ji, k);
	}
	if (inside == 0)
		return 0;
	for (int j = 0; j < k; j++) {
		h[j * k + j] += 1e-10 * dd[j];
		g[j] = held[j] ? 0.0 : g[j];
	}
	hold(h, held, k);
	if (!cholesky_factor(h, perm, k) || !cholesky_apply(h, perm, g, k))
		return 0;
	memcpy(c, g, (size_t)k * sizeof *c);
	return 1;
}

/* Whether th + d leaves the box for some free parameter. */
static int outside_box(const struct cal_lm *lm, const double *th,
                       const double *d)
{
	for (int j = 0; j < lm->k; j++) {
		int p = lm->index[j];
		double v = th[p] + d[j];
		if (v < cal_lower[p] || v > cal_upper[p])
			return 1;
	}
	return 0;
}

/* th + d clamped into the box; the step actually taken back in d.
 * Returns whether anything moved. */
static int take(const struct cal_lm *lm, const double *th, double *d,
                double *trial)
{
	int moved = 0;
	memcpy(trial, th, HA_CAL_PARAMS * sizeof *trial);
	for (int j = 0; j < lm->k; j++) {
		int p = lm->index[j];
		double v = th[p] + d[j];
		v = v < cal_lower[p] ? cal_lower[p] : v;
		v = v > cal_upper[p] ? cal_upper[p] : v;
		moved |= v != th[p];
		d[j] = v - th[p];
		trial[p] = v;
	}
	return moved;
}

double cal_levenberg(struct cal_lm *lm, double *th, double f)
{
	const struct cal_data *data = lm->data;
	int k = lm->k;
	double mu = 1e-3;
	lm->converged = 1;
	lm->abandoned = 0;
	double past[CATCH_WINDOW]; /* past[t % W]: f after step t */
	past[0] = f;
	int it;
	/* The parts at th when the last step's objective kept them. */
	const double *kept = NULL;
	double *kept_trial = lm->kept, *kept_corrected = lm->kept + data->m * CAL_PARTS;
	for (it = 0; it < lm->steps && isfinite(f); it++) {
		if (!cal_residuals(data, th, kept, lm->index, k, lm->r, lm->jac))
			return f;
		/* The free columns of the Jacobian, gathered (row i's k
		 * entries at jk + i k) for the loops below and the steps'. */
		for (size_t i = 0; i < data->m; i++)
			for (int j = 0; j < k; j++)
				lm->jk[i * k + j] = lm->jac[i * HA_CAL_PARAMS + lm->index[j]];
		/* Damping scales: the columns' curvatures, floored so that a
		 * parameter the runs do not see is still damped. */
		double dd[HA_CAL_PARAMS], top = 0.0, grad[HA_CAL_PARAMS];
		for (int j = 0; j < k; j++)
			dd[j] = grad[j] = 0.0;
		for (size_t i = 0; i < data->m; i++) {
			/* each column's sums in the runs' order, psi once a run */
			double w = data->weight[i], wp = w * psi(lm->r[i], lm->delta);
			for (int j = 0; j < k; j++) {
				double x = lm->jk[i * k + j];
				dd[j] += w * x * x;
				grad[j] += wp * x;
			}
		}
		for (int j = 0; j < k; j++)
			top = dd[j] > top ? dd[j] : top;
		if (!(top > 0.0))
			break;
		if (isinf(lm->delta))
			lm->ls_q0 = least_squares_model(lm);
		int held[HA_CAL_PARAMS];
		for (int j = 0; j < k; j++) {
			if (dd[j] < 1e-10 * top)
				dd[j] = 1e-10 * top;
			int p = lm->index[j];
			/* On a bound with the descent direction pointing out. */
			held[j] = (th[p] <= cal_lower[p] && grad[j] > 0.0) ||
			          (th[p] >= cal_upper[p] && grad[j] < 0.0);
		}
		for (;;) {
			double d[HA_CAL_PARAMS], trial[HA_CAL_PARAMS], at, d0[HA_CAL_PARAMS];
			if (!solve_model(lm, mu, dd, held, d, &at)) {
				mu *= 4.0;
				if (mu > 1e16)
					return f;
				continue;
			}
			memcpy(d0, d, (size_t)k * sizeof *d);
			int moved = take(lm, th, d, trial);
			/* the model at d unless the box (or rounding th + d - th)
			 * changed d */
			int clamped = memcmp(d0, d, (size_t)k * sizeof *d) != 0;
			double predicted = f - (!clamped ? at
			                        : isinf(lm->delta) ? least_squares_at(lm, d)
			                                           : model_k(lm, d, k));
			if (!moved)
				return f;
			/* Least squares: a step the box cut short, to a point the
			 * model puts above f, is retried shorter (more damping)
			 * rather than taken as the end. */
			if (isinf(lm->delta) && !(predicted > 0.0) &&
			    outside_box(lm, th, d0)) {
				mu *= 4.0;
				if (mu > 1e16)
					return f;
				continue;
			}
			if (!(predicted > 1e-16 * f) || predicted <= 0.0)
				return f;
			double ft = cal_objective(data, trial, lm->delta, NULL, kept_trial);
			double ratio = (f - ft) / predicted;
			const double *kept_taken = kept_trial; /* kept once taken */
			double c[HA_CAL_PARAMS], t2[HA_CAL_PARAMS];
			/* (the residuals at the trial from the parts its
			 * objective kept: finite where ft is) */
			if (ratio < 0.75 && isfinite(ft) &&
			    correction(lm, trial, kept_trial, d, dd, held, c)) {
				for (int j = 0; j < k; j++)
					c[j] += d[j];
				take(lm, th, c, t2);
				double f2 = cal_objective(data, t2, lm->delta, NULL,
				                          kept_corrected);
				if (f2 < ft) {
					ft = f2;
					kept_taken = kept_corrected;
					ratio = (f - ft) / predicted;
					memcpy(trial, t2, sizeof trial);
				}
			}
			if (ft < f) {
				memcpy(th, trial, sizeof trial);
				kept = kept_taken;
				double gain = f - ft;
				f = ft;
				if (ratio > 0.75)
					mu = mu / 3.0 > 1e-12 ? mu / 3.0 : 1e-12;
				else if (ratio < 0.25)
					mu *= 2.0;
				if (gain <= lm->tolerance * f)
					return f;
				int taken = it + 1;
				int stop = stop_early(lm, past, taken, f);
				if (stop) {
					lm->converged = 0;
					lm->abandoned = stop;
					return f;
				}
				past[taken % CATCH_WINDOW] = f;
				break;
			}
			mu *= 4.0;
			if (mu > 1e16)
				return f;
		}
	}
	/* Out of steps while still gaining: not converged. */
	lm->converged = it < lm->steps;
	return f;
}
