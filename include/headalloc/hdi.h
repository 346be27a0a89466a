/* headalloc — the Head Diversity Index of real key projections (headalloc-model(7), THE HEAD DIVERSITY INDEX).
 *
 * For each head h, W_K^h is the d_model x d_k block of a key-projection
 * weight that belongs to h.  Q_h is an orthonormal basis of its column
 * space; its numerical rank r_h is the number of singular values of
 * W_K^h above max(d_model, d_k) * DBL_EPSILON * sigma_max.  (How: a
 * certified CholeskyQR2 for heads that are far from rank-deficient, else
 * Householder QR and the SVD of R; both give the span of the left
 * singular vectors the rule keeps.  See src/lib/hdi/hdi_basis.c.)  The
 * overlap of two heads is
 *
 *     g_hh' = ||Q_h^T Q_h'||_F^2 / sqrt(r_h r_h')
 *
 * which is headalloc-model(7), THE HEAD DIVERSITY INDEX: ||Q_h^T Q_h'||_F^2 / d_k = mean cos^2 of the principal
 * angles when both heads have full rank r = d_k (the normal case), and for
 * rank-deficient heads is the cosine between the two orthogonal projectors,
 * still in [0, 1] and 1 exactly when the subspaces coincide.  A head whose
 * weights are all zero (rank 0) has overlap 0 with every other head.
 *
 *     HDI = 1 - (2 / (H (H - 1))) sum_{h < h'} g_hh'
 *
 * With H = 1 there are no pairs and HDI is defined as 1; no SVD is run
 * then (it cannot change the answer): the head's rank is reported as
 * full, or 0 when every weight is zero.
 *
 * Limits (bench/headalloc-bench, section "limits"): at most
 * HA_HDI_MAX_HEADS heads (the H x H overlap matrix is kept), and the
 * report functions below (files and model directories alike) refuse,
 * before any tensor's data is read, a tensor whose (H d_k)^2 d_model, the
 * multiply-adds of the pairwise overlaps, exceeds HA_HDI_MAX_WORK (a
 * 4096 x 4096 layer).  They also refuse a tensor whose heads are all zero
 * (HA_EDEGENERATE: there is no subspace to measure), and return a warning
 * for each tensor with some zero heads or heads of lower rank.
 *
 * The random baseline.  For two independent, uniformly random (Haar)
 * r-dimensional subspaces of R^m with projectors P, P', E[P] = (r/m) I by
 * rotation invariance, so E ||Q^T Q'||_F^2 = E tr(P P') = tr(E[P] E[P'])
 * = r^2 / m and E g = r / m, with r = min(d_k, m) (the rank of a random
 * head).  The mean over pairs has the same expectation whatever the
 * dependence between pairs, so the HDI of H random heads has expectation
 *
 *     baseline = 1 - min(d_k, d_model) / d_model
 *
 * also when H r > d_model (heads cannot then be orthogonal: since
 * ||sum_h P_h||_F^2 >= (H r)^2 / d_model, the largest HDI possible is
 * 1 - (H r / d_model - 1) / (H - 1), below 1), and 0 when d_k >= d_model.
 * An HDI near the baseline says "as diverse as random heads", not
 * "diverse".
 *
 * Memory: the bases are built in the weight's own buffer (it becomes the
 * stacked bases), and their overlaps are computed in panels of at most
 * 32 MiB (one block row of heads at least), so the file functions below
 * hold one tensor of doubles and a panel; ha_hdi_compute works on a copy
 * of its input.
 *
 * The numerical routines switch GSL's error handler off while they run
 * (and restore it after), so they never abort; that is process-wide state,
 * so do not run them concurrently with other GSL users that rely on the
 * handler. */
#ifndef HEADALLOC_HDI_H
#define HEADALLOC_HDI_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "checkpoint.h"
#include "error.h"
#include "progress.h"
#include "status.h"
#include "weights.h"

