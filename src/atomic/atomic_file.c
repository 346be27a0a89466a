#define _XOPEN_SOURCE 700 /* realpath, readlink, sigaction */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

/* ---- inputs that no output may replace ------------------------------- */

/* Each input as it was when registered: its device and inode (when it
 * exists) and a copy of its path for messages.  A model directory
 * registers every file it reads, so the table grows. */
struct input {
	char *path;
	const char *what;
	dev_t dev;
	ino_t ino;
	int exists;
};
static struct input *inputs;
static size_t input_count, input_room;
/* The words of the calling thread's last refusal. */
static _Thread_local char refusal[PATH_MAX + 128];

int atomic_file_add_input(const char *path, const char *what)
{
	if (input_count == input_room) {
		size_t room = input_room ? 2 * input_room : 8;
		struct input *more = realloc(inputs, room * sizeof *more);
		if (!more)
			return ENOMEM;
		inputs = more;
		input_room = room;
	}
	struct input *in = &inputs[input_count];
	struct stat st;
	in->path = strdup(path);
	if (!in->path)
		return ENOMEM;
	in->what = what;
	in->exists = stat(path, &st) == 0;
	in->dev = in->exists ? st.st_dev : 0;
	in->ino = in->exists ? st.st_ino : 0;
	input_count++;
	return 0;
}

void atomic_file_forget_inputs(void)
{
	for (size_t i = 0; i < input_count; i++)
		free(inputs[i].path);
	free(inputs);
	inputs = NULL;
	input_count = input_room = 0;
}

const char *atomic_file_strerror(int code)
{
	switch (code) {
	case ATOMIC_SAME_AS_INPUT:
		return refusal;
	case ATOMIC_READ_ONLY:
		return "it is read-only";
	case ATOMIC_NOT_OWNER:
		return "it belongs to another user";
	case ATOMIC_HARD_LINKED:
		return refusal;
	}
	return strerror(code);
}

/* The input st is, by device and inode (a second name, a hard link or a
 * symbolic link to it are all the same file), or -1.  An input that did
 * not exist when registered is looked at again (it may have been made
 * since by another name). */
static int same_as_input(const struct stat *st)
{
	for (size_t i = 0; i < input_count; i++) {
		struct stat now;
		struct input *in = &inputs[i];
		int same = in->exists ? in->dev == st->st_dev && in->ino == st->st_ino
		                      : stat(in->path, &now) == 0 &&
		                                now.st_dev == st->st_dev &&
		                                now.st_ino == st->st_ino;
		if (same) {
			snprintf(refusal, sizeof refusal,
			         "it is the same file as %s '%s'", in->what, in->path);
			return 1;
		}
	}
	return 0;
}

/* Why an existing regular file may not be replaced, or 0. */
static int replace_refused(const char *resolved, const struct stat *st)
{
	if (same_as_input(st))
		return ATOMIC_SAME_AS_INPUT;
	/* The same test writing in place would meet; root passes access(2)
	 * on anything, so the owner's write bit stands for "read-only". */
	if (access(resolved, W_OK) != 0 || !(st->st_mode & S_IWUSR))
		return ATOMIC_READ_ONLY;
	if (st->st_uid != geteuid())
		return ATOMIC_NOT_OWNER;
	if (st->st_nlink > 1) {
		snprintf(refusal, sizeof refusal,
		         "it has %ju other hard link%s, which would keep the "
		         "old contents",
		         (uintmax_t)(st->st_nlink - 1), st->st_nlink > 2 ? "s" : "");
		return ATOMIC_HARD_LINKED;
	}
	return 0;
}

/* ---- what a path is ------------------------------------------------------ */

/* The file a chain of symbolic links ending in a missing file names (a new
 * file will be made there), in a new allocation; NULL with errno set. */
