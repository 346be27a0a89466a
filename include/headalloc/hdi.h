/* headalloc — the Head Diversity Index of real key projections (spec §5).
 *
 * For each head h, W_K^h is the d_model x d_k block of a key-projection
 * weight that belongs to h.  Q_h is an orthonormal basis of its column
 * space, taken from the left singular vectors of W_K^h (GSL SVD) whose
 * singular values exceed max(d_model, d_k) * DBL_EPSILON * sigma_max; their
 * number is the head's numerical rank r_h.  The overlap of two heads is
 *
 *     g_hh' = ||Q_h^T Q_h'||_F^2 / sqrt(r_h r_h')
 *
 * which is spec §5's ||Q_h^T Q_h'||_F^2 / d_k = mean cos^2 of the principal
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
 * HA_HDI_MAX_HEADS heads (the H x H overlap matrix is kept), and the CLI
 * refuses a tensor whose (H d_k)^2 d_model, the multiply-adds of the
 * pairwise overlaps, exceeds HA_HDI_MAX_WORK (a 4096 x 4096 layer).
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

#include "error.h"
#include "status.h"
#include "weights.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HA_HDI_MAX_HEADS ((size_t)1024)
#define HA_HDI_MAX_WORK ((uint64_t)1 << 36)

/* How a 2-D key-projection weight is stored. */
enum ha_layout {
	HA_LAYOUT_OUT_IN, /* [H * d_k, d_model]: PyTorch nn.Linear (default) */
	HA_LAYOUT_IN_OUT  /* [d_model, H * d_k]: JAX/Flax, TF Dense */
};

/* Two heads (first < second) and their overlap g. */
struct ha_head_pair {
	size_t first, second;
	double overlap;
};

/* The HDI of one tensor.  Arrays are owned by the struct: release them
 * with ha_hdi_tensor_clear(). */
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
};

/* The HDI of every selected tensor of a file, sorted by tensor name. */
struct ha_hdi_report {
	struct ha_hdi_tensor *tensors;
	size_t count;
	double mean_hdi;       /* mean of tensors[i].hdi */
};

/* "out-in" or "in-out". */
HA_API const char *ha_layout_str(enum ha_layout layout);

/* Parse "out-in" / "in-out" into *out.  HA_EINVAL for anything else. */
HA_API enum ha_status ha_layout_parse(const char *text, enum ha_layout *out);

/* The HDI of one 2-D weight of rows x cols finite doubles (row-major) with
 * the given number of heads and layout; name (may be NULL) is copied into
 * out->name and used in messages.  On HA_OK *out owns its arrays (release
 * with ha_hdi_tensor_clear); on failure *out is zeroed.  Errors: HA_EINVAL
 * (NULL pointer, heads = 0, an empty matrix, heads not dividing the
 * output dimension), HA_EUNSUPPORTED (heads > HA_HDI_MAX_HEADS),
 * HA_ENOMEM, HA_ENUMERIC (the SVD failed). */
HA_API enum ha_status ha_hdi_compute(const double *weights, size_t rows,
                              size_t cols, size_t heads,
                              enum ha_layout layout, const char *name,
                              struct ha_hdi_tensor *out,
                              struct ha_error *err);

/* Free the arrays of *t and zero it; NULL is accepted. */
HA_API void ha_hdi_tensor_clear(struct ha_hdi_tensor *t);

/* The HDI of every tensor of w matching pattern (see ha_weights_select;
 * NULL: all), in name order, with `heads` heads each.  On HA_OK *out owns
 * a report to free with ha_hdi_report_free().  Errors: those of
 * ha_weights_select, ha_weights_read and ha_hdi_compute, and
 * HA_EUNSUPPORTED for a selected tensor that is not 2-D; the message names
 * the tensor.  Then *out is NULL. */
HA_API enum ha_status ha_hdi_from_weights(const struct ha_weights *w,
                                   const char *pattern, size_t heads,
                                   enum ha_layout layout,
                                   struct ha_hdi_report **out,
                                   struct ha_error *err);

/* ha_weights_open(path) + ha_hdi_from_weights + ha_weights_free: all the
 * CLI's `hdi FILE --tensor PAT --heads H --layout L` needs. */
HA_API enum ha_status ha_hdi_from_file(const char *path, const char *pattern,
                                size_t heads, enum ha_layout layout,
                                struct ha_hdi_report **out,
                                struct ha_error *err);

/* Free a report; NULL is accepted. */
HA_API void ha_hdi_report_free(struct ha_hdi_report *report);

#ifdef __cplusplus
}
#endif
#endif
