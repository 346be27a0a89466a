/* The one resolver of an HDI source given by its path
 * (hdi/hdi_internal.h), called by `headalloc hdi`, --hdi-from and
 * headalloc.hdi(path).  The cases are those where the command line and
 * Python used to read a path by different rules: each result is checked
 * against the library's lower-level calls made by hand (the plan of the
 * directory, the tensors chosen by an exact pattern), and each refusal
 * for its status, what is at fault, and the caller's words. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/headalloc.h>
#include "hdi/hdi_internal.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/data/checkpoints"
#endif
#ifndef HA_TEST_DATA
#error "HA_TEST_DATA must name tests/data"
#endif

TestSuite(hdi_path);

static const struct ha_hdi_path_words cli = {"--heads", "--tensor", "--layout",
                                             "--fused", "--groups"};
static const struct ha_hdi_path_words python = {"heads", "tensor", "layout",
                                                "fused", "groups"};

static struct ha_hdi_path_request request(const char *path,
                                          const struct ha_hdi_path_words *w)
{
	struct ha_hdi_path_request r = {0};
	r.path = path;
	r.layout = HA_LAYOUT_OUT_IN;
	r.fused = HA_FUSED_NONE;
	r.fused_order = HA_FUSED_CONCAT;
	r.words = w;
	return r;
}

/* Resolve and measure r, expecting success. */
static void measure(const struct ha_hdi_path_request *r, struct ha_hdi_path *s)
{
	struct ha_error err;
	ha_error_init(&err);
	cr_assert_eq(ha_hdi_path_resolve(s, r, &err), HA_OK, "%s: %s", r->path,
	             err.message);
	cr_assert_eq(ha_hdi_path_measure(s, NULL, &err), HA_OK, "%s: %s",
	             r->path, err.message);
}

/* The HDI of a model directory by its preset, made by hand. */
static struct ha_hdi_report *preset_hdi(const char *dir)
{
	struct ha_checkpoint *c = NULL;
	struct ha_hdi_report *r = NULL;
	struct ha_error err;
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	cr_assert_eq(ha_checkpoint_open(dir, &c, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_hdi_measure_checkpoint(c, &opt, &r, &err), HA_OK, "%s",
	             err.message);
	ha_checkpoint_free(c);
	return r;
}

static void same_hdi(const struct ha_hdi_report *got,
                     const struct ha_hdi_report *want)
{
	cr_assert_eq(got->count, want->count);
	for (size_t i = 0; i < got->count; i++) {
		cr_assert_str_eq(got->tensors[i].name, want->tensors[i].name);
		cr_assert_eq(got->tensors[i].heads, want->tensors[i].heads);
		cr_assert_eq(got->tensors[i].hdi, want->tensors[i].hdi,
		             "%s: %.17g != %.17g", got->tensors[i].name,
		             got->tensors[i].hdi, want->tensors[i].hdi);
	}
}

/* Python read config.json and the index as weights files; both stand
 * for their directory, as on the command line. */
Test(hdi_path, model_files_stand_for_their_directory)
{
	const char *files[] = {FIXTURES "/llama/config.json",
	                       FIXTURES "/llama/model.safetensors.index.json",
	                       FIXTURES "/llama"};
	struct ha_hdi_report *want = preset_hdi(FIXTURES "/llama");
	for (size_t i = 0; i < 3; i++) {
		struct ha_hdi_path_request r = request(files[i], &python);
		struct ha_hdi_path s;
		measure(&r, &s);
		cr_assert_str_eq(s.directory, FIXTURES "/llama");
		cr_assert_null(s.weights);
		cr_assert_not_null(s.checkpoint);
		cr_assert_null(s.heads_reason); /* the preset's heads */
		same_hdi(s.hdi, want);
		ha_hdi_path_close(&s);
	}
	ha_hdi_report_free(want);
	/* a shard is a weights file, and config.json alone is in "." */
	char *dir = NULL;
	cr_assert_eq(ha_hdi_path_directory(FIXTURES
	                                   "/llama/model-00001-of-00002.safetensors",
	                                   &dir),
	             HA_OK);
	cr_assert_null(dir);
	cr_assert_eq(ha_hdi_path_directory(FIXTURES "/llama/missing.json", &dir),
	             HA_OK);
	cr_assert_null(dir);
}

/* Python measured every tensor of a file given without a tensor; the
 * command line those whose names say they are keys. */
Test(hdi_path, file_without_tensor_reads_the_keys)
{
	const char *path = HA_TEST_DATA "/two-layers.safetensors";
	struct ha_hdi_path_request r = request(path, &python);
	r.heads = 2;
	struct ha_hdi_path s;
	measure(&r, &s);
	cr_assert_null(s.directory);
	/* by hand: the two key projections, named exactly */
	struct ha_weights *w = NULL;
	struct ha_hdi_report *want = NULL;
	struct ha_error err;
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_hdi_measure_weights(w, "model.layers.?.self_attn.k_proj.weight",
	                                    2, HA_LAYOUT_OUT_IN, &opt, &want, &err),
	             HA_OK, "%s", err.message);
	cr_assert_eq(want->count, 2);
	same_hdi(s.hdi, want);
	ha_hdi_report_free(want);
	ha_weights_free(w);
	ha_hdi_path_close(&s);
}

/* Expect req refused for its options, in its words, before any file. */
static void refused(const struct ha_hdi_path_request *r, const char *message)
{
	struct ha_hdi_path s;
	struct ha_error err;
	ha_error_init(&err);
	cr_assert_eq(ha_hdi_path_resolve(&s, r, &err), HA_EINVAL);
	cr_assert_eq(s.fault, HA_HDI_PATH_FAULT_OPTIONS);
	cr_assert_null(err.file);
	cr_assert_str_eq(err.message, message);
	cr_assert_null(s.weights);
	cr_assert_null(s.checkpoint);
	ha_hdi_path_close(&s);
}

