/* Scenario files, read with libyaml's event parser.
 *
 * A small recursive-descent reader over the event stream: every value is
 * checked as it arrives, so an unexpected collection stops the read at
 * once (nesting depth stays bounded) and lists stop at their caps. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <headalloc/scenario.h>

#include "base/open_file.h"

/* Input larger than this is refused (a full 1e6-point list is ~25 MiB);
 * fail_nopos's message in ha_scenario_read_string says 64 MiB. */
#define MAX_INPUT_BYTES ((size_t)64 << 20)

#define MAX_KEYS 8

struct reader {
	yaml_parser_t parser;
	yaml_event_t ev;
	int have_event;
	struct ha_scenario *sc;
	struct ha_scenario_error *err;
	FILE *file;        /* for the read handler */
	const unsigned char *text; /* or the input in memory */
	size_t text_length;
	size_t bytes_read;
	int too_large;
	int read_failed;
};

/* ---- errors ---------------------------------------------------------- */

static enum ha_status fail(struct reader *r, yaml_mark_t mark,
                           enum ha_status status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static enum ha_status fail(struct reader *r, yaml_mark_t mark,
                           enum ha_status status, const char *fmt, ...)
{
	struct ha_scenario_error *e = r->err;
	e->status = status;
	e->line = (unsigned long)mark.line + 1;
	e->column = (unsigned long)mark.column + 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	return status;
}

/* An error without a position (line and column 0). */
static enum ha_status fail_nopos(struct reader *r, enum ha_status status,
                                 const char *msg)
{
	struct ha_scenario_error *e = r->err;
	e->status = status;
	e->line = 0;
	e->column = 0;
	snprintf(e->message, sizeof e->message, "%s", msg);
	return status;
}

/* A scalar for a message: at most 40 bytes, control bytes as '?',
 * never cut inside a UTF-8 sequence. */
static void quote_scalar(const yaml_event_t *ev, char *buf, size_t size)
{
	const unsigned char *v = ev->data.scalar.value;
	size_t len = ev->data.scalar.length, limit = 40, out = 0;
	int cut = len > limit;
	if (cut) {
		len = limit - 3;
		while (len > 0 && (v[len] & 0xC0) == 0x80)
			len--;
	}
	buf[out++] = '\'';
	for (size_t i = 0; i < len && out + 6 < size; i++)
		buf[out++] = (v[i] < 0x20 || v[i] == 0x7f) ? '?' : (char)v[i];
	if (cut) {
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out++] = '\'';
	buf[out] = '\0';
}

/* What an event is, for "found ...". */
static const char *describe(const yaml_event_t *ev, char *buf, size_t size)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.length == 0 &&
		    ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return "an empty value";
		if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
			char q[64];
			quote_scalar(ev, q, sizeof q);
			snprintf(buf, size, "the quoted string %s", q);
			return buf;
		}
		quote_scalar(ev, buf, size);
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

static enum ha_status expected(struct reader *r, const char *where,
                               const char *what)
{
	char buf[96];
	return fail(r, r->ev.start_mark, HA_EFORMAT, "%s%sexpected %s, found %s",
	            where, *where ? ": " : "", what,
	            describe(&r->ev, buf, sizeof buf));
}

/* The 1-based line and column (in bytes) of a byte offset of the input:
 * libyaml gives only the offset for an encoding error.  On the error path
 * alone, so the file is read again from the start. */
static yaml_mark_t mark_at_offset(struct reader *r, size_t offset)
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

static enum ha_status parser_error(struct reader *r)
{
	yaml_parser_t *p = &r->parser;
	if (p->error == YAML_MEMORY_ERROR)
		return fail_nopos(r, HA_ENOMEM, "out of memory");
	if (r->too_large)
		return fail(r, p->mark, HA_EFORMAT,
		            "expected at most %zu bytes of input, found more",
		            MAX_INPUT_BYTES);
	if (r->read_failed)
		return fail(r, p->mark, HA_EIO, "reading failed: %s",
		            p->problem ? p->problem : "input error");
	if (p->error == YAML_READER_ERROR)
		return fail(r, mark_at_offset(r, p->problem_offset), HA_EFORMAT,
		            "invalid input: %s (byte offset %zu)",
		            p->problem ? p->problem : "unreadable",
		            p->problem_offset);
	if (p->context)
		return fail(r, p->problem_mark, HA_EFORMAT,
		            "YAML syntax error: %s %s", p->problem ? p->problem : "",
		            p->context);
	return fail(r, p->problem_mark, HA_EFORMAT, "YAML syntax error: %s",
	            p->problem ? p->problem : "malformed");
}

