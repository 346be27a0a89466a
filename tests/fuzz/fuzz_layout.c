/* libFuzzer target: the layout of a model directory (fuzz_layout).  An
 * input is a list of 3-byte steps [op][path][what] that build a tree
 * under a scratch directory: copy a fixture file, make a symbolic link
 * (to ../../blobs/X, outside the tree, to itself, to /etc/hostname, ...),
 * make a directory, or write a JSON file.  Then CACHE/snapshots/rev is
 * opened as a model directory, by preset and by tensor name, and every
 * key block read: each either works or fails with a status and a message
 * naming the directory (or the shard), and nothing outside the tree is
 * ever read as part of the model (a plan's shard resolves inside the
 * tree).  Seeds: corpus/layout (a real Hugging Face cache, a blobs link,
 * both model.safetensors and an index, ...). */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, symlink */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <headalloc/headalloc.h>
#include "checkpoint/checkpoint_internal.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const PATHS[] = {
	"cache/snapshots/rev/config.json",
	"cache/snapshots/rev/model.safetensors",
	"cache/snapshots/rev/model.safetensors.index.json",
	"cache/snapshots/rev/model-00001-of-00002.safetensors",
	"cache/snapshots/rev/model-00002-of-00002.safetensors",
	"cache/blobs", "cache/blobs/a", "cache/blobs/b", "cache/blobs/c",
	"cache/blobs/d", "cache/snapshots/rev", "cache/snapshots", "outside",
	"outside/x", "cache/snapshots/rev/sub", "cache/other",
};
static const char *const TARGETS[] = {
	"../../blobs/a", "../../blobs/b", "../../blobs/c", "../../blobs/d",
	"../../../outside", "/etc/hostname", "../../../outside/x", "..", ".",
	"rev", "model.safetensors", "sub/../config.json", "/dev/zero",
	"../../blobs", "other", "../other",
};
static const char *const FILES[] = {
	"llama/config.json", "llama/model.safetensors.index.json",
	"llama/model-00001-of-00002.safetensors",
	"llama/model-00002-of-00002.safetensors", "mistral/config.json",
	"mistral/model.safetensors", "gpt2/config.json", "gpt2/model.safetensors",
};
static const char *const JSON[] = {
	"{}", "{\"weight_map\": {}}", "{'model_type': 'llama'}",
	"{\"model_type\": \"llama\", \"hidden_size\": 18446744073709551616}",
	"{\"weight_map\": {\"model.layers.0.self_attn.k_proj.weight\": "
	"\"../outside/x\"}}",
	"{\"weight_map\": {\"model.layers.0.self_attn.k_proj.weight\": "
	"\"model.safetensors\"}}",
	"[1,]", "{\"a\": 1, \"a\": 2}",
};
#define COUNT(a) (sizeof (a) / sizeof (a)[0])

static char scratch[64], tree[96];

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	if (scratch[0])
		nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(scratch, sizeof scratch, "%s/ha_fuzz_layout_XXXXXX", base);
	if (!mkdtemp(scratch))
		abort();
	snprintf(tree, sizeof tree, "%s/t", scratch);
	atexit(cleanup);
	return 0;
}

/* mkdir -p of path's parent (inside the tree; failures are the input's). */
static void parents(char *path)
{
	for (char *s = path + strlen(tree) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	if (in && out) {
		char buf[1 << 14];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				break;
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

static void check_failure(enum ha_status st, const struct ha_error *err)
{
	if (st == HA_OK || err->status != st || err->message[0] == '\0' ||
	    !err->file)
		abort();
}

/* A plan's shards resolve inside the tree. */
static void check_inside(const struct ha_checkpoint *c)
{
	size_t n = strlen(scratch);
	for (size_t i = 0; i < c->count; i++)
		if (strncmp(c->layers[i].shard, scratch, n) != 0)
			abort();
}

static void measure(struct ha_checkpoint *c)
{
	check_inside(c);
	for (size_t i = 0; i < c->count; i++) {
		double *keys = NULL;
		size_t rows, cols;
		struct ha_error err;
		enum ha_status st = ha_checkpoint_read_keys(c, i, &keys, &rows,
		                                            &cols, &err);
		if (st != HA_OK)
			check_failure(st, &err);
		free(keys);
	}
	ha_checkpoint_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nftw(tree, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (mkdir(tree, 0755) != 0)
		abort();
	for (size_t i = 0; i + 3 <= size && i < 3 * 32; i += 3) {
		char path[256], from[512];
		snprintf(path, sizeof path, "%s/%s", tree,
		         PATHS[data[i + 1] % COUNT(PATHS)]);
		parents(path);
		uint8_t what = data[i + 2];
		switch (data[i] % 4) {
		case 0:
			snprintf(from, sizeof from, "%s/%s", FIXTURES,
			         FILES[what % COUNT(FILES)]);
			copy_file(from, path);
			break;
		case 1:
			if (symlink(TARGETS[what % COUNT(TARGETS)], path) != 0)
				break;
			break;
		case 2:
			mkdir(path, 0755);
			break;
		default: {
			FILE *f = fopen(path, "wb");
			if (f) {
				fputs(JSON[what % COUNT(JSON)], f);
				fclose(f);
			}
		}
		}
	}
	char dir[160];
	snprintf(dir, sizeof dir, "%s/cache/snapshots/rev", tree);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	enum ha_status st = ha_checkpoint_open(dir, &c, &err);
	if (st == HA_OK)
		measure(c);
	else
		check_failure(st, &err);
	st = ha_checkpoint_open_tensors(dir, "*k_proj.weight", 1,
	                                HA_LAYOUT_OUT_IN, &c, &err);
	if (st == HA_OK)
		measure(c);
	else
		check_failure(st, &err);
	return 0;
}
