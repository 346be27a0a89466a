/* headalloc — details of a failure, for people.
 *
 * Functions that read files take an optional struct ha_error * (NULL is
 * accepted) and, when they return a status other than HA_OK, fill it with a
 * one-line description naming the problem ("tensor 'x': data_offsets [0, 9]
 * end beyond the data buffer (8 bytes)") and, for text formats, the 1-based
 * line and column.  The library never prints: the caller composes
 * "path:line:column: message". */
#ifndef HEADALLOC_ERROR_H
#define HEADALLOC_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity of struct ha_error.message, including the terminating NUL;
 * longer messages are truncated. */
#define HA_ERROR_MESSAGE_MAX 256

/* Caller-provided storage for a failure's details.  No ownership: it holds
 * no pointers. */
struct ha_error {
	char message[HA_ERROR_MESSAGE_MAX]; /* "" when nothing went wrong */
	long line;   /* 1-based line in a text file, 0 when not applicable */
	long column; /* 1-based column in a text file, 0 when not applicable */
};

/* Reset *err to "no error" (empty message, line = column = 0).  NULL is
 * accepted. */
void ha_error_clear(struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
