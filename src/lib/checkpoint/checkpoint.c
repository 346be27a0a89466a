/* Hugging Face model directories: the plan of key projections from the
 * per-architecture presets, and reading a layer's keys (cut out of fused
 * tensors) and queries from it (see checkpoint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <headalloc/checkpoint.h>
#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "checkpoint_internal.h"
#include "checkpoint_presets.h"
#include "tensors/weights_internal.h"

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

static char *key_name(const char *outer, const struct ckpt_stack *s, size_t block)
{
	int n = snprintf(NULL, 0, "%s%s%zu%s", outer, s->stem, block, s->tail);
	char *name = n < 0 ? NULL : malloc((size_t)n + 1);
	if (name)
		snprintf(name, (size_t)n + 1, "%s%s%zu%s", outer, s->stem, block,
		         s->tail);
	return name;
}

static void describe_heads(const struct ha_checkpoint *c, char *out,
                           size_t size)
{
	size_t q = c->query_heads, k = c->key_heads;
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
                                   const struct ha_checkpoint *c,
                                   const struct ckpt_shape *s, const char *file,
                                   const char *name, struct ckpt_shard *o,
                                   struct ha_checkpoint_layer *ly,
                                   struct ha_error *err)
{
	struct ha_tensor_info info;
	enum ha_status st = ckpt_shard_tensor(d, o, file, name, &info, err);
	if (st != HA_OK)
		return st;
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
		                 (unsigned long long)s->cols, c->key_heads,
		                 c->head_dim, c->model_dim);
	return ckpt_layer_set(ly, o, name, s->rows, s->cols, err);
}

/* The outer prefix under which block 0 of stack s exists, or NULL: one
 * of a wrapper's outers, else "", "model.", "transformer." or TYPE. */
static const char *find_outer(const struct ckpt_names *nm, const char *type,
                              const struct ckpt_wrapper *wr,
                              const struct ckpt_stack *s, char **outer_buf)
{
	static const char *const plain[] = {"", "model.", "transformer.", NULL,
	                                    NULL};
	const char *const *outers = wr ? wr->outers : plain;
	*outer_buf = NULL;
	for (size_t i = 0; wr ? outers[i] != NULL : i < 4; i++) {
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
                                 const struct ckpt_wrapper *wr,
                                 const struct ckpt_stack *s, size_t count,
                                 const struct ckpt_shape *sh, struct ckpt_shard *o,
                                 struct ha_checkpoint *c, struct ha_error *err)
{
	if (count == 0)
		return HA_OK;
	char *buf = NULL;
	const char *outer = find_outer(nm, type, wr, s, &buf);
	const char *names_file = nm->map ? CKPT_INDEX : CKPT_SINGLE;
	enum ha_status st = HA_OK;
	char *name = NULL;
	if (!outer && wr) {
		name = key_name(wr->outers[0], s, 0);
		st = ckpt_fail(d, err, HA_EFORMAT, names_file,
		               "no tensor '%s' (nor under '%s'): is this a %s "
		               "checkpoint?", name ? name : "", wr->outers[1],
		               type);
		goto out;
	}
	if (!outer) {
		if (s->optional)
			goto out;
		name = key_name("", s, 0);
		st = ckpt_fail(d, err, HA_EFORMAT, names_file,
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
				st = ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
				               "says %zu layer%s, but the checkpoint "
				               "has '%s'", count,
				               count == 1 ? "" : "s", name);
			break;
		}
		if (!file) {
			st = ckpt_fail(d, err, HA_EFORMAT, names_file,
			               "no tensor '%s' (config.json says %zu "
			               "layers)", name, count);
			break;
		}
		struct ha_checkpoint_layer *ly = &c->layers[c->count++];
		ly->block = b;
		ly->role = s->role;
		st = check_tensor(d, c, sh, file, name, o, ly, err);
	}
out:
	free(name);
	free(buf);
	return st;
}

/* A wrapper's text model: *cfg becomes its section of config.json, an
 * object whose model_type, when it has one, is the wrapper's text_type. */
