/* The YAML reader every YAML input shares (src/lib/input/yaml_reader.h),
 * through a schema of its own: a calibration runs file, the next format
 * that will be built on it,
 *
 *   runs:
 *     - {heads: 8, head_dim: 64, samples: 1e8, loss: 3.2, loss_se: 0.01}
 *
 * with a few extra keys to reach every kind of value (label: a string,
 * kind: a word, seeded: a boolean).  Then the same hostile input through
 * the two formats built on the reader, which must refuse it alike. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <headalloc/covariance.h>
#include <headalloc/model.h>
#include <headalloc/number.h>
#include <headalloc/scenario.h>

#include "input/yaml_reader.h"

/* ---- the schema -------------------------------------------------------- */

#define MAX_RUNS 4
#define MAX_LABEL 8
#define MAX_INPUT 4096

struct run {
	uint64_t heads, head_dim;
	double samples, loss, loss_se;
	int has_se;
	char *label;
	size_t kind;
	int seeded;
};

struct runs {
	struct run *v;
	size_t n, cap;
};

static void runs_free(struct runs *runs)
{
	for (size_t i = 0; i < runs->n; i++)
		free(runs->v[i].label);
	free(runs->v);
	memset(runs, 0, sizeof *runs);
}

static const struct ha_yr_key run_keys[] = {
	{"heads", HA_YR_REQUIRED},   {"head_dim", HA_YR_REQUIRED},
	{"samples", HA_YR_REQUIRED}, {"loss", HA_YR_REQUIRED},
	{"loss_se", HA_YR_OPTIONAL}, {"label", HA_YR_OPTIONAL},
	{"kind", HA_YR_OPTIONAL},    {"seeded", HA_YR_OPTIONAL}};

static const char *const kinds[] = {"ablation", "sweep"};

static enum ha_status run_field(struct ha_yr *r, void *ctx, size_t key,
                                const char *where)
{
	struct run *run = ctx;
	switch (key) {
	case 0:
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &run->heads);
	case 1:
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &run->head_dim);
	case 2:
		return ha_yr_real(r, where, "a number > 1", HA_YR_ABOVE, 1.0,
		                  HUGE_VAL, &run->samples);
	case 3:
		return ha_yr_real(r, where, "a number > 0", HA_YR_ABOVE, 0.0,
		                  HUGE_VAL, &run->loss);
	case 4:
		run->has_se = 1;
		return ha_yr_real(r, where, "a number >= 0", HA_YR_FROM, 0.0,
		                  HUGE_VAL, &run->loss_se);
	case 5:
		return ha_yr_string(r, where, MAX_LABEL, &run->label);
	case 6:
		return ha_yr_word(r, where, "ablation or sweep", kinds, 2,
		                  &run->kind);
	default:
		return ha_yr_bool(r, where, &run->seeded);
	}
}

static enum ha_status run_item(struct ha_yr *r, void *ctx, size_t i,
                               const char *where)
{
	struct runs *runs = ctx;
	enum ha_status st = ha_yr_grow(r, (void **)&runs->v, &runs->cap, i,
	                               sizeof *runs->v);
	if (st != HA_OK)
		return st;
	memset(&runs->v[i], 0, sizeof runs->v[i]);
	runs->n = i + 1;
	struct ha_yr_map map = HA_YR_MAP(run_keys);
	return ha_yr_read_map(r, where, "a mapping {heads, head_dim, ...}", &map,
	                      run_field, &runs->v[i]);
}

static const struct ha_yr_key top_keys[] = {{"runs", HA_YR_REQUIRED}};

static enum ha_status top_field(struct ha_yr *r, void *ctx, size_t key,
                                const char *where)
{
	(void)key;
	size_t n;
	return ha_yr_read_seq(r, where, "a list of runs", MAX_RUNS, run_item,
	                      ctx, &n);
}

static const struct ha_yr_options options = {.max_bytes = MAX_INPUT};

static enum ha_status read_runs(struct ha_yr *r, enum ha_status st,
                                struct runs *runs)
{
	memset(runs, 0, sizeof *runs);
	static const char what[] = "a mapping with the key 'runs'";
	struct ha_yr_map map = HA_YR_MAP(top_keys);
	if (st == HA_OK)
		st = ha_yr_begin_document(r, what);
	if (st == HA_OK)
		st = ha_yr_read_map(r, "", what, &map, top_field, runs);
	if (st == HA_OK)
		st = ha_yr_end_document(r);
	ha_yr_close(r);
	if (st != HA_OK)
		runs_free(runs);
	return st;
}