/* Advance to the next event; refuse aliases, anchors and tags. */
static enum ha_status next(struct reader *r)
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
		return fail(r, r->ev.start_mark, HA_EFORMAT,
		            "expected a value, found the alias '*%.40s' "
		            "(anchors and aliases are not supported)",
		            (const char *)r->ev.data.alias.anchor);
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
		return fail(r, r->ev.start_mark, HA_EFORMAT,
		            "expected a value, found the anchor '&%.40s' "
		            "(anchors and aliases are not supported)",
		            (const char *)anchor);
	if (tag)
		return fail(r, r->ev.start_mark, HA_EFORMAT,
		            "expected a value, found the tag '%.40s' "
		            "(tags are not supported)", (const char *)tag);
	return HA_OK;
}

/* ---- scalars ----------------------------------------------------------- */

static int is_plain_scalar(const yaml_event_t *ev)
{
	return ev->type == YAML_SCALAR_EVENT &&
	       ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       strlen((const char *)ev->data.scalar.value) ==
	               ev->data.scalar.length;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Advance to the next value, which must be a plain scalar: its text, or
 * NULL with *status set (anything else is "expected WHAT"). */
static const char *next_plain_scalar(struct reader *r, const char *where,
                                     const char *what, enum ha_status *status)
{
	*status = next(r);
	if (*status != HA_OK)
		return NULL;
	if (!is_plain_scalar(&r->ev)) {
		*status = expected(r, where, what);
		return NULL;
	}
	return (const char *)r->ev.data.scalar.value;
}

/* The next value as a decimal integer in [lo, hi]. */
static enum ha_status read_uint(struct reader *r, const char *where,
                                uint64_t lo, uint64_t hi, uint64_t *out)
{
	char what[96];
	snprintf(what, sizeof what, "an integer from %llu to %llu",
	         (unsigned long long)lo, (unsigned long long)hi);
	enum ha_status st;
	const char *s = next_plain_scalar(r, where, what, &st);
	if (!s)
		return st;
	if (!all_digits(s))
		return expected(r, where, what);
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno == ERANGE || v < lo || v > hi)
		return expected(r, where, what);
	*out = (uint64_t)v;
	return HA_OK;
}

/* A decimal real: [+-] digits [. digits] [e [+-] digits], or .digits. */
static int real_syntax(const char *s)
{
	int digits = 0;
	if (*s == '+' || *s == '-')
		s++;
	while (*s >= '0' && *s <= '9')
		s++, digits++;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9')
			s++, digits++;
	}
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

enum bound { OPEN, CLOSED };

/* The next value as a finite real in the interval (lo, hi] / [lo, hi]
 * given by the bounds; `what` describes it for messages. */
static enum ha_status read_real(struct reader *r, const char *where,
                                const char *what, double lo, enum bound lo_b,
                                double hi, double *out)
{
	enum ha_status st;
	const char *s = next_plain_scalar(r, where, what, &st);
	if (!s)
		return st;
	if (!real_syntax(s))
		return expected(r, where, what);
	double v = strtod(s, NULL);
	if (!isfinite(v) || v > hi || v < lo || (lo_b == OPEN && v == lo))
		return expected(r, where, what);
	*out = v;
	return HA_OK;
}

static enum ha_status read_bool(struct reader *r, const char *where, int *out)
{
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	if (is_plain_scalar(&r->ev)) {
		const char *s = (const char *)r->ev.data.scalar.value;
		if (!strcmp(s, "true") || !strcmp(s, "false")) {
			*out = s[0] == 't';
			return HA_OK;
		}
	}
	return expected(r, where, "true or false");
}

