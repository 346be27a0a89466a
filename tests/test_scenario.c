/* Scenario files: good files, and a bad file for every error path, with
 * the position and message of each error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "base/number.h"
#include <headalloc/scenario.h>
#include "base/text.h"
#include <headalloc/sweep.h>

/* Write text to a fresh file in the temp dir, read it back, remove it. */
static enum ha_status read_text(const char *text, struct ha_scenario **sc,
                                struct ha_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/ha-scenario-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	cr_assert_eq(fclose(f), 0);
	enum ha_status st = ha_scenario_read_file(path, sc, err);
	/* A failure names the file, by the caller's own pointer. */
	if (st != HA_OK && err)
		cr_assert_eq(err->file, path, "%s", err->message);
	unlink(path);
	return st;
}

static struct ha_scenario *read_ok(const char *text)
{
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	enum ha_status st = read_text(text, &sc, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column,
	             err.message);
	cr_assert_not_null(sc);
	cr_assert_eq(err.status, HA_OK);
	return sc;
}

/* The file must fail with this status at line:column and a message
 * containing `needle`. */
static void read_bad(const char *text, enum ha_status status,
                     long line, long column,
                     const char *needle)
{
	struct ha_scenario *sc = (struct ha_scenario *)1;
	struct ha_error err;
	enum ha_status st = read_text(text, &sc, &err);
	cr_assert_eq(st, status, "status %d for: %s (%s)", (int)st, text,
	             err.message);
	cr_assert_eq(err.status, status);
	cr_assert_null(sc);
	cr_assert_eq(err.line, line, "line %ld:%ld for: %s (%s)", err.line,
	             err.column, text, err.message);
	cr_assert_eq(err.column, column, "column %ld:%ld for: %s (%s)",
	             err.line, err.column, text, err.message);
	cr_assert(strstr(err.message, needle) != NULL,
	          "message \"%s\" lacks \"%s\"", err.message, needle);
}

static int close_rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fabs(b);
}

/* ---- good files -------------------------------------------------------- */

Test(scenario, full_example)
{
	struct ha_scenario *sc = read_ok(
		"# a full scenario\n"
		"model:\n"
		"  smoothness: 2.5\n"
		"  bias_coef: 1\n"
		"  var_coef: 0.5\n"
		"  hdi: 0\n"
		"constraints:\n"
		"  head_dim_multiple: 8\n"
		"  min_head_dim: 16\n"
		"  max_head_dim: 256\n"
		"  min_heads: 1\n"
		"  max_heads: 128\n"
		"budgets: [512, 4096, 9223372036854775807]\n"
		"samples: {from: 1e4, to: 1e12, points: 9}\n"
		"report:\n"
		"  all: true\n"
		"  regimes: false\n"
		"  format: yaml\n"
		"models:\n"
		"  - {name: BERT-base, heads: 12, head_dim: 64, samples: 3.3e9,\n"
		"     note: \"3.3B words\"}\n"
		"  - name: Falcon-7B\n"
		"    budget: 4544\n"
		"    heads: 71\n"
		"    head_dim: 64\n"
		"    kv_heads: 1\n");
	cr_expect_eq(sc->model.smoothness, 2.5);
	cr_expect_eq(sc->model.bias_coef, 1.0);
	cr_expect_eq(sc->model.var_coef, 0.5);
	cr_expect_eq(sc->model.hdi, 0.0);
	cr_expect_eq(sc->constraints.head_dim_multiple, 8);
	cr_expect_eq(sc->constraints.min_head_dim, 16);
	cr_expect_eq(sc->constraints.max_head_dim, 256);
	cr_expect_eq(sc->constraints.min_heads, 1);
	cr_expect_eq(sc->constraints.max_heads, 128);
	cr_assert_eq(sc->budget_count, 3);
	cr_expect_eq(sc->budgets[0], 512);
	cr_expect_eq(sc->budgets[1], 4096);
	cr_expect_eq(sc->budgets[2], HA_BUDGET_MAX);
	cr_assert_eq(sc->sample_count, 9);
	cr_expect_eq(sc->samples[0], 1e4);
	cr_expect_eq(sc->samples[8], 1e12);
	for (size_t i = 0; i < 9; i++)
		cr_expect(close_rel(sc->samples[i], pow(10.0, 4.0 + (double)i),
		                    1e-14),
		          "samples[%zu] = %.17g", i, sc->samples[i]);
	cr_expect_eq(sc->report_all, 1);
	cr_expect_eq(sc->report_regimes, 0);
	cr_expect_eq(sc->report_format, HA_FORMAT_YAML);
	cr_assert_eq(sc->model_count, 2);
	cr_expect_str_eq(sc->models[0].name, "BERT-base");
	cr_expect_eq(sc->models[0].budget, 768);
	cr_expect_eq(sc->models[0].heads, 12);
	cr_expect_eq(sc->models[0].head_dim, 64);
	cr_expect_eq(sc->models[0].has_samples, 1);
	cr_expect_eq(sc->models[0].samples, 3.3e9);
	cr_expect_str_eq(sc->models[0].note, "3.3B words");
	cr_expect_eq(sc->models[0].kv_heads, 12); /* absent: heads */
	cr_expect_str_eq(sc->models[1].name, "Falcon-7B");
	cr_expect_eq(sc->models[1].budget, 4544);
	cr_expect_eq(sc->models[1].kv_heads, 1);
	cr_expect_eq(sc->models[1].has_samples, 0);
	cr_expect_null(sc->models[1].note);
	ha_scenario_free(sc);
}