static enum ha_status text_model(const struct ckpt_dir *d,
                                 const struct ckpt_wrapper *wr,
                                 json_object **cfg, struct ha_error *err)
{
	json_object *tc = NULL, *t = NULL;
	if (!json_object_object_get_ex(*cfg, wr->section, &tc) || !tc)
		return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
		                 "model_type '%s' keeps its text model's fields "
		                 "under '%s', and there is no '%s'", wr->type,
		                 wr->section, wr->section);
	if (!json_object_is_type(tc, json_type_object))
		return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
		                 "'%s' is %.40s, not an object", wr->section,
		                 json_object_to_json_string_ext(
		                         tc, JSON_C_TO_STRING_PLAIN));
	if (json_object_object_get_ex(tc, "model_type", &t) && t &&
	    (!json_object_is_type(t, json_type_string) ||
	     strcmp(json_object_get_string(t), wr->text_type) != 0))
		return ckpt_fail(d, err, HA_EUNSUPPORTED, CKPT_CONFIG,
		                 "'%s.model_type' is %.40s; a '%s' model's text "
		                 "model is read as '%s'", wr->section,
		                 json_object_to_json_string_ext(
		                         t, JSON_C_TO_STRING_PLAIN),
		                 wr->type, wr->text_type);
	*cfg = tc;
	return HA_OK;
}

static enum ha_status plan(const struct ckpt_dir *d, json_object *cfg,
                           const struct ckpt_names *nm, struct ha_checkpoint *c,
                           struct ha_error *err)
{
	json_object *t = NULL;
	if (!json_object_object_get_ex(cfg, "model_type", &t) ||
	    !json_object_is_type(t, json_type_string))
		return ckpt_fail(d, err, HA_EFORMAT, CKPT_CONFIG,
		                 "no model_type string: which architecture is "
		                 "this?");
	const char *type = json_object_get_string(t);
	const struct ckpt_wrapper *wr = ckpt_wrapper_find(type);
	const char *section = NULL;
	enum ha_status st = HA_OK;
	if (wr) {
		st = text_model(d, wr, &cfg, err);
		if (st != HA_OK)
			return st;
		section = wr->section;
	}
	const struct ckpt_preset *p = ckpt_preset_find(wr ? wr->text_type : type);
	if (!p)
		return ckpt_fail(d, err, HA_EUNSUPPORTED, CKPT_CONFIG,
		                 "model_type '%.64s' has no preset (known: %s)", type,
		                 ckpt_preset_list);
	c->model_type = strdup(type);
	if (!c->model_type)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	struct ckpt_shape sh;
	st = ckpt_read_shape(d, cfg, section, p, c, &sh, err);
	if (st != HA_OK)
		return st;
	describe_heads(c, c->reason, sizeof c->reason);

