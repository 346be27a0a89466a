/* Model directories beyond the presets (checkpoint.h, hdi.h): tensors
 * chosen by name (ha_checkpoint_open_tensors) and key blocks cut into
 * another number of heads (ha_hdi_options.heads).
 *
 * The fixtures of tests/data/checkpoints (make_fixtures.py) have known
 * subspaces: key head h of layer i spans the coordinates listed in
 * expect.json and every query head the first d_k coordinates.  Heads
 * spanning coordinate sets U and V have overlap |U & V| / sqrt(|U| |V|)
 * (||Q_U^T Q_V||_F^2 = |U & V|, ranks |U| and |V|), counted here. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <headalloc/headalloc.h>
#include "hdi/hdi_internal.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif

TestSuite(checkpoint_tensors);

/* The HDI of every layer of c, its key block cut into `heads` heads. */
static enum ha_status measure_heads(const struct ha_checkpoint *c,
                                    size_t heads, struct ha_hdi_report **out,
                                    struct ha_error *err)
{
	struct ha_hdi_options o = HA_HDI_OPTIONS_INIT;
	o.heads = heads;
	return ha_hdi_measure_checkpoint(c, &o, out, err);
}

static struct ha_checkpoint *open_preset(const char *arch)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s", FIXTURES, arch);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(dir, &c, &err), HA_OK, "%s: %s", arch,
	             err.message);
	return c;
}

/* Coordinate j of key head h of layer i, from expect.json. */
static size_t coord(json_object *root, size_t i, size_t h, size_t j)
{
	json_object *layers, *sets;
	cr_assert(json_object_object_get_ex(root, "layers", &layers));
	json_object *ly = json_object_array_get_idx(layers, i);
	cr_assert(json_object_object_get_ex(ly, "sets", &sets));
	json_object *set = json_object_array_get_idx(sets, h);
	return (size_t)json_object_get_int64(json_object_array_get_idx(set, j));
}

/* ------------------------------------------------- another head count */

/* LLaMA's 4 key heads of 4 in d_model 32, cut into 2 heads of 8 (head g
 * spans the union of key heads 2g and 2g+1) and into 1 head. */
Test(checkpoint_tensors, key_block_recut)
{
	struct ha_checkpoint *c = open_preset("llama");
	json_object *root = json_object_from_file(FIXTURES "/llama/expect.json");
	cr_assert_not_null(root);
	cr_assert_eq(c->key_heads, 4);
	cr_assert_eq(c->head_dim, 4);
	struct ha_hdi_report *r = NULL;
	struct ha_error err;
	cr_assert_eq(measure_heads(c, 2, &r, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(r->count, c->count);
	double mean = 0.0;
	for (size_t i = 0; i < r->count; i++) {
		const struct ha_hdi_tensor *t = &r->tensors[i];
		cr_assert_eq(t->heads, 2);
		cr_assert_eq(t->head_dim, 8);
		cr_assert_eq(t->model_dim, 32);
		int in[2][32] = {{0}};
		size_t size[2] = {0, 0};
		for (size_t g = 0; g < 2; g++)
			for (size_t h = 2 * g; h < 2 * g + 2; h++)
				for (size_t j = 0; j < 4; j++) {
					size_t x = coord(root, i, h, j);
					size[g] += !in[g][x];
					in[g][x] = 1;
				}
		size_t common = 0;
		for (size_t x = 0; x < 32; x++)
			common += in[0][x] && in[1][x];
		double g01 = (double)common / sqrt((double)size[0] * (double)size[1]);
		cr_assert(fabs(t->overlap[1] - g01) < 1e-12, "layer %zu: %.17g, "
		          "want %.17g", i, t->overlap[1], g01);
		cr_assert(fabs(t->hdi - (1.0 - g01)) < 1e-12);
		cr_assert_eq(t->rank[0], size[0]);
		cr_assert_eq(t->rank[1], size[1]);
		/* random 8-dimensional heads in R^32 */
		cr_assert_eq(t->baseline_hdi, 1.0 - 8.0 / 32.0);
		mean += t->hdi;
	}
	cr_assert(fabs(r->mean_hdi - mean / (double)r->count) < 1e-15);
	cr_assert_eq(r->mean_baseline_hdi, 0.75);
	ha_hdi_report_free(r);

	/* one head: HDI 1 by convention, and so is its baseline */
	cr_assert_eq(measure_heads(c, 1, &r, &err), HA_OK);
	cr_assert_eq(r->tensors[0].heads, 1);
	cr_assert_eq(r->tensors[0].head_dim, 16);
	cr_assert_eq(r->mean_hdi, 1.0);
	cr_assert_eq(r->mean_baseline_hdi, 1.0);
	ha_hdi_report_free(r);

	/* 0 is the plan's own key heads: the same as no options */
	struct ha_hdi_report *a = NULL, *b = NULL;
	cr_assert_eq(measure_heads(c, 0, &a, &err), HA_OK);
	cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &b, &err), HA_OK);
	cr_assert_eq(a->tensors[1].heads, 4);
	cr_assert_eq(a->mean_hdi, b->mean_hdi);
	ha_hdi_report_free(a);
	ha_hdi_report_free(b);

	r = (struct ha_hdi_report *)&r;
	cr_assert_eq(measure_heads(c, 3, &r, &err), HA_EINVAL);
	cr_assert_null(r);
	cr_assert_str_eq(err.message, "3 heads do not divide the 16 outputs of "
	                 "the key block (4 key heads of 4)");
	json_object_put(root);
	ha_checkpoint_free(c);
}

