/* The YAML reader's values: scalars of the one grammar (numbers,
 * booleans, words, strings) and collections (maps with a key table,
 * sequences, skipping, growing arrays).  The events and errors they are
 * read from are in yaml_reader.c; the interface is yaml_reader.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "base/text.h"

#include "yaml_reader.h"
#include "yaml_reader_internal.h"

/* ---- scalars ----------------------------------------------------------- */

int ha_yr_is_plain(const struct ha_yr *r)
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
	if (!ha_yr_is_plain(r) ||
	    ha_parse_uint((const char *)r->ev.data.scalar.value, lo, hi, out) !=
	            HA_OK)
		return ha_yr_expected(r, where, what);
	return HA_OK;
}

int ha_yr_plain_real(const struct ha_yr *r, double *out)
{
	return ha_yr_is_plain(r) &&
	       ha_parse_real((const char *)r->ev.data.scalar.value, out) == HA_OK;
}

enum ha_status ha_yr_real(struct ha_yr *r, const char *where,
                          const char *what, enum ha_yr_lower lower,
                          double lo, double hi, double *out)
{
	double v;
	if (!ha_yr_plain_real(r, &v) || v < lo || v > hi ||
	    (lower == HA_YR_ABOVE && v == lo))
		return ha_yr_expected(r, where, what);
	*out = v;
	return HA_OK;
}

enum ha_status ha_yr_bool(struct ha_yr *r, const char *where, int *out)
{
	if (ha_yr_is_plain(r)) {
		const char *s = (const char *)r->ev.data.scalar.value;
		if (!strcmp(s, "true") || !strcmp(s, "false")) {
			*out = s[0] == 't';
			return HA_OK;
		}
	}
	return ha_yr_expected(r, where, "true or false");
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
	return ha_yr_expected(r, where, what);
}

static int has_control_character(const unsigned char *s, size_t length)
{
	return ha_text_unsafe_at((const char *)s, length, NULL) < length;
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
	    has_control_character(ev->data.scalar.value,
	                          ev->data.scalar.length)) {
		char what[HA_YR_WHAT_SIZE];
		snprintf(what, sizeof what, "a string of 1 to %zu bytes without "
		         "control characters", max);
		return ha_yr_expected(r, where, what);
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
		                       ha_yr_describe(ev, buf), other);
	}
	char *s = malloc(ev->data.scalar.length + 1);
	if (!s)
		return ha_yr_nomem(r);
	memcpy(s, ev->data.scalar.value, ev->data.scalar.length + 1);
	*out = s;
	return HA_OK;
}

/* ---- collections ------------------------------------------------------- */

/* where + sep + name into a path buffer; a path too long for it is cut
 * (it is only ever printed). */
static void join(char path[HA_YR_MAX_WHERE], const char *where,
                 const char *name)
{
	if (snprintf(path, HA_YR_MAX_WHERE, "%s%s%s", where, *where ? "." : "",
	             name) < 0)
		path[0] = '\0';
}

static void join_index(char path[HA_YR_MAX_WHERE], const char *where,
                       size_t index)
{
	if (snprintf(path, HA_YR_MAX_WHERE, "%s[%zu]", where, index) < 0)
		path[0] = '\0';
}

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
	                       ha_yr_describe(&r->ev, buf));
}

/* The current key event's index in the table, or map->count. */
static size_t key_index(const struct ha_yr *r, const struct ha_yr_map *map)
{
	size_t i = 0;
	while (i < map->count && !ha_yr_is_word(r, map->keys[i].name))
		i++;
	return i;
}

enum ha_status ha_yr_read_map(struct ha_yr *r, const char *where,
                              const char *what, struct ha_yr_map *map,
                              ha_yr_field_fn fn, void *ctx)
{
	if (!ha_yr_at(r, YAML_MAPPING_START_EVENT))
		return ha_yr_expected(r, where, what);
	map->start = r->ev.start_mark;
	for (;;) {
		enum ha_status st = ha_yr_next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return ha_yr_expected(r, where, "a key");
		/* YAML 1.1's merge key copies another mapping in; its usual
		 * source is an alias, refused anyway. */
		if (ha_yr_is_plain(r) && ha_yr_is_word(r, "<<"))
			return ha_yr_fail_here(r, HA_EFORMAT,
			                       "%s%sexpected a key, found the merge "
			                       "key '<<' (merge keys are not "
			                       "supported)",
			                       where, *where ? ": " : "");
		size_t i = key_index(r, map);
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

		char path[HA_YR_MAX_WHERE];
		join(path, where, map->keys[i].name);
		st = ha_yr_next(r);
		if (st == HA_OK)
			st = map->keys[i].required == HA_YR_IGNORED
			             ? ha_yr_skip(r)
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
		return ha_yr_expected(r, where, what);
	for (;;) {
		enum ha_status st = ha_yr_next(r);
		if (st != HA_OK)
			return st;
		if (r->ev.type == YAML_SEQUENCE_END_EVENT)
			return HA_OK;
		if (*count >= max)
			return ha_yr_fail_here(r, HA_EFORMAT,
			                       "%s%sexpected at most %zu entries, "
			                       "found more",
			                       where, *where ? ": " : "", max);
		char path[HA_YR_MAX_WHERE];
		join_index(path, where, *count);
		st = fn(r, ctx, *count, path);
		if (st != HA_OK)
			return st;
		(*count)++;
	}
}

enum ha_status ha_yr_skip(struct ha_yr *r)
{
	if (ha_yr_at(r, YAML_SCALAR_EVENT))
		return HA_OK;
	if (!ha_yr_at(r, YAML_SEQUENCE_START_EVENT) &&
	    !ha_yr_at(r, YAML_MAPPING_START_EVENT))
		return ha_yr_expected(r, "", "a value");
	/* Inside a collection the parser yields only values and the ends of
	 * collections (aliases are refused by ha_yr_next), so counting
	 * starts and ends finds the end of this one. */
	for (size_t depth = 1; depth > 0;) {
		enum ha_status st = ha_yr_next(r);
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
