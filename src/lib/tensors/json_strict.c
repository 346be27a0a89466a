/* Strict JSON (RFC 8259) before json-c builds the tree (see
 * json_strict.h).  A recursive descent whose depth is bounded by the
 * caller's limit, so a hostile file cannot exhaust the stack. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tensors/json_strict.h"

/* A key as written (escapes unread), and where. */
struct raw_key {
	const char *at;
	size_t len;
};

/* An integer literal beyond 64 bits: which integer of the text (in
 * document order) and its text. */
struct big_int {
	size_t ordinal;
	const char *at;
	size_t len;
};

struct parser {
	const char *s;
	size_t n, i, depth, max_depth;
	struct json_strict_fault *fault;
	struct raw_key *keys; /* of the objects open, innermost last */
	size_t nkeys, cap_keys;
	size_t text_keys;     /* keys in the whole text */
	size_t top_keys;      /* keys of the top-level object */
	struct big_int *big;
	size_t nbig, cap_big;
	size_t ints;          /* integer literals so far */
	int nomem;
};

static int fail(struct parser *p, size_t at, const char *why)
{
	if (!p->fault->why) {
		p->fault->at = at;
		p->fault->why = why;
	}
	return 0;
}

static void skip_space(struct parser *p)
{
	while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]) && p->s[p->i])
		p->i++;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at p->i (a '"'); p->i ends past its closing quote. */
static int string(struct parser *p)
{
	size_t start = p->i++;
	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			p->i++;
			return 1;
		}
		if (c < 0x20)
			return fail(p, p->i, "a control character inside a "
			            "string (write it as an escape)");
		if (c != '\\') {
			p->i++;
			continue;
		}
		char e = p->i + 1 < p->n ? p->s[p->i + 1] : '\0';
		if (e == 'u') {
			for (size_t k = 2; k < 6; k++)
				if (p->i + k >= p->n || !is_hex(p->s[p->i + k]))
					return fail(p, p->i, "a \\u escape without "
					            "four hexadecimal digits");
			if (strncmp(p->s + p->i + 2, "0000", 4) == 0)
				return fail(p, p->i, "a NUL character (\\u0000) "
				            "inside a string");
			p->i += 6;
		} else if (e && strchr("\"\\/bfnrt", e)) {
			p->i += 2;
		} else {
			return fail(p, p->i, "an escape JSON does not have");
		}
	}
	return fail(p, start, "a string without its closing quote");
}

/* Room in *array (*cap elements of size bytes) for element n, starting
 * at first elements; out of memory fails at byte start. */
static int grow(struct parser *p, void **array, size_t *cap, size_t n,
                size_t first, size_t size, size_t start)
{
	if (n < *cap)
		return 1;
	size_t next = *cap ? 2 * *cap : first;
	void *grown = realloc(*array, next * size);
	if (!grown) {
		p->nomem = 1;
		return fail(p, start, "out of memory");
	}
	*array = grown;
	*cap = next;
	return 1;
}

/* "18446744073709551615" < digits, both without sign or leading zero. */
static int beyond(const char *digits, size_t len, const char *limit)
{
	size_t ll = strlen(limit);
	return len != ll ? len > ll : memcmp(digits, limit, len) > 0;
}

static int number(struct parser *p)
{
	size_t start = p->i;
	int negative = p->s[p->i] == '-';
	if (negative)
		p->i++;
	size_t digits = p->i;
	if (p->i >= p->n || !is_digit(p->s[p->i]))
		return fail(p, start, "a minus sign without digits");
	if (p->s[p->i] == '0' && p->i + 1 < p->n && is_digit(p->s[p->i + 1]))
		return fail(p, start, "a number with a leading zero");
	while (p->i < p->n && is_digit(p->s[p->i]))
		p->i++;
	size_t ndigits = p->i - digits;
	int integer = 1;
	if (p->i < p->n && p->s[p->i] == '.') {
		integer = 0;
		p->i++;
		if (p->i >= p->n || !is_digit(p->s[p->i]))
			return fail(p, start, "a decimal point without digits "
			            "after it");
		while (p->i < p->n && is_digit(p->s[p->i]))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		integer = 0;
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (p->i >= p->n || !is_digit(p->s[p->i]))
			return fail(p, start, "an exponent without digits");
		while (p->i < p->n && is_digit(p->s[p->i]))
			p->i++;
	}
	if (!integer)
		return 1;
	size_t ordinal = p->ints++;
	if (!beyond(p->s + digits, ndigits,
	            negative ? "9223372036854775808" : "18446744073709551615"))
		return 1;
	if (!grow(p, (void **)&p->big, &p->cap_big, p->nbig, 8,
	          sizeof *p->big, start))
		return 0;
	p->big[p->nbig++] = (struct big_int){ordinal, p->s + start,
	                                     p->i - start};
	return 1;
}