	c->layers = calloc(sh.layers + 2 * sh.decoder, sizeof *c->layers);
	if (!c->layers)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	struct ckpt_shard o = {NULL, NULL, NULL, &c->open_shards};
	for (size_t i = 0; i < p->nstacks && st == HA_OK; i++)
		st = plan_stack(d, nm, type, wr, &p->stacks[i],
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
	st = ckpt_read_json(&d, CKPT_CONFIG, HA_CHECKPOINT_MAX_CONFIG, &cfg, err);
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

/* The arguments of ha_checkpoint_read_keys and _read_queries. */
static enum ha_status layer_args(const struct ha_checkpoint *c, size_t layer,
                                 double **out, size_t *rows, size_t *cols,
                                 struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!c || !out || !rows || !cols)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (layer >= c->count)
		return ha_fail(err, HA_EINVAL, "layer %zu of %zu", layer, c->count);
	return HA_OK;
}

/* Open the shard at path and find tensor name in it: *w (the plan's) and
 * *index, or HA_OK with *w NULL when the shard has no such tensor. */
static enum ha_status find_in(struct ha_checkpoint *plan, const char *path,
                              const char *name, struct ha_weights **w,
                              size_t *index, struct ha_error *err)
{
	size_t *idx = NULL, n = 0;
	struct ha_tensor_info info;
	enum ha_status st = ckpt_open_shard(&plan->open_shards, path, w, err);
	if (st != HA_OK)
		return st;
	if (ha_weights_select(*w, name, &idx, &n, NULL) != HA_OK || n != 1 ||
	    ha_weights_info(*w, idx[0], &info) != HA_OK ||
	    strcmp(name, info.name) != 0)
		*w = NULL;
	else
		*index = idx[0];
	free(idx);
	return HA_OK;
}

/* Compact `heads` heads, as s places them among the `width` outputs of
 * the layer's tensor in data, to the front; *out is the array shrunk to
 * them, *rows x *cols. */
static void cut_heads(const struct ha_checkpoint *c, double *data,
                      size_t width, size_t heads,
                      const struct ckpt_key_slice *s, double **out,
                      size_t *rows, size_t *cols)
{
	size_t kd = heads * c->head_dim, md = c->model_dim;
	ckpt_key_cut(data, width, md, c->layout, heads, s);
	*rows = c->layout == HA_LAYOUT_OUT_IN ? kd : md;
	*cols = c->layout == HA_LAYOUT_OUT_IN ? md : kd;
	double *shrunk = realloc(data, kd * md * sizeof *data);
	*out = shrunk ? shrunk : data;
}

enum ha_status ha_checkpoint_read_keys(const struct ha_checkpoint *c,
                                       size_t layer, double **out,
                                       size_t *rows, size_t *cols,
                                       struct ha_error *err)
{
	enum ha_status st = layer_args(c, layer, out, rows, cols, err);
	if (st != HA_OK)
		return st;
	const struct ha_checkpoint_layer *ly = &c->layers[layer];
	struct ha_weights *w = NULL;
	size_t index = 0;
	double *data = NULL;
	struct ha_checkpoint *plan = (struct ha_checkpoint *)c; /* its cache */
	st = find_in(plan, ly->shard, ly->tensor, &w, &index, err);
	if (st == HA_OK && !w)
		st = ha_fail(err, HA_EFORMAT, "no tensor '%s' any more",
		             ly->tensor);
	struct ha_tensor_info info;
	if (st == HA_OK) {
		ha_weights_info(w, index, &info);
		if (info.ndim != 2 || info.shape[0] != ly->rows ||
		    info.shape[1] != ly->cols)
			st = ha_fail(err, HA_EFORMAT,
			             "tensor '%s' changed shape since the "
			             "directory was read", ly->tensor);
	}
	if (st == HA_OK)
		st = ha_weights_read(w, index, &data, err);
	if (st != HA_OK) {
		if (err)
			err->file = ly->shard;
		return st;
	}

	/* The key block to the front, as --fused does for any file. */
	struct ckpt_key_slice slice = {c->fusion, c->head_dim, c->key_offset,
	                               c->key_stride, 1};
	cut_heads(c, data, c->layout == HA_LAYOUT_OUT_IN ? (size_t)ly->rows
	                                                 : (size_t)ly->cols,
	          c->key_heads, &slice, out, rows, cols);
	return HA_OK;
}

/* --------------------------------------------------- reading queries */

/* The query tensor's name beside a separate key tensor: the last
 * "k_proj" made "q_proj" (LLaMA and its family), ".key." ".query." (BERT)
 * or ".k." ".q." (T5); NULL when the name has none of them. */
static char *query_name(const char *key)
{
	static const char *const from[] = {"k_proj", ".key.", ".k."};
	static const char *const to[] = {"q_proj", ".query.", ".q."};
	for (size_t i = 0; i < sizeof from / sizeof *from; i++) {
		const char *at = NULL;
		for (const char *p = strstr(key, from[i]); p;
		     p = strstr(p + 1, from[i]))
			at = p;
		if (!at)
			continue;
		size_t n = strlen(key), cut = (size_t)(at - key);
		size_t lf = strlen(from[i]), lt = strlen(to[i]);
		char *q = malloc(n - lf + lt + 1);
		if (!q)
			return NULL;
		memcpy(q, key, cut);
		memcpy(q + cut, to[i], lt);
		memcpy(q + cut + lt, at + lf, n - cut - lf + 1);
		return q;
	}
	return NULL;
}

/* The tensor holding layer `layer`'s queries: the key tensor itself
 * when they are fused, else the query tensor beside it, looked for in
 * the key's shard and then in every other shard of the plan. */
static enum ha_status query_tensor(const struct ha_checkpoint *c, size_t layer,
                                   struct ha_weights **w, size_t *index,
                                   char **name, struct ha_error *err)
{
	struct ha_checkpoint *plan = (struct ha_checkpoint *)c; /* its cache */
	const struct ha_checkpoint_layer *ly = &c->layers[layer];
	*w = NULL;
	*name = c->fusion == HA_FUSION_SEPARATE ? query_name(ly->tensor)
	                                        : strdup(ly->tensor);
	if (!*name && c->fusion == HA_FUSION_SEPARATE)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "tensor '%s': no query tensor is known beside "
		               "this key tensor", ly->tensor);
	if (!*name)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	enum ha_status st = find_in(plan, ly->shard, *name, w, index, err);
	for (size_t i = 0; st == HA_OK && !*w && i < c->count; i++)
		if (strcmp(c->layers[i].shard, ly->shard) != 0)
			st = find_in(plan, c->layers[i].shard, *name, w, index,
			             err);
	if (st == HA_OK && !*w)
		st = ha_fail(err, HA_EFORMAT, "no query tensor '%s' beside key "
		             "tensor '%s'", *name, ly->tensor);
	if (st != HA_OK && err)
		err->file = ly->shard;
	return st;
}

