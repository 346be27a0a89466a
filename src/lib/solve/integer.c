/* The certified integer search of spec §3: the feasible divisor with the
 * least MSE, and a certificate of how that is known.
 *
 * Why a bracket search is a proof: on x >= 1 every term of the relaxed
 * objective f(x) = c_b x^-s + c_v x^(x/2) (rho + (1 - rho) x / D) / n is
 * convex (x^-s for s > 0; x^(x/2) and x^(x/2 + 1) because, with h their
 * logarithm, h'' + h'^2 > 0 there), and x^-s is strictly convex.  So f is
 * strictly unimodal and so is its restriction to the ascending feasible
 * divisors: the first index where f stops decreasing is the integer
 * optimum, found by binary search on the sign of successive differences.
 * For the generalised model (irreducible E, variance c_v d^(gamma d +
 * kappa)) the condition under which the same holds is proven in model.c
 * and checked, per model, by ha_model_unimodal_on(): where it does not
 * hold the search enumerates. */
#include <math.h>
#include <stddef.h>

#include <headalloc/model.h>
#include <headalloc/solver.h>

#include "solve/solver_internal.h"

/* Feasible sets this small are simply enumerated. */
#define EXHAUSTIVE_MAX 4

static double log_mse_at(const struct ha_solver *s, const struct ha_model *m,
                         size_t i, size_t *evaluations)
{
	(*evaluations)++;
	return ha_model_log_relative_mse(m, s->budget, s->feasible[i]);
}

/* Evaluate every feasible divisor; the answer is the smallest d within
 * the tie tolerance of the minimum.  Any count is accepted (a model not
 * proven unimodal is enumerated whatever its size): values past the
 * first EXHAUSTIVE_MAX are evaluated again rather than stored. */
static size_t argmin_exhaustive(const struct ha_solver *s,
                                const struct ha_model *m, size_t *evaluations)
{
	double value[EXHAUSTIVE_MAX];
	double min = INFINITY;
	for (size_t i = 0; i < s->feasible_count; i++) {
		double v = log_mse_at(s, m, i, evaluations);
		if (i < EXHAUSTIVE_MAX)
			value[i] = v;
		if (v < min)
			min = v;
	}
	size_t best = 0;
	while ((best < EXHAUSTIVE_MAX ? value[best]
	                              : log_mse_at(s, m, best, evaluations)) >
	       min + HA_TIE_LOG_TOLERANCE)
		best++;
	return best;
}

static size_t argmin_bracket(const struct ha_solver *s, const struct ha_model *m,
                             size_t *evaluations)
{
	size_t lo = 0, hi = s->feasible_count - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (log_mse_at(s, m, mid + 1, evaluations) <
		    log_mse_at(s, m, mid, evaluations))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Where f is flat to within rounding, the search stops anywhere on
	 * the flat stretch.  By convexity the values within the tie tolerance
	 * of the minimum are one contiguous run: walk out to both of its ends,
	 * tracking the least value seen, then take the smallest d within
	 * tolerance of it (spec §3 tie rule). */
	double min = log_mse_at(s, m, lo, evaluations);
	size_t right = lo;
	while (right + 1 < s->feasible_count) {
		double v = log_mse_at(s, m, right + 1, evaluations);
		if (v > min + HA_TIE_LOG_TOLERANCE)
			break;
		if (v < min)
			min = v;
		right++;
	}
	size_t left = lo;
	while (left > 0) {
		double v = log_mse_at(s, m, left - 1, evaluations);
		if (v > min + HA_TIE_LOG_TOLERANCE)
			break;
		if (v < min)
			min = v;
		left--;
	}
	while (left < right &&
	       log_mse_at(s, m, left, evaluations) > min + HA_TIE_LOG_TOLERANCE)
		left++;
	return left;
}

enum ha_status ha_solver_solve_integer(const struct ha_solver *s,
                                       const struct ha_model *m,
                                       struct ha_allocation *optimum,
                                       struct ha_certificate *certificate)
{
	if (!s || !optimum || ha_model_validate(m) != HA_OK)
		return HA_EINVAL;
	struct ha_certificate cert = {
		.divisors = s->divisor_count,
		.feasible = s->feasible_count,
	};
	size_t best;
	/* `bracket` only where unimodality is proven for this model
	 * (ha_model_unimodal_on; the proof is in model.c). */
	if (s->feasible_count <= EXHAUSTIVE_MAX ||
	    !ha_model_unimodal_on(m, (double)s->feasible[0])) {
		cert.method = HA_CERT_EXHAUSTIVE;
		best = argmin_exhaustive(s, m, &cert.evaluated);
	} else {
		cert.method = HA_CERT_BRACKET;
		best = argmin_bracket(s, m, &cert.evaluated);
	}
	optimum->head_dim = s->feasible[best];
	optimum->heads = s->budget / optimum->head_dim;
	ha_model_eval(m, s->budget, optimum->head_dim, &optimum->terms);
	if (certificate)
		*certificate = cert;
	return HA_OK;
}
