/* The options headalloc calibrate and headalloc plan share: the law
 * (--free, --fix, --law, --huber-delta), the bootstrap's --bootstrap and
 * --seed, --threads, the runs file's --columns, and the target (--budget,
 * --samples and the constraints on the allocation). */
#ifndef HEADALLOC_CLI_CAL_OPTIONS_H
#define HEADALLOC_CLI_CAL_OPTIONS_H

#include <getopt.h>

#include <headalloc/headalloc.h>

enum {
	CLI_CAL_OPT_FREE = 600,
	CLI_CAL_OPT_FIX,
	CLI_CAL_OPT_HUBER_DELTA,
	CLI_CAL_OPT_LAW,
	CLI_CAL_OPT_BOOTSTRAP,
	CLI_CAL_OPT_SEED,
	CLI_CAL_OPT_MIN_HEAD_DIM,
	CLI_CAL_OPT_MAX_HEAD_DIM,
	CLI_CAL_OPT_MIN_HEADS,
	CLI_CAL_OPT_MAX_HEADS,
	CLI_CAL_OPT_THREADS,
	CLI_CAL_OPT_COLUMNS,
};

/* The long options above (and -b, -n, -m), for the command's table. */
#define CLI_CAL_LONG_OPTIONS \
	{"columns", required_argument, NULL, CLI_CAL_OPT_COLUMNS}, \
	{"free", required_argument, NULL, CLI_CAL_OPT_FREE}, \
	{"fix", required_argument, NULL, CLI_CAL_OPT_FIX}, \
	{"huber-delta", required_argument, NULL, CLI_CAL_OPT_HUBER_DELTA}, \
	{"law", required_argument, NULL, CLI_CAL_OPT_LAW}, \
	{"bootstrap", required_argument, NULL, CLI_CAL_OPT_BOOTSTRAP}, \
	{"seed", required_argument, NULL, CLI_CAL_OPT_SEED}, \
	{"budget", required_argument, NULL, 'b'}, \
	{"samples", required_argument, NULL, 'n'}, \
	{"head-dim-multiple", required_argument, NULL, 'm'}, \
	{"min-head-dim", required_argument, NULL, CLI_CAL_OPT_MIN_HEAD_DIM}, \
	{"max-head-dim", required_argument, NULL, CLI_CAL_OPT_MAX_HEAD_DIM}, \
	{"min-heads", required_argument, NULL, CLI_CAL_OPT_MIN_HEADS}, \
	{"max-heads", required_argument, NULL, CLI_CAL_OPT_MAX_HEADS}, \
	{"threads", required_argument, NULL, CLI_CAL_OPT_THREADS}

struct cli_cal_shared {
	struct ha_cal_options *cal;      /* where the options go */
	int have_free;                   /* --free given: free[] is the set */
	int free[HA_CAL_PARAMS];
	int fixed[HA_CAL_PARAMS];        /* --fix NAME=VALUE */
	double fixed_value[HA_CAL_PARAMS]; /* fit scale (ln c) */
	int have_budget, have_samples, have_constraint, have_bootstrap;
	struct ha_cal_law laws[HA_CAL_USER_LAWS_MAX]; /* --law */
	size_t law_count;
	struct ha_runs_names columns;    /* --columns (the last one) */
};

/* Start with cal's values and the seeds' free set E, c_b, c_v (the
 * default of headalloc-calibrate(1)). */
void cli_cal_shared_init(struct cli_cal_shared *s, struct ha_cal_options *cal);

/* Whether code is one of the options above. */
int cli_cal_is_option(int code);

/* Apply one of them; EXIT_OK or the exit status after one line on stderr
 * naming the option and the value.  --law turns the comparison on. */
int cli_cal_option(struct cli_cal_shared *s, int code, const char *arg);

/* The checks that need every option (the constraints' ranges, a
 * parameter both free and fixed), then the law into s->cal. */
int cli_cal_finish(struct cli_cal_shared *s, const char *command);

/* No allocation of the target's budget meets its constraints: one line
 * in the allocator's words and the exit status; EXIT_OK when one does
 * (or no budget). */
int cli_cal_check_target(const struct ha_cal_target *t);

#endif
