/* The names of the report formats (format.h). */
#include <string.h>

#include <headalloc/format.h>
#include "base/format_internal.h"

const char *ha_report_format_str(enum ha_report_format format)
{
	return format == HA_FORMAT_YAML ? "yaml"
	     : format == HA_FORMAT_JSON ? "json" : "text";
}

enum ha_status ha_report_format_parse(const char *text,
                                      enum ha_report_format *out)
{
	if (!text || !out)
		return HA_EINVAL;
	if (strcmp(text, "text") == 0)
		*out = HA_FORMAT_TEXT;
	else if (strcmp(text, "yaml") == 0)
		*out = HA_FORMAT_YAML;
	else if (strcmp(text, "json") == 0)
		*out = HA_FORMAT_JSON;
	else
		return HA_EINVAL;
	return HA_OK;
}
