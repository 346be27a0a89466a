/* The one writer of every machine-readable report, error-sticky, in two
 * syntaxes of the same events (maps, sequences, keys, scalars), or as the
 * events themselves:
 *
 *   YAML    a thin layer over libyaml's emitter;
 *   JSON    written here, event by event, straight to the stream (RFC 8259);
 *   events  each handed to a caller's callbacks (ha_report_new_events),
 *           scalars typed, for a front end that builds its own objects.
 *
 * JSON is written by hand rather than through json-c: json-c builds a
 * tree of objects and prints it whole, and a sweep of a million rows
 * must stream in constant memory; the one thing json-c would add, string
 * escaping, is the few lines of json_string() below. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "yaml_writer.h"

/* JSON: the open containers, innermost last. */
#define JSON_MAX_DEPTH 64

struct json_frame {
	unsigned char map;    /* a map (else a sequence) */
	unsigned char flow;   /* on one line */
	size_t count;         /* items (keys, in a map) so far */
};

struct ha_yaml_writer {
	yaml_emitter_t emitter;
	FILE *stream;
	enum ha_status status;
	int json;                                /* the JSON syntax */
	const struct ha_report_events *events;   /* events: the callbacks */
	void *events_ctx;
	size_t depth;                            /* JSON: open containers */
	int after_key;                           /* JSON: a key awaits its value */
	size_t top_values;                       /* JSON: values outside any container */
	struct json_frame frames[JSON_MAX_DEPTH];
};

static void emit(struct ha_yaml_writer *w, yaml_event_t *event)
{
	if (w->status != HA_OK) {
		yaml_event_delete(event);
		return;
	}
	/* yaml_emitter_emit takes ownership of the event, even on failure. */
	if (!yaml_emitter_emit(&w->emitter, event))
		w->status = HA_EIO;
}

static int write_to_stream(void *data, unsigned char *buffer, size_t size)
{
	FILE *stream = data;
	return fwrite(buffer, 1, size, stream) == size;
}

/* A writer in no syntax yet, to a stream or (stream NULL) to events. */
static enum ha_status writer_new(FILE *stream, int json,
                                 const struct ha_report_events *events,
                                 void *ctx, struct ha_yaml_writer **out)
{
	if (!out)
		return HA_EINVAL;
	*out = NULL;
	if (!stream && !events)
		return HA_EINVAL;
	struct ha_yaml_writer *w = calloc(1, sizeof *w);
	if (!w)
		return HA_ENOMEM;
	w->stream = stream;
	w->json = json;
	w->events = events;
	w->events_ctx = ctx;
	*out = w;
	return HA_OK;
}

enum ha_status ha_yaml_writer_new_json(FILE *stream, struct ha_yaml_writer **out)
{
	return writer_new(stream, 1, NULL, NULL, out);
}

enum ha_status yaml_writer_new_events(const struct ha_report_events *events,
                                      void *ctx, struct ha_yaml_writer **out)
{
	return writer_new(NULL, 0, events, ctx, out);
}

enum ha_status ha_yaml_writer_new(FILE *stream, struct ha_yaml_writer **out)
{
	enum ha_status st = writer_new(stream, 0, NULL, NULL, out);
	if (st != HA_OK)
		return st;
	struct ha_yaml_writer *w = *out;
	if (!yaml_emitter_initialize(&w->emitter)) {
		free(w);
		*out = NULL;
		return HA_ENOMEM;
	}
	yaml_emitter_set_output(&w->emitter, write_to_stream, stream);
	yaml_emitter_set_unicode(&w->emitter, 1);
	yaml_emitter_set_width(&w->emitter, -1);

	/* Neither event allocates (no version, no tags) nor can fail. */
	yaml_event_t event;
	yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING);
	emit(w, &event);
	yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 0);
	emit(w, &event);
	return HA_OK;
}