static char *follow_dangling(const char *path)
{
	char *p = strdup(path);
	for (int hops = 0; p && hops < 40; hops++) {
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		char link[PATH_MAX];
		ssize_t n = readlink(p, link, sizeof link - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		link[n] = '\0';
		char *slash = strrchr(p, '/');
		size_t dir = link[0] != '/' && slash ? (size_t)(slash - p) + 1 : 0;
		char *next = malloc(dir + (size_t)n + 1);
		if (next) {
			memcpy(next, p, dir);
			memcpy(next + dir, link, (size_t)n + 1);
		}
		free(p);
		p = next;
	}
	if (p) {
		free(p);
		errno = ELOOP;
	}
	return NULL;
}

enum kind { NEW_FILE, REGULAR, IN_PLACE };

/* What path is: a new file (*target: where it will be made), an existing
 * regular file (*target: its real path, st filled), or something written
 * in place.  Returns 0, an errno value or a refusal. */
static int classify(const char *path, enum kind *kind, char **target,
                    struct stat *st)
{
	*target = NULL;
	if (stat(path, st) != 0) {
		if (errno != ENOENT)
			return errno;
		*kind = NEW_FILE;
		*target = follow_dangling(path);
		return *target ? 0 : errno;
	}
	if (S_ISDIR(st->st_mode))
		return EISDIR;
	if (!S_ISREG(st->st_mode)) {
		*kind = IN_PLACE;
		return 0;
	}
	*kind = REGULAR;
	*target = realpath(path, NULL);
	if (!*target)
		return errno;
	int refused = replace_refused(*target, st);
	if (refused) {
		free(*target);
		*target = NULL;
	}
	return refused;
}

int atomic_file_check(const char *path)
{
	enum kind kind = NEW_FILE;
	char *target;
	struct stat st;
	int e = classify(path, &kind, &target, &st);
	free(target);
	return e;
}

/* Where path's file is or will be made, spelled one way: the real path of
 * an existing file, or the real path of the directory a new one goes
 * into (symbolic links followed) with its name.  A new string, or NULL. */
static char *location(const char *path)
{
	char *real = realpath(path, NULL);
	if (real)
		return real;
	char *target = follow_dangling(path);
	if (!target)
		return NULL;
	char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	if (slash == target)
		real = strdup("");
	else {
		if (slash)
			*slash = '\0';
		real = realpath(slash ? target : ".", NULL);
	}
	char *out = real ? malloc(strlen(real) + strlen(base) + 2) : NULL;
	if (out)
		sprintf(out, "%s/%s", real, base);
	free(real);
	free(target);
	return out;
}

int atomic_file_same(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char *la = location(a), *lb = location(b);
	int same = la && lb ? strcmp(la, lb) == 0 : strcmp(a, b) == 0;
	free(la);
	free(lb);
	return same;
}

/* ---- signals ------------------------------------------------------------- */

/* The temporary files being written, for the signal handler: an
 * interrupted run leaves neither a partial output nor a temporary file
 * behind.  A few outputs may be open at once (a report and a plot), and
 * --plot-each keeps one finished temporary file a picture until the
 * report is written: the table grows (with the watched signals blocked,
 * so that the handler always sees a whole table). */
#define FIRST_PENDING 4
static const char *volatile first_pending[FIRST_PENDING];
static const char *volatile *volatile pending = first_pending;
static volatile int pending_room = FIRST_PENDING;
static int pending_count;

static const int watched[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT,
                              SIGPIPE, SIGXFSZ,   SIGXCPU, SIGALRM,
                              SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2};
#define WATCHED (sizeof watched / sizeof *watched)
static struct sigaction saved[WATCHED];

static void remove_pending_and_die(int sig)
{
	for (int i = 0; i < pending_room; i++) {
		const char *temp = pending[i];
		if (temp)
			unlink(temp); /* async-signal-safe */
	}
	signal(sig, SIG_DFL);
	raise(sig); /* delivered, with its default action, on return */
}

static void block_watched(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < WATCHED; i++)
		sigaddset(&set, watched[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Install the handler for the first temporary file; a signal that was
 * ignored when it came (nohup's SIGHUP, a background job's SIGINT) keeps
 * being ignored. */
static void watch_signals(void)
{
	for (size_t i = 0; i < WATCHED; i++) {
		sigaction(watched[i], NULL, &saved[i]);
		if (saved[i].sa_handler == SIG_IGN)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = remove_pending_and_die;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < WATCHED; j++)
			sigaddset(&sa.sa_mask, watched[j]);
		sigaction(watched[i], &sa, NULL);
	}
}

static void unwatch_signals(void)
{
	for (size_t i = 0; i < WATCHED; i++)
		sigaction(watched[i], &saved[i], NULL);
}

/* Twice the room, the entries kept (signals blocked by the caller). */
static int grow_pending(void)
{
	int room = pending_room * 2;
	const char *volatile *grown = malloc((size_t)room * sizeof *grown);
	if (!grown)
		return 0;
	for (int i = 0; i < room; i++)
		grown[i] = i < pending_room ? pending[i] : NULL;
	const char *volatile *old = pending;
	pending = grown;
	pending_room = room;
	if (old != first_pending)
		free((void *)old);
	return 1;
}

/* Add or drop a temporary file, with the watched signals blocked so that
 * the handler never sees the table half-changed. */
static int track(const char *temp, int add)
{
	sigset_t old;
	int ok = 0;
	block_watched(&old);
	if (add && pending_count == pending_room && !grow_pending()) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 0;
	}
	for (int i = 0; i < pending_room; i++) {
		if (add && !pending[i]) {
			if (pending_count++ == 0)
				watch_signals();
			pending[i] = temp;
			ok = 1;
			break;
		}
		if (!add && pending[i] == temp) {
			pending[i] = NULL;
			if (--pending_count == 0)
				unwatch_signals();
			ok = 1;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/* ---- opening, committing, aborting --------------------------------------- */

static void release(struct atomic_file *f)
{
	if (f->temp && f->watched)
		track(f->temp, 0);
	free(f->target);
	free(f->temp);
	f->target = f->temp = NULL;
	f->watched = 0;
	f->stream = NULL;
}

/* A device, FIFO or socket: renaming over it would replace the node
 * itself, and it cannot be half-written in the sense that matters. */
static int open_in_place(struct atomic_file *f, const char *path)
{
	f->stream = fopen(path, "w");
	if (!f->stream)
		return errno;
	return 0;
}

/* mkstemp makes the file 0600: keep the mode and group of the file it
 * replaces, or give a new one the mode a plain fopen would. */
static int set_mode(int fd, enum kind kind, const struct stat *st)
{
	if (kind == REGULAR) {
		if (st->st_gid != getegid() && fchown(fd, (uid_t)-1, st->st_gid) != 0) {
			/* not a member of its group: the new file keeps ours */
		}
		return fchmod(fd, st->st_mode & 07777);
	}
	mode_t mask = umask(0);
	umask(mask);
	return fchmod(fd, 0666 & ~mask);
}

static int open_file(struct atomic_file *f, const char *path, int watch)
{
	static const char suffix[] = ".tmp-XXXXXX";
	memset(f, 0, sizeof *f);
	enum kind kind = NEW_FILE;
	struct stat st;
	int e = classify(path, &kind, &f->target, &st);
	if (e)
		return e;
	if (kind == IN_PLACE)
		return open_in_place(f, path);

	/* TARGET.tmp-XXXXXX, its name cut so that it fits in a directory
	 * entry: a 250-byte output name is fine, its temporary file too. */
	size_t len = strlen(f->target);
	const char *slash = strrchr(f->target, '/');
	size_t base = len - (slash ? (size_t)(slash + 1 - f->target) : 0);
	if (base + sizeof suffix - 1 > NAME_MAX)
		len -= base + sizeof suffix - 1 - NAME_MAX;
	f->temp = malloc(len + sizeof suffix);
	if (!f->temp) {
		release(f);
		return ENOMEM;
	}
	memcpy(f->temp, f->target, len);
	memcpy(f->temp + len, suffix, sizeof suffix);

	/* Watched from before it exists, so that no signal can leave it. */
	if (watch && !track(f->temp, 1)) {
		free(f->temp);
		f->temp = NULL;
		release(f);
		return ENOMEM;
	}
	f->watched = watch;
	int fd = mkstemp(f->temp);
	if (fd < 0) {
		e = errno;
		release(f);
		return e;
	}
	if (set_mode(fd, kind, &st) != 0 || !(f->stream = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(f->temp);
		release(f);
		return e;
	}
	return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	return open_file(f, path, 1);
}

int atomic_file_open_unwatched(struct atomic_file *f, const char *path)
{
	return open_file(f, path, 0);
}

/* Flush, sync and close the stream of a temporary file: 0 or an errno
 * value (then the temporary file is removed). */
static int finish_writing(struct atomic_file *f)
{
	int err = 0;
	errno = 0;
	if (fflush(f->stream) != 0 || ferror(f->stream))
		err = errno ? errno : EIO;
	if (!err && fsync(fileno(f->stream)) != 0 && errno != EINVAL)
		err = errno;
	if (fclose(f->stream) != 0 && !err)
		err = errno ? errno : EIO;
	f->stream = NULL;
	if (err) {
		unlink(f->temp);
		release(f);
	}
	return err;
}

int atomic_file_close(struct atomic_file *f)
{
	if (!f->stream)
		return 0;
	if (!f->temp) /* written in place: done */
		return atomic_file_commit(f);
	return finish_writing(f);
}

int atomic_file_commit(struct atomic_file *f)
{
	int err = 0;
	errno = 0;
	if (!f->temp) { /* written in place (or already committed) */
		if (!f->stream)
			return 0;
		if (fflush(f->stream) != 0 || ferror(f->stream))
			err = errno ? errno : EIO;
		if (fclose(f->stream) != 0 && !err)
			err = errno ? errno : EIO;
		release(f);
		return err;
	}
	if (f->stream && (err = finish_writing(f)) != 0)
		return err;
	if (rename(f->temp, f->target) != 0) {
		err = errno;
		unlink(f->temp);
	}
	release(f);
	return err;
}

void atomic_file_abort(struct atomic_file *f)
{
	if (f->stream)
		fclose(f->stream);
	if (f->temp)
		unlink(f->temp);
	release(f);
}
