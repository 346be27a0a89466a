/* The sweep table's writers (library-internal): report_table.c writes
 * the section and the fits, and calls report_table_rows.c for the rows,
 * which calls nothing back.  The sweep's result (sweep.h) holds every
 * number. */
#ifndef HEADALLOC_REPORT_TABLE_H
#define HEADALLOC_REPORT_TABLE_H

#include <stddef.h>

#include <headalloc/report.h>
#include <headalloc/sweep.h>

#include "report_internal.h"

/* Write every row of the result, n outer (YAML: the key table and its
 * list).  HA_OK, or the report's failure (the rows' reading back, or
 * HA_EIO once writing failed). */
enum ha_status table_write_rows(struct ha_sweep_result *result,
                                struct ha_report *r, struct ha_error *err);

/* report_table_grouped.c: a grouped sweep's rows (ha_sweep_request.kv),
 * the columns of the others then kv_heads, kv_dim and
 * kv_cache_bytes_per_token; the text heading, then each batch. */
/* A sweep row's keys and values (budget ... relaxed_heads) into the open
 * map of w: the plain row, and the grouped one before its KV keys. */
void table_yaml_row_items(struct ha_yaml_writer *w, const struct ha_sweep_row *row);

void table_grouped_heading(struct ha_report *r);
void table_grouped_rows(struct ha_report *r, const struct ha_sweep_row *rows,
                        size_t count);

#endif