static enum ha_status read_text(const char *text, size_t length,
                                struct runs *runs, struct ha_error *err)
{
	struct ha_yr r;
	return read_runs(&r, ha_yr_open_text(&r, text, length, &options, err),
	                 runs);
}

/* ---- helpers ----------------------------------------------------------- */

static struct runs read_ok(const char *text)
{
	struct runs runs;
	struct ha_error err;
	enum ha_status st = read_text(text, strlen(text), &runs, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column,
	             err.message);
	cr_assert_eq(err.status, HA_OK);
	cr_assert_str_eq(err.message, "");
	return runs;
}

/* The text (length bytes) must fail with status at line:column with
 * exactly this message. */
static void bad_n(const char *text, size_t length, enum ha_status status,
                  long line, long column, const char *message)
{
	struct runs runs;
	struct ha_error err;
	enum ha_status st = read_text(text, length, &runs, &err);
	cr_assert_eq(st, status, "status %d for: %s (%s)", (int)st, text,
	             err.message);
	cr_assert_eq(err.status, status);
	cr_assert_null(runs.v);
	cr_assert_null(err.file);
	cr_assert_str_eq(err.message, message, "for: %s\ngot: %s", text,
	                 err.message);
	cr_assert(err.line == line && err.column == column,
	          "at %ld:%ld, want %ld:%ld, for: %s (%s)", err.line, err.column,
	          line, column, text, err.message);
}

static void bad(const char *text, long line, long column, const char *message)
{
	bad_n(text, strlen(text), HA_EFORMAT, line, column, message);
}

/* ---- good files -------------------------------------------------------- */

Test(yaml_reader, reads_a_runs_file)
{
	struct runs runs = read_ok(
		"# two runs\n"
		"runs:\n"
		"  - {heads: 8, head_dim: 64, samples: 1e8, loss: 3.25,\n"
		"     loss_se: 0.0}\n"
		"  - heads: 7\n"
		"    head_dim: 32\n"
		"    samples: 2.5E+9\n"
		"    loss: .5\n"
		"    label: \"a b\"\n"
		"    kind: 'sweep'\n"
		"    seeded: true\n");
	cr_assert_eq(runs.n, 2);
	cr_expect_eq(runs.v[0].heads, 8);
	cr_expect_eq(runs.v[0].head_dim, 64);
	cr_expect_eq(runs.v[0].samples, 1e8);
	cr_expect_eq(runs.v[0].loss, 3.25);
	cr_expect_eq(runs.v[0].has_se, 1);
	cr_expect_eq(runs.v[0].loss_se, 0.0);
	cr_expect_null(runs.v[0].label);
	/* leading zeros are decimal digits like any other */
	cr_expect_eq(runs.v[1].heads, 7);
	cr_expect_eq(runs.v[1].samples, 2.5e9);
	cr_expect_eq(runs.v[1].loss, 0.5);
	cr_expect_eq(runs.v[1].has_se, 0);
	cr_expect_str_eq(runs.v[1].label, "a b");
	cr_expect_eq(runs.v[1].kind, 1);
	cr_expect_eq(runs.v[1].seeded, 1);
	runs_free(&runs);

	/* The text need not be NUL-terminated. */
	const char text[] = "runs: []XXXX";
	struct ha_error err;
	cr_assert_eq(read_text(text, 8, &runs, &err), HA_OK, "%s", err.message);
	cr_expect_eq(runs.n, 0);
	runs_free(&runs);
}

/* ---- anchors, aliases, tags, merge keys --------------------------------- */

Test(yaml_reader, anchors_are_refused_everywhere)
{
	const char *msg = "expected a value, found the anchor '&a' (anchors and "
	                  "aliases are not supported)";
	bad("runs: &a []\n", 1, 7, msg);
	bad("runs:\n  - &a {heads: 1}\n", 2, 5, msg);
	bad("runs: [{heads: &a 1}]\n", 1, 16, msg);
	bad("&a runs: []\n", 1, 1, msg);
	bad("--- &a\nruns: []\n", 1, 5, msg);
}

