/* The subcommands of headalloc.  Each takes the arguments that follow
 * "headalloc" (argv[0] is the subcommand's name), prints its own messages
 * and returns the process's exit status: 0 success, 1 I/O or internal
 * error, 2 usage or input error. */
#ifndef HEADALLOC_CLI_COMMANDS_H
#define HEADALLOC_CLI_COMMANDS_H

/* headalloc hdi FILE --heads H [--tensor PATTERN] [--layout L] [--overlap]
 * [--format F] [--output FILE]: the Head Diversity Index of key
 * projections read from a .safetensors or .npy file. */
int cli_hdi_main(int argc, char **argv);

/* headalloc weights COVARIANCE.yaml [--format F] [--output FILE]: the
 * optimal head weights alpha proportional to Sigma^-1 1. */
int cli_weights_main(int argc, char **argv);

#endif
