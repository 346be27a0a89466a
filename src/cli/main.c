/* headalloc — the command-line front end.  It parses options, calls the
 * library through run.c and turns statuses into one-line messages and exit
 * codes (exit_codes.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "commands.h"
#include "exit_codes.h"
#include "options.h"
#include "run.h"

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

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "hdi") == 0)
		return cli_hdi_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "weights") == 0)
		return cli_weights_main(argc - 1, argv + 1);

	struct cli_options o;
	int rc = cli_options_parse(argc, argv, &o);
	if (rc >= 0) {
		cli_options_free(&o);
		return rc;
	}

	struct atomic_file file = {0};
	FILE *out = stdout;
	if (o.output) {
		int err = atomic_file_open(&file, o.output);
		if (err) {
			rc = write_error(o.output, err);
			goto out;
		}
		out = file.stream;
	}
	errno = 0;
	rc = cli_run(&o, out);
	if (rc == EXIT_OK && fflush(out) != 0)
		rc = EXIT_WRITE_FAILED;
	int err = errno ? errno : EIO;
	if (o.output) {
		if (rc != EXIT_OK)
			atomic_file_abort(&file);
		else if ((err = atomic_file_commit(&file)) != 0)
			rc = EXIT_WRITE_FAILED;
	}
	if (rc == EXIT_WRITE_FAILED)
		rc = write_error(o.output, err);
out:
	cli_options_free(&o);
	return rc;
}
