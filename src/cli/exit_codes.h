/* The exit statuses of headalloc (documented in headalloc(1), EXIT
 * STATUS).  A library status becomes one of them through
 * cli_exit_status() only (common.h). */
#ifndef HEADALLOC_CLI_EXIT_CODES_H
#define HEADALLOC_CLI_EXIT_CODES_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_IO = 1,         /* I/O or internal failure */
	EXIT_USAGE = 2,      /* usage or input error */
	EXIT_INFEASIBLE = 3, /* no feasible allocation */
};

#endif