enum ha_status ha_yaml_writer_end(struct ha_yaml_writer *w)
{
	if (!w)
		return HA_EINVAL;
	if (w->events || w->status != HA_OK)
		return w->status;
	if (w->json) {
		if (w->depth != 0 || w->after_key)
			return w->status = HA_EINVAL;
		if (fputc('\n', w->stream) == EOF)
			w->status = HA_EIO;
	} else {
		yaml_event_t event;
		yaml_document_end_event_initialize(&event, 1);
		emit(w, &event);
		yaml_stream_end_event_initialize(&event);
		emit(w, &event);
		if (w->status == HA_OK && !yaml_emitter_flush(&w->emitter))
			w->status = HA_EIO;
	}
	if (w->status == HA_OK && (fflush(w->stream) != 0 || ferror(w->stream)))
		w->status = HA_EIO;
	return w->status;
}

void ha_yaml_writer_free(struct ha_yaml_writer *w)
{
	if (!w)
		return;
	if (!w->json && !w->events)
		yaml_emitter_delete(&w->emitter);
	free(w);
}

enum ha_status ha_yaml_writer_status(const struct ha_yaml_writer *w)
{
	return w ? w->status : HA_EINVAL;
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_put(struct ha_yaml_writer *w, const char *text, size_t length)
{
	if (w->status == HA_OK && fwrite(text, 1, length, w->stream) != length)
		w->status = HA_EIO;
}

/* A new line and the indentation of the current depth. */
static void json_newline(struct ha_yaml_writer *w)
{
	/* runs of spaces by fwrite, not fprintf's "%*s": a sweep's table
	 * writes one newline a row, and a format string parsed per row
	 * shows in its time */
	static const char spaces[] = "                                ";
	json_put(w, "\n", 1);
	for (size_t n = 2 * w->depth; n > 0;) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		json_put(w, spaces, k);
		n -= k;
	}
}

/* A string, escaped as RFC 8259, section 7 asks: '"', '\\' and the
 * control characters; every other byte (UTF-8 included) as it is. */
static void json_string(struct ha_yaml_writer *w, const char *text)
{
	char buf[8];
	const char *run = text;
	json_put(w, "\"", 1);
	for (const char *p = text; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		json_put(w, run, (size_t)(p - run));
		switch (c) {
		case '"': json_put(w, "\\\"", 2); break;
		case '\\': json_put(w, "\\\\", 2); break;
		case '\n': json_put(w, "\\n", 2); break;
		case '\t': json_put(w, "\\t", 2); break;
		case '\r': json_put(w, "\\r", 2); break;
		default:
			snprintf(buf, sizeof buf, "\\u%04x", c);
			json_put(w, buf, 6);
		}
		run = p + 1;
	}
	json_put(w, run, strlen(run));
	json_put(w, "\"", 1);
}

/* Before an item of a sequence or a key of a map: the comma after the
 * previous one, and its line.  A value after its key needs neither. */
static void json_before(struct ha_yaml_writer *w, int key)
{
	if (w->status != HA_OK)
		return;
	if (w->depth == 0) {
		if (w->top_values++ > 0 || key)
			w->status = HA_EINVAL; /* one top value, no key outside a map */
		return;
	}
	struct json_frame *f = &w->frames[w->depth - 1];
	if (f->map && !key) {
		if (!w->after_key)
			w->status = HA_EINVAL; /* a value in a map without its key */
		w->after_key = 0;
		return;
	}
	if (!f->map && key) {
		w->status = HA_EINVAL;
		return;
	}
	if (f->count++ > 0)
		json_put(w, ",", 1);
	if (f->flow) {
		if (f->count > 1)
			json_put(w, " ", 1);
	} else {
		json_newline(w);
	}
}

/* ---- the events ----------------------------------------------------------- */

/* An event handed to the callbacks: failed != 0 fails the writer.  Every
 * writer function below first asks whether it is an events writer. */
static int handed(struct ha_yaml_writer *w, int failed)
{
	if (failed && w->status == HA_OK)
		w->status = HA_EIO;
	return 1;
}

