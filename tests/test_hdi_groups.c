/* Tests of the within-group diversity of grouped-query checkpoints
 * (hdi_groups.h) and of reading their query heads (checkpoint.h).
 *
 * The grouped fixtures of tests/data/checkpoints (make_fixtures.py) give
 * every query head a known set of coordinates (expect.json: query_sets,
 * drawn within one small pool per key group), so the query block read
 * back is rebuilt here from the sets, the overlap of two query heads is
 * |S_a & S_b| / d_k by counting, and the group HDI follows with no linear
 * algebra. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <headalloc/headalloc.h>
#include "checkpoint/checkpoint_internal.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif

TestSuite(hdi_groups);

struct expect {
	json_object *root, *layers;
	size_t model_dim, query_heads, key_heads, head_dim, count;
};

static size_t jsize(json_object *o, const char *key)
{
	json_object *v;
	cr_assert(json_object_object_get_ex(o, key, &v), "expect.json: %s", key);
	return (size_t)json_object_get_int64(v);
}

static void load_expect(const char *dir, struct expect *e)
{
	char path[600];
	snprintf(path, sizeof path, "%s/expect.json", dir);
	e->root = json_object_from_file(path);
	cr_assert_not_null(e->root, "%s", path);
	e->model_dim = jsize(e->root, "model_dim");
	e->query_heads = jsize(e->root, "query_heads");
	e->key_heads = jsize(e->root, "key_heads");
	e->head_dim = jsize(e->root, "head_dim");
	cr_assert(json_object_object_get_ex(e->root, "layers", &e->layers));
	e->count = json_object_array_length(e->layers);
}

/* Coordinate j of query head q in layer i: the fixture's query_sets, or
 * the first d_k coordinates (the fixtures whose query heads all agree). */
static size_t query_coord(const struct expect *e, size_t i, size_t q, size_t j)
{
	json_object *sets;
	if (!json_object_object_get_ex(json_object_array_get_idx(e->layers, i),
	                               "query_sets", &sets))
		return j;
	json_object *set = json_object_array_get_idx(sets, q);
	return (size_t)json_object_get_int64(json_object_array_get_idx(set, j));
}

/* |S_a & S_b| / d_k for query heads a and b of layer i. */
static double counted_overlap(const struct expect *e, size_t i, size_t a,
                              size_t b)
{
	size_t common = 0;
	for (size_t j = 0; j < e->head_dim; j++)
		for (size_t k = 0; k < e->head_dim; k++)
			common += query_coord(e, i, a, j) == query_coord(e, i, b, k);
	return (double)common / (double)e->head_dim;
}

/* The group HDI of layer i by counting: one minus the mean overlap of
 * every pair of query heads that share a key head. */
static double counted_group_hdi(const struct expect *e, size_t i,
                                double *per_group)
{
	size_t g = e->query_heads / e->key_heads;
	double layer = 0.0;
	for (size_t h = 0; h < e->key_heads; h++) {
		double sum = 0.0;
		for (size_t a = h * g; a < h * g + g; a++)
			for (size_t b = a + 1; b < h * g + g; b++)
				sum += counted_overlap(e, i, a, b);
		per_group[h] = 1.0 - sum / (double)(g * (g - 1) / 2);
		layer += per_group[h];
	}
	return layer / (double)e->key_heads;
}

static void open_fixture(const char *name, struct ha_checkpoint **c,
                         struct expect *e)
{
	char dir[512];
	struct ha_error err;
	snprintf(dir, sizeof dir, "%s/%s", FIXTURES, name);
	load_expect(dir, e);
	cr_assert_eq(ha_checkpoint_open(dir, c, &err), HA_OK, "%s: %s", name,
	             err.message);
}

static const char *const GROUPED[] = {
	"llama-groups", "falcon-groups", "falcon-mq-groups",
	"llama", "mistral", "falcon", "falcon-mq",
};

/* The query block read back is the generator's, head by head. */
Test(hdi_groups, queries_read_back)
{
	for (size_t f = 0; f < sizeof GROUPED / sizeof *GROUPED; f++) {
		struct ha_checkpoint *c;
		struct expect e;
		struct ha_error err;
		open_fixture(GROUPED[f], &c, &e);
		size_t m = e.model_dim, n = e.head_dim;
		for (size_t i = 0; i < c->count; i++) {
			double *q = NULL;
			size_t rows, cols;
			cr_assert_eq(ha_checkpoint_read_queries(c, i, &q, &rows, &cols,
			                                        &err),
			             HA_OK, "%s: %s", GROUPED[f], err.message);
			cr_assert_eq(rows, e.query_heads * n);
			cr_assert_eq(cols, m);
			for (size_t h = 0; h < e.query_heads; h++)
				for (size_t j = 0; j < n; j++)
					for (size_t col = 0; col < m; col++) {
						double want = 0.0;
						for (size_t k = 0; k <= j; k++)
							if (query_coord(&e, i, h, k) == col)
								want += k == j ? 2.0 : 1.0;
						cr_assert_eq(q[(h * n + j) * m + col], want,
						             "%s layer %zu head %zu row %zu col "
						             "%zu", GROUPED[f], i, h, j, col);
					}
			free(q);
		}
		ha_checkpoint_free(c);
		json_object_put(e.root);
	}
}

