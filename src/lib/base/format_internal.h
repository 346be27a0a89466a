/* The names of the report formats, read and written (library-internal:
 * the CLI and scenario files name a format; callers pass the enum). */
#ifndef HEADALLOC_FORMAT_INTERNAL_H
#define HEADALLOC_FORMAT_INTERNAL_H

#include <headalloc/format.h>
#include <headalloc/status.h>

/* The name of a report format: "text", "yaml" or "json" (never NULL). */
const char *ha_report_format_str(enum ha_report_format format);

/* Parse "text", "yaml" or "json" (exactly) into *out.  HA_EINVAL for anything
 * else or a NULL argument; then *out is untouched. */
enum ha_status ha_report_format_parse(const char *text,
                                      enum ha_report_format *out);

#endif
