/* The Head Diversity Index of key projections (headalloc-model(7), THE
 * HEAD DIVERSITY INDEX; see hdi.h and hdi_matrices.h). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include <headalloc/hdi.h>
#include <headalloc/hdi_matrices.h>

#include "base/error_internal.h"
#include "hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"
#include "tensors/weights_internal.h"

const char *ha_layout_str(enum ha_layout layout)
{
	return layout == HA_LAYOUT_IN_OUT ? "in-out" : "out-in";
}

enum ha_status ha_layout_parse(const char *text, enum ha_layout *out)
{
	if (!text || !out)
		return HA_EINVAL;
	if (strcmp(text, "out-in") == 0)
		*out = HA_LAYOUT_OUT_IN;
	else if (strcmp(text, "in-out") == 0)
		*out = HA_LAYOUT_IN_OUT;
	else
		return HA_EINVAL;
	return HA_OK;
}

void ha_hdi_tensor_finish(struct ha_hdi_tensor *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->overlap);
	free(t->rank);
	memset(t, 0, sizeof *t);
}

double ha_hdi_random_baseline(size_t heads, size_t head_dim,
                              size_t model_dim)
{
	if (heads < 2)
		return 1.0;
	if (model_dim == 0)
		return 0.0;
	size_t r = head_dim < model_dim ? head_dim : model_dim;
	return 1.0 - (double)r / (double)model_dim;
}

/* H = 1: there are no pairs, so the HDI is 1 whatever the weights; only
 * whether they are all zero (rank 0) is looked at, without an SVD.  The
 * arrays of t are allocated by the caller. */
static enum ha_status single_head(const double *weights, size_t rows,
                                  size_t cols, struct ha_hdi_tensor *t)
{
	int zero = 1;
	for (size_t i = 0; i < rows * cols && zero; i++)
		zero = weights[i] == 0.0;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	t->rank[0] = zero ? 0 : full;
	t->rank_deficient = zero;
	t->overlap[0] = zero ? 0.0 : 1.0;
	t->hdi = 1.0;
	return HA_OK;
}

/* The checks and set-up of ha_hdi_compute; the bases are computed in
 * weights, which the caller owns and which is overwritten. */
static enum ha_status compute_in_place(double *weights, size_t rows,
                                       size_t cols, size_t heads,
                                       enum ha_layout layout,
                                       const char *name,
                                       struct ha_hdi_tensor *out,
                                       struct ha_error *err)
{
	if (!name)
		name = "";
	if (heads == 0)
		return ha_fail(err, HA_EINVAL, "tensor '%s': heads must be >= 1",
		               name);
	if (rows == 0 || cols == 0)
		return ha_fail(err, HA_EINVAL, "tensor '%s': empty %zu x %zu matrix",
		               name, rows, cols);
	size_t outdim = layout == HA_LAYOUT_OUT_IN ? rows : cols;
	size_t model = layout == HA_LAYOUT_OUT_IN ? cols : rows;
	if (outdim % heads != 0)
		return ha_fail(err, HA_EINVAL,
		               "tensor '%s': %zu heads do not divide its output "
		               "dimension %zu (shape [%zu, %zu], layout %s)",
		               name, heads, outdim, rows, cols,
		               ha_layout_str(layout));
	if (heads > SIZE_MAX / sizeof(double) / heads)
		return ha_fail(err, HA_EINVAL, "tensor '%s': too many heads (%zu)",
		               name, heads);
	/* The H x H overlap matrix stays bounded. */
	if (heads > HA_HDI_MAX_HEADS)
		return ha_fail(err, HA_EUNSUPPORTED, "tensor '%s': %zu heads; at "
		               "most %zu are supported", name, heads,
		               HA_HDI_MAX_HEADS);

	out->name = strdup(name);
	out->overlap = calloc(heads * heads, sizeof *out->overlap);
	out->rank = calloc(heads, sizeof *out->rank);
	if (!out->name || !out->overlap || !out->rank) {
		ha_hdi_tensor_finish(out);
		return ha_fail(err, HA_ENOMEM, "out of memory");
	}
	out->heads = heads;
	out->head_dim = outdim / heads;
	out->model_dim = model;
	out->baseline_hdi = ha_hdi_random_baseline(heads, out->head_dim, model);