static int has_control_character(const unsigned char *s, size_t length)
{
	for (size_t i = 0; i < length; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

/* The next value as a non-empty string of at most MAX_STRING bytes, in a
 * new allocation.  Control characters (a newline, a NUL) are refused: the
 * string is printed in tables and messages of one line. */
static enum ha_status read_string(struct reader *r, const char *where,
                                  char **out)
{
	char what[96];
	snprintf(what, sizeof what, "a string of 1 to %zu bytes without "
	         "control characters", HA_SCENARIO_MAX_STRING);
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	const yaml_event_t *ev = &r->ev;
	if (ev->type != YAML_SCALAR_EVENT || ev->data.scalar.length == 0 ||
	    ev->data.scalar.length > HA_SCENARIO_MAX_STRING ||
	    has_control_character(ev->data.scalar.value, ev->data.scalar.length))
		return expected(r, where, what);
	char *s = malloc(ev->data.scalar.length + 1);
	if (!s)
		return fail_nopos(r, HA_ENOMEM, "out of memory");
	memcpy(s, ev->data.scalar.value, ev->data.scalar.length + 1);
	*out = s;
	return HA_OK;
}

/* ---- mappings ---------------------------------------------------------- */

/* Called with the index of a known key; reads that key's value. */
typedef enum ha_status (*field_fn)(struct reader *r, void *ctx, size_t key,
                                   const char *where);

/* Read a mapping whose start event is current.  keys[] lists the allowed
 * keys; seen[i] is set for each key present and marks[i] holds the
 * position of that key. */
static enum ha_status read_map(struct reader *r, const char *where,
                               const char *const *keys, size_t nkeys,
                               field_fn fn, void *ctx, int *seen,
                               yaml_mark_t *marks)
{
	for (;;) {
		enum ha_status st = next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			return HA_OK;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return expected(r, where, "a key");
		const char *key = (const char *)r->ev.data.scalar.value;
		size_t i = 0;
		while (i < nkeys && strcmp(keys[i], key) != 0)
			i++;
		if (i == nkeys) {
			char list[160] = "", buf[96];
			for (size_t k = 0; k < nkeys; k++) {
				strcat(list, k ? ", " : "");
				strcat(list, keys[k]);
			}
			return fail(r, r->ev.start_mark, HA_EFORMAT,
			            "%s%sexpected one of the keys %s, found %s",
			            where, *where ? ": " : "", list,
			            describe(&r->ev, buf, sizeof buf));
		}
		if (seen[i])
			return fail(r, r->ev.start_mark, HA_EFORMAT,
			            "%s%sexpected each key once, found '%s' again "
			            "(first at line %lu)",
			            where, *where ? ": " : "", keys[i],
			            (unsigned long)marks[i].line + 1);
		seen[i] = 1;
		marks[i] = r->ev.start_mark;

		char path[128];
		snprintf(path, sizeof path, "%s%s%s", where, *where ? "." : "",
		         keys[i]);
		st = fn(r, ctx, i, path);
		if (st != HA_OK)
			return st;
	}
}

static enum ha_status missing(struct reader *r, yaml_mark_t at,
                              const char *where, const char *key)
{
	return fail(r, at, HA_EFORMAT,
	            "%s: expected the key '%s' in this mapping, found none",
	            where, key);
}

/* ---- growing arrays ---------------------------------------------------- */

/* Make room for one more element of `size` bytes in *arr (holding *count,
 * with room for *cap), up to `limit` elements. */
static enum ha_status grow(struct reader *r, void **arr, size_t *cap,
                           size_t count, size_t size, size_t limit,
                           const char *where)
{
	if (count < *cap)
		return HA_OK;
	if (count >= limit)
		return fail(r, r->ev.start_mark, HA_EFORMAT,
		            "%s: expected at most %zu entries, found more", where,
		            limit);
	size_t n = *cap ? *cap * 2 : 16;
	if (n > limit)
		n = limit;
	void *p = realloc(*arr, n * size);
	if (!p)
		return fail_nopos(r, HA_ENOMEM, "out of memory");
	*arr = p;
	*cap = n;
	return HA_OK;
}

/* ---- sections ---------------------------------------------------------- */

static const char *const model_keys[] = {"smoothness", "bias_coef",
                                         "var_coef", "hdi"};

static enum ha_status model_field(struct reader *r, void *ctx, size_t key,
                                  const char *where)
{
	struct ha_model *m = ctx;
	switch (key) {
	case 0:
		return read_real(r, where, "a number > 0", 0.0, OPEN, HUGE_VAL,
		                 &m->smoothness);
	case 1:
		return read_real(r, where, "a number > 0", 0.0, OPEN, HUGE_VAL,
		                 &m->bias_coef);
	case 2:
		return read_real(r, where, "a number > 0", 0.0, OPEN, HUGE_VAL,
		                 &m->var_coef);
	default:
		return read_real(r, where, "a number from 0 to 1", 0.0, CLOSED,
		                 1.0, &m->hdi);
	}
}

static const char *const constraint_keys[] = {
	"head_dim_multiple", "min_head_dim", "max_head_dim", "min_heads",
	"max_heads"};

struct constraint_ctx {
	struct ha_constraints *c;
	yaml_mark_t value_marks[5];
};

static enum ha_status constraint_field(struct reader *r, void *ctx,
                                       size_t key, const char *where)
{
	struct constraint_ctx *cc = ctx;
	uint64_t *fields[] = {&cc->c->head_dim_multiple, &cc->c->min_head_dim,
	                      &cc->c->max_head_dim, &cc->c->min_heads,
	                      &cc->c->max_heads};
	enum ha_status st = read_uint(r, where, 0, HA_BUDGET_MAX, fields[key]);
	cc->value_marks[key] = r->ev.start_mark;
	return st;
}

static enum ha_status read_constraints(struct reader *r, const char *where)
{
	if (r->ev.type != YAML_MAPPING_START_EVENT)
		return expected(r, where, "a mapping");
	struct constraint_ctx cc = {.c = &r->sc->constraints};
	int seen[5] = {0};
	yaml_mark_t marks[5];
	enum ha_status st = read_map(r, where, constraint_keys, 5,
	                             constraint_field, &cc, seen, marks);
	if (st != HA_OK)
		return st;
	const struct ha_constraints *c = cc.c;
	if (c->min_head_dim && c->max_head_dim &&
	    c->min_head_dim > c->max_head_dim)
		return fail(r, cc.value_marks[2], HA_EFORMAT,
		            "constraints.max_head_dim: expected a value >= "
		            "min_head_dim (%llu), found %llu",
		            (unsigned long long)c->min_head_dim,
		            (unsigned long long)c->max_head_dim);
	if (c->min_heads && c->max_heads && c->min_heads > c->max_heads)
		return fail(r, cc.value_marks[4], HA_EFORMAT,
		            "constraints.max_heads: expected a value >= "
		            "min_heads (%llu), found %llu",
		            (unsigned long long)c->min_heads,
		            (unsigned long long)c->max_heads);
	return HA_OK;
}

static enum ha_status read_model(struct reader *r, const char *where)
{
	if (r->ev.type != YAML_MAPPING_START_EVENT)
		return expected(r, where, "a mapping");
	int seen[4] = {0};
	yaml_mark_t marks[4];
	return read_map(r, where, model_keys, 4, model_field, &r->sc->model,
	                seen, marks);
}

static const char *const BUDGET_WHAT =
	"an integer budget from 1 to 9223372036854775807";

/* Check the current event as a budget. */
static enum ha_status budget_value(struct reader *r, const char *where,
                                   uint64_t *out)
{
	if (!is_plain_scalar(&r->ev) ||
	    !all_digits((const char *)r->ev.data.scalar.value))
		return expected(r, where, BUDGET_WHAT);
	errno = 0;
	unsigned long long v =
		strtoull((const char *)r->ev.data.scalar.value, NULL, 10);
	if (errno == ERANGE || v < 1 || v > HA_BUDGET_MAX)
		return expected(r, where, BUDGET_WHAT);
	*out = (uint64_t)v;
	return HA_OK;
}

/* One list item into its slot of a new array. */
typedef enum ha_status (*item_reader)(struct reader *r, const char *where,
                                      void *slot);

/* A scalar, or a non-empty list of scalars, each read by `item` into a new
 * array of `size`-byte elements at *array (owned by the scenario, so it is
 * freed with it whatever happens).  Anything else is "expected WHAT"; an
 * empty list "expected at least one ONE". */
static enum ha_status read_scalar_or_list(struct reader *r, const char *where,
                                          const char *what, const char *one,
                                          size_t size,
                                          item_reader item, void **array,
                                          size_t *count)
{
	if (r->ev.type == YAML_SCALAR_EVENT) {
		*array = malloc(size);
		if (!*array)
			return fail_nopos(r, HA_ENOMEM, "out of memory");
		enum ha_status st = item(r, where, *array);
		if (st == HA_OK)
			*count = 1;
		return st;
	}
	if (r->ev.type != YAML_SEQUENCE_START_EVENT)
		return expected(r, where, what);
	yaml_mark_t start = r->ev.start_mark;
	size_t cap = 0;
	for (;;) {
		char name[64];
		snprintf(name, sizeof name, "%s[%zu]", where, *count);
		enum ha_status st = next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		st = grow(r, array, &cap, *count, size, HA_SCENARIO_MAX_POINTS, where);
		if (st != HA_OK)
			return st;
		st = item(r, name, (char *)*array + *count * size);
		if (st != HA_OK)
			return st;
		(*count)++;
	}
	if (*count == 0)
		return fail(r, start, HA_EFORMAT,
		            "%s: expected at least one %s, found an empty list",
		            where, one);
	return HA_OK;
}

static enum ha_status budget_item(struct reader *r, const char *where, void *slot)
{
	return budget_value(r, where, slot);
}

/* budgets: an integer or a non-empty list of integers. */
static enum ha_status read_budgets(struct reader *r, const char *where)
{
	struct ha_scenario *sc = r->sc;
	return read_scalar_or_list(r, where, "an integer budget or a list of them",
	                           "budget", sizeof *sc->budgets, budget_item,
	                           (void **)&sc->budgets, &sc->budget_count);
}

static const char *const SAMPLES_WHAT = "a number > 1 and <= 1e300";

/* Check the current event as a sample count. */
static enum ha_status sample_value(struct reader *r, const char *where,
                                   double *out)
{
	if (!is_plain_scalar(&r->ev) ||
	    !real_syntax((const char *)r->ev.data.scalar.value))
		return expected(r, where, SAMPLES_WHAT);
	double v = strtod((const char *)r->ev.data.scalar.value, NULL);
	if (!isfinite(v) || !(v > 1.0) || v > 1e300)
		return expected(r, where, SAMPLES_WHAT);
	*out = v;
	return HA_OK;
}

static const char *const sweep_keys[] = {"from", "to", "points"};

struct sweep {
	double from, to;
	uint64_t points;
	yaml_mark_t to_mark;
};

static enum ha_status sweep_field(struct reader *r, void *ctx, size_t key,
                                  const char *where)
{
	struct sweep *s = ctx;
	if (key == 2)
		return read_uint(r, where, 2, HA_SCENARIO_MAX_POINTS,
		                 &s->points);
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	if (key == 1)
		s->to_mark = r->ev.start_mark;
	return sample_value(r, where, key == 0 ? &s->from : &s->to);
}

static enum ha_status read_sweep(struct reader *r, const char *where)
{
	struct ha_scenario *sc = r->sc;
	yaml_mark_t start = r->ev.start_mark;
	struct sweep s = {0};
	int seen[3] = {0};
	yaml_mark_t marks[3];
	enum ha_status st =
		read_map(r, where, sweep_keys, 3, sweep_field, &s, seen, marks);
	if (st != HA_OK)
		return st;
	for (size_t i = 0; i < 3; i++)
		if (!seen[i])
			return missing(r, start, where, sweep_keys[i]);
	if (!(s.from < s.to))
		return fail(r, s.to_mark, HA_EFORMAT,
		            "%s.to: expected a number > from (%.17g), found %.17g",
		            where, s.from, s.to);
	sc->samples = malloc((size_t)s.points * sizeof *sc->samples);
	if (!sc->samples)
		return fail_nopos(r, HA_ENOMEM, "out of memory");
	for (uint64_t i = 0; i < s.points; i++)
		sc->samples[i] = ha_scenario_sweep_value(s.from, s.to,
		                                         (size_t)s.points, (size_t)i);
	sc->sample_count = (size_t)s.points;
	return HA_OK;
}

static enum ha_status sample_item(struct reader *r, const char *where, void *slot)
{
	return sample_value(r, where, slot);
}

/* samples: a number, a list of numbers, or {from, to, points}. */
static enum ha_status read_samples(struct reader *r, const char *where)
{
	struct ha_scenario *sc = r->sc;
	if (r->ev.type == YAML_MAPPING_START_EVENT)
		return read_sweep(r, where);
	return read_scalar_or_list(r, where, "a number, a list or {from, to, points}",
	                           "sample size", sizeof *sc->samples, sample_item,
	                           (void **)&sc->samples, &sc->sample_count);
}

static const char *const report_keys[] = {"all", "regimes", "format"};

static enum ha_status report_field(struct reader *r, void *ctx, size_t key,
                                   const char *where)
{
	struct ha_scenario *sc = ctx;
	if (key == 0)
		return read_bool(r, where, &sc->report_all);
	if (key == 1)
		return read_bool(r, where, &sc->report_regimes);
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	if (r->ev.type == YAML_SCALAR_EVENT) {
		const char *s = (const char *)r->ev.data.scalar.value;
		if (!strcmp(s, "text")) {
			sc->report_format = HA_FORMAT_TEXT;
			return HA_OK;
		}
		if (!strcmp(s, "yaml")) {
			sc->report_format = HA_FORMAT_YAML;
			return HA_OK;
		}
	}
	return expected(r, where, "text or yaml");
}

static enum ha_status read_report(struct reader *r, const char *where)
{
	if (r->ev.type != YAML_MAPPING_START_EVENT)
		return expected(r, where, "a mapping");
	int seen[3] = {0};
	yaml_mark_t marks[3];
	return read_map(r, where, report_keys, 3, report_field, r->sc, seen,
	                marks);
}

static const char *const entry_keys[] = {"name",    "budget", "heads",
                                         "head_dim", "samples", "note"};

struct entry_ctx {
	struct ha_scenario_entry *e;
	yaml_mark_t budget_mark;
};

static enum ha_status entry_field(struct reader *r, void *ctx, size_t key,
                                  const char *where)
{
	struct entry_ctx *ec = ctx;
	struct ha_scenario_entry *e = ec->e;
	enum ha_status st;
	switch (key) {
	case 0:
		return read_string(r, where, &e->name);
	case 1:
		st = read_uint(r, where, 1, HA_BUDGET_MAX, &e->budget);
		ec->budget_mark = r->ev.start_mark;
		return st;
	case 2:
		return read_uint(r, where, 1, HA_BUDGET_MAX, &e->heads);
	case 3:
		return read_uint(r, where, 1, HA_BUDGET_MAX, &e->head_dim);
	case 4:
		st = next(r);
		if (st != HA_OK)
			return st;
		e->has_samples = 1;
		return sample_value(r, where, &e->samples);
	default:
		return read_string(r, where, &e->note);
	}
}

static enum ha_status read_entry(struct reader *r, const char *where,
                                 struct ha_scenario_entry *e)
{
	if (r->ev.type != YAML_MAPPING_START_EVENT)
		return expected(r, where,
		                "a mapping {name, heads, head_dim, ...}");
	yaml_mark_t start = r->ev.start_mark;
	struct entry_ctx ec = {.e = e};
	int seen[6] = {0};
	yaml_mark_t marks[6];
	enum ha_status st = read_map(r, where, entry_keys, 6, entry_field, &ec,
	                             seen, marks);
	if (st != HA_OK)
		return st;
	if (!seen[0])
		return missing(r, start, where, "name");
	if (!seen[2])
		return missing(r, start, where, "heads");
	if (!seen[3])
		return missing(r, start, where, "head_dim");
	if (e->heads > HA_BUDGET_MAX / e->head_dim)
		return fail(r, start, HA_EFORMAT,
		            "%s: expected heads * head_dim <= %llu, found "
		            "%llu * %llu", where,
		            (unsigned long long)HA_BUDGET_MAX,
		            (unsigned long long)e->heads,
		            (unsigned long long)e->head_dim);
	uint64_t product = e->heads * e->head_dim;
	if (seen[1] && e->budget != product)
		return fail(r, ec.budget_mark, HA_EFORMAT,
		            "%s.budget: expected heads * head_dim = %llu, "
		            "found %llu", where, (unsigned long long)product,
		            (unsigned long long)e->budget);
	e->budget = product;
	return HA_OK;
}

static enum ha_status read_models(struct reader *r, const char *where)
{
	struct ha_scenario *sc = r->sc;
	if (r->ev.type != YAML_SEQUENCE_START_EVENT)
		return expected(r, where, "a list of models");
	size_t cap = 0;
	for (;;) {
		enum ha_status st = next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_SEQUENCE_END_EVENT)
			return HA_OK;
		st = grow(r, (void **)&sc->models, &cap, sc->model_count,
		          sizeof *sc->models, HA_SCENARIO_MAX_MODELS, where);
		if (st != HA_OK)
			return st;
		struct ha_scenario_entry *e = &sc->models[sc->model_count++];
		memset(e, 0, sizeof *e);
		char item[64];
		snprintf(item, sizeof item, "%s[%zu]", where,
		         sc->model_count - 1);
		st = read_entry(r, item, e);
		if (st != HA_OK)
			return st;
	}
}

static const char *const top_keys[] = {"model",   "constraints", "budgets",
                                       "samples", "report",      "models"};

static enum ha_status top_field(struct reader *r, void *ctx, size_t key,
                                const char *where)
{
	(void)ctx;
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	switch (key) {
	case 0: return read_model(r, where);
	case 1: return read_constraints(r, where);
	case 2: return read_budgets(r, where);
	case 3: return read_samples(r, where);
	case 4: return read_report(r, where);
	default: return read_models(r, where);
	}
}

/* The next event, which must be of the given type ("expected WHAT"). */
static enum ha_status next_of_type(struct reader *r, yaml_event_type_t type,
                                   const char *what)
{
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	return r->ev.type == type ? HA_OK : expected(r, "", what);
}

static enum ha_status read_document(struct reader *r)
{
	enum ha_status st = next_of_type(r, YAML_STREAM_START_EVENT,
	                                 "the start of the file");
	if (st == HA_OK)
		st = next_of_type(r, YAML_DOCUMENT_START_EVENT,
		                  "a mapping of scenario keys");
	if (st == HA_OK)
		st = next_of_type(r, YAML_MAPPING_START_EVENT,
		                  "a mapping of scenario keys");
	if (st != HA_OK)
		return st;
	yaml_mark_t start = r->ev.start_mark;
	int seen[6] = {0};
	yaml_mark_t marks[6];
	st = read_map(r, "", top_keys, 6, top_field, NULL, seen, marks);
	if (st != HA_OK)
		return st;
	if (!seen[2] && !seen[5])
		return fail(r, start, HA_EFORMAT,
		            "expected the key 'budgets' or 'models', found neither");
	st = next_of_type(r, YAML_DOCUMENT_END_EVENT, "the end of the document");
	if (st == HA_OK)
		st = next_of_type(r, YAML_STREAM_END_EVENT, "the end of the file");
	return st;
}

/* ---- entry points ------------------------------------------------------ */

double ha_scenario_sweep_value(double from, double to, size_t points, size_t i)
{
	if (i == 0)
		return from;
	if (i + 1 >= points)
		return to;
	/* In decades: sweeps between powers of ten, the usual kind, then land
	 * exactly on the powers of ten (1e5, not 100000.00000000001). */
	double lo = log10(from), hi = log10(to);
	return pow(10.0, lo + (hi - lo) * ((double)i / (double)(points - 1)));
}

void ha_scenario_free(struct ha_scenario *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->model_count; i++) {
		free(sc->models[i].name);
		free(sc->models[i].note);
	}
	free(sc->models);
	free(sc->budgets);
	free(sc->samples);
	free(sc);
}

