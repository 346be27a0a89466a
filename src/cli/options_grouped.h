/* The allocation command's grouped-query options (headalloc(1),
 * Grouped-query attention): the key/value heads, the KV cache and the
 * trade-off front. */
#ifndef HEADALLOC_CLI_OPTIONS_GROUPED_H
#define HEADALLOC_CLI_OPTIONS_GROUPED_H

#include <getopt.h>

#include <headalloc/headalloc.h>
#include <headalloc/scenario.h>

enum {
	CLI_OPT_KV_HEADS = 500,
	CLI_OPT_MAX_KV_DIM,
	CLI_OPT_MIN_KV_HEADS,
	CLI_OPT_MAX_KV_HEADS,
	CLI_OPT_GROUP_HDI,
	CLI_OPT_LAYERS,
	CLI_OPT_KV_BYTES,
	CLI_OPT_MODEL_DIM,
	CLI_OPT_PARETO,
	CLI_OPT_MAX_LOSS_RATIO,
};

/* The long options above, for the command's table. */
#define CLI_GROUPED_LONG_OPTIONS \
	{"kv-heads", required_argument, NULL, CLI_OPT_KV_HEADS}, \
	{"max-kv-dim", required_argument, NULL, CLI_OPT_MAX_KV_DIM}, \
	{"min-kv-heads", required_argument, NULL, CLI_OPT_MIN_KV_HEADS}, \
	{"max-kv-heads", required_argument, NULL, CLI_OPT_MAX_KV_HEADS}, \
	{"group-hdi", required_argument, NULL, CLI_OPT_GROUP_HDI}, \
	{"layers", required_argument, NULL, CLI_OPT_LAYERS}, \
	{"kv-bytes", required_argument, NULL, CLI_OPT_KV_BYTES}, \
	{"model-dim", required_argument, NULL, CLI_OPT_MODEL_DIM}, \
	{"pareto", no_argument, NULL, CLI_OPT_PARETO}, \
	{"max-loss-ratio", required_argument, NULL, CLI_OPT_MAX_LOSS_RATIO}

struct cli_grouped {
	struct ha_kv_constraints kv;
	struct ha_kv_shape shape;
	/* The scenario file's kv map and the file's name (NULL: none): a value
	 * from it that no option overrode is named by its key and position. */
	const struct ha_scenario *file;
	const char *config;
	unsigned typed;  /* bit k: the option of ha_scenario_kv_key k was given */
	int active_typed; /* an option, not the file, asks for it */
	int active;      /* an option or the file asks for the allocation over G */
	int companions;  /* --group-hdi, --layers, --kv-bytes or --model-dim */
	int have_group_hdi; /* --group-hdi given (--hdi-from DIR then keeps it) */
	int pareto;
	double max_loss_ratio; /* 0: none */
};

/* Start with nothing grouped and the default shape. */
void cli_grouped_init(struct cli_grouped *g);

/* Whether code is one of the options above. */
int cli_grouped_is_option(int code);

/* Apply one of them (group_hdi into *model); EXIT_OK or the exit status
 * after one line on stderr naming the option and the value. */
int cli_grouped_option(struct cli_grouped *g, struct ha_model *model, int code,
                       const char *arg);

/* Take the file's kv map (sc->has_kv) as the starting values, which the
 * options then override. */
void cli_grouped_from_file(struct cli_grouped *g, const struct ha_scenario *sc,
                           const char *config);

/* The checks that need every option, given the run's shape: one budget
 * and one n (sweeps, --all, --regimes and the model table do not carry
 * G), the ranges, and the byte counts within 64 bits.  A value from the
 * file is named by FILE:LINE:COLUMN and its key, not by an option. */
int cli_grouped_check(const struct cli_grouped *g, const uint64_t *budgets,
                      size_t budget_count, size_t sample_count, int all,
                      int regimes, int has_models, int plot);

#endif
