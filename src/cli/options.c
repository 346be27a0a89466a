/* Options of the allocation command.  Two passes over argv: the first
 * finds --config (and --help, --version), the file is read, then the
 * second pass applies every option on top of it. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "commands.h"
#include "common.h"
#include "alloc/model_internal.h"
#include "option_words.h"
#include "options.h"
#include "hdi_source.h"
#include "parse.h"
#include "value_lists.h"

static const char usage_text[] =
	"Usage: headalloc --budget D --samples N [OPTION]...\n"
	"       headalloc --config FILE [OPTION]...\n"
	"       headalloc --budget D --regimes [OPTION]...\n"
	"Choose the number of attention heads H and the head dimension d_k = D/H\n"
	"that minimise the ensemble Nadaraya-Watson error model.\n"
	"\n"
	"Problem:\n"
	"  -b, --budget D[,D...]       total key dimension D = H*d_k (1..2^63-1)\n"
	"  -n, --samples N             training-set size, 1 < n <= 1e300 (1e8 or 100000000);\n"
	"                              a list N,N,... or a log-spaced sweep FROM:TO:POINTS\n"
	"  -c, --config FILE           read a scenario file (headalloc-scenario(5));\n"
	"                              options on the command line override it\n"
	"Model:\n"
	"  -s, --smoothness S          squared bias falls as d_k^-S (default 2)\n"
	"      --bias-coef C           bias coefficient c_b > 0 (default 1)\n"
	"      --var-coef C            variance coefficient c_v > 0 (default 1)\n"
	"      --hdi X                 head diversity index in [0, 1] (default 1)\n"
	"      --irreducible E         irreducible error E >= 0 (default 0)\n"
	"      --var-rate G            variance grows as d_k^(G*d_k + K) (default 0.5)\n"
	"      --var-power K           K >= 0 of --var-rate (default 0)\n"
	"      --log-bias-coef L       c_b = exp(L) exactly, for c_b beyond a double\n"
	"      --log-var-coef L        c_v = exp(L) exactly, for c_v beyond a double\n"
	"      --data-coef A           data term A*n^-ALPHA, A >= 0 (default 0)\n"
	"      --data-power ALPHA      ALPHA > 0 of --data-coef (default 0.28)\n"
	"      --var-samples-power B   variance falls as n^-B, B > 0 (default 1)\n"
	"      --hdi-from FILE         measure the HDI from key weights (.safetensors, .npy)\n"
	"                              or a model directory (its layers' keys; a\n"
	"                              grouped one also sets --group-hdi when the\n"
	"                              allocation is grouped)\n"
	"      --hdi-tensor PATTERN    the tensors of --hdi-from to use (default: the\n"
	"                              key projections, as headalloc hdi reads them)\n"
	"      --hdi-heads H           heads per tensor of --hdi-from (required with a\n"
	"                              file; a directory's default: its key heads)\n"
	"      --hdi-layout LAYOUT     out-in ([H*d_k, d_model], default) or in-out\n"
	"Constraints:\n"
	"  -m, --head-dim-multiple M   head_dim must be a multiple of M\n"
	"      --min-head-dim K        smallest head_dim allowed\n"
	"      --max-head-dim K        largest head_dim allowed\n"
	"      --min-heads H           fewest heads allowed\n"
	"      --max-heads H           most heads allowed\n"
	;

/* The rest of --help (usage_text would pass C's 4095-character limit). */
static const char usage_more_text[] =
	"Grouped-query attention (one budget and one n):\n"
	"      --kv-heads G|auto       key/value heads G (a divisor of H), or auto: choose\n"
	"      --max-kv-dim K          KV dimension G*d_k at most K\n"
	"      --min-kv-heads G        fewest key/value heads allowed\n"
	"      --max-kv-heads G        most key/value heads allowed\n"
	"      --group-hdi X           diversity of heads sharing keys, in [0, 1] (default 0)\n"
	"      --layers L              layers, for the KV cache in bytes (default 1)\n"
	"      --kv-bytes B            bytes an element of the KV cache (default 2)\n"
	"      --model-dim M           d_model, for the attention's parameter count\n"
	"      --pareto                list the front of error against KV cache\n"
	"      --max-loss-ratio R      the smallest KV cache within R >= 1 of the best error\n"
	"Output:\n"
	"  -a, --all                   also list every feasible (H, d_k), best first\n"
	"  -r, --regimes               the exact regimes in n of each budget\n"
	"  -f, --format FORMAT         text (default), yaml or json\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"      --plot FILE             also draw the report's picture into FILE (.svg,\n"
	"                              .png or .pdf; atomically): the front with\n"
	"                              --pareto, regimes with --regimes, else the\n"
	"                              landscape of one (D, n), else the sweep\n"
	"      --progress              show a sweep's progress line on stderr even\n"
	"                              when it is not a terminal\n"
	"      --quiet                 never show the progress line\n"
	"      --threads N|auto        a sweep's rows on N threads, the calling one among\n"
	"                              them (at most 8; default auto: one per online CPU)\n"
	"  -h, --help                  show this help and exit\n"
	"  -V, --version               show the version and exit\n"
	"Subcommands (each has its own --help):\n"
	"  hdi FILE, weights COV.yaml  head diversity of weights; optimal head weights\n"
	"  calibrate RUNS              fit the model to measured training runs\n"
	"\n"
	"Exit status: 0 success, 1 I/O or internal error, 2 usage or input error,\n"
	"3 no feasible allocation.  See headalloc(1).\n";