Test(scenario, minimal_file_gets_defaults)
{
	struct ha_scenario *sc = read_ok("budgets: 4096\n");
	struct ha_model d = ha_model_defaults();
	cr_expect_eq(sc->model.smoothness, d.smoothness);
	cr_expect_eq(sc->model.hdi, d.hdi);
	cr_expect_eq(sc->constraints.head_dim_multiple, 0);
	cr_expect_eq(sc->constraints.max_heads, 0);
	cr_assert_eq(sc->budget_count, 1);
	cr_expect_eq(sc->budgets[0], 4096);
	cr_expect_eq(sc->sample_count, 0);
	cr_expect_null(sc->samples);
	cr_expect_eq(sc->report_all, 0);
	cr_expect_eq(sc->report_regimes, 0);
	cr_expect_eq(sc->report_format, HA_FORMAT_TEXT);
	cr_expect_eq(sc->model_count, 0);
	cr_expect_null(sc->models);
	ha_scenario_free(sc);
}

Test(scenario, samples_forms_and_models_only)
{
	struct ha_scenario *sc = read_ok("samples: 1e8\nmodels: []\n");
	cr_assert_eq(sc->sample_count, 1);
	cr_expect_eq(sc->samples[0], 1e8);
	cr_expect_eq(sc->budget_count, 0);
	cr_expect_eq(sc->model_count, 0);
	ha_scenario_free(sc);

	sc = read_ok("budgets:\n  - 768\n  - 1024\nsamples:\n  - 1.5\n"
	             "  - 3.3e9\n  - +2E3\n  - .5e1\n");
	cr_assert_eq(sc->budget_count, 2);
	cr_expect_eq(sc->budgets[1], 1024);
	cr_assert_eq(sc->sample_count, 4);
	cr_expect_eq(sc->samples[0], 1.5);
	cr_expect_eq(sc->samples[1], 3.3e9);
	cr_expect_eq(sc->samples[2], 2000.0);
	cr_expect_eq(sc->samples[3], 5.0);
	ha_scenario_free(sc);

	sc = read_ok("budgets: 8\nsamples: {points: 2, to: 1e300, from: 2}\n"
	             "model: {hdi: 1}\n");
	cr_assert_eq(sc->sample_count, 2);
	cr_expect_eq(sc->samples[0], 2.0);
	cr_expect_eq(sc->samples[1], 1e300);
	ha_scenario_free(sc);
}

