/* Library-internal: an exact double formatter, byte-identical to
 *
 *     the shortest of snprintf "%.16g", "%.15g", "%.17g" that strtod reads
 *     back exactly: 16 digits if they read back and 15 do not, 15 if both
 *     do, 17 if 16 do not (17 always do),
 *
 * as glibc prints and reads them (correctly rounded, exact ties to even),
 * without calling snprintf or strtod: the reports print millions of
 * doubles, and two conversions each way cost a third of a sweep's time.
 * Not installed. */
#ifndef HEADALLOC_FORMAT_DOUBLE_H
#define HEADALLOC_FORMAT_DOUBLE_H

#include <stddef.h>

/* Room for the longest text, "-2.2250738585072014e-308", and its NUL. */
#define HA_FD_BUFSIZE 32

/* Write the text of value into buf (HA_FD_BUFSIZE bytes) and return its
 * length.  Non-finite values come out as "%g" prints them: "inf",
 * "-inf", "nan", "-nan". */
size_t ha_fd_format(double value, char *buf);

#endif
