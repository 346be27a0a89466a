/* The report document: its format, its stream, its sticky failure; and
 * numbers for people, in the fixed precisions that keep text reports
 * reproducible across machines. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* A report in format to stream, or (stream NULL) through events. */
static enum ha_status report_new(FILE *stream, enum ha_report_format format,
                                 const struct ha_report_events *events,
                                 void *ctx, struct ha_report **out)
{
	struct ha_report *r = calloc(1, sizeof *r);
	if (!r)
		return HA_ENOMEM;
	r->stream = stream;
	ha_error_init(&r->failure);
	/* YAML and JSON: one writer, two syntaxes (and the events a third). */
	enum ha_status st = HA_OK;
	if (events)
		st = yaml_writer_new_events(events, ctx, &r->yaml);
	else if (format == HA_FORMAT_JSON)
		st = ha_yaml_writer_new_json(stream, &r->yaml);
	else if (format == HA_FORMAT_YAML)
		st = ha_yaml_writer_new(stream, &r->yaml);
	if (st != HA_OK) {
		free(r);
		return st;
	}
	if (r->yaml)
		ha_yaml_begin_map(r->yaml, 0);
	/* Through events, no section formats text of its own. */
	r->yaml_text = stream && format == HA_FORMAT_YAML;
	*out = r;
	return HA_OK;
}

enum ha_status ha_report_new(FILE *stream, enum ha_report_format format,
                             struct ha_report **out)
{
	if (out)
		*out = NULL;
	if (!stream || !out ||
	    (format != HA_FORMAT_TEXT && format != HA_FORMAT_YAML &&
	     format != HA_FORMAT_JSON))
		return HA_EINVAL;
	return report_new(stream, format, NULL, NULL, out);
}

enum ha_status ha_report_new_events(const struct ha_report_events *events,
                                    void *ctx, struct ha_report **out)
{
	if (out)
		*out = NULL;
	if (!events || !out || !events->begin || !events->end || !events->key ||
	    !events->string || !events->uint || !events->real || !events->boolean ||
	    !events->null)
		return HA_EINVAL;
	return report_new(NULL, HA_FORMAT_YAML, events, ctx, out);
}

enum ha_status ha_report_end(struct ha_report *r)
{
	if (!r)
		return HA_EINVAL;
	if (r->failure.status != HA_OK)
		return r->failure.status;
	enum ha_status st = HA_OK;
	if (r->yaml) {
		ha_yaml_end_map(r->yaml);
		st = ha_yaml_writer_end(r->yaml);
	} else if (fflush(r->stream) != 0 || ferror(r->stream)) {
		st = HA_EIO;
	}
	if (st != HA_OK)
		report_fail(r, NULL, st, "writing the report failed");
	return r->failure.status;
}

void ha_report_free(struct ha_report *r)
{
	if (!r)
		return;
	ha_yaml_writer_free(r->yaml);
	free(r);
}

/* ---- the life of a section ----------------------------------------------- */

enum ha_status report_fail(struct ha_report *r, struct ha_error *err,
                           enum ha_status st, const char *fmt, ...)
{
	if (r->failure.status == HA_OK) {
		va_list ap;
		va_start(ap, fmt);
		r->failure.status = st;
		if (vsnprintf(r->failure.message, sizeof r->failure.message, fmt,
		              ap) < 0)
			r->failure.message[0] = '\0';
		va_end(ap);
	}
	if (err)
		*err = r->failure;
	return r->failure.status;
}

int report_write_failed(const struct ha_report *r)
{
	if (r->yaml)
		return ha_yaml_writer_status(r->yaml) != HA_OK;
	return ferror(r->stream) != 0;
}

enum ha_status report_start(struct ha_report *r, const void *req,
                            struct ha_error *err)
{
	if (!r || !req)
		return ha_fail(err, HA_EINVAL, "a report section needs a report and a request");
	return report_end(r, err);
}

enum ha_status report_end(struct ha_report *r, struct ha_error *err)
{
	/* report_fail keeps an earlier failure and copies it to err. */
	if (r->failure.status != HA_OK || report_write_failed(r))
		return report_fail(r, err, HA_EIO, "writing the report failed");
	return HA_OK;
}

/* ---- numbers for people ----------------------------------------------------- */

double report_log10(double log_value)
{
	return log_value / log(10.0);
}

const char *report_human(double v, char buf[32])
{
	if (isinf(v))
		snprintf(buf, 32, "inf");
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}
