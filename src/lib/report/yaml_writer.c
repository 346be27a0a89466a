/* A thin, error-sticky layer over libyaml's emitter. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include <headalloc/yaml_writer.h>

#include "format_double.h"

struct ha_yaml_writer {
	yaml_emitter_t emitter;
	FILE *stream;
	enum ha_status status;
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

enum ha_status ha_yaml_writer_new(FILE *stream, struct ha_yaml_writer **out)
{
	if (!out)
		return HA_EINVAL;
	*out = NULL;
	if (!stream)
		return HA_EINVAL;
	struct ha_yaml_writer *w = calloc(1, sizeof *w);
	if (!w)
		return HA_ENOMEM;
	if (!yaml_emitter_initialize(&w->emitter)) {
		free(w);
		return HA_ENOMEM;
	}
	w->stream = stream;
	yaml_emitter_set_output(&w->emitter, write_to_stream, stream);
	yaml_emitter_set_unicode(&w->emitter, 1);
	yaml_emitter_set_width(&w->emitter, -1);

	yaml_event_t event;
	if (!yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING))
		w->status = HA_ENOMEM;
	else
		emit(w, &event);
	if (w->status == HA_OK) {
		if (!yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 0))
			w->status = HA_ENOMEM;
		else
			emit(w, &event);
	}
	*out = w;
	return HA_OK;
}

enum ha_status ha_yaml_writer_end(struct ha_yaml_writer *w)
{
	if (!w)
		return HA_EINVAL;
	yaml_event_t event;
	if (w->status == HA_OK) {
		yaml_document_end_event_initialize(&event, 1);
		emit(w, &event);
	}
	if (w->status == HA_OK) {
		yaml_stream_end_event_initialize(&event);
		emit(w, &event);
	}
	if (w->status == HA_OK && !yaml_emitter_flush(&w->emitter))
		w->status = HA_EIO;
	if (w->status == HA_OK && (fflush(w->stream) != 0 || ferror(w->stream)))
		w->status = HA_EIO;
	return w->status;
}

void ha_yaml_writer_free(struct ha_yaml_writer *w)
{
	if (!w)
		return;
	yaml_emitter_delete(&w->emitter);
	free(w);
}

enum ha_status ha_yaml_writer_status(const struct ha_yaml_writer *w)
{
	return w ? w->status : HA_EINVAL;
}

static yaml_char_t *ustr(const char *s)
{
	return (yaml_char_t *)(uintptr_t)s;
}

void ha_yaml_begin_map(struct ha_yaml_writer *w, int flow)
{
	yaml_event_t event;
	if (w->status != HA_OK)
		return;
	yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
	        flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	emit(w, &event);
}

void ha_yaml_end_map(struct ha_yaml_writer *w)
{
	yaml_event_t event;
	if (w->status != HA_OK)
		return;
	yaml_mapping_end_event_initialize(&event);
	emit(w, &event);
}

void ha_yaml_begin_seq(struct ha_yaml_writer *w, int flow)
{
	yaml_event_t event;
	if (w->status != HA_OK)
		return;
	yaml_sequence_start_event_initialize(&event, NULL, NULL, 1,
	        flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	emit(w, &event);
}

void ha_yaml_end_seq(struct ha_yaml_writer *w)
{
	yaml_event_t event;
	if (w->status != HA_OK)
		return;
	yaml_sequence_end_event_initialize(&event);
	emit(w, &event);
}

/* plain != 0: a plain scalar (numbers, booleans, .inf); otherwise a string
 * that the emitter quotes whenever a plain one would read back differently. */
static void scalar(struct ha_yaml_writer *w, const char *text, int plain)
{
	yaml_event_t event;
	if (w->status != HA_OK)
		return;
	if (!yaml_scalar_event_initialize(&event, NULL, NULL, ustr(text),
	                                  (int)strlen(text), plain, !plain,
	                                  plain ? YAML_PLAIN_SCALAR_STYLE
	                                        : YAML_ANY_SCALAR_STYLE)) {
		w->status = HA_ENOMEM;
		return;
	}
	emit(w, &event);
}

void ha_yaml_key(struct ha_yaml_writer *w, const char *key)
{
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
	scalar(w, value, safe_plain(value));
}

void ha_yaml_uint(struct ha_yaml_writer *w, uint64_t value)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, value);
	scalar(w, buf, 1);
}

void ha_yaml_int(struct ha_yaml_writer *w, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, value);
	scalar(w, buf, 1);
}

const char *ha_yaml_double_text(double value, char buf[32])
{
	if (isnan(value))
		return ".nan";
	if (isinf(value))
		return value > 0 ? ".inf" : "-.inf";
	return ha_format_double(value, buf);
}

void ha_yaml_double(struct ha_yaml_writer *w, double value)
{
	char buf[32];
	scalar(w, ha_yaml_double_text(value, buf), 1);
}

void ha_yaml_raw(struct ha_yaml_writer *w, const char *text, size_t length)
{
	if (w->status != HA_OK)
		return;
	if (!yaml_emitter_flush(&w->emitter) ||
	    fwrite(text, 1, length, w->stream) != length)
		w->status = HA_EIO;
}

void ha_yaml_bool(struct ha_yaml_writer *w, int value)
{
	scalar(w, value ? "true" : "false", 1);
}

void ha_yaml_null(struct ha_yaml_writer *w)
{
	scalar(w, "null", 1);
}

char *ha_format_double(double value, char buf[32])
{
	if (isnan(value)) {
		strcpy(buf, "nan");
		return buf;
	}
	if (isinf(value)) {
		strcpy(buf, value > 0 ? "inf" : "-inf");
		return buf;
	}
	/* The shortest of "%.15g", "%.16g", "%.17g" that reads back exactly
	 * (16 first, then 15 if that reads back too, else 17), printed
	 * without snprintf and checked without strtod: see format_double.c. */
	size_t len = ha_fd_format(value, buf);
	/* YAML 1.1 readers (PyYAML) take a float only with a dot in the
	 * mantissa: write 1.0e+08 and 3.0, never 1e+08 or 3. */
	if (!memchr(buf, '.', len)) {
		char *exponent = memchr(buf, 'e', len);
		size_t at = exponent ? (size_t)(exponent - buf) : len;
		memmove(buf + at + 2, buf + at, len - at + 1);
		buf[at] = '.';
		buf[at + 1] = '0';
	}
	return buf;
}
