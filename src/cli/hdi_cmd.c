/* headalloc hdi and headalloc weights: head diversity measured on real
 * weights, and the optimal head weights of a head covariance matrix
 * (spec §5).  Like the main command, these parse options, call the
 * library and turn its statuses into one-line messages and exit codes:
 *   0 success, 1 I/O or internal failure, 2 usage or input error. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>

#include "common.h"
#include "commands.h"
#include "parse.h"


static const char hdi_usage[] =
	"Usage: headalloc hdi FILE --heads H [OPTION]...\n"
	"Measure the Head Diversity Index of the key projections in FILE\n"
	"(.safetensors or .npy): how far apart the heads' key subspaces are.\n"
	"\n"
	"      --heads H               heads per tensor (required)\n"
	"      --tensor PATTERN        tensors to read: a name or a glob such as\n"
	"                              '*.k_proj.weight' (default: every tensor)\n"
	"      --layout LAYOUT         out-in (default, PyTorch [H*d_k, d_model])\n"
	"                              or in-out ([d_model, H*d_k])\n"
	"      --overlap               text: also print each H x H overlap matrix\n"
	"  -f, --format FORMAT         text (default) or yaml\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"  -h, --help                  show this help and exit\n"
	"\n"
	"Heads are numbered from 0.  Exit status: 0 success, 1 I/O or internal\n"
	"error, 2 usage or input error.  See headalloc(1).\n";

static const char weights_usage[] =
	"Usage: headalloc weights COVARIANCE.yaml [OPTION]...\n"
	"Compute the optimal head weights alpha, proportional to Sigma^-1 1, for\n"
	"the H x H covariance Sigma of the heads' outputs.\n"
	"\n"
	"  -f, --format FORMAT         text (default) or yaml\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"  -h, --help                  show this help and exit\n"
	"\n"
	"Exit status: 0 success (also when Sigma is singular: a warning is\n"
	"printed and the pseudo-inverse used), 1 I/O or internal error, 2 usage\n"
	"or input error.  See headalloc(1).\n";

enum long_only {
	OPT_HEADS = 256,
	OPT_TENSOR,
	OPT_LAYOUT,
	OPT_OVERLAP,
};

static const struct option hdi_options[] = {
	{"heads", required_argument, NULL, OPT_HEADS},
	{"tensor", required_argument, NULL, OPT_TENSOR},
	{"layout", required_argument, NULL, OPT_LAYOUT},
	{"overlap", no_argument, NULL, OPT_OVERLAP},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const struct option weights_options[] = {
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* What a subcommand's option parser needs to know for its messages. */
struct command {
	const char *name;              /* "hdi" */
	const char *usage;
	const struct option *options;
};

/* Options common to both subcommands, and the positional file. */
struct common {
	const char *file;
	enum ha_report_format format;
	const char *output;
};

struct hdi_options {
	struct common c;
	size_t heads;
	int have_heads;
	const char *tensor;
	enum ha_layout layout;
	int overlap;
};

/* --format and --output; EXIT_USAGE after a message, EXIT_OK if applied,
 * -1 when code is not one of them. */
static int apply_common(struct common *c, int code, const char *arg)
{
	switch (code) {
	case 'f':
		if (strcmp(arg, "text") == 0)
			c->format = HA_FORMAT_TEXT;
		else if (strcmp(arg, "yaml") == 0)
			c->format = HA_FORMAT_YAML;
		else
			return cli_bad_value("--format", arg, "text or yaml");
		return EXIT_OK;
	case 'o':
		if (!*arg)
			return cli_bad_value("--output", arg, "a file name");
		c->output = arg;
		return EXIT_OK;
	}
	return -1;
}

