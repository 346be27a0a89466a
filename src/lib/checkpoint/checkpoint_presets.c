/* The per-architecture presets of model directories: the tensor names of
 * each model type's key projections and what config.json says of their
 * shape (see checkpoint.h and checkpoint_presets.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/error_internal.h"
#include "checkpoint_presets.h"
#include "tensors/json_strict.h"

#define SELF "self-attention"

static const struct ckpt_stack S_LLAMA[] = {
	{SELF, "layers.", ".self_attn.k_proj.weight", 0}};
static const struct ckpt_stack S_OPT[] = {
	{SELF, "decoder.layers.", ".self_attn.k_proj.weight", 0}};
static const struct ckpt_stack S_GPTJ[] = {
	{SELF, "h.", ".attn.k_proj.weight", 0}};
static const struct ckpt_stack S_PHI3[] = {
	{SELF, "layers.", ".self_attn.qkv_proj.weight", 0}};
static const struct ckpt_stack S_MPT[] = {
	{SELF, "blocks.", ".attn.Wqkv.weight", 0}};
static const struct ckpt_stack S_GPT2[] = {
	{SELF, "h.", ".attn.c_attn.weight", 0}};
static const struct ckpt_stack S_NEOX[] = {
	{SELF, "layers.", ".attention.query_key_value.weight", 0}};
static const struct ckpt_stack S_FALCON[] = { /* and BLOOM */
	{SELF, "h.", ".self_attention.query_key_value.weight", 0}};
static const struct ckpt_stack S_BERT[] = {
	{SELF, "encoder.layer.", ".attention.self.key.weight", 0}};
static const struct ckpt_stack S_DISTILBERT[] = {
	{SELF, "transformer.layer.", ".attention.k_lin.weight", 0}};
static const struct ckpt_stack S_T5[] = {
	{"encoder self-attention", "encoder.block.",
	 ".layer.0.SelfAttention.k.weight", 0},
	{"decoder self-attention", "decoder.block.",
	 ".layer.0.SelfAttention.k.weight", 1},
	{"decoder cross-attention", "decoder.block.",
	 ".layer.1.EncDecAttention.k.weight", 1},
};

#define ONE(s) s, 1
static const struct ckpt_preset PRESETS[] = {
	{"llama", FAM_LLAMA, ONE(S_LLAMA)},
	{"mistral", FAM_LLAMA, ONE(S_LLAMA)},
	{"mixtral", FAM_LLAMA, ONE(S_LLAMA)},
	{"qwen2", FAM_LLAMA, ONE(S_LLAMA)},
	{"qwen3", FAM_LLAMA, ONE(S_LLAMA)},
	{"gemma", FAM_LLAMA, ONE(S_LLAMA)},
	{"gemma2", FAM_LLAMA, ONE(S_LLAMA)},
	{"gemma3_text", FAM_LLAMA, ONE(S_LLAMA)},
	{"phi", FAM_LLAMA, ONE(S_LLAMA)},
	{"phi3", FAM_QKV, ONE(S_PHI3)},
	{"starcoder2", FAM_LLAMA, ONE(S_LLAMA)},
	{"olmo", FAM_LLAMA, ONE(S_LLAMA)},
	{"opt", FAM_LLAMA, ONE(S_OPT)},
	{"gptj", FAM_LLAMA, ONE(S_GPTJ)},
	{"gpt2", FAM_GPT2, ONE(S_GPT2)},
	{"gpt_neox", FAM_NEOX, ONE(S_NEOX)},
	{"bloom", FAM_NEOX, ONE(S_FALCON)},
	{"falcon", FAM_FALCON, ONE(S_FALCON)},
	{"RefinedWeb", FAM_FALCON, ONE(S_FALCON)},
	{"RefinedWebModel", FAM_FALCON, ONE(S_FALCON)},
	{"mpt", FAM_QKV, ONE(S_MPT)},
	{"bert", FAM_BERT, ONE(S_BERT)},
	{"roberta", FAM_BERT, ONE(S_BERT)},
	{"distilbert", FAM_BERT, ONE(S_DISTILBERT)},
	{"t5", FAM_T5, S_T5, 3},
};
#define NPRESETS (sizeof PRESETS / sizeof PRESETS[0])

const struct ckpt_preset *ckpt_preset_find(const char *type)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(PRESETS[i].type, type) == 0)
			return &PRESETS[i];
	return NULL;
}

