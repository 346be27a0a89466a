/* headalloc calibrate: fit the error model to measured training runs
 * (headalloc-model(7), CALIBRATION), with its uncertainty, the comparison of laws and the
 * optimal allocation at a target.  Parses its options, reads the runs
 * and calibrates through the library, prints the warnings on stderr and
 * hands the result to the report layer (which lists the warnings too). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
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
	"                              or inf for least squares (default 0.001)\n"
	"      --compare               also fit the ladder of laws, side by side\n"
	"      --law NAME=PARAM[,PARAM...]  add a law of your own to the comparison\n"
	"                              (repeatable; implies --compare): PARAMs free\n"
	"                              as --free takes them, the others as fixed\n"
	"Uncertainty:\n"
	"      --bootstrap B           case-bootstrap resamples, 0 for none\n"
	"                              (default 1000)\n"
	"      --seed S                seed of the bootstrap (default 1)\n"
	"      --bootstrap-kind KIND   cases (resample the runs, default) or\n"
	"                              residuals (resample the fit's log residuals)\n"
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
	"      --threads N|auto        refit on N threads (at most 8; default auto:\n"
	"                              one per processor), the same report whatever N\n"
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
	OPT_FREE = 256,
	OPT_FIX,
	OPT_HUBER_DELTA,
	OPT_COMPARE,
	OPT_BOOTSTRAP,
	OPT_SEED,
	OPT_BOOTSTRAP_KIND,
	OPT_MIN_HEAD_DIM,
	OPT_MAX_HEAD_DIM,
	OPT_MIN_HEADS,
	OPT_MAX_HEADS,
	OPT_LAW,
	OPT_PROGRESS,
	OPT_QUIET,
	OPT_THREADS,
	OPT_COLUMNS,
};

static const struct option long_options[] = {
	{"columns", required_argument, NULL, OPT_COLUMNS},
	{"free", required_argument, NULL, OPT_FREE},
	{"fix", required_argument, NULL, OPT_FIX},
	{"huber-delta", required_argument, NULL, OPT_HUBER_DELTA},
	{"compare", no_argument, NULL, OPT_COMPARE},
	{"law", required_argument, NULL, OPT_LAW},
	{"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
	{"seed", required_argument, NULL, OPT_SEED},
	{"bootstrap-kind", required_argument, NULL, OPT_BOOTSTRAP_KIND},
	{"budget", required_argument, NULL, 'b'},
	{"samples", required_argument, NULL, 'n'},
	{"head-dim-multiple", required_argument, NULL, 'm'},
	{"min-head-dim", required_argument, NULL, OPT_MIN_HEAD_DIM},
	{"max-head-dim", required_argument, NULL, OPT_MAX_HEAD_DIM},
	{"min-heads", required_argument, NULL, OPT_MIN_HEADS},
	{"max-heads", required_argument, NULL, OPT_MAX_HEADS},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"plot", required_argument, NULL, CLI_OPT_PLOT},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct option *const cli_calibrate_options = long_options; /* completion.c */

/* The most bootstrap resamples (each a refit of every run). */
#define BOOTSTRAP_MAX 1000000

static const char names[] = "irreducible, bias_coef, smoothness, var_coef, "
                            "var_rate, var_power, hdi, data_coef, "
                            "data_power, var_samples_power or group_hdi";

struct calibrate_options {
	struct cli_file_options c;
	struct cli_plot plot;
	struct ha_cal_options cal;
	int have_free;                   /* --free given: free[] is the set */
	int free[HA_CAL_PARAMS];
	int fixed[HA_CAL_PARAMS];        /* --fix NAME=VALUE */
	double fixed_value[HA_CAL_PARAMS]; /* fit scale (ln c) */
	int have_budget, have_samples, have_constraint;
	struct ha_cal_law laws[HA_CAL_USER_LAWS_MAX]; /* --law */
	size_t law_count;
	enum cli_progress_mode progress; /* the last of --progress, --quiet */
	struct ha_runs_names columns;    /* --columns (the last one) */
};