static int apply_hdi(void *opts, int code, const char *arg)
{
	struct hdi_options *o = opts;
	uint64_t heads;
	switch (code) {
	case OPT_HEADS:
		/* H divides a dimension of a tensor of at most
		 * HA_WEIGHTS_MAX_ELEMENTS elements. */
		if (!cli_parse_uint(arg, 1, HA_WEIGHTS_MAX_ELEMENTS, &heads))
			return cli_bad_value("--heads", arg,
			                 "a whole number from 1 to 268435456");
		o->heads = (size_t)heads;
		o->have_heads = 1;
		return EXIT_OK;
	case OPT_TENSOR:
		if (!*arg)
			return cli_bad_value("--tensor", arg, "a tensor name or pattern");
		o->tensor = arg;
		return EXIT_OK;
	case OPT_LAYOUT:
		if (ha_layout_parse(arg, &o->layout) != HA_OK)
			return cli_bad_value("--layout", arg, "out-in or in-out");
		return EXIT_OK;
	case OPT_OVERLAP:
		o->overlap = 1;
		return EXIT_OK;
	}
	return apply_common(&o->c, code, arg);
}

static int apply_weights(void *opts, int code, const char *arg)
{
	return apply_common(opts, code, arg);
}

/* Parse argv (argv[0] is the subcommand) into opts, whose first member is
 * a struct common.  Returns -1 to go on, or an exit code (0 after
 * --help). */
static int parse(const struct command *cmd, int argc, char **argv,
                 const char *shorts, void *opts,
                 int (*apply)(void *, int, const char *))
{
	struct common *c = opts;
	opterr = 0;
	int code;
	while ((code = getopt_long(argc, argv, shorts, cmd->options, NULL)) !=
	       -1) {
		const char *typed = argv[optind - 1];
		if (code == 'h') {
			fputs(cmd->usage, stdout);
			return EXIT_OK;
		}
		if (code == '?' || code == ':')
			return cli_getopt_error(code, typed, cmd->options, cmd->name);
		int rc = apply(opts, code, optarg);
		if (rc != EXIT_OK)
			return rc == -1 ? EXIT_USAGE : rc;
	}
	if (optind >= argc)
		return cli_usage_error(cmd->name, "a file is required");
	c->file = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd->name, "unexpected argument '%s'", argv[optind]);
	if (!*c->file)
		return cli_usage_error(cmd->name, "the file name is empty");
	return -1;
}

/* A failure of the library on path: "headalloc: path[:line:column]:
 * message".  Bad contents are input errors (2); failing to read, running
 * out of memory or a numerical failure are I/O or internal errors (1). */
static int file_error(const char *path, enum ha_status st,
                      const struct ha_error *err)
{
	const char *message = err->message[0] ? err->message
	                                       : ha_status_str(st);
	if (err->line > 0)
		fprintf(stderr, "headalloc: %s:%ld:%ld: %s\n", path, err->line,
		        err->column, message);
	else
		fprintf(stderr, "headalloc: %s: %s\n", path, message);
	switch (st) {
	case HA_EFORMAT:
	case HA_EUNSUPPORTED:
	case HA_EINVAL:
		return EXIT_USAGE;
	default:
		return EXIT_IO;
	}
}

/* ------------------------------------------------------------------- hdi */

struct hdi_job {
	const struct hdi_options *o;
	const struct ha_hdi_report *report;
};

/* Overlaps and HDI lie in [0, 1]: six decimals, reproducible. */
static void format_pair(char *buf, size_t size, const struct ha_hdi_tensor *t,
                        const struct ha_head_pair *p)
{
	if (t->pairs == 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "(%zu, %zu) %.6f", p->first, p->second,
		         p->overlap);
}

static void text_overlap(FILE *out, const struct ha_hdi_tensor *t)
{
	fputs("      ", out);
	for (size_t j = 0; j < t->heads; j++)
		fprintf(out, " %6zu", j);
	fputc('\n', out);
	for (size_t i = 0; i < t->heads; i++) {
		fprintf(out, "  %4zu", i);
		for (size_t j = 0; j < t->heads; j++)
			fprintf(out, " %6.4f", t->overlap[i * t->heads + j]);
		fputc('\n', out);
	}
}

/* A tensor name for a line of text: control characters (a newline in a
 * name from a hostile file) become '?'. */