	if (heads == 1) /* no basis for an answer that is always 1 */
		return single_head(weights, rows, cols, out);

	gsl_error_handler_t *old = gsl_set_error_handler_off();
	enum ha_status st = ha_hdi_overlaps(weights, cols, model, out->head_dim,
	                                    heads, layout, out, err);
	gsl_set_error_handler(old);
	if (st != HA_OK)
		ha_hdi_tensor_finish(out);
	return st;
}

enum ha_status ha_hdi_compute(const double *weights, size_t rows,
                              size_t cols, size_t heads,
                              enum ha_layout layout, const char *name,
                              struct ha_hdi_tensor *out,
                              struct ha_error *err)
{
	ha_error_init(err);
	if (!out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	memset(out, 0, sizeof *out);
	if (!weights)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	/* The bases are built over the weight: work on a copy. */
	if (rows != 0 && cols > SIZE_MAX / sizeof(double) / rows)
		return ha_fail(err, HA_EINVAL, "tensor '%s': %zu x %zu is too large",
		               name ? name : "", rows, cols);
	double *copy = malloc(rows * cols * sizeof *copy + 1);
	if (!copy)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	memcpy(copy, weights, rows * cols * sizeof *copy);
	enum ha_status st = compute_in_place(copy, rows, cols, heads, layout,
	                                     name, out, err);
	free(copy);
	return st;
}

void ha_hdi_report_free(struct ha_hdi_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->count; i++)
		ha_hdi_tensor_finish(&r->tensors[i]);
	free(r->tensors);
	free(r->warnings);
	free(r);
}

/* A new report with room for n tensors. */
static struct ha_hdi_report *report_new(size_t n)
{
	struct ha_hdi_report *r = calloc(1, sizeof *r);
	if (r && !(r->tensors = calloc(n ? n : 1, sizeof *r->tensors))) {
		free(r);
		r = NULL;
	}
	return r;
}

/* Tensor i is measured: its checks, the means so far, the progress. */
static enum ha_status measured(struct ha_hdi_report *r, size_t total,
                               const struct ha_progress *p,
                               struct ha_error *err)
{
	r->count++;
	enum ha_status st = ha_hdi_check_heads(r, r->count - 1, err);
	if (st == HA_OK && p->fn && p->fn(p->ctx, "layers", r->count, total))
		st = ha_fail(err, HA_ECANCELED, "cancelled");
	return st;
}

static void means(struct ha_hdi_report *r)
{
	double sum = 0.0, base = 0.0;
	for (size_t i = 0; i < r->count; i++) {
		sum += r->tensors[i].hdi;
		base += r->tensors[i].baseline_hdi;
	}
	r->mean_hdi = sum / (double)r->count;
	r->mean_baseline_hdi = base / (double)r->count;
}

/* A report measured (st HA_OK: its means into it, it into *out) or
 * failed (freed); returns st. */
static enum ha_status report_done(struct ha_hdi_report *r, enum ha_status st,
                                  struct ha_hdi_report **out)
{
	if (st != HA_OK) {
		ha_hdi_report_free(r);
		return st;
	}
	means(r);
	*out = r;
	return HA_OK;
}

/* ---- the rules of a report: the cost limit HA_HDI_MAX_WORK before any
 * data is read, and what it says about each tensor after (heads without
 * weights, heads of lower rank), the same for weights files and model
 * directories */

enum ha_status ha_hdi_check_work(const char *name, uint64_t rows,
                                 uint64_t cols, uint64_t outputs,
                                 uint64_t model, size_t heads,
                                 struct ha_error *err)
{
	if (heads <= 1 || outputs % heads != 0)
		return HA_OK; /* no pairs; or compute's own message */
	/* (H d_k)^2 d_model, computed without overflow */
	long double work = (long double)outputs * (long double)outputs *
	                   (long double)model;
	if (work <= (long double)HA_HDI_MAX_WORK)
		return HA_OK;
	return ha_fail(err, HA_EUNSUPPORTED,
	               "tensor '%s' [%" PRIu64 ", %" PRIu64 "]: its head "
	               "overlaps take (H*d_k)^2*d_model = %.3Lg "
	               "multiply-adds, more than the limit of %.3Lg (see "
	               "LIMITS in headalloc(1))", name, rows, cols, work,
	               (long double)HA_HDI_MAX_WORK);
}