Test(scenario, read_string_needs_no_terminator)
{
	const char text[] = "budgets: 512XXXX";
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	cr_assert_eq(ha_scenario_read_string(text, 12, &sc, &err), HA_OK,
	             "%s", err.message);
	cr_expect_eq(sc->budgets[0], 512);
	ha_scenario_free(sc);
	ha_scenario_free(NULL);
	cr_expect_str_eq(ha_report_format_str(HA_FORMAT_YAML), "yaml");
}

/* ---- structure --------------------------------------------------------- */

Test(scenario, bad_structure)
{
	read_bad("", HA_EFORMAT, 1, 1,
	         "expected a mapping of scenario keys, found the end of the "
	         "file");
	read_bad("- 1\n- 2\n", HA_EFORMAT, 1, 1,
	         "expected a mapping of scenario keys, found a list");
	read_bad("512\n", HA_EFORMAT, 1, 1,
	         "expected a mapping of scenario keys, found '512'");
	read_bad("budgets: 1\n---\nbudgets: 2\n", HA_EFORMAT, 2, 1,
	         "expected the end of the file, found a second document");
	read_bad("report: {all: true}\n", HA_EFORMAT, 1, 1,
	         "expected the key 'budgets' or 'models', found neither");
	read_bad("budgets: 1\n? [a]\n: 1\n", HA_EFORMAT, 2, 3,
	         "expected a key, found a list");
	read_bad("model: 2\nbudgets: 1\n", HA_EFORMAT, 1, 8,
	         "model: expected a mapping, found '2'");
	read_bad("budgets: 1\nconstraints: [8]\n", HA_EFORMAT, 2, 14,
	         "constraints: expected a mapping, found a list");
	read_bad("budgets: 1\nreport:\n", HA_EFORMAT, 2, 8,
	         "report: expected a mapping, found an empty value");
	read_bad("budgets: 1\nmodels: {name: x}\n", HA_EFORMAT, 2, 9,
	         "models: expected a list of models, found a mapping");
}

Test(scenario, unknown_and_duplicate_keys)
{
	read_bad("budgets: [512]\nfoo: 1\n", HA_EFORMAT, 2, 1,
	         "expected one of the keys model, constraints, budgets, "
	         "samples, report, models, kv, found 'foo'");
	read_bad("model:\n  smoothnes: 2\nbudgets: 1\n", HA_EFORMAT, 2, 3,
	         "model: expected one of the keys smoothness, bias_coef, "
	         "var_coef, hdi, irreducible, var_rate, var_power, "
	         "log_bias_coef, log_var_coef, data_coef, data_power, var_samples_power, group_hdi, found 'smoothnes'");
	read_bad("budgets: 1\nbudgets: 2\n", HA_EFORMAT, 2, 1,
	         "expected each key once, found 'budgets' again (first at "
	         "line 1)");
	read_bad("model: {hdi: 1, hdi: 0.5}\nbudgets: 1\n", HA_EFORMAT, 1, 17,
	         "model: expected each key once, found 'hdi' again");
	read_bad("budgets: 1\nsamples: {from: 2, to: 3, points: 2, step: 1}\n",
	         HA_EFORMAT, 2, 38,
	         "samples: expected one of the keys from, to, points, found "
	         "'step'");
	read_bad("budgets: 1\nreport: {color: true}\n", HA_EFORMAT, 2, 10,
	         "report: expected one of the keys all, regimes, format, "
	         "found 'color'");
	read_bad("models:\n  - {name: a, heads: 1, head_dim: 2, heads: 3}\n",
	         HA_EFORMAT, 2, 38,
	         "models[0]: expected each key once, found 'heads' again");
	read_bad("models:\n  - {name: a, heads: 1, head_dim: 2, kv: 1}\n",
	         HA_EFORMAT, 2, 38, "models[0]: expected one of the keys");
}

/* ---- numbers ----------------------------------------------------------- */

