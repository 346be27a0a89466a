/* The per-architecture presets of model directories: where each model
 * type keeps its key projections and how config.json gives their shape
 * (library-internal; see checkpoint.h). */
#ifndef HEADALLOC_CHECKPOINT_PRESETS_H
#define HEADALLOC_CHECKPOINT_PRESETS_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <headalloc/checkpoint.h>

#include "checkpoint_internal.h"

/* A stack of layers: its key tensors are named OUTER STEM N TAIL. */
struct ckpt_stack {
	const char *role, *stem, *tail;
	int optional; /* absent altogether: skipped (T5 without a decoder) */
};

/* How a family of model types stores its keys. */
enum ckpt_family {
	FAM_LLAMA,  /* a k_proj of its own; key heads num_key_value_heads */
	FAM_GPT2,   /* c_attn in-out, q|k|v concatenated */
	FAM_QKV,    /* one out-in q|k|v tensor, concatenated (Phi-3, MPT) */
	FAM_NEOX,   /* out-in, per head (q_h, k_h, v_h) (GPT-NeoX, BLOOM) */
	FAM_FALCON, /* as the config's flags say */
	FAM_BERT,   /* a key tensor of its own, one key head per query head */
	FAM_T5      /* d_kv, an optional decoder */
};

struct ckpt_preset {
	const char *type; /* config.json's model_type */
	enum ckpt_family family;
	const struct ckpt_stack *stacks;
	size_t nstacks;
};

/* The preset of model_type `type`, or NULL. */
const struct ckpt_preset *ckpt_preset_find(const char *type);

/* "llama, mistral, ...": every model type with a preset. */
extern const char ckpt_preset_list[];

/* A multimodal configuration whose text model is a preset's: the text
 * model's fields are under `section` of config.json (and its own
 * model_type there, when given, is text_type), its layers' tensors under
 * one of `outers` (NULL-terminated). */
struct ckpt_wrapper {
	const char *type, *text_type, *section;
	const char *const *outers;
};

/* The wrapper of model_type `type`, or NULL. */
const struct ckpt_wrapper *ckpt_wrapper_find(const char *type);

/* What config.json says of a preset's layers beside the plan's fields. */
struct ckpt_shape {
	size_t layers, decoder;
	uint64_t rows, cols; /* of every key tensor */
};

/* Read the shape of preset p's keys from cfg, config.json's object
 * `section` (NULL: config.json itself; named in the messages), into the
 * plan's model_dim .. key_stride and *s.  HA_EFORMAT (a missing or
 * ill-typed field, heads that do not divide), naming the field. */
enum ha_status ckpt_read_shape(const struct ckpt_dir *d, json_object *cfg,
                               const char *section,
                               const struct ckpt_preset *p,
                               struct ha_checkpoint *c, struct ckpt_shape *s,
                               struct ha_error *err);

#endif
