/* What every headalloc command shares: the one mapping from library
 * statuses to exit statuses, one-line error messages, getopt's complaints
 * in words, the options of the file commands (hdi, weights), and writing
 * a report to stdout or, atomically, to an --output file. */
#ifndef HEADALLOC_CLI_COMMON_H
#define HEADALLOC_CLI_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <headalloc/headalloc.h>

/* The library internals the commands use (the CLI links the library's
 * objects, headalloc_internal): terminal-safe text, the names of formats,
 * layouts and fusions, the checks behind the options. */
#include "alloc/solver_internal.h"
#include "alloc/model_internal.h"
#include "base/text.h"
#include "calibrate/calibrate_internal.h"
#include "hdi/hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"
#include "input/runs_internal.h"

#include "exit_codes.h"

/* ---- failures --------------------------------------------------------- */

/* The exit status of a library status: the one mapping, for every command.
 *   HA_OK                                       0  success
 *   HA_EIO, HA_ENOMEM, HA_ENUMERIC              1  I/O or internal failure
 *   HA_EINVAL, HA_EFORMAT, HA_EUNSUPPORTED,     2  invalid input
 *   HA_EDEGENERATE
 *   HA_EINFEASIBLE                              3  no feasible allocation
 * An unknown status is an internal failure (1). */
int cli_exit_status(enum ha_status status);

/* Say what went wrong in a library call, in one line on stderr, and return
 * cli_exit_status(status):
 *   headalloc: FILE:LINE:COLUMN: MESSAGE   when err has a position
 *   headalloc: SUBJECT: FILE: MESSAGE      otherwise
 * leaving out whatever is absent.  subject names the option whose value
 * failed ("--hdi-from") or the step that did ("solving"), or is NULL; a
 * position makes it redundant.  file is the file at fault when err names
 * none (err->file wins), or NULL.  MESSAGE is err->message, or
 * ha_status_str(status) when err is NULL or its message empty. */
int cli_library_failure(const char *subject, const char *file,
                        enum ha_status status, const struct ha_error *err);

/* "headalloc: MESSAGE (try 'headalloc [COMMAND] --help')"; command is
 * NULL for the allocation command.  Returns EXIT_USAGE. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(const char *command, const char *fmt, ...);

/* Flush what --help, --version or --completion printed: EXIT_OK, or
 * EXIT_IO after "headalloc: writing standard output: REASON" when it could
 * not all be written (a full disk, a closed pipe); REASON is errno, which
 * the caller sets to 0 before it prints. */
int cli_finish_stdout(void);

/* --format's value: one of its words (option_words.h) into *format; 0
 * for anything else. */
int cli_format_parse(const char *arg, enum ha_report_format *format);

/* The message for a --format value that is none of its words; EXIT_USAGE. */
int cli_bad_format(const char *arg);

/* --layout's (--hdi-layout's) value: one of its words into *layout; 0 for
 * anything else. */
int cli_layout_parse(const char *arg, enum ha_layout *layout);

/* "OPTION: invalid value 'ARG': expected W1, W2 or W3" with the words of
 * set (an enum cli_words of option_words.h); EXIT_USAGE. */
int cli_bad_word(const char *option, const char *arg, int set);

/* "headalloc: MESSAGE" for a file's content at fault, whose MESSAGE starts
 * with FILE:LINE:COLUMN, or for input past a limit (no --help hint: no
 * option is misused).  Returns EXIT_USAGE. */
__attribute__((format(printf, 1, 2)))
int cli_file_error(const char *fmt, ...);

/* "headalloc: OPTION: invalid value 'VALUE': expected EXPECTED", with
 * option as typed ("--budget").  Returns EXIT_USAGE. */
int cli_bad_value(const char *option, const char *value, const char *expected);

/* getopt_long returned '?' or ':' for the argument typed: say which of
 * unknown, ambiguous, missing its value or given a value it does not take.
 * Returns EXIT_USAGE. */
int cli_getopt_error(int code, const char *typed, const struct option *options,
                     const char *command);

/* ---- the file commands: headalloc COMMAND FILE [OPTION]... ---------------- */