Test(yaml_reader, aliases_are_refused)
{
	bad("runs: *r\n", 1, 7,
	    "expected a value, found the alias '*r' (anchors and aliases are "
	    "not supported)");
	bad("runs: [*r]\n", 1, 8,
	    "expected a value, found the alias '*r' (anchors and aliases are "
	    "not supported)");
}

Test(yaml_reader, tags_are_refused)
{
	bad("runs: !!seq []\n", 1, 7,
	    "expected a value, found the tag 'tag:yaml.org,2002:seq' (tags are "
	    "not supported)");
	bad("runs: [{heads: !!int 8}]\n", 1, 16,
	    "expected a value, found the tag 'tag:yaml.org,2002:int' (tags are "
	    "not supported)");
	bad("runs: [{heads: !local 8}]\n", 1, 16,
	    "expected a value, found the tag '!local' (tags are not "
	    "supported)");
	bad("!!map\nruns: []\n", 1, 1,
	    "expected a value, found the tag 'tag:yaml.org,2002:map' (tags are "
	    "not supported)");
	/* A tag's escapes decode to control bytes: the message stays one
	 * line. */
	bad("runs: !<a%0Ab> []\n", 1, 7,
	    "expected a value, found the tag 'a?b' (tags are not supported)");
	/* Long tags are cut at HA_YR_QUOTE_MAX bytes. */
	char text[128], msg[192];
	snprintf(text, sizeof text, "runs: !<%s> []\n",
	         "x123456789x123456789x123456789x123456789x123456789");
	snprintf(msg, sizeof msg,
	         "expected a value, found the tag '%.*s' (tags are not "
	         "supported)", HA_YR_QUOTE_MAX,
	         "x123456789x123456789x123456789x123456789x123456789");
	bad(text, 1, 7, msg);
}

Test(yaml_reader, merge_keys_are_refused)
{
	bad("runs:\n  - <<: {heads: 1}\n    head_dim: 2\n", 2, 5,
	    "runs[0]: expected a key, found the merge key '<<' (merge keys are "
	    "not supported)");
	bad("<<: {runs: []}\n", 1, 1,
	    "expected a key, found the merge key '<<' (merge keys are not "
	    "supported)");
	/* Quoted, "<<" is a plain string key: unknown here. */
	bad("\"<<\": 1\n", 1, 1,
	    "expected one of the keys runs, found the quoted string '<<'");
}

/* ---- keys --------------------------------------------------------------- */

Test(yaml_reader, duplicate_unknown_and_missing_keys)
{
	bad("runs: []\nruns: []\n", 2, 1,
	    "expected each key once, found 'runs' again (first at line 1)");
	/* The same key spelled quoted is the same key. */
	bad("runs:\n  - heads: 1\n    \"heads\": 2\n", 3, 5,
	    "runs[0]: expected each key once, found 'heads' again (first at "
	    "line 2)");
	bad("runs: [{heads: 1, head: 2}]\n", 1, 19,
	    "runs[0]: expected one of the keys heads, head_dim, samples, loss, "
	    "loss_se, label, kind, seeded, found 'head'");
	bad("runs: [{heads: 1, head_dim: 2, loss: 1}]\n", 1, 8,
	    "runs[0]: expected the key 'samples' in this mapping, found none");
	bad("{}\n", 1, 1, "expected the key 'runs' in this mapping, found none");
	bad("runs: []\n? [a]\n: 1\n", 2, 3, "expected a key, found a list");
}

Test(yaml_reader, keys_and_words_match_in_full)
{
	/* "runs\0x" is not "runs", nor "sweep\0" "sweep". */
	bad("\"runs\\0x\": []\n", 1, 1,
	    "expected one of the keys runs, found the quoted string 'runs?x'");
	bad("runs: [{heads: 1, head_dim: 2, samples: 3, loss: 1, "
	    "kind: \"sweep\\0\"}]\n",
	    1, 59,
	    "runs[0].kind: expected ablation or sweep, found the quoted string "
	    "'sweep?'");
	bad("runs: [{heads: 1, head_dim: 2, samples: 3, loss: 1, kind: Sweep}]\n",
	    1, 59, "runs[0].kind: expected ablation or sweep, found 'Sweep'");
}

