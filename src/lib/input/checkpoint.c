/* Hugging Face model directories: the per-architecture presets, the plan
 * of key projections and cutting keys out of fused tensors (see
 * checkpoint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <headalloc/checkpoint.h>
#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "checkpoint_internal.h"

#define CONFIG CKPT_CONFIG
#define INDEX CKPT_INDEX
#define SINGLE CKPT_SINGLE

enum family { FAM_LLAMA, FAM_GPT2, FAM_NEOX, FAM_FALCON, FAM_BERT, FAM_T5 };

static const struct {
	const char *type;
	enum family family;
} TYPES[] = {
	{"llama", FAM_LLAMA},      {"mistral", FAM_LLAMA},
	{"mixtral", FAM_LLAMA},    {"qwen2", FAM_LLAMA},
	{"gemma", FAM_LLAMA},      {"gemma2", FAM_LLAMA},
	{"gpt2", FAM_GPT2},        {"gpt_neox", FAM_NEOX},
	{"falcon", FAM_FALCON},    {"RefinedWeb", FAM_FALCON},
	{"RefinedWebModel", FAM_FALCON},
	{"bert", FAM_BERT},        {"roberta", FAM_BERT},
	{"t5", FAM_T5},
};

/* A stack of layers: its key tensors are named OUTER STEM N TAIL. */
struct stack {
	const char *role, *stem, *tail;
	int optional; /* absent altogether: skipped (T5 without a decoder) */
};

static const struct stack STACKS_LLAMA[] = {
	{"self-attention", "layers.", ".self_attn.k_proj.weight", 0}};
static const struct stack STACKS_GPT2[] = {
	{"self-attention", "h.", ".attn.c_attn.weight", 0}};
static const struct stack STACKS_NEOX[] = {
	{"self-attention", "layers.", ".attention.query_key_value.weight", 0}};
static const struct stack STACKS_FALCON[] = {
	{"self-attention", "h.", ".self_attention.query_key_value.weight", 0}};
static const struct stack STACKS_BERT[] = {
	{"self-attention", "encoder.layer.", ".attention.self.key.weight", 0}};
static const struct stack STACKS_T5[] = {
	{"encoder self-attention", "encoder.block.",
	 ".layer.0.SelfAttention.k.weight", 0},
	{"decoder self-attention", "decoder.block.",
	 ".layer.0.SelfAttention.k.weight", 1},
	{"decoder cross-attention", "decoder.block.",
	 ".layer.1.EncDecAttention.k.weight", 1},
};

const char *ha_key_fusion_str(enum ha_key_fusion fusion)
{
	switch (fusion) {
	case HA_FUSION_CONCATENATED: return "concatenated q|k|v";
	case HA_FUSION_PER_HEAD: return "per-head q,k,v";
	case HA_FUSION_GROUPED: return "grouped q..,k,v";
	case HA_FUSION_SEPARATE: break;
	}
	return "separate";
}

void ha_checkpoint_free(struct ha_checkpoint *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->count; i++) {
		free(c->layers[i].shard);
		free(c->layers[i].shard_name);
		free(c->layers[i].tensor);
	}
	free(c->layers);
	free(c->model_type);
	ckpt_open_shards_free(c->open_shards);
	free(c);
}

/* ----------------------------------------------------- what is where */

static char *key_name(const char *outer, const struct stack *s, size_t block)
{
	int n = snprintf(NULL, 0, "%s%s%zu%s", outer, s->stem, block, s->tail);
	char *name = n < 0 ? NULL : malloc((size_t)n + 1);
	if (name)
		snprintf(name, (size_t)n + 1, "%s%s%zu%s", outer, s->stem, block,
		         s->tail);
	return name;
}

/* --------------------------------------------------- the config's say */

