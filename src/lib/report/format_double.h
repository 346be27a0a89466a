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
#include <stdint.h>
#include <string.h>

/* Room for the longest text, "-2.2250738585072014e-308", and its NUL. */
#define HA_FD_BUFSIZE 32

/* The text of value (the format above) with ".0" after a mantissa that
 * has no point (3.0, 1.0e+08, -0.0), as YAML 1.1 readers need for a
 * float, into buf (HA_FD_BUFSIZE bytes of room); returns its length.
 * Non-finite values come out as "%g" prints them: "inf", "-inf", "nan",
 * "-nan". */
size_t ha_fd_format_dotted(double value, char *buf);

/* snprintf's "%.{precision}g" of value (1 <= precision <= 17), byte for
 * byte as glibc writes it (correctly rounded, exact ties to even, the
 * exponent form below 1e-4 and from 10^precision on, trailing zeros
 * dropped): for the text reports' columns.  Returns the length. */
size_t ha_fd_format_g(double value, int precision, char *buf);

/* snprintf's "%.{precision}f" of value (0 <= precision <= 17) where its
 * digits can be had here: a finite value whose last decimal lies within
 * its 17 leading digits and not above its first (|value| from 10^-P to
 * about 10^(16 - P)).  Returns the length, or 0 (buf undefined) for any
 * other value: the caller asks snprintf. */
size_t ha_fd_format_f(double value, int precision, char *buf);

/* The decimal digits of value, as "%" PRIu64 prints them, at buf (20
 * bytes of room: up to 8 of them may be written past shorter digits,
 * for the caller to overwrite), no NUL.  Returns the length. */
size_t ha_fd_format_uint(uint64_t value, char *buf);

/* ha_fd_format_uint written at p, inline for the values below 10^4 (a
 * head count, a budget) where bytes are stored low first: two pairs of
 * digits in 16-bit lanes, each split by 10 (b / 10 is b 103 / 2^10 for
 * b < 100) into one digit a byte, the leading zeros (low zero bytes)
 * shifted out; 4 bytes are written.  Returns the end of the digits. */
static inline char *ha_fd_put_uint(char *p, uint64_t value)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
	(defined(__GNUC__) || defined(__clang__))
	if (value < 10000) {
		uint32_t high = (uint32_t)value / 100;
		uint32_t x = high | ((uint32_t)value - high * 100) << 16;
		uint32_t t = ((x * 103) >> 10) & UINT32_C(0x000f000f);
		x = t | (x - t * 10) << 8;
		/* the leading zero digits are the low zero bytes (three at most:
		 * the bit at 24 stands for the last digit of 0) */
		unsigned zeros = (unsigned)__builtin_ctz(x | UINT32_C(1) << 24) & ~7u;
		x = (x >> zeros) | UINT32_C(0x30303030);
		memcpy(p, &x, 4);
		return p + 4 - zeros / 8;
	}
#endif
	return p + ha_fd_format_uint(value, p);
}

#endif