enum long_only {
	OPT_BIAS_COEF = 256,
	OPT_VAR_COEF,
	OPT_HDI,
	OPT_HDI_FROM,
	OPT_HDI_TENSOR,
	OPT_HDI_HEADS,
	OPT_HDI_LAYOUT,
	OPT_MIN_HEAD_DIM,
	OPT_MAX_HEAD_DIM,
	OPT_MIN_HEADS,
	OPT_MAX_HEADS,
	/* the generalised model (headalloc-model(7), CALIBRATION (The parameters)) */
	OPT_IRREDUCIBLE,
	OPT_VAR_RATE,
	OPT_VAR_POWER,
	OPT_LOG_BIAS_COEF,
	OPT_LOG_VAR_COEF,
	OPT_DATA_COEF,
	OPT_DATA_POWER,
	OPT_VAR_SAMPLES_POWER,
	OPT_PROGRESS,
	OPT_QUIET,
	OPT_THREADS,
};

static const struct option long_options[] = {
	{"budget", required_argument, NULL, 'b'},
	{"samples", required_argument, NULL, 'n'},
	{"config", required_argument, NULL, 'c'},
	{"smoothness", required_argument, NULL, 's'},
	{"bias-coef", required_argument, NULL, OPT_BIAS_COEF},
	{"var-coef", required_argument, NULL, OPT_VAR_COEF},
	{"hdi", required_argument, NULL, OPT_HDI},
	{"hdi-from", required_argument, NULL, OPT_HDI_FROM},
	{"hdi-tensor", required_argument, NULL, OPT_HDI_TENSOR},
	{"hdi-heads", required_argument, NULL, OPT_HDI_HEADS},
	{"hdi-layout", required_argument, NULL, OPT_HDI_LAYOUT},
	{"head-dim-multiple", required_argument, NULL, 'm'},
	{"min-head-dim", required_argument, NULL, OPT_MIN_HEAD_DIM},
	{"max-head-dim", required_argument, NULL, OPT_MAX_HEAD_DIM},
	{"min-heads", required_argument, NULL, OPT_MIN_HEADS},
	{"max-heads", required_argument, NULL, OPT_MAX_HEADS},
	CLI_GROUPED_LONG_OPTIONS,
	{"irreducible", required_argument, NULL, OPT_IRREDUCIBLE},
	{"var-rate", required_argument, NULL, OPT_VAR_RATE},
	{"var-power", required_argument, NULL, OPT_VAR_POWER},
	{"log-bias-coef", required_argument, NULL, OPT_LOG_BIAS_COEF},
	{"log-var-coef", required_argument, NULL, OPT_LOG_VAR_COEF},
	{"data-coef", required_argument, NULL, OPT_DATA_COEF},
	{"data-power", required_argument, NULL, OPT_DATA_POWER},
	{"var-samples-power", required_argument, NULL, OPT_VAR_SAMPLES_POWER},
	{"all", no_argument, NULL, 'a'},
	{"regimes", no_argument, NULL, 'r'},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"plot", required_argument, NULL, CLI_OPT_PLOT},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};
