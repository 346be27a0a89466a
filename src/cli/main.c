/* headalloc — the command-line front end.  It parses options, calls the
 * library and turns statuses into one-line messages and exit codes:
 *   0 success, 1 I/O or internal failure, 2 usage or input error,
 *   3 no feasible allocation. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>

#include "atomic_file.h"
#include "commands.h"
#include "parse.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_IO = 1,
	EXIT_USAGE = 2,
	EXIT_INFEASIBLE = 3,
};

enum format { FORMAT_TEXT, FORMAT_YAML };

struct options {
	uint64_t budget;
	int have_budget;
	int have_samples;
	struct ha_model model;
	struct ha_constraints constraints;
	int all;
	enum format format;
	const char *output;
};

static const char usage_text[] =
	"Usage: headalloc --budget D --samples N [OPTION]...\n"
	"Choose the number of attention heads H and the head dimension d_k = D/H\n"
	"that minimise the ensemble Nadaraya-Watson error model.\n"
	"\n"
	"Problem:\n"
	"  -b, --budget D              total key dimension D = H*d_k (1..2^63-1)\n"
	"  -n, --samples N             training-set size n > 1 (1e8 or 100000000)\n"
	"Model:\n"
	"  -s, --smoothness S          squared bias falls as d_k^-S (default 2)\n"
	"      --bias-coef C           bias coefficient c_b > 0 (default 1)\n"
	"      --var-coef C            variance coefficient c_v > 0 (default 1)\n"
	"      --hdi X                 head diversity index in [0, 1] (default 1)\n"
	"Constraints:\n"
	"  -m, --head-dim-multiple M   head_dim must be a multiple of M\n"
	"      --min-head-dim K        smallest head_dim allowed\n"
	"      --max-head-dim K        largest head_dim allowed\n"
	"      --min-heads H           fewest heads allowed\n"
	"      --max-heads H           most heads allowed\n"
	"Output:\n"
	"  -a, --all                   also list every feasible (H, d_k), best first\n"
	"  -f, --format FORMAT         text (default) or yaml\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"  -h, --help                  show this help and exit\n"
	"  -V, --version               show the version and exit\n"
	"Subcommands (each has its own --help):\n"
	"  hdi FILE, weights COV.yaml  head diversity of weights; optimal head weights\n"
	"\n"
	"Exit status: 0 success, 1 I/O or internal error, 2 usage or input error,\n"
	"3 no feasible allocation.  See headalloc(1).\n";

enum long_only {
	OPT_BIAS_COEF = 256,
	OPT_VAR_COEF,
	OPT_HDI,
	OPT_MIN_HEAD_DIM,
	OPT_MAX_HEAD_DIM,
	OPT_MIN_HEADS,
	OPT_MAX_HEADS,
};

static const struct option long_options[] = {
	{"budget", required_argument, NULL, 'b'},
	{"samples", required_argument, NULL, 'n'},
	{"smoothness", required_argument, NULL, 's'},
	{"bias-coef", required_argument, NULL, OPT_BIAS_COEF},
	{"var-coef", required_argument, NULL, OPT_VAR_COEF},
	{"hdi", required_argument, NULL, OPT_HDI},
	{"head-dim-multiple", required_argument, NULL, 'm'},
	{"min-head-dim", required_argument, NULL, OPT_MIN_HEAD_DIM},
	{"max-head-dim", required_argument, NULL, OPT_MAX_HEAD_DIM},
	{"min-heads", required_argument, NULL, OPT_MIN_HEADS},
	{"max-heads", required_argument, NULL, OPT_MAX_HEADS},
	{"all", no_argument, NULL, 'a'},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* The option as the user typed it, for messages: "--budget" for -b too. */
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

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list args;
	fputs("headalloc: ", stderr);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputs(" (try 'headalloc --help')\n", stderr);
	return EXIT_USAGE;
}

