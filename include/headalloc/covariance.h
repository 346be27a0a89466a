/* headalloc — optimal non-uniform head weights (the seeds' Theorem 7.1).
 *
 * Given the H x H covariance Sigma of the heads' outputs, the weights
 * minimising alpha^T Sigma alpha subject to sum alpha = 1 are
 * alpha = Sigma^-1 1 / (1^T Sigma^-1 1).  The file format read here is
 *
 *     covariance:
 *       - [2, 1, 0]
 *       - [1, 2, 1]
 *       - [0, 1, 2]
 *
 * (any YAML spelling of one mapping whose only key is `covariance`, a
 * sequence of H equal-length sequences of H plain finite decimal numbers). */
#ifndef HEADALLOC_COVARIANCE_H
#define HEADALLOC_COVARIANCE_H

#include "export.h"

#include <stddef.h>

#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest H accepted. */
#define HA_COVARIANCE_MAX_HEADS 4096
/* The largest covariance file read: 64 MiB. */
#define HA_COVARIANCE_MAX_FILE (64u * 1024u * 1024u)
/* Sigma is symmetric when |S_ij - S_ji| <= this * max |S|. */
#define HA_COVARIANCE_SYMMETRY_TOL 1e-12

/* Optimal head weights.  alpha is owned: release with
 * ha_head_weights_clear(). */
struct ha_head_weights {
	size_t heads;          /* H */
	double *alpha;         /* H weights summing to 1 */
	double error_optimal;  /* alpha^T Sigma alpha */
	double error_uniform;  /* (1/H^2) 1^T Sigma 1 */
	double gain;           /* error_uniform / error_optimal; +inf when
	                          only error_optimal is 0, 1 when both are */
	int pseudo_inverse;    /* 1: Sigma is singular, so the plain inverse
	                          does not apply (callers should warn) */
	int null_space;        /* 1: 1 has a component p in the null space of
	                          Sigma: alpha = p / (1^T p), error 0 (the
	                          minimum); 0: alpha = Sigma^+ 1 / (1^T Sigma^+ 1) */
	size_t rank;           /* numerical rank of Sigma */
	double min_eigenvalue; /* smallest eigenvalue of (symmetrised) Sigma */
};

/* The optimal weights for the H x H row-major matrix sigma.  Sigma must be
 * finite and symmetric to HA_COVARIANCE_SYMMETRY_TOL (it is then
 * symmetrised); eigenvalues at or below H * DBL_EPSILON * max|eigenvalue|
 * count as zero.  On HA_OK *out owns alpha; on failure *out is zeroed.
 * Errors: HA_EINVAL (NULL, heads = 0 or > HA_COVARIANCE_MAX_HEADS),
 * HA_EFORMAT (a non-finite entry; not symmetric, the message names the
 * worst (i, j); not positive semi-definite: an eigenvalue below
 * -1e-9 max|eigenvalue|), HA_ENOMEM, HA_ENUMERIC (the eigensolver
 * failed).  alpha minimises alpha^T Sigma alpha subject to sum alpha = 1
 * for every positive semi-definite Sigma, singular or not. */
HA_API enum ha_status ha_covariance_weights(const double *sigma, size_t heads,
                                     struct ha_head_weights *out,
                                     struct ha_error *err);

/* Free out->alpha and zero *out; NULL is accepted. */
HA_API void ha_head_weights_clear(struct ha_head_weights *w);

/* Parse a covariance YAML document of size bytes.  On HA_OK *sigma is a
 * new H x H row-major array (the caller frees it with free()) and *heads
 * is H.  Errors: HA_EFORMAT (YAML syntax, wrong structure, a value that
 * is not a finite number, ragged or non-square matrix; err gives 1-based
 * line and column), HA_EUNSUPPORTED (H > HA_COVARIANCE_MAX_HEADS),
 * HA_EINVAL, HA_ENOMEM; then *sigma is NULL.  Symmetry is checked by
 * ha_covariance_weights, not here. */
HA_API enum ha_status ha_covariance_parse(const char *text, size_t size,
                                   double **sigma, size_t *heads,
                                   struct ha_error *err);

/* Read and parse the file at path (at most HA_COVARIANCE_MAX_FILE bytes,
 * else HA_EFORMAT); HA_EIO when it cannot be read. */
HA_API enum ha_status ha_covariance_read(const char *path, double **sigma,
                                  size_t *heads, struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
