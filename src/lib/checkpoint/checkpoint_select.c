/* A plan of a model directory's tensors chosen by name, for what no
 * preset covers: an architecture without one, or tensors other than the
 * keys (see ha_checkpoint_open_tensors in checkpoint.h). */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <headalloc/checkpoint.h>
#include <headalloc/weights.h>

#include "base/error_internal.h"
#include "checkpoint_internal.h"
#include "tensors/weights_internal.h"

/* A tensor the pattern selects and the shard the directory puts it in. */
struct pick {
	char *name, *shard;
};

struct picks {
	const char *pattern;
	struct pick *v;
	size_t n, cap;
	size_t exact; /* index + 1 of the tensor named exactly, or 0 */
};

static void picks_free(struct picks *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].shard);
	}
	free(p->v);
}

static enum ha_status collect(const char *name, const char *shard, void *ctx)
{
	struct picks *p = ctx;
	int exact = strcmp(name, p->pattern) == 0;
	if (!exact && fnmatch(p->pattern, name, 0) != 0)
		return HA_OK;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct pick *v = realloc(p->v, cap * sizeof *v);
		if (!v)
			return HA_ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	struct pick *k = &p->v[p->n];
	k->name = strdup(name);
	k->shard = strdup(shard);
	p->n++;
	if (!k->name || !k->shard)
		return HA_ENOMEM;
	if (exact && !p->exact)
		p->exact = p->n;
	return HA_OK;
}

/* Natural order: runs of digits compare as numbers, so that layer 2
 * comes before layer 10; otherwise byte by byte. */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t na = 0, nb = 0;
			while (isdigit((unsigned char)a[na]))
				na++;
			while (isdigit((unsigned char)b[nb]))
				nb++;
			if (na != nb)
				return na < nb ? -1 : 1;
			int c = memcmp(a, b, na);
			if (c)
				return c;
			a += na;
			b += nb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return 0;
}

static int pick_cmp(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	int c = natural_cmp(a->name, b->name);
	return c ? c : strcmp(a->name, b->name);
}

/* config.json's model_type when there is a readable one, else "": the
 * plan does not depend on the config, so a broken one is not an error
 * here. */
static char *model_type_of(const struct ckpt_dir *d)
{
	char *path = NULL;
	json_object *cfg = NULL, *t = NULL;
	const char *type = "";
	if (ckpt_locate(d, CKPT_CONFIG, 1, &path, NULL) == HA_OK && path &&
	    ckpt_read_json(d, CKPT_CONFIG, HA_CHECKPOINT_MAX_CONFIG, &cfg,
	                   NULL) == HA_OK &&
	    json_object_object_get_ex(cfg, "model_type", &t) &&
	    json_object_is_type(t, json_type_string))
		type = json_object_get_string(t);
	char *s = strdup(type);
	free(path);
	json_object_put(cfg);
	return s;
}

/* Check each picked tensor's header and fill the plan's layers. */
static enum ha_status plan_picks(const struct ckpt_dir *d,
                                 const struct picks *p, size_t heads,
                                 enum ha_layout layout,
                                 struct ha_checkpoint *c,
                                 struct ha_error *err)
{
	struct ckpt_shard o = {NULL, NULL, NULL, NULL};
	enum ha_status st = HA_OK;
	const char *first = NULL, *passed = NULL, *passed_shard = NULL;
	uint64_t rows = 0, cols = 0;
	size_t skipped = 0, passed_ndim = 0;
	for (size_t i = 0; i < p->n && st == HA_OK; i++) {
		const struct pick *k = &p->v[i];
		struct ha_tensor_info info;
		st = ckpt_shard_tensor(d, &o, k->shard, k->name, &info, err);
		if (st != HA_OK)
			break;
		/* A pattern passes by what is not 2-D (a bias, a norm) unless
		 * it named the tensor (or every tensor it matched is: below). */
		if (info.ndim != 2 && !p->exact) {
			if (!skipped++) {
				passed = k->name;
				passed_shard = k->shard;
				passed_ndim = info.ndim;
			}
			continue;
		}
		if (info.ndim != 2) {
			st = ckpt_fail(d, err, HA_EUNSUPPORTED, k->shard,
			               "tensor '%s' has %zu dimensions; a key "
			               "projection must be 2-D", k->name, info.ndim);
			break;
		}
		if (!first) {
			first = k->name;
			rows = info.shape[0];
			cols = info.shape[1];
			uint64_t outputs = layout == HA_LAYOUT_OUT_IN ? rows : cols;
			uint64_t model = layout == HA_LAYOUT_OUT_IN ? cols : rows;
			if (outputs == 0 || model == 0 || outputs % heads != 0) {
				st = ckpt_fail(d, err, HA_EINVAL, k->shard,
				               "tensor '%s' [%llu, %llu]: %zu heads do "
				               "not divide its %llu outputs (layout %s)",
				               k->name, (unsigned long long)rows,
				               (unsigned long long)cols, heads,
				               (unsigned long long)outputs,
				               layout == HA_LAYOUT_IN_OUT ? "in-out"
				                                          : "out-in");
				break;
			}
			c->model_dim = (size_t)model;
			c->head_dim = (size_t)(outputs / heads);
		} else if (info.shape[0] != rows || info.shape[1] != cols) {
			st = ckpt_fail(d, err, HA_EINVAL, k->shard,
			               "tensor '%s' is [%llu, %llu], unlike '%s' "
			               "[%llu, %llu]: the tensors selected must "
			               "have one shape", k->name,
			               (unsigned long long)info.shape[0],
			               (unsigned long long)info.shape[1], first,
			               (unsigned long long)rows,
			               (unsigned long long)cols);
			break;
		}
		struct ha_checkpoint_layer *ly = &c->layers[c->count++];
		ly->block = c->count - 1;
		ly->role = "selected";
		st = ckpt_layer_set(ly, &o, k->name, rows, cols, err);
	}
	ckpt_shard_close(&o);
	if (st == HA_OK && c->count == 0)
		return ckpt_fail(d, err, HA_EUNSUPPORTED, passed_shard,
		                 "tensor '%s' has %zu dimensions; a key "
		                 "projection must be 2-D", passed, passed_ndim);
	size_t used = strlen(c->warning);
	if (st == HA_OK && skipped)
		snprintf(c->warning + used, sizeof c->warning - used,
		         "%s'%.60s' also matches %zu tensor%s that %s not 2-D, "
		         "passed by ('%.60s' has %zu dimension%s)", used ? "; " : "",
		         p->pattern,
		         skipped, skipped == 1 ? "" : "s",
		         skipped == 1 ? "is" : "are", passed, passed_ndim,
		         passed_ndim == 1 ? "" : "s");
	return st;
}

