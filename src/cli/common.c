#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "atomic_file.h"
#include "common.h"

int cli_usage_error(const char *command, const char *fmt, ...)
{
	va_list args;
	fputs("headalloc: ", stderr);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fprintf(stderr, " (try 'headalloc %s%s--help')\n", command ? command : "",
	        command ? " " : "");
	return EXIT_USAGE;
}

int cli_bad_value(const char *option, const char *value, const char *expected)
{
	fprintf(stderr, "headalloc: %s: invalid value '%s': expected %s\n",
	        option, value, expected);
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

static int write_error(const char *path, int err)
{
	if (path)
		fprintf(stderr, "headalloc: --output: cannot write '%s': %s\n", path,
		        strerror(err));
	else
		fprintf(stderr, "headalloc: writing standard output: %s\n",
		        strerror(err));
	return EXIT_IO;
}

int cli_emit(const char *output, cli_write_fn write, const void *ctx)
{
	struct atomic_file file = {0};
	FILE *out = stdout;
	if (output) {
		int err = atomic_file_open(&file, output);
		if (err)
			return write_error(output, err);
		out = file.stream;
	}
	errno = 0;
	int rc = write(out, ctx);
	if (rc == EXIT_OK && fflush(out) != 0)
		rc = EXIT_WRITE_FAILED;
	int err = errno ? errno : EIO;
	if (output) {
		if (rc != EXIT_OK)
			atomic_file_abort(&file);
		else if ((err = atomic_file_commit(&file)) != 0)
			rc = EXIT_WRITE_FAILED;
	}
	return rc == EXIT_WRITE_FAILED ? write_error(output, err) : rc;
}
