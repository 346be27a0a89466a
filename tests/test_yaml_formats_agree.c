/* The two formats built on the YAML reader, the scenario and the
 * covariance, refuse the same hostile input alike (the same position and
 * message). */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/covariance.h>
#include <headalloc/scenario.h>
#include "input/covariance_internal.h"

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