const struct option *const cli_allocate_options = long_options; /* completion.c */

static const char short_options[] = ":b:n:c:s:m:arf:o:hV";

/* "--budget" for -b too: the long name of an option, for messages. */
static const char *option_name(int code)
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == code) {
			static char buf[64];
			snprintf(buf, sizeof buf, "--%s", o->name);
			return buf;
		}
	return "option";
}

static int bad_value(int code, const char *value, const char *expected)
{
	return cli_bad_number(option_name(code), value, expected);
}

/* A model parameter in its domain, in every front end's words. */
static int parse_model_value(int code, const char *value, double *out)
{
	char name[64];
	snprintf(name, sizeof name, "%s", option_name(code) + 2);
	for (char *p = strchr(name, '-'); p; p = strchr(p, '-'))
		*p = '_';
	int in_domain = 0;
	const char *expected = ha_model_param_domain(name, 0.0, &in_domain);
	if (!cli_parse_real(value, out) ||
	    !ha_model_param_domain(name, *out, &in_domain) || !in_domain)
		return bad_value(code, value, expected);
	*out += 0.0; /* -0 reads as 0 */
	return EXIT_OK;
}

static int parse_count(int code, const char *value, uint64_t *out)
{
	if (!cli_parse_uint(value, 1, HA_BUDGET_MAX, out))
		return bad_value(code, value, CLI_WHOLE_NUMBER);
	return EXIT_OK;
}

static int parse_budgets(const char *arg, struct cli_options *o)
{
	uint64_t *budgets;
	size_t count;
	int rc = cli_parse_budget_list("--budget", arg, &budgets, &count);
	if (rc != EXIT_OK)
		return rc;
	free(o->budgets);
	o->budgets = budgets;
	o->budget_count = count;
	o->budgets_from_config = 0;
	return EXIT_OK;
}

static int parse_samples(const char *arg, struct cli_options *o)
{
	struct ha_samples s;
	int rc = cli_parse_sample_list("--samples", arg, &s);
	if (rc != EXIT_OK)
		return rc;
	cli_free_samples(&o->samples);
	o->samples = s;
	o->have_samples = 1;
	o->samples_from_config = 0;
	return EXIT_OK;
}

/* The options of the generalised model (headalloc-model(7), CALIBRATION (The parameters)): E, γ, κ >= 0,
 * and a coefficient set exactly from its logarithm (the last of
 * --bias-coef and --log-bias-coef wins, as for any repeated option). */
static int apply_model_option(int code, const char *arg, struct ha_model *m)
{
	double v;
	if (parse_model_value(code, arg, &v) != EXIT_OK)
		return EXIT_USAGE;
	if (code == OPT_LOG_BIAS_COEF)
		ha_model_set_log_bias_coef(m, v);
	else if (code == OPT_LOG_VAR_COEF)
		ha_model_set_log_var_coef(m, v);
	else if (code == OPT_IRREDUCIBLE)
		m->irreducible = v;
	else if (code == OPT_DATA_COEF)
		m->data_coef = v;
	else if (code == OPT_VAR_RATE)
		m->var_rate = v;
	else
		m->var_power = v;
	return EXIT_OK;
}

/* What the second pass remembers about --hdi-from and its companions. */
struct hdi_request {
	const char *tensor;
	uint64_t heads;
	enum ha_layout layout;
	int have_layout;
	int have_hdi;
};

