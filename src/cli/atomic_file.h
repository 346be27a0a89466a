/* Output files that are never seen half-written: everything goes to a
 * temporary file beside the target, which replaces the target only when
 * complete (rename(2) is atomic within a file system). */
#ifndef HEADALLOC_CLI_ATOMIC_FILE_H
#define HEADALLOC_CLI_ATOMIC_FILE_H

#include <stdio.h>

struct atomic_file {
	FILE *stream;
	char *target;
	char *temp;
};

/* Open a temporary file next to path.  Returns 0, or an errno value. */
int atomic_file_open(struct atomic_file *f, const char *path);

/* Flush, sync and rename over the target.  Returns 0, or an errno value
 * (then the temporary file is removed and the target left untouched). */
int atomic_file_commit(struct atomic_file *f);

/* Close and remove the temporary file (after a failure).  Safe to call on
 * a committed or never-opened file. */
void atomic_file_abort(struct atomic_file *f);

#endif