/* ---- --free and --fix ------------------------------------------------------- */

typedef int (*item_fn)(struct calibrate_options *o, char *item,
                       const char *arg, int *seen);

/* fn(o, item, arg, seen) for each comma-separated item of arg (an empty
 * item is fn's to refuse); seen is a scratch set of parameters. */
static int for_each_item(struct calibrate_options *o, const char *arg,
                         item_fn fn)
{
	char *copy = strdup(arg);
	if (!copy)
		return cli_library_failure(NULL, NULL, HA_ENOMEM, NULL);
	int seen[HA_CAL_PARAMS] = {0};
	int rc = EXIT_OK;
	for (char *start = copy;;) {
		char *comma = strchr(start, ',');
		if (comma)
			*comma = '\0';
		rc = fn(o, start, arg, seen);
		if (rc != EXIT_OK || !comma)
			break;
		start = comma + 1;
	}
	free(copy);
	return rc;
}

static int free_item(struct calibrate_options *o, char *item, const char *arg,
                     int *seen)
{
	char expected[256];
	snprintf(expected, sizeof expected, "a comma-separated list of %s", names);
	int k = *item ? ha_cal_param_lookup(item) : -1;
	if (k < 0)
		return cli_bad_value("--free", *item ? item : arg, expected);
	if (seen[k])
		return cli_bad_value("--free", arg, "each name once");
	seen[k] = 1;
	o->free[k] = 1;
	return EXIT_OK;
}

/* --free NAME[,NAME...]: the free set, replacing the default (the last
 * --free wins). */
static int parse_free(const char *arg, struct calibrate_options *o)
{
	memset(o->free, 0, sizeof o->free);
	o->have_free = 1;
	return for_each_item(o, arg, free_item);
}

/* Whether a fixed value, as typed (c_b, not ln c_b), lies in its
 * parameter's domain; *what says the domain for a message. */
static int in_domain(enum ha_cal_param k, int log_form, double v,
                     const char **what)
{
	if (log_form) {
		*what = "a finite number";
		return 1;
	}
	switch (k) {
	case HA_CAL_BIAS_COEF:
	case HA_CAL_SMOOTHNESS:
	case HA_CAL_VAR_COEF:
	case HA_CAL_DATA_POWER:
	case HA_CAL_VAR_SAMPLES_POWER:
		*what = "a number > 0";
		return v > 0.0;
	case HA_CAL_HDI:
	case HA_CAL_GROUP_HDI:
		*what = "a number from 0 to 1";
		return v >= 0.0 && v <= 1.0;
	default:
		*what = "a number >= 0";
		return v >= 0.0;
	}
}

static int fix_item(struct calibrate_options *o, char *item, const char *arg,
                    int *seen)
{
	char expected[320];
	snprintf(expected, sizeof expected,
	         "NAME=VALUE[,NAME=VALUE...] with NAME %s (or log_bias_coef, "
	         "log_var_coef)", names);
	char *eq = strchr(item, '=');
	if (!*item)
		return cli_bad_value("--fix", arg, expected);
	if (!eq)
		return cli_bad_value("--fix", item, expected);
	*eq = '\0';
	int log_form = strncmp(item, "log_", 4) == 0;
	int k = ha_cal_param_lookup(log_form ? item + 4 : item);
	int known = k >= 0 && (!log_form || ha_cal_param_is_log((enum ha_cal_param)k));
	char name[HA_CAL_NAME_MAX + 4];
	snprintf(name, sizeof name, "%s", item);
	*eq = '=';
	if (!known)
		return cli_bad_value("--fix", item, expected);
	if (seen[k])
		return cli_bad_value("--fix", arg, "each parameter once");
	seen[k] = 1;
	double v = 0.0;
	const char *what = "a finite number";
	int ok = cli_parse_real(eq + 1, &v);
	if (!in_domain((enum ha_cal_param)k, log_form, v, &what) || !ok) {
		char message[96];
		snprintf(message, sizeof message, "%s = %s", name, what);
		return cli_bad_value("--fix", item, message);
	}
	o->fixed[k] = 1;
	/* The law holds ln c for the coefficients. */
	o->fixed_value[k] = ha_cal_param_is_log((enum ha_cal_param)k) && !log_form
	                            ? log(v)
	                            : v + 0.0;
	return EXIT_OK;
}

