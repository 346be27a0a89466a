/* The YAML reader every YAML input uses (see yaml_reader.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "base/text.h"

#include "base/open_file.h"
#include "yaml_reader.h"
#include "yaml_reader_internal.h"


static const char *const DEFAULT_SYNTAX_LABEL = "YAML syntax error";
static const char *const DEFAULT_OPEN_LABEL = "cannot open the file";

/* ---- errors ---------------------------------------------------------- */

static enum ha_status vfail(struct ha_yr *r, long line, long column,
                            enum ha_status status, const char *fmt,
                            va_list ap) HA_PRINTF(5, 0);

static enum ha_status vfail(struct ha_yr *r, long line, long column,
                            enum ha_status status, const char *fmt,
                            va_list ap)
{
	char message[HA_ERROR_MESSAGE_MAX];
	if (vsnprintf(message, sizeof message, fmt, ap) < 0)
		message[0] = '\0';
	ha_fail_at(r->err, status, line, column, "%s", message);
	r->err->file = r->path;
	return status;
}

enum ha_status ha_yr_fail_at(struct ha_yr *r, yaml_mark_t at,
                             enum ha_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(r, (long)at.line + 1, (long)at.column + 1, status, fmt, ap);
	va_end(ap);
	return status;
}

enum ha_status ha_yr_fail_here(struct ha_yr *r, enum ha_status status,
                               const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(r, (long)r->ev.start_mark.line + 1,
	      (long)r->ev.start_mark.column + 1, status, fmt, ap);
	va_end(ap);
	return status;
}

/* An error without a position (line and column 0). */
static enum ha_status fail_nopos(struct ha_yr *r, enum ha_status status,
                                 const char *fmt, ...) HA_PRINTF(3, 4);

static enum ha_status fail_nopos(struct ha_yr *r, enum ha_status status,
                                 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(r, 0, 0, status, fmt, ap);
	va_end(ap);
	return status;
}

enum ha_status ha_yr_nomem(struct ha_yr *r)
{
	return fail_nopos(r, HA_ENOMEM, "out of memory");
}

/* How many of the first max bytes of s to print without cutting a UTF-8
 * sequence. */
static size_t clip(const unsigned char *s, size_t length, size_t max)
{
	if (length <= max)
		return length;
	while (max > 0 && (s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* A scalar for a message: at most HA_YR_QUOTE_MAX bytes (longer ones end
 * in "..."), control bytes as '?', never cut inside a UTF-8 sequence. */
static void quote_scalar(const yaml_event_t *ev, char buf[HA_YR_QUOTE_SIZE])
{
	const unsigned char *v = ev->data.scalar.value;
	size_t length = ev->data.scalar.length, out = 0;
	int cut = length > HA_YR_QUOTE_MAX;
	if (cut)
		length = clip(v, length, HA_YR_QUOTE_MAX - 3);
	buf[out++] = '\'';
	for (size_t i = 0; i < length;) {
		size_t w;
		if (ha_text_unsafe_at((const char *)v + i, length - i, &w) == 0) {
			buf[out++] = '?'; /* C0, C1 and bidi controls alike */
			i += w;
		} else {
			buf[out++] = (char)v[i++];
		}
	}
	if (cut) {
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out++] = '\'';
	buf[out] = '\0';
}

/* What an event is, for "found ...". */
const char *ha_yr_describe(const yaml_event_t *ev, char buf[HA_YR_DESCRIBE_SIZE])
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.length == 0 &&
		    ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return "an empty value";
		if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
			char q[HA_YR_QUOTE_SIZE];
			quote_scalar(ev, q);
			snprintf(buf, HA_YR_DESCRIBE_SIZE, "the quoted string %s", q);
			return buf;
		}
		quote_scalar(ev, buf);
		return buf;
	case YAML_SEQUENCE_START_EVENT: return "a list";
	case YAML_MAPPING_START_EVENT: return "a mapping";
	case YAML_SEQUENCE_END_EVENT: return "the end of the list";
	case YAML_MAPPING_END_EVENT: return "the end of the mapping";
	case YAML_DOCUMENT_START_EVENT: return "a second document";
	case YAML_DOCUMENT_END_EVENT: return "the end of the document";
	case YAML_STREAM_END_EVENT: return "the end of the file";
	default: return "something else";
	}
}

