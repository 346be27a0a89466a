/* libFuzzer targets: the readers of a model directory's config.json
 * (built as fuzz_config, FUZZ_FILE "config.json") and of its
 * model.safetensors.index.json (fuzz_index).
 *
 * At start-up every fixture directory of tests/data/checkpoints is copied
 * into a scratch directory, so that a mutated file sits among real shards
 * and the reader goes as deep as the input lets it: the plan, each
 * layer's key block, the HDI, and the plan of tensors by name.  The first
 * byte of an input picks the fixture; the rest replaces its file.  Every
 * input either opens or fails with a status and a message naming the
 * directory. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <headalloc/headalloc.h>
#include "hdi/hdi_internal.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif
#ifndef FUZZ_FILE
#error "FUZZ_FILE must name the file fuzzed"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Fixtures with an index (fuzz_index) or all of them (fuzz_config). */
static const char *const ARCHS[] = {
	"llama", "gpt_neox", "falcon", "qwen2", "bert", "falcon-rw",
	"mistral", "gemma", "gpt2", "falcon-mq", "t5",
};
#define WITH_INDEX 6

static char scratch[64];

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	if (!in || !out)
		abort();
	char buf[1 << 14];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			abort();
	fclose(in);
	if (fclose(out) != 0)
		abort();
}

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
	snprintf(scratch, sizeof scratch, "%s/ha_fuzz_ckpt_XXXXXX", base);
	if (!mkdtemp(scratch))
		abort();
	atexit(cleanup);
	static const char *const files[] = {
		"config.json", "model.safetensors", "model.safetensors.index.json",
		"model-00001-of-00001.safetensors",
		"model-00001-of-00002.safetensors",
		"model-00002-of-00002.safetensors",
	};
	for (size_t a = 0; a < sizeof ARCHS / sizeof ARCHS[0]; a++) {
		char dir[256], from[512], to[512];
		snprintf(dir, sizeof dir, "%s/%s", scratch, ARCHS[a]);
		if (mkdir(dir, 0755) != 0)
			abort();
		for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
			snprintf(from, sizeof from, "%s/%s/%s", FIXTURES, ARCHS[a],
			         files[f]);
			snprintf(to, sizeof to, "%s/%s", dir, files[f]);
			if (access(from, R_OK) == 0)
				copy_file(from, to);
		}
	}
	return 0;
}

/* A failure must say something and name the directory (or, for a read,
 * the shard). */
static void check_failure(enum ha_status st, const struct ha_error *err)
{
	if (st == HA_OK || err->status != st || err->message[0] == '\0' ||
	    !err->file)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	int with_index = strcmp(FUZZ_FILE, "config.json") != 0;
	size_t n = with_index ? WITH_INDEX : sizeof ARCHS / sizeof ARCHS[0];
	char dir[256], path[512];
	snprintf(dir, sizeof dir, "%s/%s", scratch, ARCHS[data[0] % n]);
	snprintf(path, sizeof path, "%s/%s", dir, FUZZ_FILE);
	char saved[512];
	snprintf(saved, sizeof saved, "%s.orig", path);
	/* keep the fixture's own file to put back afterwards */
	if (access(saved, F_OK) != 0 && rename(path, saved) != 0)
		abort();
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f) != 0)
		abort();

	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	enum ha_status st = ha_checkpoint_open(dir, &c, &err);
	if (st == HA_OK) {
		if (!c || c->count == 0 || !c->model_type || c->key_heads == 0 ||
		    c->head_dim == 0 || c->query_heads % c->key_heads != 0)
			abort();
		struct ha_hdi_report *r = NULL;
		st = ha_hdi_measure_checkpoint(c, NULL, &r, &err);
		if (st == HA_OK) {
			if (r->count != c->count || !(r->mean_hdi >= 0.0) ||
			    !(r->mean_hdi <= 1.0 + 1e-12))
				abort();
		} else if (err.message[0] == '\0') {
			abort();
		}
		ha_hdi_report_free(r);
		ha_checkpoint_free(c);
	} else {
		if (c)
			abort();
		check_failure(st, &err);
	}

	/* The same directory read by name, which needs no config. */
	c = NULL;
	st = ha_checkpoint_open_tensors(dir, "*k*.weight", 1, HA_LAYOUT_OUT_IN,
	                                &c, &err);
	if (st == HA_OK)
		ha_checkpoint_free(c);
	else if (c || err.message[0] == '\0')
		abort();

	if (rename(saved, path) != 0)
		abort();
	return 0;
}
