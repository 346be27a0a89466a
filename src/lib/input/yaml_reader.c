/* The YAML reader every YAML input uses (see yaml_reader.h): errors,
 * input and events, then the values: scalars of the one grammar
 * (numbers, booleans, words, strings) and collections (maps with a key
 * table, sequences, skipping, growing arrays). */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "base/text.h"

#include "base/open_file.h"
#include "yaml_reader.h"

/* A quoted scalar: quotes, HA_YR_QUOTE_MAX bytes, "..." and the NUL. */
#define HA_YR_QUOTE_SIZE (HA_YR_QUOTE_MAX + 6)
/* "the quoted string " and a quoted scalar. */
#define HA_YR_DESCRIBE_SIZE (HA_YR_QUOTE_SIZE + 24)
/* "an integer from N to N", "a string of 1 to N bytes without control
 * characters" with 20-digit numbers. */
#define HA_YR_WHAT_SIZE 96
/* The list of a key table in "expected one of the keys ...". */
#define HA_YR_KEY_LIST_SIZE 256

static const char *const DEFAULT_SYNTAX_LABEL = "YAML syntax error";
static const char *const DEFAULT_OPEN_LABEL = "cannot open the file";

/* ---- errors ---------------------------------------------------------- */

enum ha_status ha_yr_placed(struct ha_yr *r, yaml_mark_t at,
                            enum ha_status status)
{
	r->err->line = (long)at.line + 1;
	r->err->column = (long)at.column + 1;
	r->err->file = r->path;
	return status;
}

/* An error without a position (line and column 0). */
static enum ha_status in_file(struct ha_yr *r, enum ha_status status)
{
	r->err->file = r->path;
	return status;
}

#define fail_nopos(r, status, ...) \
	in_file((r), ha_fail((r)->err, (status), __VA_ARGS__))

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

/* What an event is, for "expected X, found Y": "the number '3'", "a
 * map", "the end of the file"...; written into buf, which is returned. */
static const char *describe(const yaml_event_t *ev,
                            char buf[HA_YR_DESCRIBE_SIZE])
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

