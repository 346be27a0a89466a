/* Model directories read as strictly as a weights file (checkpoint.h):
 * config.json and the index as strict JSON with messages that quote the
 * value as written and name the rule it breaks; a cache whose blobs is a
 * symbolic link is not a way out; model.safetensors preferred over an
 * index, with the plan's warning; the plan's shards kept open. */
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif

#define SCRATCH_PREFIX "/tmp/ha_test_strict_"
#include "scratch_dir.h"
#include "checkpoint/checkpoint_internal.h"

TestSuite(checkpoint_strict);

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
}

static void expect_failure(const char *dir, enum ha_status status,
                           const char *needle)
{
	struct ha_checkpoint *c = (struct ha_checkpoint *)&c;
	struct ha_error err;
	enum ha_status st = ha_checkpoint_open(dir, &c, &err);
	cr_assert_eq(st, status, "%s: status %d (%s), want %d (%s)", dir, st,
	             err.message, status, needle);
	cr_assert_null(c);
	cr_assert(strstr(err.message, needle), "message '%s' lacks '%s'",
	          err.message, needle);
}

/* mistral's config with `field` (a JSON fragment) in place of its
 * num_attention_heads line; the weights are mistral's. */
static const char *const MISTRAL_HEAD =
        "{\n\"model_type\": \"mistral\",\n\"hidden_size\": 24,\n";
static const char *const MISTRAL_TAIL =
        ",\n\"num_hidden_layers\": 2,\n\"num_key_value_heads\": 3\n}\n";

static void mistral_with(const char *field)
{
	char text[1024];
	snprintf(text, sizeof text, "%s%s%s", MISTRAL_HEAD, field, MISTRAL_TAIL);
	write_text(at("config.json"), text);
}

/* The config as written is what the safetensors header reader would
 * take: the grammar json-c's strict mode lets through is refused here,
 * at its line and column. */
Test(checkpoint_strict, config_is_strict_json, .init = tmp_setup,
     .fini = tmp_teardown)
{
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	mistral_with("\"num_attention_heads\": 6");
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(tmp, &c, &err), HA_OK, "%s",
	             err.message);
	cr_assert_str_eq(c->warning, "");
	ha_checkpoint_free(c);

	static const struct {
		const char *field, *needle;
	} cases[] = {
		{"\"num_attention_heads\": 6 /* c */",
		 "config.json:4:26: a comment (JSON has none)"},
		{"'num_attention_heads': 8", "config.json:4:1: a single-quoted"},
		{"\"num_attention_heads\": 6, \"x\": {\"a\": 1,}",
		 "config.json:4:40: a comma before '}'"},
		{"\"num_attention_heads\": 6, \"x\": [1,]",
		 "config.json:4:35: a comma before ']'"},
		{"\"num_attention_heads\": 08",
		 "config.json:4:24: a number with a leading zero"},
		{"\"num_attention_heads\":  00",
		 "config.json:4:25: a number with a leading zero"},
		{"\"num_attention_heads\": NaN", "config.json:4:24: NaN"},
		{"\"num_attention_heads\": \"a\\u0000b\"",
		 "config.json:4:26: a NUL character (\\u0000)"},
		{"\"num_attention_heads\": \"\t\"",
		 "config.json:4:25: a control character inside a string"},
		{"\"num_attention_heads\": 6, \"num_attention_heads\": 4",
		 "config.json:4:27: a key given twice in one object"},
		{"\"num_attention_heads\": 6, \"num_attention_h\\u0065ads\": 4",
		 "a key given twice in one object (spelt with different "
		 "escapes)"},
		{"\"num_attention_heads\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		 "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "nested too deep"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mistral_with(cases[i].field);
		expect_failure(tmp, HA_EFORMAT, cases[i].needle);
	}
}

/* A value is quoted as written (beyond 2^64 too) and refused for the
 * rule it breaks. */
