/* What every build knows about pictures, with PLplot or without: the
 * formats, whether pictures can be drawn, and (without PLplot: meson
 * -Dplot=disabled, or PLplot not found) pictures that say they cannot. */
#include <string.h>
#include <strings.h>

#include <headalloc/plot.h>
#include "plot/plot_internal.h"

int ha_plot_available(void)
{
#ifdef HA_HAVE_PLOT
	return 1;
#else
	return 0;
#endif
}

/* The formats' names, as a file name's extension spells them. */
static const char *const names[] = {
	[HA_PLOT_SVG] = "svg", [HA_PLOT_PNG] = "png", [HA_PLOT_PDF] = "pdf",
};
#define FORMATS (sizeof names / sizeof *names)

const char *ha_plot_format_str(enum ha_plot_format format)
{
	return (unsigned)format < FORMATS ? names[format] : "unknown";
}

enum ha_status ha_plot_format_from_path(const char *path,
                                        enum ha_plot_format *out)
{
	if (!path || !out)
		return HA_EINVAL;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	/* ".png" alone names a hidden file, not a PNG picture of no name. */
	if (!dot || dot == base)
		return HA_EINVAL;
	for (size_t i = 0; i < FORMATS; i++)
		if (strcasecmp(dot + 1, names[i]) == 0) {
			*out = (enum ha_plot_format)i;
			return HA_OK;
		}
	return HA_EINVAL;
}

#ifndef HA_HAVE_PLOT
/* Each picture of plot.h, refusing the same way. */
#define UNAVAILABLE(picture, request)                                              \
	enum ha_status picture(struct ha_plot_target *target,                      \
	                       const struct request *req, struct ha_error *err)    \
	{                                                                          \
		if (!target || !target->stream || !req)                            \
			return ha_fail(err, HA_EINVAL, "a picture needs a target " \
			               "stream and a request");                    \
		return ha_fail(err, HA_EUNSUPPORTED,                               \
		               "this headalloc was built without pictures (PLplot)"); \
	}

UNAVAILABLE(ha_plot_allocation, ha_plot_allocation_request)
UNAVAILABLE(ha_plot_sweep, ha_plot_sweep_request)
UNAVAILABLE(ha_plot_regimes, ha_regimes_request)
UNAVAILABLE(ha_plot_hdi, ha_plot_hdi_request)
UNAVAILABLE(ha_plot_head_weights, ha_plot_head_weights_request)
UNAVAILABLE(ha_plot_calibration, ha_plot_calibration_request)
UNAVAILABLE(ha_plot_grouped, ha_plot_grouped_request)
UNAVAILABLE(ha_plot_plan, ha_plot_plan_request)
#endif