/* ---- scalars ------------------------------------------------------------ */

Test(yaml_reader, numbers_and_booleans_must_be_plain)
{
	bad("runs: [{heads: \"8\"}]\n", 1, 16,
	    "runs[0].heads: expected an integer from 1 to 9223372036854775807, "
	    "found the quoted string '8'");
	bad("runs: [{heads: 8, head_dim: 1, samples: '1e8'}]\n", 1, 41,
	    "runs[0].samples: expected a number > 1, found the quoted string "
	    "'1e8'");
	bad("runs: [{heads: 8, head_dim: 1, samples: 2, loss: 1, seeded: "
	    "'true'}]\n",
	    1, 61,
	    "runs[0].seeded: expected true or false, found the quoted string "
	    "'true'");
	bad("runs: [{heads: 8, head_dim: 1, samples: 2, loss: 1, seeded: yes}]\n",
	    1, 61, "runs[0].seeded: expected true or false, found 'yes'");
}

Test(yaml_reader, numbers_follow_the_one_grammar)
{
	const char *uint_msg = "runs[0].heads: expected an integer from 1 to "
	                       "9223372036854775807, found ";
	const char *bad_uints[] = {"+8", "8.0", "8e0", "0x8", "0", "-1",
	                           "9223372036854775808", "1_000", "~"};
	for (size_t i = 0; i < sizeof bad_uints / sizeof *bad_uints; i++) {
		char text[96], msg[160];
		snprintf(text, sizeof text, "runs: [{heads: %s}]\n", bad_uints[i]);
		snprintf(msg, sizeof msg, "%s'%s'", uint_msg, bad_uints[i]);
		bad(text, 1, 16, msg);
	}
	const char *bad_reals[] = {".inf", ".nan", "0x10", "1e", "1e400",
	                           "1..5", "5 kg", "1e8x"};
	for (size_t i = 0; i < sizeof bad_reals / sizeof *bad_reals; i++) {
		char text[96], msg[160];
		snprintf(text, sizeof text,
		         "runs: [{heads: 1, head_dim: 1, samples: %s}]\n",
		         bad_reals[i]);
		snprintf(msg, sizeof msg,
		         "runs[0].samples: expected a number > 1, found '%s'",
		         bad_reals[i]);
		bad(text, 1, 41, msg);
	}
	/* Ranges: > 0 is open, >= 0 closed. */
	bad("runs: [{heads: 1, head_dim: 1, samples: 2, loss: 0}]\n", 1, 50,
	    "runs[0].loss: expected a number > 0, found '0'");
	struct runs runs = read_ok("runs: [{heads: 1, head_dim: 1, samples: 2, "
	                           "loss: 1e-300, loss_se: -0}]\n");
	cr_expect_eq(runs.v[0].loss, 1e-300);
	cr_expect_eq(runs.v[0].loss_se, 0.0);
	runs_free(&runs);
	/* A real of more than HA_NUMBER_MAX_LENGTH characters. */
	char text[256], digits[HA_NUMBER_MAX_LENGTH + 2];
	memset(digits, '1', sizeof digits - 1);
	digits[sizeof digits - 1] = '\0';
	snprintf(text, sizeof text,
	         "runs: [{heads: 1, head_dim: 1, samples: %s}]\n", digits);
	bad(text, 1, 41,
	    "runs[0].samples: expected a number > 1, found "
	    "'1111111111111111111111111111111111111...'");
	digits[HA_NUMBER_MAX_LENGTH] = '\0';
	snprintf(text, sizeof text,
	         "runs: [{heads: 1, head_dim: 1, samples: %s, loss: 1}]\n",
	         digits);
	runs = read_ok(text);
	cr_expect(fabs(runs.v[0].samples / 1.111111111111111e63 - 1.0) < 1e-15);
	runs_free(&runs);
}