/* "head 7", or "heads 3, 7, 9", or "heads 3, 7, 9, ..." */
static void list_heads(const struct ha_hdi_tensor *t, int zero, char *buf,
                       size_t size)
{
	size_t used = 0, shown = 0;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	buf[0] = '\0';
	for (size_t h = 0; h < t->heads && used + 24 < size; h++) {
		int match = zero ? t->rank[h] == 0
		                 : t->rank[h] > 0 && t->rank[h] < full;
		if (!match)
			continue;
		if (shown == 8) {
			used += (size_t)snprintf(buf + used, size - used, ", ...");
			break;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%zu",
		                         shown ? ", " : "", h);
		shown++;
	}
}

static enum ha_status add_warning(struct ha_hdi_report *r,
                                  enum ha_hdi_warning_kind kind, size_t i,
                                  struct ha_hdi_warning **w,
                                  struct ha_error *err)
{
	struct ha_hdi_warning *more =
		realloc(r->warnings, (r->warning_count + 1) * sizeof *more);
	if (!more)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	r->warnings = more;
	*w = &more[r->warning_count++];
	(*w)->kind = kind;
	(*w)->tensor = i;
	return HA_OK;
}

enum ha_status ha_hdi_check_heads(struct ha_hdi_report *r, size_t i,
                                  struct ha_error *err)
{
	const struct ha_hdi_tensor *t = &r->tensors[i];
	size_t zero = 0;
	for (size_t h = 0; h < t->heads; h++)
		zero += t->rank[h] == 0;
	size_t lower = t->rank_deficient - zero;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	char list[160];
	struct ha_hdi_warning *w = NULL;
	enum ha_status st = HA_OK;
	if (zero == t->heads) {
		if (t->heads == 1)
			return ha_fail(err, HA_EDEGENERATE,
			               "tensor '%s': its weights are all zero: "
			               "there is no subspace to measure", t->name);
		return ha_fail(err, HA_EDEGENERATE,
		               "tensor '%s': the weights of all %zu heads are "
		               "zero: there is no subspace to measure", t->name,
		               t->heads);
	}
	if (zero && (st = add_warning(r, HA_HDI_WARN_ZERO_HEADS, i, &w, err)) == HA_OK) {
		list_heads(t, 1, list, sizeof list);
		snprintf(w->message, sizeof w->message,
		         "tensor '%s': %zu of %zu heads %s all zero (head%s %s); "
		         "%s as overlapping no other head, which raises the HDI",
		         t->name, zero, t->heads, zero == 1 ? "is" : "are",
		         zero == 1 ? "" : "s", list,
		         zero == 1 ? "it counts" : "each counts");
	}
	if (st == HA_OK && lower &&
	    (st = add_warning(r, HA_HDI_WARN_LOW_RANK, i, &w, err)) == HA_OK) {
		list_heads(t, 0, list, sizeof list);
		snprintf(w->message, sizeof w->message,
		         "tensor '%s': %zu of %zu heads %s rank below %zu (head%s "
		         "%s); %s overlaps are taken over the rank %s", t->name,
		         lower, t->heads, lower == 1 ? "has" : "have", full,
		         lower == 1 ? "" : "s", list, lower == 1 ? "its" : "their",
		         lower == 1 ? "it has" : "they have");
	}
	return st;
}

/* ---- matrices in memory, added one at a time (hdi_matrices.h) */

struct ha_hdi_report *ha_hdi_report_new(void)
{
	return calloc(1, sizeof(struct ha_hdi_report));
}

