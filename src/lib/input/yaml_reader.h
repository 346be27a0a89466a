/* The YAML reader every YAML input of the library is read with: the
 * reading twin of the yaml_writer (library-internal, not installed).
 *
 * A small recursive-descent reader over libyaml's event stream.  Every
 * value is checked as it arrives, so an unexpected collection stops the
 * read at once (nesting depth stays bounded) and lists stop at their caps.
 * It holds, for every file format built on it, the one set of rules:
 *
 *   - anchors, aliases and explicit tags are refused wherever they are,
 *     and so is the merge key `<<`;
 *   - a key given twice in a mapping is refused, naming the first line;
 *   - keys and words ("text", "yaml") match in full: a quoted "a\0b" is
 *     not "a";
 *   - numbers and booleans must be plain scalars (a quoted "512" is a
 *     string) and follow the one grammar of headalloc/number.h;
 *   - strings are non-empty, bounded, without control characters;
 *   - control characters and NUL bytes in the input are refused by libyaml
 *     and reported at their line and column;
 *   - input larger than the caller's limit is refused.
 *
 * Errors go to struct ha_error: file = the caller's path (NULL for text
 * in memory), 1-based line and column, and a message
 *   "WHERE: expected WHAT, found FOUND"
 * where WHERE is the value's path ("models[3].heads", empty at the top)
 * and FOUND describes what is there ("'abc'", "a list", "the quoted
 * string '512'", "an empty value"...).
 *
 * A schema is a key table per mapping and a field function per key
 * (scenario.c, runs.c are examples). */
#ifndef HEADALLOC_YAML_READER_H
#define HEADALLOC_YAML_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <yaml.h>

#include <headalloc/error.h>

#include "base/error_internal.h"

/* The most keys a mapping's key table may list. */
#define HA_YR_MAX_KEYS 16
/* Room for a value's path in messages ("models[9999].note"); paths are
 * built from the schema's keys and indices, so they are short. */
#define HA_YR_MAX_WHERE 128
/* The most bytes of a scalar, tag or anchor quoted in a message. */
#define HA_YR_QUOTE_MAX 40

/* How a reader differs between formats.  The defaults (NULL) are the
 * reader's own wording; the covariance file keeps the older wording of
 * two messages that its golden outputs print. */
struct ha_yr_options {
	size_t max_bytes;         /* larger input is refused; must be > 0 */
	const char *syntax_label; /* NULL: "YAML syntax error" */
	const char *open_label;   /* NULL: "cannot open the file" */
};

struct ha_yr {
	yaml_parser_t parser;
	yaml_event_t ev;       /* the current event, when have_event */
	int have_event;
	int parser_ready;
	struct ha_error *err;  /* the caller's, or &scratch */
	struct ha_error scratch;
	const char *path;      /* the file being read; NULL for text */
	FILE *file;
	const unsigned char *text; /* or the text in memory */
	size_t text_length;
	struct ha_yr_options options;
	size_t bytes_read;
	int too_large;
	int read_failed;
};

/* ---- input ------------------------------------------------------------- */

/* Start reading the file at path / the length bytes at text (which need
 * not be NUL-terminated).  err may be NULL.  On failure (HA_EIO: cannot
 * open; HA_EFORMAT: text longer than options->max_bytes; HA_ENOMEM) err
 * says why; ha_yr_close() is safe either way. */
enum ha_status ha_yr_open_file(struct ha_yr *r, const char *path,
                               const struct ha_yr_options *options,
                               struct ha_error *err);
enum ha_status ha_yr_open_text(struct ha_yr *r, const char *text,
                               size_t length,
                               const struct ha_yr_options *options,
                               struct ha_error *err);
/* Release the parser, the current event and the file. */
void ha_yr_close(struct ha_yr *r);

/* ---- events ------------------------------------------------------------ */


/* The current event is of this type. */
int ha_yr_at(const struct ha_yr *r, yaml_event_type_t type);

/* Through the start of the document's root mapping: anything else there is
 * "expected WHAT" (e.g. "a mapping of scenario keys"). */
enum ha_status ha_yr_begin_document(struct ha_yr *r, const char *what);

/* After the root mapping: the end of the document, then of the input (a
 * second document is an error). */
enum ha_status ha_yr_end_document(struct ha_yr *r);

/* ---- errors ------------------------------------------------------------ */

/* Fill the error at a position and return status (messages are one line:
 * control characters become '?'). */
#define ha_yr_fail_at(r, at, status, ...) \
	ha_yr_placed((r), (at), ha_fail((r)->err, (status), __VA_ARGS__))
/* The error's position `at` and file the reader's; returns status. */
enum ha_status ha_yr_placed(struct ha_yr *r, yaml_mark_t at,
                            enum ha_status status);