struct shape {
	size_t model_dim, query_heads, key_heads, head_dim, layers, decoder;
	enum ha_layout layout;
	enum ha_key_fusion fusion;
	size_t key_offset, key_stride;
	uint64_t rows, cols; /* of every key tensor */
};

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static enum ha_status read_shape(const struct ckpt_dir *d, json_object *cfg,
                                 const char *type, enum family fam,
                                 struct shape *s, struct ha_error *err)
{
	const size_t D = HA_CHECKPOINT_MAX_DIM, H = HA_CHECKPOINT_MAX_HEADS;
	const size_t L = HA_CHECKPOINT_MAX_LAYERS;
	enum ha_status st;
	memset(s, 0, sizeof *s);
#define NEED(keys, req, fb, lo, hi, out)                                      \
	do {                                                                  \
		st = ckpt_config_size(d, cfg, keys, req, fb, lo, hi, out, err); \
		if (st != HA_OK)                                              \
			return st;                                            \
	} while (0)
	NEED(KEYS("hidden_size", "n_embd", "d_model"), 1, 0, 1, D,
	     &s->model_dim);
	NEED(KEYS("num_attention_heads", "n_head", "num_heads"), 1, 0, 1, H,
	     &s->query_heads);
	NEED(KEYS("num_hidden_layers", "n_layer", "num_layers"), 1, 0, 1, L,
	     &s->layers);
	int head_dim_given = 0;
	if (fam == FAM_T5) {
		NEED(KEYS("d_kv"), 1, 0, 1, D, &s->head_dim);
		NEED(KEYS("num_decoder_layers"), 0, s->layers, 0, L,
		     &s->decoder);
		head_dim_given = 1;
	} else if (fam == FAM_LLAMA) {
		NEED(KEYS("head_dim"), 0, 0, 1, D, &s->head_dim);
		head_dim_given = s->head_dim != 0;
	}
	if (!head_dim_given) {
		if (s->model_dim % s->query_heads != 0)
			return ckpt_fail(d, err, HA_EFORMAT, CONFIG,
			                 "hidden size %zu is not a multiple of the "
			                 "%zu attention heads, and there is no "
			                 "head_dim", s->model_dim, s->query_heads);
		s->head_dim = s->model_dim / s->query_heads;
	}
	size_t hq = s->query_heads, dk = s->head_dim;
	s->key_heads = hq;
	s->layout = HA_LAYOUT_OUT_IN;
	s->fusion = HA_FUSION_SEPARATE;
	s->key_offset = 0;
	s->key_stride = dk;
	if (fam == FAM_LLAMA)
		NEED(KEYS("num_key_value_heads"), 0, hq, 1, H, &s->key_heads);
	if (fam == FAM_GPT2) {
		s->layout = HA_LAYOUT_IN_OUT;
		s->fusion = HA_FUSION_CONCATENATED;
		s->key_offset = hq * dk;
	} else if (fam == FAM_NEOX) {
		s->fusion = HA_FUSION_PER_HEAD;
		s->key_offset = dk;
		s->key_stride = 3 * dk;
	} else if (fam == FAM_FALCON) {
		int newarch, mq;
		st = ckpt_config_bool(d, cfg, "new_decoder_architecture",
		                      strcmp(type, "RefinedWeb") == 0, &newarch,
		                      err);
		if (st == HA_OK)
			st = ckpt_config_bool(d, cfg, "multi_query", 1, &mq, err);
		if (st != HA_OK)
			return st;
		if (newarch) {
			NEED(KEYS("num_kv_heads", "n_head_kv"), 0, hq, 1, H,
			     &s->key_heads);
			s->fusion = HA_FUSION_GROUPED;
		} else if (mq) {
			s->key_heads = 1;
			s->fusion = HA_FUSION_CONCATENATED;
			s->key_offset = hq * dk;
		} else {
			s->fusion = HA_FUSION_PER_HEAD;
			s->key_offset = dk;
			s->key_stride = 3 * dk;
		}
	}
	size_t kv = s->key_heads;
	if (hq % kv != 0)
		return ckpt_fail(d, err, HA_EFORMAT, CONFIG,
		                 "%zu attention heads cannot share %zu key heads "
		                 "evenly", hq, kv);
	if (s->fusion == HA_FUSION_GROUPED) {
		s->key_offset = hq / kv * dk;
		s->key_stride = (hq / kv + 2) * dk;
	}
	/* The outputs of the tensor holding the keys. */
	uint64_t outputs = (uint64_t)kv * dk;
	if (s->fusion == HA_FUSION_CONCATENATED ||
	    s->fusion == HA_FUSION_GROUPED)
		outputs = ((uint64_t)hq + 2 * (uint64_t)kv) * dk;
	else if (s->fusion == HA_FUSION_PER_HEAD)
		outputs = 3 * (uint64_t)hq * dk;
	s->rows = s->layout == HA_LAYOUT_OUT_IN ? outputs : s->model_dim;
	s->cols = s->layout == HA_LAYOUT_OUT_IN ? s->model_dim : outputs;
	return HA_OK;
#undef NEED
}

