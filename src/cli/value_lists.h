/* Lists of budgets and of values of n on the command line. */
#ifndef HEADALLOC_CLI_VALUE_LISTS_H
#define HEADALLOC_CLI_VALUE_LISTS_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/headalloc.h>

/* What a budget must be, in messages. */
#define CLI_WHOLE_NUMBER "a whole number from 1 to 9223372036854775807"

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

/* "N", "N,N,..." or the range "FROM:TO:POINTS" (log-spaced, both ends
 * included), as ha_samples_check takes them.  On EXIT_OK *out owns its
 * list (cli_free_samples); otherwise the message is printed and the exit
 * status returned. */
int cli_parse_sample_list(const char *option, const char *arg,
                          struct ha_samples *out);

/* Free the list of values of n the command line made, and empty s. */
void cli_free_samples(struct ha_samples *s);

#endif
