/* headalloc plan: which run to train next to decide the allocation at a
 * target (headalloc-model(7), PLANNING).  Parses its options (the law,
 * bootstrap and target through cal_options.c, as calibrate does), reads
 * the runs and the pool, plans through the library and hands the plan to
 * the report layer and, with --plot, to the picture. */
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
	"Usage: headalloc plan [RUNS] --budget D --samples N [OPTION]...\n"
	"Say which runs to train next to decide the optimal (H, d_k) at the\n"
	"target budget D and n = N: each candidate run's value is the expected\n"
	"rise in the probability that the decision is right, from the\n"
	"calibration's posterior over the ladder of laws.  Without RUNS, or with\n"
	"too few to fit, the smallest initial design.\n"
	"\n"
	"Target:\n"
	"  -b, --budget D              the budget D = H*d_k to decide at (required)\n"
	"  -n, --samples N             the training-set size to decide at (required)\n"
	"  -m, --head-dim-multiple M   constraints on the allocations, as in\n"
	"      --min-head-dim K        headalloc --help\n"
	"      --max-head-dim K\n"
	"      --min-heads H\n"
	"      --max-heads H\n"
	"      --kv-heads G|auto       allocations with G key/value heads (G | H),\n"
	"                              or every divisor G of H (default: G = H)\n"
	"Pool:\n"
	"      --pool FILE             the runnable runs: a runs file without loss\n"
	"                              (optional column cost)\n"
	"      --pool-samples LIST     n of the built pool: N[,N...] or\n"
	"                              FROM:TO:POINTS (default: 4 log-spaced from\n"
	"                              N/1000 to N/10)\n"
	"      --cost KIND             params-tokens (default: 6 P n, P the\n"
	"                              attention's parameters at --model-dim, else\n"
	"                              D n) or tokens (n)\n"
	"      --model-dim W           the model width for params-tokens\n"
	"Plan:\n"
	"      --next K                pick K runs (default 1; 0: the decision alone)\n"
	"      --spend C               pick runs while their cost stays within C\n"
	"      --stop-below P          stop (train the target now) when no run is\n"
	"                              worth more than P (default 0.01)\n"
	"      --outcomes O            simulated outcomes a candidate (default 256)\n"
	"      --seed S                seed of the bootstrap and the simulation\n"
	"                              (default 1)\n"
	"      --bootstrap B           posterior refits a law (default 50)\n"
	"Fit (as headalloc calibrate --help says):\n"
	"      --free NAME[,NAME...]   parameters of the main law to fit\n"
	"      --fix NAME=VALUE[,...]  hold parameters at values\n"
	"      --law NAME=PARAM[,PARAM...]  a law of your own in the posterior\n"
	"      --huber-delta X         Huber threshold of the main fit\n"
	"      --columns KEY=COLUMN[,...]  the CSV columns under a tracker's names\n"
	"      --threads N|auto        refit on N threads (default auto)\n"
	"Output:\n"
	"  -f, --format FORMAT         text (default), yaml or json\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"      --plot FILE             draw each candidate's value against its cost,\n"
	"                              the picks marked (.svg, .png or .pdf)\n"
	"      --progress              show the progress line on stderr\n"
	"      --quiet                 never show the progress line\n"
	"  -h, --help                  show this help and exit\n"
	"\n"
	"Exit status: 0 success, 1 I/O or internal error, 2 usage or input error\n"
	"(a pool with losses, an empty pool, a cost <= 0), 3 no allocation of the\n"
	"budget meets the constraints.  See headalloc-plan(1).\n";

enum long_only {
	OPT_POOL = 256,
	OPT_POOL_SAMPLES,
	OPT_COST,
	OPT_MODEL_DIM,
	OPT_KV_HEADS,
	OPT_NEXT,
	OPT_SPEND,
	OPT_STOP_BELOW,
	OPT_OUTCOMES,
	OPT_PROGRESS,
	OPT_QUIET,
};

static const struct option long_options[] = {
	CLI_CAL_LONG_OPTIONS,
	{"kv-heads", required_argument, NULL, OPT_KV_HEADS},
	{"pool", required_argument, NULL, OPT_POOL},
	{"pool-samples", required_argument, NULL, OPT_POOL_SAMPLES},
	{"cost", required_argument, NULL, OPT_COST},
	{"model-dim", required_argument, NULL, OPT_MODEL_DIM},
	{"next", required_argument, NULL, OPT_NEXT},
	{"spend", required_argument, NULL, OPT_SPEND},
	{"stop-below", required_argument, NULL, OPT_STOP_BELOW},
	{"outcomes", required_argument, NULL, OPT_OUTCOMES},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"plot", required_argument, NULL, CLI_OPT_PLOT},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct option *const cli_plan_options = long_options; /* completion.c */

struct plan_cli {
	struct cli_file_options c;       /* c.file: RUNS, or NULL */
	struct cli_plot plot;
	struct ha_plan_options plan;
	struct cli_cal_shared shared;
	const char *pool_file;
	struct ha_samples pool_samples;
	int have_next;
	enum cli_progress_mode progress;
};

