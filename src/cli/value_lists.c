/* Lists of budgets and of values of n on the command line: "512,4096",
 * "1e6,1e8" or the sweep "FROM:TO:POINTS", each value checked whole and
 * each refusal one line naming the option and the value. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "alloc/model_internal.h"
#include "input/budget_list.h"
#include "parse.h"
#include "value_lists.h"

/* The largest number of budgets or values of n on one command line. */
#define MAX_LIST 1000000

int cli_bad_number(const char *option, const char *value, const char *expected)
{
	/* "0512": refused by the number grammar, since a YAML 1.1 reader
	 * takes it as octal; say so rather than leave it a puzzle. */
	const char *v = value + (*value == '+' || *value == '-');
	char why[160];
	if (v[0] == '0' && v[1] >= '0' && v[1] <= '9' &&
	    (size_t)snprintf(why, sizeof why, "%s without a leading zero",
	                     expected) < sizeof why)
		expected = why;
	return cli_bad_value(option, value, expected);
}

static const char sample_size[] = HA_MODEL_SAMPLES_DOMAIN;

/* Split "a,b,c" into its items; each item must be non-empty.  Returns the
 * number of items (at most MAX_LIST), or 0 for a malformed list. */
static size_t split_list(const char *text, char ***items)
{
	size_t count = 1;
	for (const char *p = text; *p; p++)
		count += *p == ',';
	if (count > MAX_LIST)
		return 0;
	char **v = calloc(count, sizeof *v);
	char *copy = strdup(text);
	if (!v || !copy) {
		free(v);
		free(copy);
		return 0;
	}
	size_t i = 0;
	for (char *start = copy;; i++) {
		char *comma = strchr(start, ',');
		if (comma)
			*comma = '\0';
		v[i] = start;
		if (!comma)
			break;
		start = comma + 1;
	}
	*items = v; /* v[0] owns the copy */
	return count;
}

static void free_list(char **items)
{
	if (items)
		free(items[0]);
	free(items);
}

int cli_parse_budget_list(const char *option, const char *arg,
                          uint64_t **out, size_t *out_count)
{
	char **items = NULL;
	size_t count = split_list(arg, &items);
	if (!count)
		return cli_bad_number(option, arg, "a whole number or a comma-separated list of them");
	uint64_t *budgets = malloc(count * sizeof *budgets);
	int rc = budgets ? EXIT_OK : cli_library_failure(option, NULL, HA_ENOMEM, NULL);
	for (size_t i = 0; rc == EXIT_OK && i < count; i++)
		if (!cli_parse_uint(items[i], 1, HA_BUDGET_MAX, &budgets[i]))
			rc = cli_bad_number(option, count > 1 ? items[i] : arg, CLI_WHOLE_NUMBER);
	free_list(items);
	if (rc == EXIT_OK) {
		/* the list's rules, the same for the Python package */
		struct ha_error err;
		ha_error_init(&err);
		enum ha_status st = ha_budget_list_check(budgets, count, &err);
		if (st == HA_EINVAL) {
			fprintf(stderr, "headalloc: %s: %s\n", option, err.message);
			rc = EXIT_USAGE;
		} else if (st != HA_OK)
			rc = cli_library_failure(option, NULL, st, &err);
	}
	if (rc != EXIT_OK) {
		free(budgets);
		return rc;
	}
	*out = budgets;
	*out_count = count;
	return EXIT_OK;
}

/* FROM:TO:POINTS, a log-spaced range with both ends included. */
static int parse_range(const char *option, const char *arg,
                       struct ha_samples *s)
{
	static const char expected[] =
		"FROM:TO:POINTS with 1 < FROM < TO <= 1e300 and 2 <= POINTS <= 1000000";
	char from[64], to[64], points[64];
	const char *c1 = strchr(arg, ':');
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c1 || !c2 || strchr(c2 + 1, ':') || (size_t)(c1 - arg) >= sizeof from ||
	    (size_t)(c2 - c1 - 1) >= sizeof to || strlen(c2 + 1) >= sizeof points)
		return cli_bad_number(option, arg, expected);
	memcpy(from, arg, (size_t)(c1 - arg));
	from[c1 - arg] = '\0';
	memcpy(to, c1 + 1, (size_t)(c2 - c1 - 1));
	to[c2 - c1 - 1] = '\0';
	strcpy(points, c2 + 1);
	uint64_t n;
	size_t bad;
	if (!cli_parse_real(from, &s->from) || !cli_parse_real(to, &s->to) ||
	    !cli_parse_uint(points, 0, MAX_LIST, &n))
		return cli_bad_number(option, arg, expected);
	s->values = NULL;
	s->count = (size_t)n;
	return ha_samples_check(s, &bad) == HA_OK ? EXIT_OK
	                                          : cli_bad_number(option, arg, expected);
}

void cli_free_samples(struct ha_samples *s)
{
	free((double *)s->values); /* the command line's own list */
	*s = (struct ha_samples){.values = NULL};
}

int cli_parse_sample_list(const char *option, const char *arg,
                          struct ha_samples *out)
{
	struct ha_samples s = {.values = NULL};
	if (strchr(arg, ':')) {
		int rc = parse_range(option, arg, &s);
		if (rc != EXIT_OK)
			return rc;
	} else {
		char **items = NULL;
		size_t count = split_list(arg, &items);
		if (!count)
			return cli_bad_number(option, arg, sample_size);
		double *values = malloc(count * sizeof *values);
		int rc = values ? EXIT_OK
		                : cli_library_failure(option, NULL, HA_ENOMEM, NULL);
		for (size_t i = 0; rc == EXIT_OK && i < count; i++)
			if (!cli_parse_real(items[i], &values[i]) ||
			    ha_samples_validate(values[i]) != HA_OK)
				rc = cli_bad_number(option, count > 1 ? items[i] : arg, sample_size);
		free_list(items);
		if (rc != EXIT_OK) {
			free(values);
			return rc;
		}
		s = (struct ha_samples){.values = values, .count = count};
	}
	*out = s;
	return EXIT_OK;
}

