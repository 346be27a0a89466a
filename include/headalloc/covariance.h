/* headalloc — covariance files: the H x H covariance of the heads'
 * outputs, whose optimal head weights ha_covariance_weights()
 * (head_weights.h) computes.  The file format is
 *
 *     covariance:
 *       - [2, 1, 0]
 *       - [1, 2, 1]
 *       - [0, 1, 2]
 *
 * (any YAML spelling of one mapping whose only key is `covariance`, a
 * sequence of H equal-length sequences of H plain finite decimal numbers,
 * in the grammar of headalloc-scenario(5), Values).  Read with the rules every YAML input of
 * headalloc shares: anchors, aliases, tags, merge keys and repeated keys
 * are errors, as are quoted numbers. */
#ifndef HEADALLOC_COVARIANCE_H
#define HEADALLOC_COVARIANCE_H

#include "export.h"

#include <stddef.h>

#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest H accepted: the eigendecomposition costs H^3, so a dense
 * 1024 x 1024 matrix takes about 2 s and 40 MB (bench: "limits"); 4096
 * took six minutes. */
#define HA_COVARIANCE_MAX_HEADS 1024
/* The largest covariance file or text read: 64 MiB. */
#define HA_COVARIANCE_MAX_FILE ((size_t)64 << 20)

/* Read and parse the file at path.  On HA_OK *sigma is a new H x H
 * row-major array (the caller frees it with free()) and *heads is H.
 * Errors: HA_EIO when it cannot be read; HA_EFORMAT (YAML syntax, wrong
 * structure, a value that is not a finite number, a negative variance
 * (diagonal entry), a ragged or non-square matrix, more than
 * HA_COVARIANCE_MAX_FILE bytes; err gives 1-based line and column),
 * HA_EUNSUPPORTED (H > HA_COVARIANCE_MAX_HEADS), HA_EINVAL, HA_ENOMEM;
 * then *sigma is NULL.  err->file is path.  Symmetry is checked by
 * ha_covariance_weights, not here. */
HA_API enum ha_status ha_covariance_read(const char *path, double **sigma,
                                         size_t *heads, struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
