/* Reports of real weights: the Head Diversity Index of key projections
 * (headalloc hdi) and the optimal head weights of a covariance (headalloc
 * weights). */
#include <string.h>

#include "report_internal.h"
#include "hdi/hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"

/* ---- hdi ------------------------------------------------------------------ */

/* Overlaps and HDI lie in [0, 1]: six decimals, reproducible. */
static void format_pair(char *buf, size_t size, const struct ha_hdi_tensor *t,
                        const struct ha_head_pair *p)
{
	if (t->pairs == 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "(%zu, %zu) %.6f", p->first, p->second,
		         p->overlap);
}

static void text_overlap(FILE *out, const struct ha_hdi_tensor *t)
{
	fputs("      ", out);
	for (size_t j = 0; j < t->heads; j++)
		fprintf(out, " %6zu", j);
	fputc('\n', out);
	for (size_t i = 0; i < t->heads; i++) {
		fprintf(out, "  %4zu", i);
		for (size_t j = 0; j < t->heads; j++)
			fprintf(out, " %6.4f", t->overlap[i * t->heads + j]);
		fputc('\n', out);
	}
}

/* A tensor name for a line of text: control characters (a newline in a
 * name from a hostile file) become '?'. */
static void printable_name(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s", name);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* The width of the tensor column: the longest name, at most 200. */
static int name_width(const struct ha_hdi_report *r)
{
	int width = (int)strlen("tensor");
	for (size_t i = 0; i < r->count; i++) {
		size_t n = strlen(r->tensors[i].name);
		if (n > (size_t)width)
			width = n > 200 ? 200 : (int)n;
	}
	return width;
}

/* A line per tensor, then the means.  For a model directory each line
 * names its shard (heads and head_dim are the same in every layer, so
 * they are said once, above); else its heads and head_dim. */
static void text_tensors(FILE *out, const struct ha_hdi_request *req)
{
	const struct ha_hdi_report *r = req->hdi;
	const struct ha_checkpoint *c = req->checkpoint;
	int width = name_width(r), swidth = (int)strlen("shard");
	for (size_t i = 0; c && i < c->count; i++) {
		size_t n = strlen(c->layers[i].shard_name);
		if (n > (size_t)swidth)
			swidth = n > 200 ? 200 : (int)n;
	}
	if (c)
		fprintf(out, "%-*s  %-*s  ", width, "tensor", swidth, "shard");
	else
		fprintf(out, "%-*s  %5s  %8s  ", width, "tensor", "heads", "head_dim");
	fprintf(out, "%-8s  %-8s  %-17s  %s\n", "hdi", "baseline", "most similar",
	        "least similar");
	for (size_t i = 0; i < r->count; i++) {
		const struct ha_hdi_tensor *t = &r->tensors[i];
		char name[1024], shard[1024], most[64], least[64];
		printable_name(name, sizeof name, t->name);
		if (c) {
			printable_name(shard, sizeof shard, c->layers[i].shard_name);
			fprintf(out, "%-*s  %-*s  ", width, name, swidth, shard);
		} else {
			fprintf(out, "%-*s  %5zu  %8zu  ", width, name, t->heads,
			        t->head_dim);
		}
		format_pair(most, sizeof most, t, &t->most_similar);
		format_pair(least, sizeof least, t, &t->least_similar);
		fprintf(out, "%.6f  %.6f  %-17s  %s", t->hdi, t->baseline_hdi, most,
		        least);
		if (t->rank_deficient)
			fprintf(out, "  (%zu rank-deficient head%s)", t->rank_deficient,
			        t->rank_deficient == 1 ? "" : "s");
		fputc('\n', out);
		if (req->overlap)
			text_overlap(out, t);
	}
	fprintf(out, "mean HDI %.6f over %zu %s%s\n", r->mean_hdi, r->count,
	        c ? "layer" : "tensor", r->count == 1 ? "" : "s");
	fprintf(out, "mean baseline %.6f (the expected HDI of random heads)\n",
	        r->mean_baseline_hdi);
}

/* The within-group diversity of a grouped directory: a line per layer,
 * its group HDI, the baseline and each key group's HDI. */
static void groups_text(FILE *out, const struct ha_hdi_request *req)
{
	const struct ha_hdi_groups *g = req->groups;
	const struct ha_hdi_report *r = req->hdi;
	int width = name_width(r);
	fprintf(out, "groups    %zu query heads share each of %zu key head%s: "
	        "their HDI within each group\n", g->group_size, g->key_heads,
	        g->key_heads == 1 ? "" : "s");
	fprintf(out, "%-*s  %-9s  %-8s  %s\n", width, "tensor", "group_hdi",
	        "baseline", "each group");
	for (size_t i = 0; i < g->count; i++) {
		char name[1024];
		printable_name(name, sizeof name, r->tensors[i].name);
		fprintf(out, "%-*s  %.6f   %.6f ", width, name, g->group_hdi[i],
		        g->baseline_group_hdi);
		for (size_t h = 0; h < g->key_heads; h++)
			fprintf(out, " %.6f",
			        g->groups->tensors[i * g->key_heads + h].hdi);
		fputc('\n', out);
	}
	fprintf(out, "mean group HDI %.6f over %zu layer%s (query heads that "
	        "share a key head; mean HDI above: key heads)\n",
	        g->mean_group_hdi, g->count, g->count == 1 ? "" : "s");
}

/* A model directory: what was read and why, its tensors, its groups. */
static void checkpoint_text(FILE *out, const struct ha_hdi_request *req)
{
	const struct ha_hdi_report *r = req->hdi;
	const struct ha_checkpoint *c = req->checkpoint;
	char type[128], reason[256];
	printable_name(type, sizeof type, c->model_type);
	printable_name(reason, sizeof reason,
	               req->heads_reason ? req->heads_reason : c->reason);
	size_t heads = r->count ? r->tensors[0].heads : c->key_heads;
	size_t dk = r->count ? r->tensors[0].head_dim : c->head_dim;
	fprintf(out, "%s (model_type %s, %zu layer%s)\n", req->file,
	        *type ? type : "unknown", c->count, c->count == 1 ? "" : "s");
	fprintf(out, "heads     %zu: %s\n", heads, reason);
	fprintf(out, "keys      %s, layout %s, head_dim %zu, d_model %zu\n",
	        ha_key_fusion_str(c->fusion), ha_layout_str(c->layout), dk,
	        c->model_dim);
	text_tensors(out, req);
	if (req->groups)
		groups_text(out, req);
}

static void yaml_pair(struct ha_yaml_writer *w, const char *key,
                      const struct ha_hdi_tensor *t,
                      const struct ha_head_pair *p)
{
	if (!yaml_key_defined(w, key, t->pairs != 0))
		return;
	ha_yaml_begin_map(w, 1);
	ha_yaml_key_seq(w, "heads", 1);
	ha_yaml_uint(w, p->first);
	ha_yaml_uint(w, p->second);
	ha_yaml_end_seq(w);
	ha_yaml_key_double(w, "overlap", p->overlap);
	ha_yaml_end_map(w);
}

/* A tensor's map; ly (a checkpoint's layer, or NULL) adds where it is,
 * g (or NULL) the groups of layer `layer`. */
static void yaml_tensor(struct ha_yaml_writer *w,
                        const struct ha_hdi_tensor *t,
                        const struct ha_checkpoint_layer *ly,
                        const struct ha_hdi_groups *g, size_t layer)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key_string(w, "tensor", t->name);
	if (ly) {
		ha_yaml_key_string(w, "shard", ly->shard_name);
		ha_yaml_key_string(w, "role", ly->role);
		ha_yaml_key_uint(w, "block", ly->block);
	}
	ha_yaml_key_uint(w, "heads", t->heads);
	ha_yaml_key_uint(w, "head_dim", t->head_dim);
	ha_yaml_key_uint(w, "model_dim", t->model_dim);
	ha_yaml_key_double(w, "hdi", t->hdi);
	ha_yaml_key_double(w, "baseline_hdi", t->baseline_hdi);
	if (g) { /* the layer's group_hdi and the HDI of each key group */
		ha_yaml_key_double(w, "group_hdi", g->group_hdi[layer]);
		ha_yaml_key_seq(w, "groups", 1);
		for (size_t h = 0; h < g->key_heads; h++)
			ha_yaml_double(w, g->groups->tensors[layer * g->key_heads + h].hdi);
		ha_yaml_end_seq(w);
	}
	ha_yaml_key_uint(w, "rank_deficient", t->rank_deficient);
	yaml_pair(w, "most_similar", t, &t->most_similar);
	yaml_pair(w, "least_similar", t, &t->least_similar);
	ha_yaml_key_seq(w, "overlap", 0);
	for (size_t i = 0; i < t->heads; i++) {
		ha_yaml_begin_seq(w, 1);
		for (size_t j = 0; j < t->heads; j++)
			ha_yaml_double(w, t->overlap[i * t->heads + j]);
		ha_yaml_end_seq(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
}

/* The model directory's plan: key checkpoint. */
static void yaml_checkpoint(struct ha_yaml_writer *w,
                            const struct ha_hdi_request *req)
{
	const struct ha_checkpoint *c = req->checkpoint;
	const struct ha_hdi_report *r = req->hdi;
	ha_yaml_key_map(w, "checkpoint", 0);
	ha_yaml_key_string(w, "model_type", c->model_type);
	ha_yaml_key_string(w, "fusion", ha_key_fusion_str(c->fusion));
	ha_yaml_key_uint(w, "query_heads", c->query_heads);
	ha_yaml_key_uint(w, "key_heads", c->key_heads);
	ha_yaml_key_uint(w, "head_dim", c->head_dim);
	ha_yaml_key_uint(w, "model_dim", c->model_dim);
	ha_yaml_key_uint(w, "heads",
	                 r->count ? r->tensors[0].heads : c->key_heads);
	ha_yaml_key_string(w, "heads_reason",
	                   req->heads_reason ? req->heads_reason : c->reason);
	ha_yaml_end_map(w);
}

static void hdi_yaml(struct ha_yaml_writer *w, const struct ha_hdi_request *req)
{
	const struct ha_hdi_report *r = req->hdi;
	const struct ha_checkpoint *c = req->checkpoint;
	ha_yaml_key_string(w, "file", req->file);
	ha_yaml_key_string(w, "layout", ha_layout_str(req->layout));
	if (c)
		yaml_checkpoint(w, req);
	ha_yaml_key_seq(w, "layers", 0);
	for (size_t i = 0; i < r->count; i++)
		yaml_tensor(w, &r->tensors[i], c ? &c->layers[i] : NULL,
		            req->groups, i);
	ha_yaml_end_seq(w);
	ha_yaml_key_double(w, "mean_hdi", r->mean_hdi);
	ha_yaml_key_double(w, "mean_baseline_hdi", r->mean_baseline_hdi);
	const struct ha_hdi_groups *g = req->groups;
	if (!g)
		return;
	ha_yaml_key_map(w, "key_groups", 0);
	ha_yaml_key_uint(w, "key_heads", g->key_heads);
	ha_yaml_key_uint(w, "query_heads", g->query_heads);
	ha_yaml_key_uint(w, "group_size", g->group_size);
	ha_yaml_key_double(w, "baseline_group_hdi", g->baseline_group_hdi);
	ha_yaml_end_map(w);
	ha_yaml_key_double(w, "mean_group_hdi", g->mean_group_hdi);
}

enum ha_status ha_report_hdi(struct ha_report *r,
                             const struct ha_hdi_request *req,
                             struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->file || !req->hdi || (req->hdi->count && !req->hdi->tensors))
		return report_fail(r, err, HA_EINVAL,
		                   "an HDI report needs its file and its measurements");
	const struct ha_checkpoint *c = req->checkpoint;
	if (c && (c->count != req->hdi->count || (c->count && !c->layers) ||
	          !c->model_type))
		return report_fail(r, err, HA_EINVAL,
		                   "an HDI report of a model directory needs a "
		                   "measurement per layer of its plan");
	const struct ha_hdi_groups *g = req->groups;
	if (g && (!c || g->count != c->count || !g->groups || !g->group_hdi ||
	          g->groups->count != g->count * g->key_heads))
		return report_fail(r, err, HA_EINVAL,
		                   "an HDI report's groups need a model directory "
		                   "and a measurement per layer of its plan");
	if (r->yaml)
		hdi_yaml(r->yaml, req);
	else if (c)
		checkpoint_text(r->stream, req);
	else {
		fprintf(r->stream, "%s (layout %s)\n", req->file,
		        ha_layout_str(req->layout));
		text_tensors(r->stream, req);
	}
	return report_end(r, err);
}

/* ---- head weights ------------------------------------------------------------ */

static void weights_text(FILE *out, const struct ha_head_weights *hw)
{
	fprintf(out, "heads          %zu\n", hw->heads);
	fputs("alpha         ", out);
	for (size_t i = 0; i < hw->heads; i++)
		fprintf(out, " %.6g", hw->alpha[i]);
	fputc('\n', out);
	fprintf(out, "error optimal  %.6g\n", hw->error_optimal);
	fprintf(out, "error uniform  %.6g\n", hw->error_uniform);
	fprintf(out, "gain           %.6g\n", hw->gain);
}

static void weights_yaml(struct ha_yaml_writer *w,
                         const struct ha_head_weights *hw)
{
	ha_yaml_key_uint(w, "heads", hw->heads);
	ha_yaml_key_seq(w, "alpha", 1);
	for (size_t i = 0; i < hw->heads; i++)
		ha_yaml_double(w, hw->alpha[i]);
	ha_yaml_end_seq(w);
	ha_yaml_key_double(w, "error_optimal", hw->error_optimal);
	ha_yaml_key_double(w, "error_uniform", hw->error_uniform);
	ha_yaml_key_double(w, "gain", hw->gain);
	ha_yaml_key_bool(w, "pseudo_inverse", hw->pseudo_inverse);
	ha_yaml_key_bool(w, "null_space", hw->null_space);
}

enum ha_status ha_report_head_weights(struct ha_report *r,
                                      const struct ha_head_weights_request *req,
                                      struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	const struct ha_head_weights *hw = req->weights;
	if (!hw || (hw->heads && !hw->alpha))
		return report_fail(r, err, HA_EINVAL, "a head-weights report needs the weights");
	if (r->yaml)
		weights_yaml(r->yaml, hw);
	else
		weights_text(r->stream, hw);
	return report_end(r, err);
}