static void clear_error(struct ha_scenario_error *err)
{
	err->status = HA_OK;
	err->line = 0;
	err->column = 0;
	err->message[0] = '\0';
}

/* Run the reader over a parser whose input is set. */
static enum ha_status run(struct reader *r, struct ha_scenario **out)
{
	struct ha_scenario *sc = calloc(1, sizeof *sc);
	if (!sc)
		return fail_nopos(r, HA_ENOMEM, "out of memory");
	sc->model = ha_model_defaults();
	sc->report_format = HA_FORMAT_TEXT;
	r->sc = sc;

	enum ha_status st = read_document(r);
	if (r->have_event)
		yaml_event_delete(&r->ev);
	r->have_event = 0;
	if (st != HA_OK) {
		ha_scenario_free(sc);
		return st;
	}
	*out = sc;
	return HA_OK;
}

static int read_handler(void *data, unsigned char *buffer, size_t size,
                        size_t *size_read)
{
	struct reader *r = data;
	size_t n = fread(buffer, 1, size, r->file);
	if (n == 0 && ferror(r->file)) {
		r->read_failed = 1;
		return 0;
	}
	r->bytes_read += n;
	if (r->bytes_read > MAX_INPUT_BYTES) {
		r->too_large = 1;
		return 0;
	}
	*size_read = n;
	return 1;
}

