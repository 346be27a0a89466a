/* headalloc calibrate: fit the error model to measured training runs
 * (headalloc-model(7), CALIBRATION), with its uncertainty, the comparison of laws and the
 * optimal allocation at a target.  Parses its options, reads the runs
 * and calibrates through the library, prints the warnings on stderr and
 * hands the result to the report layer (which lists the warnings too). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cal_options.h"
#include "commands.h"
#include "common.h"
#include "option_words.h"
#include "parse.h"
#include "pictures.h"
#include "progress_line.h"
#include "value_lists.h"

static const char usage[] =
	"Usage: headalloc calibrate RUNS [OPTION]...\n"
	"Fit the error model to measured training runs (RUNS: a YAML file, or CSV\n"
	"when its name ends in .csv; see headalloc-runs(5)) and predict the\n"
	"optimal (H, d_k) at a target budget and n.\n"
	"\n"
	"Runs:\n"
	"      --columns KEY=COLUMN[,...]  the CSV columns under a tracker's names\n"
	"                              (KEY heads, head_dim, model_dim, samples,\n"
	"                              loss, loss_se or kv_heads; e.g. heads=n_head,\n"
	"                              model_dim=n_embd,loss=val/loss)\n"
	"Fit:\n"
	"      --free NAME[,NAME...]   parameters to fit (default\n"
	"                              irreducible,bias_coef,var_coef)\n"
	"      --fix NAME=VALUE[,...]  hold parameters at values (the others not\n"
	"                              free keep the defaults of headalloc-model(7))\n"
	"      --huber-delta X         Huber threshold of the log residuals, > 0,\n"
	"                              or inf for least squares (the default)\n"
	"      --compare               also fit the ladder of laws, side by side\n"
	"      --law NAME=PARAM[,PARAM...]  add a law of your own to the comparison\n"
	"                              (repeatable; implies --compare): PARAMs free\n"
	"                              as --free takes them, the others as fixed\n"
	"Uncertainty:\n"
	"      --bootstrap B           bootstrap resamples, 0 for none\n"
	"                              (default 1000)\n"
	"      --seed S                seed of the bootstrap (default 1)\n"
	"      --bootstrap-kind KIND   cases (resample the runs, default),\n"
	"                              residuals (the fit's log residuals, pooled)\n"
	"                              or wild (each run's own, random signs)\n"
	"Target (both or neither; without them no prediction):\n"
	"  -b, --budget D              the budget D = H*d_k to predict at\n"
	"  -n, --samples N             the training-set size to predict at\n"
	"  -m, --head-dim-multiple M   constraints on the predicted allocation,\n"
	"      --min-head-dim K        as in headalloc --help\n"
	"      --max-head-dim K\n"
	"      --min-heads H\n"
	"      --max-heads H\n"
	"Output:\n"
	"  -f, --format FORMAT         text (default), yaml or json; the YAML report\n"
	"                              is a scenario file: headalloc --config\n"
	"                              REPORT allocates with the calibrated model\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"      --plot FILE             also draw the runs, the fitted curves with their\n"
	"                              bootstrap bands and the prediction into FILE\n"
	"                              (.svg, .png or .pdf)\n"
	"      --progress              show the progress line (the bootstrap's\n"
	"                              resamples, the comparison's laws) on stderr\n"
	"                              even when it is not a terminal\n"
	"      --quiet                 never show the progress line\n"
	"      --threads N|auto        refit on N threads, the calling one among them\n"
	"                              (at most 8; default auto: one per online\n"
	"                              processor), the same report whatever N\n"
	"  -h, --help                  show this help and exit\n"
	"\n"
	"NAME is one of irreducible, bias_coef, smoothness, var_coef, var_rate,\n"
	"var_power, hdi, data_coef, data_power, var_samples_power, group_hdi\n"
	"(free only with runs of kv_heads < heads); --fix also\n"
	"takes log_bias_coef and log_var_coef (exact logarithms).  Warnings go\n"
	"to stderr and into the report.  Exit status: 0 success, 1 I/O or\n"
	"internal error, 2 usage or input error (fewer runs than free\n"
	"parameters + 1, a single head_dim), 3 no allocation of the budget\n"
	"meets the constraints.  See headalloc-calibrate(1).\n";

enum long_only {
	OPT_COMPARE = 256,
	OPT_BOOTSTRAP_KIND,
	OPT_PROGRESS,
	OPT_QUIET,
};

static const struct option long_options[] = {
	CLI_CAL_LONG_OPTIONS,
	{"compare", no_argument, NULL, OPT_COMPARE},
	{"bootstrap-kind", required_argument, NULL, OPT_BOOTSTRAP_KIND},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"plot", required_argument, NULL, CLI_OPT_PLOT},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct option *const cli_calibrate_options = long_options; /* completion.c */

struct calibrate_options {
	struct cli_file_options c;
	struct cli_plot plot;
	struct ha_cal_options cal;
	struct cli_cal_shared shared;    /* the law, the bootstrap, the target */
	enum cli_progress_mode progress; /* the last of --progress, --quiet */
};

