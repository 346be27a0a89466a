/* The sweep table as a caller writes it (ha_report_table renders a
 * sweep's result): the sweep of problem run, written, freed.  For the
 * tests. */
#ifndef HEADALLOC_TESTS_SWEEP_TABLE_H
#define HEADALLOC_TESTS_SWEEP_TABLE_H

#include <headalloc/headalloc.h>

static inline enum ha_status sweep_table_progress(struct ha_report *r,
                                                  struct ha_sweep_request problem,
                                                  struct ha_progress progress,
                                                  struct ha_error *err)
{
	struct ha_sweep_result *result = NULL;
	enum ha_status st = ha_sweep_run(&problem, &progress, &result, err);
	if (st == HA_OK)
		st = ha_report_table(r, &(struct ha_table_request){.result = result}, err);
	ha_sweep_result_free(result);
	return st;
}

static inline enum ha_status sweep_table(struct ha_report *r,
                                         struct ha_sweep_request problem,
                                         struct ha_error *err)
{
	return sweep_table_progress(r, problem, (struct ha_progress){0}, err);
}

#endif