Test(scenario, bad_budgets)
{
	const char *w = "expected an integer budget from 1 to "
	                "9223372036854775807, found ";
	char msg[160];
	snprintf(msg, sizeof msg, "budgets[1]: %s'64.5'", w);
	read_bad("budgets: [512, 64.5]\n", HA_EFORMAT, 1, 16, msg);
	snprintf(msg, sizeof msg, "budgets: %s'0'", w);
	read_bad("budgets: 0\n", HA_EFORMAT, 1, 10, msg);
	snprintf(msg, sizeof msg, "budgets: %s'9223372036854775808'", w);
	read_bad("budgets: 9223372036854775808\n", HA_EFORMAT, 1, 10, msg);
	snprintf(msg, sizeof msg, "budgets: %s'99999999999999999999999'", w);
	read_bad("budgets: 99999999999999999999999\n", HA_EFORMAT, 1, 10, msg);
	snprintf(msg, sizeof msg, "budgets: %s'-5'", w);
	read_bad("budgets: -5\n", HA_EFORMAT, 1, 10, msg);
	snprintf(msg, sizeof msg, "budgets: %s'1e3'", w);
	read_bad("budgets: 1e3\n", HA_EFORMAT, 1, 10, msg);
	snprintf(msg, sizeof msg, "budgets: %s'+512'", w);
	read_bad("budgets: +512\n", HA_EFORMAT, 1, 10, msg);
	snprintf(msg, sizeof msg, "budgets: %sthe quoted string '512'", w);
	read_bad("budgets: \"512\"\n", HA_EFORMAT, 1, 10, msg);
	read_bad("budgets: []\n", HA_EFORMAT, 1, 10,
	         "budgets: expected at least one budget, found an empty list");
	read_bad("budgets: {a: 1}\n", HA_EFORMAT, 1, 10,
	         "budgets: expected an integer budget or a list of them, found "
	         "a mapping");
	read_bad("budgets: [1, [2]]\n", HA_EFORMAT, 1, 14,
	         "budgets[1]: expected an integer budget from 1");
}

/* A budget given twice cannot mean anything but a slip; the
 * table of budgets x sample sizes has a bounded number of rows. */
Test(scenario, repeated_budgets_and_the_row_limit)
{
	read_bad("budgets: [512, 1024,\n  2048, 1024]\n", HA_EFORMAT, 2, 9,
	         "budgets[3]: expected each budget once, found 1024 again "
	         "(first at budgets[1])");
	read_bad("budgets: [7, 7]\n", HA_EFORMAT, 1, 14,
	         "budgets[1]: expected each budget once, found 7 again "
	         "(first at budgets[0])");
	read_bad("budgets: [0512]\n", HA_EFORMAT, 1, 11,
	         "found '0512' (a leading zero: YAML 1.1 reads it as octal)");
	/* 2 x 500000 rows is the limit; one more point is past it */
	struct ha_scenario *sc = read_ok("budgets: [512, 1024]\n"
	                                 "samples: {from: 2, to: 1e8, "
	                                 "points: 500000}\n");
	cr_expect_eq(sc->budget_count * sc->sample_count, HA_SCENARIO_MAX_ROWS);
	ha_scenario_free(sc);
	read_bad("budgets: [512, 1024]\nsamples: {from: 2, to: 1e8, "
	         "points: 500001}\n", HA_EFORMAT, 2, 1,
	         "samples: expected at most 1000000 rows (budgets x sample "
	         "sizes), found 2 x 500001");
}

