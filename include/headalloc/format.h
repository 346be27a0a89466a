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

#ifdef __cplusplus
}
#endif
#endif
