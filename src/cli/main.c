/* headalloc — the command-line front end.  It dispatches the subcommands
 * (hdi_cmd.c), or parses the allocation command's options (options.c) and
 * writes its report (run.c); messages and exit codes in common.c. */
#include <string.h>

#include "commands.h"
#include "common.h"
#include "options.h"
#include "run.h"

static int write_report(FILE *out, const void *options)
{
	return cli_run(options, out);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "hdi") == 0)
		return cli_hdi_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "weights") == 0)
		return cli_weights_main(argc - 1, argv + 1);

	struct cli_options o;
	int rc = cli_options_parse(argc, argv, &o);
	if (rc < 0)
		rc = cli_emit(o.output, write_report, &o);
	cli_options_free(&o);
	return rc;
}