/* A plain number with a leading zero ("0512", "-007.5"), which the number
 * grammar refuses because YAML 1.1 reads it as octal. */
static int leading_zero(const yaml_event_t *ev);

int ha_yr_leading_zero(const struct ha_yr *r)
{
	return r->have_event && leading_zero(&r->ev);
}

static int leading_zero(const yaml_event_t *ev)
{
	if (ev->type != YAML_SCALAR_EVENT ||
	    ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *v = (const char *)ev->data.scalar.value;
	v += *v == '+' || *v == '-';
	return v[0] == '0' && v[1] >= '0' && v[1] <= '9';
}

enum ha_status ha_yr_expected(struct ha_yr *r, const char *where,
                              const char *what)
{
	char buf[HA_YR_DESCRIBE_SIZE];
	return ha_yr_fail_here(r, HA_EFORMAT, "%s%sexpected %s, found %s%s",
	                       where, *where ? ": " : "", what,
	                       ha_yr_describe(&r->ev, buf),
	                       leading_zero(&r->ev)
	                               ? " (a leading zero: YAML 1.1 reads it "
	                                 "as octal)"
	                               : "");
}

/* The 1-based line and column (in bytes) of a byte offset of the input:
 * libyaml gives only the offset for an encoding error.  On the error path
 * alone, so a file is read again from the start. */
static yaml_mark_t mark_at_offset(struct ha_yr *r, size_t offset)
{
	yaml_mark_t m = {offset, 0, 0};
	if (r->file && fseek(r->file, 0, SEEK_SET) != 0)
		return m;
	for (size_t i = 0; i < offset; i++) {
		int c;
		if (r->file)
			c = getc(r->file);
		else
			c = i < r->text_length ? r->text[i] : EOF;
		if (c == EOF)
			break;
		if (c == '\n') {
			m.line++;
			m.column = 0;
		} else {
			m.column++;
		}
	}
	return m;
}

static enum ha_status parser_error(struct ha_yr *r)
{
	yaml_parser_t *p = &r->parser;
	const char *label = r->options.syntax_label ? r->options.syntax_label
	                                            : DEFAULT_SYNTAX_LABEL;
	if (p->error == YAML_MEMORY_ERROR)
		return ha_yr_nomem(r);
	if (r->too_large)
		return ha_yr_fail_at(r, p->mark, HA_EFORMAT,
		                     "expected at most %zu bytes of input, "
		                     "found more", r->options.max_bytes);
	if (r->read_failed)
		return ha_yr_fail_at(r, p->mark, HA_EIO, "reading failed: %s",
		                     p->problem ? p->problem : "input error");
	if (p->error == YAML_READER_ERROR)
		return ha_yr_fail_at(r, mark_at_offset(r, p->problem_offset),
		                     HA_EFORMAT,
		                     "invalid input: %s (byte offset %zu)",
		                     p->problem ? p->problem : "unreadable",
		                     p->problem_offset);
	if (p->context)
		return ha_yr_fail_at(r, p->problem_mark, HA_EFORMAT, "%s: %s %s",
		                     label, p->problem ? p->problem : "",
		                     p->context);
	return ha_yr_fail_at(r, p->problem_mark, HA_EFORMAT, "%s: %s", label,
	                     p->problem ? p->problem : "malformed");
}

/* ---- input ------------------------------------------------------------- */

static int read_handler(void *data, unsigned char *buffer, size_t size,
                        size_t *size_read)
{
	struct ha_yr *r = data;
	size_t n = fread(buffer, 1, size, r->file);
	if (n == 0 && ferror(r->file)) {
		r->read_failed = 1;
		return 0;
	}
	r->bytes_read += n;
	if (r->bytes_read > r->options.max_bytes) {
		r->too_large = 1;
		return 0;
	}
	*size_read = n;
	return 1;
}

static void init(struct ha_yr *r, const struct ha_yr_options *options,
                 struct ha_error *err)
{
	memset(r, 0, sizeof *r);
	r->err = err ? err : &r->scratch;
	ha_error_init(r->err);
	r->options = *options;
}

enum ha_status ha_yr_open_file(struct ha_yr *r, const char *path,
                               const struct ha_yr_options *options,
                               struct ha_error *err)
{
	init(r, options, err);
	r->path = path;
	r->file = ha_open_input(path);
	if (!r->file)
		return fail_nopos(r, HA_EIO, "%s: %s",
		                  options->open_label ? options->open_label
		                                      : DEFAULT_OPEN_LABEL,
		                  strerror(errno));
	if (!yaml_parser_initialize(&r->parser))
		return ha_yr_nomem(r);
	r->parser_ready = 1;
	yaml_parser_set_input(&r->parser, read_handler, r);
	return HA_OK;
}

enum ha_status ha_yr_open_text(struct ha_yr *r, const char *text,
                               size_t length,
                               const struct ha_yr_options *options,
                               struct ha_error *err)
{
	init(r, options, err);
	if (length > options->max_bytes)
		return fail_nopos(r, HA_EFORMAT,
		                  "expected at most %zu bytes of input, found "
		                  "more", options->max_bytes);
	if (!yaml_parser_initialize(&r->parser))
		return ha_yr_nomem(r);
	r->parser_ready = 1;
	r->text = (const unsigned char *)(text ? text : "");
	r->text_length = length;
	yaml_parser_set_input_string(&r->parser, r->text, length);
	return HA_OK;
}

void ha_yr_close(struct ha_yr *r)
{
	if (r->have_event)
		yaml_event_delete(&r->ev);
	r->have_event = 0;
	if (r->parser_ready)
		yaml_parser_delete(&r->parser);
	r->parser_ready = 0;
	if (r->file)
		fclose(r->file);
	r->file = NULL;
}

/* ---- events ------------------------------------------------------------ */

enum ha_status ha_yr_next(struct ha_yr *r)
{
	if (r->have_event)
		yaml_event_delete(&r->ev);
	r->have_event = 0;
	if (!yaml_parser_parse(&r->parser, &r->ev))
		return parser_error(r);
	r->have_event = 1;

	const yaml_char_t *anchor = NULL, *tag = NULL;
	switch (r->ev.type) {
	case YAML_ALIAS_EVENT:
		anchor = r->ev.data.alias.anchor;
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "expected a value, found the alias '*%.*s' "
		                       "(anchors and aliases are not supported)",
		                       (int)clip(anchor, strlen((const char *)anchor),
		                                 HA_YR_QUOTE_MAX),
		                       (const char *)anchor);
	case YAML_SCALAR_EVENT:
		anchor = r->ev.data.scalar.anchor;
		tag = r->ev.data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = r->ev.data.sequence_start.anchor;
		tag = r->ev.data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = r->ev.data.mapping_start.anchor;
		tag = r->ev.data.mapping_start.tag;
		break;
	default:
		break;
	}
	if (anchor)
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "expected a value, found the anchor '&%.*s' "
		                       "(anchors and aliases are not supported)",
		                       (int)clip(anchor, strlen((const char *)anchor),
		                                 HA_YR_QUOTE_MAX),
		                       (const char *)anchor);
	if (tag)
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "expected a value, found the tag '%.*s' "
		                       "(tags are not supported)",
		                       (int)clip(tag, strlen((const char *)tag),
		                                 HA_YR_QUOTE_MAX),
		                       (const char *)tag);
	return HA_OK;
}

int ha_yr_at(const struct ha_yr *r, yaml_event_type_t type)
{
	return r->have_event && r->ev.type == type;
}

/* The next event, which must be of the given type ("expected WHAT"). */
static enum ha_status next_of_type(struct ha_yr *r, yaml_event_type_t type,
                                   const char *what)
{
	enum ha_status st = ha_yr_next(r);
	if (st != HA_OK)
		return st;
	return r->ev.type == type ? HA_OK : ha_yr_expected(r, "", what);
}

enum ha_status ha_yr_begin_document(struct ha_yr *r, const char *what)
{
	enum ha_status st = next_of_type(r, YAML_STREAM_START_EVENT,
	                                 "the start of the file");
	if (st == HA_OK)
		st = next_of_type(r, YAML_DOCUMENT_START_EVENT, what);
	if (st == HA_OK)
		st = next_of_type(r, YAML_MAPPING_START_EVENT, what);
	return st;
}

enum ha_status ha_yr_end_document(struct ha_yr *r)
{
	enum ha_status st = next_of_type(r, YAML_DOCUMENT_END_EVENT,
	                                 "the end of the document");
	if (st == HA_OK)
		st = next_of_type(r, YAML_STREAM_END_EVENT, "the end of the file");
	return st;
}
