/* Failures, usage errors, the file commands' options and report output:
 * what every headalloc command shares. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "atomic_file.h"
#include "common.h"
#include "option_words.h"
#include "progress_line.h"

/* ---- failures -------------------------------------------------------------- */

int cli_exit_status(enum ha_status status)
{
	switch (status) {
	case HA_OK:
		return EXIT_OK;
	case HA_EINVAL:
	case HA_EFORMAT:
	case HA_EUNSUPPORTED:
	case HA_EDEGENERATE:
		return EXIT_USAGE;
	case HA_EINFEASIBLE:
		return EXIT_INFEASIBLE;
	case HA_EIO:
	case HA_ENOMEM:
	case HA_ENUMERIC:
	case HA_ECANCELED:
		break;
	}
	return EXIT_IO;
}

int cli_library_failure(const char *subject, const char *file,
                        enum ha_status status, const struct ha_error *err)
{
	long line = err ? err->line : 0, column = err ? err->column : 0;
	if (err && err->file)
		file = err->file;
	/* Paths and messages may quote what a file holds: shown safe. */
	char safe_file[4096], safe_message[HA_ERROR_MESSAGE_MAX];
	if (file)
		file = ha_text_safe(file, safe_file, sizeof safe_file);
	cli_progress_clear();
	fputs("headalloc: ", stderr);
	/* FILE:LINE:COLUMN says where; naming the option too is noise. */
	if (subject && line <= 0)
		fprintf(stderr, "%s: ", subject);
	if (file)
		fputs(file, stderr);
	if (line > 0) {
		fprintf(stderr, file ? ":%ld" : "%ld", line);
		if (column > 0)
			fprintf(stderr, ":%ld", column);
	}
	if (file || line > 0)
		fputs(": ", stderr);
	fprintf(stderr, "%s\n",
	        err && err->message[0]
	                ? ha_text_safe(err->message, safe_message,
	                               sizeof safe_message)
	                : ha_status_str(status));
	return cli_exit_status(status);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
	va_list args;
	char line[4096], safe[4096];
	va_start(args, fmt);
	vsnprintf(line, sizeof line, fmt, args);
	va_end(args);
	/* it may quote an argument as typed: shown safe */
	cli_progress_clear();
	fprintf(stderr, "headalloc: %s", ha_text_safe(line, safe, sizeof safe));
	fprintf(stderr, " (try 'headalloc %s%s--help')\n", command ? command : "",
	        command ? " " : "");
	return EXIT_USAGE;
}

int cli_format_parse(const char *arg, enum ha_report_format *format)
{
	return cli_word_index(CLI_WORDS_FORMAT, arg) >= 0 &&
	       ha_report_format_parse(arg, format) == HA_OK;
}

int cli_bad_format(const char *arg)
{
	return cli_bad_word("--format", arg, CLI_WORDS_FORMAT);
}

int cli_layout_parse(const char *arg, enum ha_layout *layout)
{
	return cli_word_index(CLI_WORDS_LAYOUT, arg) >= 0 &&
	       ha_layout_parse(arg, layout) == HA_OK;
}

int cli_bad_word(const char *option, const char *arg, int set)
{
	char words[64];
	return cli_bad_value(option, arg, cli_words_expected((enum cli_words)set,
	                                                     words, sizeof words));
}

int cli_file_error(const char *fmt, ...)
{
	va_list args;
	char line[4096], safe[4096];
	va_start(args, fmt);
	vsnprintf(line, sizeof line, fmt, args);
	va_end(args);
	cli_progress_clear();
	fprintf(stderr, "headalloc: %s\n", ha_text_safe(line, safe, sizeof safe));
	return EXIT_USAGE;
}

int cli_bad_value(const char *option, const char *value, const char *expected)
{
	char safe[256];
	fprintf(stderr, "headalloc: %s: invalid value '%s': expected %s\n",
	        option, ha_text_safe(value, safe, sizeof safe), expected);
	return EXIT_USAGE;
}

int cli_getopt_error(int code, const char *typed, const struct option *options,
                     const char *command)
{
	if (code == ':')
		return cli_usage_error(command, "option '%s' needs a value", typed);
	if (strncmp(typed, "--", 2) != 0)
		return cli_usage_error(command, "unknown option '-%c'", optopt);
	/* "--all=3": a flag given a value.  glibc reports it like an unknown
	 * option, so tell them apart here. */
	const char *eq = strchr(typed, '=');
	size_t len = eq ? (size_t)(eq - typed - 2) : strlen(typed + 2);
	for (const struct option *o = options; eq && o->name; o++)
		if (o->has_arg == no_argument && strlen(o->name) == len &&
		    strncmp(o->name, typed + 2, len) == 0)
			return cli_usage_error(command, "option '--%s' takes no value",
			                       o->name);
	return cli_usage_error(command, "unknown or ambiguous option '%s'", typed);
}

/* ---- the file commands ------------------------------------------------------ */

int cli_apply_file_option(struct cli_file_options *c, int code, const char *arg)
{
	switch (code) {
	case 'f':
		if (!cli_format_parse(arg, &c->format))
			return cli_bad_format(arg);
		return EXIT_OK;
	case 'o':
		if (!*arg)
			return cli_bad_value("--output", arg, "a file name");
		c->output = arg;
		return EXIT_OK;
	}
	/* getopt_long returns only the codes of the command's table, and
	 * each command applies its own before handing the rest here. */
	return EXIT_USAGE;
}

static bool done(int *exit_status, int status)
{
	*exit_status = status;
	return false;
}

/* The commands and how each is called, for the hint below. */
static const struct {
	const char *name, *operand;
} commands[] = {{"hdi", "FILE"}, {"weights", "COV.yaml"}, {"calibrate", "RUNS"}};