Test(yaml_reader, strings)
{
	const char *w = "runs[0].label: expected a string of 1 to 8 bytes "
	                "without control characters, found ";
	char msg[200];
	snprintf(msg, sizeof msg, "%sthe quoted string ''", w);
	bad("runs: [{label: ''}]\n", 1, 16, msg);
	snprintf(msg, sizeof msg, "%s'123456789'", w);
	bad("runs: [{label: 123456789}]\n", 1, 16, msg);
	snprintf(msg, sizeof msg, "%sthe quoted string 'a?b'", w);
	bad("runs: [{label: \"a\\0b\"}]\n", 1, 16, msg);
	snprintf(msg, sizeof msg, "%sthe quoted string 'a?b'", w);
	bad("runs: [{label: \"a\\tb\"}]\n", 1, 16, msg);
	snprintf(msg, sizeof msg, "%sa list", w);
	bad("runs: [{label: [x]}]\n", 1, 16, msg);
	snprintf(msg, sizeof msg, "%san empty value", w);
	bad("runs: [{label: }]\n", 1, 16, msg);
	/* Quoted scalars in messages are cut, but not inside a character. */
	bad("runs: [{label: "
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9}]\n",
	    1, 16,
	    "runs[0].label: expected a string of 1 to 8 bytes without control "
	    "characters, found '"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9...'");
}

/* A plain scalar another YAML reader takes for null, a boolean, a number
 * or a date is no string: refused, and quoting it makes it one. */
#define REST "heads: 1, head_dim: 1, samples: 2, loss: 1"

Test(yaml_reader, strings_read_two_ways_are_refused)
{
	const struct {
		const char *value, *as;
	} cases[] = {
		{"~", "null"},         {"null", "null"},    {"NULL", "null"},
		{"yes", "a boolean"},  {"off", "a boolean"}, {"Y", "a boolean"},
		{"1e3", "a number"},   {"-2", "a number"},  {".inf", "a number"},
		{"0x1F", "a number"},  {"0o17", "a number"},
		{"1_000", "a number or a date"}, {"1:30", "a number or a date"},
		{"2024-1-3", "a number or a date"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[128], msg[200];
		snprintf(text, sizeof text, "runs: [{label: %s, " REST "}]\n",
		         cases[i].value);
		snprintf(msg, sizeof msg, "runs[0].label: expected a string, found "
		         "'%s', which YAML also reads as %s (quote it to mean the "
		         "text)", cases[i].value, cases[i].as);
		bad(text, 1, 16, msg);
		snprintf(text, sizeof text, "runs: [{label: '%s', " REST "}]\n",
		         cases[i].value);
		struct runs runs = read_ok(text);
		cr_expect_str_eq(runs.v[0].label, cases[i].value);
		runs_free(&runs);
	}
	/* names that are only text stay plain */
	struct runs runs = read_ok("runs: [{label: 7B, " REST "}]\n");
	cr_expect_str_eq(runs.v[0].label, "7B");
	runs_free(&runs);
	/* C1 controls (U+009B is a one-byte CSI) and bidi overrides are
	 * control characters too, and shown as '?' */
	const char *w = "runs[0].label: expected a string of 1 to 8 bytes "
	                "without control characters, found the quoted string ";
	char msg[200];
	snprintf(msg, sizeof msg, "%s'a?b'", w);
	bad("runs: [{label: \"a\\u009bb\"}]\n", 1, 16, msg);
	bad("runs: [{label: \"a\\u202eb\"}]\n", 1, 16, msg);
}

/* ---- the input ----------------------------------------------------------- */

Test(yaml_reader, nul_and_control_characters_in_the_input)
{
	/* libyaml refuses them; the reader points at the byte. */
	const char nul[] = "runs: []\n# \0\n";
	bad_n(nul, sizeof nul - 1, HA_EFORMAT, 2, 3,
	      "invalid input: control characters are not allowed (byte offset "
	      "11)");
	bad("runs:\n  - {heads: \x01}\n", 2, 13,
	    "invalid input: control characters are not allowed (byte offset "
	    "18)");
	bad("runs: [] \x7f\n", 1, 10,
	    "invalid input: control characters are not allowed (byte offset 9)");
	bad("runs: [\xff]\n", 1, 8,
	    "invalid input: invalid leading UTF-8 octet (byte offset 7)");
}

Test(yaml_reader, structure_and_positions)
{
	bad("", 1, 1,
	    "expected a mapping with the key 'runs', found the end of the file");
	bad("- 1\n", 1, 1,
	    "expected a mapping with the key 'runs', found a list");
	bad("runs: []\n---\nruns: []\n", 2, 1,
	    "expected the end of the file, found a second document");
	bad("runs: {heads: 1}\n", 1, 7,
	    "runs: expected a list of runs, found a mapping");
	bad("runs:\n  - 42\n", 2, 5,
	    "runs[0]: expected a mapping {heads, head_dim, ...}, found '42'");
	bad("runs: [{heads: 1, head_dim: 1, samples: 2, loss: 1}\n", 2, 1,
	    "YAML syntax error: did not find expected ',' or ']' while parsing "
	    "a flow sequence");
	bad("runs: [{}, {}, {}, {}, {}]\n", 1, 8,
	    "runs[0]: expected the key 'heads' in this mapping, found none");
	bad("runs:\n  - {heads: 1, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 2, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 3, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 4, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 5, head_dim: 1, samples: 2, loss: 1}\n",
	    6, 5, "runs: expected at most 4 entries, found more");
	/* Deep nesting stops at the first unexpected collection. */
	char deep[4096] = "runs: [{heads: ";
	memset(deep + strlen(deep), '[', 3000);
	bad(deep, 1, 16,
	    "runs[0].heads: expected an integer from 1 to 9223372036854775807, "
	    "found a list");
}

Test(yaml_reader, input_limit)
{
	char *text = malloc(MAX_INPUT + 2);
	cr_assert_not_null(text);
	memcpy(text, "runs: []\n", 9);
	memset(text + 9, '#', MAX_INPUT + 1 - 9);
	text[MAX_INPUT + 1] = '\0';
	char msg[96];
	snprintf(msg, sizeof msg,
	         "expected at most %d bytes of input, found more", MAX_INPUT);
	bad_n(text, MAX_INPUT + 1, HA_EFORMAT, 0, 0, msg);
	/* At the limit it reads. */
	struct runs runs;
	struct ha_error err;
	cr_expect_eq(read_text(text, MAX_INPUT, &runs, &err), HA_OK, "%s",
	             err.message);
	runs_free(&runs);
	free(text);
}

static const char *temp_file(const char *text, size_t length)
{
	static char path[512];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/ha-yaml-reader-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, length), (ssize_t)length);
	cr_assert_eq(close(fd), 0);
	return path;
}

