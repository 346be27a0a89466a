#define _GNU_SOURCE /* realpath, memrchr */
/* The files of a model directory as hostile input: where they may
 * resolve to, how large they may be, their JSON (see model_dir.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "base/error_internal.h"
#include "base/open_file.h"
#include "tensors/json_strict.h"
#include "tensors/model_dir.h"

enum ha_status ckpt_fail(const struct ckpt_dir *d, struct ha_error *err,
                         enum ha_status status, const char *name,
                         const char *fmt, ...)
{
	char text[HA_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	if (vsnprintf(text, sizeof text, fmt, ap) < 0)
		text[0] = '\0';
	va_end(ap);
	ha_fail(err, status, "%s: %s", name, text);
	if (err)
		err->file = d->dir;
	return status;
}

static char *join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = malloc(na + nb + 2);
	if (!s)
		return NULL;
	memcpy(s, a, na);
	s[na] = '/';
	memcpy(s + na + 1, b, nb + 1);
	return s;
}

/* path lies strictly below dir. */
static int below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n > 0 && dir[n - 1] == '/')
		n--; /* the root directory */
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* d->blobs (resolved) is the blobs of d->root's cache: a real directory
 * (not a symlink) named blobs in the cache root, the directory that holds
 * snapshots/ and whose snapshots/REV resolves to d->root.  A blobs link
 * pointing elsewhere would let a "model directory" read any file. */
static int cache_blobs(const struct ckpt_dir *d)
{
	const char *slash = strrchr(d->root, '/');
	size_t rev = slash ? (size_t)(slash - d->root) : 0; /* .../snapshots */
	const char *snap = rev ? memrchr(d->root, '/', rev) : NULL;
	if (!d->blobs || !snap)
		return 0;
	size_t cache = (size_t)(snap - d->root); /* the cache root's length */
	size_t nb = strlen(d->blobs);
	if (nb != cache + sizeof "/blobs" - 1 ||
	    strncmp(d->blobs, d->root, cache) != 0 ||
	    strcmp(d->blobs + cache, "/blobs") != 0)
		return 0;
	struct stat st;
	return lstat(d->blobs, &st) == 0 && S_ISDIR(st.st_mode);
}

enum ha_status ckpt_dir_open(struct ckpt_dir *d, const char *dir,
                             struct ha_error *err)
{
	memset(d, 0, sizeof *d);
	d->dir = dir;
	struct stat st;
	const char *why = NULL;
	if (stat(dir, &st) != 0)
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	if (why) {
		ha_fail(err, HA_EIO, "cannot read the model directory: %s", why);
		if (err)
			err->file = dir;
		return HA_EIO;
	}
	d->root = realpath(dir, NULL);
	if (!d->root) {
		enum ha_status status = errno == ENOMEM ? HA_ENOMEM : HA_EIO;
		ha_fail(err, status, "cannot resolve the directory: %s",
		        strerror(errno));
		if (err)
			err->file = dir;
		return status;
	}
	/* A Hugging Face cache keeps hub/models--ORG--NAME/snapshots/REV/F
	 * as symlinks to ../../blobs/HASH: accept that one way out. */
	const char *slash = strrchr(d->root, '/');
	size_t parent = slash ? (size_t)(slash - d->root) : 0;
	static const char snap[] = "/snapshots";
	size_t ns = sizeof snap - 1;
	if (parent >= ns && strncmp(d->root + parent - ns, snap, ns) == 0) {
		char *up = join(d->root, "../../blobs");
		if (!up) {
			ckpt_dir_close(d);
			return ha_fail(err, HA_ENOMEM, "out of memory");
		}
		d->blobs = realpath(up, NULL); /* NULL: no blobs, no way out */
		free(up);
		if (!cache_blobs(d)) {
			free(d->blobs);
			d->blobs = NULL;
		}
	}
	return HA_OK;
}

void ckpt_dir_close(struct ckpt_dir *d)
{
	free(d->root);
	free(d->blobs);
	d->root = d->blobs = NULL;
}