static void describe_heads(const struct shape *s, char *out, size_t size)
{
	size_t q = s->query_heads, k = s->key_heads;
	if (k == q)
		snprintf(out, size, "%zu key head%s (one per query head)", k,
		         k == 1 ? "" : "s");
	else if (k == 1)
		snprintf(out, size, "1 key head (multi-query: %zu query heads "
		         "share it)", q);
	else
		snprintf(out, size, "%zu key heads (grouped-query: %zu query "
		         "heads share them)", k, q);
}

/* -------------------------------------------------------------- plan */

/* Check tensor `name` in shard `file` and fill layer *ly. */
static enum ha_status check_tensor(const struct ckpt_dir *d,
                                   const struct shape *s, const char *file,
                                   const char *name, struct ckpt_shard *o,
                                   struct ha_checkpoint_layer *ly,
                                   struct ha_error *err)
{
	enum ha_status st;
	if (!*file)
		return ckpt_fail(d, err, HA_EFORMAT, INDEX,
		                 "the shard of '%s' is not a file name", name);
	st = ckpt_shard_use(d, o, file, err);
	if (st != HA_OK)
		return st;
	size_t *idx = NULL, n = 0;
	if (ha_weights_select(o->w, name, &idx, &n, NULL) != HA_OK)
		return ckpt_fail(d, err, HA_EFORMAT, file,
		                 "has no tensor '%s'%s", name,
		                 strcmp(file, SINGLE) == 0
		                         ? ""
		                         : ", which the index puts there");
	struct ha_tensor_info info;
	ha_weights_info(o->w, idx[0], &info);
	free(idx);
	if (info.ndim != 2 || info.shape[0] != s->rows ||
	    info.shape[1] != s->cols)
		return ckpt_fail(d, err, HA_EFORMAT, file,
		                 "tensor '%s' has %zu dimensions [%llu, %llu%s]; "
		                 "config.json implies [%llu, %llu] (%zu key "
		                 "heads of %zu, d_model %zu)", name, info.ndim,
		                 (unsigned long long)(info.ndim > 0 ? info.shape[0] : 0),
		                 (unsigned long long)(info.ndim > 1 ? info.shape[1] : 0),
		                 info.ndim > 2 ? ", ..." : "",
		                 (unsigned long long)s->rows,
		                 (unsigned long long)s->cols, s->key_heads,
		                 s->head_dim, s->model_dim);
	ly->shard = strdup(o->real);
	ly->shard_name = strdup(file);
	ly->tensor = strdup(name);
	if (!ly->shard || !ly->shard_name || !ly->tensor)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	ly->rows = s->rows;
	ly->cols = s->cols;
	return HA_OK;
}

/* The outer prefix under which block 0 of stack s exists, or NULL. */
static const char *find_outer(const struct ckpt_names *nm, const char *type,
                              const struct stack *s, char **outer_buf)
{
	const char *outers[] = {"", "model.", "transformer.", NULL};
	*outer_buf = NULL;
	for (size_t i = 0; i < 4; i++) {
		const char *o = outers[i];
		if (!o) {
			size_t n = strlen(type);
			*outer_buf = malloc(n + 2);
			if (!*outer_buf)
				return NULL;
			memcpy(*outer_buf, type, n);
			memcpy(*outer_buf + n, ".", 2);
			o = *outer_buf;
		}
		char *name = key_name(o, s, 0);
		int found = name && ckpt_shard_of(nm, name);
		free(name);
		if (found)
			return o;
	}
	return NULL;
}

