/* The config.json fields, the tensor directory and the shards of a
 * model directory (see checkpoint.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include <headalloc/checkpoint.h>
#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "checkpoint/checkpoint_internal.h"
#include "tensors/weights_internal.h"

/* ------------------------------------------------------- what is where */

/* Every tensor name of the index's weight_map under the one name rule
 * (text.h): the names reach the report. */
static enum ha_status check_map_names(const struct ckpt_dir *d,
                                      json_object *map, struct ha_error *err)
{
	json_object_object_foreach(map, key, val) {
		(void)val;
		if (ha_weights_check_name(key, strlen(key), err) != HA_OK)
			return ckpt_fail(d, err, HA_EFORMAT, CKPT_INDEX,
			                 "weight_map: %s", err ? err->message : "");
	}
	return HA_OK;
}

enum ha_status ckpt_names_open(const struct ckpt_dir *d,
                               struct ckpt_names *nm, struct ha_error *err)
{
	/* model.safetensors first, as transformers loads it. */
	char *path = NULL, *index = NULL;
	enum ha_status st = ckpt_locate(d, CKPT_SINGLE, 1, &path, err);
	if (st == HA_OK)
		st = ckpt_locate(d, CKPT_INDEX, 1, &index, err);
	if (st == HA_OK && path) {
		nm->both = index != NULL;
		st = ha_weights_open(path, &nm->single, err);
		if (st != HA_OK)
			ckpt_fail(d, err, st, CKPT_SINGLE, "%s",
			          err ? err->message : "");
	} else if (st == HA_OK && index) {
		st = ckpt_read_json(d, CKPT_INDEX, HA_CHECKPOINT_MAX_INDEX,
		                    &nm->index, err);
		if (st == HA_OK &&
		    (!json_object_object_get_ex(nm->index, "weight_map",
		                                &nm->map) ||
		     !json_object_is_type(nm->map, json_type_object)))
			st = ckpt_fail(d, err, HA_EFORMAT, CKPT_INDEX,
			               "no weight_map object");
		if (st == HA_OK)
			st = check_map_names(d, nm->map, err);
	}
	int found = path || index;
	free(path);
	free(index);
	if (st != HA_OK || found)
		return st;
	st = ckpt_locate(d, "pytorch_model.bin", 1, &path, err);
	if (st == HA_OK)
		st = path ? ckpt_fail(d, err, HA_EUNSUPPORTED, "pytorch_model.bin",
		                      "pickled weights are not read; convert "
		                      "the model to safetensors")
		          : ckpt_fail(d, err, HA_EIO, CKPT_SINGLE,
		                      "cannot open: no such file, nor %s",
		                      CKPT_INDEX);
	free(path);
	return st;
}

void ckpt_names_warn(const struct ckpt_names *nm, char *out, size_t size)
{
	if (nm->both)
		snprintf(out, size, "%s and %s are both here: %s is measured, "
		         "as transformers loads it, and the index is not read",
		         CKPT_SINGLE, CKPT_INDEX, CKPT_SINGLE);
	else if (size)
		out[0] = '\0';
}

void ckpt_names_close(struct ckpt_names *nm)
{
	json_object_put(nm->index);
	ha_weights_free(nm->single);
	memset(nm, 0, sizeof *nm);
}

const char *ckpt_shard_of(const struct ckpt_names *nm, const char *name)
{
	if (nm->map) {
		json_object *v;
		if (!json_object_object_get_ex(nm->map, name, &v))
			return NULL;
		/* a non-string is reported by the caller as a bad shard */
		return json_object_is_type(v, json_type_string)
		               ? json_object_get_string(v)
		               : "";
	}
	size_t *idx = NULL, n = 0;
	if (ha_weights_select(nm->single, name, &idx, &n, NULL) != HA_OK)
		return NULL;
	free(idx);
	return CKPT_SINGLE;
}

enum ha_status ckpt_names_each(const struct ckpt_names *nm,
                               enum ha_status (*fn)(const char *name,
                                                    const char *shard,
                                                    void *ctx),
                               void *ctx)
{
	enum ha_status st = HA_OK;
	if (nm->map) {
		json_object_object_foreach(nm->map, key, val) {
			st = fn(key, json_object_is_type(val, json_type_string)
			                     ? json_object_get_string(val)
			                     : "", ctx);
			if (st != HA_OK)
				return st;
		}
		return HA_OK;
	}
	for (size_t i = 0; i < ha_weights_count(nm->single) && st == HA_OK;
	     i++) {
		struct ha_tensor_info info;
		ha_weights_info(nm->single, i, &info);
		st = fn(info.name, CKPT_SINGLE, ctx);
	}
	return st;
}

void ckpt_shard_close(struct ckpt_shard *o)
{
	if (!o->cache)
		ha_weights_free(o->w);
	free(o->name);
	free(o->real);
	struct ha_checkpoint_shards **cache = o->cache;
	memset(o, 0, sizeof *o);
	o->cache = cache;
}

