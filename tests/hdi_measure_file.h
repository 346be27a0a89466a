/* The HDI of a weights file through the library's entry points, as the
 * CLI takes them: ha_weights_open, ha_hdi_measure_weights without
 * options, ha_weights_free (test_hdi.c, test_hdi_checks.c,
 * test_hdi_bad_files.c, test_plot.c). */
#ifndef HA_TEST_HDI_MEASURE_FILE_H
#define HA_TEST_HDI_MEASURE_FILE_H

#include <headalloc/headalloc.h>

static inline enum ha_status hdi_measure_file(const char *path,
                                              const char *pattern,
                                              size_t heads,
                                              enum ha_layout layout,
                                              struct ha_hdi_report **out,
                                              struct ha_error *err)
{
	struct ha_weights *w = NULL;
	*out = NULL;
	enum ha_status st = ha_weights_open(path, &w, err);
	if (st != HA_OK)
		return st;
	st = ha_hdi_measure_weights(w, pattern, heads, layout, NULL, out, err);
	ha_weights_free(w);
	return st;
}

#endif
