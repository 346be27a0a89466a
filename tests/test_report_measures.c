/* The reports of measurements: head weights, the HDI of a weights file
 * and of a model directory, each written into memory, read back (YAML
 * with libyaml) and checked against numbers known in closed form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

#include <headalloc/headalloc.h>

#include "report_readback.h"

/* ---- real weights ----------------------------------------------------------------- */

static enum ha_status weights_sections(struct ha_report *r, const void *ctx,
                                       struct ha_error *err)
{
	return ha_report_head_weights(r, &(struct ha_head_weights_request){ctx}, err);
}

Test(report_measures, head_weights_read_back)
{
	/* Sigma = diag(2, 1): alpha is proportional to (1/2, 1), i.e. (1/3, 2/3),
	 * with error alpha^T Sigma alpha = 2/9 + 4/9 = 2/3. */
	const double sigma[] = {2, 0, 0, 1};
	struct ha_head_weights hw;
	cr_assert_eq(ha_covariance_weights(sigma, 2, &hw, NULL), HA_OK);
	char *text = render(HA_FORMAT_YAML, weights_sections, &hw);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_eq(uint_at(&doc, "heads"), 2);
	cr_assert_eq(length_at(&doc, "alpha"), 2);
	cr_assert_float_eq(num_at(&doc, "alpha.0"), 1.0 / 3.0, 1e-12);
	cr_assert_float_eq(num_at(&doc, "alpha.1"), 2.0 / 3.0, 1e-12);
	cr_assert_float_eq(num_at(&doc, "error_optimal"), 2.0 / 3.0, 1e-12);
	cr_assert_str_eq(str_at(&doc, "pseudo_inverse"), "false");
	yaml_document_delete(&doc);
	free(text);
	text = render(HA_FORMAT_TEXT, weights_sections, &hw);
	cr_assert_not_null(strstr(text, "alpha          0.333333 0.666667\n"), "%s", text);
	free(text);
	ha_head_weights_finish(&hw);
}

static enum ha_status hdi_sections(struct ha_report *r, const void *ctx,
                                   struct ha_error *err)
{
	return ha_report_hdi(r, &(struct ha_hdi_request){
		.file = "k.npy", .layout = HA_LAYOUT_OUT_IN, .hdi = ctx}, err);
}

Test(report_measures, hdi_reads_back)
{
	/* Two heads of one dimension on orthogonal axes: no overlap, HDI 1. */
	const double w[] = {1, 0, 0, 1};
	struct ha_hdi_tensor t;
	cr_assert_eq(ha_hdi_compute(w, 2, 2, 2, HA_LAYOUT_OUT_IN, "k\nproj", &t, NULL),
	             HA_OK);
	struct ha_hdi_report hdi = {.tensors = &t, .count = 1, .mean_hdi = t.hdi,
	                            .mean_baseline_hdi = t.baseline_hdi};
	char *text = render(HA_FORMAT_YAML, hdi_sections, &hdi);
	yaml_document_t doc;
	load(text, &doc);
	/* two random lines in the plane: 1 - 1/2 */
	cr_assert_float_eq(num_at(&doc, "layers.0.baseline_hdi"), 0.5, 1e-15);
	cr_assert_float_eq(num_at(&doc, "mean_baseline_hdi"), 0.5, 1e-15);
	cr_assert(!yaml_path(&doc, yaml_document_get_root_node(&doc), "checkpoint"));
	cr_assert_str_eq(str_at(&doc, "file"), "k.npy");
	cr_assert_str_eq(str_at(&doc, "layout"), "out-in");
	cr_assert_str_eq(str_at(&doc, "layers.0.tensor"), "k\nproj");
	cr_assert_float_eq(num_at(&doc, "layers.0.hdi"), 1.0, 1e-12);
	cr_assert_float_eq(num_at(&doc, "layers.0.overlap.0.1"), 0.0, 1e-12);
	cr_assert_float_eq(num_at(&doc, "mean_hdi"), 1.0, 1e-12);
	yaml_document_delete(&doc);
	free(text);
	text = render(HA_FORMAT_TEXT, hdi_sections, &hdi);
	cr_assert_not_null(strstr(text, "k?proj"), "a newline in a name stays on its line: %s", text);
	cr_assert_not_null(strstr(text, "mean HDI 1.000000 over 1 tensor\n"
	                          "mean baseline 0.500000 (the expected HDI of "
	                          "random heads)\n"), "%s", text);
	cr_assert_not_null(strstr(text, "  1.000000  0.500000  (0, 1) 0.000000"),
	                   "%s", text);
	free(text);
	ha_hdi_tensor_finish(&t);
}

