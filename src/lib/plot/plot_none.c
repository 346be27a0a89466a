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

enum ha_status ha_plot_allocation(struct ha_plot_target *target,
                                  const struct ha_plot_allocation_request *req,
                                  struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_sweep(struct ha_plot_target *target,
                             const struct ha_plot_sweep_request *req,
                             struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_regimes(struct ha_plot_target *target,
                               const struct ha_regimes_request *req,
                               struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_hdi(struct ha_plot_target *target,
                           const struct ha_plot_hdi_request *req,
                           struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_head_weights(struct ha_plot_target *target,
                                    const struct ha_plot_head_weights_request *req,
                                    struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_calibration(struct ha_plot_target *target,
                                   const struct ha_plot_calibration_request *req,
                                   struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_grouped(struct ha_plot_target *target,
                               const struct ha_plot_grouped_request *req,
                               struct ha_error *err)
{
	return unavailable(target, req, err);
}

enum ha_status ha_plot_plan(struct ha_plot_target *target,
                            const struct ha_plot_plan_request *req,
                            struct ha_error *err)
{
	return unavailable(target, req, err);
}
