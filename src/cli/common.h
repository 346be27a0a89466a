/* What every headalloc command shares: one-line error messages, getopt's
 * complaints in words, and writing a report to stdout or, atomically, to
 * an --output file. */
#ifndef HEADALLOC_CLI_COMMON_H
#define HEADALLOC_CLI_COMMON_H

#include <getopt.h>
#include <stdio.h>

#include "exit_codes.h"

/* "headalloc: MESSAGE (try 'headalloc [COMMAND] --help')"; command is
 * NULL for the allocation command.  Returns EXIT_USAGE. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(const char *command, const char *fmt, ...);

/* "headalloc: OPTION: invalid value 'VALUE': expected EXPECTED", with
 * option as typed ("--budget").  Returns EXIT_USAGE. */
int cli_bad_value(const char *option, const char *value, const char *expected);

/* getopt_long returned '?' or ':' for the argument typed: say which of
 * unknown, ambiguous, missing its value or given a value it does not take.
 * Returns EXIT_USAGE. */
int cli_getopt_error(int code, const char *typed, const struct option *options,
                     const char *command);

/* Writes a report on out; returns EXIT_OK, EXIT_WRITE_FAILED when writing
 * failed (nothing said yet), or another exit code after its own message. */
typedef int (*cli_write_fn)(FILE *out, const void *ctx);

/* Run write on the standard output, or with output != NULL on a temporary
 * file renamed over output once complete (removed on failure).  Reports a
 * failure to write in one line naming the destination.  Returns the exit
 * code. */
int cli_emit(const char *output, cli_write_fn write, const void *ctx);

#endif