static int value(struct parser *p);

static int cmp_key(const void *a, const void *b)
{
	const struct raw_key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->at, y->at, n);
	if (c)
		return c;
	if (x->len != y->len)
		return (x->len > y->len) - (x->len < y->len);
	return (x->at > y->at) - (x->at < y->at); /* the later one last */
}

/* The keys of the object just closed, from `first`: none twice. */
static int distinct_keys(struct parser *p, size_t first)
{
	size_t m = p->nkeys - first;
	struct raw_key *k = p->keys + first;
	qsort(k, m, sizeof *k, cmp_key);
	for (size_t j = 1; j < m; j++)
		if (k[j].len == k[j - 1].len &&
		    memcmp(k[j].at, k[j - 1].at, k[j].len) == 0) {
			p->fault->depth = p->depth + 1; /* closed: one out */
			p->fault->len = k[j].len;
			return fail(p, (size_t)(k[j].at - 1 - p->s),
			            "a key given twice in one object");
		}
	p->nkeys = first;
	return 1;
}

static int push_key(struct parser *p, size_t start)
{
	if (!grow(p, (void **)&p->keys, &p->cap_keys, p->nkeys, 64,
	          sizeof *p->keys, start))
		return 0;
	p->keys[p->nkeys++] = (struct raw_key){p->s + start + 1,
	                                       p->i - start - 2};
	p->text_keys++;
	p->top_keys += p->depth == 1;
	return 1;
}

/* An array or object at p->i. */
static int container(struct parser *p)
{
	char open = p->s[p->i], close = open == '{' ? '}' : ']';
	if (++p->depth > p->max_depth)
		return fail(p, p->i, "nested too deep");
	size_t first = p->nkeys;
	p->i++;
	skip_space(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		p->depth--;
		return 1;
	}
	for (;;) {
		skip_space(p);
		if (open == '{') {
			if (p->i < p->n && p->s[p->i] == '}')
				return fail(p, p->i, "a comma before '}'");
			if (p->i >= p->n || p->s[p->i] != '"')
				return p->i < p->n && p->s[p->i] == '\''
				               ? fail(p, p->i, "a single-quoted "
				                      "string")
				               : fail(p, p->i, "a key must be a "
				                      "double-quoted string");
			size_t start = p->i;
			if (!string(p) || !push_key(p, start))
				return 0;
			skip_space(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return fail(p, p->i, "a ':' expected after the "
				            "key");
			p->i++;
			skip_space(p);
		} else if (p->i < p->n && p->s[p->i] == ']') {
			return fail(p, p->i, "a comma before ']'");
		}
		if (!value(p))
			return 0;
		skip_space(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close)
			break;
		if (p->i < p->n && p->s[p->i] == '/')
			return fail(p, p->i, "a comment (JSON has none)");
		return fail(p, p->i, open == '{' ? "a ',' or '}' expected"
		                                 : "a ',' or ']' expected");
	}
	p->i++;
	p->depth--;
	return open == '{' ? distinct_keys(p, first) : 1;
}

static int literal(struct parser *p, const char *word)
{
	size_t len = strlen(word);
	if (p->n - p->i < len || memcmp(p->s + p->i, word, len) != 0)
		return 0;
	p->i += len;
	return 1;
}

static int value(struct parser *p)
{
	if (p->i >= p->n)
		return fail(p, p->i, "unexpected end of file");
	char c = p->s[p->i];
	if (c == '{' || c == '[')
		return container(p);
	if (c == '"')
		return string(p);
	if (c == '-' || is_digit(c))
		return number(p);
	if (literal(p, "true") || literal(p, "false") || literal(p, "null"))
		return 1;
	if (c == '\'')
		return fail(p, p->i, "a single-quoted string");
	if (c == '/')
		return fail(p, p->i, "a comment (JSON has none)");
	if (c == 'N' || c == 'I' || c == '+')
		return fail(p, p->i, "NaN, Infinity or a '+' sign (not JSON "
		            "numbers)");
	return fail(p, p->i, "a JSON value expected");
}

/* Give the integers beyond 64 bits their text (document order: json-c
 * keeps an object's keys in the order written, and no key is given
 * twice); count the keys of the tree. */
static int mark(json_object *v, struct parser *p, size_t *ints, size_t *next,
                size_t *keys)
{
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, child) {
			(void)k;
			++*keys;
			if (!mark(child, p, ints, next, keys))
				return 0;
		}
	} else if (json_object_is_type(v, json_type_array)) {
		size_t len = json_object_array_length(v);
		for (size_t i = 0; i < len; i++)
			if (!mark(json_object_array_get_idx(v, i), p, ints, next,
			          keys))
				return 0;
	} else if (json_object_is_type(v, json_type_int)) {
		size_t ordinal = (*ints)++;
		if (*next < p->nbig && p->big[*next].ordinal == ordinal) {
			struct big_int *b = &p->big[(*next)++];
			char *text = malloc(b->len + 1);
			if (!text)
				return 0;
			memcpy(text, b->at, b->len);
			text[b->len] = '\0';
			json_object_set_serializer(v,
			                           json_object_userdata_to_json_string,
			                           text, json_object_free_userdata);
		}
	}
	return 1;
}

