/* The sweep table's points (library-internal): n_i, x*(n_i) of a budget
 * read back from the journal (or solved again), and a failed solve in
 * words.  Used by the section (report_table.c), its rows
 * (report_table_rows.c) and its per-n fits (report_table_heads.c); it
 * calls none of them. */
#include <inttypes.h>

#include "report_internal.h"
#include "report/report_journal.h"
#include "report/report_table.h"

double table_sample_at(const struct table *t, size_t i)
{
	return t->req->samples.at(t->req->samples.ctx, i);
}

enum ha_status table_solve_failed(struct ha_report *r, struct ha_error *err,
                                  enum ha_status st, uint64_t budget)
{
	if (st == HA_EINFEASIBLE)
		return report_fail(r, err, st, "no (heads, head_dim) pair of budget %"
		                   PRIu64 " meets the constraints", budget);
	return report_fail(r, err, st, "solving: %s", ha_status_str(st));
}

/* x*(n_i) of budget b: from the journal, else solved again (the same
 * double: the workspace's answers do not depend on its past). */
enum ha_status table_relaxed_dim_at(struct table *t, size_t b, size_t i,
                                    double *x)
{
	if (journal_kept(t->journal) &&
	    journal_get(t->journal, b, i, x) == HA_OK)
		return HA_OK;
	struct ha_model m = t->model;
	struct ha_relaxed r;
	m.samples = table_sample_at(t, i);
	enum ha_status st = ha_relaxed_solver_solve(t->relaxed[b], &m, &r);
	*x = r.head_dim;
	return st;
}
