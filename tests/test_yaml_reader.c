/* The YAML reader every YAML input shares (src/lib/input/yaml_reader.h),
 * through a schema of its own (yaml_runs_schema.h): a good runs file;
 * anchors, aliases, tags and merge keys refused; keys; scalars (numbers,
 * booleans, strings) and their messages.  The input itself (bytes,
 * structure, limit, files) is in test_yaml_reader_input.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "base/number.h"

#include "yaml_runs_schema.h"

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
