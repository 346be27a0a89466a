/* The commands of headalloc, one file each.  Each takes the arguments
 * that follow "headalloc" (argv[0] is the command's name, or the program's
 * for the allocation command), prints its own messages and returns the
 * process's exit status (common.h, cli_exit_status). */
#ifndef HEADALLOC_CLI_COMMANDS_H
#define HEADALLOC_CLI_COMMANDS_H

/* headalloc --budget D --samples N [OPTION]...: the optimal allocation, or
 * a sweep table with its fits, regimes and public-model comparison
 * (cmd_allocate.c, options in options.c). */
int cli_allocate_main(int argc, char **argv);

/* headalloc hdi FILE --heads H [--tensor PATTERN] [--layout L] [--overlap]
 * [--format F] [--output FILE], or headalloc hdi DIR [OPTION]...: the Head
 * Diversity Index of key projections read from a .safetensors or .npy
 * file, or from every layer of a model directory (cmd_hdi.c, the choice
 * of file or directory in hdi_source.c). */
int cli_hdi_main(int argc, char **argv);

/* headalloc weights COVARIANCE.yaml [--format F] [--output FILE]: the
 * optimal head weights alpha proportional to Sigma^-1 1 (cmd_weights.c). */
int cli_weights_main(int argc, char **argv);

/* headalloc calibrate RUNS [--free ...] [--fix ...] [--budget D --samples
 * N] [--bootstrap B] [--seed S] [--compare] [--format F] [--output FILE]:
 * the error model fitted to measured training runs (cmd_calibrate.c). */
int cli_calibrate_main(int argc, char **argv);

/* headalloc plan [RUNS] --budget D --samples N [--pool FILE] [--next K]
 * [--spend C] [--format F] [--output FILE] [--plot FILE]: which runs to
 * train next to decide the allocation at the target (cmd_plan.c; the
 * options it shares with calibrate in cal_options.c). */
int cli_plan_main(int argc, char **argv);

/* Each command's option table (the one getopt_long reads), for the shell
 * completion (completion.c). */
struct option;
extern const struct option *const cli_allocate_options;
extern const struct option *const cli_hdi_options;
extern const struct option *const cli_weights_options;
extern const struct option *const cli_calibrate_options;
extern const struct option *const cli_plan_options;

/* headalloc --completion bash: a bash completion script for every
 * command and option, from the tables above, on stdout.  Returns the exit
 * status. */
int cli_completion_main(int argc, char **argv);

#endif