Test(scenario, bad_samples)
{
	const char *w = "expected a number > 1 and <= 1e300, found ";
	char msg[160];
	const char *bad[] = {"1", "0.5", "-1e8", "nan", ".inf",
	                     "0x10", "1e8x", "1e", "e8", "1.2.3", "1e301"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[64];
		snprintf(text, sizeof text, "budgets: 1\nsamples: %s\n", bad[i]);
		snprintf(msg, sizeof msg, "samples: %s'%s'", w, bad[i]);
		read_bad(text, HA_EFORMAT, 2, 10, msg);
	}
	read_bad("budgets: 1\nsamples: 1e400\n", HA_EFORMAT, 2, 10,
	         "samples: '1e400' is beyond a double (at most 1.79769e+308 in "
	         "magnitude)");
	snprintf(msg, sizeof msg, "samples[1]: %s'1'", w);
	read_bad("budgets: 1\nsamples: [10, 1]\n", HA_EFORMAT, 2, 15, msg);
	read_bad("budgets: 1\nsamples: []\n", HA_EFORMAT, 2, 10,
	         "samples: expected at least one sample size, found an empty "
	         "list");
	read_bad("budgets: 1\nsamples: {from: 1e4, to: 1e8}\n", HA_EFORMAT, 2,
	         10, "samples: expected the key 'points' in this mapping, "
	             "found none");
	read_bad("budgets: 1\nsamples: {from: 1e8, to: 1e4, points: 3}\n",
	         HA_EFORMAT, 2, 26,
	         "samples.to: expected a number > from (100000000), found "
	         "10000");
	read_bad("budgets: 1\nsamples: {from: 1e4, to: 1e8, points: 1}\n",
	         HA_EFORMAT, 2, 39,
	         "samples.points: expected an integer from 2 to 1000000, found "
	         "'1'");
	read_bad("budgets: 1\nsamples: {from: 1e4, to: 1e8, points: 1000001}\n",
	         HA_EFORMAT, 2, 39,
	         "samples.points: expected an integer from 2 to 1000000, found "
	         "'1000001'");
	read_bad("budgets: 1\nsamples: {from: 1e4, to: 1e8, points: 2.5}\n",
	         HA_EFORMAT, 2, 39, "found '2.5'");
	snprintf(msg, sizeof msg, "samples.from: %s'1'", w);
	read_bad("budgets: 1\nsamples: {from: 1, to: 1e8, points: 3}\n",
	         HA_EFORMAT, 2, 17, msg);
}

Test(scenario, bad_model_and_constraints)
{
	read_bad("budgets: 1\nmodel: {smoothness: -1}\n", HA_EFORMAT, 2, 21,
	         "model.smoothness: expected a number > 0, found '-1'");
	read_bad("budgets: 1\nmodel: {smoothness: 0}\n", HA_EFORMAT, 2, 21,
	         "model.smoothness: expected a number > 0, found '0'");
	read_bad("budgets: 1\nmodel: {bias_coef: 1e309}\n", HA_EFORMAT, 2, 20,
	         "model.bias_coef: '1e309' is beyond a double (at most "
	         "1.79769e+308 in magnitude)");
	read_bad("budgets: 1\nmodel:\n  var_coef: abc\n", HA_EFORMAT, 3, 13,
	         "model.var_coef: expected a number > 0, found 'abc'");
	read_bad("budgets: 1\nmodel: {hdi: 1.5}\n", HA_EFORMAT, 2, 14,
	         "model.hdi: expected a number from 0 to 1, found '1.5'");
	read_bad("budgets: 1\nmodel: {hdi: '0.5'}\n", HA_EFORMAT, 2, 14,
	         "model.hdi: expected a number from 0 to 1, found the quoted "
	         "string '0.5'");
	read_bad("budgets: 1\nconstraints: {head_dim_multiple: 8.0}\n",
	         HA_EFORMAT, 2, 34,
	         "constraints.head_dim_multiple: expected an integer from 0 to "
	         "9223372036854775807, found '8.0'");
	read_bad("budgets: 1\nconstraints:\n  min_head_dim: 64\n"
	         "  max_head_dim: 32\n",
	         HA_EFORMAT, 4, 17,
	         "constraints.max_head_dim: expected a value >= min_head_dim "
	         "(64), found 32");
	read_bad("budgets: 1\nconstraints: {max_heads: 2, min_heads: 4}\n",
	         HA_EFORMAT, 2, 26,
	         "constraints.max_heads: expected a value >= min_heads (4), "
	         "found 2");
}

Test(scenario, bad_report)
{
	read_bad("budgets: 1\nreport: {format: html}\n", HA_EFORMAT, 2, 18,
	         "report.format: expected text, yaml or json, found 'html'");
	read_bad("budgets: 1\nreport: {all: yes}\n", HA_EFORMAT, 2, 15,
	         "report.all: expected true or false, found 'yes'");
	read_bad("budgets: 1\nreport: {regimes: \"true\"}\n", HA_EFORMAT, 2,
	         19, "report.regimes: expected true or false, found the quoted "
	             "string 'true'");
}

