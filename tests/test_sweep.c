/* The sweep (sweep_internal.h) against independent computations: every
 * row is the single query of its point (ha_solver_solve), in order, in
 * batches of bounded size, on one thread and on four; the fits are those
 * of ha_fit over the rows' own relaxed optima, and the per-n fits of its
 * result (ha_sweep_run) those over each n's budgets. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/fit.h>
#include <headalloc/solver.h>
#include <headalloc/sweep.h>
#include "fit/fit_internal.h"
#include "sweep/sweep_internal.h"

#define POINTS 1000
#define BUDGETS 3

static const uint64_t budgets[BUDGETS] = {512, 4096, 768};

static const struct ha_samples samples = {.count = POINTS, .from = 1e3, .to = 1e12};

static double log_spaced(size_t i)
{
	return ha_samples_value(&samples, i);
}

static struct ha_sweep_request request(size_t threads)
{
	static struct ha_model m;
	m = ha_model_defaults();
	return (struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = BUDGETS,
		.samples = samples, .threads = threads,
	};
}

static struct ha_sweep *make(size_t threads)
{
	struct ha_sweep *s = NULL;
	struct ha_sweep_request req = request(threads);
	cr_assert_eq(ha_sweep_new(&req, &s, NULL), HA_OK);
	return s;
}

static double dims[POINTS][BUDGETS]; /* x* of each row, as handed out */

static void check_rows(struct ha_sweep *s)
{
	struct ha_model m = ha_model_defaults();
	size_t at = 0, count = 0;
	const struct ha_sweep_row *rows;
	while (ha_sweep_rows(s, &rows, &count, NULL) == HA_OK && count) {
		cr_assert_leq(count, 512, "a batch is bounded, not the sweep");
		for (size_t k = 0; k < count; k++, at++) {
			size_t i = at / BUDGETS, b = at % BUDGETS;
			struct ha_solution want;
			double n_samples = log_spaced(i);
			cr_assert_eq(ha_solve(budgets[b], NULL, &m, n_samples, &want), HA_OK);
			cr_assert_eq(rows[k].budget, budgets[b]);
			cr_assert_eq(rows[k].samples, n_samples);
			cr_assert_eq(rows[k].heads, want.optimum.heads);
			cr_assert_eq(rows[k].head_dim, want.optimum.head_dim);
			cr_assert_eq(rows[k].mse, want.optimum.terms.mse);
			cr_assert_eq(rows[k].relaxed_head_dim, want.relaxed.head_dim,
			             "row %zu: %.17g, alone %.17g", at,
			             rows[k].relaxed_head_dim, want.relaxed.head_dim);
			cr_assert_eq(rows[k].relaxed_heads, want.relaxed.heads);
			dims[i][b] = rows[k].relaxed_head_dim;
		}
	}
	cr_assert_eq(at, (size_t)POINTS * BUDGETS);
}

static void check_fits(struct ha_sweep *s, size_t threads)
{
	for (size_t b = 0; b < BUDGETS; b++) {
		struct ha_fit *power, *logarithmic;
		cr_assert_eq(ha_fit_new(HA_FIT_POWER_LOGLN, HA_FIT_STORE_DEFAULT, &power), HA_OK);
		cr_assert_eq(ha_fit_new(HA_FIT_LOG, HA_FIT_STORE_DEFAULT, &logarithmic), HA_OK);
		for (size_t i = 0; i < POINTS; i++) {
			ha_fit_add(power, log_spaced(i), dims[i][b]);
			ha_fit_add(logarithmic, log_spaced(i), dims[i][b]);
		}
		struct ha_fit_result wp, wl;
		cr_assert_eq(ha_fit_result(power, NULL, NULL, &wp), HA_OK);
		cr_assert_eq(ha_fit_result(logarithmic, NULL, NULL, &wl), HA_OK);
		struct ha_sweep_fit p, l;
		cr_assert_eq(ha_sweep_budget_fits(s, b, &p, &l), HA_OK);
		cr_assert_eq(p.status, HA_OK);
		cr_assert_eq(p.points, POINTS);
		cr_assert_eq(p.result.slope, wp.slope);
		cr_assert_eq(p.result.intercept, wp.intercept);
		cr_assert_eq(p.result.max_abs_residual, wp.max_abs_residual);
		cr_assert_eq(p.largest_at, log_spaced(wp.max_residual_index));
		cr_assert_eq(p.claimed, ha_fit_seed_exponent(ha_model_defaults().smoothness));
		cr_assert_eq(l.result.slope, wl.slope);
		cr_assert_eq(l.result.intercept, wl.intercept);
		cr_assert(isnan(l.claimed));
		ha_fit_free(power);
		ha_fit_free(logarithmic);
	}
	static struct ha_sweep_samples_fit fits[POINTS];
	struct ha_sweep_result *r = NULL;
	struct ha_sweep_request req = request(threads);
	cr_assert_eq(ha_sweep_run(&req, NULL, &r, NULL), HA_OK);
	cr_assert_eq(ha_sweep_result_samples_fits(r, 0, POINTS, fits, NULL), HA_OK);
	struct ha_fit *heads;
	cr_assert_eq(ha_fit_new(HA_FIT_POWER, BUDGETS, &heads), HA_OK);
	for (size_t at = 0; at < POINTS; at++) {
		ha_fit_reset(heads);
		for (size_t b = 0; b < BUDGETS; b++)
			ha_fit_add(heads, (double)budgets[b], (double)budgets[b] / dims[at][b]);
		struct ha_fit_result want;
		cr_assert_eq(ha_fit_result(heads, NULL, NULL, &want), HA_OK);
		cr_assert_eq(fits[at].samples, log_spaced(at));
		cr_assert_eq(fits[at].heads_law.status, HA_OK);
		cr_assert_eq(fits[at].heads_law.result.slope, want.slope);
		cr_assert_eq(fits[at].heads_law.largest_budget, budgets[want.max_residual_index]);
	}
	ha_fit_free(heads);
	ha_sweep_result_free(r);
}