static int apply(void *options, int code, const char *arg)
{
	struct calibrate_options *o = options;
	struct ha_cal_options *cal = &o->cal;
	if (cli_cal_is_option(code))
		return cli_cal_option(&o->shared, code, arg);
	switch (code) {
	case OPT_COMPARE:
		cal->compare = 1;
		return EXIT_OK;
	case OPT_BOOTSTRAP_KIND:
	{
		/* the library's kind of that name */
		int kind = 0;
		const char *name = NULL;
		if (cli_word_index(CLI_WORDS_BOOTSTRAP_KIND, arg) >= 0)
			while ((name = ha_cal_bootstrap_kind_str(
			                (enum ha_cal_bootstrap_kind)kind)) &&
			       strcmp(name, arg) != 0)
				kind++;
		if (!name)
			return cli_bad_word("--bootstrap-kind", arg,
			                    CLI_WORDS_BOOTSTRAP_KIND);
		cal->bootstrap_kind = (enum ha_cal_bootstrap_kind)kind;
		return EXIT_OK;
	}
	case OPT_PROGRESS:
		o->progress = CLI_PROGRESS_FORCE;
		return EXIT_OK;
	case OPT_QUIET:
		o->progress = CLI_PROGRESS_OFF;
		return EXIT_OK;
	case CLI_OPT_PLOT:
		return cli_plot_option(&o->plot, arg);
	}
	return cli_apply_file_option(&o->c, code, arg);
}

/* The defaults: the core's (calibrate.h), but the free set of the issue
 * and of headalloc-calibrate(1), E, c_b and c_v (the seeds' law), and no ladder
 * unless --compare. */
static void defaults(struct calibrate_options *o)
{
	memset(o, 0, sizeof *o);
	ha_cal_options_defaults(&o->cal);
	o->cal.compare = 0;
	cli_cal_shared_init(&o->shared, &o->cal);
}

/* The checks that need every option, and the law they make. */
static int finish_options(struct calibrate_options *o)
{
	static const char *const command = "calibrate";
	if (o->shared.have_budget != o->shared.have_samples)
		return cli_usage_error(command, "--budget and --samples go together");
	if (o->shared.have_constraint && !o->shared.have_budget)
		return cli_usage_error(command, "the constraints on the allocation go "
		                       "with --budget and --samples");
	int status = cli_cal_finish(&o->shared, command);
	if (status != EXIT_OK)
		return status;
	return cli_file_command_ready(&o->c, &o->plot, command);
}

/* ---- running ------------------------------------------------------------------ */

static enum ha_status write_calibration(struct ha_report *r, const void *req,
                                        struct ha_error *err)
{
	return ha_report_calibration(r, req, err);
}

/* The picture's curves and bands are computed only when a picture is
 * drawn (ha_cal_picture_new), then drawn. */
static enum ha_status draw_calibration(struct ha_plot_target *t, const void *req,
                                       size_t i, struct ha_error *err)
{
	(void)i;
	struct ha_plot_calibration_request r = *(const struct ha_plot_calibration_request *)req;
	struct ha_cal_picture *data = NULL;
	enum ha_status st = ha_cal_picture_new(r.calibration, &data, err);
	if (st == HA_OK) {
		r.picture = data;
		st = ha_plot_calibration(t, &r, err);
	}
	ha_cal_picture_free(data);
	return st;
}

int cli_calibrate_main(int argc, char **argv)
{
	static const struct cli_command cmd = {"calibrate", usage, long_options,
	                                       ":b:n:m:f:o:h", false, NULL};
	struct calibrate_options o;
	defaults(&o);
	int status;
	if (!cli_parse_file_command(&cmd, argc, argv, &o.c, &o, apply, &status))
		return status;
	status = finish_options(&o);
	if (status == EXIT_OK)
		status = cli_cal_check_target(&o.cal.target);
	if (status != EXIT_OK)
		return status;

	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_runs_read_file_named(o.c.file, HA_RUNS_AUTO,
	                                            &o.shared.columns, &runs, &count,
	                                            &err);
	if (st != HA_OK)
		return cli_library_failure(NULL, o.c.file, st, &err);
	st = ha_cal_check_work(count, &o.cal, &err);
	if (st != HA_OK) {
		free(runs);
		return cli_library_failure(NULL, o.c.file, st, &err);
	}
	struct ha_calibration *cal = NULL;
	struct cli_progress line;
	o.cal.progress = cli_progress_begin(&line, o.progress, "calibrate");
	st = ha_calibrate(runs, count, &o.cal, &cal, &err);
	cli_progress_end(&line);
	free(runs);
	if (st != HA_OK)
		return cli_library_failure(NULL, o.c.file, st, &err);
	for (size_t i = 0; i < cal->warning_count; i++)
		fprintf(stderr, "headalloc: warning: %s: %s\n", o.c.file,
		        cal->warnings[i].message);
	struct ha_calibration_request req = {.calibration = cal,
	                                     .runs_file = o.c.file};
	struct ha_plot_calibration_request picture = {.calibration = cal,
	                                              .runs_file = o.c.file};
	status = cli_emit_with_pictures(o.c.output, o.c.format, write_calibration,
	                                &req, &o.plot, 1, draw_calibration, &picture);
	ha_calibration_free(cal);
	return status;
}
