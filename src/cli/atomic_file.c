#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

static void release(struct atomic_file *f)
{
	free(f->target);
	free(f->temp);
	f->target = f->temp = NULL;
	f->stream = NULL;
}

/* A target that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place: renaming over it would replace the device
 * node itself. */
static int open_in_place(struct atomic_file *f, const char *path)
{
	f->stream = fopen(path, "w");
	if (!f->stream)
		return errno;
	return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	static const char suffix[] = ".tmp-XXXXXX";
	struct stat st;
	memset(f, 0, sizeof *f);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return open_in_place(f, path);
	size_t len = strlen(path);
	f->target = strdup(path);
	f->temp = malloc(len + sizeof suffix);
	if (!f->target || !f->temp) {
		release(f);
		return ENOMEM;
	}
	memcpy(f->temp, path, len);
	memcpy(f->temp + len, suffix, sizeof suffix);

	int fd = mkstemp(f->temp);
	if (fd < 0) {
		int err = errno;
		release(f);
		return err;
	}
	/* mkstemp makes the file 0600; give it the mode a plain fopen would. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	f->stream = fdopen(fd, "w");
	if (!f->stream) {
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
