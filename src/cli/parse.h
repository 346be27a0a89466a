/* Strict parsing of command-line values: the whole string must be a
 * number of the expected kind and range, or the parse fails.  Thin
 * wrappers of ha_parse_uint() and ha_parse_real() (headalloc/number.h),
 * the grammar scenario and covariance files share. */
#ifndef HEADALLOC_CLI_PARSE_H
#define HEADALLOC_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A decimal whole number from min to max (digits only, no sign, no
 * spaces).  Returns 1 on success. */
int cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* A finite decimal real ("1e8", "100000000", "0.5") of at most
 * HA_NUMBER_MAX_LENGTH characters; no hex, no inf or nan, no surrounding
 * spaces.  Returns 1 on success. */
int cli_parse_real(const char *text, double *out);

/* --threads: "auto" (*threads = CLI_THREADS_AUTO, 0, which the library's
 * requests read as one per online processor) or a whole number from 1 to
 * CLI_THREADS_MAX.  Returns 1 on success. */
#define CLI_THREADS_AUTO ((size_t)0)
#define CLI_THREADS_MAX 1024
#define CLI_THREADS_EXPECTED "auto or a whole number from 1 to 1024"
int cli_parse_threads(const char *text, size_t *threads);

#endif
