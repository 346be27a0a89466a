/* The HDI of matrices in memory, added one at a time to a report (see
 * hdi_matrices.h). */
#include <stdlib.h>
#include <string.h>

#include <headalloc/hdi_matrices.h>

#include "base/error_internal.h"
#include "hdi_internal.h"

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
	double sum = 0.0, base = 0.0;
	for (size_t i = 0; i < r->count; i++) {
		sum += r->tensors[i].hdi;
		base += r->tensors[i].baseline_hdi;
	}
	r->mean_hdi = sum / (double)r->count;
	r->mean_baseline_hdi = base / (double)r->count;
	return HA_OK;
}
