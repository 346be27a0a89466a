#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

/* The temporary file being written, for the signal handler: an
 * interrupted run (Ctrl-C, kill) leaves neither a partial output nor the
 * temporary file behind.  Only one atomic file is open at a time. */
static const char *volatile pending_temp;

static void remove_pending_and_die(int sig)
{
	const char *temp = pending_temp;
	if (temp)
		unlink(temp); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void watch_signals(const char *temp)
{
	static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
	pending_temp = temp;
	for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = temp ? remove_pending_and_die : SIG_DFL;
		sigemptyset(&sa.sa_mask);
		sigaction(signals[i], &sa, NULL);
	}
}

static void release(struct atomic_file *f)
{
	if (f->temp)
		watch_signals(NULL);
	free(f->target);
	free(f->temp);
	f->target = f->temp = NULL;
	f->stream = NULL;
}

/* A target that is not a regular file (/dev/null, a FIFO, a terminal, a
 * /proc/self/fd link) is written in place: renaming over it would replace
 * the node itself, and it cannot be half-written in the sense that
 * matters. */
static int open_in_place(struct atomic_file *f, const char *path)
{
	f->stream = fopen(path, "w");
	if (!f->stream)
		return errno;
	return 0;
}

static int is_special(const char *resolved)
{
	return strncmp(resolved, "/dev/", 5) == 0 || strncmp(resolved, "/proc/", 6) == 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	static const char suffix[] = ".tmp-XXXXXX";
	struct stat st;
	memset(f, 0, sizeof *f);

	/* Replace what a symbolic link points to, not the link.  A link that
	 * does not resolve to a file (/dev/stdout on a pipe is a link to
	 * "pipe:[...]") is written through, never renamed over. */
	char *resolved = realpath(path, NULL);
	int exists = resolved && stat(resolved, &st) == 0;
	struct stat link;
	if (!resolved && lstat(path, &link) == 0 && S_ISLNK(link.st_mode))
		return open_in_place(f, path);
	if (exists && S_ISDIR(st.st_mode)) {
		free(resolved);
		return EISDIR;
	}
	if ((exists && !S_ISREG(st.st_mode)) || is_special(path) ||
	    (resolved && is_special(resolved))) {
		free(resolved);
		return open_in_place(f, path);
	}
	f->target = resolved ? resolved : strdup(path);
	size_t len = f->target ? strlen(f->target) : 0;
	f->temp = malloc(len + sizeof suffix);
	if (!f->target || !f->temp) {
		release(f);
		return ENOMEM;
	}
	memcpy(f->temp, f->target, len);
	memcpy(f->temp + len, suffix, sizeof suffix);

	int fd = mkstemp(f->temp);
	if (fd < 0) {
		int err = errno;
		release(f);
		return err;
	}
	/* mkstemp makes the file 0600: keep the mode of the file it replaces,
	 * or give a new one the mode a plain fopen would. */
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	watch_signals(f->temp);
	if (fchmod(fd, mode) != 0 || !(f->stream = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		unlink(f->temp);
		release(f);
		return err;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *f)
{
	int err = 0;
	errno = 0;
	if (!f->temp) { /* written in place */
		if (fflush(f->stream) != 0 || ferror(f->stream))
			err = errno ? errno : EIO;
		if (fclose(f->stream) != 0 && !err)
			err = errno ? errno : EIO;
		release(f);
		return err;
	}
	if (fflush(f->stream) != 0 || ferror(f->stream))
		err = errno ? errno : EIO;
	if (!err && fsync(fileno(f->stream)) != 0 && errno != EINVAL)
		err = errno;
	if (fclose(f->stream) != 0 && !err)
		err = errno ? errno : EIO;
	f->stream = NULL;
	if (!err && rename(f->temp, f->target) != 0)
		err = errno;
	if (err)
		unlink(f->temp);
	release(f);
	return err;
}

void atomic_file_abort(struct atomic_file *f)
{
	if (f->stream) {
		fclose(f->stream);
		if (f->temp)
			unlink(f->temp);
	}
	release(f);
}
