/* Files that shrink while they are read (another process rewriting a
 * checkpoint): every reader reads with read(2), never through a mapping
 * whose lost pages would raise SIGBUS, so a shrink is an error status
 * (HA_EIO, exit status 1 in the CLI) naming what was being read.
 *
 * Deterministic: each case opens a copy of a fixture (its header read),
 * truncates it with truncate(2), then reads the data: the read between. */
#define _XOPEN_SOURCE 700 /* mkdtemp, truncate */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

#if !defined(HA_TEST_DATA) || !defined(FIXTURES)
#error "HA_TEST_DATA must name tests/data, FIXTURES tests/data/checkpoints"
#endif

#define SCRATCH_PREFIX "/tmp/ha_test_shrink_"
#include "scratch_dir.h"
#include "hdi/hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"
#include "tensors/weights_internal.h"

TestSuite(shrink, .init = tmp_setup, .fini = tmp_teardown);

static size_t index_of(const struct ha_weights *w, const char *name)
{
	size_t *idx = NULL, n = 0;
	cr_assert_eq(ha_weights_select(w, name, &idx, &n, NULL), HA_OK, "%s",
	             name);
	size_t i = idx[0];
	free(idx);
	return i;
}

/* Open a copy of `fixture`, read tensor 0 (it reads), truncate the file
 * to `keep` bytes, read again: HA_EIO saying the file shrank. */
static void shrink_between_reads(const char *fixture, const char *name,
                                 off_t keep)
{
	copy_file(fixture, at(name));
	struct ha_weights *w = NULL;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(at(name), &w, &err), HA_OK, "%s",
	             err.message);
	double *v = NULL;
	cr_assert_eq(ha_weights_read(w, 0, &v, &err), HA_OK, "%s", err.message);
	free(v);
	cr_assert_eq(truncate(at(name), keep), 0);
	v = (double *)&v;
	cr_assert_eq(ha_weights_read(w, 0, &v, &err), HA_EIO, "%s: %s", name,
	             err.message);
	cr_assert_null(v);
	cr_assert(strstr(err.message, "the file shrank"), "%s", err.message);
	ha_weights_free(w);
}

Test(shrink, safetensors_between_header_and_data)
{
	/* 8 + 72 bytes of header, then 384 of data */
	shrink_between_reads(HA_TEST_DATA "/heads12-f32.safetensors",
	                     "w.safetensors", 200);
	shrink_between_reads(HA_TEST_DATA "/heads12-f32.safetensors",
	                     "w.safetensors", 0);
}

Test(shrink, npy_between_header_and_data)
{
	shrink_between_reads(HA_TEST_DATA "/heads12-f32.npy", "w.npy", 300);
}

/* External data is measured when each tensor is read: shorter than when
 * the model was opened, it shrank (HA_EIO), not a malformed model. */
Test(shrink, onnx_external_data)
{
	copy_file(HA_TEST_DATA "/onnx/mixed.onnx", at("mixed.onnx"));
	copy_file(HA_TEST_DATA "/onnx/mixed.bin", at("mixed.bin"));
	struct ha_weights *w = NULL;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(at("mixed.onnx"), &w, &err), HA_OK, "%s",
	             err.message);
	size_t i = index_of(w, "ext_f32");
	double *v = NULL;
	cr_assert_eq(ha_weights_read(w, i, &v, &err), HA_OK, "%s", err.message);
	free(v);
	cr_assert_eq(truncate(at("mixed.bin"), 100), 0);
	v = (double *)&v;
	cr_assert_eq(ha_weights_read(w, i, &v, &err), HA_EIO, "%s",
	             err.message);
	cr_assert_null(v);
	cr_assert(strstr(err.message, "shrank to 100 bytes since the model "
	                 "was opened"), "%s", err.message);
	ha_weights_free(w);
}

/* The .onnx file itself is read whole when it is opened: truncating it
 * afterwards changes nothing that is read. */
Test(shrink, onnx_model_read_whole_at_open)
{
	copy_file(HA_TEST_DATA "/onnx/mixed.onnx", at("mixed.onnx"));
	copy_file(HA_TEST_DATA "/onnx/mixed.bin", at("mixed.bin"));
	struct ha_weights *w = NULL, *ref = NULL;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(at("mixed.onnx"), &w, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(truncate(at("mixed.onnx"), 0), 0);
	cr_assert_eq(ha_weights_open(HA_TEST_DATA "/onnx/mixed.onnx", &ref,
	                             &err), HA_OK, "%s", err.message);
	double *got = NULL, *want = NULL;
	cr_assert_eq(ha_weights_read(w, index_of(w, "init_raw_f32"), &got,
	                             &err), HA_OK, "%s", err.message);
	cr_assert_eq(ha_weights_read(ref, index_of(ref, "init_raw_f32"), &want,
	                             &err), HA_OK, "%s", err.message);
	cr_assert_eq(memcmp(got, want, 48 * 32 * sizeof *got), 0);
	free(got);
	free(want);
	ha_weights_free(w);
	ha_weights_free(ref);
}

/* A model directory whose shard shrinks after the directory was read: the
 * layer's read says which shard changed, with HA_EIO. */
Test(shrink, model_directory_shard)
{
	copy_file(FIXTURES "/mistral/config.json", at("config.json"));
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	struct ha_checkpoint *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_checkpoint_open(tmp, &c, &err), HA_OK, "%s", err.message);
	double *w = NULL;
	size_t rows, cols;
	cr_assert_eq(ha_checkpoint_read_keys(c, 0, &w, &rows, &cols, &err),
	             HA_OK, "%s", err.message);
	free(w);
	cr_assert_eq(truncate(at("model.safetensors"), 1000), 0);
	w = (double *)&w;
	cr_assert_eq(ha_checkpoint_read_keys(c, 1, &w, &rows, &cols, &err),
	             HA_EIO, "%s", err.message);
	cr_assert_null(w);
	cr_assert_eq(err.file, c->layers[1].shard);
	cr_assert(strstr(err.message, "changed while the directory was being "
	                 "read"), "%s", err.message);
	ha_checkpoint_free(c);

	/* shrunk before the first layer is read: the measurement stops */
	copy_file(FIXTURES "/mistral/model.safetensors", at("model.safetensors"));
	cr_assert_eq(ha_checkpoint_open(tmp, &c, &err), HA_OK, "%s", err.message);
	cr_assert_eq(truncate(at("model.safetensors"), 1000), 0);
	struct ha_hdi_report *r = (struct ha_hdi_report *)&r;
	cr_assert_eq(ha_hdi_measure_checkpoint(c, NULL, &r, &err), HA_EIO, "%s",
	             err.message);
	cr_assert_null(r);
	cr_assert(strstr(err.message, "changed while the directory was being "
	                 "read"), "%s", err.message);
	ha_checkpoint_free(c);
}
