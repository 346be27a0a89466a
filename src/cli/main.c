/* headalloc — the command-line front end: dispatch to a command. */
#include <string.h>

#include "blas_threads.h"
#include "commands.h"

int main(int argc, char **argv)
{
	cli_blas_threads_idle();
	if (argc > 1 && strcmp(argv[1], "hdi") == 0)
		return cli_hdi_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "weights") == 0)
		return cli_weights_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "calibrate") == 0)
		return cli_calibrate_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "plan") == 0)
		return cli_plan_main(argc - 1, argv + 1);
	/* hidden: the shell completion, which meson installs */
	if (argc > 1 && strcmp(argv[1], "--completion") == 0)
		return cli_completion_main(argc - 1, argv + 1);
	return cli_allocate_main(argc, argv);
}
