/* Lists of budgets and of values of n on the command line. */
#ifndef HEADALLOC_CLI_VALUE_LISTS_H
#define HEADALLOC_CLI_VALUE_LISTS_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/headalloc.h>
#include "sweep/sweep_values.h"

/* What a budget must be, in messages. */
#define CLI_WHOLE_NUMBER "a whole number from 1 to 9223372036854775807"

/* The values of n: an explicit list, or a log-spaced sweep generated on
 * demand so that a million points take no memory. */
struct sample_source {
	double *values; /* the list, or NULL for a sweep */
	size_t count;
	double from, to; /* the sweep's ends (both included) */
	struct ha_log_sweep sweep; /* its values, the ends' logarithms taken once */
};

size_t sample_count(const struct sample_source *s);
double sample_at(const struct sample_source *s, size_t i);

/* "headalloc: OPTION: invalid value 'VALUE': expected EXPECTED", saying
 * "without a leading zero" where VALUE has one (the number grammar
 * refuses it: YAML 1.1 reads it as octal).  Returns EXIT_USAGE. */
int cli_bad_number(const char *option, const char *value, const char *expected);

/* "D" or "D,D,...": each a whole number from 1 to 2^63 - 1, each once, at
 * most HA_SCENARIO_MAX_BUDGETS.  On EXIT_OK *out is a new array of *count
 * budgets (free it); otherwise the message is printed and the exit status
 * returned. */
int cli_parse_budget_list(const char *option, const char *arg,
                          uint64_t **out, size_t *count);

/* "N", "N,N,..." or "FROM:TO:POINTS" (log-spaced, both ends included):
 * each 1 < n <= 1e300.  On EXIT_OK *out owns its values (free
 * out->values); otherwise the message is printed and the exit status
 * returned. */
int cli_parse_sample_list(const char *option, const char *arg,
                          struct sample_source *out);

#endif