enum ha_status ha_hdi_report_add(struct ha_hdi_report *r,
                                 const double *weights, size_t rows,
                                 size_t cols, size_t heads,
                                 enum ha_layout layout, const char *name,
                                 struct ha_error *err)
{
	ha_error_init(err);
	if (!r || !weights)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	int out_in = layout == HA_LAYOUT_OUT_IN;
	enum ha_status st = ha_hdi_check_work(name ? name : "", rows, cols,
	                                      out_in ? rows : cols,
	                                      out_in ? cols : rows, heads, err);
	if (st != HA_OK)
		return st;
	struct ha_hdi_tensor *more =
		realloc(r->tensors, (r->count + 1) * sizeof *more);
	if (!more)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	r->tensors = more;
	st = ha_hdi_compute(weights, rows, cols, heads, layout, name,
	                    &r->tensors[r->count], err);
	if (st != HA_OK)
		return st;
	size_t warnings = r->warning_count;
	r->count++;
	st = ha_hdi_check_heads(r, r->count - 1, err);
	if (st != HA_OK) { /* as it was: the tensor and its warnings out */
		r->count--;
		ha_hdi_tensor_finish(&r->tensors[r->count]);
		r->warning_count = warnings;
		return st;
	}
	means(r);
	return HA_OK;
}

/* ---- weights files and model directories */

/* The tensors a pattern passed by for not being 2-D. */
struct ha_hdi_skipped {
	size_t count;
	size_t first; /* the first one's index in the file */
};

/* How many of the tensors are listed in the message of a file without a
 * key projection before "and N more". */
#define LISTED 10

/* No name says "keys": HA_EINVAL listing the 2-D tensors, as many as the
 * message holds up to LISTED, then how many more. */
static enum ha_status no_keys(const struct ha_weights *w, int fused,
                              struct ha_error *err)
{
	char list[HA_ERROR_MESSAGE_MAX] = "";
	size_t len = 0, shown = 0, total = 0, n = ha_weights_count(w);
	for (size_t i = 0; i < n; i++) {
		struct ha_tensor_info t;
		if (ha_weights_info(w, i, &t) != HA_OK || t.ndim != 2)
			continue;
		total++;
		char item[160];
		int k = snprintf(item, sizeof item, "%s'%.100s' [%llu, %llu]",
		                 shown ? ", " : "", t.name,
		                 (unsigned long long)t.shape[0],
		                 (unsigned long long)t.shape[1]);
		if (shown < LISTED && k > 0 && len + (size_t)k < 170) {
			memcpy(list + len, item, (size_t)k + 1);
			len += (size_t)k;
			shown++;
		}
	}
	if (total == 0)
		return ha_fail(err, HA_EINVAL, "no tensor's name says it is a key "
		               "projection (a name ending in %s), and no tensor is 2-D",
		               ckpt_key_names(fused));
	char more[48] = "";
	if (total > shown)
		snprintf(more, sizeof more, " and %zu more", total - shown);
	return ha_fail(err, HA_EINVAL, "no tensor's name says it is a key "
	               "projection (a name ending in %s); choose with --tensor "
	               "among "
	               "its 2-D tensors: %s%s", ckpt_key_names(fused), list,
	               more);
}

/* The tensors of w to measure (see ha_hdi_options.keys_by_name and
 * ha_hdi_measure_weights): a new array *idx of *n indices in name order,
 * and those the pattern passed by in *skipped.  When every tensor a
 * pattern matches is not 2-D, the first of them is selected (its check
 * then fails).  Errors: those of ha_weights_select; HA_EINVAL when no
 * name says it is a key projection; then *idx is NULL. */
static enum ha_status select_tensors(const struct ha_weights *w,
                                     const char *pattern, int keys_by_name,
                                     int fused, size_t **idx, size_t *n,
                                     struct ha_hdi_skipped *skipped,
                                     struct ha_error *err)
{
	memset(skipped, 0, sizeof *skipped);
	enum ha_status st = ha_weights_select(w, pattern, idx, n, err);
	if (st != HA_OK)
		return st;
	int by_name = !pattern && keys_by_name && *n > 1;
	if (!pattern && !by_name)
		return HA_OK;
	struct ha_tensor_info t;
	ha_weights_info(w, (*idx)[0], &t);
	if (pattern && *n == 1 && strcmp(t.name, pattern) == 0)
		return HA_OK; /* named exactly: 2-D or an error, as it is */
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		ha_weights_info(w, (*idx)[i], &t);
		if (t.ndim == 2 && (!by_name || ckpt_key_name(t.name, fused)))
			(*idx)[kept++] = (*idx)[i];
		else if (pattern && !skipped->count++)
			skipped->first = (*idx)[i];
	}
	if (kept == 0 && by_name) {
		free(*idx);
		*idx = NULL;
		*n = 0;
		return no_keys(w, fused, err);
	}
	if (kept == 0) { /* every one is: the first one's error */
		*n = 1;
		(*idx)[0] = skipped->first;
		memset(skipped, 0, sizeof *skipped);
		return HA_OK;
	}
	*n = kept;
	return HA_OK;
}

