/* The report document: its format, its stream, its sticky failure; and
 * numbers for people, in the fixed precisions that keep text reports
 * reproducible across machines. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_events.h"
#include "report_internal.h"

enum ha_status ha_report_new(FILE *stream, enum ha_report_format format,
                             struct ha_report **out)
{
	if (out)
		*out = NULL;
	if (!stream || !out ||
	    (format != HA_FORMAT_TEXT && format != HA_FORMAT_YAML &&
	     format != HA_FORMAT_JSON))
		return HA_EINVAL;
	struct ha_report *r = calloc(1, sizeof *r);
	if (!r)
		return HA_ENOMEM;
	r->stream = stream;
	r->format = format;
	ha_error_init(&r->failure);
	if (format != HA_FORMAT_TEXT) {
		/* YAML and JSON: one writer, two syntaxes. */
		enum ha_status st = format == HA_FORMAT_JSON
			? ha_yaml_writer_new_json(stream, &r->yaml)
			: ha_yaml_writer_new(stream, &r->yaml);
		if (st != HA_OK) {
			free(r);
			return st;
		}
		ha_yaml_begin_map(r->yaml, 0);
		r->yaml_text = format == HA_FORMAT_YAML;
	}
	*out = r;
	return HA_OK;
}

enum ha_status ha_report_new_events(const struct ha_report_events *events,
                                    void *ctx, struct ha_report **out)
{
	if (out)
		*out = NULL;
	if (!events || !out || !events->begin || !events->end || !events->key ||
	    !events->string || !events->uint || !events->integer || !events->real ||
	    !events->boolean || !events->null)
		return HA_EINVAL;
	struct ha_report *r = calloc(1, sizeof *r);
	if (!r)
		return HA_ENOMEM;
	/* No stream: every section writes through the events (yaml_text 0,
	 * so no section formats text of its own). */
	r->format = HA_FORMAT_YAML;
	ha_error_init(&r->failure);
	enum ha_status st = yaml_writer_new_events(events, ctx, &r->yaml);
	if (st != HA_OK) {
		free(r);
		return st;
	}
	ha_yaml_begin_map(r->yaml, 0);
	*out = r;
	return HA_OK;
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

static void copy_failure(const struct ha_report *r, struct ha_error *err)
{
	if (err)
		*err = r->failure;
}

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
	copy_failure(r, err);
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
	if (!r || !req) {
		ha_fail(err, HA_EINVAL, "a report section needs a report and a request");
		return HA_EINVAL;
	}
	if (r->failure.status != HA_OK)
		copy_failure(r, err);
	else if (report_write_failed(r))
		report_fail(r, err, HA_EIO, "writing the report failed");
	return r->failure.status;
}

enum ha_status report_end(struct ha_report *r, struct ha_error *err)
{
	if (r->failure.status == HA_OK && report_write_failed(r))
		report_fail(r, err, HA_EIO, "writing the report failed");
	else if (r->failure.status != HA_OK)
		copy_failure(r, err);
	return r->failure.status;
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
