/* The files of a model directory read as hostile input: a checkpoint's
 * config.json, index and shards, an ONNX model's external data
 * (library-internal). */
#ifndef HEADALLOC_MODEL_DIR_H
#define HEADALLOC_MODEL_DIR_H

#include <stddef.h>

#include <json-c/json.h>

#include <headalloc/error.h>
#include <headalloc/status.h>

#include "base/error_internal.h"

/* How deep config.json and the index may nest (real configs: four). */
#define CKPT_JSON_MAX_DEPTH 32

/* A directory being read: the caller's spelling and where files may
 * resolve to. */
struct ckpt_dir {
	const char *dir; /* as the caller passed it: err->file */
	char *root;      /* realpath(dir) */
	char *blobs;     /* realpath of ROOT/../../blobs when ROOT is a
	                    Hugging Face cache snapshot, else NULL */
};

/* Resolve dir into *d.  HA_EIO when it is not a readable directory. */
enum ha_status ckpt_dir_open(struct ckpt_dir *d, const char *dir,
                             struct ha_error *err);
void ckpt_dir_close(struct ckpt_dir *d);

/* Fail with status and a message "NAME: ..." about file NAME of the
 * directory (err->file = the directory). */
enum ha_status ckpt_fail(const struct ckpt_dir *d, struct ha_error *err,
                         enum ha_status status, const char *name,
                         const char *fmt, ...) HA_PRINTF(5, 6);

/* Resolve file `name` of the directory into a new string *real, checking
 * that name is relative without "..", that it resolves inside the
 * directory (or its cache's blobs) and is a regular file.  A missing file
 * gives HA_EIO, or, when `missing_ok`, HA_OK with *real NULL. */
enum ha_status ckpt_locate(const struct ckpt_dir *d, const char *name,
                           int missing_ok, char **real,
                           struct ha_error *err);

/* Read file `name` (located as above, at most `cap` bytes) as one JSON
 * object into *out (json_object_put() it).  HA_EIO, HA_EFORMAT (too
 * large, malformed "NAME:LINE:COLUMN: ...", not an object). */
enum ha_status ckpt_read_json(const struct ckpt_dir *d, const char *name,
                              size_t cap, json_object **out,
                              struct ha_error *err);

#endif