/* ------------------------------------------------- tensors by name */

/* Choosing the key tensors by name finds what the preset finds, in every
 * architecture whose keys have a tensor of their own: the same tensors
 * in the same shards and the same HDI, bit for bit. */
Test(checkpoint_tensors, by_name_agrees_with_the_preset)
{
	static const struct {
		const char *arch, *pattern;
	} cases[] = {
		{"llama", "model.layers.*.self_attn.k_proj.weight"},
		{"mistral", "*k_proj.weight"},
		{"qwen2", "model.layers.*.self_attn.k_proj.weight"},
		{"gemma", "*.k_proj.weight"},
		{"bert", "bert.encoder.layer.*.attention.self.key.weight"},
		{"t5", "*.k.weight"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct ha_checkpoint *p = open_preset(cases[k].arch);
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", FIXTURES, cases[k].arch);
		struct ha_checkpoint *c = NULL;
		struct ha_error err;
		cr_assert_eq(ha_checkpoint_open_tensors(dir, cases[k].pattern,
		                                        p->key_heads, p->layout,
		                                        &c, &err), HA_OK, "%s: %s",
		             cases[k].arch, err.message);
		cr_assert_str_eq(c->model_type, p->model_type);
		cr_assert_eq(c->count, p->count, "%s", cases[k].arch);
		cr_assert_eq(c->key_heads, p->key_heads);
		cr_assert_eq(c->head_dim, p->head_dim);
		cr_assert_eq(c->model_dim, p->model_dim);
		cr_assert_eq(c->fusion, HA_FUSION_SEPARATE);
		struct ha_hdi_report *rc = NULL, *rp = NULL;
		cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &rc, &err), HA_OK, "%s",
		             err.message);
		cr_assert_eq(ha_hdi_measure_checkpoint(p, NULL, &rp, &err), HA_OK);
		for (size_t i = 0; i < c->count; i++) {
			size_t j = 0;
			while (j < p->count &&
			       strcmp(p->layers[j].tensor, c->layers[i].tensor))
				j++;
			cr_assert_lt(j, p->count, "%s: %s is no key tensor",
			             cases[k].arch, c->layers[i].tensor);
			cr_assert_str_eq(c->layers[i].shard_name,
			                 p->layers[j].shard_name);
			cr_assert_str_eq(c->layers[i].role, "selected");
			cr_assert_eq(c->layers[i].block, i);
			cr_assert_eq(rc->tensors[i].hdi, rp->tensors[j].hdi, "%s %s",
			             cases[k].arch, c->layers[i].tensor);
		}
		ha_hdi_report_free(rc);
		ha_hdi_report_free(rp);
		ha_checkpoint_free(c);
		ha_checkpoint_free(p);
	}
}

/* The queries, which no preset reads: every query head of the fixtures
 * spans the same first d_k coordinates, so the HDI is 0. */