Test(yaml_reader, files)
{
	struct ha_yr r;
	struct runs runs;
	struct ha_error err;

	const char good[] = "runs: [{heads: 1, head_dim: 2, samples: 3, loss: 4}]\n";
	const char *path = temp_file(good, sizeof good - 1);
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, path, &options, &err),
	                       &runs),
	             HA_OK, "%s", err.message);
	cr_expect_eq(runs.v[0].loss, 4.0);
	runs_free(&runs);
	unlink(path);

	/* err->file is the caller's path, with the position in it. */
	const char nul[] = "runs: []\n\n  \0";
	path = temp_file(nul, sizeof nul - 1);
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, path, &options, &err),
	                       &runs),
	             HA_EFORMAT);
	cr_expect_eq(err.file, path);
	cr_expect_eq(err.line, 3);
	cr_expect_eq(err.column, 3);
	cr_expect_str_eq(err.message, "invalid input: control characters are "
	                              "not allowed (byte offset 12)");
	unlink(path);

	/* Larger than the limit: found while streaming. */
	char *big = malloc(MAX_INPUT + 100);
	cr_assert_not_null(big);
	memcpy(big, "runs: []\n", 9);
	memset(big + 9, '#', MAX_INPUT + 100 - 9);
	path = temp_file(big, MAX_INPUT + 100);
	free(big);
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, path, &options, &err),
	                       &runs),
	             HA_EFORMAT);
	cr_expect_eq(err.file, path);
	cr_expect(strstr(err.message, "expected at most 4096 bytes of input"),
	          "%s", err.message);
	unlink(path);

	/* Cannot open: no position, the file named; a directory too. */
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, "/nonexistent/x.yaml",
	                                           &options, &err),
	                       &runs),
	             HA_EIO);
	cr_expect_str_eq(err.file, "/nonexistent/x.yaml");
	cr_expect_eq(err.line, 0);
	cr_expect_str_eq(err.message,
	                 "cannot open the file: No such file or directory");
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, "/", &options, &err),
	                       &runs),
	             HA_EIO);
	cr_expect_eq(err.line, 0);

	/* The wording options. */
	struct ha_yr_options worded = {.max_bytes = MAX_INPUT,
	                               .syntax_label = "YAML syntax",
	                               .open_label = "cannot open"};
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, "/nonexistent/x.yaml",
	                                           &worded, &err),
	                       &runs),
	             HA_EIO);
	cr_expect_str_eq(err.message, "cannot open: No such file or directory");
	const char *broken = "runs: [\n";
	cr_assert_eq(read_runs(&r, ha_yr_open_text(&r, broken, strlen(broken),
	                                           &worded, &err),
	                       &runs),
	             HA_EFORMAT);
	cr_expect(strncmp(err.message, "YAML syntax: ", 13) == 0, "%s",
	          err.message);

	/* err may be NULL. */
	cr_assert_eq(read_runs(&r, ha_yr_open_text(&r, broken, strlen(broken),
	                                           &options, NULL),
	                       &runs),
	             HA_EFORMAT);
}

