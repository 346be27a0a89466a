/* headalloc — Hugging Face model directories: where each layer's key
 * projection is, and how to cut it out.
 *
 * A model directory holds config.json and either model.safetensors or
 * model.safetensors.index.json with the shards it names.  config.json's
 * model_type picks a preset (the tensor names, their layout, how keys are
 * fused with queries and values); its head counts, hidden size and head
 * dimension give the shapes, which every key tensor must have.  Presets:
 *
 *   llama mistral mixtral qwen2 qwen3 gemma gemma2 gemma3_text phi
 *   starcoder2 olmo   model.layers.N.self_attn.k_proj.weight
 *       [kv_heads d_k, d_model] out-in; kv heads num_key_value_heads
 *       (grouped-query when fewer than the query heads), d_k head_dim
 *       or hidden_size / num_attention_heads
 *   opt            model.decoder.layers.N.self_attn.k_proj.weight
 *   gptj           transformer.h.N.attn.k_proj.weight
 *   phi3           model.layers.N.self_attn.qkv_proj.weight
 *                  [(H + 2 kv) d_k, d_model] out-in, q|k|v concatenated
 *   mpt            transformer.blocks.N.attn.Wqkv.weight [3 d_model,
 *                  d_model] out-in, q|k|v concatenated
 *   bloom          h.N.self_attention.query_key_value.weight, per head
 *                  (q_h, k_h, v_h) as gpt_neox
 *   distilbert     distilbert.transformer.layer.N.attention.k_lin.weight
 *   gpt2           h.N.attn.c_attn.weight [d_model, 3 d_model] in-out,
 *                  q|k|v concatenated along the outputs
 *   gpt_neox       gpt_neox.layers.N.attention.query_key_value.weight
 *                  [3 d_model, d_model] out-in, per head (q_h, k_h, v_h)
 *   falcon (also RefinedWeb, RefinedWebModel)
 *                  transformer.h.N.self_attention.query_key_value.weight
 *                  [(H + 2 kv) d_k, d_model] out-in: new_decoder_architecture
 *                  groups (q x H/kv, k, v) per key head; multi_query is
 *                  q x H | k | v with one key head; otherwise per head
 *                  (q_h, k_h, v_h)
 *   bert roberta   (bert.|roberta.)encoder.layer.N.attention.self.key.weight
 *   t5             encoder.block.N.layer.0.SelfAttention.k.weight, and
 *                  when the checkpoint has a decoder, decoder.block.N.layer.0
 *                  .SelfAttention.k.weight and .layer.1.EncDecAttention.k
 *                  .weight; d_k is d_kv
 *
 * Every type but t5 takes d_k from config.json's head_dim when it has
 * one.
 *
 * A name may also carry one of the prefixes "model.", "transformer.",
 * the model_type + "." (gpt2's "transformer.h.N...", bert's
 * "bert.encoder..."); the first spelling found for layer 0 is used for
 * every layer.
 *
 * When the directory has both model.safetensors and the index,
 * model.safetensors is measured, as transformers loads it, and the plan's
 * warning says so.
 *
 * Every file is hostile: config.json and the index are read whole only
 * below HA_CHECKPOINT_MAX_CONFIG / HA_CHECKPOINT_MAX_INDEX bytes; a file
 * named by the index must be a relative path without "..", and every file
 * read must resolve (symlinks followed) to a regular file inside the
 * directory, or, for a Hugging Face cache snapshot (CACHE/snapshots/REV),
 * inside CACHE/blobs, which must itself be a directory of CACHE, not a
 * symbolic link.  config.json and the index are strict JSON, as the
 * safetensors header is (no comments, single quotes, trailing commas,
 * leading zeros, NaN, \u0000 or key given twice).  Each shard's header is
 * parsed once to make the plan, whatever the number of layers it holds.  Opening checks each layer's tensor in
 * its shard's header (present, 2-D, the shape the config implies).
 *
 * Errors fill struct ha_error with err->file = the directory as the
 * caller passed it, and a message that starts with the file inside it
 * ("config.json:3:17: ...", "model-00002-of-00002.safetensors: ..."):
 * HA_EIO (config.json or the weights missing, a file unreadable),
 * HA_EFORMAT (malformed JSON, a missing or ill-typed config field, a
 * shard the index names but the directory lacks, a tensor the index
 * names but its shard lacks, a shape that disagrees with the config, a
 * file that escapes the directory), HA_EUNSUPPORTED (an unknown model_type, a
 * directory with only pytorch_model.bin), HA_ENOMEM, HA_EINVAL (NULL). */
#ifndef HEADALLOC_CHECKPOINT_H
#define HEADALLOC_CHECKPOINT_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest config.json read: 4 MiB (real ones are a few KiB). */
#define HA_CHECKPOINT_MAX_CONFIG ((size_t)4 << 20)
/* The largest model.safetensors.index.json read: 64 MiB. */
#define HA_CHECKPOINT_MAX_INDEX ((size_t)64 << 20)
/* The most layers (per stack), heads and the largest dimension accepted
 * from a config. */
#define HA_CHECKPOINT_MAX_LAYERS 4096
#define HA_CHECKPOINT_MAX_HEADS 65536
#define HA_CHECKPOINT_MAX_DIM ((size_t)1 << 20)

/* How a 2-D projection weight is stored. */
enum ha_layout {
	HA_LAYOUT_OUT_IN, /* [outputs, d_model]: PyTorch nn.Linear (default) */
	HA_LAYOUT_IN_OUT  /* [d_model, outputs]: GPT-2 Conv1D, JAX/Flax */
};

