/* headalloc — the output formats a report can be written in.
 *
 * Its own header, in the lowest layer, because the scenario reader names a
 * format (a scenario file's report.format) and readers sit below the
 * writers. */
#ifndef HEADALLOC_FORMAT_H
#define HEADALLOC_FORMAT_H

#include "export.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ha_report_format {
	HA_FORMAT_TEXT = 0, /* aligned lines for people */
	HA_FORMAT_YAML = 1, /* one YAML document; floats read back exactly */
	HA_FORMAT_JSON = 2  /* the YAML document's keys and structure in JSON;
	                       a value beyond a double (.inf, .nan) is null,
	                       with its exact log10_* beside it as in YAML */
};

/* The name of a report format: "text", "yaml" or "json" (never NULL). */
HA_API const char *ha_report_format_str(enum ha_report_format format);

/* Parse "text", "yaml" or "json" (exactly) into *out.  HA_EINVAL for anything
 * else or a NULL argument; then *out is untouched. */
HA_API enum ha_status ha_report_format_parse(const char *text,
                                             enum ha_report_format *out);

#ifdef __cplusplus
}
#endif
#endif