enum ha_status ckpt_locate(const struct ckpt_dir *d, const char *name,
                           int missing_ok, char **real, struct ha_error *err)
{
	*real = NULL;
	int dotdot = strcmp(name, "..") == 0 || strncmp(name, "../", 3) == 0 ||
	             strstr(name, "/../") != NULL;
	size_t n = strlen(name);
	if (n >= 3 && strcmp(name + n - 3, "/..") == 0)
		dotdot = 1;
	if (n == 0 || name[0] == '/' || dotdot)
		return ckpt_fail(d, err, HA_EFORMAT, name,
		                 "a file of the model must be named relative to "
		                 "its directory, without '..'");
	char *path = join(d->dir, name);
	if (!path)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	char *r = realpath(path, NULL);
	int e = errno;
	free(path);
	if (!r) {
		if (e == ENOMEM)
			return ha_fail(err, HA_ENOMEM, "out of memory");
		if (missing_ok && e == ENOENT)
			return HA_OK;
		return ckpt_fail(d, err, HA_EIO, name, "cannot open: %s",
		                 strerror(e));
	}
	if (!below(r, d->root) && !(d->blobs && below(r, d->blobs))) {
		enum ha_status st = ckpt_fail(d, err, HA_EFORMAT, name,
		                              "resolves to %s, outside the model "
		                              "directory", r);
		free(r);
		return st;
	}
	struct stat st;
	if (stat(r, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(r);
		return ckpt_fail(d, err, HA_EFORMAT, name, "not a regular file");
	}
	*real = r;
	return HA_OK;
}

/* Strict JSON, as the safetensors header is read (json_strict.h); a
 * fault is "NAME:LINE:COLUMN: why", HA_EFORMAT, the position in the
 * message (err->file is the directory, not the file it counts in). */
static enum ha_status parse_json(const struct ckpt_dir *d, const char *name,
                                 const char *text, size_t n, json_object **out,
                                 struct ha_error *err)
{
	struct json_strict_fault fault;
	json_object *obj = NULL;
	enum ha_status st = json_strict_parse(text, n, CKPT_JSON_MAX_DEPTH,
	                                      &obj, &fault);
	if (st == HA_ENOMEM)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	if (st != HA_OK) {
		long line = 1, col = 1;
		for (size_t i = 0; i < fault.at; i++) {
			line += text[i] == '\n';
			col = text[i] == '\n' ? 1 : col + 1;
		}
		ha_fail(err, HA_EFORMAT, "%s:%ld:%ld: %s", name, line, col,
		        fault.why);
		if (err)
			err->file = d->dir;
		return HA_EFORMAT;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return ckpt_fail(d, err, HA_EFORMAT, name, "not a JSON object");
	}
	*out = obj;
	return HA_OK;
}

enum ha_status ckpt_read_json(const struct ckpt_dir *d, const char *name,
                              size_t cap, json_object **out,
                              struct ha_error *err)
{
	*out = NULL;
	char *real = NULL;
	enum ha_status st = ckpt_locate(d, name, 0, &real, err);
	if (st != HA_OK)
		return st;
	char *text = NULL;
	FILE *f = ha_open_input(real);
	free(real);
	struct stat sb;
	if (!f || fstat(fileno(f), &sb) != 0) {
		st = ckpt_fail(d, err, HA_EIO, name, "cannot open: %s",
		               strerror(errno));
		goto out;
	}
	if (sb.st_size < 0 || (unsigned long long)sb.st_size > cap ||
	    cap > INT_MAX) {
		st = ckpt_fail(d, err, HA_EFORMAT, name,
		               "%lld bytes, more than the limit of %zu",
		               (long long)sb.st_size, cap);
		goto out;
	}
	size_t n = (size_t)sb.st_size;
	text = malloc(n + 1);
	if (!text) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	if (fread(text, 1, n, f) != n) {
		st = ckpt_fail(d, err, HA_EIO, name, "cannot read%s",
		               ferror(f) ? "" : ": the file shrank");
		goto out;
	}
	text[n] = '\0';
	st = parse_json(d, name, text, n, out, err);
out:
	free(text);
	if (f)
		fclose(f);
	return st;
}