/* How the key projection shares its tensor.  Key head h occupies outputs
 * key_offset + h key_stride .. + d_k - 1 of the tensor in every case. */
enum ha_key_fusion {
	HA_FUSION_SEPARATE,     /* a key tensor of its own */
	HA_FUSION_CONCATENATED, /* all q | all k | all v */
	HA_FUSION_PER_HEAD,     /* (q_h, k_h, v_h) for each head (GPT-NeoX) */
	HA_FUSION_GROUPED       /* (q x H/kv, k, v) for each key head (Falcon) */
};

/* What a tensor chosen by name holds along its outputs (--fused): the
 * keys alone, q|k|v or k|v; and in which order (--fused-order): each
 * part whole, one after the other (concat: the keys are outputs [D, 2D)
 * of q|k|v, [0, D) of k|v), or head by head (per-head, as GPT-NeoX and
 * BLOOM: head h's keys at h 3d + d of q|k|v, at h 2d of k|v). */
enum ha_fused { HA_FUSED_NONE, HA_FUSED_QKV, HA_FUSED_KV };
enum ha_fused_order { HA_FUSED_CONCAT, HA_FUSED_PER_HEAD };

/* One key projection to measure. */
struct ha_checkpoint_layer {
	size_t block;     /* the layer's number within its stack */
	const char *role; /* "self-attention", "encoder self-attention",
	                     "decoder self-attention" or "decoder
	                     cross-attention" (static) */
	char *shard;      /* the file holding the tensor: its resolved
	                     path, which ha_checkpoint_read_keys reads */
	char *shard_name; /* its name in the directory ("model.safetensors",
	                     "model-00001-of-00002.safetensors") */
	char *tensor;     /* the tensor's name */
	uint64_t rows, cols; /* its shape on disk */
};

/* A model directory's plan: what to read and how to cut keys out. */
struct ha_checkpoint {
	char *model_type;
	size_t model_dim;   /* d_model */
	size_t query_heads; /* H of the attention */
	size_t key_heads;   /* the heads the HDI compares: key heads */
	size_t head_dim;    /* d_k */
	enum ha_layout layout;
	enum ha_key_fusion fusion;
	size_t key_offset, key_stride; /* see enum ha_key_fusion */
	/* Why key_heads heads: "8 key heads (grouped-query: 32 query heads
	 * share them)". */
	char reason[160];
	size_t count;                       /* layers, in model order */
	struct ha_checkpoint_layer *layers;
	/* "" or a warning about the directory, for the caller to show:
	 * "model.safetensors and model.safetensors.index.json are both
	 * here: ..." */
	char warning[200];
	/* private: the shards ha_checkpoint_read_keys keeps open, so that
	 * a shard's header is parsed once, not once per layer */
	struct ha_checkpoint_shards *open_shards;
};

/* Read dir's config.json and index (or model.safetensors) and check every
 * key tensor's header; tensor data is not read.  On HA_OK *out owns a plan
 * to free with ha_checkpoint_free(); on failure *out is NULL and err says
 * what is wrong (see above). */
HA_API enum ha_status ha_checkpoint_open(const char *dir,
                                         struct ha_checkpoint **out,
                                         struct ha_error *err);

/* A plan of the tensors of dir chosen by name, for what no preset
 * covers (an architecture without one, or tensors other than the keys,
 * such as the queries): the tensors of the index (or model.safetensors)
 * whose names match pattern (fnmatch(3), no flags; a name that exists
 * selects that tensor alone), in natural order of their names (layer 2
 * before layer 10), each read whole as `heads` heads in `layout`
 * (fusion separate, key_heads = query_heads = heads, head_dim = the
 * outputs / heads).  config.json is not needed: model_type is its
 * model_type when it has a readable one, else "".  Every layer's role is
 * "selected" and its block its place in that order.  Errors: those of
 * ha_checkpoint_open about the index and the shards; HA_EINVAL for NULL,
 * heads 0 or above HA_CHECKPOINT_MAX_HEADS, a pattern matching nothing,
 * heads not dividing the outputs, tensors of different shapes;
 * HA_EUNSUPPORTED for a tensor named exactly, or every tensor matched,
 * that is not 2-D.  A pattern passes by the tensors it matches that are
 * not 2-D, and the plan's warning says how many. */
HA_API enum ha_status ha_checkpoint_open_tensors(const char *dir,
                                                 const char *pattern,
                                                 size_t heads,
                                                 enum ha_layout layout,
                                                 struct ha_checkpoint **out,
                                                 struct ha_error *err);

/* Make a plan of ha_checkpoint_open_tensors read the keys of fused
 * tensors: each tensor holds what `fused` says in `order` (above), and
 * its key block is cut into the plan's key_heads heads (fusion,
 * head_dim, key_offset and key_stride change; HA_FUSED_NONE changes
 * nothing).  HA_EINVAL for NULL, a plan whose keys are already cut out
 * (a preset's), outputs that are not a multiple of 3 (q|k|v) or 2 (k|v),
 * or heads that do not divide the key block; then the plan is as it
 * was. */
HA_API enum ha_status ha_checkpoint_fuse(struct ha_checkpoint *c,
                                         enum ha_fused fused,
                                         enum ha_fused_order order,
                                         struct ha_error *err);

/* Free a plan; NULL is accepted. */
HA_API void ha_checkpoint_free(struct ha_checkpoint *c);

#ifdef __cplusplus
}
#endif
#endif