#ifdef __cplusplus
extern "C" {
#endif

/* enum ha_layout (out-in [H * d_k, d_model], in-out [d_model, H * d_k])
 * is in checkpoint.h. */

#define HA_HDI_MAX_HEADS ((size_t)1024)
#define HA_HDI_MAX_WORK ((uint64_t)1 << 36)

/* Two heads (first < second) and their overlap g. */
struct ha_head_pair {
	size_t first, second;
	double overlap;
};

/* The HDI of one tensor.  Arrays are owned by the struct: release them
 * with ha_hdi_tensor_finish(). */
struct ha_hdi_tensor {
	char *name;            /* the tensor's name ("" if none was given) */
	size_t heads;          /* H */
	size_t head_dim;       /* d_k */
	size_t model_dim;      /* d_model */
	double hdi;            /* in [0, 1]; 1 when H = 1 */
	double *overlap;       /* H x H row-major, symmetric; diagonal 1
	                          (0 for a rank-0 head) */
	size_t *rank;          /* H numerical ranks of W_K^h */
	size_t rank_deficient; /* heads with rank < min(d_k, d_model) */
	size_t pairs;          /* H (H - 1) / 2 */
	struct ha_head_pair most_similar;  /* largest g (first such pair);   */
	struct ha_head_pair least_similar; /* smallest g; both all-zero when
	                                      pairs is 0 */
	double baseline_hdi;   /* the expected HDI of random heads of this
	                          shape (see above); 1 when H = 1 */
};

/* What a report's tensor has that the HDI's user should know. */
enum ha_hdi_warning_kind {
	HA_HDI_WARN_ZERO_HEADS = 1, /* some heads' weights are all zero: each
	                               counts as overlapping no other head */
	HA_HDI_WARN_LOW_RANK = 2,   /* some heads have rank below
	                               min(d_k, d_model): their overlaps are
	                               taken over the rank they have */
	HA_HDI_WARN_SKIPPED = 3     /* a pattern matched tensors that are
	                               not 2-D, and they were passed by
	                               (tensor is SIZE_MAX: none of the
	                               report's) */
};

#define HA_HDI_WARNING_MAX 512

struct ha_hdi_warning {
	enum ha_hdi_warning_kind kind;
	size_t tensor;                    /* its index in the report */
	char message[HA_HDI_WARNING_MAX]; /* "tensor 'k': 1 of 12 heads is
	                                     all zero (head 7); ..." */
};

/* The HDI of every selected tensor of a file, sorted by tensor name (or
 * of every layer of a checkpoint, in the plan's order).  Made by the
 * library only (fields are only ever added at the end). */
struct ha_hdi_report {
	struct ha_hdi_tensor *tensors;
	size_t count;
	double mean_hdi;       /* mean of tensors[i].hdi */
	double mean_baseline_hdi; /* mean of tensors[i].baseline_hdi */
	struct ha_hdi_warning *warnings; /* in tensor order; NULL when none */
	size_t warning_count;
};

/* How to measure: a request that can grow (headalloc.h, "Structs that
 * grow").  Start from HA_HDI_OPTIONS_INIT. */
struct ha_hdi_options {
	size_t size;    /* sizeof(struct ha_hdi_options), as the caller
	                   was compiled: set by HA_HDI_OPTIONS_INIT */
	size_t heads;   /* a checkpoint's key block cut into this many heads
	                   (0: its key heads); ignored for weights files */
	struct ha_progress progress; /* called with the tensors measured
	                                ("layers") after each one */
	/* Weights files only.  What each tensor holds along its outputs
	 * (checkpoint.h, enum ha_fused): its key block is cut out and cut
	 * into the `heads` heads. */
	enum ha_fused fused;
	enum ha_fused_order fused_order;
	/* With pattern NULL: 0 reads every tensor; 1 only those whose names
	 * say they are key projections (the presets' key tensors: names
	 * ending in k_proj.weight, key.weight, k.weight or k_lin.weight, or
	 * with fused, c_attn.weight, query_key_value.weight, qkv_proj.weight
	 * or Wqkv.weight), and a file of one tensor (an .npy) that one;
	 * HA_EINVAL when no name does, the message listing the 2-D
	 * tensors. */
	int keys_by_name;
};
#define HA_HDI_OPTIONS_INIT                                                   \
	{sizeof(struct ha_hdi_options), 0, {NULL, NULL}, HA_FUSED_NONE,       \
	 HA_FUSED_CONCAT, 0}

/* The HDI of one 2-D weight of rows x cols finite doubles (row-major) with
 * the given number of heads and layout; name (may be NULL) is copied into
 * out->name and used in messages.  On HA_OK *out owns its arrays (release
 * with ha_hdi_tensor_finish); on failure *out is zeroed.  Errors: HA_EINVAL
 * (NULL pointer, heads = 0, an empty matrix, heads not dividing the
 * output dimension), HA_EUNSUPPORTED (heads > HA_HDI_MAX_HEADS),
 * HA_ENOMEM, HA_ENUMERIC (the SVD failed). */
HA_API enum ha_status ha_hdi_compute(const double *weights, size_t rows,
                              size_t cols, size_t heads,
                              enum ha_layout layout, const char *name,
                              struct ha_hdi_tensor *out,
                              struct ha_error *err);

/* Free the arrays of *t and zero it; NULL is accepted. */
HA_API void ha_hdi_tensor_finish(struct ha_hdi_tensor *t);

/* The HDI of every tensor of w matching pattern (fnmatch(3), no
 * flags; an exact name selects that tensor alone; NULL: all), in name order, with `heads` heads
 * each.  A pattern that is not a tensor's exact name passes by the
 * tensors it matches that are not 2-D (a bias, a norm), and
 * out->warnings says how many.  On HA_OK *out owns a report to free with
 * ha_hdi_report_free().  Errors: HA_EINVAL (a pattern matching nothing),
 * HA_EUNSUPPORTED for a tensor named exactly, or every tensor matched,
 * that is not 2-D, or one over HA_HDI_MAX_WORK (both before any data is
 * read), HA_EDEGENERATE for a tensor whose heads are all zero, those of
 * reading the tensor and of ha_hdi_compute; the message names the
 * tensor.  Then *out is NULL.  Zero and lower-rank heads are in
 * out->warnings.  Options (NULL: HA_HDI_OPTIONS_INIT): its progress is called after each tensor, and a non-zero return stops the
 * work with HA_ECANCELED; fused cuts each tensor's key block out (the
 * cut the presets make), HA_EINVAL when its
 * outputs do not divide (ha_checkpoint_fuse); keys_by_name chooses the
 * tensors when pattern is NULL (above). */
HA_API enum ha_status ha_hdi_measure_weights(const struct ha_weights *w,
                                             const char *pattern,
                                             size_t heads,
                                             enum ha_layout layout,
                                             const struct ha_hdi_options *opt,
                                             struct ha_hdi_report **out,
                                             struct ha_error *err);

/* The HDI of every layer of a checkpoint plan (checkpoint.h): each
 * layer's key block with c->key_heads heads in c->layout, or cut into
 * opt->heads heads of c->key_heads * c->head_dim / opt->heads dimensions
 * (0: c->key_heads; HA_EINVAL when it does not divide the key block);
 * tensors[i] is layer i of the plan and is named after its tensor.  One
 * tensor is in memory at a time.  On HA_OK *out owns a report to free
 * with ha_hdi_report_free(); then errors: HA_EINVAL (NULL, an empty
 * plan), HA_EFORMAT (a tensor changed since the plan was made), those of
 * ha_hdi_compute; then *out is NULL.  Options (NULL: HA_HDI_OPTIONS_INIT):
 * its progress is called after each layer, and a non-zero return stops
 * the work with HA_ECANCELED. */
HA_API enum ha_status ha_hdi_measure_checkpoint(const struct ha_checkpoint *c,
                                                const struct ha_hdi_options *opt,
                                                struct ha_hdi_report **out,
                                                struct ha_error *err);

/* Free a report; NULL is accepted. */
HA_API void ha_hdi_report_free(struct ha_hdi_report *report);

#ifdef __cplusplus
}
#endif
#endif
