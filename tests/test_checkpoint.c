/* Tests of model directories (checkpoint.h), the HDI of their key heads,
 * the random baseline, and the fast bases against an independent SVD.
 *
 * The fixtures under tests/data/checkpoints come from make_fixtures.py:
 * every head spans a known set of coordinates (listed in expect.json), so
 * the key block read back is rebuilt here from the sets and the overlap of
 * two key heads is |S_a & S_b| / d_k, by counting. */
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink, mkfifo */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <json-c/json.h>

#include <headalloc/headalloc.h>
#include "hdi/hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif

TestSuite(checkpoint);

/* ------------------------------------------------------------ expect */

struct expect {
	json_object *root;
	size_t model_dim, query_heads, key_heads, head_dim, layers;
	enum ha_layout layout;
	enum ha_key_fusion fusion;
};

static size_t jsize(json_object *o, const char *key)
{
	json_object *v;
	cr_assert(json_object_object_get_ex(o, key, &v), "expect.json: %s", key);
	return (size_t)json_object_get_int64(v);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	cr_assert(json_object_object_get_ex(o, key, &v), "expect.json: %s", key);
	return json_object_get_string(v);
}

static json_object *jlayer(const struct expect *e, size_t i)
{
	json_object *layers;
	json_object_object_get_ex(e->root, "layers", &layers);
	return json_object_array_get_idx(layers, i);
}

/* Coordinate j of key head h of layer i. */
static size_t coord(const struct expect *e, size_t i, size_t h, size_t j)
{
	json_object *sets;
	json_object_object_get_ex(jlayer(e, i), "sets", &sets);
	json_object *set = json_object_array_get_idx(sets, h);
	return (size_t)json_object_get_int64(json_object_array_get_idx(set, j));
}

static void load_expect(const char *dir, struct expect *e)
{
	char path[600];
	snprintf(path, sizeof path, "%s/expect.json", dir);
	e->root = json_object_from_file(path);
	cr_assert_not_null(e->root, "cannot read %s", path);
	e->model_dim = jsize(e->root, "model_dim");
	e->query_heads = jsize(e->root, "query_heads");
	e->key_heads = jsize(e->root, "key_heads");
	e->head_dim = jsize(e->root, "head_dim");
	json_object *layers;
	json_object_object_get_ex(e->root, "layers", &layers);
	e->layers = json_object_array_length(layers);
	e->layout = strcmp(jstr(e->root, "layout"), "in-out") == 0
	                    ? HA_LAYOUT_IN_OUT
	                    : HA_LAYOUT_OUT_IN;
	const char *f = jstr(e->root, "fusion");
	e->fusion = strcmp(f, "concatenated") == 0 ? HA_FUSION_CONCATENATED
	            : strcmp(f, "per-head") == 0   ? HA_FUSION_PER_HEAD
	            : strcmp(f, "grouped") == 0    ? HA_FUSION_GROUPED
	                                           : HA_FUSION_SEPARATE;
}

/* The key block of layer i as the generator built it: row j of head h is
 * 2 e_S[j] + sum_{k<j} e_S[k]; stored in the plan's layout. */
static double *expected_keys(const struct expect *e, size_t i)
{
	size_t m = e->model_dim, n = e->head_dim, kd = e->key_heads * n;
	double *w = calloc(kd * m, sizeof *w);
	cr_assert_not_null(w);
	for (size_t h = 0; h < e->key_heads; h++)
		for (size_t j = 0; j < n; j++)
			for (size_t k = 0; k <= j; k++) {
				size_t row = h * n + j, col = coord(e, i, h, k);
				double v = k == j ? 2.0 : 1.0;
				if (e->layout == HA_LAYOUT_OUT_IN)
					w[row * m + col] += v;
				else
					w[col * kd + row] += v;
			}
	return w;
}

