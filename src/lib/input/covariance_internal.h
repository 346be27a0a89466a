/* A covariance file's text parsed from memory (library-internal:
 * callers read files with ha_covariance_read). */
#ifndef HEADALLOC_COVARIANCE_INTERNAL_H
#define HEADALLOC_COVARIANCE_INTERNAL_H

#include <stddef.h>

#include <headalloc/covariance.h>

/* Parse a covariance YAML document of size bytes.  On HA_OK *sigma is a
 * new H x H row-major array (the caller frees it with free()) and *heads
 * is H.  Errors: HA_EFORMAT (YAML syntax, wrong structure, a value that
 * is not a finite number, a negative variance (diagonal entry), ragged
 * or non-square matrix, more than
 * HA_COVARIANCE_MAX_FILE bytes; err gives 1-based line and column),
 * HA_EUNSUPPORTED (H > HA_COVARIANCE_MAX_HEADS), HA_EINVAL, HA_ENOMEM;
 * then *sigma is NULL.  Symmetry is checked by ha_covariance_weights, not
 * here. */
enum ha_status ha_covariance_parse(const char *text, size_t size,
                                   double **sigma, size_t *heads,
                                   struct ha_error *err);

#endif