static void printable_name(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s", name);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static int hdi_text(FILE *out, const void *ctx)
{
	const struct hdi_job *job = ctx;
	const struct ha_hdi_report *r = job->report;
	int width = (int)strlen("tensor");
	for (size_t i = 0; i < r->count; i++) {
		size_t n = strlen(r->tensors[i].name);
		if (n > (size_t)width)
			width = n > 200 ? 200 : (int)n;
	}
	fprintf(out, "%s (layout %s)\n", job->o->c.file,
	        ha_layout_str(job->o->layout));
	fprintf(out, "%-*s  %5s  %8s  %-8s  %-17s  %s\n", width, "tensor", "heads",
	        "head_dim", "hdi", "most similar", "least similar");
	for (size_t i = 0; i < r->count; i++) {
		const struct ha_hdi_tensor *t = &r->tensors[i];
		char most[64], least[64], name[1024];
		format_pair(most, sizeof most, t, &t->most_similar);
		format_pair(least, sizeof least, t, &t->least_similar);
		printable_name(name, sizeof name, t->name);
		fprintf(out, "%-*s  %5zu  %8zu  %.6f  %-17s  %s", width, name,
		        t->heads, t->head_dim, t->hdi, most, least);
		if (t->rank_deficient)
			fprintf(out, "  (%zu rank-deficient head%s)",
			        t->rank_deficient, t->rank_deficient == 1 ? "" : "s");
		fputc('\n', out);
		if (job->o->overlap)
			text_overlap(out, t);
	}
	fprintf(out, "mean HDI %.6f over %zu tensor%s\n", r->mean_hdi, r->count,
	        r->count == 1 ? "" : "s");
	return ferror(out) ? EXIT_WRITE_FAILED : EXIT_OK;
}

static void yaml_pair(struct ha_yaml_writer *w, const char *key,
                      const struct ha_hdi_tensor *t,
                      const struct ha_head_pair *p)
{
	ha_yaml_key(w, key);
	if (t->pairs == 0) {
		ha_yaml_null(w);
		return;
	}
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "heads");
	ha_yaml_begin_seq(w, 1);
	ha_yaml_uint(w, p->first);
	ha_yaml_uint(w, p->second);
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "overlap");
	ha_yaml_double(w, p->overlap);
	ha_yaml_end_map(w);
}

static void yaml_tensor(struct ha_yaml_writer *w,
                        const struct ha_hdi_tensor *t)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "tensor");
	ha_yaml_string(w, t->name);
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, t->heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, t->head_dim);
	ha_yaml_key(w, "model_dim");
	ha_yaml_uint(w, t->model_dim);
	ha_yaml_key(w, "hdi");
	ha_yaml_double(w, t->hdi);
	ha_yaml_key(w, "rank_deficient");
	ha_yaml_uint(w, t->rank_deficient);
	yaml_pair(w, "most_similar", t, &t->most_similar);
	yaml_pair(w, "least_similar", t, &t->least_similar);
	ha_yaml_key(w, "overlap");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < t->heads; i++) {
		ha_yaml_begin_seq(w, 1);
		for (size_t j = 0; j < t->heads; j++)
			ha_yaml_double(w, t->overlap[i * t->heads + j]);
		ha_yaml_end_seq(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
}

static int hdi_yaml(FILE *out, const void *ctx)
{
	const struct hdi_job *job = ctx;
	const struct ha_hdi_report *r = job->report;
	struct ha_yaml_writer *w;
	enum ha_status st = ha_yaml_writer_new(out, &w);
	if (st != HA_OK)
		return EXIT_WRITE_FAILED;
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "file");
	ha_yaml_string(w, job->o->c.file);
	ha_yaml_key(w, "layout");
	ha_yaml_string(w, ha_layout_str(job->o->layout));
	ha_yaml_key(w, "layers");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < r->count; i++)
		yaml_tensor(w, &r->tensors[i]);
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "mean_hdi");
	ha_yaml_double(w, r->mean_hdi);
	ha_yaml_end_map(w);
	st = ha_yaml_writer_finish(w);
	ha_yaml_writer_free(w);
	return st == HA_OK ? EXIT_OK : EXIT_WRITE_FAILED;
}

