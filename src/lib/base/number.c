/* The one grammar for numbers written as text (see number.h). */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

enum ha_status ha_parse_uint(const char *text, uint64_t min, uint64_t max,
                             uint64_t *out)
{
	if (!text || !out)
		return HA_EINVAL;
	if (!*text)
		return HA_EFORMAT;
	/* "0512" is 512 here but 330 to a YAML 1.1 reader (octal): a
	 * number two readers read two ways is refused. */
	if (text[0] == '0' && text[1])
		return HA_EFORMAT;
	uint64_t value = 0;
	int overflow = 0;
	/* Read every digit even past an overflow: "99...9x" is not a number
	 * at all, which says more than "too large". */
	for (const char *p = text; *p; p++) {
		if (!is_digit(*p))
			return HA_EFORMAT;
		unsigned digit = (unsigned)(*p - '0');
		if (value > (UINT64_MAX - digit) / 10)
			overflow = 1;
		else
			value = value * 10 + digit;
	}
	if (overflow || value < min || value > max)
		return HA_EINVAL;
	*out = value;
	return HA_OK;
}

/* [+-] (digits [. digits] | . digits) [(e|E) [+-] digits], whole text.
 * Checked here rather than left to strtod, which also reads "inf", "nan",
 * hexadecimal floats and leading white space. */
static int real_syntax(const char *s)
{
	size_t digits = 0;
	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && is_digit(s[1]))
		return 0; /* a leading zero: octal to YAML 1.1, as above */
	for (; is_digit(*s); s++)
		digits++;
	if (*s == '.')
		for (s++; is_digit(*s); s++)
			digits++;
	if (digits == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!is_digit(*s))
			return 0;
		while (is_digit(*s))
			s++;
	}
	return *s == '\0';
}

/* strtod in the "C" locale: with LC_NUMERIC of, say, de_DE strtod would
 * stop at the '.' of "0.5". */
static double c_strtod(const char *s, char **end)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return strtod(s, end);
	locale_t old = uselocale(c);
	double v = strtod(s, end);
	uselocale(old);
	freelocale(c);
	return v;
}

enum ha_status ha_parse_real(const char *text, double *out)
{
	if (!text || !out)
		return HA_EINVAL;
	if (strnlen(text, HA_NUMBER_MAX_LENGTH + 1) > HA_NUMBER_MAX_LENGTH ||
	    !real_syntax(text))
		return HA_EFORMAT;
	char *end;
	double value = c_strtod(text, &end);
	/* Underflow (ERANGE with a subnormal or 0) is the value meant;
	 * overflow leaves +-HUGE_VAL, refused. */
	if (end == text || *end != '\0')
		return HA_EFORMAT;
	if (!isfinite(value))
		return HA_EINVAL;
	*out = value;
	return HA_OK;
}
