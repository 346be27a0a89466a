/* Key projections known by name, and cutting the key block out of a
 * tensor that fuses keys with queries and values: the one code path of
 * the presets (ha_checkpoint_read_keys) and of --fused for any file
 * (library-internal; see checkpoint.h). */
#ifndef HEADALLOC_KEY_BLOCK_H
#define HEADALLOC_KEY_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/checkpoint.h>
#include <headalloc/error.h>
#include <headalloc/status.h>

/* 1 when name ends (after a '.', or whole) in the key tensor of one of
 * the presets: of those that fuse keys with queries and values when
 * `fused`, else of those with keys of their own ("k_proj.weight",
 * "key.weight", ...). */
int ckpt_key_name(const char *name, int fused);

/* The names ckpt_key_name knows, for messages: "k_proj.weight, key.weight, k.weight
 * or k_lin.weight". */
const char *ckpt_key_names(int fused);

/* Where the keys are in a tensor's outputs. */
struct ckpt_key_slice {
	enum ha_key_fusion fusion;
	size_t head_dim;   /* d_k */
	size_t key_offset; /* key head h starts at output */
	size_t key_stride; /*   key_offset + h key_stride */
};

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

/* Compact the key block (key_heads heads of head_dim outputs, head h at
 * output key_offset + h key_stride) of a tensor of `width` outputs and
 * model_dim inputs in `layout`, row-major, to the front of data, in
 * place: it becomes key_heads * head_dim x model_dim (out-in) or
 * model_dim x key_heads * head_dim (in-out). */
void ckpt_key_cut(double *data, size_t width, size_t model_dim,
                  enum ha_layout layout, size_t key_heads,
                  const struct ckpt_key_slice *s);

#endif
