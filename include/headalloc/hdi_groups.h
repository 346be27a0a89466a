/* headalloc — the diversity of the query heads inside each key group of a
 * grouped-query checkpoint (headalloc-model(7), THE HEAD DIVERSITY INDEX;
 * headalloc hdi DIR --groups).
 *
 * Under grouped-query attention H query heads share G < H key (and
 * value) heads, g = H / G query heads to each.  Two heads of different
 * groups differ by their keys: the HDI of the G key heads (hdi.h) is the
 * estimate of the model's hdi.  Two heads of one group share their keys
 * and values and differ only by their queries: the HDI of a group's g
 * query projections W_Q^h, by the same definition as hdi.h's (the overlap
 * of two heads is ||Q_h^T Q_h'||_F^2 / sqrt(r_h r_h'), the HDI one minus
 * the mean overlap of its pairs), measured for each group, is the
 * estimate of group_hdi.  A layer's group HDI is the mean over its G
 * groups (each has g (g - 1) / 2 pairs, so it is also one minus the mean
 * overlap of every pair of query heads that share a key head); the
 * report's mean is over layers.
 *
 * The same policy as hdi.h: a group whose (g d_k)^2 d_model multiply-adds
 * exceed HA_HDI_MAX_WORK is refused before any data is read, a group
 * whose query heads are all zero is HA_EDEGENERATE, and zero or lower-rank
 * query heads come back as warnings. */
#ifndef HEADALLOC_HDI_GROUPS_H
#define HEADALLOC_HDI_GROUPS_H

#include "export.h"

#include <stddef.h>

#include "checkpoint.h"
#include "error.h"
#include "hdi.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The within-group diversity of every layer of a plan.  Made by the
 * library only (fields are only ever added at the end). */
struct ha_hdi_groups {
	size_t count;       /* layers: the plan's */
	size_t key_heads;   /* G: groups per layer */
	size_t query_heads; /* H */
	size_t group_size;  /* g = H / G, at least 2 */
	/* count * key_heads measurements: groups->tensors[i G + h] is the
	 * g query heads of key head h in layer i (heads numbered 0..g-1
	 * within the group: query head h g + j is its head j), named
	 * "TENSOR, query heads A-B" after the layer's key tensor; its
	 * warnings are those of the query heads.  groups->mean_hdi is
	 * mean_group_hdi. */
	struct ha_hdi_report *groups;
	double *group_hdi;      /* count: each layer's mean over its groups,
	                           the estimate of group_hdi */
	double mean_group_hdi;  /* the mean of group_hdi over layers */
	double baseline_group_hdi; /* the expected HDI of g random heads of
	                              this shape (ha_hdi_random_baseline) */
};

/* The within-group diversity of the query heads of every layer of c,
 * read with ha_checkpoint_read_queries, one layer in memory at a time.
 * opt (NULL: HA_HDI_OPTIONS_INIT): its progress is called after each
 * layer ("layers"), a non-zero return stops the work with HA_ECANCELED;
 * opt->heads must be 0 (the groups are the plan's key heads).  On HA_OK
 * *out owns the result, to free with ha_hdi_groups_free().  Errors:
 * HA_EINVAL (NULL, an empty plan, opt->heads not 0, a plan that is not
 * grouped: key_heads == query_heads, the message says so), those of
 * ha_checkpoint_read_queries and ha_hdi_compute, HA_EUNSUPPORTED (over
 * the work limit), HA_EDEGENERATE (a group's query heads all zero);
 * then *out is NULL. */
HA_API enum ha_status ha_hdi_measure_groups(const struct ha_checkpoint *c,
                                            const struct ha_hdi_options *opt,
                                            struct ha_hdi_groups **out,
                                            struct ha_error *err);

/* Free a result; NULL is accepted. */
HA_API void ha_hdi_groups_free(struct ha_hdi_groups *g);

#ifdef __cplusplus
}
#endif
#endif