#define EVENT(w, call) \
	((w)->events && ((w)->status != HA_OK || handed((w), (w)->events->call)))

/* A map (map != 0) or a sequence opens; flow != 0 puts it on one line. */
static void open_container(struct ha_yaml_writer *w, int map, int flow)
{
	if (EVENT(w, begin(w->events_ctx, map)) || w->status != HA_OK)
		return;
	if (w->json) {
		json_before(w, 0);
		if (w->status == HA_OK && w->depth == JSON_MAX_DEPTH)
			w->status = HA_EINVAL;
		if (w->status != HA_OK)
			return;
		/* Inside a flow container everything is on its line. */
		int inner_flow = flow || (w->depth > 0 && w->frames[w->depth - 1].flow);
		w->frames[w->depth++] = (struct json_frame){(unsigned char)map,
		                                            (unsigned char)inner_flow, 0};
		json_put(w, map ? "{" : "[", 1);
		return;
	}
	yaml_event_t event;
	if (map)
		yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
		        flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	else
		yaml_sequence_start_event_initialize(&event, NULL, NULL, 1,
		        flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	emit(w, &event);
}

static void close_container(struct ha_yaml_writer *w, int map)
{
	if (EVENT(w, end(w->events_ctx)) || w->status != HA_OK)
		return;
	if (w->json) {
		if (w->depth == 0 || w->frames[w->depth - 1].map != map || w->after_key) {
			w->status = HA_EINVAL;
			return;
		}
		struct json_frame f = w->frames[--w->depth];
		if (!f.flow && f.count > 0)
			json_newline(w);
		json_put(w, map ? "}" : "]", 1);
		return;
	}
	yaml_event_t event;
	if (map)
		yaml_mapping_end_event_initialize(&event);
	else
		yaml_sequence_end_event_initialize(&event);
	emit(w, &event);
}

void ha_yaml_begin_map(struct ha_yaml_writer *w, int flow)
{
	open_container(w, 1, flow);
}

void ha_yaml_end_map(struct ha_yaml_writer *w)
{
	close_container(w, 1);
}

void ha_yaml_begin_seq(struct ha_yaml_writer *w, int flow)
{
	open_container(w, 0, flow);
}

void ha_yaml_end_seq(struct ha_yaml_writer *w)
{
	close_container(w, 0);
}

/* plain != 0: a plain scalar (numbers, booleans, .inf); otherwise a string
 * that the emitter quotes whenever a plain one would read back differently. */
static void scalar(struct ha_yaml_writer *w, const char *text, int plain)
{
	yaml_event_t event;
	if (w->status != HA_OK)
		return;
	if (!yaml_scalar_event_initialize(&event, NULL, NULL,
	                                  (yaml_char_t *)(uintptr_t)text,
	                                  (int)strlen(text), plain, !plain,
	                                  plain ? YAML_PLAIN_SCALAR_STYLE
	                                        : YAML_ANY_SCALAR_STYLE)) {
		w->status = HA_ENOMEM;
		return;
	}
	emit(w, &event);
}

/* A number, a boolean or null, in either syntax. */
static void plain_scalar(struct ha_yaml_writer *w, const char *text)
{
	if (w->json) {
		json_before(w, 0);
		json_put(w, text, strlen(text)); /* a number, true, false or null as it is */
	} else {
		scalar(w, text, 1);
	}
}

void ha_yaml_key(struct ha_yaml_writer *w, const char *key)
{
	if (EVENT(w, key(w->events_ctx, key)))
		return;
	if (w->json) {
		json_before(w, 1);
		json_string(w, key);
		json_put(w, ": ", 2);
		if (w->status == HA_OK)
			w->after_key = 1;
		return;
	}
	scalar(w, key, 1);
}

/* 1 if a plain scalar reads back as this same string in YAML 1.1 and 1.2:
 * an identifier-like word that is not a boolean or null. */
static int safe_plain(const char *s)
{
	static const char *const reserved[] = {
		"true", "false", "yes", "no", "on", "off", "y", "n", "null", NULL,
	};
	if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && *s != '_')
		return 0;
	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	              "0123456789_-./") != strlen(s))
		return 0;
	for (size_t i = 0; reserved[i]; i++)
		if (strcasecmp(s, reserved[i]) == 0)
			return 0;
	return 1;
}