/* Python passed a tensor without heads to the directory's reader and
 * ignored a layout without a tensor; both are the command line's usage
 * errors, in each caller's words. */
Test(hdi_path, directory_rules_in_the_callers_words)
{
	struct ha_hdi_path_request r = request(FIXTURES "/llama", &python);
	r.tensor = "*k_proj.weight";
	refused(&r, "tensor in a model directory needs heads: the tensors it "
	            "names are not the preset's");
	r.words = &cli;
	refused(&r, "--tensor in a model directory needs --heads: the tensors "
	            "it names are not the preset's");
	r = request(FIXTURES "/llama/config.json", &python);
	r.have_layout = 1;
	refused(&r, "layout applies to a model directory only with tensor: the "
	            "preset knows the layout of its keys");
	r.have_layout = 0;
	r.fused = HA_FUSED_QKV;
	refused(&r, "fused applies to a model directory only with tensor: the "
	            "preset knows how its keys are fused");
	r.fused = HA_FUSED_NONE;
	r.groups = 1;
	r.heads = 2;
	refused(&r, "groups measures the config's key groups: it takes neither "
	            "heads nor tensor");
	/* the same layout with the tensors it applies to is read */
	r = request(FIXTURES "/llama", &python);
	r.tensor = "*k_proj.weight";
	r.heads = 4;
	r.have_layout = 1;
	struct ha_hdi_path s;
	measure(&r, &s);
	cr_assert_eq(s.hdi->count, 2);
	cr_assert_str_eq(s.heads_reason,
	                 "as heads says, in each tensor tensor names");
	ha_hdi_path_close(&s);
}

Test(hdi_path, file_rules_in_the_callers_words)
{
	struct ha_hdi_path_request r =
		request(HA_TEST_DATA "/heads12-f32.safetensors", &python);
	refused(&r, "heads is required");
	r.words = &cli;
	refused(&r, "--heads is required");
	r.heads = 12;
	r.groups = 1;
	refused(&r, "--groups needs a model directory: its config says which "
	            "query heads share a key head");
}

/* What is at fault in the files, or in the heads given, and the file
 * named: the one at fault, else the directory (never NULL, so that
 * Python and the command line name the same one). */
Test(hdi_path, failures_name_the_file_and_the_fault)
{
	struct ha_hdi_path_request r = request(FIXTURES "/llama", &python);
	r.heads = 3;
	struct ha_hdi_path s;
	struct ha_error err;
	ha_error_init(&err);
	cr_assert_eq(ha_hdi_path_resolve(&s, &r, &err), HA_OK, "%s", err.message);
	cr_assert_str_eq(s.heads_reason, "as heads says, instead of the config's "
	                                 "4 key heads (grouped-query: 8 query "
	                                 "heads share them)");
	cr_assert_eq(ha_hdi_path_measure(&s, NULL, &err), HA_EINVAL);
	cr_assert_eq(s.fault, HA_HDI_PATH_FAULT_HEADS);
	cr_assert_str_eq(err.file, FIXTURES "/llama");
	cr_assert_not_null(strstr(err.message, "3 heads do not divide"), "%s",
	                   err.message);
	ha_hdi_path_close(&s);

	r = request(HA_TEST_DATA "/missing.safetensors", &python);
	r.heads = 2;
	ha_error_init(&err);
	cr_assert_eq(ha_hdi_path_resolve(&s, &r, &err), HA_EIO);
	cr_assert_eq(s.fault, HA_HDI_PATH_FAULT_FILES);
	cr_assert_str_eq(err.file, HA_TEST_DATA "/missing.safetensors");
	ha_hdi_path_close(&s);

	r = request(FIXTURES "/bad-model-type/config.json", &python);
	ha_error_init(&err);
	cr_assert_eq(ha_hdi_path_resolve(&s, &r, &err), HA_EUNSUPPORTED);
	cr_assert_eq(s.fault, HA_HDI_PATH_FAULT_FILES);
	cr_assert_str_eq(err.file, FIXTURES "/bad-model-type");
	ha_hdi_path_close(&s);

	/* a directory that is not grouped, asked for its groups */
	r = request(FIXTURES "/qwen2", &python);
	r.groups = 1;
	ha_error_init(&err);
	cr_assert_eq(ha_hdi_path_resolve(&s, &r, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_hdi_path_measure(&s, NULL, &err), HA_EINVAL);
	cr_assert_eq(s.fault, HA_HDI_PATH_FAULT_GROUPS);
	cr_assert_null(s.hdi);
	ha_hdi_path_close(&s);
}

/* A source measured twice, or not resolved, is refused; closing a zeroed
 * or closed source is harmless. */
Test(hdi_path, misuse_is_refused)
{
	struct ha_hdi_path s;
	memset(&s, 0, sizeof s);
	struct ha_error err;
	cr_assert_eq(ha_hdi_path_measure(&s, NULL, &err), HA_EINVAL);
	cr_assert_eq(ha_hdi_path_resolve(&s, NULL, &err), HA_EINVAL);
	ha_hdi_path_close(&s);
	struct ha_hdi_path_request r = request(FIXTURES "/llama", &cli);
	measure(&r, &s);
	cr_assert_eq(ha_hdi_path_measure(&s, NULL, &err), HA_EINVAL);
	ha_hdi_path_close(&s);
	ha_hdi_path_close(&s);
}
