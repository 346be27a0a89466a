/* headalloc hdi: the Head Diversity Index measured on real key weights
 * (headalloc-model(7), THE HEAD DIVERSITY INDEX).  Parses its options, measures through the library and hands
 * the result to the report layer. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "option_words.h"
#include "hdi_source.h"
#include "parse.h"
#include "pictures.h"
#include "progress_line.h"

static const char usage[] =
	"Usage: headalloc hdi FILE --heads H [OPTION]...\n"
	"   or: headalloc hdi DIR [OPTION]...\n"
	"Measure the Head Diversity Index of the key projections in FILE\n"
	"(.safetensors, .npy or .onnx) or in every layer of the Hugging Face model\n"
	"directory DIR (config.json with model.safetensors or its index; DIR\n"
	"may be given as either JSON file): how far apart the heads' key\n"
	"subspaces are, beside the HDI of random heads of the same shape.\n"
	"\n"
	"      --heads H               heads per tensor (required for FILE); for\n"
	"                              DIR, cut each layer's key block into H\n"
	"                              heads instead of the config's key heads\n"
	"      --tensor PATTERN        tensors to read: a name or a glob such as\n"
	"                              '*.k_proj.weight', passing by those that are\n"
	"                              not 2-D (default: the tensors of FILE named\n"
	"                              as keys, *k_proj.weight, *key.weight, ...;\n"
	"                              the preset's keys of DIR; with DIR it needs\n"
	"                              --heads)\n"
	"      --fused PARTS           each tensor holds qkv (q|k|v), kv (k|v) or\n"
	"                              none (the keys alone, default): measure its\n"
	"                              keys; for DIR only with --tensor\n"
	"      --fused-order ORDER     concat (default: all q, all k, all v) or\n"
	"                              per-head (q,k,v of head 0, of head 1, ...,\n"
	"                              as GPT-NeoX and BLOOM)\n"
	"      --layout LAYOUT         out-in (default, PyTorch [H*d_k, d_model])\n"
	"                              or in-out ([d_model, H*d_k]); for DIR only\n"
	"                              with --tensor\n"
	"      --overlap               text: also print each H x H overlap matrix\n"
	"      --groups                DIR of a grouped-query model: also the HDI of\n"
	"                              the query heads within each key group\n"
	"  -f, --format FORMAT         text (default), yaml or json\n"
	"  -o, --output FILE           write to FILE (atomically) instead of stdout\n"
	"      --plot FILE             also draw each layer's overlap matrix and the\n"
	"                              HDI of every layer into FILE (.svg, .png or .pdf)\n"
	"      --plot-each             with --plot: one picture per layer, FILE-0.png,\n"
	"                              FILE-1.png, ... (numbered in the report's order)\n"
	"      --progress              show a progress line on stderr even when it is\n"
	"                              not a terminal or the work is short\n"
	"      --quiet                 never show the progress line\n"
	"  -h, --help                  show this help and exit\n"
	"\n"
	"Model types of DIR: llama mistral mixtral qwen2 qwen3 gemma gemma2\n"
	"gemma3_text phi phi3 starcoder2 olmo opt gptj gpt2 gpt_neox bloom\n"
	"falcon mpt bert roberta distilbert t5.  Heads are numbered from 0.\n"
	"Exit status: 0 success, 1 I/O or internal error, 2 usage or input\n"
	"error.\n"
	"See headalloc-hdi(1).\n";

enum long_only {
	OPT_HEADS = 256,
	OPT_TENSOR,
	OPT_LAYOUT,
	OPT_FUSED,
	OPT_FUSED_ORDER,
	OPT_OVERLAP,
	OPT_PROGRESS,
	OPT_QUIET,
	OPT_GROUPS,
};

static const struct option long_options[] = {
	{"heads", required_argument, NULL, OPT_HEADS},
	{"tensor", required_argument, NULL, OPT_TENSOR},
	{"layout", required_argument, NULL, OPT_LAYOUT},
	{"fused", required_argument, NULL, OPT_FUSED},
	{"fused-order", required_argument, NULL, OPT_FUSED_ORDER},
	{"overlap", no_argument, NULL, OPT_OVERLAP},
	{"groups", no_argument, NULL, OPT_GROUPS},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"plot", required_argument, NULL, CLI_OPT_PLOT},
	{"plot-each", no_argument, NULL, CLI_OPT_PLOT_EACH},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct option *const cli_hdi_options = long_options; /* completion.c */

struct hdi_options {
	struct cli_file_options c;
	size_t heads;
	int have_heads;
	const char *tensor;
	enum ha_layout layout;
	int have_layout; /* a directory takes --layout only with --tensor */
	enum ha_fused fused;
	enum ha_fused_order fused_order;
	int have_fused_order;
	int overlap;
	int groups;
	struct cli_plot plot;
	enum cli_progress_mode progress; /* the last of --progress, --quiet */
};

