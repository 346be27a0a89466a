/* headalloc — details of a failure, for people: the one error model.
 *
 * Every library function that can fail for a reason worth explaining
 * takes an optional struct ha_error * (NULL is accepted) and, when it
 * returns a status other than HA_OK, fills it: the status again, the file
 * at fault (when the failure is in a file's contents), the 1-based line
 * and column (for text formats) and a one-line message naming the problem
 * ("tensor 'x': data_offsets [0, 9] end beyond the data buffer (8
 * bytes)").  The library never prints: the caller composes
 * "file:line:column: message". */
#ifndef HEADALLOC_ERROR_H
#define HEADALLOC_ERROR_H

#include "export.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity of struct ha_error.message, including the terminating NUL;
 * longer messages are truncated. */
#define HA_ERROR_MESSAGE_MAX 384

/* Caller-provided storage for a failure's details. */
struct ha_error {
	enum ha_status status; /* the failure's status; HA_OK when none */
	/* The path of the file at fault, exactly as the caller passed it to
	 * the function that failed (not a copy: valid while the caller's
	 * string is), or NULL when the failure is not in a file. */
	const char *file;
	long line;   /* 1-based line in a text file, 0 when not applicable */
	long column; /* 1-based column in a text file, 0 when not applicable */
	char message[HA_ERROR_MESSAGE_MAX]; /* "" when nothing went wrong */
};

/* Reset *err to "no error" (HA_OK, no file, empty message, line = column
 * = 0).  NULL is accepted. */
HA_API void ha_error_init(struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
