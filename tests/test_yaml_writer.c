/* The YAML writer: exact float round trips and documents libyaml reads
 * back to the same scalars. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

#include "report/yaml_writer.h"

Test(yaml_writer, doubles_round_trip_exactly_and_stay_floats)
{
	uint64_t x = 0x123456789ABCDEFu;
	char buf[32];
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (!isfinite(v))
			continue;
		ha_format_double(v, buf);
		cr_assert_eq(strtod(buf, NULL), v, "%s", buf);
		/* A dot in the mantissa keeps YAML 1.1 readers reading a float. */
		cr_assert_not_null(strchr(buf, '.'), "%s", buf);
	}
	cr_assert_str_eq(ha_format_double(1e8, buf), "100000000.0");
	cr_assert_str_eq(ha_format_double(0.1, buf), "0.1");
	cr_assert_str_eq(ha_format_double(1e300, buf), "1.0e+300");
	cr_assert_str_eq(ha_format_double(-2.0, buf), "-2.0");
	cr_assert_str_eq(ha_format_double(5e-324, buf), "4.94065645841247e-324");
	cr_assert_str_eq(ha_format_double(INFINITY, buf), "inf");
}

/* Write a small document into memory and return it (caller frees). */
static char *write_sample(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct ha_yaml_writer *w;
	cr_assert_eq(ha_yaml_writer_new(f, &w), HA_OK);
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "name");
	ha_yaml_string(w, "bracket");
	ha_yaml_key(w, "tricky");
	ha_yaml_string(w, "yes");
	ha_yaml_key(w, "colon");
	ha_yaml_string(w, "a: b");
	ha_yaml_key(w, "big");
	ha_yaml_double(w, INFINITY);
	ha_yaml_key(w, "count");
	ha_yaml_uint(w, UINT64_C(9223372036854775807));
	ha_yaml_key(w, "list");
	ha_yaml_begin_seq(w, 1);
	ha_yaml_double(w, 0.1);
	ha_yaml_bool(w, 1);
	ha_yaml_null(w);
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
	cr_assert_eq(ha_yaml_writer_end(w), HA_OK);
	ha_yaml_writer_free(w);
	fclose(f);
	return text;
}

Test(yaml_writer, document_reads_back)
{
	char *text = write_sample();
	static const char *const want[][2] = {
		{"name", "plain"}, {"bracket", "plain"}, {"tricky", "plain"},
		{"yes", "quoted"}, {"colon", "plain"}, {"a: b", "quoted"},
		{"big", "plain"}, {".inf", "plain"}, {"count", "plain"},
		{"9223372036854775807", "plain"}, {"list", "plain"}, {"0.1", "plain"},
		{"true", "plain"}, {"null", "plain"},
	};
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (unsigned char *)text, strlen(text));
	size_t k = 0;
	for (;;) {
		yaml_event_t e;
		cr_assert(yaml_parser_parse(&parser, &e), "parse error in:\n%s", text);
		int done = e.type == YAML_STREAM_END_EVENT;
		if (e.type == YAML_SCALAR_EVENT) {
			cr_assert_lt(k, sizeof want / sizeof *want);
			cr_assert_str_eq((char *)e.data.scalar.value, want[k][0]);
			int plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			cr_assert_eq(plain, strcmp(want[k][1], "plain") == 0,
			             "scalar %s", want[k][0]);
			k++;
		}
		yaml_event_delete(&e);
		if (done)
			break;
	}
	cr_assert_eq(k, sizeof want / sizeof *want);
	yaml_parser_delete(&parser);
	free(text);
}

Test(yaml_writer, write_errors_are_reported)
{
	/* A stream opened read-only cannot be written. */
	FILE *f = fopen("/dev/null", "r");
	cr_assert_not_null(f);
	struct ha_yaml_writer *w;
	cr_assert_eq(ha_yaml_writer_new(f, &w), HA_OK);
	ha_yaml_begin_map(w, 0);
	for (int i = 0; i < 2000; i++) {
		ha_yaml_key(w, "k");
		ha_yaml_double(w, i);
	}
	ha_yaml_end_map(w);
	cr_assert_eq(ha_yaml_writer_end(w), HA_EIO);
	ha_yaml_writer_free(w);
	ha_yaml_writer_free(NULL);
	fclose(f);
}

/* ---- the JSON syntax ------------------------------------------------------ */

/* calls(w) in the JSON syntax, into a new string; *status the finish's. */
static char *json_of(void (*calls)(struct ha_yaml_writer *),
                     enum ha_status *status)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_yaml_writer *w;
	cr_assert_eq(ha_yaml_writer_new_json(f, &w), HA_OK);
	calls(w);
	*status = ha_yaml_writer_end(w);
	ha_yaml_writer_free(w);
	cr_assert_eq(fclose(f), 0);
	return text;
}