/* Apply one option; returns EXIT_OK or an exit code. */
static int apply_option(struct cli_options *o, struct hdi_request *h, int code,
                        const char *arg)
{
	struct ha_model *m = &o->model;
	struct ha_constraints *c = &o->constraints;
	switch (code) {
	case 'b':
		return parse_budgets(arg, o);
	case 'n':
		return parse_samples(arg, o);
	case 'c':
		return EXIT_OK; /* read in the first pass */
	case 's':
		return parse_model_value(code, arg, &m->smoothness);
	case OPT_BIAS_COEF:
		m->bias_coef_is_log = 0; /* over a file's log_bias_coef */
		return parse_model_value(code, arg, &m->bias_coef);
	case OPT_VAR_COEF:
		m->var_coef_is_log = 0;
		return parse_model_value(code, arg, &m->var_coef);
	case OPT_IRREDUCIBLE:
	case OPT_VAR_RATE:
	case OPT_VAR_POWER:
	case OPT_LOG_BIAS_COEF:
	case OPT_LOG_VAR_COEF:
	case OPT_DATA_COEF:
		return apply_model_option(code, arg, m);
	case OPT_DATA_POWER:
		return parse_model_value(code, arg, &m->data_power);
	case OPT_VAR_SAMPLES_POWER:
		return parse_model_value(code, arg, &m->var_samples_power);
	case OPT_HDI:
		h->have_hdi = 1;
		return parse_model_value(code, arg, &m->hdi);
	case OPT_HDI_FROM:
		if (!*arg)
			return bad_value(code, arg, "a file name");
		o->hdi_from = arg;
		return EXIT_OK;
	case OPT_HDI_TENSOR:
		h->tensor = arg;
		return EXIT_OK;
	case OPT_HDI_HEADS:
		if (!cli_parse_uint(arg, 1, HA_HDI_MAX_HEADS, &h->heads))
			return bad_value(code, arg, "a whole number from 1 to 1024");
		return EXIT_OK;
	case OPT_HDI_LAYOUT:
		h->have_layout = 1;
		if (!cli_layout_parse(arg, &h->layout))
			return cli_bad_word("--hdi-layout", arg, CLI_WORDS_LAYOUT);
		return EXIT_OK;
	case 'm':
		o->constraints_from_config &= ~(1u << CLI_HEAD_DIM_MULTIPLE);
		return parse_count(code, arg, &c->head_dim_multiple);
	case OPT_MIN_HEAD_DIM:
		o->constraints_from_config &= ~(1u << CLI_MIN_HEAD_DIM);
		return parse_count(code, arg, &c->min_head_dim);
	case OPT_MAX_HEAD_DIM:
		o->constraints_from_config &= ~(1u << CLI_MAX_HEAD_DIM);
		return parse_count(code, arg, &c->max_head_dim);
	case OPT_MIN_HEADS:
		o->constraints_from_config &= ~(1u << CLI_MIN_HEADS);
		return parse_count(code, arg, &c->min_heads);
	case OPT_MAX_HEADS:
		o->constraints_from_config &= ~(1u << CLI_MAX_HEADS);
		return parse_count(code, arg, &c->max_heads);
	case 'a':
		o->all = 1;
		o->all_from_config = 0;
		return EXIT_OK;
	case 'r':
		o->regimes = 1;
		return EXIT_OK;
	case 'f':
		if (!cli_format_parse(arg, &o->format))
			return cli_bad_format(arg);
		return EXIT_OK;
	case 'o':
		if (!*arg)
			return bad_value(code, arg, "a file name");
		o->output = arg;
		return EXIT_OK;
	case CLI_OPT_PLOT:
		return cli_plot_option(&o->plot, arg);
	case OPT_PROGRESS:
		o->progress = CLI_PROGRESS_FORCE;
		return EXIT_OK;
	case OPT_QUIET:
		o->progress = CLI_PROGRESS_OFF;
		return EXIT_OK;
	case OPT_THREADS:
		if (!cli_parse_threads(arg, &o->threads))
			return bad_value(code, arg, CLI_THREADS_EXPECTED);
		return EXIT_OK;
	}
	if (cli_grouped_is_option(code))
		return cli_grouped_option(&o->grouped, m, code, arg);
	return EXIT_USAGE;
}

