/* The one number grammar (headalloc/number.h): examples at every edge, and
 * every short string over the characters that matter compared with an
 * independent statement of the grammar (a POSIX regular expression, and
 * strtod/strtoull for the values). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "base/number.h"

#define MAX UINT64_C(9223372036854775807)

static enum ha_status uint_status(const char *text, uint64_t *out)
{
	*out = 12345;
	return ha_parse_uint(text, 1, MAX, out);
}

Test(number, uint_accepts_decimal_digits)
{
	uint64_t v;
	cr_assert_eq(uint_status("512", &v), HA_OK);
	cr_expect_eq(v, 512);
	/* a leading zero is octal to a YAML 1.1 reader: refused */
	cr_expect_eq(uint_status("007", &v), HA_EFORMAT);
	cr_expect_eq(uint_status("0512", &v), HA_EFORMAT);
	cr_expect_eq(uint_status("00", &v), HA_EFORMAT);
	cr_assert_eq(uint_status("9223372036854775807", &v), HA_OK);
	cr_expect_eq(v, MAX);
	cr_assert_eq(ha_parse_uint("0", 0, 0, &v), HA_OK);
	cr_expect_eq(v, 0);
	cr_assert_eq(ha_parse_uint("18446744073709551615", 0, UINT64_MAX, &v),
	             HA_OK);
	cr_expect_eq(v, UINT64_MAX);
}

Test(number, uint_refuses_what_is_not_digits)
{
	const char *bad[] = {"",    "+1",  "-1",  " 1",  "1 ",  "1.0",
	                     "1e3", "0x10", "1_000", "1,000", "\xef\xbc\x91",
	                     "1\n"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		uint64_t v;
		cr_expect_eq(uint_status(bad[i], &v), HA_EFORMAT, "'%s'", bad[i]);
		cr_expect_eq(v, 12345, "'%s' wrote its output", bad[i]);
	}
}

Test(number, uint_refuses_out_of_range)
{
	uint64_t v;
	cr_expect_eq(uint_status("0", &v), HA_EINVAL);
	cr_expect_eq(uint_status("9223372036854775808", &v), HA_EINVAL);
	cr_expect_eq(ha_parse_uint("18446744073709551616", 0, UINT64_MAX, &v),
	             HA_EINVAL);
	cr_expect_eq(uint_status("99999999999999999999999", &v), HA_EINVAL);
	cr_expect_eq(ha_parse_uint("9", 10, 20, &v), HA_EINVAL);
	cr_expect_eq(ha_parse_uint("21", 10, 20, &v), HA_EINVAL);
	cr_expect_eq(v, 12345);
	/* Digits then junk past an overflow: not a number at all. */
	cr_expect_eq(uint_status("99999999999999999999999x", &v), HA_EFORMAT);
	cr_expect_eq(ha_parse_uint(NULL, 0, 1, &v), HA_EINVAL);
	cr_expect_eq(ha_parse_uint("1", 0, 1, NULL), HA_EINVAL);
}

Test(number, uint_round_trips)
{
	/* Every power of two and its neighbours, printed and read back. */
	for (int b = 0; b < 64; b++)
		for (int d = -1; d <= 1; d++) {
			uint64_t x = (UINT64_C(1) << b) + (uint64_t)(int64_t)d, v;
			char text[32];
			snprintf(text, sizeof text, "%" PRIu64, x);
			cr_assert_eq(ha_parse_uint(text, 0, UINT64_MAX, &v), HA_OK,
			             "%s", text);
			cr_assert_eq(v, x, "%s", text);
		}
}

static enum ha_status real_status(const char *text, double *out)
{
	*out = -12345.0;
	return ha_parse_real(text, out);
}

Test(number, real_accepts_finite_decimals)
{
	const struct {
		const char *text;
		double value;
	} good[] = {{"2", 2.0},         {"0.5", 0.5},   {".5", 0.5},
	            {"1.", 1.0},        {"-0.5", -0.5}, {"+2E3", 2000.0},
	            {"1e8", 1e8},       {"3.3e9", 3.3e9}, {"1e-3", 1e-3},
	            {"1.e5", 1e5},      {"0.75", 0.75}, {"1e300", 1e300},
	            {"-0e5", 0.0},
	            {"1.7976931348623157e308", 1.7976931348623157e308}};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		double v;
		cr_assert_eq(real_status(good[i].text, &v), HA_OK, "'%s'",
		             good[i].text);
		cr_expect_eq(v, good[i].value, "'%s' read as %.17g", good[i].text,
		             v);
	}
	/* Below the smallest double: the nearest one, 0 or a subnormal. */
	double v;
	cr_assert_eq(real_status("1e-400", &v), HA_OK);
	cr_expect_eq(v, 0.0);
	cr_assert_eq(real_status("4e-320", &v), HA_OK);
	cr_expect(v > 0.0 && v < 1e-300);
}