/* Make *o the shard `file` open (reopened only when file changes). */
static enum ha_status shard_use(const struct ckpt_dir *d, struct ckpt_shard *o,
                                const char *file, struct ha_error *err)
{
	if (o->name && strcmp(o->name, file) == 0)
		return HA_OK;
	ckpt_shard_close(o);
	o->name = strdup(file);
	if (!o->name)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	enum ha_status st = ckpt_locate(d, file, 1, &o->real, err);
	if (st == HA_OK && !o->real)
		st = ckpt_fail(d, err, HA_EFORMAT, file,
		               "missing: %s names it, but the directory has no "
		               "such file", CKPT_INDEX);
	else if (st == HA_OK &&
	         (st = o->cache ? ckpt_open_shard(o->cache, o->real, &o->w, err)
	                        : ha_weights_open(o->real, &o->w, err)) !=
	                 HA_OK &&
	         err)
		ckpt_fail(d, err, st, file, "%s", err->message); /* which shard */
	if (st != HA_OK)
		ckpt_shard_close(o);
	return st;
}

enum ha_status ckpt_shard_tensor(const struct ckpt_dir *d,
                                 struct ckpt_shard *o, const char *file,
                                 const char *name, struct ha_tensor_info *info,
                                 struct ha_error *err)
{
	if (!*file)
		return ckpt_fail(d, err, HA_EFORMAT, CKPT_INDEX,
		                 "the shard of '%s' is not a file name", name);
	enum ha_status st = shard_use(d, o, file, err);
	if (st != HA_OK)
		return st;
	size_t *idx = NULL, n = 0;
	if (ha_weights_select(o->w, name, &idx, &n, NULL) != HA_OK)
		return ckpt_fail(d, err, HA_EFORMAT, file, "has no tensor '%s'%s",
		                 name, strcmp(file, CKPT_SINGLE) == 0
		                               ? ""
		                               : ", which the index puts there");
	ha_weights_info(o->w, idx[0], info);
	free(idx);
	return HA_OK;
}

enum ha_status ckpt_layer_set(struct ha_checkpoint_layer *ly,
                              const struct ckpt_shard *o, const char *name,
                              uint64_t rows, uint64_t cols,
                              struct ha_error *err)
{
	ly->shard = strdup(o->real);
	ly->shard_name = strdup(o->name);
	ly->tensor = strdup(name);
	ly->rows = rows;
	ly->cols = cols;
	if (!ly->shard || !ly->shard_name || !ly->tensor)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	return HA_OK;
}

/* ------------------------------------------- shards open for reading */

struct ha_checkpoint_shards {
	char *path[CKPT_OPEN_SHARDS];
	struct ha_weights *w[CKPT_OPEN_SHARDS];
	struct stat st[CKPT_OPEN_SHARDS]; /* the file when its header was read */
	size_t next; /* the slot to reuse next */
};

/* The file at path is still the one whose header was read: same file,
 * size and modification time (else its header is read again). */
static int unchanged(const char *path, const struct stat *was)
{
	struct stat now;
	return stat(path, &now) == 0 && now.st_dev == was->st_dev &&
	       now.st_ino == was->st_ino && now.st_size == was->st_size &&
	       now.st_mtim.tv_sec == was->st_mtim.tv_sec &&
	       now.st_mtim.tv_nsec == was->st_mtim.tv_nsec;
}

enum ha_status ckpt_open_shard(struct ha_checkpoint_shards **cache,
                               const char *path, struct ha_weights **w,
                               struct ha_error *err)
{
	*w = NULL;
	if (!*cache && !(*cache = calloc(1, sizeof **cache)))
		return ha_fail(err, HA_ENOMEM, "out of memory");
	struct ha_checkpoint_shards *k = *cache;
	int changed = 0; /* open before, and rewritten since */
	for (size_t i = 0; i < CKPT_OPEN_SHARDS; i++)
		if (k->path[i] && strcmp(k->path[i], path) == 0) {
			if (unchanged(path, &k->st[i])) {
				*w = k->w[i];
				return HA_OK;
			}
			changed = 1;
			free(k->path[i]);
			ha_weights_free(k->w[i]);
			k->path[i] = NULL;
			k->w[i] = NULL;
			k->next = i;
			break;
		}
	size_t slot = k->next;
	k->next = (k->next + 1) % CKPT_OPEN_SHARDS;
	free(k->path[slot]);
	ha_weights_free(k->w[slot]);
	k->w[slot] = NULL;
	k->path[slot] = strdup(path);
	if (!k->path[slot])
		return ha_fail(err, HA_ENOMEM, "out of memory");
	enum ha_status st = stat(path, &k->st[slot]) == 0
	                            ? ha_weights_open(path, &k->w[slot], err)
	                            : ha_fail(err, HA_EIO, "cannot open: %s",
	                                      strerror(errno));
	if (st != HA_OK) {
		free(k->path[slot]);
		k->path[slot] = NULL;
		/* Valid when the directory was read: a race, not bad input. */
		if (changed && st != HA_ENOMEM && err) {
			char why[HA_ERROR_MESSAGE_MAX];
			snprintf(why, sizeof why, "%s", err->message);
			st = ha_fail(err, HA_EIO, "changed while the directory "
			             "was being read (rewritten by another "
			             "process?): %s", why);
		}
		return st;
	}
	*w = k->w[slot];
	return HA_OK;
}

void ckpt_open_shards_free(struct ha_checkpoint_shards *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < CKPT_OPEN_SHARDS; i++) {
		free(cache->path[i]);
		ha_weights_free(cache->w[i]);
	}
	free(cache);
}