/* Start from the scenario file: its model, constraints, budgets, samples
 * and report settings. */
static int load_config(struct cli_options *o)
{
	struct ha_error err;
	int rc = cli_input(o->config, "--config");
	if (rc != EXIT_OK)
		return rc;
	enum ha_status st = ha_scenario_read_file(o->config, &o->scenario, &err);
	if (st != HA_OK)
		return cli_library_failure("--config", o->config, st, &err);
	const struct ha_scenario *sc = o->scenario;
	o->model = sc->model;
	o->constraints = sc->constraints;
	for (int i = 0; i < CLI_CONSTRAINTS; i++)
		if (cli_constraint(o, i))
			o->constraints_from_config |= 1u << i;
	o->budgets_from_config = sc->budget_count > 0;
	o->samples_from_config = sc->sample_count > 0;
	o->all_from_config = sc->report_all;
	o->grouped.config = o->config;
	if (sc->budget_count) {
		o->budgets = malloc(sc->budget_count * sizeof *o->budgets);
		if (!o->budgets)
			return EXIT_IO;
		memcpy(o->budgets, sc->budgets, sc->budget_count * sizeof *o->budgets);
		o->budget_count = sc->budget_count;
	}
	if (sc->sample_count) {
		size_t bytes = sc->sample_count * sizeof *sc->samples;
		double *values = malloc(bytes);
		if (!values)
			return EXIT_IO;
		o->samples = (struct ha_samples){.values = memcpy(values, sc->samples, bytes),
		                                 .count = sc->sample_count};
		o->have_samples = 1;
	}
	o->all = sc->report_all;
	o->regimes = sc->report_regimes;
	o->format = sc->report_format;
	if (sc->has_kv) /* the file's kv map, which options override */
		cli_grouped_from_file(&o->grouped, sc, o->config);
	return EXIT_OK;
}

/* Measure the HDI of --hdi-from (a weights file or, as headalloc hdi
 * takes it, a model directory) into model.hdi and describe its source. */
static int measure_hdi(struct cli_options *o)
{
	const char *pattern = o->hdi_tensor ? o->hdi_tensor
	                                    : "the tensors named as keys";
	struct hdi_choice ch = {o->hdi_from, (size_t)o->hdi_heads, o->hdi_tensor,
	                        o->hdi_layout, o->hdi_have_layout, o->output,
	                        NULL, NULL, HA_FUSED_NONE, HA_FUSED_CONCAT,
	                        "--hdi-from", 0,
	                        o->grouped.active && !o->grouped.have_group_hdi};
	struct ha_hdi_path m;
	int rc = hdi_source_measure(&ch, &m);
	if (rc != EXIT_OK)
		return rc;
	if (m.groups) { /* group_hdi from the query heads within each group */
		o->model.group_hdi = m.groups->mean_group_hdi;
		o->hdi_source.group_layers = m.groups->count;
		o->hdi_source.key_heads = m.groups->key_heads;
		o->hdi_source.query_heads = m.groups->query_heads;
	}
	if (m.directory && !o->hdi_tensor)
		pattern = "every layer's keys";
	const struct ha_hdi_report *report = m.hdi;
	o->model.hdi = report->mean_hdi;
	struct ha_hdi_source groups = o->hdi_source; /* as set above, or none */
	o->hdi_source = (struct ha_hdi_source){
		.file = o->hdi_from,
		.pattern = pattern,
		.heads = report->tensors[0].heads,
		.layout = m.layout,
		.tensors = report->count,
		.group_layers = groups.group_layers,
		.key_heads = groups.key_heads,
		.query_heads = groups.query_heads,
	};
	ha_hdi_path_close(&m);
	return EXIT_OK;
}

/* Room for "constraints.head_dim_multiple of FILE" with a long path. */
#define PATH_NAME CLI_DESCRIBE_SIZE

