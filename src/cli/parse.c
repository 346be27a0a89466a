#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!text || !*text)
		return 0;
	uint64_t value = 0;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		unsigned digit = (unsigned)(*p - '0');
		if (value > (UINT64_MAX - digit) / 10)
			return 0;
		value = value * 10 + digit;
	}
	if (value < min || value > max)
		return 0;
	*out = value;
	return 1;
}

int cli_parse_real(const char *text, double *out)
{
	if (!text || !*text)
		return 0;
	/* Only the characters of a decimal float: this keeps out strtod's
	 * hex floats, "inf", "nan" and leading white space. */
	if (strspn(text, "0123456789+-.eE") != strlen(text))
		return 0;
	char *end;
	double value = strtod(text, &end);
	/* ERANGE on underflow leaves the nearest double (a subnormal or 0),
	 * which is the value meant; on overflow it leaves inf, rejected. */
	if (end == text || *end != '\0' || !isfinite(value))
		return 0;
	*out = value;
	return 1;
}
