/* The allocation command's options: parsed from the command line over an
 * optional scenario file (--config), which they override. */
#ifndef HEADALLOC_CLI_OPTIONS_H
#define HEADALLOC_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <headalloc/headalloc.h>

#include "pictures.h"

/* The values of n: an explicit list, or a log-spaced sweep generated on
 * demand so that a million points take no memory. */
struct sample_source {
	double *values; /* the list, or NULL for a sweep */
	size_t count;
	double from, to; /* the sweep's ends (both included) */
};

size_t sample_count(const struct sample_source *s);
double sample_at(const struct sample_source *s, size_t i);

struct cli_options {
	struct ha_model model;
	struct ha_constraints constraints;
	uint64_t *budgets;
	size_t budget_count;
	struct sample_source samples;
	int have_samples;
	int all;
	int regimes;
	enum ha_report_format format;
	const char *output;
	struct cli_plot plot;         /* --plot */
	const char *config;
	struct ha_scenario *scenario; /* owned; its models are the model table */
	/* --hdi-from: where the HDI in model.hdi was measured, for the report */
	const char *hdi_from;
	struct ha_hdi_source hdi_source;
};

/* Parse argv into o (free it with cli_options_free() in any case).
 * Returns true when the command is to run with o; false when it is done
 * (after --help, --version, or an error whose message is printed), with
 * its exit status in *exit_status. */
bool cli_options_parse(int argc, char **argv, struct cli_options *o,
                       int *exit_status);

/* Free what the options own. */
void cli_options_free(struct cli_options *o);

#endif