Test(checkpoint_tensors, queries_by_name)
{
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open_tensors(FIXTURES "/llama",
	                                        "*.q_proj.weight", 8,
	                                        HA_LAYOUT_OUT_IN, &c, &err),
	             HA_OK, "%s", err.message);
	cr_assert_eq(c->count, 2);
	cr_assert_eq(c->head_dim, 4);
	cr_assert_str_eq(c->reason, "8 heads per tensor, as given");
	struct ha_hdi_report *r = NULL;
	cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &r, &err), HA_OK, "%s",
	             err.message);
	for (size_t i = 0; i < r->count; i++) {
		cr_assert(fabs(r->tensors[i].hdi) < 1e-12, "%.17g",
		          r->tensors[i].hdi);
		cr_assert_eq(r->tensors[i].baseline_hdi, 1.0 - 4.0 / 32.0);
	}
	ha_hdi_report_free(r);
	ha_checkpoint_free(c);
}

static void expect_refused(const char *dir, const char *pattern,
                           size_t heads, enum ha_status status,
                           const char *message)
{
	struct ha_checkpoint *c = (struct ha_checkpoint *)&c;
	struct ha_error err;
	enum ha_status st = ha_checkpoint_open_tensors(dir, pattern, heads,
	                                               HA_LAYOUT_OUT_IN, &c, &err);
	cr_assert_eq(st, status, "%s %s: status %d (%s)", dir, pattern, st,
	             err.message);
	cr_assert_null(c);
	cr_assert_str_eq(err.message, message);
}

Test(checkpoint_tensors, refused)
{
	const char *llama = FIXTURES "/llama";
	expect_refused(llama, "*.v_proj.weight", 4, HA_EINVAL,
	               "model.safetensors.index.json: no tensor matches "
	               "'*.v_proj.weight'");
	expect_refused(llama, "*k_proj.weight", 3, HA_EINVAL,
	               "model-00001-of-00002.safetensors: tensor "
	               "'model.layers.0.self_attn.k_proj.weight' [16, 32]: 3 "
	               "heads do not divide its 16 outputs (layout out-in)");
	/* natural order puts embed.weight [4, 32] first */
	expect_refused(llama, "*.weight", 4, HA_EINVAL,
	               "model-00001-of-00002.safetensors: tensor "
	               "'model.layers.0.self_attn.k_proj.weight' is [16, 32], "
	               "unlike 'embed.weight' [4, 32]: the tensors selected "
	               "must have one shape");
	expect_refused(llama, "*.bias", 4, HA_EUNSUPPORTED,
	               "model-00001-of-00002.safetensors: tensor "
	               "'model.layers.0.self_attn.k_proj.bias' has 1 "
	               "dimensions; a key projection must be 2-D");
	expect_refused(FIXTURES "/bad-missing-shard", "*k_proj.weight", 4,
	               HA_EFORMAT, "model-00002-of-00002.safetensors: missing: "
	               "model.safetensors.index.json names it, but the "
	               "directory has no such file");
	expect_refused(FIXTURES "/bad-index-orphan", "*k_proj.weight", 4,
	               HA_EFORMAT, "model-00001-of-00002.safetensors: has no "
	               "tensor 'model.layers.1.self_attn.k_proj.weight', which "
	               "the index puts there");
	expect_refused(llama, "*", 0, HA_EINVAL, "0 heads: expected from 1 to 65536");
	struct ha_checkpoint *c;
	cr_assert_eq(ha_checkpoint_open_tensors(llama, NULL, 1, HA_LAYOUT_OUT_IN,
	                                        &c, NULL), HA_EINVAL);
}

/* ------------------------------------------- a directory made here */

static char tmp[64];

