/* headalloc — optimal non-uniform head weights (the seeds' Theorem 7.1).
 *
 * Given the H x H covariance Sigma of the heads' outputs, the weights
 * minimising alpha^T Sigma alpha subject to sum alpha = 1 are
 * alpha = Sigma^-1 1 / (1^T Sigma^-1 1).  Sigma is usually read from a
 * covariance file with ha_covariance_read() (covariance.h). */
#ifndef HEADALLOC_HEAD_WEIGHTS_H
#define HEADALLOC_HEAD_WEIGHTS_H

#include "export.h"

#include <stddef.h>

#include "covariance.h"
#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sigma is symmetric when |S_ij - S_ji| <= this * max |S|. */
#define HA_COVARIANCE_SYMMETRY_TOL 1e-12

#define HA_HEAD_WEIGHTS_WARNING_MAX 256

/* Optimal head weights.  alpha is owned: release with
 * ha_head_weights_finish(). */
struct ha_head_weights {
	size_t heads;          /* H */
	double *alpha;         /* H weights summing to 1 */
	double error_optimal;  /* alpha^T Sigma alpha */
	double error_uniform;  /* (1/H^2) 1^T Sigma 1 */
	double gain;           /* error_uniform / error_optimal; +inf when
	                          only error_optimal is 0, 1 when both are */
	int pseudo_inverse;    /* 1: Sigma is singular, so the plain inverse
	                          does not apply (see warning) */
	int null_space;        /* 1: 1 has a component p in the null space of
	                          Sigma: alpha = p / (1^T p), error 0 (the
	                          minimum); 0: alpha = Sigma^+ 1 / (1^T Sigma^+ 1) */
	size_t rank;           /* numerical rank of Sigma */
	double min_eigenvalue; /* smallest eigenvalue of (symmetrised) Sigma */
	/* "" or, when pseudo_inverse, the warning in words: "covariance is
	 * singular (smallest eigenvalue 0, rank 2 of 3); using the
	 * pseudo-inverse" */
	char warning[HA_HEAD_WEIGHTS_WARNING_MAX];
};

/* The optimal weights for the H x H row-major matrix sigma.  Sigma must be
 * finite and symmetric to HA_COVARIANCE_SYMMETRY_TOL (it is then
 * symmetrised); eigenvalues at or below H * DBL_EPSILON * max|eigenvalue|
 * count as zero.  On HA_OK *out owns alpha; on failure *out is zeroed.
 * Errors: HA_EINVAL (NULL, heads = 0 or > HA_COVARIANCE_MAX_HEADS),
 * HA_EFORMAT (a non-finite entry; a negative variance S_ii; not
 * symmetric, the message names the
 * worst (i, j); not positive semi-definite: an eigenvalue below
 * -1e-9 max|eigenvalue|), HA_ENOMEM, HA_ENUMERIC (the eigensolver
 * failed).  alpha minimises alpha^T Sigma alpha subject to sum alpha = 1
 * for every positive semi-definite Sigma, singular or not. */
HA_API enum ha_status ha_covariance_weights(const double *sigma, size_t heads,
                                            struct ha_head_weights *out,
                                            struct ha_error *err);

/* Free out->alpha and zero *out; NULL is accepted. */
HA_API void ha_head_weights_finish(struct ha_head_weights *w);

#ifdef __cplusplus
}
#endif
#endif