uint64_t cli_constraint(const struct cli_options *o, int i)
{
	const struct ha_constraints *c = &o->constraints;
	const uint64_t v[CLI_CONSTRAINTS] = {c->head_dim_multiple, c->min_head_dim,
	                                     c->max_head_dim, c->min_heads,
	                                     c->max_heads};
	return i >= 0 && i < CLI_CONSTRAINTS ? v[i] : 0;
}

const char *cli_constraint_describe(const struct cli_options *o, int i,
                                    char *buf, size_t size)
{
	static const char *const option[CLI_CONSTRAINTS] = {
		"--head-dim-multiple", "--min-head-dim", "--max-head-dim",
		"--min-heads", "--max-heads"};
	static const char *const key[CLI_CONSTRAINTS] = {
		"head_dim_multiple", "min_head_dim", "max_head_dim", "min_heads",
		"max_heads"};
	if (i < 0 || i >= CLI_CONSTRAINTS)
		return "";
	if (o->constraints_from_config & (1u << i))
		snprintf(buf, size, "constraints.%s %" PRIu64 " (%s)", key[i],
		         cli_constraint(o, i), o->config);
	else
		snprintf(buf, size, "%s %" PRIu64, option[i], cli_constraint(o, i));
	return buf;
}

/* The checks that need every option: required values, ranges, conflicts. */
static int check_combination(const struct cli_options *o,
                             const struct hdi_request *h)
{
	const struct ha_constraints *c = &o->constraints;
	int has_models = o->scenario && o->scenario->model_count;
	char lo[PATH_NAME], hi[PATH_NAME];
	if (!o->budget_count && !has_models)
		return cli_usage_error(NULL, "--budget is required");
	if (!o->have_samples && !o->regimes && !has_models)
		return o->budgets_from_config
		       ? cli_usage_error(NULL, "--samples is required: %s gives "
		                         "budgets but no samples", o->config)
		       : cli_usage_error(NULL, "--samples is required");
	if (c->min_head_dim && c->max_head_dim && c->min_head_dim > c->max_head_dim)
		return cli_usage_error(NULL, "%s is larger than %s",
		                       cli_constraint_describe(o, CLI_MIN_HEAD_DIM, lo,
		                                               sizeof lo),
		                       cli_constraint_describe(o, CLI_MAX_HEAD_DIM, hi,
		                                               sizeof hi));
	if (c->min_heads && c->max_heads && c->min_heads > c->max_heads)
		return cli_usage_error(NULL, "%s is larger than %s",
		                       cli_constraint_describe(o, CLI_MIN_HEADS, lo,
		                                               sizeof lo),
		                       cli_constraint_describe(o, CLI_MAX_HEADS, hi,
		                                               sizeof hi));
	if (o->hdi_from && h->have_hdi)
		return cli_usage_error(NULL, "--hdi and --hdi-from cannot be used together");
	if (o->hdi_from && !h->heads && !hdi_source_is_directory(o->hdi_from))
		return cli_usage_error(NULL, "--hdi-from needs --hdi-heads "
		                       "(a model directory does not)");
	if (!o->hdi_from && (h->tensor || h->heads || h->have_layout))
		return cli_usage_error(NULL, "--hdi-tensor, --hdi-heads and --hdi-layout go with --hdi-from");
	if (o->all && (o->budget_count > 1 || o->samples.count > 1))
		return o->all_from_config
		       ? cli_usage_error(NULL, "%s: report.all needs a single budget "
		                         "and a single sample size, found %zu and "
		                         "%zu",
		                         o->config, o->budget_count,
		                         o->samples.count)
		       : o->budgets_from_config && o->budget_count > 1
		       ? cli_usage_error(NULL, "--all needs a single budget, and "
		                         "%s gives %zu (give --budget)", o->config,
		                         o->budget_count)
		       : cli_usage_error(NULL, "--all needs a single budget and a "
		                         "single value of --samples");
	/* A table's rows are computed, written and fitted one by one: the
	 * limit keeps a run to seconds (bench: "limits"). */
	uint64_t rows = (uint64_t)o->budget_count * o->samples.count;
	if (rows > HA_SCENARIO_MAX_ROWS)
		return cli_usage_error(NULL, "expected at most %" PRIu64 " rows "
		                       "(budgets x sample sizes), found %zu x %zu",
		                       HA_SCENARIO_MAX_ROWS, o->budget_count,
		                       o->samples.count);
	/* The public-model comparison alone has no picture. */
	if (o->plot.path && (!o->budget_count || (!o->have_samples && !o->regimes)))
		return cli_usage_error(NULL, "--plot draws a sweep, a landscape or regimes:"
		                       " it needs --budget and --samples or --regimes");
	return cli_grouped_check(&o->grouped, o->budgets, o->budget_count,
	                         o->samples.count,
	                         o->all ? 1 + o->all_from_config : 0, o->regimes,
	                         has_models, o->plot.path != NULL);
}

