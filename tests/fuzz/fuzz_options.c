/* libFuzzer target: the allocation command's option parser.  The input's
 * lines are the arguments.  Runs in an empty scratch directory, and
 * arguments with a '/' are refused, so --config and --hdi-from can only
 * name files that do not exist. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char dir[] = "/tmp/headalloc-fuzz-XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) != 0)
		abort();
	/* --help is not the point here; run with -close_fd_mask=2 to silence
	 * the parser's messages on stderr too (tests/fuzz/run.sh does). */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { MAX_ARGS = 24 };
	if (size > 4096 || memchr(data, '/', size) || memchr(data, '\0', size))
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *argv[MAX_ARGS + 2] = {"headalloc"};
	int argc = 1;
	for (char *line = strtok(text, "\n"); line && argc <= MAX_ARGS;
	     line = strtok(NULL, "\n"))
		argv[argc++] = line;
	argv[argc] = NULL;

	struct cli_options o;
	int status;
	if (cli_options_parse(argc, argv, &o, &status)) {
		/* Accepted: what cmd_allocate.c relies on holds. */
		if (o.budget_count == 0 && !(o.scenario && o.scenario->model_count))
			abort();
		if (ha_model_validate(&o.model) != HA_OK)
			abort();
	}
	cli_options_free(&o);
	free(text);
	return 0;
}
