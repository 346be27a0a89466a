/* headalloc — the HDI of key projections held in memory (a front end's
 * arrays: NumPy, a state dict, a PyTorch module), by the same policy as
 * the files and model directories of hdi.h.
 *
 * A report is made empty and each matrix added to it in turn, so that a
 * caller converting its tensors to doubles holds one at a time.  Each
 * addition is refused, before its SVDs, over HA_HDI_MAX_WORK
 * (HA_EUNSUPPORTED) and, after, when all its heads are zero
 * (HA_EDEGENERATE); zero and lower-rank heads become the report's
 * warnings, and the means are kept up to date. */
#ifndef HEADALLOC_HDI_MATRICES_H
#define HEADALLOC_HDI_MATRICES_H

#include "export.h"

#include <stddef.h>

#include "error.h"
#include "hdi.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An empty report (count 0, means 0) to free with ha_hdi_report_free(),
 * or NULL when out of memory. */
HA_API struct ha_hdi_report *ha_hdi_report_new(void);

/* Measure one rows x cols matrix of finite doubles (row-major; read, not
 * kept) with `heads` heads in `layout`, named name (may be NULL), as
 * ha_hdi_compute does, and append it to r: its tensor, its warnings
 * (tensor = its index) and the new means.  Errors: HA_EINVAL (NULL r or
 * weights, and those of ha_hdi_compute), HA_EUNSUPPORTED (over the work
 * limit or heads > HA_HDI_MAX_HEADS), HA_EDEGENERATE (every head zero),
 * HA_ENOMEM, HA_ENUMERIC; then r is as it was. */
HA_API enum ha_status ha_hdi_report_add(struct ha_hdi_report *r,
                                        const double *weights, size_t rows,
                                        size_t cols, size_t heads,
                                        enum ha_layout layout,
                                        const char *name,
                                        struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
