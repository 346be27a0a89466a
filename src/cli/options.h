/* The allocation command's options: parsed from the command line over an
 * optional scenario file (--config), which they override. */
#ifndef HEADALLOC_CLI_OPTIONS_H
#define HEADALLOC_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <headalloc/headalloc.h>

#include "options_grouped.h"
#include "pictures.h"
#include "progress_line.h"
#include "value_lists.h"


/* The constraints, in the order of struct ha_constraints. */
enum {
	CLI_HEAD_DIM_MULTIPLE,
	CLI_MIN_HEAD_DIM,
	CLI_MAX_HEAD_DIM,
	CLI_MIN_HEADS,
	CLI_MAX_HEADS,
	CLI_CONSTRAINTS
};
struct cli_options {
	struct ha_model model;
	struct ha_constraints constraints;
	uint64_t *budgets;
	size_t budget_count;
	struct ha_samples samples;
	int have_samples;
	/* The n of one allocation, and the one assumed for a model row
	 * without its own: the first of the samples, else
	 * HA_SAMPLES_DEFAULT. */
	double first_samples;
	int all;
	int regimes;
	enum ha_report_format format;
	const char *output;
	struct cli_plot plot;         /* --plot */
	const char *config;
	struct ha_scenario *scenario; /* owned; its models are the model table */
	/* Values that came from the scenario file and were not overridden on
	 * the command line: messages about them name the file, not an option
	 * that was never typed.  Bit i of constraints_from_config is the i-th
	 * field of struct ha_constraints (CLI_CONSTRAINT_* order). */
	int budgets_from_config;
	int samples_from_config;
	int all_from_config;
	unsigned constraints_from_config;
	/* --hdi-from: where the HDI in model.hdi was measured, for the report */
	const char *hdi_from;
	const char *hdi_tensor;  /* --hdi-tensor */
	uint64_t hdi_heads;      /* --hdi-heads */
	enum ha_layout hdi_layout; /* --hdi-layout */
	int hdi_have_layout;       /* --hdi-layout was given */
	struct ha_hdi_source hdi_source;
	enum cli_progress_mode progress; /* the last of --progress, --quiet */
	size_t threads;                  /* --threads: CLI_THREADS_AUTO or N */
	struct cli_grouped grouped;      /* --kv-heads and its companions */
};

/* Parse argv into o (free it with cli_options_free() in any case).
 * Returns true when the command is to run with o; false when it is done
 * (after --help, --version, or an error whose message is printed), with
 * its exit status in *exit_status. */
bool cli_options_parse(int argc, char **argv, struct cli_options *o,
                       int *exit_status);

/* The run's first step, after parsing: register --hdi-from as an input,
 * check --output and --plot, then measure --hdi-from's HDI into
 * o->model.hdi (nothing is opened or measured while parsing, but the
 * scenario file the options override).  EXIT_OK, or the exit status after
 * one line on stderr. */
int cli_options_prepare(struct cli_options *o);

/* The constraint number i of o (CLI_* order), and how a message names it
 * with its value: "--min-heads 8" when typed, "constraints.min_heads 8
 * (FILE)" when it came from the scenario file. */
#define CLI_DESCRIBE_SIZE 4200
uint64_t cli_constraint(const struct cli_options *o, int i);
const char *cli_constraint_describe(const struct cli_options *o, int i,
                                    char *buf, size_t size);

/* Free what the options own. */
void cli_options_free(struct cli_options *o);

#endif