int cli_hdi_main(int argc, char **argv)
{
	static const struct command cmd = {"hdi", hdi_usage, hdi_options};
	struct hdi_options o;
	memset(&o, 0, sizeof o);
	o.layout = HA_LAYOUT_OUT_IN;
	int rc = parse(&cmd, argc, argv, ":f:o:h", &o, apply_hdi);
	if (rc >= 0)
		return rc;
	if (!o.have_heads)
		return cli_usage_error(cmd.name, "--heads is required");

	struct ha_hdi_report *report = NULL;
	struct ha_error err;
	enum ha_status st = ha_hdi_from_file(o.c.file, o.tensor, o.heads,
	                                     o.layout, &report, &err);
	if (st != HA_OK)
		return file_error(o.c.file, st, &err);
	struct hdi_job job = {&o, report};
	rc = cli_emit(o.c.output, o.c.format == HA_FORMAT_YAML ? hdi_yaml : hdi_text, &job);
	ha_hdi_report_free(report);
	return rc;
}

/* --------------------------------------------------------------- weights */

static int weights_text(FILE *out, const void *ctx)
{
	const struct ha_head_weights *hw = ctx;
	fprintf(out, "heads          %zu\n", hw->heads);
	fputs("alpha         ", out);
	for (size_t i = 0; i < hw->heads; i++)
		fprintf(out, " %.6g", hw->alpha[i]);
	fputc('\n', out);
	fprintf(out, "error optimal  %.6g\n", hw->error_optimal);
	fprintf(out, "error uniform  %.6g\n", hw->error_uniform);
	fprintf(out, "gain           %.6g\n", hw->gain);
	return ferror(out) ? EXIT_WRITE_FAILED : EXIT_OK;
}

static int weights_yaml(FILE *out, const void *ctx)
{
	const struct ha_head_weights *hw = ctx;
	struct ha_yaml_writer *w;
	enum ha_status st = ha_yaml_writer_new(out, &w);
	if (st != HA_OK)
		return EXIT_WRITE_FAILED;
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, hw->heads);
	ha_yaml_key(w, "alpha");
	ha_yaml_begin_seq(w, 1);
	for (size_t i = 0; i < hw->heads; i++)
		ha_yaml_double(w, hw->alpha[i]);
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "error_optimal");
	ha_yaml_double(w, hw->error_optimal);
	ha_yaml_key(w, "error_uniform");
	ha_yaml_double(w, hw->error_uniform);
	ha_yaml_key(w, "gain");
	ha_yaml_double(w, hw->gain);
	ha_yaml_key(w, "pseudo_inverse");
	ha_yaml_bool(w, hw->pseudo_inverse);
	ha_yaml_key(w, "null_space");
	ha_yaml_bool(w, hw->null_space);
	ha_yaml_end_map(w);
	st = ha_yaml_writer_finish(w);
	ha_yaml_writer_free(w);
	return st == HA_OK ? EXIT_OK : EXIT_WRITE_FAILED;
}

/* The one warning line for a singular covariance. */
static void warn_pseudo_inverse(const char *path,
                                const struct ha_head_weights *hw)
{
	fprintf(stderr, "headalloc: warning: %s: covariance is singular "
	        "(smallest eigenvalue %.3g, rank %zu of %zu)", path,
	        hw->min_eigenvalue, hw->rank, hw->heads);
	if (hw->null_space)
		fputs("; weights in its null space cancel the error exactly\n", stderr);
	else
		fputs("; using the pseudo-inverse\n", stderr);
}

int cli_weights_main(int argc, char **argv)
{
	static const struct command cmd = {"weights", weights_usage,
	                                   weights_options};
	struct common o;
	memset(&o, 0, sizeof o);
	int rc = parse(&cmd, argc, argv, ":f:o:h", &o, apply_weights);
	if (rc >= 0)
		return rc;

	double *sigma = NULL;
	size_t heads = 0;
	struct ha_error err;
	struct ha_head_weights hw = {0};
	enum ha_status st = ha_covariance_read(o.file, &sigma, &heads, &err);
	if (st == HA_OK)
		st = ha_covariance_weights(sigma, heads, &hw, &err);
	free(sigma);
	if (st != HA_OK)
		return file_error(o.file, st, &err);
	if (hw.pseudo_inverse)
		warn_pseudo_inverse(o.file, &hw);
	rc = cli_emit(o.output, o.format == HA_FORMAT_YAML ? weights_yaml : weights_text,
	              &hw);
	ha_head_weights_clear(&hw);
	return rc;
}
