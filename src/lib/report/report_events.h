/* A report whose values go to callbacks (library-internal: the Python
 * extension builds its dicts from them, and the tests compare them with
 * the YAML report). */
#ifndef HEADALLOC_REPORT_EVENTS_H
#define HEADALLOC_REPORT_EVENTS_H

#include <stdint.h>

#include <headalloc/report.h>

/* The values of a report as events instead of text, for a front end
 * that builds its own objects (the Python package's dicts): the
 * document's maps and sequences, keys, and each scalar typed as the
 * report has it (a double as the double, never its text).  The events
 * are those of the YAML document, the document itself one map.  Each
 * callback returns 0 to go on, anything else to fail the report as a
 * failed write does (HA_EIO, "writing the report failed"): no event
 * follows. */
struct ha_report_events {
	int (*begin)(void *ctx, int map); /* a map (1) or a sequence (0) opens */
	int (*end)(void *ctx);            /* the innermost one closes */
	int (*key)(void *ctx, const char *key);
	int (*string)(void *ctx, const char *value);
	int (*uint)(void *ctx, uint64_t value);
	int (*real)(void *ctx, double value);
	int (*boolean)(void *ctx, int value);
	int (*null)(void *ctx);
};

/* Start a report whose values go to events (every callback required,
 * called on the calling thread with ctx) rather than to a stream; the
 * sections write to it as to a YAML report.  Errors as ha_report_new's. */
enum ha_status ha_report_new_events(const struct ha_report_events *events,
                                    void *ctx, struct ha_report **out);

#endif