/* |S_a & S_b| / d_k: the overlap of two full-rank coordinate heads. */
static double expected_overlap(const struct expect *e, size_t i, size_t a,
                               size_t b)
{
	size_t common = 0;
	for (size_t j = 0; j < e->head_dim; j++)
		for (size_t k = 0; k < e->head_dim; k++)
			common += coord(e, i, a, j) == coord(e, i, b, k);
	return (double)common / (double)e->head_dim;
}

/* ------------------------------------------------ every architecture */

static const char *const ARCHS[] = {
	"llama", "mistral", "qwen2", "gemma", "gpt2", "gpt_neox",
	"falcon", "falcon-mq", "falcon-rw", "bert", "t5",
	"llama-groups", "falcon-groups", "falcon-mq-groups",
	"distilbert", "phi", "phi3", "qwen3", "gemma3", "opt", "bloom",
	"gptj", "starcoder2", "olmo", "mpt",
	/* configurations nesting the fields a preset reads */
	"gemma3-multimodal", "gemma3-multimodal-new", "mpt-gqa", "mpt-mq",
	"mpt-kv-default",
};

static void check_arch(const char *arch)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s", FIXTURES, arch);
	struct expect e;
	load_expect(dir, &e);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(dir, &c, &err), HA_OK, "%s: %s", arch,
	             err.message);
	cr_assert_str_eq(c->model_type, jstr(e.root, "model_type"));
	cr_assert_eq(c->model_dim, e.model_dim, "%s", arch);
	cr_assert_eq(c->query_heads, e.query_heads, "%s", arch);
	cr_assert_eq(c->key_heads, e.key_heads, "%s", arch);
	cr_assert_eq(c->head_dim, e.head_dim, "%s", arch);
	cr_assert_eq(c->layout, e.layout, "%s", arch);
	cr_assert_eq(c->fusion, e.fusion, "%s", arch);
	cr_assert_eq(c->count, e.layers, "%s", arch);
	for (size_t i = 0; i < c->count; i++) {
		json_object *ly = jlayer(&e, i);
		cr_assert_str_eq(c->layers[i].tensor, jstr(ly, "tensor"));
		cr_assert_str_eq(c->layers[i].shard_name, jstr(ly, "shard"));
		cr_assert_str_eq(c->layers[i].role, jstr(ly, "role"));
		cr_assert_eq(c->layers[i].block, jsize(ly, "block"));

		double *got = NULL;
		size_t rows, cols, kd = e.key_heads * e.head_dim;
		cr_assert_eq(ha_checkpoint_read_keys(c, i, &got, &rows, &cols,
		                                     &err), HA_OK, "%s", err.message);
		int outin = e.layout == HA_LAYOUT_OUT_IN;
		cr_assert_eq(rows, outin ? kd : e.model_dim, "%s", arch);
		cr_assert_eq(cols, outin ? e.model_dim : kd, "%s", arch);
		double *want = expected_keys(&e, i);
		for (size_t k = 0; k < rows * cols; k++)
			cr_assert_eq(got[k], want[k], "%s layer %zu element %zu: "
			             "%g, want %g", arch, i, k, got[k], want[k]);
		free(want);
		free(got);
	}

	struct ha_hdi_report *r = NULL;
	cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &r, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(r->count, c->count);
	size_t H = e.key_heads, m = e.model_dim, n = e.head_dim;
	double mean = 0.0;
	for (size_t i = 0; i < r->count; i++) {
		const struct ha_hdi_tensor *t = &r->tensors[i];
		cr_assert_str_eq(t->name, c->layers[i].tensor);
		cr_assert_eq(t->heads, H);
		double sum = 0.0;
		for (size_t a = 0; a < H; a++)
			for (size_t b = a + 1; b < H; b++) {
				double g = expected_overlap(&e, i, a, b);
				sum += g;
				cr_assert(fabs(t->overlap[a * H + b] - g) < 1e-12,
				          "%s layer %zu overlap (%zu, %zu) %.17g, "
				          "want %.17g", arch, i, a, b,
				          t->overlap[a * H + b], g);
			}
		double hdi = H > 1 ? 1.0 - sum / (double)(H * (H - 1) / 2) : 1.0;
		cr_assert(fabs(t->hdi - hdi) < 1e-12, "%s layer %zu hdi %.17g, "
		          "want %.17g", arch, i, t->hdi, hdi);
		mean += hdi;
		double base = H > 1 ? 1.0 - (double)(n < m ? n : m) / (double)m
		                    : 1.0;
		cr_assert(fabs(t->baseline_hdi - base) < 1e-15, "%s", arch);
		cr_assert(fabs(r->mean_baseline_hdi - base) < 1e-15, "%s", arch);
	}
	cr_assert(fabs(r->mean_hdi - mean / (double)r->count) < 1e-12);
	ha_hdi_report_free(r);
	ha_checkpoint_free(c);
	json_object_put(e.root);
}

