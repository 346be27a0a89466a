/* Files of a model directory, read as hostile input (library-internal;
 * see checkpoint.h). */
#ifndef HEADALLOC_CHECKPOINT_INTERNAL_H
#define HEADALLOC_CHECKPOINT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <headalloc/checkpoint.h>
#include <headalloc/error.h>
#include <headalloc/status.h>
#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "tensors/model_dir.h"

/* The files a model directory is read from. */
#define CKPT_CONFIG "config.json"
#define CKPT_INDEX "model.safetensors.index.json"
#define CKPT_SINGLE "model.safetensors"

/* The tensor directory of a model: the index's weight_map, or the
 * single model.safetensors when there is no index. */
struct ckpt_names {
	json_object *index;        /* the parsed index, or NULL */
	json_object *map;          /* its weight_map (owned by index) */
	struct ha_weights *single; /* model.safetensors, or NULL */
	int both; /* model.safetensors is read, and an index is there too */
};

/* The warning a plan carries about *nm ("" when none). */
void ckpt_names_warn(const struct ckpt_names *nm, char *out, size_t size);

/* Open model.safetensors (as transformers does), or else read the index, into *nm (zero it
 * first; close it with ckpt_names_close whatever the status).  Neither
 * file: HA_EIO, or HA_EUNSUPPORTED when there is a pytorch_model.bin. */
enum ha_status ckpt_names_open(const struct ckpt_dir *d,
                               struct ckpt_names *nm, struct ha_error *err);
void ckpt_names_close(struct ckpt_names *nm);

/* The shard file that holds tensor `name` (CKPT_SINGLE without an
 * index), "" when the index gives a non-string, or NULL when no file
 * has it. */
const char *ckpt_shard_of(const struct ckpt_names *nm, const char *name);

/* Call fn(name, shard, ctx) for every tensor name of the directory (the
 * index's keys, or the single file's tensors), in no particular order;
 * stops at and returns the first status other than HA_OK. */
enum ha_status ckpt_names_each(const struct ckpt_names *nm,
                               enum ha_status (*fn)(const char *name,
                                                    const char *shard,
                                                    void *ctx),
                               void *ctx);

/* The shard whose headers are being checked (one open at a time). */
struct ckpt_shard {
	char *name;           /* as the index names it */
	char *real;           /* its resolved path */
	struct ha_weights *w; /* owned, or borrowed from *cache */
	struct ha_checkpoint_shards **cache; /* NULL, or the plan's shards
	                                        (ckpt_open_shard) */
};

/* Make *o the shard `file` open (reopened only when file changes) and
 * describe its tensor `name` into *info.  An index entry that is not a
 * file name, a shard the index names but the directory lacks and a
 * shard without the tensor are HA_EFORMAT (the directory is
 * inconsistent), other failures those of ckpt_locate and
 * ha_weights_open, named after the shard. */
enum ha_status ckpt_shard_tensor(const struct ckpt_dir *d,
                                 struct ckpt_shard *o, const char *file,
                                 const char *name, struct ha_tensor_info *info,
                                 struct ha_error *err);
void ckpt_shard_close(struct ckpt_shard *o);

/* Layer *ly of a plan: tensor `name` of the shard open in o, rows x
 * cols.  HA_ENOMEM. */
enum ha_status ckpt_layer_set(struct ha_checkpoint_layer *ly,
                              const struct ckpt_shard *o, const char *name,
                              uint64_t rows, uint64_t cols,
                              struct ha_error *err);

/* The shards a plan keeps open for ha_checkpoint_read_keys: *cache (NULL
 * at first) holds the last CKPT_OPEN_SHARDS opened.  *w is the shard at
 * path (resolved), opened unless already open; owned by the cache. */
#define CKPT_OPEN_SHARDS 16
enum ha_status ckpt_open_shard(struct ha_checkpoint_shards **cache,
                               const char *path, struct ha_weights **w,
                               struct ha_error *err);
void ckpt_open_shards_free(struct ha_checkpoint_shards *cache);

/* ---- key projections known by name, and cutting the key block out of
 * a tensor that fuses keys with queries and values: the one code path of
 * the presets (ha_checkpoint_read_keys) and of --fused for any file
 * (key_block.c). */

/* 1 when name ends (after a '.', or whole) in the key tensor of one of
 * the presets: of those that fuse keys with queries and values when
 * `fused`, else of those with keys of their own ("k_proj.weight",
 * "key.weight", ...). */