int cli_misplaced_command(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
			if (strcmp(argv[i], commands[c].name) == 0)
				return cli_usage_error(commands[c].name, "the command '%s' "
				                       "must come first: headalloc %s "
				                       "%s [OPTION]...", commands[c].name,
				                       commands[c].name, commands[c].operand);
	return 0;
}

bool cli_parse_options(const struct cli_command *cmd, int argc, char **argv,
                       void *options, cli_apply_fn apply, int *exit_status)
{
	opterr = 0;
	optind = 0; /* a fresh scan, also for a second pass */
	int code;
	while ((code = getopt_long(argc, argv, cmd->short_options, cmd->options,
	                           NULL)) != -1) {
		const char *typed = argv[optind - 1];
		if (code == 'h') {
			errno = 0; /* what a failed write leaves, for the message */
			fputs(cmd->usage, stdout);
			if (cmd->usage_more)
				fputs(cmd->usage_more, stdout);
			return done(exit_status, cli_finish_stdout());
		}
		if (code == 'V' && cmd->version) {
			errno = 0;
			printf("headalloc %s\n", ha_version());
			return done(exit_status, cli_finish_stdout());
		}
		if (code == '?' || code == ':') {
			int rc = cmd->name ? 0 : cli_misplaced_command(argc, argv);
			return done(exit_status,
			            rc ? rc : cli_getopt_error(code, typed, cmd->options,
			                                       cmd->name));
		}
		int status = apply(options, code, optarg);
		if (status != EXIT_OK)
			return done(exit_status, status);
	}
	*exit_status = EXIT_OK;
	return true;
}

bool cli_parse_file_command(const struct cli_command *cmd, int argc,
                            char **argv, struct cli_file_options *file,
                            void *options, cli_apply_fn apply,
                            int *exit_status)
{
	if (!cli_parse_options(cmd, argc, argv, options, apply, exit_status))
		return false;
	if (optind >= argc)
		return done(exit_status, cli_usage_error(cmd->name, "a file is required"));
	file->file = argv[optind++];
	if (optind < argc)
		return done(exit_status, cli_usage_error(cmd->name,
		            "unexpected argument '%s'", argv[optind]));
	if (!*file->file)
		return done(exit_status, cli_usage_error(cmd->name, "the file name is empty"));
	*exit_status = EXIT_OK;
	return true;
}

/* ---- writing a report ---------------------------------------------------------- */

/* A refused output is a usage error (2) when the user named an input as
 * the output or a file whose other links would silently keep the old
 * contents; one that could not have been written in place (read-only,
 * someone else's) is a failure to write (1), as fopen's EACCES was. */
static int refusal_status(int err)
{
	return err == ATOMIC_SAME_AS_INPUT || err == ATOMIC_HARD_LINKED
	               ? EXIT_USAGE
	               : cli_exit_status(HA_EIO);
}

static int write_error_of(const char *option, const char *path, int err)
{
	char safe[4096];
	if (path)
		path = ha_text_safe(path, safe, sizeof safe);
	if (path && err < 0) {
		fprintf(stderr, "headalloc: %s: refusing to replace '%s': %s\n",
		        option, path, atomic_file_strerror(err));
		return refusal_status(err);
	}
	if (path)
		fprintf(stderr, "headalloc: %s: cannot write '%s': %s\n", option,
		        path, atomic_file_strerror(err));
	else
		fprintf(stderr, "headalloc: writing standard output: %s\n",
		        strerror(err));
	return cli_exit_status(HA_EIO);
}

static int write_error(const char *path, int err)
{
	return write_error_of("--output", path, err);
}

int cli_finish_stdout(void)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);
	if (!failed)
		return EXIT_OK;
	return write_error_of(NULL, NULL, errno ? errno : EIO);
}

int cli_output_error(const char *option, const char *path, int err)
{
	return write_error_of(option, path, err);
}

/* The whole report on out: its sections, then its end.  HA_EIO means
 * writing failed; any other failure is explained in *err. */
static enum ha_status write_report(FILE *out, enum ha_report_format format,
                                   cli_report_fn write, const void *ctx,
                                   struct ha_error *err)
{
	struct ha_report *r = NULL;
	enum ha_status st = ha_report_new(out, format, &r);
	if (st == HA_OK)
		st = write(r, ctx, err);
	if (st == HA_OK)
		st = ha_report_end(r); /* flushes out */
	ha_report_free(r);
	return st;
}

int cli_input(const char *path, const char *what)
{
	if (atomic_file_add_input(path, what) != 0)
		return cli_library_failure(what, path, HA_ENOMEM, NULL);
	return EXIT_OK;
}

int cli_check_path(const char *option, const char *path)
{
	int e = path ? atomic_file_check(path) : 0;
	return e ? write_error_of(option, path, e) : EXIT_OK;
}

int cli_check_output(const char *output)
{
	return cli_check_path("--output", output);
}

int cli_emit(const char *output, enum ha_report_format format,
             cli_report_fn write, const void *ctx)
{
	struct atomic_file file = {0};
	FILE *out = stdout;
	if (output) {
		int e = atomic_file_open(&file, output);
		if (e)
			return write_error(output, e);
		out = file.stream;
	}
	struct ha_error err;
	ha_error_init(&err);
	errno = 0;
	enum ha_status st = write_report(out, format, write, ctx, &err);
	int e = errno ? errno : EIO;
	if (output) {
		if (st != HA_OK)
			atomic_file_abort(&file);
		else if ((e = atomic_file_commit(&file)) != 0)
			st = HA_EIO;
	}
	if (st == HA_EIO)
		return write_error(output, e);
	if (st != HA_OK)
		return cli_library_failure(NULL, NULL, st, &err);
	return EXIT_OK;
}