Test(checkpoint_strict, messages_name_the_rule, .init = tmp_setup,
     .fini = tmp_teardown)
{
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	static const struct {
		const char *field, *needle;
	} cases[] = {
		{"\"num_attention_heads\": 18446744073709551616",
		 "'num_attention_heads' is 18446744073709551616; it must be at "
		 "most 65536"},
		{"\"num_attention_heads\": 99999999999999999999999",
		 "'num_attention_heads' is 99999999999999999999999; it must be at "
		 "most 65536"},
		{"\"num_attention_heads\": -99999999999999999999",
		 "'num_attention_heads' is -99999999999999999999; it must be at "
		 "least 1"},
		{"\"num_attention_heads\": 18446744073709551615",
		 "'num_attention_heads' is 18446744073709551615; it must be at "
		 "most 65536"},
		{"\"num_attention_heads\": 0",
		 "'num_attention_heads' is 0; it must be at least 1"},
		{"\"num_attention_heads\": -3",
		 "'num_attention_heads' is -3; it must be at least 1"},
		{"\"num_attention_heads\": 6.0",
		 "'num_attention_heads' is 6.0, not written as a whole number"},
		{"\"num_attention_heads\": 1e400",
		 "'num_attention_heads' is 1e400, not written as a whole number"},
		{"\"num_attention_heads\": true",
		 "'num_attention_heads' is true, not a number"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mistral_with(cases[i].field);
		expect_failure(tmp, HA_EFORMAT, cases[i].needle);
	}
}

/* A cache with a blobs symbolic link (to "/" here) beside snapshots/:
 * the snapshot's links resolve through it to any file, and are refused;
 * the same cache with a real blobs directory is read. */
Test(checkpoint_strict, blobs_link_is_no_way_out, .init = tmp_setup,
     .fini = tmp_teardown)
{
	cr_assert_eq(mkdir(at("store"), 0755), 0);
	cr_assert_eq(mkdir(at("cache"), 0755), 0);
	cr_assert_eq(mkdir(at("cache/snapshots"), 0755), 0);
	cr_assert_eq(mkdir(at("cache/snapshots/rev"), 0755), 0);
	copy_file(FIXTURES "/mistral/config.json", at("store/c"));
	copy_file(FIXTURES "/mistral/model.safetensors", at("store/w"));
	cr_assert_eq(symlink(at("store"), at("cache/blobs")), 0);
	cr_assert_eq(symlink("../../blobs/c", at("cache/snapshots/rev/config.json")),
	             0);
	cr_assert_eq(symlink("../../blobs/w",
	                     at("cache/snapshots/rev/model.safetensors")), 0);
	expect_failure(at("cache/snapshots/rev"), HA_EFORMAT,
	               "outside the model directory");

	/* the real layout: blobs a directory of the cache root */
	cr_assert_eq(unlink(at("cache/blobs")), 0);
	cr_assert_eq(rename(at("store"), at("cache/blobs")), 0);
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(at("cache/snapshots/rev"), &c, &err),
	             HA_OK, "%s", err.message);
	ha_checkpoint_free(c);

	/* blobs inside the cache, but a link to another of its folders */
	cr_assert_eq(rename(at("cache/blobs"), at("cache/other")), 0);
	cr_assert_eq(symlink("other", at("cache/blobs")), 0);
	expect_failure(at("cache/snapshots/rev"), HA_EFORMAT,
	               "outside the model directory");
}

/* Both model.safetensors and an index: the single file is measured, as
 * transformers loads it, and the plan says so. */
Test(checkpoint_strict, single_file_preferred, .init = tmp_setup,
     .fini = tmp_teardown)
{
	static const char *const files[] = {
		"config.json", "model.safetensors.index.json",
		"model-00001-of-00002.safetensors",
		"model-00002-of-00002.safetensors",
	};
	char src[512];
	for (size_t i = 0; i < 4; i++) {
		snprintf(src, sizeof src, "%s/llama/%s", FIXTURES, files[i]);
		copy_file(src, at(files[i]));
	}
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(tmp, &c, &err), HA_OK, "%s",
	             err.message);
	cr_assert_str_eq(c->warning, "");
	cr_assert_str_neq(c->layers[0].shard_name, "model.safetensors");
	ha_checkpoint_free(c);

	/* a single file that would fail the config's shapes: it is the one
	 * read (the index's shards would have passed) */
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	expect_failure(tmp, HA_EFORMAT, "model.safetensors: ");

	/* the same shapes as the shards: read, with the warning */
	cr_assert_eq(unlink(at("model.safetensors")), 0);
	cr_assert_eq(symlink("model-00001-of-00002.safetensors",
	                     at("model.safetensors")), 0);
	struct ha_checkpoint *p = NULL;
	enum ha_status st = ha_checkpoint_open_tensors(tmp, "*k_proj.weight", 1,
	                                               HA_LAYOUT_OUT_IN, &p,
	                                               &err);
	cr_assert_eq(st, HA_OK, "%s", err.message);
	cr_assert(strstr(p->warning, "model.safetensors and "
	                 "model.safetensors.index.json are both here: "
	                 "model.safetensors is measured"), "'%s'", p->warning);
	for (size_t i = 0; i < p->count; i++)
		cr_assert_str_eq(p->layers[i].shard_name, "model.safetensors");
	ha_checkpoint_free(p);
}

/* Reading every layer of a plan parses each shard's header once: the
 * plan's shards stay open, and a shard replaced on disk is read again
 * (so the check that its tensor kept its shape still holds). */
Test(checkpoint_strict, shards_stay_open, .init = tmp_setup,
     .fini = tmp_teardown)
{
	copy_file(FIXTURES "/mistral/config.json", at("config.json"));
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(tmp, &c, &err), HA_OK, "%s",
	             err.message);
	double *first = NULL, *again = NULL;
	size_t rows, cols, r2, c2;
	cr_assert_eq(ha_checkpoint_read_keys(c, 0, &first, &rows, &cols, &err),
	             HA_OK, "%s", err.message);
	cr_assert_not_null(c->open_shards);
	/* the file is gone from the directory; the open shard still reads */
	cr_assert_eq(rename(at("model.safetensors"), at("moved")), 0);
	cr_assert_eq(ha_checkpoint_read_keys(c, 1, &again, &r2, &c2, &err),
	             HA_EIO, "a vanished shard must be looked up again");
	cr_assert_eq(rename(at("moved"), at("model.safetensors")), 0);
	cr_assert_eq(ha_checkpoint_read_keys(c, 0, &again, &r2, &c2, &err),
	             HA_OK, "%s", err.message);
	cr_assert_eq(r2, rows);
	cr_assert_eq(c2, cols);
	cr_assert_eq(memcmp(first, again, rows * cols * sizeof *first), 0);
	free(again);
	copy_file(FIXTURES "/gemma/model.safetensors", at("model.safetensors"));
	again = NULL;
	cr_assert_eq(ha_checkpoint_read_keys(c, 0, &again, &r2, &c2, &err),
	             HA_EFORMAT);
	cr_assert(strstr(err.message, "changed shape"), "%s", err.message);
	free(first);
	ha_checkpoint_free(c);
}
