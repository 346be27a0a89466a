/* Reading a layer's query block from a model directory's plan, for the
 * diversity of the query heads inside each key group (see
 * ha_checkpoint_read_queries in checkpoint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/checkpoint.h>
#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "checkpoint_internal.h"
#include "tensors/weights_internal.h"

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

/* Where query head q starts among the outputs of its tensor. */
static size_t query_offset(const struct ha_checkpoint *c, size_t q)
{
	size_t dk = c->head_dim, g = c->query_heads / c->key_heads;
	switch (c->fusion) {
	case HA_FUSION_PER_HEAD: return q * 3 * dk;
	case HA_FUSION_GROUPED: return q / g * c->key_stride + q % g * dk;
	case HA_FUSION_SEPARATE:
	case HA_FUSION_CONCATENATED: break;
	}
	return q * dk;
}

enum ha_status ha_checkpoint_read_queries(const struct ha_checkpoint *c,
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
	if (c->key_heads == 0 || c->query_heads % c->key_heads != 0)
		return ha_fail(err, HA_EINVAL, "%zu query heads in %zu groups",
		               c->query_heads, c->key_heads);
	struct ha_weights *w = NULL;
	size_t index = 0;
	char *name = NULL;
	enum ha_status st = query_tensor(c, layer, &w, &index, &name, err);
	size_t dk = c->head_dim, md = c->model_dim;
	size_t qd = c->query_heads * dk;
	int out_in = c->layout == HA_LAYOUT_OUT_IN;
	struct ha_tensor_info info;
	if (st == HA_OK) {
		ha_weights_info(w, index, &info);
		size_t last = query_offset(c, c->query_heads - 1) + dk;
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
	if (st != HA_OK) {
		if (err && !err->file)
			err->file = c->layers[layer].shard;
		free(name);
		return st;
	}
	free(name);
	/* Compact the query heads to the front in head order, in place:
	 * every destination precedes its source. */
	if (out_in) {
		for (size_t q = 0; q < c->query_heads; q++)
			memmove(data + q * dk * md, data + query_offset(c, q) * md,
			        dk * md * sizeof *data);
		*rows = qd;
		*cols = md;
	} else {
		size_t width = (size_t)info.shape[1];
		for (size_t i = 0; i < md; i++)
			for (size_t q = 0; q < c->query_heads; q++)
				memmove(data + i * qd + q * dk,
				        data + i * width + query_offset(c, q),
				        dk * sizeof *data);
		*rows = md;
		*cols = qd;
	}
	double *shrunk = realloc(data, qd * md * sizeof *data);
	*out = shrunk ? shrunk : data;
	return HA_OK;
}