Test(number, real_refuses_the_rest)
{
	const char *bad[] = {"",     ".",    "+",    "-",     "e5",   ".e5",
	                     "1e",   "1e+",  "1.2.3", "1e5e5", "++1",  "+-1",
	                     "inf",  "-inf", "nan",  "NaN",   "infinity",
	                     "0x10", "0x1p3", " 1",  "1 ",    "1\n",  "1,5",
	                     "1_0",  ".inf", "1d5",  "\xef\xbc\x91", "007.5", "00.5",
	                     "-01e3"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		double v;
		cr_expect_eq(real_status(bad[i], &v), HA_EFORMAT, "'%s'", bad[i]);
		cr_expect_eq(v, -12345.0, "'%s' wrote its output", bad[i]);
	}
	double v;
	cr_expect_eq(real_status("1e400", &v), HA_EINVAL);
	cr_expect_eq(real_status("-1e309", &v), HA_EINVAL);
	cr_expect_eq(v, -12345.0);
	cr_expect_eq(ha_parse_real(NULL, &v), HA_EINVAL);
	cr_expect_eq(ha_parse_real("1", NULL), HA_EINVAL);
}

Test(number, real_length_limit)
{
	char text[HA_NUMBER_MAX_LENGTH + 2];
	/* "1" and HA_NUMBER_MAX_LENGTH - 1 zeros: 1e63, exactly at the limit */
	text[0] = '1';
	memset(text + 1, '0', HA_NUMBER_MAX_LENGTH - 1);
	text[HA_NUMBER_MAX_LENGTH] = '\0';
	double v;
	cr_assert_eq(real_status(text, &v), HA_OK);
	cr_expect_eq(v, 1e63);
	/* one more zero is over it */
	text[HA_NUMBER_MAX_LENGTH] = '0';
	text[HA_NUMBER_MAX_LENGTH + 1] = '\0';
	cr_expect_eq(real_status(text, &v), HA_EFORMAT);
	cr_expect_eq(v, -12345.0);
}

/* Every string of up to 5 characters over the alphabet below, against the
 * grammar written as a regular expression and the values of strtod and
 * strtoull. */
Test(number, every_short_string_against_a_regex)
{
	static const char alphabet[] = "019+-.eEx ";
	const size_t k = sizeof alphabet - 1;
	regex_t real_re, uint_re;
	cr_assert_eq(regcomp(&real_re,
	                     "^[+-]?(([1-9][0-9]*|0)(\\.[0-9]*)?|\\.[0-9]+)"
	                     "([eE][+-]?[0-9]+)?$",
	                     REG_EXTENDED | REG_NOSUB),
	             0);
	cr_assert_eq(regcomp(&uint_re, "^([1-9][0-9]*|0)$", REG_EXTENDED | REG_NOSUB), 0);
	size_t reals = 0, uints = 0;
	for (size_t len = 0; len <= 5; len++) {
		size_t total = 1;
		for (size_t i = 0; i < len; i++)
			total *= k;
		for (size_t n = 0; n < total; n++) {
			char text[8];
			size_t m = n;
			for (size_t i = 0; i < len; i++, m /= k)
				text[i] = alphabet[m % k];
			text[len] = '\0';

			double d;
			int is_real = regexec(&real_re, text, 0, NULL, 0) == 0;
			double v = is_real ? strtod(text, NULL) : 0.0;
			enum ha_status st = real_status(text, &d);
			cr_assert_eq(st, !is_real ? HA_EFORMAT
			                 : isfinite(v) ? HA_OK : HA_EINVAL,
			             "'%s'", text);
			if (st == HA_OK) {
				cr_assert_eq(d, v, "'%s'", text);
				reals++;
			}

			uint64_t u;
			int is_uint = regexec(&uint_re, text, 0, NULL, 0) == 0;
			st = ha_parse_uint(text, 0, UINT64_MAX, &u);
			cr_assert_eq(st, is_uint ? HA_OK : HA_EFORMAT, "'%s'", text);
			if (is_uint) {
				cr_assert_eq(u, strtoull(text, NULL, 10), "'%s'", text);
				uints++;
			}
		}
	}
	regfree(&real_re);
	regfree(&uint_re);
	/* The enumeration did reach both kinds of numbers. */
	cr_expect_gt(reals, 1000);
	cr_expect_gt(uints, 50);
}