static int apply_number(struct plan_cli *o, int code, const char *arg)
{
	struct ha_plan_options *p = &o->plan;
	uint64_t u;
	double v;
	switch (code) {
	case OPT_MODEL_DIM:
		if (!cli_parse_uint(arg, 1, HA_BUDGET_MAX, &p->model_dim))
			return cli_bad_value("--model-dim", arg, CLI_WHOLE_NUMBER);
		return EXIT_OK;
	case OPT_NEXT:
		if (!cli_parse_uint(arg, 0, HA_PLAN_PICKS_MAX, &u))
			return cli_bad_value("--next", arg, "a whole number from 0 to 1000");
		p->next = (size_t)u;
		o->have_next = 1;
		return EXIT_OK;
	case OPT_SPEND:
		if (!cli_parse_real(arg, &v) || !(v > 0.0) || !isfinite(v))
			return cli_bad_value("--spend", arg, "a finite number > 0");
		p->spend = v;
		return EXIT_OK;
	case OPT_STOP_BELOW:
		if (!cli_parse_real(arg, &v) || !(v > 0.0 && v < 1.0))
			return cli_bad_value("--stop-below", arg,
			                     "a probability strictly between 0 and 1");
		p->stop_below = v;
		return EXIT_OK;
	default: /* OPT_OUTCOMES */
		if (!cli_parse_uint(arg, 2, 1000000, &u))
			return cli_bad_value("--outcomes", arg,
			                     "a whole number from 2 to 1000000");
		p->outcomes = (size_t)u;
		return EXIT_OK;
	}
}

