/* libFuzzer target: the one number grammar (headalloc/number.h).  Each
 * answer is checked against an independent reading of the same text:
 * strtoull for whole numbers, and for reals the way the command line read
 * them before the grammar was shared (only the characters of a decimal
 * float, then strtod must take the whole text); neither may start with a
 * zero followed by a digit (number.h: YAML 1.1 reads it as octal). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_uint(const char *text)
{
	const uint64_t max = UINT64_C(9223372036854775807);
	uint64_t u = 0;
	enum ha_status st = ha_parse_uint(text, 1, max, &u);

	/* digits, without a leading zero (YAML 1.1's octal; number.h) */
	int digits = *text && strspn(text, "0123456789") == strlen(text) &&
	             !(text[0] == '0' && text[1]);
	errno = 0;
	unsigned long long v = digits ? strtoull(text, NULL, 10) : 0;
	int in_range = digits && errno != ERANGE && v >= 1 && v <= max;
	if ((st == HA_OK) != in_range)
		abort();
	if (st == HA_OK && u != v)
		abort();
	if (st != HA_OK && st != (digits ? HA_EINVAL : HA_EFORMAT))
		abort();
	if (st == HA_OK) {
		/* It prints back as the digits it was read from. */
		char back[32];
		snprintf(back, sizeof back, "%" PRIu64, u);
		if (strcmp(back, text) != 0)
			abort();
	}
}

static void check_real(const char *text)
{
	double d = 0.0;
	enum ha_status st = ha_parse_real(text, &d);

	double v = 0.0;
	int ok = 0, number = 0;
	size_t n = strlen(text);
	const char *mantissa = text + (text[0] == '+' || text[0] == '-');
	int leading_zero = mantissa[0] == '0' && mantissa[1] >= '0' &&
	                   mantissa[1] <= '9';
	if (n > 0 && n <= HA_NUMBER_MAX_LENGTH && !leading_zero &&
	    strspn(text, "0123456789+-.eE") == n) {
		char *end;
		v = strtod(text, &end);
		number = end != text && *end == '\0';
		ok = number && isfinite(v);
	}
	if ((st == HA_OK) != ok)
		abort();
	if (st == HA_OK && memcmp(&d, &v, sizeof d) != 0)
		abort();
	if (st != HA_OK && st != (number ? HA_EINVAL : HA_EFORMAT))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_uint(text);
	check_real(text);
	free(text);
	return 0;
}
