/* Running the allocation command: one allocation, or a table over
 * budgets and values of n with its fits, regimes and model comparisons. */
#ifndef HEADALLOC_CLI_RUN_H
#define HEADALLOC_CLI_RUN_H

#include <stdio.h>

#include "options.h"

/* Write the report for o to out; returns an exit code (messages for
 * people already printed on stderr). */
int cli_run(const struct cli_options *o, FILE *out);

#endif