Test(sweep, rows_and_fits_one_thread)
{
	struct ha_sweep *s = make(1);
	struct ha_sweep_fit p, l;
	cr_assert_eq(ha_sweep_budget_fits(s, 0, &p, &l), HA_EINVAL,
	             "no fit before the last row");
	check_rows(s);
	check_fits(s, 1);
	ha_sweep_free(s);
}

Test(sweep, rows_and_fits_four_threads)
{
	struct ha_sweep *s = make(4);
	check_rows(s);
	check_fits(s, 4);
	ha_sweep_free(s);
}

Test(sweep, freed_half_way)
{
	struct ha_sweep *s = make(4);
	const struct ha_sweep_row *rows;
	size_t count;
	cr_assert_eq(ha_sweep_rows(s, &rows, &count, NULL), HA_OK);
	cr_assert_gt(count, 0);
	ha_sweep_free(s); /* threads stopped, nothing leaked (ASan) */
}

Test(sweep, bad_requests)
{
	struct ha_model m = ha_model_defaults();
	struct ha_sweep *s = (struct ha_sweep *)&m;
	struct ha_error err;
	ha_error_init(&err);
	struct ha_constraints c = {.min_heads = 1000};
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .constraints = &c, .budgets = budgets,
		.budget_count = BUDGETS, .samples = samples,
	}, &s, &err), HA_EINFEASIBLE);
	cr_assert_null(s);
	cr_assert_str_eq(err.message, "no (heads, head_dim) pair of budget 512 "
	                 "meets the constraints");
	cr_assert_eq(ha_sweep_new(&(struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = BUDGETS,
	}, &s, &err), HA_EINVAL);
	cr_assert_str_eq(err.message, "a table needs a model, budgets and samples");
	cr_assert_eq(ha_sweep_new(NULL, &s, NULL), HA_EINVAL);
	ha_sweep_free(NULL);
}

/* A sweep's values: a list's each a valid n, a range's ends in order;
 * the first bad value named, or the count for the shape. */
Test(sweep, samples_checked)
{
	double list[] = {1e4, 2.0, 1.0, 0.5};
	size_t bad = 99;
	cr_assert_eq(ha_samples_check(&(struct ha_samples){.values = list, .count = 2}, &bad),
	             HA_OK);
	cr_assert_eq(ha_samples_check(&(struct ha_samples){.values = list, .count = 4}, &bad),
	             HA_EINVAL);
	cr_assert_eq(bad, 2);
	list[0] = NAN;
	cr_assert_eq(ha_samples_check(&(struct ha_samples){.values = list, .count = 4}, &bad),
	             HA_EINVAL);
	cr_assert_eq(bad, 0);
	bad = 99;
	cr_assert_eq(ha_samples_check(NULL, &bad), HA_EINVAL);
	cr_assert_eq(bad, 99);
	cr_assert_eq(ha_samples_check(&(struct ha_samples){.values = list, .count = 2}, NULL),
	             HA_EINVAL);
	const struct ha_samples ranges[] = {
		{.count = 2, .from = 1e3, .to = 1e3},     /* not from < to */
		{.count = 2, .from = 1.0, .to = 1e3},     /* from not > 1 */
		{.count = 2, .from = 1e3, .to = 2e300},   /* to above 1e300 */
		{.count = 1, .from = 1e3, .to = 1e4},     /* one point */
		{.count = 0, .from = 1e3, .to = 1e4},
		{.count = HA_SWEEP_MAX_ROWS + 1, .from = 1e3, .to = 1e4},
	};
	for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
		cr_assert_eq(ha_samples_check(&ranges[k], &bad), HA_EINVAL, "range %zu", k);
		cr_assert_eq(bad, ranges[k].count);
	}
	cr_assert_eq(ha_samples_check(&(struct ha_samples){.count = HA_SWEEP_MAX_ROWS,
	                              .from = 1.5, .to = 1e300}, &bad), HA_OK);
	cr_assert_eq(ha_samples_check(&samples, &bad), HA_OK);
}

/* A result keeps its own copy of a list of n: the caller's may go. */
Test(sweep, result_copies_a_list)
{
	struct ha_model m = ha_model_defaults();
	double *list = malloc(3 * sizeof *list);
	cr_assert_not_null(list);
	list[0] = 1e5, list[1] = 1e7, list[2] = 3e9;
	struct ha_sweep_result *r = NULL;
	cr_assert_eq(ha_sweep_run(&(struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = BUDGETS,
		.samples = {.values = list, .count = 3}}, NULL, &r, NULL), HA_OK);
	list[1] = -1.0;
	free(list);
	const struct ha_samples *kept = &ha_sweep_result_request(r)->samples;
	cr_assert_eq(kept->count, 3);
	cr_assert_eq(ha_samples_value(kept, 1), 1e7);
	struct ha_sweep_row row;
	cr_assert_eq(ha_sweep_result_rows(r, BUDGETS, 1, &row, NULL), HA_OK);
	cr_assert_eq(row.samples, 1e7);
	ha_sweep_result_free(r);
}