/* A command's command line, for cli_parse_options: every command (the
 * allocation command too) is parsed by that one loop. */
struct cli_command {
	const char *name;              /* "hdi"; NULL for the allocation
	                                  command (messages then say "try
	                                  'headalloc --help'", and a command
	                                  name among its arguments is named) */
	const char *usage;             /* --help's text */
	const struct option *options;  /* for getopt_long */
	const char *short_options;     /* for getopt_long, starting with ':' */
	bool version;                  /* 'V' prints the version */
	const char *usage_more;        /* printed after usage, or NULL: the
	                                  rest of a text longer than the 4095
	                                  characters C allows a literal */
};

/* The positional file and the options every file command has. */
struct cli_file_options {
	const char *file;
	enum ha_report_format format;  /* --format */
	const char *output;            /* --output, or NULL for stdout */
};

/* Apply one option to a command's own options; returns EXIT_OK, or an
 * exit status after printing why the value is refused. */
typedef int (*cli_apply_fn)(void *options, int code, const char *arg);

/* Apply --format (code 'f') or --output ('o') to c; EXIT_OK, or
 * EXIT_USAGE after a message. */
int cli_apply_file_option(struct cli_file_options *c, int code, const char *arg);

/* Scan argv (argv[0] is the command's or the program's name) for cmd from
 * the start: --help (code 'h') prints cmd->usage, -V the version when
 * cmd->version; getopt's complaints are one line each (for the allocation
 * command, a command name after options is said to belong first:
 * cli_misplaced_command); every other option goes through apply(options,
 * code, arg).  Returns true with optind at the first operand, or false
 * when the command is done (help, version, or an error already printed),
 * its exit status in *exit_status.  Reading files and measuring belong
 * after it, to the command's run. */
bool cli_parse_options(const struct cli_command *cmd, int argc, char **argv,
                       void *options, cli_apply_fn apply, int *exit_status);

/* "headalloc --budget 512 calibrate x": a command's name after options
 * is named as such, instead of the options being unknown to the
 * allocation command.  The exit status after the message, or 0 when no
 * argument is a command's name. */
int cli_misplaced_command(int argc, char **argv);

/* Parse argv (argv[0] is the command's name) for cmd: each option through
 * apply(options, code, arg), then exactly one non-empty FILE into
 * file->file.  Returns true when the command is to run; false when it is
 * done (after --help, or a usage error already printed), with its exit
 * status in *exit_status. */
bool cli_parse_file_command(const struct cli_command *cmd, int argc,
                            char **argv, struct cli_file_options *file,
                            void *options, cli_apply_fn apply,
                            int *exit_status);

/* ---- writing a report ---------------------------------------------------- */

/* Write the sections of a report into r (ha_report_*); returns the status
 * of the last (errors are sticky), err saying why on failure. */
typedef enum ha_status (*cli_report_fn)(struct ha_report *r, const void *ctx,
                                        struct ha_error *err);

/* Register path, an input of the command named by what ("--config",
 * "the weights file"), as a file no output may replace (atomic_file.h).
 * EXIT_OK, or EXIT_IO after a message. */
int cli_input(const char *path, const char *what);

/* Refuse output (when not NULL) before any work is done, when writing it
 * would destroy something (atomic_file_check): one line naming it and the
 * reason.  Returns the exit status, EXIT_OK when it may be written. */
int cli_check_output(const char *output);

/* The same for any output file named by option ("--plot"). */
int cli_check_path(const char *option, const char *path);

/* Say in one line why the output file path of option could not be opened
 * or written: err is an errno value or an enum atomic_refusal (from
 * atomic_file_open or _commit).  Returns the exit status: 2 for an output
 * that is an input or has other hard links, 1 otherwise. */
int cli_output_error(const char *option, const char *path, int err);

/* Write a report in format with write(r, ctx, err) to the standard output,
 * or with output != NULL through atomic_file_open() (refusals and
 * all).  A failure to write is reported in one
 * line naming the destination; any other through cli_library_failure().
 * Returns the exit status. */
int cli_emit(const char *output, enum ha_report_format format,
             cli_report_fn write, const void *ctx);

#endif
