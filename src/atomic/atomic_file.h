/* Output files that are never seen half-written, and that never destroy
 * what they should not: the rules of every file headalloc writes, the
 * CLI's reports and pictures and the Python package's pictures alike (a
 * small static library of its own, linked by both; not part of
 * libheadalloc, which never writes a file it was not handed).
 *
 * A regular file (or a new one) is written to a temporary file beside it,
 * which replaces it only when complete (rename(2) is atomic within a file
 * system); the temporary file is removed on every way out that can be
 * caught: failure, abort, and the signals SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGPIPE, SIGXFSZ, SIGXCPU, SIGALRM, SIGVTALRM, SIGPROF,
 * SIGUSR1 and SIGUSR2 (only while a temporary file exists; a signal the
 * process was started with ignored, as under nohup, stays ignored).
 * atomic_file_open_unwatched() leaves the signals to a caller that has
 * handlers of its own (an interpreter): its temporary file is removed on
 * failure and abort, and the caller must not die between open and
 * commit.
 *
 * What the path IS decides how it is written, never its name: a
 * character or block device, a FIFO or a socket (a terminal, /dev/null,
 * /proc/self/fd/1 on a pipe) is written in place, since renaming over it
 * would replace the node itself.
 *
 * A path is refused (ATOMIC_* below) when replacing it would destroy
 * something the user did not ask to lose: the same file (device and
 * inode) as an input registered with atomic_file_add_input(), a file the
 * user could not have written in place (access(2) W_OK, or its owner
 * write bit off), a file owned by someone else (rename(2) would
 * silently hand it to us), or a file with other hard links (they would
 * silently keep the old contents). */
#ifndef HEADALLOC_ATOMIC_FILE_H
#define HEADALLOC_ATOMIC_FILE_H

#include <stdio.h>

struct atomic_file {
	FILE *stream;
	char *target;
	char *temp;
	int watched; /* temp is in the signal handler's table */
};

/* Refusals: negative, so that they never collide with an errno value. */
enum atomic_refusal {
	ATOMIC_SAME_AS_INPUT = -1, /* the same file as a registered input */
	ATOMIC_READ_ONLY = -2,     /* the user could not write it in place */
	ATOMIC_NOT_OWNER = -3,     /* it belongs to another user */
	ATOMIC_HARD_LINKED = -4,   /* replacing it would break its other
	                              hard links */
};

/* Register path as an input that no output may replace, by its device
 * and inode as they are now (path is copied, for messages); what names it
 * in messages ("the scenario file", "--hdi-from"; kept by pointer: a
 * static string).  Returns 0, or ENOMEM. */
int atomic_file_add_input(const char *path, const char *what);

/* 1 when paths a and b name one file: by device and inode when both
 * exist, else by where the file will be made (the real path of its
 * directory, symbolic links followed), so that "./r.svg", "r.svg", an
 * absolute path and a link to it are one; 0 otherwise. */
int atomic_file_same(const char *a, const char *b);

/* Forget every registered input. */
void atomic_file_forget_inputs(void);

/* Whether path may be written as an output: 0, an errno value (EISDIR),
 * or an enum atomic_refusal.  atomic_file_open() checks the same; call
 * this first to refuse before any work is done. */
int atomic_file_check(const char *path);

/* The reason for a code of atomic_file_check() or atomic_file_open(), in
 * words: "it is the same file as --config 'a.yaml'", "it is read-only",
 * "Permission denied"... */
const char *atomic_file_strerror(int code);

/* Open a temporary file next to path (or path itself, in place).  Returns
 * 0, an errno value, or an enum atomic_refusal. */
int atomic_file_open(struct atomic_file *f, const char *path);

/* atomic_file_open without the signal handlers.  Files opened so, and
 * atomic_file_check, may be used from several threads at once (each
 * thread its own files; the registered inputs are the CLI's, read only);
 * a refusal's words are the calling thread's. */
int atomic_file_open_unwatched(struct atomic_file *f, const char *path);

/* Flush, sync and close a temporary file without renaming it: it waits,
 * closed (no descriptor held), for atomic_file_commit or
 * atomic_file_abort.  A file written in place is finished.  Returns 0, or
 * an errno value (then the temporary file is removed). */
int atomic_file_close(struct atomic_file *f);

/* Flush, sync (unless atomic_file_close did) and rename over the target.  Returns 0, or an errno value
 * (then the temporary file is removed and the target left untouched). */
int atomic_file_commit(struct atomic_file *f);

/* Close and remove the temporary file (after a failure).  Safe to call on
 * a committed or never-opened file. */
void atomic_file_abort(struct atomic_file *f);

#endif
