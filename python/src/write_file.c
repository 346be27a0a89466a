/* _headalloc — writing a finished picture (or any bytes) to a path by the
 * CLI's rules (src/atomic/atomic_file.h): a regular file is replaced only
 * when the whole of it is written and synced, through a temporary file
 * beside it that no failure leaves behind; a symbolic link is followed
 * (the file it names is replaced, the link kept); a device or a FIFO is
 * written in place; a read-only file, another user's, or one with other
 * hard links is refused; the replaced file's mode is kept.
 *
 * The signals stay the interpreter's (atomic_file_open_unwatched):
 * Ctrl-C is seen by Python once the write is over, and the temporary
 * file is gone by then either way. */
#include "ha_py.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/text.h"

#include "atomic_file.h"

/* Open, write, commit: 0, an errno value or an enum atomic_refusal. */
static int write_whole(const char *path, const char *data, size_t size)
{
	struct atomic_file f;
	int e = atomic_file_open_unwatched(&f, path);
	if (e)
		return e;
	errno = 0;
	if (fwrite(data, 1, size, f.stream) != size) {
		e = errno ? errno : EIO;
		atomic_file_abort(&f);
		return e;
	}
	return atomic_file_commit(&f);
}

/* The exception of the CLI's words for an output that failed: a refusal
 * to replace what the user would lose is InputError (the CLI's exit
 * status 2) where the user named the wrong file (hard links), FileError
 * otherwise. */
static PyObject *raise_write_error(const char *what, const char *path, int code)
{
	char safe[1024];
	struct ha_error err;
	ha_error_init(&err);
	path = ha_text_safe(path, safe, sizeof safe);
	enum ha_status status = HA_EIO;
	if (code < 0) {
		snprintf(err.message, sizeof err.message, "%s: refusing to replace '%s': %s",
		         what, path, atomic_file_strerror(code));
		if (code == ATOMIC_SAME_AS_INPUT || code == ATOMIC_HARD_LINKED)
			status = HA_EINVAL;
	} else {
		snprintf(err.message, sizeof err.message, "%s: cannot write '%s': %s", what,
		         path, atomic_file_strerror(code));
	}
	err.status = status;
	return ha_py_raise(status, &err);
}

/* _write_file(path, data, what) -> None: data (bytes) into path; what
 * names the call in messages ("plot"). */
PyObject *ha_py_write_file(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path_obj;
	const char *data, *what;
	Py_ssize_t size;
	if (!PyArg_ParseTuple(args, "O&y#s", PyUnicode_FSConverter, &path_obj, &data, &size,
	                      &what))
		return NULL;
	const char *path = PyBytes_AS_STRING(path_obj);
	int e;
	/* data is a bytes object: immutable, and held by the caller. */
	Py_BEGIN_ALLOW_THREADS
	e = write_whole(path, data, (size_t)size);
	Py_END_ALLOW_THREADS
	PyObject *result = e ? raise_write_error(what, path, e) : Py_NewRef(Py_None);
	Py_DECREF(path_obj);
	return result;
}