/* ---- the formats built on the reader agree ------------------------------- */

/* The message of a failed scenario / covariance text. */
static void scenario_message(const char *text, char *msg, size_t size)
{
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	cr_assert_neq(ha_scenario_read_string(text, strlen(text), &sc, &err),
	              HA_OK, "%s", text);
	snprintf(msg, size, "%ld:%ld: %s", err.line, err.column, err.message);
}

static void covariance_message(const char *text, char *msg, size_t size)
{
	double *sigma = NULL;
	size_t heads;
	struct ha_error err;
	cr_assert_neq(ha_covariance_parse(text, strlen(text), &sigma, &heads,
	                                  &err),
	              HA_OK, "%s", text);
	snprintf(msg, size, "%ld:%ld: %s", err.line, err.column, err.message);
}

Test(yaml_reader, scenario_and_covariance_refuse_alike)
{
	/* The same construct at the same position of both formats: the key
	 * is padded to the same width. */
	const struct {
		const char *scenario, *covariance, *message;
	} cases[] = {
		{"budgets:    &a [1]\n", "covariance: &a [[1]]\n",
		 "1:13: expected a value, found the anchor '&a' (anchors and "
		 "aliases are not supported)"},
		{"budgets:    *a\n", "covariance: *a\n",
		 "1:13: expected a value, found the alias '*a' (anchors and "
		 "aliases are not supported)"},
		{"budgets:    !!seq [1]\n", "covariance: !!seq [[1]]\n",
		 "1:13: expected a value, found the tag 'tag:yaml.org,2002:seq' "
		 "(tags are not supported)"},
		{"budgets: [1]\n<<: {a: 1}\n", "covariance: [[1]]\n<<: {a: 1}\n",
		 "2:1: expected a key, found the merge key '<<' (merge keys are "
		 "not supported)"},
		{"budgets: [1]\nbudgets: [1]\n",
		 "covariance: [[1]]\ncovariance: [[1]]\n", NULL},
		{"budgets: [1]\n---\n", "covariance: [[1]]\n---\n",
		 "2:1: expected the end of the file, found a second document"},
		{"budgets: [1]\n\x01\n", "covariance: [[1]]\n\x01\n", NULL},
		{"budgets: [1]\n\"x\\0\": 1\n", "covariance: [[1]]\n\"x\\0\": 1\n",
		 NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char s[HA_ERROR_MESSAGE_MAX + 32], c[HA_ERROR_MESSAGE_MAX + 32];
		scenario_message(cases[i].scenario, s, sizeof s);
		covariance_message(cases[i].covariance, c, sizeof c);
		if (cases[i].message) {
			cr_expect_str_eq(s, cases[i].message);
			cr_expect_str_eq(c, cases[i].message);
		} else {
			/* Same refusal; the messages differ only in what they
			 * name (the key table, a byte offset), so compare the
			 * position and the kind of message. */
			cr_expect_eq(strncmp(s, c, 4), 0, "'%s' vs '%s'", s, c);
			cr_expect(strstr(s, "expected") || strstr(s, "invalid"),
			          "%s", s);
			cr_expect(strstr(c, "expected") || strstr(c, "invalid"),
			          "%s", c);
		}
	}
}