enum ha_status ha_checkpoint_open_tensors(const char *dir, const char *pattern,
                                          size_t heads, enum ha_layout layout,
                                          struct ha_checkpoint **out,
                                          struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!dir || !pattern || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (heads == 0 || heads > HA_CHECKPOINT_MAX_HEADS)
		return ha_fail(err, HA_EINVAL, "%zu heads: expected from 1 to %d", heads,
		               HA_CHECKPOINT_MAX_HEADS);
	if (layout != HA_LAYOUT_OUT_IN && layout != HA_LAYOUT_IN_OUT)
		return ha_fail(err, HA_EINVAL, "unknown layout");
	struct ckpt_dir d;
	enum ha_status st = ckpt_dir_open(&d, dir, err);
	if (st != HA_OK)
		return st;
	struct ckpt_names nm = {NULL, NULL, NULL, 0};
	struct picks p = {pattern, NULL, 0, 0, 0};
	struct ha_checkpoint *c = calloc(1, sizeof *c);
	if (!c) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	st = ckpt_names_open(&d, &nm, err);
	if (st != HA_OK)
		goto out;
	st = ckpt_names_each(&nm, collect, &p);
	if (st != HA_OK) {
		st = ha_fail(err, st, "out of memory");
		goto out;
	}
	if (p.n == 0) {
		st = ckpt_fail(&d, err, HA_EINVAL,
		               nm.map ? CKPT_INDEX : CKPT_SINGLE,
		               "no tensor matches '%s'", pattern);
		goto out;
	}
	if (p.exact) { /* an exact name selects that tensor alone */
		size_t keep = p.exact - 1;
		for (size_t i = 0; i < p.n; i++)
			if (i != keep) {
				free(p.v[i].name);
				free(p.v[i].shard);
			}
		p.v[0] = p.v[keep];
		p.n = 1;
	}
	qsort(p.v, p.n, sizeof *p.v, pick_cmp);
	c->layers = calloc(p.n, sizeof *c->layers);
	c->model_type = model_type_of(&d);
	if (!c->layers || !c->model_type) {
		st = ha_fail(err, HA_ENOMEM, "out of memory");
		goto out;
	}
	c->query_heads = c->key_heads = heads;
	c->layout = layout;
	c->fusion = HA_FUSION_SEPARATE;
	c->key_offset = 0;
	snprintf(c->reason, sizeof c->reason, "%zu head%s per tensor, as given",
	         heads, heads == 1 ? "" : "s");
	ckpt_names_warn(&nm, c->warning, sizeof c->warning);
	st = plan_picks(&d, &p, heads, layout, c, err);
	c->key_stride = c->head_dim;
out:
	picks_free(&p);
	ckpt_names_close(&nm);
	ckpt_dir_close(&d);
	if (st != HA_OK) {
		ha_checkpoint_free(c);
		return st;
	}
	*out = c;
	return HA_OK;
}
