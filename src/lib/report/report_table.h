/* The sweep table's state and its points (library-internal), shared by
 * report_table.c (the section, its setup and the fits),
 * report_table_rows.c (the rows, solved by worker threads) and
 * report_table_heads.c (the per-n fits); the points are
 * report_table_points.c's.  The parts the section calls are declared in
 * report_table_sections.h, so that no file calls back into one that
 * calls it. */
#ifndef HEADALLOC_REPORT_TABLE_H
#define HEADALLOC_REPORT_TABLE_H

#include <stddef.h>

#include <headalloc/fit.h>
#include <headalloc/report.h>
#include <headalloc/solver.h>

#include "report_internal.h"
#include "report/report_journal.h"

struct table {
	const struct ha_table_request *req;
	struct ha_model model;        /* req->model at the current n */
	struct ha_solver **solvers;   /* one per budget */
	struct ha_relaxed_solver **relaxed; /* one per budget */
	struct ha_fit **dim_power;    /* per budget: ln d* vs ln ln n */
	struct ha_fit **dim_log;      /* per budget: d* vs ln n */
	struct ha_fit *heads_power;   /* per n, over the budgets */
	struct journal *journal;      /* x*(n, D) of every row */
	size_t replay_budget;         /* which budget a replay regenerates */
};

/* n_i, from the request's samples. */
double table_sample_at(const struct table *t, size_t i);

/* x*(n_i) of budget b: from the journal, else solved again (the same
 * double: the workspace's answers do not depend on its past). */
enum ha_status table_relaxed_dim_at(struct table *t, size_t b, size_t i,
                                    double *x);

/* Record a solver's failure st for budget, in words (report_fail). */
enum ha_status table_solve_failed(struct ha_report *r, struct ha_error *err,
                                  enum ha_status st, uint64_t budget);

#endif
