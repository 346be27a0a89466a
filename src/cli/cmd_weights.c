/* headalloc weights: the optimal head weights of a head covariance matrix
 * (the seeds' Theorem 7.1).  Parses its options, computes through the
 * library and hands the result to the report layer. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "pictures.h"

static const char usage[] =
	"Usage: headalloc weights COVARIANCE.yaml [OPTION]...\n"
	"Compute the optimal head weights alpha, proportional to Sigma^-1 1, for\n"
	"the H x H covariance Sigma of the heads' outputs.\n"
	"\n"
	"  -f, --format FORMAT         text (default), yaml or json\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"      --plot FILE             also draw the weights (bars) and Sigma (a\n"
	"                              heatmap) into FILE (.svg, .png or .pdf)\n"
	"  -h, --help                  show this help and exit\n"
	"\n"
	"Exit status: 0 success (also when Sigma is singular: a warning is\n"
	"printed and the pseudo-inverse used), 1 I/O or internal error, 2 usage\n"
	"or input error.  See headalloc-weights(1).\n";

static const struct option long_options[] = {
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"plot", required_argument, NULL, CLI_OPT_PLOT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct option *const cli_weights_options = long_options; /* completion.c */

struct weights_options {
	struct cli_file_options c;
	struct cli_plot plot;
};

static int apply(void *options, int code, const char *arg)
{
	struct weights_options *o = options;
	if (code == CLI_OPT_PLOT)
		return cli_plot_option(&o->plot, arg);
	return cli_apply_file_option(&o->c, code, arg);
}

static enum ha_status write_weights(struct ha_report *r, const void *req,
                                    struct ha_error *err)
{
	return ha_report_head_weights(r, req, err);
}

static enum ha_status draw_weights(struct ha_plot_target *t, const void *req,
                                   size_t i, struct ha_error *err)
{
	(void)i;
	return ha_plot_head_weights(t, req, err);
}

int cli_weights_main(int argc, char **argv)
{
	static const struct cli_command cmd = {"weights", usage, long_options,
	                                       ":f:o:h", false, NULL};
	struct weights_options o;
	memset(&o, 0, sizeof o);
	int status;
	if (!cli_parse_file_command(&cmd, argc, argv, &o.c, &o, apply, &status))
		return status;
	status = cli_file_command_ready(&o.c, &o.plot, cmd.name);
	if (status != EXIT_OK)
		return status;

	double *sigma = NULL;
	size_t heads = 0;
	struct ha_error err;
	struct ha_head_weights hw = {0};
	ha_error_init(&err);
	enum ha_status st = ha_covariance_read(o.c.file, &sigma, &heads, &err);
	if (st == HA_OK)
		st = ha_covariance_weights(sigma, heads, &hw, &err);
	if (st != HA_OK) {
		free(sigma);
		return cli_library_failure(NULL, o.c.file, st, &err);
	}
	if (hw.warning[0]) /* the library's words (head_weights.h) */
		fprintf(stderr, "headalloc: warning: %s: %s\n", o.c.file, hw.warning);
	struct ha_head_weights_request req = {.weights = &hw};
	struct ha_plot_head_weights_request picture = {.weights = &hw, .sigma = sigma};
	status = cli_emit_with_pictures(o.c.output, o.c.format, write_weights, &req,
	                                &o.plot, 1, draw_weights, &picture);
	free(sigma);
	ha_head_weights_finish(&hw);
	return status;
}