int json_strict_int_overflowed(json_object *v)
{
	return json_object_is_type(v, json_type_int) &&
	       json_object_get_userdata(v) != NULL;
}

/* The grammar pass; p->fault says where it fails. */
static enum ha_status check(struct parser *p)
{
	*p->fault = (struct json_strict_fault){0, NULL, 0, 0};
	skip_space(p);
	if (value(p)) {
		skip_space(p);
		if (p->i < p->n)
			fail(p, p->i, p->s[p->i] == '\0' ? "a NUL byte"
			                                  : "text after the JSON value");
	}
	if (p->nomem)
		return HA_ENOMEM;
	return p->fault->why ? HA_EFORMAT : HA_OK;
}

enum ha_status json_strict_check(const char *text, size_t n, size_t max_depth,
                                 struct json_strict_fault *fault,
                                 size_t *keys, size_t *top_keys)
{
	struct parser p = {.s = text, .n = n, .max_depth = max_depth,
	                   .fault = fault};
	enum ha_status st = check(&p);
	*keys = p.text_keys;
	*top_keys = p.top_keys;
	free(p.keys);
	free(p.big);
	return st;
}

enum ha_status json_strict_parse(const char *text, size_t n,
                                 size_t max_depth, json_object **out,
                                 struct json_strict_fault *fault)
{
	struct parser p = {.s = text, .n = n, .max_depth = max_depth,
	                   .fault = fault};
	*out = NULL;
	json_object *root = NULL;
	enum ha_status st = check(&p);
	if (st != HA_OK)
		goto out;
	st = HA_ENOMEM;
	/* The grammar holds: json-c builds the tree (and checks UTF-8). */
	json_tokener *tok = json_tokener_new_ex((int)max_depth + 1);
	if (!tok)
		goto out;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	                            JSON_TOKENER_ALLOW_TRAILING_CHARS |
	                            JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text, (int)n + 1);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	st = HA_EFORMAT;
	if (!root || jerr != json_tokener_success) {
		fail(&p, end < n ? end : n, json_tokener_error_desc(jerr));
		goto out;
	}
	size_t ints = 0, next = 0, keys = 0;
	if (!mark(root, &p, &ints, &next, &keys)) {
		st = HA_ENOMEM;
		goto out;
	}
	if (keys != p.text_keys) {
		fail(&p, 0, "a key given twice in one object (spelt with "
		     "different escapes)");
		goto out;
	}
	*out = root;
	root = NULL;
	st = HA_OK;
out:
	json_object_put(root);
	free(p.keys);
	free(p.big);
	return st;
}