/* The first pass: --config alone (every option is checked by the
 * second). */
static int find_config(void *options, int code, const char *arg)
{
	struct cli_options *o = options;
	if (code == 'c') {
		if (!*arg)
			return bad_value(code, arg, "a file name");
		o->config = arg;
	}
	return EXIT_OK;
}

struct second_pass {
	struct cli_options *o;
	struct hdi_request h;
};

static int apply_second(void *options, int code, const char *arg)
{
	struct second_pass *p = options;
	return apply_option(p->o, &p->h, code, arg);
}

static const struct cli_command command = {NULL, usage_text, long_options,
                                           short_options, true,
                                           usage_more_text};

/* Parse into o: two passes of the one option loop (cli_parse_options),
 * the scenario file read between them so that options override it.
 * Returns false when the command is done (help, version, an error). */
static bool parse(int argc, char **argv, struct cli_options *o, int *status)
{
	memset(o, 0, sizeof *o);
	o->model = ha_model_defaults();
	o->threads = CLI_THREADS_AUTO;
	cli_grouped_init(&o->grouped);
	if (!cli_parse_options(&command, argc, argv, o, find_config, status))
		return false;
	if (optind < argc) {
		int rc = cli_misplaced_command(argc, argv);
		*status = rc ? rc : cli_usage_error(NULL, "unexpected argument '%s'",
		                                    argv[optind]);
		return false;
	}
	if (o->config && (*status = load_config(o)) != EXIT_OK)
		return false;
	struct second_pass p = {o, {NULL, 0, HA_LAYOUT_OUT_IN, 0, 0}};
	if (!cli_parse_options(&command, argc, argv, &p, apply_second, status))
		return false;
	if ((*status = check_combination(o, &p.h)) != EXIT_OK)
		return false;
	o->hdi_tensor = p.h.tensor;
	o->hdi_heads = p.h.heads;
	o->hdi_layout = p.h.layout;
	o->hdi_have_layout = p.h.have_layout;
	o->first_samples = o->samples.count ? ha_samples_value(&o->samples, 0)
	                                    : HA_SAMPLES_DEFAULT;
	return true;
}

int cli_options_prepare(struct cli_options *o)
{
	int rc = o->hdi_from ? cli_input(o->hdi_from, "--hdi-from") : EXIT_OK;
	if (rc == EXIT_OK)
		rc = cli_check_output(o->output);
	if (rc == EXIT_OK)
		rc = cli_plot_check(&o->plot, o->output, NULL);
	if (rc == EXIT_OK && o->hdi_from)
		rc = measure_hdi(o);
	return rc;
}

bool cli_options_parse(int argc, char **argv, struct cli_options *o,
                       int *exit_status)
{
	return parse(argc, argv, o, exit_status);
}

void cli_options_free(struct cli_options *o)
{
	atomic_file_forget_inputs(); /* they point into argv and o */
	free(o->budgets);
	cli_free_samples(&o->samples);
	ha_scenario_free(o->scenario);
	memset(o, 0, sizeof *o);
}
