/* The diversity of the query heads inside each key group of a
 * grouped-query checkpoint (see hdi_groups.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/hdi_groups.h>

#include "base/error_internal.h"
#include "hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"

void ha_hdi_groups_free(struct ha_hdi_groups *g)
{
	if (!g)
		return;
	ha_hdi_report_free(g->groups);
	free(g->group_hdi);
	free(g);
}

static struct ha_hdi_groups *groups_new(size_t layers, size_t per_layer)
{
	struct ha_hdi_groups *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->groups = calloc(1, sizeof *g->groups);
	g->group_hdi = calloc(layers, sizeof *g->group_hdi);
	if (g->groups)
		g->groups->tensors = calloc(layers * per_layer,
		                            sizeof *g->groups->tensors);
	if (!g->groups || !g->groups->tensors || !g->group_hdi) {
		ha_hdi_groups_free(g);
		return NULL;
	}
	return g;
}

/* The checks of ha_hdi_measure_groups before any data is read. */
static enum ha_status check_plan(const struct ha_checkpoint *c,
                                 const struct ha_hdi_options *o,
                                 struct ha_error *err)
{
	if (c->count == 0)
		return ha_fail(err, HA_EINVAL, "the checkpoint plan has no layers");
	if (o->heads != 0)
		return ha_fail(err, HA_EINVAL, "the groups are the checkpoint's "
		               "key heads: they cannot be re-cut into %zu heads",
		               o->heads);
	if (c->key_heads == 0 || c->key_heads >= c->query_heads ||
	    c->query_heads % c->key_heads != 0)
		return ha_fail(err, HA_EINVAL, "the checkpoint is not grouped: "
		               "%zu key head%s for %zu query head%s; within-group "
		               "diversity needs fewer key heads than query heads",
		               c->key_heads, c->key_heads == 1 ? "" : "s",
		               c->query_heads, c->query_heads == 1 ? "" : "s");
	size_t g = c->query_heads / c->key_heads, w = g * c->head_dim;
	/* Every group of every layer has this shape. */
	return ha_hdi_check_work(c->layers[0].tensor,
	                         c->layout == HA_LAYOUT_OUT_IN ? w : c->model_dim,
	                         c->layout == HA_LAYOUT_OUT_IN ? c->model_dim : w,
	                         w, c->model_dim, g, err);
}

/* Group h of layer i's query block q (in c->layout) into t, through
 * ha_hdi_compute (which copies what it is given); scratch holds a group
 * of the in-out layout. */
static enum ha_status measure_group(const struct ha_checkpoint *c, size_t i,
                                    size_t h, const double *q, double *scratch,
                                    struct ha_hdi_tensor *t,
                                    struct ha_error *err)
{
	size_t g = c->query_heads / c->key_heads, dk = c->head_dim;
	size_t md = c->model_dim, w = g * dk, qd = c->query_heads * dk;
	char name[1024];
	snprintf(name, sizeof name, "%s, query heads %zu-%zu",
	         c->layers[i].tensor, h * g, h * g + g - 1);
	if (c->layout == HA_LAYOUT_OUT_IN)
		return ha_hdi_compute(q + h * w * md, w, md, g, c->layout, name,
		                      t, err);
	for (size_t r = 0; r < md; r++)
		memcpy(scratch + r * w, q + r * qd + h * w, w * sizeof *q);
	return ha_hdi_compute(scratch, md, w, g, c->layout, name, t, err);
}

static enum ha_status measure_layer(const struct ha_checkpoint *c, size_t i,
                                    struct ha_hdi_groups *out,
                                    struct ha_error *err)
{
	double *q = NULL, *scratch = NULL;
	size_t rows = 0, cols = 0, G = c->key_heads;
	enum ha_status st = ha_checkpoint_read_queries(c, i, &q, &rows, &cols,
	                                               err);
	if (st == HA_OK && c->layout == HA_LAYOUT_IN_OUT &&
	    !(scratch = malloc(rows * (cols / G) * sizeof *scratch)))
		st = ha_fail(err, HA_ENOMEM, "out of memory");
	struct ha_hdi_report *r = out->groups;
	double sum = 0.0;
	for (size_t h = 0; st == HA_OK && h < G; h++) {
		st = measure_group(c, i, h, q, scratch, &r->tensors[r->count],
		                   err);
		if (st == HA_OK) {
			sum += r->tensors[r->count].hdi;
			r->count++;
			st = ha_hdi_check_heads(r, r->count - 1, err);
		}
	}
	free(scratch);
	free(q);
	out->group_hdi[i] = sum / (double)G;
	return st;
}

enum ha_status ha_hdi_measure_groups(const struct ha_checkpoint *c,
                                     const struct ha_hdi_options *opt,
                                     struct ha_hdi_groups **out,
                                     struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!c || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	struct ha_hdi_options o = ha_hdi_options_of(opt);
	enum ha_status st = check_plan(c, &o, err);
	if (st != HA_OK)
		return st;
	struct ha_hdi_groups *g = groups_new(c->count, c->key_heads);
	if (!g)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	g->count = c->count;
	g->key_heads = c->key_heads;
	g->query_heads = c->query_heads;
	g->group_size = c->query_heads / c->key_heads;
	g->baseline_group_hdi = ha_hdi_random_baseline(g->group_size,
	                                               c->head_dim, c->model_dim);
	double sum = 0.0, base = 0.0;
	const struct ha_progress *p = &o.progress;
	for (size_t i = 0; st == HA_OK && i < c->count; i++) {
		st = measure_layer(c, i, g, err);
		sum += g->group_hdi[i];
		if (st == HA_OK && p->fn && p->fn(p->ctx, "layers", i + 1, c->count))
			st = ha_fail(err, HA_ECANCELED, "cancelled");
	}
	if (st != HA_OK) {
		ha_hdi_groups_free(g);
		return st;
	}
	for (size_t k = 0; k < g->groups->count; k++)
		base += g->groups->tensors[k].baseline_hdi;
	g->mean_group_hdi = sum / (double)c->count;
	g->groups->mean_hdi = g->mean_group_hdi;
	g->groups->mean_baseline_hdi = base / (double)g->groups->count;
	*out = g;
	return HA_OK;
}