static const char *const GEMMA3_OUTERS[] = {
	"language_model.model.", /* as the Hub's files name them */
	"model.language_model.", /* as transformers >= 4.52 saves them */
	NULL};

static const struct ckpt_wrapper WRAPPERS[] = {
	{"gemma3", "gemma3_text", "text_config", GEMMA3_OUTERS},
};

const struct ckpt_wrapper *ckpt_wrapper_find(const char *type)
{
	for (size_t i = 0; i < sizeof WRAPPERS / sizeof WRAPPERS[0]; i++)
		if (strcmp(WRAPPERS[i].type, type) == 0)
			return &WRAPPERS[i];
	return NULL;
}

const char ckpt_preset_list[] =
	"llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, gemma3_text, "
	"phi, phi3, starcoder2, olmo, opt, gptj, gpt2, gpt_neox, bloom, "
	"falcon, mpt, bert, roberta, distilbert, t5";

/* ------------------------------------------- key projections by name */

/* The last two dotted parts of a tail: ".attention.self.key.weight" ->
 * "key.weight". */
static const char *leaf_of(const char *tail)
{
	const char *end = tail + strlen(tail), *p = end;
	int dots = 0;
	while (p > tail && dots < 2)
		if (*--p == '.')
			dots++;
	return *p == '.' ? p + 1 : p;
}

static int fused_family(enum ckpt_family f)
{
	return f == FAM_GPT2 || f == FAM_QKV || f == FAM_NEOX ||
	       f == FAM_FALCON;
}

int ckpt_key_name(const char *name, int fused)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < NPRESETS; i++) {
		if (fused_family(PRESETS[i].family) != !!fused)
			continue;
		for (size_t s = 0; s < PRESETS[i].nstacks; s++) {
			const char *leaf = leaf_of(PRESETS[i].stacks[s].tail);
			size_t k = strlen(leaf);
			if (n >= k && strcmp(name + n - k, leaf) == 0 &&
			    (n == k || name[n - k - 1] == '.'))
				return 1;
		}
	}
	return 0;
}

const char *ckpt_key_names(int fused)
{
	return fused ? "c_attn.weight, query_key_value.weight, "
	               "qkv_proj.weight or Wqkv.weight"
	             : "k_proj.weight, key.weight, k.weight or k_lin.weight";
}

/* ------------------------------------------------ the config's say */

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* config.json field `key` (the first of the NULL-terminated aliases that
 * is present and not null) of config.json's object `section` (cfg is
 * that object; NULL: config.json itself), named SECTION.KEY in the
 * messages, as a whole number in [lo, hi] into *out.  Absent: HA_EFORMAT
 * when required, else HA_OK with *out = fallback. */
static enum ha_status config_size(const struct ckpt_dir *d, json_object *cfg,
                                  const char *section,
                                  const char *const *keys, int required,
                                  size_t fallback, size_t lo, size_t hi,
                                  size_t *out, struct ha_error *err)
{
	json_object *v = NULL;
	const char *found = keys[0];
	for (const char *const *k = keys; *k; k++)
		if (json_object_object_get_ex(cfg, *k, &v) && v) {
			found = *k;
			break;
		}
	char key[96]; /* as the messages name it: SECTION.KEY */
	snprintf(key, sizeof key, "%s%s%s", section ? section : "",
	         section ? "." : "", found);
	if (!v) {
		*out = fallback;
		if (!required)
			return HA_OK;
		return ckpt_fail(d, err, HA_EFORMAT, "config.json",
		                 "no '%s', which this model type needs", key);
	}
	/* Each refusal names the rule the value breaks, and quotes it as
	 * written (an integer beyond 64 bits too: json_strict.h). */
	const char *shown = json_object_to_json_string_ext(
	        v, JSON_C_TO_STRING_PLAIN);
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return ckpt_fail(d, err, HA_EFORMAT, "config.json",
		                 "'%s' is %.40s, not a number; it must be a whole "
		                 "number from %zu to %zu", key, shown, lo, hi);
	if (json_object_is_type(v, json_type_double))
		return ckpt_fail(d, err, HA_EFORMAT, "config.json",
		                 "'%s' is %.40s, not written as a whole number "
		                 "(no decimal point or exponent)", key, shown);
	int64_t x = json_object_get_int64(v);
	int negative = x < 0 ||
	               (json_strict_int_overflowed(v) && shown[0] == '-');
	if (negative || (uint64_t)x < lo || (uint64_t)x > hi ||
	    json_strict_int_overflowed(v))
		return ckpt_fail(d, err, HA_EFORMAT, "config.json",
		                 "'%s' is %.40s; it must be %s %zu", key, shown,
		                 negative || (uint64_t)x < lo ? "at least"
		                                              : "at most",
		                 negative || (uint64_t)x < lo ? lo : hi);
	*out = (size_t)x;
	return HA_OK;
}