int ha_yr_leading_zero(const struct ha_yr *r)
{
	if (!r->have_event || r->ev.type != YAML_SCALAR_EVENT ||
	    r->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *v = (const char *)r->ev.data.scalar.value;
	v += *v == '+' || *v == '-';
	return v[0] == '0' && v[1] >= '0' && v[1] <= '9';
}

/* "WHERE: expected WHAT, found <the current event>" (no "WHERE: " when
 * where is empty), HA_EFORMAT, at the current event. */
static enum ha_status expected(struct ha_yr *r, const char *where,
                               const char *what)
{
	char buf[HA_YR_DESCRIBE_SIZE];
	return ha_yr_fail_here(r, HA_EFORMAT, "%s%sexpected %s, found %s%s",
	                       where, *where ? ": " : "", what,
	                       describe(&r->ev, buf),
	                       ha_yr_leading_zero(r)
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

/* "expected a value, found the KIND 'MARKNAME' (WHAT are not supported)",
 * the name clipped to HA_YR_QUOTE_MAX bytes. */
static enum ha_status unsupported(struct ha_yr *r, const char *kind,
                                  const char *mark, const yaml_char_t *name,
                                  const char *what)
{
	return ha_yr_fail_here(r, HA_EFORMAT,
	                       "expected a value, found the %s '%s%.*s' (%s are "
	                       "not supported)", kind, mark,
	                       (int)clip(name, strlen((const char *)name),
	                                 HA_YR_QUOTE_MAX),
	                       (const char *)name, what);
}

/* Advance to the next event (r->ev).  Syntax and encoding errors, aliases,
 * anchors and tags are errors. */
static enum ha_status next(struct ha_yr *r)
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
		return unsupported(r, "alias", "*", r->ev.data.alias.anchor,
		                   "anchors and aliases");
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
		return unsupported(r, "anchor", "&", anchor, "anchors and aliases");
	if (tag)
		return unsupported(r, "tag", "", tag, "tags");
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
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	return r->ev.type == type ? HA_OK : expected(r, "", what);
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

/* ---- scalars ----------------------------------------------------------- */

/* The current event is a plain scalar (so no NUL inside). */
static int is_plain(const struct ha_yr *r)
{
	return ha_yr_at(r, YAML_SCALAR_EVENT) &&
	       r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       strlen((const char *)r->ev.data.scalar.value) ==
	               r->ev.data.scalar.length;
}

int ha_yr_is_word(const struct ha_yr *r, const char *word)
{
	return ha_yr_at(r, YAML_SCALAR_EVENT) &&
	       r->ev.data.scalar.length == strlen(word) &&
	       memcmp(r->ev.data.scalar.value, word, r->ev.data.scalar.length) ==
	               0;
}

enum ha_status ha_yr_uint(struct ha_yr *r, const char *where,
                          const char *what, uint64_t lo, uint64_t hi,
                          uint64_t *out)
{
	char range[HA_YR_WHAT_SIZE];
	if (!what) {
		snprintf(range, sizeof range, "an integer from %llu to %llu",
		         (unsigned long long)lo, (unsigned long long)hi);
		what = range;
	}
	if (!is_plain(r) ||
	    ha_parse_uint((const char *)r->ev.data.scalar.value, lo, hi, out) !=
	            HA_OK)
		return expected(r, where, what);
	return HA_OK;
}

int ha_yr_plain_real(const struct ha_yr *r, double *out)
{
	return is_plain(r) &&
	       ha_parse_real((const char *)r->ev.data.scalar.value, out) == HA_OK;
}

enum ha_status ha_yr_real(struct ha_yr *r, const char *where,
                          const char *what, enum ha_yr_lower lower,
                          double lo, double hi, double *out)
{
	double v;
	if (is_plain(r) &&
	    ha_parse_real((const char *)r->ev.data.scalar.value, &v) == HA_EINVAL) {
		char buf[HA_YR_DESCRIBE_SIZE];
		return ha_yr_fail_here(r, HA_EFORMAT, "%s%s%s is beyond a double "
		                       "(at most %g in magnitude)", where,
		                       *where ? ": " : "", describe(&r->ev, buf),
		                       DBL_MAX);
	}
	if (!ha_yr_plain_real(r, &v) || v < lo || v > hi ||
	    (lower == HA_YR_ABOVE && v == lo))
		return expected(r, where, what);
	*out = v;
	return HA_OK;
}

enum ha_status ha_yr_bool(struct ha_yr *r, const char *where, int *out)
{
	if (is_plain(r)) {
		const char *s = (const char *)r->ev.data.scalar.value;
		if (!strcmp(s, "true") || !strcmp(s, "false")) {
			*out = s[0] == 't';
			return HA_OK;
		}
	}
	return expected(r, where, "true or false");
}

enum ha_status ha_yr_word(struct ha_yr *r, const char *where,
                          const char *what, const char *const *words,
                          size_t n, size_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (ha_yr_is_word(r, words[i])) {
			*out = i;
			return HA_OK;
		}
	return expected(r, where, what);
}

/* What else a YAML reader takes a plain scalar for, or NULL when only a
 * string: "~" and "null" are null, "yes" and "off" are YAML 1.1
 * booleans, "1e3" and "0x10" numbers.  As a name or a note such a value
 * would mean one thing here and another to the next tool. */
static const char *other_reading(const char *v)
{
	static const char *const nulls[] = {"~", "null", "Null", "NULL"};
	static const char *const bools[] = {
		"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF"};
	static const char *const specials[] = {
		".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
		"-.Inf", "-.INF", ".nan", ".NaN", ".NAN"};
	for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
		if (!strcmp(v, nulls[i]))
			return "null";
	for (size_t i = 0; i < sizeof bools / sizeof *bools; i++)
		if (!strcmp(v, bools[i]))
			return "a boolean";
	for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
		if (!strcmp(v, specials[i]))
			return "a number";
	double d;
	if (ha_parse_real(v, &d) != HA_EFORMAT)
		return "a number";
	/* YAML 1.1's other numbers (0x1F, 0o17, 0b101, 1_000, 1:30) and its
	 * dates (2024-01-31): a digit, then only what they are made of. */
	const char *p = v + (v[0] == '+' || v[0] == '-');
	size_t len = strlen(p);
	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return strspn(p + 2, "0123456789abcdefABCDEF_") == len - 2
		       ? "a number" : NULL;
	if (len > 2 && p[0] == '0' && (p[1] == 'o' || p[1] == 'b'))
		return strspn(p + 2, "01234567_") == len - 2 ? "a number" : NULL;
	if (p[0] >= '0' && p[0] <= '9' &&
	    strspn(p, "0123456789_:.eE+-") == len)
		return "a number or a date";
	return NULL;
}

enum ha_status ha_yr_string(struct ha_yr *r, const char *where, size_t max,
                            char **out)
{
	const yaml_event_t *ev = &r->ev;
	if (!ha_yr_at(r, YAML_SCALAR_EVENT) || ev->data.scalar.length == 0 ||
	    ev->data.scalar.length > max ||
	    /* the one name rule (text.h): names and notes reach the report */
	    ha_name_fault((const char *)ev->data.scalar.value,
	                  ev->data.scalar.length, NULL)) {
		char what[HA_YR_WHAT_SIZE];
		snprintf(what, sizeof what, "a string of 1 to %zu bytes without "
		         "control characters", max);
		return expected(r, where, what);
	}
	const char *other = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
	                    ? other_reading((const char *)ev->data.scalar.value)
	                    : NULL;
	if (other) {
		char buf[HA_YR_DESCRIBE_SIZE];
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "%s%sexpected a string, found %s, which YAML "
		                       "also reads as %s (quote it to mean the text)",
		                       where, *where ? ": " : "",
		                       describe(ev, buf), other);
	}
	char *s = malloc(ev->data.scalar.length + 1);
	if (!s)
		return ha_yr_nomem(r);
	memcpy(s, ev->data.scalar.value, ev->data.scalar.length + 1);
	*out = s;
	return HA_OK;
}

/* ---- collections ------------------------------------------------------- */

static enum ha_status unknown_key(struct ha_yr *r, const char *where,
                                  const struct ha_yr_map *map)
{
	char list[HA_YR_KEY_LIST_SIZE] = "", buf[HA_YR_DESCRIBE_SIZE];
	size_t used = 0;
	for (size_t k = 0; k < map->count; k++) {
		if (map->keys[k].required == HA_YR_IGNORED)
			continue;
		int n = snprintf(list + used, sizeof list - used, "%s%s",
		                 used ? ", " : "", map->keys[k].name);
		if (n < 0 || (size_t)n >= sizeof list - used)
			break;
		used += (size_t)n;
	}
	return ha_yr_fail_here(r, HA_EFORMAT,
	                       "%s%sexpected one of the keys %s, found %s",
	                       where, *where ? ": " : "", list,
	                       describe(&r->ev, buf));
}

/* Skip the value that starts at the current event: a scalar, or a whole
 * list or mapping (without recursion, so nesting depth costs no stack),
 * ending on its last event.  Anchors, aliases and tags inside are still
 * errors (next() refuses them). */
static enum ha_status skip(struct ha_yr *r)
{
	if (ha_yr_at(r, YAML_SCALAR_EVENT))
		return HA_OK;
	if (!ha_yr_at(r, YAML_SEQUENCE_START_EVENT) &&
	    !ha_yr_at(r, YAML_MAPPING_START_EVENT))
		return expected(r, "", "a value");
	/* Inside a collection the parser yields only values and the ends of
	 * collections (aliases are refused by next()), so counting
	 * starts and ends finds the end of this one. */
	for (size_t depth = 1; depth > 0;) {
		enum ha_status st = next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_SEQUENCE_START_EVENT ||
		    r->ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (r->ev.type == YAML_SEQUENCE_END_EVENT ||
		         r->ev.type == YAML_MAPPING_END_EVENT)
			depth--;
	}
	return HA_OK;
}

enum ha_status ha_yr_read_map(struct ha_yr *r, const char *where,
                              const char *what, struct ha_yr_map *map,
                              ha_yr_field_fn fn, void *ctx)
{
	if (!ha_yr_at(r, YAML_MAPPING_START_EVENT))
		return expected(r, where, what);
	map->start = r->ev.start_mark;
	for (;;) {
		enum ha_status st = next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return expected(r, where, "a key");
		/* YAML 1.1's merge key copies another mapping in; its usual
		 * source is an alias, refused anyway. */
		if (is_plain(r) && ha_yr_is_word(r, "<<"))
			return ha_yr_fail_here(r, HA_EFORMAT,
			                       "%s%sexpected a key, found the merge "
			                       "key '<<' (merge keys are not "
			                       "supported)",
			                       where, *where ? ": " : "");
		size_t i = 0;
		while (i < map->count && !ha_yr_is_word(r, map->keys[i].name))
			i++;
		if (i == map->count)
			return unknown_key(r, where, map);
		if (map->seen[i])
			return ha_yr_fail_here(r, HA_EFORMAT,
			                       "%s%sexpected each key once, found "
			                       "'%s' again (first at line %lu)",
			                       where, *where ? ": " : "",
			                       map->keys[i].name,
			                       (unsigned long)map->key_at[i].line + 1);
		map->seen[i] = 1;
		map->key_at[i] = r->ev.start_mark;

		char path[HA_YR_MAX_WHERE]; /* cut when too long: only printed */
		if (snprintf(path, sizeof path, "%s%s%s", where,
		             *where ? "." : "", map->keys[i].name) < 0)
			path[0] = '\0';
		st = next(r);
		if (st == HA_OK)
			st = map->keys[i].required == HA_YR_IGNORED
			             ? skip(r)
			             : fn(r, ctx, i, path);
		if (st != HA_OK)
			return st;
	}
	for (size_t i = 0; i < map->count; i++)
		if (map->keys[i].required == HA_YR_REQUIRED && !map->seen[i])
			return ha_yr_fail_at(r, map->start, HA_EFORMAT,
			                     "%s%sexpected the key '%s' in this "
			                     "mapping, found none",
			                     where, *where ? ": " : "",
			                     map->keys[i].name);
	return HA_OK;
}

enum ha_status ha_yr_read_seq(struct ha_yr *r, const char *where,
                              const char *what, size_t max,
                              ha_yr_item_fn fn, void *ctx, size_t *count)
{
	*count = 0;
	if (!ha_yr_at(r, YAML_SEQUENCE_START_EVENT))
		return expected(r, where, what);
	for (;;) {
		enum ha_status st = next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_SEQUENCE_END_EVENT)
			return HA_OK;
		if (*count >= max)
			return ha_yr_fail_here(r, HA_EFORMAT,
			                       "%s%sexpected at most %zu entries, "
			                       "found more",
			                       where, *where ? ": " : "", max);
		char path[HA_YR_MAX_WHERE]; /* cut when too long: only printed */
		if (snprintf(path, sizeof path, "%s[%zu]", where, *count) < 0)
			path[0] = '\0';
		st = fn(r, ctx, *count, path);
		if (st != HA_OK)
			return st;
		(*count)++;
	}
}

enum ha_status ha_yr_grow(struct ha_yr *r, void **array, size_t *cap,
                          size_t count, size_t size)
{
	if (count < *cap)
		return HA_OK;
	size_t n = *cap ? *cap * 2 : 16;
	if (n < count + 1)
		n = count + 1;
	if (n > SIZE_MAX / size)
		return ha_yr_nomem(r);
	void *p = realloc(*array, n * size);
	if (!p)
		return ha_yr_nomem(r);
	*array = p;
	*cap = n;
	return HA_OK;
}