/* Where the keys of tensor t are: the whole tensor, or the key block of
 * a fused one (opt->fused). */
static enum ha_status slice_of(const struct ha_tensor_info *t,
                               enum ha_layout layout, size_t heads,
                               const struct ha_hdi_options *o,
                               struct ckpt_key_slice *s,
                               struct ha_error *err)
{
	uint64_t outputs = layout == HA_LAYOUT_OUT_IN ? t->shape[0] : t->shape[1];
	if (o->fused == HA_FUSED_NONE) { /* compute says when heads do not
	                                    divide */
		memset(s, 0, sizeof *s);
		s->fusion = HA_FUSION_SEPARATE;
		s->head_dim = heads ? (size_t)(outputs / heads) : 0;
		s->key_stride = s->head_dim;
		return HA_OK;
	}
	return ckpt_key_slice(t->name, o->fused, o->fused_order, outputs,
	                      heads, s, err);
}

/* Every selected tensor is 2-D and within the work limit, before any
 * data is read. */
static enum ha_status check_selected(const struct ha_weights *w,
                                     const size_t *idx, size_t n,
                                     size_t heads, enum ha_layout layout,
                                     const struct ha_hdi_options *o,
                                     struct ha_error *err)
{
	enum ha_status st = HA_OK;
	for (size_t i = 0; st == HA_OK && i < n; i++) {
		struct ha_tensor_info t;
		ha_weights_info(w, idx[i], &t);
		if (t.ndim != 2)
			return ha_fail(err, HA_EUNSUPPORTED,
			               "tensor '%s' has %zu dimensions; a key "
			               "projection must be 2-D", t.name, t.ndim);
		int out_in = layout == HA_LAYOUT_OUT_IN;
		struct ckpt_key_slice s;
		st = slice_of(&t, layout, heads, o, &s, err);
		uint64_t keys = o->fused == HA_FUSED_NONE
		                        ? (out_in ? t.shape[0] : t.shape[1])
		                        : (uint64_t)heads * s.head_dim;
		if (st == HA_OK)
			st = ha_hdi_check_work(t.name, t.shape[0], t.shape[1], keys,
			                       out_in ? t.shape[1] : t.shape[0],
			                       heads, err);
	}
	return st;
}

/* The warning about the tensors a pattern passed by. */
static enum ha_status warn_skipped(struct ha_hdi_report *r,
                                   const struct ha_weights *w,
                                   const char *pattern,
                                   const struct ha_hdi_skipped *sk,
                                   struct ha_error *err)
{
	struct ha_hdi_warning *more = NULL;
	if (!sk->count)
		return HA_OK;
	enum ha_status st = add_warning(r, HA_HDI_WARN_SKIPPED, SIZE_MAX, &more,
	                                err);
	if (st != HA_OK)
		return st;
	struct ha_tensor_info t;
	ha_weights_info(w, sk->first, &t);
	snprintf(more->message, sizeof more->message,
	         "'%.100s' also matches %zu tensor%s that %s not 2-D, passed "
	         "by ('%.100s' has %zu dimension%s)", pattern, sk->count,
	         sk->count == 1 ? "" : "s", sk->count == 1 ? "is" : "are",
	         t.name, t.ndim, t.ndim == 1 ? "" : "s");
	return HA_OK;
}

