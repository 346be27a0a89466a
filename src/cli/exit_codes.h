/* The exit statuses of headalloc (documented in headalloc(1)). */
#ifndef HEADALLOC_CLI_EXIT_CODES_H
#define HEADALLOC_CLI_EXIT_CODES_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_IO = 1,         /* I/O or internal failure */
	EXIT_USAGE = 2,      /* usage or input error */
	EXIT_INFEASIBLE = 3, /* no feasible allocation */
	/* Internal: writing the report failed and nothing was said yet;
	 * main() names the destination and exits with EXIT_IO. */
	EXIT_WRITE_FAILED = 100,
};

#endif