/* --fix NAME=VALUE[,...]: cumulative over repeated --fix (a later value
 * of the same parameter wins); within one, each parameter once. */
static int parse_fix(const char *arg, struct calibrate_options *o)
{
	return for_each_item(o, arg, fix_item);
}

/* ---- --law ------------------------------------------------------------------ */

static int law_item(struct calibrate_options *o, char *item, const char *arg,
                    int *seen)
{
	char expected[256];
	snprintf(expected, sizeof expected,
	         "NAME=PARAM[,PARAM...] with each PARAM once, one of %s", names);
	int k = *item ? ha_cal_param_lookup(item) : -1;
	if (k < 0 || seen[k])
		return cli_bad_value("--law", arg, expected);
	seen[k] = 1;
	o->laws[o->law_count].free[k] = 1;
	return EXIT_OK;
}

/* --law NAME=PARAM[,PARAM...]: one more law of the comparison, its free
 * parameters named as --free takes them; NAME a new one. */
static int parse_law(const char *arg, struct calibrate_options *o)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;
	if (!eq || len == 0 || len >= HA_CAL_NAME_MAX || !eq[1])
		return cli_bad_value("--law", arg, "NAME=PARAM[,PARAM...] with a "
		                     "name of at most 31 characters and at least one "
		                     "PARAM");
	if (o->law_count == HA_CAL_USER_LAWS_MAX)
		return cli_bad_value("--law", arg, "at most 16 laws of your own");
	struct ha_cal_law ladder[HA_CAL_LADDER];
	ha_cal_ladder(&o->cal.law, ladder);
	struct ha_cal_law *law = &o->laws[o->law_count];
	memset(law, 0, sizeof *law);
	memcpy(law->name, arg, len);
	for (size_t i = 0; i < HA_CAL_LADDER; i++)
		if (strcmp(law->name, ladder[i].name) == 0)
			return cli_bad_value("--law", arg, "a name that is not a law of "
			                     "the ladder (seeds, smoothness, power_s2, "
			                     "power, rate, seeds+data, power+data)");
	for (size_t i = 0; i < o->law_count; i++)
		if (strcmp(law->name, o->laws[i].name) == 0)
			return cli_bad_value("--law", arg, "a name not given to another "
			                     "--law");
	int rc = for_each_item(o, eq + 1, law_item);
	if (rc == EXIT_OK)
		o->law_count++;
	return rc;
}

/* ---- the other options ------------------------------------------------------ */

static int parse_count(const char *option, const char *arg, uint64_t *out)
{
	if (!cli_parse_uint(arg, 1, HA_BUDGET_MAX, out))
		return cli_bad_value(option, arg, CLI_WHOLE_NUMBER);
	return EXIT_OK;
}