/* Read tensor idx of w and measure its key block into *t. */
static enum ha_status measure_tensor(const struct ha_weights *w, size_t idx,
                                     size_t heads, enum ha_layout layout,
                                     const struct ha_hdi_options *o,
                                     struct ha_hdi_tensor *t,
                                     struct ha_error *err)
{
	struct ha_tensor_info info;
	double *data = NULL;
	ha_weights_info(w, idx, &info);
	size_t rows = (size_t)info.shape[0], cols = (size_t)info.shape[1];
	enum ha_status st = ha_weights_read(w, idx, &data, err);
	if (st == HA_OK && o->fused != HA_FUSED_NONE) {
		struct ckpt_key_slice s;
		st = slice_of(&info, layout, heads, o, &s, err);
		int out_in = layout == HA_LAYOUT_OUT_IN;
		if (st == HA_OK) {
			ckpt_key_cut(data, out_in ? rows : cols,
			             out_in ? cols : rows, layout, heads, &s);
			if (out_in)
				rows = heads * s.head_dim;
			else
				cols = heads * s.head_dim;
		}
	}
	if (st == HA_OK)
		st = compute_in_place(data, rows, cols, heads, layout, info.name,
		                      t, err);
	free(data);
	return st;
}

enum ha_status ha_hdi_measure_weights(const struct ha_weights *w,
                                      const char *pattern, size_t heads,
                                      enum ha_layout layout,
                                      const struct ha_hdi_options *opt,
                                      struct ha_hdi_report **out,
                                      struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!w || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	struct ha_hdi_options o = ha_hdi_options_of(opt);

	size_t *idx = NULL, n = 0;
	struct ha_hdi_skipped skipped;
	struct ha_hdi_report *r = NULL;
	enum ha_status st = select_tensors(w, pattern, o.keys_by_name,
	                                   o.fused != HA_FUSED_NONE, &idx, &n,
	                                   &skipped, err);
	if (st != HA_OK)
		return st;
	st = check_selected(w, idx, n, heads, layout, &o, err);
	if (st == HA_OK && !(r = report_new(n)))
		st = ha_fail(err, HA_ENOMEM, "out of memory");
	if (st == HA_OK)
		st = warn_skipped(r, w, pattern, &skipped, err);
	for (size_t i = 0; st == HA_OK && i < n; i++) {
		st = measure_tensor(w, idx[i], heads, layout, &o, &r->tensors[i],
		                    err);
		if (st == HA_OK)
			st = measured(r, n, &o.progress, err);
	}
	free(idx);
	return report_done(r, st, out);
}

enum ha_status ha_hdi_measure_checkpoint(const struct ha_checkpoint *c,
                                         const struct ha_hdi_options *opt,
                                         struct ha_hdi_report **out,
                                         struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!c || !out)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (c->count == 0)
		return ha_fail(err, HA_EINVAL, "the checkpoint plan has no layers");
	struct ha_hdi_options o = ha_hdi_options_of(opt);
	/* The key block is key_heads * head_dim outputs wide whatever the
	 * heads it is cut into. */
	size_t block = c->key_heads * c->head_dim, heads = o.heads;
	if (heads == 0)
		heads = c->key_heads;
	else if (block % heads != 0)
		return ha_fail(err, HA_EINVAL,
		               "%zu heads do not divide the %zu outputs of the "
		               "key block (%zu key head%s of %zu)", heads, block,
		               c->key_heads, c->key_heads == 1 ? "" : "s",
		               c->head_dim);
	enum ha_status st = HA_OK;
	for (size_t i = 0; st == HA_OK && i < c->count; i++)
		st = ha_hdi_check_work(c->layers[i].tensor, c->layers[i].rows,
		                       c->layers[i].cols, block, c->model_dim,
		                       heads, err);
	struct ha_hdi_report *r = NULL;
	if (st == HA_OK && !(r = report_new(c->count)))
		st = ha_fail(err, HA_ENOMEM, "out of memory");
	for (size_t i = 0; st == HA_OK && i < c->count; i++) {
		double *data = NULL;
		size_t rows = 0, cols = 0;
		st = ha_checkpoint_read_keys(c, i, &data, &rows, &cols, err);
		if (st == HA_OK)
			st = compute_in_place(data, rows, cols, heads, c->layout,
			                      c->layers[i].tensor, &r->tensors[i],
			                      err);
		free(data);
		if (st == HA_OK)
			st = measured(r, c->count, &o.progress, err);
	}
	return report_done(r, st, out);
}