Test(scenario, bad_models)
{
	read_bad("models:\n  - {heads: 12, head_dim: 64}\n", HA_EFORMAT, 2, 5,
	         "models[0]: expected the key 'name' in this mapping, found "
	         "none");
	read_bad("models:\n  - {name: a, heads: 1, head_dim: 2}\n"
	         "  - {name: b, head_dim: 64}\n",
	         HA_EFORMAT, 3, 5,
	         "models[1]: expected the key 'heads' in this mapping");
	read_bad("models:\n  - {name: a, heads: 12}\n", HA_EFORMAT, 2, 5,
	         "models[0]: expected the key 'head_dim'");
	read_bad("models:\n  - {name: a, heads: 12, head_dim: 64, kv_heads: 5}\n",
	         HA_EFORMAT, 2, 50,
	         "models[0].kv_heads: expected a divisor of heads = 12, found 5");
	read_bad("models:\n  - {name: a, budget: 512, heads: 12, head_dim: 64}\n",
	         HA_EFORMAT, 2, 23,
	         "models[0].budget: expected heads * head_dim = 768, found 512");
	read_bad("models:\n  - {name: '', heads: 1, head_dim: 1}\n", HA_EFORMAT,
	         2, 12,
	         "models[0].name: expected a string of 1 to 256 bytes without "
	         "control characters, found the quoted string ''");
	read_bad("models:\n  - {name: \"a\\nb\", heads: 1, head_dim: 1}\n",
	         HA_EFORMAT, 2, 12,
	         "models[0].name: expected a string of 1 to 256 bytes without "
	         "control characters");
	read_bad("models:\n  - {name: [x], heads: 1, head_dim: 1}\n",
	         HA_EFORMAT, 2, 12,
	         "models[0].name: expected a string of 1 to 256 bytes without "
	         "control characters, found a list");
	read_bad("models:\n  - {name: a, heads: 0, head_dim: 1}\n", HA_EFORMAT,
	         2, 22, "models[0].heads: expected an integer from 1 to");
	read_bad("models:\n  - {name: a, heads: 4294967296, head_dim: "
	         "4294967296}\n",
	         HA_EFORMAT, 2, 5,
	         "models[0]: expected heads * head_dim <= 9223372036854775807");
	read_bad("models:\n  - {name: a, heads: 1, head_dim: 1, samples: 1}\n",
	         HA_EFORMAT, 2, 47,
	         "models[0].samples: expected a number > 1 and <= 1e300, found "
	         "'1'");
	read_bad("models:\n  - 42\n", HA_EFORMAT, 2, 5,
	         "models[0]: expected a mapping {name, heads, head_dim, ...}, "
	         "found '42'");

	char text[600];
	char note[300];
	memset(note, 'x', sizeof note - 1);
	note[sizeof note - 1] = '\0';
	snprintf(text, sizeof text,
	         "models:\n  - {name: a, heads: 1, head_dim: 1, note: %s}\n",
	         note);
	read_bad(text, HA_EFORMAT, 2, 44,
	         "models[0].note: expected a string of 1 to 256 bytes without "
	         "control characters, found 'xxxxxxxxxxxxxxxxxxxxxxxxxxxx");
}

/* ---- hostile input ------------------------------------------------------ */

Test(scenario, anchors_aliases_and_tags_are_refused)
{
	read_bad("budgets: &b [1]\nsamples: *b\n", HA_EFORMAT, 1, 10,
	         "expected a value, found the anchor '&b' (anchors and aliases "
	         "are not supported)");
	read_bad("budgets: [1]\nsamples: *b\n", HA_EFORMAT, 2, 10,
	         "expected a value, found the alias '*b'");
	read_bad("budgets: !!int 512\n", HA_EFORMAT, 1, 10,
	         "expected a value, found the tag 'tag:yaml.org,2002:int' "
	         "(tags are not supported)");
	read_bad("&a budgets: 1\n", HA_EFORMAT, 1, 1, "found the anchor '&a'");
	read_bad("budgets: 1\nmodel:\n  <<: {hdi: 1}\n", HA_EFORMAT, 3, 3,
	         "model: expected a key, found the merge key '<<' (merge keys "
	         "are not supported)");
}