/* Where the query heads are among the outputs of their tensor, in the
 * order that puts the queries of key head h at h g .. h g + g - 1. */
static struct ckpt_key_slice query_slice(const struct ha_checkpoint *c)
{
	size_t dk = c->head_dim;
	struct ckpt_key_slice s = {c->fusion, dk, 0, dk, 1};
	if (c->fusion == HA_FUSION_PER_HEAD) {
		s.key_stride = 3 * dk;
	} else if (c->fusion == HA_FUSION_GROUPED) {
		s.group = c->query_heads / c->key_heads;
		s.key_stride = c->key_stride;
	}
	return s;
}

enum ha_status ha_checkpoint_read_queries(const struct ha_checkpoint *c,
                                          size_t layer, double **out,
                                          size_t *rows, size_t *cols,
                                          struct ha_error *err)
{
	enum ha_status st = layer_args(c, layer, out, rows, cols, err);
	if (st != HA_OK)
		return st;
	if (c->key_heads == 0 || c->query_heads % c->key_heads != 0)
		return ha_fail(err, HA_EINVAL, "%zu query heads in %zu groups",
		               c->query_heads, c->key_heads);
	struct ha_weights *w = NULL;
	size_t index = 0;
	char *name = NULL;
	st = query_tensor(c, layer, &w, &index, &name, err);
	size_t dk = c->head_dim, md = c->model_dim;
	int out_in = c->layout == HA_LAYOUT_OUT_IN;
	struct ckpt_key_slice qs = query_slice(c);
	struct ha_tensor_info info;
	if (st == HA_OK) {
		ha_weights_info(w, index, &info);
		size_t last = ckpt_head_at(&qs, c->query_heads - 1) + dk;
		int flat = info.ndim == 2;
		uint64_t outputs = !flat ? 0 : info.shape[out_in ? 0 : 1];
		uint64_t model = !flat ? 0 : info.shape[out_in ? 1 : 0];
		if (!flat || model != md || outputs < last)
			st = ha_fail(err, HA_EFORMAT,
			             "query tensor '%s' is not [%zu, %zu] or wider "
			             "(%zu query heads of %zu, d_model %zu)", name,
			             out_in ? last : md, out_in ? md : last,
			             c->query_heads, dk, md);
	}
	double *data = NULL;
	if (st == HA_OK)
		st = ha_weights_read(w, index, &data, err);
	free(name);
	if (st != HA_OK) {
		if (err && !err->file)
			err->file = c->layers[layer].shard;
		return st;
	}
	cut_heads(c, data, (size_t)info.shape[out_in ? 0 : 1], c->query_heads,
	          &qs, out, rows, cols);
	return HA_OK;
}
