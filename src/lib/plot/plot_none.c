/* The pictures of a build without PLplot (meson -Dplot=disabled, or
 * PLplot not found): every one says so. */
#include <headalloc/plot.h>

#include "base/error_internal.h"

static enum ha_status unavailable(const struct ha_plot_target *target,
                                  const void *req, struct ha_error *err)
{
	if (!target || !target->stream || !req)
		return ha_fail(err, HA_EINVAL, "a picture needs a target stream and a request");
	return ha_fail(err, HA_EUNSUPPORTED,
	               "this headalloc was built without pictures (PLplot)");
}

/* Each picture of plot.h, refusing the same way. */
#define UNAVAILABLE(picture, request)                                         \
	enum ha_status picture(struct ha_plot_target *target,                 \
	                       const struct request *req, struct ha_error *err) \
	{                                                                     \
		return unavailable(target, req, err);                         \
	}

UNAVAILABLE(ha_plot_allocation, ha_plot_allocation_request)
UNAVAILABLE(ha_plot_sweep, ha_plot_sweep_request)
UNAVAILABLE(ha_plot_regimes, ha_regimes_request)
UNAVAILABLE(ha_plot_hdi, ha_plot_hdi_request)
UNAVAILABLE(ha_plot_head_weights, ha_plot_head_weights_request)
UNAVAILABLE(ha_plot_calibration, ha_plot_calibration_request)
UNAVAILABLE(ha_plot_grouped, ha_plot_grouped_request)
UNAVAILABLE(ha_plot_plan, ha_plot_plan_request)
