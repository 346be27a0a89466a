/* Internal helpers for filling struct ha_error; not installed. */
#ifndef HEADALLOC_ERROR_INTERNAL_H
#define HEADALLOC_ERROR_INTERNAL_H

#include <headalloc/error.h>
#include <headalloc/status.h>

#if defined(__GNUC__) || defined(__clang__)
#define HA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define HA_PRINTF(fmt, args)
#endif

/* Format a message into err (if not NULL) at line/column (0 = none) and
 * return status, so callers can write `return ha_fail(err, ...)`. */
enum ha_status ha_fail_at(struct ha_error *err, enum ha_status status,
                          long line, long column, const char *fmt, ...)
	HA_PRINTF(5, 6);
enum ha_status ha_fail(struct ha_error *err, enum ha_status status,
                       const char *fmt, ...) HA_PRINTF(3, 4);

#endif