void ha_yaml_string(struct ha_yaml_writer *w, const char *value)
{
	if (EVENT(w, string(w->events_ctx, value)))
		return;
	if (w->json) {
		json_before(w, 0);
		json_string(w, value);
		return;
	}
	scalar(w, value, safe_plain(value));
}

void ha_yaml_uint(struct ha_yaml_writer *w, uint64_t value)
{
	if (EVENT(w, uint(w->events_ctx, value)))
		return;
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, value);
	plain_scalar(w, buf);
}

const char *ha_yaml_double_text(double value, char buf[32])
{
	*yaml_flat_double(buf, value) = '\0';
	return buf;
}

/* JSON has no infinity and no NaN: null stands for them (the reports
 * write the exact log10_* of a value beyond a double beside it). */
void ha_yaml_double(struct ha_yaml_writer *w, double value)
{
	if (EVENT(w, real(w->events_ctx, value)))
		return;
	char buf[32];
	if (w->json && !isfinite(value))
		plain_scalar(w, "null");
	else
		plain_scalar(w, ha_yaml_double_text(value, buf));
}

void yaml_writer_raw(struct ha_yaml_writer *w, const char *text, size_t length)
{
	if (w->status != HA_OK)
		return;
	if (w->json || w->events) {
		w->status = HA_EINVAL; /* YAML text has no place in JSON */
		return;
	}
	if (!yaml_emitter_flush(&w->emitter) ||
	    fwrite(text, 1, length, w->stream) != length)
		w->status = HA_EIO;
}

void ha_yaml_bool(struct ha_yaml_writer *w, int value)
{
	if (EVENT(w, boolean(w->events_ctx, value)))
		return;
	plain_scalar(w, value ? "true" : "false");
}

void ha_yaml_null(struct ha_yaml_writer *w)
{
	if (EVENT(w, null(w->events_ctx)))
		return;
	plain_scalar(w, "null");
}

char *ha_format_double(double value, char buf[32])
{
	if (isnan(value))
		strcpy(buf, "nan");
	else
		ha_fd_format_dotted(value, buf);
	return buf;
}

/* ha_yaml_key_string, _uint, _double and _bool: the key, then the value. */
#define KEY_VALUE(kind, type)                                                  \
	void ha_yaml_key_##kind(struct ha_yaml_writer *w, const char *key,     \
	                        type value)                                    \
	{                                                                      \
		ha_yaml_key(w, key);                                           \
		ha_yaml_##kind(w, value);                                      \
	}

KEY_VALUE(string, const char *)
KEY_VALUE(uint, uint64_t)
KEY_VALUE(double, double)
KEY_VALUE(bool, int)

int yaml_key_defined(struct ha_yaml_writer *w, const char *key, int defined)
{
	ha_yaml_key(w, key);
	if (!defined)
		ha_yaml_null(w);
	return defined;
}

void yaml_maybe(struct ha_yaml_writer *w, const char *key, int defined, double value)
{
	if (yaml_key_defined(w, key, defined))
		ha_yaml_double(w, value);
}

void yaml_maybe_uint(struct ha_yaml_writer *w, const char *key, int defined,
                     uint64_t value)
{
	if (yaml_key_defined(w, key, defined))
		ha_yaml_uint(w, value);
}

void ha_yaml_key_map(struct ha_yaml_writer *w, const char *key, int flow)
{
	if (key)
		ha_yaml_key(w, key);
	ha_yaml_begin_map(w, flow);
}

void ha_yaml_key_seq(struct ha_yaml_writer *w, const char *key, int flow)
{
	if (key)
		ha_yaml_key(w, key);
	ha_yaml_begin_seq(w, flow);
}