/* The same at the current event. */
#define ha_yr_fail_here(r, status, ...) \
	ha_yr_fail_at((r), (r)->ev.start_mark, (status), __VA_ARGS__)
/* HA_ENOMEM, "out of memory", no position. */
enum ha_status ha_yr_nomem(struct ha_yr *r);

/* ---- scalars: the current event ---------------------------------------- */

/* The current event is a scalar (any style) whose whole value is word. */
int ha_yr_is_word(const struct ha_yr *r, const char *word);

/* A whole number from lo to hi (ha_parse_uint); what defaults to "an
 * integer from LO to HI". */
enum ha_status ha_yr_uint(struct ha_yr *r, const char *where,
                          const char *what, uint64_t lo, uint64_t hi,
                          uint64_t *out);

/* Whether the lower bound of a real's range is in it. */
enum ha_yr_lower {
	HA_YR_FROM,  /* lo <= v */
	HA_YR_ABOVE  /* lo < v */
};

/* A finite real (ha_parse_real) in [lo, hi] or (lo, hi]; what describes
 * the range ("a number > 0"). */
enum ha_status ha_yr_real(struct ha_yr *r, const char *where,
                          const char *what, enum ha_yr_lower lower,
                          double lo, double hi, double *out);

/* The current event is a plain number written with a leading zero
 * ("0512"), which the grammar refuses as YAML 1.1 reads it as octal: for
 * a format that words its own messages. */
int ha_yr_leading_zero(const struct ha_yr *r);

/* The current event as a plain scalar in the real grammar, without a
 * message: for a format that words its own. */
int ha_yr_plain_real(const struct ha_yr *r, double *out);

/* true or false, plain. */
enum ha_status ha_yr_bool(struct ha_yr *r, const char *where, int *out);

/* One of n words (any scalar style, matched in full); what lists them. */
enum ha_status ha_yr_word(struct ha_yr *r, const char *where,
                          const char *what, const char *const *words,
                          size_t n, size_t *out);

/* A string of 1 to max bytes without control characters, any style, in
 * a new allocation (the caller frees it). */
enum ha_status ha_yr_string(struct ha_yr *r, const char *where, size_t max,
                            char **out);

/* ---- collections ------------------------------------------------------- */

/* HA_YR_IGNORED: a key accepted (once) whose value the reader skips
 * without calling the field function, and which messages do not list
 * among the keys expected: for documents that share a file with another
 * format (a calibration report read as a scenario). */
enum { HA_YR_OPTIONAL = 0, HA_YR_REQUIRED = 1, HA_YR_IGNORED = 2 };

struct ha_yr_key {
	const char *name;
	int required; /* HA_YR_REQUIRED: missing is an error */
};

/* A mapping being read: the key table in, what was found out. */
struct ha_yr_map {
	const struct ha_yr_key *keys;
	size_t count;                       /* at most HA_YR_MAX_KEYS */
	int seen[HA_YR_MAX_KEYS];           /* out: the key was present */
	yaml_mark_t key_at[HA_YR_MAX_KEYS]; /* out: where it was */
	yaml_mark_t start;                  /* out: where the mapping began */
};

#define HA_YR_MAP(table) \
	((struct ha_yr_map){.keys = (table), \
	                    .count = sizeof(table) / sizeof((table)[0])})

/* Called with the value of keys[key] as the current event; where is its
 * path ("model.hdi"). */
typedef enum ha_status (*ha_yr_field_fn)(struct ha_yr *r, void *ctx,
                                         size_t key, const char *where);

/* Read the mapping that starts at the current event (anything else is
 * "expected WHAT"), calling fn for each key's value (but skipping the
 * values of HA_YR_IGNORED keys).  Unknown keys,
 * repeated keys, merge keys, non-scalar keys and (at the end) a missing
 * required key, in table order, are errors. */
enum ha_status ha_yr_read_map(struct ha_yr *r, const char *where,
                              const char *what, struct ha_yr_map *map,
                              ha_yr_field_fn fn, void *ctx);

/* Called with item `index` of a list as the current event; where is its
 * path ("budgets[2]"). */
typedef enum ha_status (*ha_yr_item_fn)(struct ha_yr *r, void *ctx,
                                        size_t index, const char *where);

/* Read the list that starts at the current event (anything else is
 * "expected WHAT"), calling fn for each item; more than max items is an
 * error at the first one too many.  *count is the number read. */
enum ha_status ha_yr_read_seq(struct ha_yr *r, const char *where,
                              const char *what, size_t max,
                              ha_yr_item_fn fn, void *ctx, size_t *count);


/* Make room in *array (room for *cap elements of size bytes) for element
 * `count`, doubling it; HA_ENOMEM on failure. */
enum ha_status ha_yr_grow(struct ha_yr *r, void **array, size_t *cap,
                          size_t count, size_t size);

#endif
