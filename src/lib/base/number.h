/* headalloc — the one grammar for numbers written as text.
 *
 * Command-line values, scenario files and covariance files all read their
 * numbers with these two functions, so "512", "1e8" or "0x10" mean the same
 * (or are refused the same way) wherever they are written.  Both read the
 * whole text or nothing: no surrounding spaces, no trailing junk.
 *
 *   whole numbers   decimal digits only: no sign, fraction, exponent,
 *                   underscore, base prefix or leading zero ("512", "0";
 *                   not "+512", "5e2", "0x200", "0512")
 *   real numbers    finite decimals with an optional sign, fraction and
 *                   exponent ("2", "-0.5", ".5", "1.", "1e8", "3.3E+9");
 *                   no leading zero before another digit ("0.5", not
 *                   "00.5" or "007.5");
 *                   not "inf", "nan", hexadecimal floats, or a value that
 *                   overflows a double ("1e400").  A value below the
 *                   smallest double reads as the nearest one (a subnormal
 *                   or 0): that is the value the text means.  At most
 *                   HA_NUMBER_MAX_LENGTH characters.
 *
 * A leading zero is refused because YAML 1.1 readers take "0512" as the
 * octal 330: the same file must not mean two things to two readers.
 *
 * The decimal point is '.', whatever the locale's LC_NUMERIC. */
#ifndef HEADALLOC_INTERNAL_NUMBER_H
#define HEADALLOC_INTERNAL_NUMBER_H

#include <stdint.h>

#include <headalloc/status.h>

/* The longest real number read, in characters: ample for any double
 * (%.17g prints at most 24 characters). */
#define HA_NUMBER_MAX_LENGTH 64

/* Read text as a whole number from min to max.  HA_OK: *out is the value.
 * HA_EFORMAT: text is not a whole number (empty, a sign, a non-digit);
 * HA_EINVAL: it is one but outside [min, max] (or beyond UINT64_MAX), or
 * text or out is NULL.  *out is untouched unless HA_OK. */
enum ha_status ha_parse_uint(const char *text, uint64_t min,
                             uint64_t max, uint64_t *out);

/* Read text as a finite real number.  HA_OK: *out is the value.
 * HA_EFORMAT: text is not a real number of the grammar above (or is longer
 * than HA_NUMBER_MAX_LENGTH); HA_EINVAL: it is one whose value overflows a
 * double, or text or out is NULL.  *out is untouched unless HA_OK. */
enum ha_status ha_parse_real(const char *text, double *out);

#endif