enum ha_status ha_scenario_read_file(const char *path,
                                     struct ha_scenario **out,
                                     struct ha_scenario_error *err)
{
	struct ha_scenario_error scratch;
	if (!err)
		err = &scratch;
	clear_error(err);
	if (out)
		*out = NULL;
	if (!path || !out) {
		err->status = HA_EINVAL;
		snprintf(err->message, sizeof err->message,
		         "expected a path and a result pointer, found NULL");
		return HA_EINVAL;
	}

	struct reader r = {.err = err};
	r.file = ha_open_input(path);
	if (!r.file) {
		err->status = HA_EIO;
		snprintf(err->message, sizeof err->message,
		         "cannot open the file: %s", strerror(errno));
		return HA_EIO;
	}
	if (!yaml_parser_initialize(&r.parser)) {
		fclose(r.file);
		err->status = HA_ENOMEM;
		snprintf(err->message, sizeof err->message, "out of memory");
		return HA_ENOMEM;
	}
	yaml_parser_set_input(&r.parser, read_handler, &r);
	enum ha_status st = run(&r, out);
	yaml_parser_delete(&r.parser);
	fclose(r.file);
	return st;
}

enum ha_status ha_scenario_read_string(const char *text, size_t len,
                                       struct ha_scenario **out,
                                       struct ha_scenario_error *err)
{
	struct ha_scenario_error scratch;
	if (!err)
		err = &scratch;
	clear_error(err);
	if (out)
		*out = NULL;
	if ((!text && len > 0) || !out) {
		err->status = HA_EINVAL;
		snprintf(err->message, sizeof err->message,
		         "expected a text and a result pointer, found NULL");
		return HA_EINVAL;
	}
	struct reader r = {.err = err};
	if (len > MAX_INPUT_BYTES)
		return fail_nopos(&r, HA_EFORMAT,
		                  "expected at most 64 MiB of input, found more");
	if (!yaml_parser_initialize(&r.parser)) {
		err->status = HA_ENOMEM;
		snprintf(err->message, sizeof err->message, "out of memory");
		return HA_ENOMEM;
	}
	r.text = (const unsigned char *)(text ? text : "");
	r.text_length = len;
	yaml_parser_set_input_string(&r.parser, r.text, len);
	enum ha_status st = run(&r, out);
	yaml_parser_delete(&r.parser);
	return st;
}
