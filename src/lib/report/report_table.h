/* The sweep table's writers (library-internal): report_table.c writes
 * the section and the per-budget fits, and calls report_table_rows.c for
 * the rows and report_table_heads.c for the per-n fits, which call
 * nothing back.  The sweep (sweep.h) computes every number. */
#ifndef HEADALLOC_REPORT_TABLE_H
#define HEADALLOC_REPORT_TABLE_H

#include <stddef.h>

#include <headalloc/report.h>
#include <headalloc/sweep.h>

#include "report_internal.h"

/* How the rows are formatted by the sweep's threads (on_batch of
 * ha_sweep_request, with a report's table_format as batch_ctx): into a
 * scratch of TABLE_SCRATCH bytes a batch, every row but those the emitter
 * writes (the first in YAML; all in JSON). */
#define TABLE_SCRATCH (HA_SWEEP_BATCH_MAX * (size_t)512)
void table_format_batch(void *format, const struct ha_sweep_row *rows,
                        size_t count, size_t first, char *scratch, size_t *used);

/* Write every row of the sweep as it hands them out, n outer (YAML: the
 * key table and its list), telling progress after each batch.  HA_OK, or
 * the report's failure (a solve's, a cancel's, or HA_EIO once writing
 * failed). */
enum ha_status table_write_rows(struct ha_sweep *sweep,
                                const struct ha_progress *progress,
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

/* The per-n fits (YAML: the items of fits.by_samples; text: a line each)
 * of ln H* against ln D over the budgets, as the sweep hands them out,
 * written in order.  Stops early once writing has failed (the report
 * knows). */
void table_write_samples_fits(struct ha_sweep *sweep, struct ha_report *r);

#endif
