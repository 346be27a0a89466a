/* The sweep table as a caller writes it (ha_report_table renders a sweep
 * it is given): the sweep of problem made with the report's hooks (so
 * that its threads format the rows), written, freed.  For the tests. */
#ifndef HEADALLOC_TESTS_SWEEP_TABLE_H
#define HEADALLOC_TESTS_SWEEP_TABLE_H

#include <headalloc/headalloc.h>

static inline enum ha_status sweep_table_progress(struct ha_report *r,
                                                  struct ha_sweep_request problem,
                                                  struct ha_progress progress,
                                                  struct ha_error *err)
{
	ha_report_table_hooks(r, &problem);
	struct ha_sweep *sweep = NULL;
	enum ha_status st = ha_sweep_new(&problem, &sweep, err);
	if (st == HA_OK)
		st = ha_report_table(r, &(struct ha_table_request){
			.sweep = sweep, .progress = progress}, err);
	ha_sweep_free(sweep);
	return st;
}

static inline enum ha_status sweep_table(struct ha_report *r,
                                         struct ha_sweep_request problem,
                                         struct ha_error *err)
{
	return sweep_table_progress(r, problem, (struct ha_progress){0}, err);
}

#endif
