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