static int apply(void *options, int code, const char *arg)
{
	struct plan_cli *o = options;
	struct ha_plan_options *p = &o->plan;
	if (cli_cal_is_option(code))
		return cli_cal_option(&o->shared, code, arg);
	switch (code) {
	case OPT_POOL:
		if (!*arg)
			return cli_bad_value("--pool", arg, "a file name");
		o->pool_file = arg;
		return EXIT_OK;
	case OPT_POOL_SAMPLES:
		cli_free_samples(&o->pool_samples);
		return cli_parse_sample_list("--pool-samples", arg, &o->pool_samples);
	case OPT_COST:
		switch (cli_word_index(CLI_WORDS_COST, arg)) {
		case 0:
			p->cost = HA_PLAN_COST_TOKENS;
			return EXIT_OK;
		case 1:
			p->cost = HA_PLAN_COST_PARAMS_TOKENS;
			return EXIT_OK;
		default:
			return cli_bad_word("--cost", arg, CLI_WORDS_COST);
		}
	case OPT_KV_HEADS:
		if (cli_word_index(CLI_WORDS_KV_HEADS, arg) == 0)
			p->kv_heads = HA_PLAN_KV_ALL;
		else if (!cli_parse_uint(arg, 1, HA_BUDGET_MAX, &p->kv_heads))
			return cli_bad_value("--kv-heads", arg, "auto or " CLI_WHOLE_NUMBER);
		return EXIT_OK;
	case OPT_MODEL_DIM:
	case OPT_NEXT:
	case OPT_SPEND:
	case OPT_STOP_BELOW:
	case OPT_OUTCOMES:
		return apply_number(o, code, arg);
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

static void defaults(struct plan_cli *o)
{
	memset(o, 0, sizeof *o);
	ha_plan_options_defaults(&o->plan);
	cli_cal_shared_init(&o->shared, &o->plan.cal);
}

/* The runs file, if any: exactly one operand or none. */
static int operands(struct plan_cli *o, int argc, char **argv)
{
	static const char *const command = "plan";
	if (optind < argc)
		o->c.file = argv[optind++];
	if (optind < argc)
		return cli_usage_error(command, "unexpected argument '%s'", argv[optind]);
	if (o->c.file && !*o->c.file)
		return cli_usage_error(command, "the file name is empty");
	return EXIT_OK;
}

static int finish_options(struct plan_cli *o)
{
	static const char *const command = "plan";
	if (!o->shared.have_budget || !o->shared.have_samples)
		return cli_usage_error(command, "--budget and --samples are required");
	if (o->pool_file && o->pool_samples.count)
		return cli_usage_error(command, "--pool and --pool-samples are two "
		                       "pools: give one");
	int status = cli_cal_finish(&o->shared, command);
	if (status != EXIT_OK)
		return status;
	struct ha_plan_options *p = &o->plan;
	if (o->shared.have_bootstrap) {
		if (p->cal.bootstrap < 2)
			return cli_bad_value("--bootstrap", "0 or 1",
			                     "at least 2 refits a law for a posterior");
		p->resamples = p->cal.bootstrap;
	}
	if (p->spend > 0.0 && !o->have_next)
		p->next = 0; /* as many as the spend allows */
	if (o->pool_file)
		status = cli_input(o->pool_file, "--pool");
	if (status == EXIT_OK && o->c.file)
		status = cli_input(o->c.file, "the input");
	if (status == EXIT_OK)
		status = cli_check_output(o->c.output);
	if (status == EXIT_OK)
		status = cli_plot_check(&o->plot, o->c.output, command);
	if (status == EXIT_OK)
		status = cli_cal_check_target(&p->cal.target);
	return status;
}

/* The --pool-samples values into the options (a sweep expanded). */
static int take_pool_samples(struct plan_cli *o, double **values)
{
	size_t n = o->pool_samples.count;
	*values = NULL;
	if (n == 0)
		return EXIT_OK;
	if (n > HA_PLAN_POOL_SAMPLES_MAX)
		return cli_bad_value("--pool-samples", "the list",
		                     "at most 64 values");
	*values = malloc(n * sizeof **values);
	if (!*values)
		return cli_library_failure(NULL, NULL, HA_ENOMEM, NULL);
	for (size_t i = 0; i < n; i++)
		(*values)[i] = ha_samples_value(&o->pool_samples, i);
	o->plan.pool_samples = *values;
	o->plan.pool_samples_count = n;
	return EXIT_OK;
}

static int read_pool(struct plan_cli *o, struct ha_plan_candidate **pool)
{
	*pool = NULL;
	if (!o->pool_file)
		return EXIT_OK;
	struct ha_run *runs = NULL;
	double *costs = NULL;
	size_t count = 0;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_runs_read_pool(o->pool_file, HA_RUNS_AUTO,
	                                      &o->shared.columns, &runs, &costs,
	                                      &count, &err);
	if (st != HA_OK)
		return cli_library_failure(NULL, o->pool_file, st, &err);
	*pool = malloc(count * sizeof **pool);
	if (!*pool) {
		free(runs);
		free(costs);
		return cli_library_failure(NULL, NULL, HA_ENOMEM, NULL);
	}
	for (size_t i = 0; i < count; i++)
		(*pool)[i] = (struct ha_plan_candidate){runs[i].heads, runs[i].head_dim,
		                                        runs[i].kv_heads, runs[i].samples,
		                                        costs[i]};
	free(runs);
	free(costs);
	o->plan.pool = *pool;
	o->plan.pool_count = count;
	return EXIT_OK;
}

static enum ha_status write_plan(struct ha_report *r, const void *req,
                                 struct ha_error *err)
{
	return ha_report_plan(r, req, err);
}

static enum ha_status draw_plan(struct ha_plot_target *t, const void *req,
                                size_t i, struct ha_error *err)
{
	(void)i;
	return ha_plot_plan(t, req, err);
}

static int run(struct plan_cli *o)
{
	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_error err;
	ha_error_init(&err);
	if (o->c.file) {
		enum ha_status st = ha_runs_read_file_named(o->c.file, HA_RUNS_AUTO,
		                                            &o->shared.columns, &runs,
		                                            &count, &err);
		if (st != HA_OK)
			return cli_library_failure(NULL, o->c.file, st, &err);
	}
	struct ha_plan *plan = NULL;
	struct cli_progress line;
	o->plan.progress = cli_progress_begin(&line, o->progress, "plan");
	o->plan.cal.progress = o->plan.progress;
	enum ha_status st = ha_plan_make(runs, count, &o->plan, &plan, &err);
	cli_progress_end(&line);
	free(runs);
	/* An option's refusal names the option; the rest are the runs'. */
	if (st != HA_OK)
		return cli_library_failure(NULL, strncmp(err.message, "--", 2) == 0
		                                          ? NULL : o->c.file,
		                           st, &err);
	struct ha_plan_request req = {.plan = plan, .runs_file = o->c.file};
	struct ha_plot_plan_request picture = {.plan = plan, .runs_file = o->c.file};
	int status = cli_emit_with_pictures(o->c.output, o->c.format, write_plan,
	                                    &req, &o->plot, 1, draw_plan, &picture);
	ha_plan_free(plan);
	return status;
}

int cli_plan_main(int argc, char **argv)
{
	static const struct cli_command cmd = {"plan", usage, long_options,
	                                       ":b:n:m:f:o:h", false, NULL};
	struct plan_cli o;
	defaults(&o);
	int status;
	if (!cli_parse_options(&cmd, argc, argv, &o, apply, &status)) {
		cli_free_samples(&o.pool_samples);
		return status;
	}
	status = operands(&o, argc, argv);
	if (status == EXIT_OK)
		status = finish_options(&o);
	double *samples = NULL;
	struct ha_plan_candidate *pool = NULL;
	if (status == EXIT_OK)
		status = take_pool_samples(&o, &samples);
	if (status == EXIT_OK)
		status = read_pool(&o, &pool);
	if (status == EXIT_OK)
		status = run(&o);
	free(samples);
	free(pool);
	cli_free_samples(&o.pool_samples);
	return status;
}
