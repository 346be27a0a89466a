/* libFuzzer target: the command line's number parsers.  A value they
 * accept must be in range, and a whole number must print back as the
 * digits it was read from (less leading zeros). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	uint64_t u;
	if (cli_parse_uint(text, 1, UINT64_C(9223372036854775807), &u)) {
		char back[32];
		snprintf(back, sizeof back, "%" PRIu64, u);
		const char *digits = text + strspn(text, "0");
		if (u < 1 || u > UINT64_C(9223372036854775807) || strcmp(back, digits) != 0)
			abort();
	}
	double d;
	if (cli_parse_real(text, &d) && !isfinite(d))
		abort();
	free(text);
	return 0;
}