Test(scenario, keys_and_words_match_in_full)
{
	/* Once read as "samples" and "yaml": strcmp stopped at the NUL. */
	read_bad("budgets: 1\n\"samples\\0x\": 1e8\n", HA_EFORMAT, 2, 1,
	         "expected one of the keys model, constraints, budgets, "
	         "samples, report, models, kv, found the quoted string "
	         "'samples?x'");
	read_bad("budgets: 1\nreport: {format: \"yaml\\0\"}\n", HA_EFORMAT,
	         2, 18,
	         "report.format: expected text, yaml or json, found the quoted "
	         "string 'yaml?'");
	/* Quoted words are words. */
	struct ha_scenario *sc = read_ok("budgets: 1\n\"report\": "
	                                 "{format: 'yaml'}\n");
	cr_expect_eq(sc->report_format, HA_FORMAT_YAML);
	ha_scenario_free(sc);
}

Test(scenario, numbers_have_a_length_limit)
{
	char text[200], number[HA_NUMBER_MAX_LENGTH + 2];
	/* 2 and HA_NUMBER_MAX_LENGTH - 1 zeros: at the limit */
	number[0] = '2';
	memset(number + 1, '0', HA_NUMBER_MAX_LENGTH - 1);
	number[HA_NUMBER_MAX_LENGTH] = '\0';
	snprintf(text, sizeof text, "budgets: 1\nsamples: %s\n", number);
	struct ha_scenario *sc = read_ok(text);
	cr_expect_eq(sc->samples[0], 2e63);
	ha_scenario_free(sc);
	/* one more: refused, as the covariance reader refused it */
	number[HA_NUMBER_MAX_LENGTH] = '0';
	number[HA_NUMBER_MAX_LENGTH + 1] = '\0';
	snprintf(text, sizeof text, "budgets: 1\nsamples: %s\n", number);
	read_bad(text, HA_EFORMAT, 2, 10,
	         "samples: expected a number > 1 and <= 1e300, found "
	         "'2000000000000000000000000000000000000...'");
}

Test(scenario, syntax_and_encoding_errors)
{
	read_bad("budgets: [1, 2\n", HA_EFORMAT, 2, 1, "YAML syntax error: ");
	read_bad("budgets: 1\n- 2\n", HA_EFORMAT, 2, 1,
	         "YAML syntax error: did not find expected key while parsing "
	         "a block mapping");
	read_bad("budgets: 1\nsamples: \"abc\n", HA_EFORMAT, 3, 1,
	         "YAML syntax error: found unexpected end of stream");
	struct ha_scenario *sc = (struct ha_scenario *)1;
	struct ha_error err;
	cr_expect_eq(read_text("budgets: 1\n\xff\xfe\n", &sc, &err),
	             HA_EFORMAT);
	cr_expect_null(sc);
	cr_expect(strstr(err.message, "invalid input: ") != NULL, "%s",
	          err.message);
	/* The reader's errors point at the offending byte, not 1:1. */
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.column, 1);
	read_bad("budgets: 1\nsamples: 1e8 \x01\n", HA_EFORMAT, 2, 14,
	         "invalid input: control characters are not allowed");
	cr_expect_eq(read_text("budgets: [1, \"\\0\"]\n", &sc, &err),
	             HA_EFORMAT);
	cr_expect(strstr(err.message, "budgets[1]: expected an integer") !=
	          NULL, "%s", err.message);
}

Test(scenario, deep_nesting_stops_at_once)
{
	size_t depth = 200000;
	char *text = malloc(depth + 32);
	cr_assert_not_null(text);
	strcpy(text, "budgets: ");
	memset(text + 9, '[', depth);
	text[9 + depth] = '\0';
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	cr_expect_eq(ha_scenario_read_string(text, strlen(text), &sc, &err),
	             HA_EFORMAT);
	cr_expect_eq(err.line, 1);
	cr_expect_eq(err.column, 11);
	cr_expect(strstr(err.message, "budgets[0]: expected an integer") !=
	          NULL, "%s", err.message);
	free(text);
}