int ckpt_key_name(const char *name, int fused);

/* The names ckpt_key_name knows, for messages: "k_proj.weight,
 * key.weight, k.weight or k_lin.weight". */
const char *ckpt_key_names(int fused);

/* Where the keys (or queries) are in a tensor's outputs: head h starts
 * at ckpt_head_at(s, h). */
struct ckpt_key_slice {
	enum ha_key_fusion fusion;
	size_t head_dim;   /* d_k */
	size_t key_offset; /* head h starts at output key_offset + */
	size_t key_stride; /*   h / group key_stride + h % group head_dim, */
	size_t group;      /*   a group 0 meaning 1 (keys) */
};

static inline size_t ckpt_head_at(const struct ckpt_key_slice *s, size_t h)
{
	size_t g = s->group ? s->group : 1;
	return s->key_offset + h / g * s->key_stride + h % g * s->head_dim;
}

/* The slice of the keys cut into `heads` heads of a tensor named name with
 * `outputs` outputs that holds what `fused` says in `order`: q|k|v
 * concatenated, keys [D, 2D) of 3D; k|v, [0, D) of 2D; per head, head h's
 * keys at h 3d + d (q|k|v) or h 2d (k|v); none, the whole tensor.
 * HA_EINVAL (outputs not a multiple of 3 or 2, heads not dividing the
 * key block) with a message naming the tensor. */
enum ha_status ckpt_key_slice(const char *name, enum ha_fused fused,
                              enum ha_fused_order order, uint64_t outputs,
                              size_t heads, struct ckpt_key_slice *s,
                              struct ha_error *err);

/* Compact the key block (key_heads heads of head_dim outputs, as s
 * places them) of a tensor of `width` outputs and model_dim inputs in
 * `layout`, row-major, to the front of data, in place: it becomes
 * key_heads * head_dim x model_dim (out-in) or model_dim x key_heads *
 * head_dim (in-out). */
void ckpt_key_cut(double *data, size_t width, size_t model_dim,
                  enum ha_layout layout, size_t key_heads,
                  const struct ckpt_key_slice *s);

/* Read layer `layer` of the plan and cut out its key block: a new array,
 * freed with free(), of key_heads * head_dim x model_dim (out-in) or
 * model_dim x key_heads * head_dim (in-out) doubles, as c->layout says;
 * *rows and *cols give its shape.  Only the one tensor is in memory,
 * and the block is compacted in place.  The plan keeps the last few
 * shards open (each header parsed once; closed by ha_checkpoint_free),
 * so a plan is read by one thread at a time.  Errors: those of
 * ha_weights_open and ha_weights_read (err->file is then the layer's
 * shard path, owned by the plan), HA_EFORMAT if the tensor changed since
 * the plan was made, HA_EINVAL (NULL, layer out of range); then *out is
 * NULL. */
enum ha_status ha_checkpoint_read_keys(const struct ha_checkpoint *c,
                                       size_t layer, double **out,
                                       size_t *rows, size_t *cols,
                                       struct ha_error *err);

/* "separate", "concatenated q|k|v", "per-head q,k,v", "grouped q..,k,v". */
const char *ha_key_fusion_str(enum ha_key_fusion fusion);

/* Read layer `layer`'s query projection and cut out its query heads: a
 * new array, freed with free(), of query_heads * head_dim x model_dim
 * (out-in) or its transpose (in-out), query head q at outputs q d_k ..
 * q d_k + d_k - 1, in the order that puts the query heads of key head h
 * at q = h g .. h g + g - 1 (g = query_heads / key_heads; Hugging Face's
 * repeat_kv).  Where the queries are: in the key tensor when it is fused
 * (all q first; per head; each key group's q first), else in the tensor
 * whose name is the key tensor's with its last "k_proj" made "q_proj"
 * (".key." ".query.", ".k." ".q."), looked for in the key's shard, then
 * in the plan's other shards.  Errors: HA_EINVAL (NULL, layer out of
 * range), HA_EUNSUPPORTED (a key tensor name with no query name beside
 * it: a plan of ha_checkpoint_open_tensors), HA_EFORMAT (no such query
 * tensor in the plan's shards, or one too narrow: err->file is the
 * layer's shard), those of ha_weights_read; then *out is NULL. */
enum ha_status ha_checkpoint_read_queries(const struct ha_checkpoint *c,
                                          size_t layer, double **out,
                                          size_t *rows, size_t *cols,
                                          struct ha_error *err);

#endif
