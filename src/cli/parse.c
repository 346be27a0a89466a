/* The command line's numbers: the library's one grammar (number.h). */
#include <string.h>

#include "base/number.h"

#include "parse.h"

int cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	return ha_parse_uint(text, min, max, out) == HA_OK;
}

int cli_parse_real(const char *text, double *out)
{
	return ha_parse_real(text, out) == HA_OK;
}

int cli_parse_threads(const char *text, size_t *threads)
{
	uint64_t n;
	if (strcmp(text, "auto") == 0) {
		*threads = CLI_THREADS_AUTO;
		return 1;
	}
	if (!cli_parse_uint(text, 1, CLI_THREADS_MAX, &n))
		return 0;
	*threads = (size_t)n;
	return 1;
}