/* config.json boolean field `key`; absent or null: fallback. */
static enum ha_status config_bool(const struct ckpt_dir *d, json_object *cfg,
                                  const char *key, int fallback, int *out,
                                  struct ha_error *err)
{
	json_object *v = NULL;
	*out = fallback;
	if (!json_object_object_get_ex(cfg, key, &v) || !v)
		return HA_OK;
	if (!json_object_is_type(v, json_type_boolean))
		return ckpt_fail(d, err, HA_EFORMAT, "config.json",
		                 "'%s' is %.40s; it must be true or false", key,
		                 json_object_to_json_string_ext(
		                         v, JSON_C_TO_STRING_PLAIN));
	*out = json_object_get_boolean(v);
	return HA_OK;
}

/* MPT's key heads, from attn_config (llm-foundry's attention classes):
 * attn_type multihead_attention, the default, has one per query head
 * (whatever kv_n_heads says: llm-foundry saves its default of 1 there),
 * multiquery_attention one, grouped_query_attention kv_n_heads. */
static enum ha_status mpt_key_heads(const struct ckpt_dir *d,
                                    json_object *cfg, size_t hq,
                                    size_t *out, struct ha_error *err)
{
	json_object *ac = NULL, *t = NULL;
	*out = hq;
	if (!json_object_object_get_ex(cfg, "attn_config", &ac) || !ac)
		return HA_OK;
	if (!json_object_is_type(ac, json_type_object))
		return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
		                 "'attn_config' is %.40s, not an object",
		                 json_object_to_json_string_ext(
		                         ac, JSON_C_TO_STRING_PLAIN));
	const char *type = "multihead_attention";
	if (json_object_object_get_ex(ac, "attn_type", &t) && t) {
		if (!json_object_is_type(t, json_type_string))
			return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
			                 "'attn_config.attn_type' is %.40s, not a "
			                 "string", json_object_to_json_string_ext(
			                         t, JSON_C_TO_STRING_PLAIN));
		type = json_object_get_string(t);
	}
	if (strcmp(type, "multihead_attention") == 0)
		return HA_OK;
	if (strcmp(type, "multiquery_attention") == 0) {
		*out = 1;
		return HA_OK;
	}
	if (strcmp(type, "grouped_query_attention") == 0)
		return config_size(d, ac, "attn_config", KEYS("kv_n_heads"),
		                           1, 0, 1, HA_CHECKPOINT_MAX_HEADS, out,
		                           err);
	return ckpt_fail(d, err, HA_EUNSUPPORTED, CKPT_CONFIG,
	                 "'attn_config.attn_type' is %.40s; the MPT preset "
	                 "reads multihead_attention, multiquery_attention and "
	                 "grouped_query_attention",
	                 json_object_to_json_string_ext(t,
	                                                JSON_C_TO_STRING_PLAIN));
}