static int bad_value(int code, const char *value, const char *expected)
{
	fprintf(stderr, "headalloc: %s: invalid value '%s': expected %s\n",
	        option_name(code), value, expected);
	return EXIT_USAGE;
}

static int parse_positive_real(int code, const char *value, double *out)
{
	if (!cli_parse_real(value, out) || !(*out > 0.0))
		return bad_value(code, value, "a finite number > 0");
	return EXIT_OK;
}

static int parse_count(int code, const char *value, uint64_t *out)
{
	if (!cli_parse_uint(value, 1, HA_BUDGET_MAX, out))
		return bad_value(code, value,
		                 "a whole number from 1 to 9223372036854775807");
	return EXIT_OK;
}

/* Apply one option; returns EXIT_OK or an exit code. */
static int apply_option(struct options *o, int code, const char *arg)
{
	struct ha_model *m = &o->model;
	struct ha_constraints *c = &o->constraints;
	switch (code) {
	case 'b':
		o->have_budget = 1;
		return parse_count(code, arg, &o->budget);
	case 'n':
		o->have_samples = 1;
		if (!cli_parse_real(arg, &m->samples) || !(m->samples > 1.0) ||
		    m->samples > 1e300)
			return bad_value(code, arg, "a number n with 1 < n <= 1e300");
		return EXIT_OK;
	case 's':
		return parse_positive_real(code, arg, &m->smoothness);
	case OPT_BIAS_COEF:
		return parse_positive_real(code, arg, &m->bias_coef);
	case OPT_VAR_COEF:
		return parse_positive_real(code, arg, &m->var_coef);
	case OPT_HDI:
		if (!cli_parse_real(arg, &m->hdi) || !(m->hdi >= 0.0 && m->hdi <= 1.0))
			return bad_value(code, arg, "a number from 0 to 1");
		return EXIT_OK;
	case 'm':
		return parse_count(code, arg, &c->head_dim_multiple);
	case OPT_MIN_HEAD_DIM:
		return parse_count(code, arg, &c->min_head_dim);
	case OPT_MAX_HEAD_DIM:
		return parse_count(code, arg, &c->max_head_dim);
	case OPT_MIN_HEADS:
		return parse_count(code, arg, &c->min_heads);
	case OPT_MAX_HEADS:
		return parse_count(code, arg, &c->max_heads);
	case 'a':
		o->all = 1;
		return EXIT_OK;
	case 'f':
		if (strcmp(arg, "text") == 0)
			o->format = FORMAT_TEXT;
		else if (strcmp(arg, "yaml") == 0)
			o->format = FORMAT_YAML;
		else
			return bad_value(code, arg, "text or yaml");
		return EXIT_OK;
	case 'o':
		if (!*arg)
			return bad_value(code, arg, "a file name");
		o->output = arg;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* Returns -1 to go on, or an exit code (0 after --help or --version). */
static int parse_options(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	o->model = ha_model_defaults();
	opterr = 0;
	int code;
	while ((code = getopt_long(argc, argv, ":b:n:s:m:af:o:hV", long_options,
	                           NULL)) != -1) {
		const char *typed = argv[optind - 1];
		if (code == 'h') {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if (code == 'V') {
			printf("headalloc %s\n", ha_version());
			return EXIT_OK;
		}
		if (code == '?') {
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", typed);
		}
		if (code == ':')
			return usage_error("option '%s' needs a value", typed);
		int rc = apply_option(o, code, optarg);
		if (rc != EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->have_budget)
		return usage_error("--budget is required");
	if (!o->have_samples)
		return usage_error("--samples is required");
	const struct ha_constraints *c = &o->constraints;
	if (c->min_head_dim && c->max_head_dim && c->min_head_dim > c->max_head_dim)
		return usage_error("--min-head-dim %" PRIu64 " is larger than --max-head-dim %" PRIu64,
		                   c->min_head_dim, c->max_head_dim);
	if (c->min_heads && c->max_heads && c->min_heads > c->max_heads)
		return usage_error("--min-heads %" PRIu64 " is larger than --max-heads %" PRIu64,
		                   c->min_heads, c->max_heads);
	return -1;
}

static int library_failure(const char *what, enum ha_status st)
{
	fprintf(stderr, "headalloc: %s: %s\n", what, ha_status_str(st));
	return st == HA_EINVAL ? EXIT_USAGE : EXIT_IO;
}

static int write_report(FILE *out, const struct options *o,
                        const struct ha_solution *sol,
                        const struct ha_allocation *rows, size_t count)
{
	enum ha_status st;
	if (o->format == FORMAT_TEXT) {
		st = ha_report_text_solution(out, &o->model, sol, rows, count);
	} else {
		struct ha_yaml_writer *w;
		st = ha_yaml_writer_new(out, &w);
		if (st == HA_OK) {
			ha_yaml_begin_map(w, 0);
			ha_report_yaml_solution(w, &o->model, sol, rows, count);
			ha_yaml_end_map(w);
			st = ha_yaml_writer_finish(w);
		}
		ha_yaml_writer_free(w);
	}
	if (st == HA_OK && (fflush(out) != 0 || ferror(out)))
		st = HA_EIO;
	return st == HA_OK ? EXIT_OK : library_failure("writing the report", st);
}

/* One constraint for the infeasibility message, when it is set. */
static void describe_constraint(const char *name, uint64_t value)
{
	if (value)
		fprintf(stderr, " %s %" PRIu64, name, value);
}

static int infeasible(const struct options *o)
{
	const struct ha_constraints *c = &o->constraints;
	fprintf(stderr, "headalloc: no (heads, head_dim) pair of budget %" PRIu64
	        " meets the constraints:", o->budget);
	describe_constraint("--head-dim-multiple", c->head_dim_multiple);
	describe_constraint("--min-head-dim", c->min_head_dim);
	describe_constraint("--max-head-dim", c->max_head_dim);
	describe_constraint("--min-heads", c->min_heads);
	describe_constraint("--max-heads", c->max_heads);
	fputc('\n', stderr);
	return EXIT_INFEASIBLE;
}

static int run_allocation(const struct options *o, FILE *out)
{
	struct ha_solver *solver = NULL;
	struct ha_allocation *rows = NULL;
	size_t count = 0;
	struct ha_solution sol;
	int rc;

	enum ha_status st = ha_solver_new(o->budget, &o->constraints, &solver);
	if (st == HA_EINFEASIBLE) {
		rc = infeasible(o);
		goto out;
	}
	if (st != HA_OK) {
		rc = library_failure("preparing the solver", st);
		goto out;
	}
	st = ha_solver_solve(solver, &o->model, &sol);
	if (st == HA_OK && o->all)
		st = ha_solver_enumerate(solver, &o->model, &rows, &count);
	if (st != HA_OK) {
		rc = library_failure("solving", st);
		goto out;
	}
	rc = write_report(out, o, &sol, rows, count);
out:
	free(rows);
	ha_solver_free(solver);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "hdi") == 0)
		return cli_hdi_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "weights") == 0)
		return cli_weights_main(argc - 1, argv + 1);
	struct options o;
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;

	struct atomic_file file = {0};
	FILE *out = stdout;
	if (o.output) {
		int err = atomic_file_open(&file, o.output);
		if (err) {
			fprintf(stderr, "headalloc: --output: cannot write '%s': %s\n",
			        o.output, strerror(err));
			return EXIT_IO;
		}
		out = file.stream;
	}
	rc = run_allocation(&o, out);
	if (o.output) {
		if (rc != EXIT_OK) {
			atomic_file_abort(&file);
		} else {
			int err = atomic_file_commit(&file);
			if (err) {
				fprintf(stderr, "headalloc: --output: cannot write '%s': %s\n",
				        o.output, strerror(err));
				rc = EXIT_IO;
			}
		}
	} else if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "headalloc: writing standard output: %s\n", strerror(errno));
		rc = EXIT_IO;
	}
	return rc;
}