Test(checkpoint, every_architecture)
{
	for (size_t i = 0; i < sizeof ARCHS / sizeof ARCHS[0]; i++)
		check_arch(ARCHS[i]);
}

/* The heads used and why: what a report prints. */
Test(checkpoint, reasons)
{
	static const struct {
		const char *arch, *reason, *fusion;
	} cases[] = {
		{"llama", "4 key heads (grouped-query: 8 query heads share them)",
		 "separate"},
		{"falcon-mq", "1 key head (multi-query: 4 query heads share it)",
		 "concatenated q|k|v"},
		{"bert", "4 key heads (one per query head)", "separate"},
		{"gpt_neox", "4 key heads (one per query head)", "per-head q,k,v"},
		{"falcon", "2 key heads (grouped-query: 8 query heads share them)",
		 "grouped q..,k,v"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", FIXTURES, cases[i].arch);
		struct ha_checkpoint *c = NULL;
		cr_assert_eq(ha_checkpoint_open(dir, &c, NULL), HA_OK);
		cr_assert_str_eq(c->reason, cases[i].reason);
		cr_assert_str_eq(ha_key_fusion_str(c->fusion), cases[i].fusion);
		ha_checkpoint_free(c);
	}
	ha_checkpoint_free(NULL);
}

/* ------------------------------------------------- hostile directories */

static void expect_failure(const char *dir, enum ha_status status,
                           const char *needle)
{
	struct ha_checkpoint *c = (struct ha_checkpoint *)&c;
	struct ha_error err;
	enum ha_status st = ha_checkpoint_open(dir, &c, &err);
	cr_assert_eq(st, status, "%s: status %d (%s), want %d", dir, st,
	             err.message, status);
	cr_assert_null(c);
	cr_assert_eq(err.status, status);
	cr_assert_eq(err.file, dir, "%s: err.file must be the directory", dir);
	cr_assert(strstr(err.message, needle), "%s: message '%s' lacks '%s'",
	          dir, err.message, needle);
}

Test(checkpoint, hostile_fixtures)
{
	static const struct {
		const char *dir;
		enum ha_status status;
		const char *needle;
	} cases[] = {
		{"bad-missing-shard", HA_EFORMAT,
		 "model-00002-of-00002.safetensors: missing: "
		 "model.safetensors.index.json names it, but the directory has "
		 "no such file"},
		{"bad-index-orphan", HA_EFORMAT,
		 "model-00001-of-00002.safetensors: has no tensor "
		 "'model.layers.1.self_attn.k_proj.weight', which the index "
		 "puts there"},
		{"bad-config-shape", HA_EFORMAT,
		 "has 2 dimensions [16, 32]; config.json implies [32, 32] (8 key "
		 "heads of 4, d_model 32)"},
		{"bad-gqa-groups", HA_EFORMAT,
		 "config.json: 8 attention heads cannot share 3 key heads"},
		{"bad-extra-layer", HA_EFORMAT,
		 "config.json: says 1 layer, but the checkpoint has "
		 "'model.layers.1.self_attn.k_proj.weight'"},
		{"bad-field-type", HA_EFORMAT,
		 "config.json: 'num_attention_heads' is \"6\", not a number; it must be a whole "
		 "number"},
		{"bad-model-type", HA_EUNSUPPORTED,
		 "config.json: model_type 'mamba' has no preset"},
		{"bad-symlink", HA_EFORMAT,
		 "model.safetensors: resolves to "},
		{"bad-shard-path", HA_EFORMAT,
		 "../llama/model-00001-of-00002.safetensors: a file of the model "
		 "must be named relative to its directory, without '..'"},
		{"bad-config-json", HA_EFORMAT, "config.json:4:3: "},
		{"bad-index-json", HA_EFORMAT,
		 "model.safetensors.index.json:"},
		{"bad-no-weights", HA_EIO,
		 "model.safetensors: cannot open: no such file, nor "
		 "model.safetensors.index.json"},
		{"bad-pytorch-only", HA_EUNSUPPORTED,
		 "pytorch_model.bin: pickled weights are not read"},
		{"bad-not-2d", HA_EFORMAT, "has 3 dimensions [3, 4, ...]"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", FIXTURES, cases[i].dir);
		expect_failure(dir, cases[i].status, cases[i].needle);
	}
	struct ha_error err;
	struct ha_checkpoint *c;
	cr_assert_eq(ha_checkpoint_open(NULL, &c, &err), HA_EINVAL);
	cr_assert_eq(ha_checkpoint_open(FIXTURES "/llama", NULL, &err),
	             HA_EINVAL);
	expect_failure(FIXTURES "/no-such-model", HA_EIO,
	               "cannot read the model directory");
	expect_failure(FIXTURES "/make_fixtures.py", HA_EIO, "not a directory");
}

/* ----------------------------------------- directories made on the spot */

#define SCRATCH_PREFIX "/tmp/ha_test_ckpt_"
#include "scratch_dir.h"

/* A Hugging Face cache: snapshots/REV/F are symlinks to ../../blobs/HASH,
 * outside the snapshot directory, and are accepted; the same link from a
 * directory that is not a snapshot is not. */
Test(checkpoint, hugging_face_cache_layout, .init = tmp_setup,
     .fini = tmp_teardown)
{
	cr_assert_eq(mkdir(at("blobs"), 0755), 0);
	cr_assert_eq(mkdir(at("snapshots"), 0755), 0);
	cr_assert_eq(mkdir(at("snapshots/abc123"), 0755), 0);
	copy_file(FIXTURES "/mistral/config.json", at("blobs/c0ffee"));
	copy_file(FIXTURES "/mistral/model.safetensors", at("blobs/beef"));
	cr_assert_eq(symlink("../../blobs/c0ffee",
	                     at("snapshots/abc123/config.json")), 0);
	cr_assert_eq(symlink("../../blobs/beef",
	                     at("snapshots/abc123/model.safetensors")), 0);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(at("snapshots/abc123"), &c, &err), HA_OK,
	             "%s", err.message);
	cr_assert_eq(c->count, 2);
	cr_assert_str_eq(c->layers[0].shard_name, "model.safetensors");
	cr_assert(strstr(c->layers[0].shard, "/blobs/beef"));
	ha_checkpoint_free(c);

	cr_assert_eq(mkdir(at("other"), 0755), 0);
	cr_assert_eq(mkdir(at("other/abc123"), 0755), 0);
	copy_file(FIXTURES "/mistral/config.json", at("other/abc123/config.json"));
	cr_assert_eq(symlink("../../blobs/beef",
	                     at("other/abc123/model.safetensors")), 0);
	expect_failure(at("other/abc123"), HA_EFORMAT,
	               "outside the model directory");
}

Test(checkpoint, oversized_config_and_fifo, .init = tmp_setup,
     .fini = tmp_teardown)
{
	/* a sparse file just over the limit: refused before it is read */
	FILE *f = fopen(at("config.json"), "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, (long)HA_CHECKPOINT_MAX_CONFIG, SEEK_SET), 0);
	cr_assert_eq(fputc('}', f), '}');
	cr_assert_eq(fclose(f), 0);
	expect_failure(tmp, HA_EFORMAT, "config.json: 4194305 bytes, more than "
	               "the limit of 4194304");

	/* a FIFO where the weights should be: never opened, never blocks */
	copy_file(FIXTURES "/mistral/config.json", at("config.json"));
	cr_assert_eq(mkfifo(at("model.safetensors"), 0644), 0);
	expect_failure(tmp, HA_EFORMAT, "model.safetensors: not a regular file");
}

/* A shard rewritten after the plan was made: reading says so. */
Test(checkpoint, shard_changed_after_open, .init = tmp_setup,
     .fini = tmp_teardown)
{
	copy_file(FIXTURES "/mistral/config.json", at("config.json"));
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(tmp, &c, &err), HA_OK, "%s", err.message);
	copy_file(FIXTURES "/gemma/model.safetensors", at("model.safetensors"));
	double *w = (double *)&w;
	size_t rows, cols;
	cr_assert_eq(ha_checkpoint_read_keys(c, 0, &w, &rows, &cols, &err),
	             HA_EFORMAT);
	cr_assert_null(w);
	cr_assert_eq(err.file, c->layers[0].shard);
	cr_assert(strstr(err.message, "changed shape"), "%s", err.message);
	cr_assert_eq(ha_checkpoint_read_keys(c, 2, &w, &rows, &cols, &err),
	             HA_EINVAL);
	struct ha_hdi_report *r;
	cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &r, &err), HA_EFORMAT);
	cr_assert_null(r);
	ha_checkpoint_free(c);
}

