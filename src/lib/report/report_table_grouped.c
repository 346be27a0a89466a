/* The rows of a grouped sweep (ha_sweep_request.kv): each row the
 * grouped-query optimum over (H, G, d) of its (n, D), written with the
 * columns of the sweep table over (H, d) and then kv_heads, kv_dim and
 * kv_cache_bytes_per_token.  These rows cost a solve over every divisor
 * triple each, so they take the emitter and printf (the flat-row fast
 * path of report_table_rows.c is for the table over (H, d)). */
#include <inttypes.h>
#include <stdio.h>

#include "report/report_table.h"

void table_grouped_heading(struct ha_report *r)
{
	fprintf(r->stream, "\n%20s %12s %20s %10s %13s %12s %16s %14s %10s %12s %16s\n",
	        "budget", "samples", "heads", "head_dim", "mse", "log10_mse",
	        "relaxed_head_dim", "relaxed_heads", "kv_heads", "kv_dim",
	        "cache_bytes");
}

static void yaml_row(struct ha_yaml_writer *w, const struct ha_sweep_row *row)
{
	ha_yaml_begin_map(w, 1);
	table_yaml_row_items(w, row);
	ha_yaml_key(w, "kv_heads");
	ha_yaml_uint(w, row->kv_heads);
	ha_yaml_key(w, "kv_dim");
	ha_yaml_uint(w, row->kv_dim);
	ha_yaml_key(w, "kv_cache_bytes_per_token");
	ha_yaml_uint(w, row->kv_cache_bytes_per_token);
	ha_yaml_end_map(w);
}

void table_grouped_rows(struct ha_report *r, const struct ha_sweep_row *rows,
                        size_t count)
{
	for (size_t k = 0; k < count; k++) {
		const struct ha_sweep_row *row = &rows[k];
		char mse[32];
		if (r->yaml) {
			yaml_row(r->yaml, row);
			continue;
		}
		fprintf(r->stream, "%20" PRIu64 " %12.6g %20" PRIu64 " %10" PRIu64
		        " %13s %12.6f %16.6g %14.6g %10" PRIu64 " %12" PRIu64 " %16"
		        PRIu64 "\n", row->budget, row->samples, row->heads,
		        row->head_dim, report_human(row->mse, mse),
		        report_log10(row->log_mse), row->relaxed_head_dim,
		        row->relaxed_heads, row->kv_heads, row->kv_dim,
		        row->kv_cache_bytes_per_token);
	}
}