static void every_kind(struct ha_yaml_writer *w)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "name");
	ha_yaml_string(w, "a \"quoted\" \\ tab\t new\nline \x01 \xc3\xa9");
	ha_yaml_key(w, "n");
	ha_yaml_uint(w, UINT64_MAX);
	ha_yaml_key(w, "row");
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "x");
	ha_yaml_double(w, 1e8);
	ha_yaml_key(w, "inf");
	ha_yaml_double(w, INFINITY);
	ha_yaml_key(w, "minus_inf");
	ha_yaml_double(w, -INFINITY);
	ha_yaml_key(w, "nan");
	ha_yaml_double(w, NAN);
	ha_yaml_end_map(w);
	ha_yaml_key(w, "list");
	ha_yaml_begin_seq(w, 0);
	ha_yaml_bool(w, 1);
	ha_yaml_null(w);
	ha_yaml_begin_seq(w, 1);
	ha_yaml_end_seq(w);
	ha_yaml_begin_map(w, 0);
	ha_yaml_end_map(w);
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
}

/* The same events as YAML, in JSON: escaped strings, exact integers,
 * the non-finite doubles as null, flow containers on one line. */
Test(yaml_writer, json_syntax_of_the_same_events)
{
	enum ha_status st;
	char *text = json_of(every_kind, &st);
	cr_assert_eq(st, HA_OK);
	cr_assert_str_eq(text,
		"{\n"
		"  \"name\": \"a \\\"quoted\\\" \\\\ tab\\t new\\nline \\u0001 \xc3\xa9\",\n"
		"  \"n\": 18446744073709551615,\n"
		"  \"row\": {\"x\": 100000000.0, \"inf\": null, \"minus_inf\": null, \"nan\": null},\n"
		"  \"list\": [\n"
		"    true,\n"
		"    null,\n"
		"    [],\n"
		"    {}\n"
		"  ]\n"
		"}\n");
	free(text);
}

static void value_without_key(struct ha_yaml_writer *w)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_uint(w, 1);
	ha_yaml_end_map(w);
}

static void unclosed(struct ha_yaml_writer *w)
{
	ha_yaml_begin_seq(w, 0);
}

static void key_in_a_list(struct ha_yaml_writer *w)
{
	ha_yaml_begin_seq(w, 0);
	ha_yaml_key(w, "k");
	ha_yaml_end_seq(w);
}

/* Events out of order cannot make invalid JSON: they are HA_EINVAL. */
Test(yaml_writer, json_refuses_events_out_of_order)
{
	void (*bad[])(struct ha_yaml_writer *) = {value_without_key, unclosed,
	                                          key_in_a_list};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		enum ha_status st;
		free(json_of(bad[i], &st));
		cr_assert_eq(st, HA_EINVAL, "case %zu", i);
	}
	struct ha_yaml_writer *w;
	cr_assert_eq(ha_yaml_writer_new_json(NULL, &w), HA_EINVAL);
	cr_assert_null(w);
}

/* A map of one key of each scalar kind, written as key then value
 * (pairs 0) or by the key-value calls (pairs 1), in YAML (json 0) or
 * JSON; returns the text (caller frees). */
static char *write_pairs(int json, int pairs)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct ha_yaml_writer *w;
	cr_assert_eq(json ? ha_yaml_writer_new_json(f, &w) : ha_yaml_writer_new(f, &w),
	             HA_OK);
	ha_yaml_begin_map(w, 0);
	if (pairs) {
		ha_yaml_key_string(w, "s", "yes");
		ha_yaml_key_uint(w, "u", UINT64_MAX);
		ha_yaml_key_double(w, "d", -INFINITY);
		ha_yaml_key_bool(w, "b", 0);
	} else {
		ha_yaml_key(w, "s");
		ha_yaml_string(w, "yes");
		ha_yaml_key(w, "u");
		ha_yaml_uint(w, UINT64_MAX);
		ha_yaml_key(w, "d");
		ha_yaml_double(w, -INFINITY);
		ha_yaml_key(w, "b");
		ha_yaml_bool(w, 0);
	}
	ha_yaml_end_map(w);
	cr_assert_eq(ha_yaml_writer_end(w), HA_OK);
	ha_yaml_writer_free(w);
	fclose(f);
	return text;
}

Test(yaml_writer, key_value_calls_write_a_key_then_its_value)
{
	for (int json = 0; json < 2; json++) {
		char *apart = write_pairs(json, 0), *together = write_pairs(json, 1);
		cr_assert_str_eq(together, apart);
		cr_assert_not_null(strstr(apart, json ? "\"s\": \"yes\"" : "s: 'yes'"),
		                   "%s", apart);
		free(apart);
		free(together);
	}
}