Test(scenario, list_caps, .timeout = 120)
{
	size_t n = HA_SCENARIO_MAX_POINTS + 1;
	char *text = malloc(32 + 3 * n);
	cr_assert_not_null(text);
	char *p = text + sprintf(text, "budgets: 1\nsamples: [");
	for (size_t i = 0; i < n; i++) {
		memcpy(p, "2, ", 3);
		p += 3;
	}
	strcpy(p - 2, "]\n");
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	cr_expect_eq(ha_scenario_read_string(text, strlen(text), &sc, &err),
	             HA_EFORMAT);
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.column, 11 + 3 * HA_SCENARIO_MAX_POINTS);
	cr_expect_str_eq(err.message,
	                 "samples: expected at most 1000000 entries, found more");

	/* Exactly at the cap is fine. */
	strcpy(p - 5, "]\n");
	cr_assert_eq(ha_scenario_read_string(text, strlen(text), &sc, &err),
	             HA_OK, "%s", err.message);
	cr_expect_eq(sc->sample_count, HA_SCENARIO_MAX_POINTS);
	ha_scenario_free(sc);
	free(text);
}

Test(scenario, io_and_argument_errors)
{
	struct ha_scenario *sc = (struct ha_scenario *)1;
	struct ha_error err;
	cr_expect_eq(ha_scenario_read_file("/nonexistent/dir/x.yaml", &sc,
	                                   &err),
	             HA_EIO);
	cr_expect_null(sc);
	cr_expect_eq(err.line, 0);
	cr_expect_eq(err.column, 0);
	cr_expect(strstr(err.message, "cannot open the file: ") != NULL);
	cr_expect_str_eq(err.file, "/nonexistent/dir/x.yaml");
	cr_expect_eq(ha_scenario_read_file(NULL, &sc, &err), HA_EINVAL);
	cr_expect_eq(ha_scenario_read_file("x", NULL, NULL), HA_EINVAL);
	cr_expect_eq(ha_scenario_read_string(NULL, 3, &sc, &err), HA_EINVAL);
	/* Text in memory names no file. */
	cr_expect_eq(ha_scenario_read_string("budgets: [", 10, &sc, &err),
	             HA_EFORMAT);
	cr_expect_null(err.file);
	cr_expect_geq(err.line, 1);
	/* Larger than HA_SCENARIO_MAX_FILE: refused before it is read. */
	char *big = malloc(HA_SCENARIO_MAX_FILE + 1);
	cr_assert_not_null(big);
	cr_expect_eq(ha_scenario_read_string(big, HA_SCENARIO_MAX_FILE + 1, &sc,
	                                     &err),
	             HA_EFORMAT);
	free(big);
	cr_expect_null(sc);
	cr_expect_str_eq(err.message,
	                 "expected at most 67108864 bytes of input, found more");
	/* A directory opens but cannot be read. */
	cr_expect_eq(ha_scenario_read_file("/", &sc, NULL), HA_EIO);
	cr_expect_null(sc);
}

/* A range's values (ha_samples_value, a scenario's {from, to, points})
 * against the formula written out here (decades from log10 of each end,
 * both ends exact), on random ranges: the same doubles. */
Test(scenario, log_sweep_values)
{
	unsigned long long state = 88172645463325252ULL;
	for (int sweep = 0; sweep < 200; sweep++) {
		state ^= state << 13, state ^= state >> 7, state ^= state << 17;
		double from = pow(10.0, (double)(state % 3000) / 10.0 - 10.0);
		double to = from * pow(10.0, 1e-6 + (double)(state >> 40) / (1 << 20));
		size_t points = 2 + (size_t)(state >> 20) % 5000;
		struct ha_samples s = {.count = points, .from = from, .to = to};
		double lo = log10(from), hi = log10(to);
		for (size_t i = 0; i < points; i++) {
			double want = i == 0 ? from : i + 1 == points ? to
				: pow(10.0, lo + (hi - lo) * ((double)i / (double)(points - 1)));
			cr_assert_eq(ha_samples_value(&s, i), want, "%zu of %zu", i, points);
		}
	}
}