static enum ha_status checkpoint_sections(struct ha_report *r,
                                          const void *ctx,
                                          struct ha_error *err)
{
	return ha_report_hdi(r, ctx, err);
}

/* A model directory's report says what was read, where, and why. */
Test(report_measures, hdi_of_a_checkpoint)
{
	/* one layer: 2 key heads of 1 in R^3 along e0 and e0 + e1 */
	const double w[] = {1, 0, 0, 1, 1, 0};
	struct ha_hdi_tensor t;
	cr_assert_eq(ha_hdi_compute(w, 2, 3, 2, HA_LAYOUT_OUT_IN, "l.0.k", &t,
	                            NULL), HA_OK);
	cr_assert_float_eq(t.hdi, 0.5, 1e-15); /* cos^2 45 degrees */
	struct ha_hdi_report hdi = {.tensors = &t, .count = 1, .mean_hdi = t.hdi,
	                            .mean_baseline_hdi = t.baseline_hdi};
	struct ha_checkpoint_layer layer = {
		.block = 0, .role = "self-attention", .shard = (char *)"/x/m.st",
		.shard_name = (char *)"m-1.safetensors", .tensor = (char *)"l.0.k",
		.rows = 6, .cols = 3};
	struct ha_checkpoint c = {
		.model_type = (char *)"qwen2", .model_dim = 3, .query_heads = 4,
		.key_heads = 2, .head_dim = 1, .layout = HA_LAYOUT_OUT_IN,
		.fusion = HA_FUSION_CONCATENATED, .key_offset = 4, .key_stride = 1,
		.reason = "2 key heads (grouped-query: 4 query heads share them)",
		.count = 1, .layers = &layer};
	struct ha_hdi_request req = {.file = "dir", .layout = c.layout,
	                             .hdi = &hdi, .checkpoint = &c};
	char *text = render(HA_FORMAT_YAML, checkpoint_sections, &req);
	yaml_document_t doc;
	load(text, &doc);
	cr_assert_str_eq(str_at(&doc, "checkpoint.model_type"), "qwen2");
	cr_assert_str_eq(str_at(&doc, "checkpoint.fusion"), "concatenated q|k|v");
	cr_assert_eq(uint_at(&doc, "checkpoint.query_heads"), 4);
	cr_assert_eq(uint_at(&doc, "checkpoint.key_heads"), 2);
	cr_assert_eq(uint_at(&doc, "checkpoint.heads"), 2);
	cr_assert_eq(uint_at(&doc, "checkpoint.model_dim"), 3);
	cr_assert_str_eq(str_at(&doc, "checkpoint.heads_reason"), c.reason);
	cr_assert_str_eq(str_at(&doc, "layers.0.shard"), "m-1.safetensors");
	cr_assert_str_eq(str_at(&doc, "layers.0.role"), "self-attention");
	cr_assert_float_eq(num_at(&doc, "layers.0.baseline_hdi"), 2.0 / 3.0,
	                   1e-15);
	cr_assert_float_eq(num_at(&doc, "mean_hdi"), 0.5, 1e-15);
	yaml_document_delete(&doc);
	free(text);

	req.heads_reason = "1 head, as --heads says";
	text = render(HA_FORMAT_TEXT, checkpoint_sections, &req);
	cr_assert_str_eq(text,
		"dir (model_type qwen2, 1 layer)\n"
		"heads     2: 1 head, as --heads says\n"
		"keys      concatenated q|k|v, layout out-in, head_dim 1, d_model 3\n"
		"tensor  shard            hdi       baseline  most similar       "
		"least similar\n"
		"l.0.k   m-1.safetensors  0.500000  0.666667  (0, 1) 0.500000    "
		"(0, 1) 0.500000\n"
		"mean HDI 0.500000 over 1 layer\n"
		"mean baseline 0.666667 (the expected HDI of random heads)\n");
	free(text);

	/* a plan that does not match the measurements is refused */
	c.count = 2;
	struct ha_report *r = NULL;
	struct ha_error err;
	FILE *null = fopen("/dev/null", "w");
	cr_assert_not_null(null);
	cr_assert_eq(ha_report_new(null, HA_FORMAT_TEXT, &r), HA_OK);
	cr_assert_eq(ha_report_hdi(r, &req, &err), HA_EINVAL);
	ha_report_free(r);
	fclose(null);
	ha_hdi_tensor_finish(&t);
}