/* The group HDI of every grouped fixture is the one counting gives. */
Test(hdi_groups, counted_coordinates)
{
	for (size_t f = 0; f < sizeof GROUPED / sizeof *GROUPED; f++) {
		struct ha_checkpoint *c;
		struct expect e;
		struct ha_error err;
		open_fixture(GROUPED[f], &c, &e);
		struct ha_hdi_groups *g = NULL;
		cr_assert_eq(ha_hdi_measure_groups(c, NULL, &g, &err), HA_OK,
		             "%s: %s", GROUPED[f], err.message);
		size_t G = e.key_heads, gs = e.query_heads / G;
		cr_assert_eq(g->count, e.count);
		cr_assert_eq(g->key_heads, G);
		cr_assert_eq(g->group_size, gs);
		cr_assert_eq(g->groups->count, e.count * G);
		double mean = 0.0, per_group[64];
		for (size_t i = 0; i < e.count; i++) {
			double want = counted_group_hdi(&e, i, per_group);
			mean += want;
			cr_assert(fabs(g->group_hdi[i] - want) < 1e-12,
			          "%s layer %zu: group_hdi %.17g, counted %.17g",
			          GROUPED[f], i, g->group_hdi[i], want);
			for (size_t h = 0; h < G; h++) {
				const struct ha_hdi_tensor *t = &g->groups->tensors[i * G + h];
				cr_assert_eq(t->heads, gs);
				cr_assert(fabs(t->hdi - per_group[h]) < 1e-12,
				          "%s layer %zu group %zu: %.17g, counted %.17g",
				          GROUPED[f], i, h, t->hdi, per_group[h]);
			}
		}
		mean /= (double)e.count;
		cr_assert(fabs(g->mean_group_hdi - mean) < 1e-12, "%s", GROUPED[f]);
		cr_assert(fabs(g->groups->mean_hdi - mean) < 1e-12);
		double base = 1.0 - (double)e.head_dim / (double)e.model_dim;
		cr_assert(fabs(g->baseline_group_hdi - base) < 1e-15);
		cr_assert_eq(g->groups->warning_count, 0);
		/* The fixtures made to differ within groups do; the older ones,
		 * whose query heads all span the same coordinates, give 0. */
		if (strstr(GROUPED[f], "-groups"))
			cr_assert(mean > 0.05 && mean < 1.0, "%s: %g", GROUPED[f], mean);
		else
			cr_assert(fabs(mean) < 1e-12, "%s: %g", GROUPED[f], mean);
		ha_hdi_groups_free(g);
		ha_checkpoint_free(c);
		json_object_put(e.root);
	}
}

static int count_calls(void *ctx, const char *what, uint64_t done,
                       uint64_t total)
{
	int *calls = ctx;
	cr_assert_str_eq(what, "layers");
	cr_assert_eq(done, (uint64_t)*calls + 1);
	cr_assert_eq(total, 3);
	return ++*calls == 2; /* cancel after the second layer */
}

Test(hdi_groups, progress_and_cancel)
{
	struct ha_checkpoint *c;
	struct expect e;
	struct ha_error err;
	open_fixture("llama-groups", &c, &e);
	int calls = 0;
	struct ha_hdi_options o = HA_HDI_OPTIONS_INIT;
	o.progress.fn = count_calls;
	o.progress.ctx = &calls;
	struct ha_hdi_groups *g = (void *)1;
	cr_assert_eq(ha_hdi_measure_groups(c, &o, &g, &err), HA_ECANCELED);
	cr_assert_null(g);
	cr_assert_eq(calls, 2);
	o.progress.fn = NULL;
	o.heads = 2;
	cr_assert_eq(ha_hdi_measure_groups(c, &o, &g, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "re-cut"), "%s", err.message);
	ha_checkpoint_free(c);
	json_object_put(e.root);
}

/* A model whose key heads are its query heads has no groups. */
Test(hdi_groups, not_grouped)
{
	static const char *const plain[] = {"qwen2", "gpt2", "gpt_neox", "bert"};
	for (size_t f = 0; f < sizeof plain / sizeof *plain; f++) {
		struct ha_checkpoint *c;
		struct expect e;
		struct ha_error err;
		open_fixture(plain[f], &c, &e);
		struct ha_hdi_groups *g = (void *)1;
		cr_assert_eq(ha_hdi_measure_groups(c, NULL, &g, &err), HA_EINVAL,
		             "%s", plain[f]);
		cr_assert_null(g);
		cr_assert(strstr(err.message, "not grouped"), "%s", err.message);
		ha_checkpoint_free(c);
		json_object_put(e.root);
	}
	cr_assert_eq(ha_hdi_measure_groups(NULL, NULL, NULL, NULL), HA_EINVAL);
	ha_hdi_groups_free(NULL);
}
