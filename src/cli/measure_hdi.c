/* Measuring the HDI for the hdi command and for --hdi-from: the library
 * refuses what costs too much or has nothing to measure and returns its
 * warnings (hdi.h); this file prints them, in the one place both
 * commands share. */
#include <stdio.h>

#include "common.h"
#include "progress_line.h"

void cli_print_hdi_warnings(const char *path, const struct ha_hdi_report *r)
{
	char safe_path[4096], safe[HA_HDI_WARNING_MAX];
	if (r->warning_count)
		cli_progress_clear();
	for (size_t i = 0; i < r->warning_count; i++)
		fprintf(stderr, "headalloc: warning: %s: %s\n",
		        ha_text_safe(path, safe_path, sizeof safe_path),
		        ha_text_safe(r->warnings[i].message, safe, sizeof safe));
}

int cli_measure_hdi(const char *subject, const char *path,
                    const char *pattern, size_t heads, enum ha_layout layout,
                    const struct ha_hdi_options *options,
                    struct ha_hdi_report **out)
{
	struct ha_weights *w = NULL;
	struct ha_error err;
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	if (options)
		opt = *options;
	opt.keys_by_name = 1;
	*out = NULL;
	ha_error_init(&err);
	enum ha_status st = ha_weights_open(path, &w, &err);
	if (st == HA_OK)
		st = ha_hdi_measure_weights(w, pattern, heads, layout, &opt, out,
		                            &err);
	ha_weights_free(w);
	if (st != HA_OK)
		return cli_library_failure(subject, path, st, &err);
	cli_print_hdi_warnings(path, *out);
	return EXIT_OK;
}