static int apply(void *options, int code, const char *arg)
{
	struct calibrate_options *o = options;
	struct ha_cal_options *cal = &o->cal;
	struct ha_constraints *c = &cal->target.constraints;
	uint64_t u;
	switch (code) {
	case OPT_COLUMNS: {
		struct ha_error err;
		ha_runs_names_init(&o->columns);
		if (ha_runs_names_parse(&o->columns, arg, &err) == HA_OK)
			return EXIT_OK;
		char safe[HA_ERROR_MESSAGE_MAX];
		fprintf(stderr, "headalloc: --columns: %s\n",
		        ha_text_safe(err.message, safe, sizeof safe));
		return EXIT_USAGE;
	}
	case OPT_FREE:
		return parse_free(arg, o);
	case OPT_FIX:
		return parse_fix(arg, o);
	case OPT_HUBER_DELTA:
		if (strcmp(arg, "inf") == 0) {
			cal->huber_delta = INFINITY;
			return EXIT_OK;
		}
		if (!cli_parse_real(arg, &cal->huber_delta) ||
		    !(cal->huber_delta > 0.0))
			return cli_bad_value("--huber-delta", arg,
			                     "a finite number > 0, or inf");
		return EXIT_OK;
	case OPT_COMPARE:
		cal->compare = 1;
		return EXIT_OK;
	case OPT_LAW:
		cal->compare = 1;
		return parse_law(arg, o);
	case OPT_BOOTSTRAP:
		if (!cli_parse_uint(arg, 0, BOOTSTRAP_MAX, &u))
			return cli_bad_value("--bootstrap", arg,
			                     "a whole number from 0 to 1000000");
		cal->bootstrap = (size_t)u;
		return EXIT_OK;
	case OPT_SEED:
		if (!cli_parse_uint(arg, 0, UINT64_MAX, &cal->seed))
			return cli_bad_value("--seed", arg, "a whole number from 0 to "
			                     "18446744073709551615");
		return EXIT_OK;
	case OPT_BOOTSTRAP_KIND:
		if (strcmp(arg, "cases") == 0)
			cal->bootstrap_kind = HA_CAL_BOOT_CASES;
		else if (strcmp(arg, "residuals") == 0)
			cal->bootstrap_kind = HA_CAL_BOOT_RESIDUALS;
		else
			return cli_bad_value("--bootstrap-kind", arg, "cases or residuals");
		return EXIT_OK;
	case 'b':
		o->have_budget = 1;
		return parse_count("--budget", arg, &cal->target.budget);
	case 'n':
		o->have_samples = 1;
		if (!cli_parse_real(arg, &cal->target.samples) ||
		    !(cal->target.samples > 1.0 && cal->target.samples <= 1e300))
			return cli_bad_value("--samples", arg,
			                     "a number n with 1 < n <= 1e300");
		return EXIT_OK;
	case 'm':
		o->have_constraint = 1;
		return parse_count("--head-dim-multiple", arg, &c->head_dim_multiple);
	case OPT_MIN_HEAD_DIM:
		o->have_constraint = 1;
		return parse_count("--min-head-dim", arg, &c->min_head_dim);
	case OPT_MAX_HEAD_DIM:
		o->have_constraint = 1;
		return parse_count("--max-head-dim", arg, &c->max_head_dim);
	case OPT_MIN_HEADS:
		o->have_constraint = 1;
		return parse_count("--min-heads", arg, &c->min_heads);
	case OPT_MAX_HEADS:
		o->have_constraint = 1;
		return parse_count("--max-heads", arg, &c->max_heads);
	case OPT_PROGRESS:
		o->progress = CLI_PROGRESS_FORCE;
		return EXIT_OK;
	case OPT_QUIET:
		o->progress = CLI_PROGRESS_OFF;
		return EXIT_OK;
	case OPT_THREADS: {
		size_t threads;
		if (!cli_parse_threads(arg, &threads))
			return cli_bad_value("--threads", arg, CLI_THREADS_EXPECTED);
		/* ha_cal_options.threads: 0 is one per online processor */
		o->cal.threads = threads == CLI_THREADS_AUTO ? 0 : threads;
		return EXIT_OK;
	}
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
	o->free[HA_CAL_IRREDUCIBLE] = 1;
	o->free[HA_CAL_BIAS_COEF] = 1;
	o->free[HA_CAL_VAR_COEF] = 1;
}

/* The checks that need every option, and the law they make. */
static int finish_options(struct calibrate_options *o)
{
	static const char *const command = "calibrate";
	struct ha_cal_options *cal = &o->cal;
	const struct ha_constraints *c = &cal->target.constraints;
	if (o->have_budget != o->have_samples)
		return cli_usage_error(command, "--budget and --samples go together");
	if (o->have_constraint && !o->have_budget)
		return cli_usage_error(command, "the constraints on the allocation go "
		                       "with --budget and --samples");
	if (c->min_head_dim && c->max_head_dim && c->min_head_dim > c->max_head_dim)
		return cli_usage_error(command, "--min-head-dim %" PRIu64
		                       " is larger than --max-head-dim %" PRIu64,
		                       c->min_head_dim, c->max_head_dim);
	if (c->min_heads && c->max_heads && c->min_heads > c->max_heads)
		return cli_usage_error(command, "--min-heads %" PRIu64
		                       " is larger than --max-heads %" PRIu64,
		                       c->min_heads, c->max_heads);
	for (int k = 0; k < HA_CAL_PARAMS; k++) {
		if (!o->fixed[k])
			continue;
		if (o->have_free && o->free[k])
			return cli_usage_error(command, "%s is in --free and in --fix",
			                       ha_cal_param_name((enum ha_cal_param)k));
		o->free[k] = 0; /* fixed out of the default free set */
		cal->law.value[k] = o->fixed_value[k];
	}
	for (int k = 0; k < HA_CAL_PARAMS; k++)
		cal->law.free[k] = o->free[k];
	cal->laws = o->law_count ? o->laws : NULL;
	cal->law_count = o->law_count;
	return cli_file_command_ready(&o->c, &o->plot, command);
}

/* No allocation of the target budget meets the constraints: said before
 * the fit, in the allocator's words. */
static int infeasible(const struct ha_cal_target *t)
{
	const struct ha_constraints *c = &t->constraints;
	const struct { const char *name; uint64_t value; } items[] = {
		{"--head-dim-multiple", c->head_dim_multiple},
		{"--min-head-dim", c->min_head_dim},
		{"--max-head-dim", c->max_head_dim},
		{"--min-heads", c->min_heads},
		{"--max-heads", c->max_heads},
	};
	fprintf(stderr, "headalloc: no (heads, head_dim) pair of budget %" PRIu64
	        " meets the constraints:", t->budget);
	for (size_t i = 0; i < sizeof items / sizeof *items; i++)
		if (items[i].value)
			fprintf(stderr, " %s %" PRIu64, items[i].name, items[i].value);
	fputc('\n', stderr);
	return cli_exit_status(HA_EINFEASIBLE);
}

static int check_target(const struct ha_cal_target *t)
{
	if (!t->budget)
		return EXIT_OK;
	struct ha_solver *solver = NULL;
	enum ha_status st = ha_solver_new(t->budget, &t->constraints, &solver);
	ha_solver_free(solver);
	if (st == HA_EINFEASIBLE)
		return infeasible(t);
	if (st != HA_OK)
		return cli_library_failure("--budget", NULL, st, NULL);
	return EXIT_OK;
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
		status = check_target(&o.cal.target);
	if (status != EXIT_OK)
		return status;

	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_runs_read_file_named(o.c.file, HA_RUNS_AUTO,
	                                            &o.columns, &runs, &count,
	                                            &err);
	if (st != HA_OK)
		return cli_library_failure(NULL, o.c.file, st, &err);
	double work = ha_cal_work(count, &o.cal);
	if (work > HA_CAL_WORK_MAX) {
		fprintf(stderr, "headalloc: %s: %zu runs with --bootstrap %zu%s "
		        "need %.4g run-fits, above the limit %.4g "
		        "(runs x (resamples + laws x (runs + 1))): lower --bootstrap%s\n",
		        o.c.file, count, o.cal.bootstrap,
		        o.cal.compare ? " and --compare" : "", work, HA_CAL_WORK_MAX,
		        o.cal.compare ? " or leave out --compare" : "");
		free(runs);
		return cli_exit_status(HA_EINVAL);
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