/* Add the layers of stack s (count blocks) to the plan. */
static enum ha_status plan_stack(const struct ckpt_dir *d,
                                 const struct ckpt_names *nm, const char *type,
                                 const struct stack *s, size_t count,
                                 const struct shape *sh, struct ckpt_shard *o,
                                 struct ha_checkpoint *c, struct ha_error *err)
{
	if (count == 0)
		return HA_OK;
	char *buf = NULL;
	const char *outer = find_outer(nm, type, s, &buf);
	enum ha_status st = HA_OK;
	char *name = NULL;
	if (!outer) {
		if (s->optional)
			goto out;
		name = key_name("", s, 0);
		st = ckpt_fail(d, err, HA_EFORMAT, nm->map ? INDEX : SINGLE,
		               "no tensor '%s' (nor with a prefix 'model.', "
		               "'transformer.' or '%s.'): is this a %s "
		               "checkpoint?", name ? name : "", type, type);
		goto out;
	}
	for (size_t b = 0; b <= count && st == HA_OK; b++) {
		free(name);
		name = key_name(outer, s, b);
		if (!name) {
			st = ha_fail(err, HA_ENOMEM, "out of memory");
			break;
		}
		const char *file = ckpt_shard_of(nm, name);
		if (b == count) { /* one past the last must not exist */
			if (file)
				st = ckpt_fail(d, err, HA_EFORMAT, CONFIG,
				               "says %zu layer%s, but the checkpoint "
				               "has '%s'", count,
				               count == 1 ? "" : "s", name);
			break;
		}
		if (!file) {
			st = ckpt_fail(d, err, HA_EFORMAT, nm->map ? INDEX : SINGLE,
			               "no tensor '%s' (config.json says %zu "
			               "layers)", name, count);
			break;
		}
		struct ha_checkpoint_layer *ly = &c->layers[c->count++];
		ly->block = b;
		ly->role = s->role;
		st = check_tensor(d, sh, file, name, o, ly, err);
	}
out:
	free(name);
	free(buf);
	return st;
}

static enum ha_status plan(const struct ckpt_dir *d, json_object *cfg,
                           const struct ckpt_names *nm, struct ha_checkpoint *c,
                           struct ha_error *err)
{
	json_object *t = NULL;
	if (!json_object_object_get_ex(cfg, "model_type", &t) ||
	    !json_object_is_type(t, json_type_string))
		return ckpt_fail(d, err, HA_EFORMAT, CONFIG,
		                 "no model_type string: which architecture is "
		                 "this?");
	const char *type = json_object_get_string(t);
	size_t f = 0, ntypes = sizeof TYPES / sizeof TYPES[0];
	while (f < ntypes && strcmp(TYPES[f].type, type) != 0)
		f++;
	if (f == ntypes)
		return ckpt_fail(d, err, HA_EUNSUPPORTED, CONFIG,
		                 "model_type '%.64s' has no preset (known: llama, "
		                 "mistral, mixtral, qwen2, gemma, gemma2, gpt2, "
		                 "gpt_neox, falcon, bert, roberta, t5)", type);
	enum family fam = TYPES[f].family;
	c->model_type = strdup(type);
	if (!c->model_type)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	struct shape sh;
	enum ha_status st = read_shape(d, cfg, type, fam, &sh, err);
	if (st != HA_OK)
		return st;
	c->model_dim = sh.model_dim;
	c->query_heads = sh.query_heads;
	c->key_heads = sh.key_heads;
	c->head_dim = sh.head_dim;
	c->layout = sh.layout;
	c->fusion = sh.fusion;
	c->key_offset = sh.key_offset;
	c->key_stride = sh.key_stride;
	describe_heads(&sh, c->reason, sizeof c->reason);

	const struct stack *stacks = STACKS_LLAMA;
	size_t nstacks = 1;
	switch (fam) {
	case FAM_LLAMA: break;
	case FAM_GPT2: stacks = STACKS_GPT2; break;
	case FAM_NEOX: stacks = STACKS_NEOX; break;
	case FAM_FALCON: stacks = STACKS_FALCON; break;
	case FAM_BERT: stacks = STACKS_BERT; break;
	case FAM_T5: stacks = STACKS_T5; nstacks = 3; break;
	}
	c->layers = calloc(sh.layers + 2 * sh.decoder, sizeof *c->layers);
	if (!c->layers)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	struct ckpt_shard o = {NULL, NULL, NULL, &c->open_shards};
	for (size_t i = 0; i < nstacks && st == HA_OK; i++)
		st = plan_stack(d, nm, type, &stacks[i],
		                i == 0 ? sh.layers : sh.decoder, &sh, &o, c, err);
	ckpt_shard_close(&o);
	return st;
}

