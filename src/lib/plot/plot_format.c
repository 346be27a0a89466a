/* What every build knows about pictures, with PLplot or without: the
 * formats and whether pictures can be drawn. */
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

const char *ha_plot_format_str(enum ha_plot_format format)
{
	switch (format) {
	case HA_PLOT_SVG:
		return "svg";
	case HA_PLOT_PNG:
		return "png";
	case HA_PLOT_PDF:
		return "pdf";
	}
	return "unknown";
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
	static const enum ha_plot_format formats[] = {HA_PLOT_SVG, HA_PLOT_PNG,
	                                              HA_PLOT_PDF};
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		if (strcasecmp(dot + 1, ha_plot_format_str(formats[i])) == 0) {
			*out = formats[i];
			return HA_OK;
		}
	return HA_EINVAL;
}