static void tmp_setup(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/ha_test_ckpt_tensors_XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void tmp_teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

/* A model.safetensors of 2 x 2 F32 tensors named names[i] (the identity
 * times i + 1), without config.json. */
static void write_tensors(const char *const *names, size_t n)
{
	char header[1024];
	size_t at = (size_t)snprintf(header, sizeof header, "{");
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(header + at, sizeof header - at,
		                       "%s\"%s\":{\"dtype\":\"F32\",\"shape\":"
		                       "[2,2],\"data_offsets\":[%zu,%zu]}",
		                       i ? "," : "", names[i], 16 * i, 16 * i + 16);
	snprintf(header + at, sizeof header - at, "}");
	char path[128];
	snprintf(path, sizeof path, "%s/model.safetensors", tmp);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	uint64_t len = strlen(header);
	unsigned char le[8];
	for (int b = 0; b < 8; b++)
		le[b] = (unsigned char)(len >> (8 * b));
	cr_assert_eq(fwrite(le, 1, 8, f), 8);
	cr_assert_eq(fwrite(header, 1, len, f), len);
	for (size_t i = 0; i < n; i++) {
		float v[4] = {(float)(i + 1), 0, 0, (float)(i + 1)};
		cr_assert_eq(fwrite(v, sizeof v[0], 4, f), 4); /* little-endian host */
	}
	cr_assert_eq(fclose(f), 0);
}

/* Layer 2 before layer 10 (and leading zeros compare as numbers); no
 * config.json: model_type "". */
Test(checkpoint_tensors, natural_order_without_config, .init = tmp_setup,
     .fini = tmp_teardown)
{
	static const char *const names[] = {"l.10.k", "l.2.k", "l.1.k", "l.0.k",
	                                    "l.11.k", "l.09.k", "l.100.k",
	                                    "m.0.k"};
	write_tensors(names, sizeof names / sizeof names[0]);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open_tensors(tmp, "l.*.k", 2, HA_LAYOUT_IN_OUT,
	                                        &c, &err), HA_OK, "%s",
	             err.message);
	static const char *const want[] = {"l.0.k", "l.1.k", "l.2.k", "l.09.k",
	                                   "l.10.k", "l.11.k", "l.100.k"};
	cr_assert_eq(c->count, 7);
	for (size_t i = 0; i < 7; i++) {
		cr_assert_str_eq(c->layers[i].tensor, want[i]);
		cr_assert_str_eq(c->layers[i].shard_name, "model.safetensors");
	}
	cr_assert_str_eq(c->model_type, "");
	cr_assert_eq(c->layout, HA_LAYOUT_IN_OUT);
	cr_assert_eq(c->head_dim, 1);
	cr_assert_eq(c->model_dim, 2);
	/* two orthogonal heads of one dimension: HDI 1, random 1/2 */
	struct ha_hdi_report *r = NULL;
	cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &r, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(r->mean_hdi, 1.0);
	cr_assert_eq(r->mean_baseline_hdi, 0.5);
	ha_hdi_report_free(r);
	ha_checkpoint_free(c);
}

/* A name that exists selects that tensor alone, even when it also reads
 * as a pattern matching others (as ha_weights_select). */
Test(checkpoint_tensors, exact_name_alone, .init = tmp_setup,
     .fini = tmp_teardown)
{
	static const char *const names[] = {"l.1.k", "l.?.k", "l.2.k"};
	write_tensors(names, 3);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open_tensors(tmp, "l.?.k", 2, HA_LAYOUT_OUT_IN,
	                                        &c, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(c->count, 1);
	cr_assert_str_eq(c->layers[0].tensor, "l.?.k");
	ha_checkpoint_free(c);
	cr_assert_eq(ha_checkpoint_open_tensors(tmp, "l.[12].k", 2,
	                                        HA_LAYOUT_OUT_IN, &c, &err), HA_OK);
	cr_assert_eq(c->count, 2);
	cr_assert_str_eq(c->layers[0].tensor, "l.1.k");
	cr_assert_str_eq(c->layers[1].tensor, "l.2.k");
	ha_checkpoint_free(c);
}

/* A glob passes by the 1-D biases it matches and the plan's warning says
 * so; the keys it keeps are the preset's, layer by layer. */
Test(checkpoint_tensors, glob_passes_by_biases)
{
	const char *dir = FIXTURES "/llama";
	struct ha_checkpoint *c = NULL, *preset = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open_tensors(dir, "*.self_attn.k_proj.*", 4,
	                                        HA_LAYOUT_OUT_IN, &c, &err),
	             HA_OK, "%s", err.message);
	cr_assert_eq(ha_checkpoint_open(dir, &preset, &err), HA_OK);
	cr_assert_eq(c->count, preset->count);
	for (size_t i = 0; i < c->count; i++) {
		cr_assert_str_eq(c->layers[i].tensor, preset->layers[i].tensor);
		cr_assert_eq(c->layers[i].block, i);
	}
	cr_assert_str_eq(c->warning, "'*.self_attn.k_proj.*' also matches 2 "
	                 "tensors that are not 2-D, passed by "
	                 "('model.layers.0.self_attn.k_proj.bias' has 1 "
	                 "dimension)");
	ha_checkpoint_free(c);
	ha_checkpoint_free(preset);
}
