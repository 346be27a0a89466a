/* The command line's numbers: the library's one grammar (number.h). */
#include <headalloc/number.h>

#include "parse.h"

int cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	return ha_parse_uint(text, min, max, out) == HA_OK;
}

int cli_parse_real(const char *text, double *out)
{
	return ha_parse_real(text, out) == HA_OK;
}