enum ha_status ckpt_read_shape(const struct ckpt_dir *d, json_object *cfg,
                               const char *section,
                               const struct ckpt_preset *p,
                               struct ha_checkpoint *c, struct ckpt_shape *s,
                               struct ha_error *err)
{
	const size_t D = HA_CHECKPOINT_MAX_DIM, H = HA_CHECKPOINT_MAX_HEADS;
	const size_t L = HA_CHECKPOINT_MAX_LAYERS;
	const enum ckpt_family fam = p->family;
	enum ha_status st;
	memset(s, 0, sizeof *s);
#define NEED(keys, req, fb, lo, hi, out)                                      \
	do {                                                                  \
		st = config_size(d, cfg, section, keys, req, fb, lo,  \
		                         hi, out, err);                       \
		if (st != HA_OK)                                              \
			return st;                                            \
	} while (0)
	NEED(KEYS("hidden_size", "n_embd", "d_model", "n_embed", "dim"), 1, 0,
	     1, D, &c->model_dim);
	NEED(KEYS("num_attention_heads", "n_head", "num_heads", "n_heads"), 1,
	     0, 1, H, &c->query_heads);
	NEED(KEYS("num_hidden_layers", "n_layer", "num_layers", "n_layers"), 1,
	     0, 1, L, &s->layers);
	/* head_dim wherever a config gives one (Gemma, Qwen3: not always
	 * hidden / heads); T5's is d_kv. */
	if (fam == FAM_T5) {
		NEED(KEYS("d_kv"), 1, 0, 1, D, &c->head_dim);
		NEED(KEYS("num_decoder_layers"), 0, s->layers, 0, L,
		     &s->decoder);
	} else {
		NEED(KEYS("head_dim"), 0, 0, 1, D, &c->head_dim);
	}
	if (c->head_dim == 0) {
		if (c->model_dim % c->query_heads != 0)
			return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
			                 "hidden size %zu is not a multiple of the "
			                 "%zu attention heads, and there is no "
			                 "head_dim", c->model_dim, c->query_heads);
		c->head_dim = c->model_dim / c->query_heads;
	}
	size_t hq = c->query_heads, dk = c->head_dim;
	c->key_heads = hq;
	c->layout = HA_LAYOUT_OUT_IN;
	c->fusion = HA_FUSION_SEPARATE;
	c->key_offset = 0;
	c->key_stride = dk;
	if (strcmp(p->type, "mpt") == 0) {
		st = mpt_key_heads(d, cfg, hq, &c->key_heads, err);
		if (st != HA_OK)
			return st;
	} else if (fam == FAM_LLAMA || fam == FAM_QKV) {
		NEED(KEYS("num_key_value_heads"), 0, hq, 1, H, &c->key_heads);
	}
	if (fam == FAM_GPT2) {
		c->layout = HA_LAYOUT_IN_OUT;
		c->fusion = HA_FUSION_CONCATENATED;
		c->key_offset = hq * dk;
	} else if (fam == FAM_QKV) {
		c->fusion = HA_FUSION_CONCATENATED;
		c->key_offset = hq * dk;
	} else if (fam == FAM_NEOX) {
		c->fusion = HA_FUSION_PER_HEAD;
		c->key_offset = dk;
		c->key_stride = 3 * dk;
	} else if (fam == FAM_FALCON) {
		int newarch, mq;
		st = config_bool(d, cfg, "new_decoder_architecture",
		                      strcmp(p->type, "RefinedWeb") == 0, &newarch,
		                      err);
		if (st == HA_OK)
			st = config_bool(d, cfg, "multi_query", 1, &mq, err);
		if (st != HA_OK)
			return st;
		if (newarch) {
			NEED(KEYS("num_kv_heads", "n_head_kv"), 0, hq, 1, H,
			     &c->key_heads);
			c->fusion = HA_FUSION_GROUPED;
		} else if (mq) {
			c->key_heads = 1;
			c->fusion = HA_FUSION_CONCATENATED;
			c->key_offset = hq * dk;
		} else {
			c->fusion = HA_FUSION_PER_HEAD;
			c->key_offset = dk;
			c->key_stride = 3 * dk;
		}
	}
	size_t kv = c->key_heads;
	if (hq % kv != 0)
		return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
		                 "%zu attention heads cannot share %zu key heads "
		                 "evenly", hq, kv);
	if (c->fusion == HA_FUSION_GROUPED) {
		c->key_offset = hq / kv * dk;
		c->key_stride = (hq / kv + 2) * dk;
	}
	/* The outputs of the tensor holding the keys. */
	uint64_t outputs = (uint64_t)kv * dk;
	if (c->fusion == HA_FUSION_CONCATENATED ||
	    c->fusion == HA_FUSION_GROUPED)
		outputs = ((uint64_t)hq + 2 * (uint64_t)kv) * dk;
	else if (c->fusion == HA_FUSION_PER_HEAD)
		outputs = 3 * (uint64_t)hq * dk;
	s->rows = c->layout == HA_LAYOUT_OUT_IN ? outputs : c->model_dim;
	s->cols = c->layout == HA_LAYOUT_OUT_IN ? c->model_dim : outputs;
	return HA_OK;
#undef NEED
}