static int apply(void *options, int code, const char *arg)
{
	struct hdi_options *o = options;
	uint64_t heads;
	switch (code) {
	case OPT_HEADS:
		/* The H x H overlaps are kept: HA_HDI_MAX_HEADS. */
		if (!cli_parse_uint(arg, 1, HA_HDI_MAX_HEADS, &heads))
			return cli_bad_value("--heads", arg,
			                     "a whole number from 1 to 1024");
		o->heads = (size_t)heads;
		o->have_heads = 1;
		return EXIT_OK;
	case OPT_TENSOR:
		if (!*arg)
			return cli_bad_value("--tensor", arg, "a tensor name or pattern");
		o->tensor = arg;
		return EXIT_OK;
	case OPT_LAYOUT:
		if (!cli_layout_parse(arg, &o->layout))
			return cli_bad_word("--layout", arg, CLI_WORDS_LAYOUT);
		o->have_layout = 1;
		return EXIT_OK;
	case OPT_FUSED: {
		/* in the order of CLI_WORDS_FUSED: qkv, kv, none */
		static const enum ha_fused fused[] = {HA_FUSED_QKV, HA_FUSED_KV,
		                                      HA_FUSED_NONE};
		int i = cli_word_index(CLI_WORDS_FUSED, arg);
		if (i < 0)
			return cli_bad_word("--fused", arg, CLI_WORDS_FUSED);
		o->fused = fused[i];
		return EXIT_OK;
	}
	case OPT_FUSED_ORDER: {
		/* in the order of CLI_WORDS_FUSED_ORDER: concat, per-head */
		static const enum ha_fused_order orders[] = {HA_FUSED_CONCAT,
		                                             HA_FUSED_PER_HEAD};
		int i = cli_word_index(CLI_WORDS_FUSED_ORDER, arg);
		if (i < 0)
			return cli_bad_word("--fused-order", arg, CLI_WORDS_FUSED_ORDER);
		o->fused_order = orders[i];
		o->have_fused_order = 1;
		return EXIT_OK;
	}
	case OPT_OVERLAP:
		o->overlap = 1;
		return EXIT_OK;
	case OPT_GROUPS:
		o->groups = 1;
		return EXIT_OK;
	case OPT_PROGRESS:
		o->progress = CLI_PROGRESS_FORCE;
		return EXIT_OK;
	case OPT_QUIET:
		o->progress = CLI_PROGRESS_OFF;
		return EXIT_OK;
	case CLI_OPT_PLOT:
		return cli_plot_option(&o->plot, arg);
	case CLI_OPT_PLOT_EACH:
		o->plot.each = true;
		return EXIT_OK;
	}
	return cli_apply_file_option(&o->c, code, arg);
}

static enum ha_status write_hdi(struct ha_report *r, const void *req,
                                struct ha_error *err)
{
	return ha_report_hdi(r, req, err);
}

/* Picture i: every layer, or with --plot-each layer i alone. */
static enum ha_status draw_hdi(struct ha_plot_target *t, const void *ctx,
                               size_t i, struct ha_error *err)
{
	struct ha_plot_hdi_request req = *(const struct ha_plot_hdi_request *)ctx;
	if (req.layer_count) {
		req.layers = &i;
		req.layer_count = 1;
	}
	return ha_plot_hdi(t, &req, err);
}

int cli_hdi_main(int argc, char **argv)
{
	static const struct cli_command cmd = {"hdi", usage, long_options, ":f:o:h", false, NULL};
	struct hdi_options o;
	memset(&o, 0, sizeof o);
	o.layout = HA_LAYOUT_OUT_IN;
	int status;
	if (!cli_parse_file_command(&cmd, argc, argv, &o.c, &o, apply, &status))
		return status;
	status = cli_file_command_ready(&o.c, &o.plot, cmd.name);
	if (status != EXIT_OK)
		return status;

	/* A file or a model directory: hdi_source.c. */
	if (o.have_fused_order && o.fused == HA_FUSED_NONE)
		return cli_usage_error("hdi", "--fused-order needs --fused qkv "
		                       "or kv");
	struct hdi_choice choice = {o.c.file, o.have_heads ? o.heads : 0,
	                            o.tensor, o.layout, o.have_layout,
	                            o.c.output, &o.plot, NULL, o.fused,
	                            o.fused_order, NULL, o.groups, 0};
	struct cli_progress line;
	struct ha_progress progress = cli_progress_begin(&line, o.progress, "hdi");
	choice.progress = &progress;
	struct ha_hdi_path m;
	status = hdi_source_measure(&choice, &m);
	cli_progress_end(&line);
	if (status != EXIT_OK)
		return status;
	struct ha_hdi_request req = {
		.file = o.c.file,
		.layout = m.layout,
		.hdi = m.hdi,
		.overlap = o.overlap,
		.checkpoint = m.checkpoint,
		.heads_reason = m.heads_reason,
		.groups = m.groups,
	};
	/* The strip shows each layer's HDI against that of random subspaces
	 * of the same shapes. */
	double *baseline = malloc(m.hdi->count * sizeof *baseline);
	if (!baseline) {
		ha_hdi_path_close(&m);
		return cli_library_failure(NULL, NULL, HA_ENOMEM, NULL);
	}
	for (size_t i = 0; i < m.hdi->count; i++)
		baseline[i] = m.hdi->tensors[i].baseline_hdi;
	/* layer_count 1 (and layers set by draw_hdi): one layer a picture */
	struct ha_plot_hdi_request picture = {
		.file = o.c.file,
		.layout = m.layout,
		.hdi = m.hdi,
		.layer_count = o.plot.each ? 1 : 0,
		.baseline = baseline,
		.baseline_label = "random subspaces",
		/* each picture its own layer: memory and files linear in layers */
		.selected_only = o.plot.each,
	};
	status = cli_emit_with_pictures(o.c.output, o.c.format, write_hdi, &req,
	                                &o.plot, m.hdi->count, draw_hdi, &picture);
	free(baseline);
	ha_hdi_path_close(&m);
	return status;
}