/* Bytes of config.json and of the index overwritten at random: every
 * result is a status with a message, never a crash (the sanitizer build
 * runs this too). */
Test(checkpoint, mutated_json_never_crashes, .init = tmp_setup,
     .fini = tmp_teardown)
{
	static const char *const files[] = {
		"config.json", "model.safetensors.index.json",
		"model-00001-of-00002.safetensors",
		"model-00002-of-00002.safetensors",
	};
	char src[512];
	unsigned long long state = 0x9E3779B97F4A7C15ull;
	for (int round = 0; round < 300; round++) {
		for (size_t i = 0; i < 4; i++) {
			snprintf(src, sizeof src, "%s/llama/%s", FIXTURES, files[i]);
			copy_file(src, at(files[i]));
		}
		const char *victim = at(files[round % 2]);
		FILE *f = fopen(victim, "r+b");
		cr_assert_not_null(f);
		cr_assert_eq(fseek(f, 0, SEEK_END), 0);
		long size = ftell(f);
		for (int k = 0; k < 1 + round % 4; k++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			long pos = (long)((state >> 33) % (unsigned long long)size);
			static const char bytes[] = "{}[]\",:0123456789.-eE \\nulltrue";
			cr_assert_eq(fseek(f, pos, SEEK_SET), 0);
			fputc(bytes[(state >> 17) % (sizeof bytes - 1)], f);
		}
		cr_assert_eq(fclose(f), 0);
		struct ha_checkpoint *c = NULL;
		struct ha_error err;
		enum ha_status st = ha_checkpoint_open(tmp, &c, &err);
		if (st == HA_OK) {
			struct ha_hdi_report *r = NULL;
			st = ha_hdi_measure_checkpoint(c, NULL, &r, &err);
			ha_hdi_report_free(r);
			ha_checkpoint_free(c);
		}
		cr_assert(st == HA_OK || st == HA_EFORMAT || st == HA_EIO ||
		          st == HA_EUNSUPPORTED, "round %d: status %d", round, st);
		if (st != HA_OK)
			cr_assert(err.message[0] != '\0', "round %d", round);
	}
}
