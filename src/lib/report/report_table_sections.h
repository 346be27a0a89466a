/* The two long parts of the sweep table (library-internal), called by the
 * section alone (report_table.c): the rows (report_table_rows.c) and the
 * per-n fits (report_table_heads.c). */
#ifndef HEADALLOC_REPORT_TABLE_SECTIONS_H
#define HEADALLOC_REPORT_TABLE_SECTIONS_H

#include "report/report_table.h"

/* Solve every (n, D), n outer, streaming the rows (YAML: the key table
 * and its list) and putting every relaxed optimum into the journal and
 * the per-budget fits, in row order.  HA_OK, or the report's failure
 * (a solve's, or HA_EIO once writing failed). */
enum ha_status table_write_rows(struct table *t, struct ha_report *r,
                                struct ha_error *err);

/* The per-n fits (YAML: the items of fits.by_samples; text: a line each)
 * of ln H* against ln D over the budgets, from the journal, computed and
 * formatted by worker threads and written in order.  Stops early once
 * writing has failed (the report knows). */
void table_write_samples_fits(struct table *t, struct ha_report *r);

#endif