enum ha_status ha_checkpoint_open(const char *dir, struct ha_checkpoint **out,
                                  struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!dir || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	struct ckpt_dir d;
	enum ha_status st = ckpt_dir_open(&d, dir, err);
	if (st != HA_OK)
		return st;
	json_object *cfg = NULL;
	struct ckpt_names nm = {NULL, NULL, NULL, 0};
	struct ha_checkpoint *c = calloc(1, sizeof *c);
	if (!c) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	st = ckpt_read_json(&d, CONFIG, HA_CHECKPOINT_MAX_CONFIG, &cfg, err);
	if (st == HA_OK)
		st = ckpt_names_open(&d, &nm, err);
	if (st == HA_OK)
		st = plan(&d, cfg, &nm, c, err);
	if (st == HA_OK)
		ckpt_names_warn(&nm, c->warning, sizeof c->warning);
out:
	ckpt_names_close(&nm);
	json_object_put(cfg);
	ckpt_dir_close(&d);
	if (st != HA_OK) {
		ha_checkpoint_free(c);
		return st;
	}
	*out = c;
	return HA_OK;
}

/* ------------------------------------------------------ reading keys */

enum ha_status ha_checkpoint_read_keys(const struct ha_checkpoint *c,
                                       size_t layer, double **out,
                                       size_t *rows, size_t *cols,
                                       struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!c || !out || !rows || !cols)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (layer >= c->count)
		return ha_fail(err, HA_EINVAL, "layer %zu of %zu", layer, c->count);
	const struct ha_checkpoint_layer *ly = &c->layers[layer];
	struct ha_weights *w = NULL;
	size_t *idx = NULL, n = 0;
	double *data = NULL;
	struct ha_checkpoint *plan = (struct ha_checkpoint *)c; /* its cache */
	enum ha_status st = ckpt_open_shard(&plan->open_shards, ly->shard, &w,
	                                    err);
	if (st == HA_OK &&
	    ha_weights_select(w, ly->tensor, &idx, &n, NULL) != HA_OK)
		st = ha_fail(err, HA_EFORMAT, "no tensor '%s' any more",
		             ly->tensor);
	struct ha_tensor_info info;
	if (st == HA_OK) {
		ha_weights_info(w, idx[0], &info);
		if (info.ndim != 2 || info.shape[0] != ly->rows ||
		    info.shape[1] != ly->cols)
			st = ha_fail(err, HA_EFORMAT,
			             "tensor '%s' changed shape since the "
			             "directory was read", ly->tensor);
	}
	if (st == HA_OK)
		st = ha_weights_read(w, idx[0], &data, err);
	free(idx);
	if (st != HA_OK) {
		if (err)
			err->file = ly->shard;
		return st;
	}

	/* Compact the key block to the front, in place: every destination
	 * precedes its source, since key_stride >= head_dim. */
	size_t dk = c->head_dim, kd = c->key_heads * dk, md = c->model_dim;
	if (c->layout == HA_LAYOUT_OUT_IN) {
		for (size_t h = 0; h < c->key_heads; h++)
			memmove(data + h * dk * md,
			        data + (c->key_offset + h * c->key_stride) * md,
			        dk * md * sizeof *data);
		*rows = kd;
		*cols = md;
	} else {
		size_t width = (size_t)ly->cols;
		for (size_t i = 0; i < md; i++)
			for (size_t h = 0; h < c->key_heads; h++)
				memmove(data + i * kd + h * dk,
				        data + i * width + c->key_offset +
				                h * c->key_stride,
				        dk * sizeof *data);
		*rows = md;
		*cols = kd;
	}
	double *shrunk = realloc(data, kd * md * sizeof *data);
	*out = shrunk ? shrunk : data;
	return HA_OK;
}
