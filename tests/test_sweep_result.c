/* A sweep's result (sweep.h, ha_sweep_run) against the sweep it keeps:
 * its rows, read back in any window, are the rows the sweep hands out
 * (which test_sweep.c checks against single queries; a few are checked
 * against ha_solve here too), its per-budget fits the sweep's, its per-n
 * fits those of ha_fit over each n's budgets; whether the rows are kept
 * in memory, in a temporary file, or in memory for want of a file; over
 * (H, d) and over (H, G, d).  It owns what it answers: the caller's
 * request may go at once.  And it refuses what it should. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "fit/fit_internal.h"
#include "sweep/sweep_internal.h"

static double log_spaced(size_t points, size_t i)
{
	return ha_samples_value(&(struct ha_samples){.count = points, .from = 1e3, .to = 1e12}, i);
}

/* A request the test owns, to free after the run. */
struct owned {
	struct ha_model model;
	uint64_t *budgets;
	struct ha_kv_constraints kv;
};

static struct ha_sweep_request request_of(struct owned *o, const uint64_t *budgets,
                                          size_t count, size_t points, int grouped)
{
	o->model = ha_model_defaults();
	o->budgets = malloc(count * sizeof *o->budgets);
	cr_assert_not_null(o->budgets);
	memcpy(o->budgets, budgets, count * sizeof *budgets);
	o->kv = (struct ha_kv_constraints){.max_kv_dim = 256};
	return (struct ha_sweep_request){
		.model = &o->model, .budgets = o->budgets, .budget_count = count,
		.samples = {.count = points, .from = 1e3, .to = 1e12}, .threads = 2,
		.kv = grouped ? &o->kv : NULL,
	};
}

static void same_fit(const struct ha_sweep_fit *a, const struct ha_sweep_fit *b)
{
	cr_assert_eq(a->status, b->status);
	cr_assert_eq(a->points, b->points);
	cr_assert_eq(memcmp(&a->result, &b->result, sizeof a->result), 0);
	cr_assert_eq(a->largest_at, b->largest_at);
	cr_assert_eq(a->largest_budget, b->largest_budget);
	cr_assert(a->claimed == b->claimed || (isnan(a->claimed) && isnan(b->claimed)));
}

static void same_row(const struct ha_sweep_row *a, const struct ha_sweep_row *b)
{
	cr_assert_eq(memcmp(a, b, sizeof *a), 0, "row (%g, %llu) differs", a->samples,
	             (unsigned long long)a->budget);
}

/* Run the sweep of (budgets, points) as a result, then again as the
 * streaming sweep, the caller's request freed between; compare all. */
static void check_against_sweep(const uint64_t *budgets, size_t nb, size_t points,
                                int grouped)
{
	struct owned o;
	struct ha_sweep_request req = request_of(&o, budgets, nb, points, grouped);
	struct ha_sweep_result *r = NULL;
	struct ha_error err;
	cr_assert_eq(ha_sweep_run(&req, NULL, &r, &err), HA_OK, "%s", err.message);
	free(o.budgets);
	memset(&o.model, 0xff, sizeof o.model); /* the result keeps its own */

	struct owned again;
	struct ha_sweep_request fresh = request_of(&again, budgets, nb, points, grouped);
	const struct ha_sweep_request *kept = ha_sweep_result_request(r);
	cr_assert_eq(kept->budget_count, nb);
	cr_assert_eq(kept->samples.count, points);
	cr_assert_eq(memcmp(kept->budgets, budgets, nb * sizeof *budgets), 0);
	cr_assert_eq(memcmp(kept->model, &again.model, sizeof again.model), 0);
	cr_assert_eq(kept->kv != NULL, grouped);
	cr_assert_eq(ha_sweep_result_row_count(r), nb * points);

	struct ha_sweep *s = NULL;
	cr_assert_eq(ha_sweep_new(&fresh, &s, NULL), HA_OK);
	const struct ha_sweep_row *rows;
	size_t count = 0, at = 0;
	struct ha_sweep_row got[700];
	double *dims = malloc(nb * points * sizeof *dims); /* each row's x* */
	cr_assert_not_null(dims);
	while (ha_sweep_rows(s, &rows, &count, NULL) == HA_OK && count) {
		/* windows that straddle the sweep's batches and the points */
		for (size_t k = 0; k < count;) {
			size_t w = count - k < 700 ? count - k : 700;
			if (w > 3 && (at + k) % 2)
				w -= 3;
			cr_assert_eq(ha_sweep_result_rows(r, at + k, w, got, NULL), HA_OK);
			for (size_t j = 0; j < w; j++) {
				same_row(&got[j], &rows[k + j]);
				dims[at + k + j] = rows[k + j].relaxed_head_dim;
			}
			k += w;
		}
		at += count;
	}
	cr_assert_eq(at, nb * points);
	for (size_t b = 0; b < nb; b++) {
		struct ha_sweep_fit p1, l1, p2, l2;
		cr_assert_eq(ha_sweep_result_budget_fits(r, b, &p1, &l1), HA_OK);
		cr_assert_eq(ha_sweep_budget_fits(s, b, &p2, &l2), HA_OK);
		same_fit(&p1, &p2);
		same_fit(&l1, &l2);
	}
	ha_sweep_free(s);
	/* The per-n fits, in windows, against ln H* over each n's budgets. */
	struct ha_fit *heads;
	cr_assert_eq(ha_fit_new(HA_FIT_POWER, nb, &heads), HA_OK);
	struct ha_sweep_samples_fit mine[200];
	for (at = 0; nb > 1 && at < points;) {
		size_t w = points - at < 200 ? points - at : 200 - at % 7;
		cr_assert_eq(ha_sweep_result_samples_fits(r, at, w, mine, NULL), HA_OK);
		for (size_t j = 0; j < w; j++, at++) {
			ha_fit_reset(heads);
			for (size_t b = 0; b < nb; b++)
				ha_fit_add(heads, (double)budgets[b],
				           (double)budgets[b] / dims[at * nb + b]);
			struct ha_fit_result want;
			enum ha_status st = ha_fit_result(heads, NULL, NULL, &want);
			cr_assert_eq(mine[j].samples, log_spaced(points, at));
			cr_assert_eq(mine[j].heads_law.status, st);
			cr_assert_eq(mine[j].heads_law.points, nb);
			cr_assert_eq(mine[j].heads_law.claimed, HA_FIT_SEED_BUDGET_EXPONENT);
			if (st == HA_OK) {
				cr_assert_eq(mine[j].heads_law.result.slope, want.slope);
				cr_assert_eq(mine[j].heads_law.result.intercept, want.intercept);
				cr_assert_eq(mine[j].heads_law.largest_budget,
				             budgets[want.max_residual_index]);
			}
		}
	}
	ha_fit_free(heads);
	free(dims);

	/* The last row, alone, is the single query of its point. */
	if (!grouped) {
		struct ha_sweep_row last;
		cr_assert_eq(ha_sweep_result_rows(r, nb * points - 1, 1, &last, NULL), HA_OK);
		struct ha_model m = ha_model_defaults();
		double n_samples = log_spaced(points, points - 1);
		struct ha_solution want;
		cr_assert_eq(ha_solve(budgets[nb - 1], NULL, &m, n_samples, &want), HA_OK);
		cr_assert_eq(last.heads, want.optimum.heads);
		cr_assert_eq(last.head_dim, want.optimum.head_dim);
		cr_assert_eq(last.mse, want.optimum.terms.mse);
		cr_assert_eq(last.samples, n_samples);
	}
	ha_sweep_result_free(r);
	free(again.budgets);
}

static const uint64_t three[] = {512, 4096, 768};

Test(sweep_result, rows_in_memory)
{
	check_against_sweep(three, 3, 300, 0);
}

/* 3 budgets x 9 columns x 6000 points: past a megabyte, in a file. */
Test(sweep_result, rows_in_a_file, .timeout = 600)
{
	check_against_sweep(three, 3, 6000, 0);
}

/* No temporary file can be made: the rows are kept in memory. */
Test(sweep_result, rows_without_a_temporary_directory, .timeout = 600)
{
	char dir[] = "/tmp/headalloc-test-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(rmdir(dir), 0);
	cr_assert_eq(setenv("TMPDIR", dir, 1), 0);
	check_against_sweep(three, 3, 6000, 0);
	cr_assert_eq(unsetenv("TMPDIR"), 0);
}

Test(sweep_result, one_budget_many_points, .timeout = 600)
{
	check_against_sweep(three, 1, 20000, 0);
}

Test(sweep_result, grouped_rows, .timeout = 600)
{
	check_against_sweep(three, 3, 40, 1);
	check_against_sweep(three, 2, 6000, 1); /* in a file */
}

static int stop_at_once(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	(void)what;
	(void)done;
	(void)total;
	++*(int *)ctx;
	return 1;
}

Test(sweep_result, refusals)
{
	struct owned o;
	struct ha_sweep_request req = request_of(&o, three, 3, 3000, 0);
	struct ha_sweep_result *r = (struct ha_sweep_result *)1;
	struct ha_error err;
	int calls = 0;
	cr_assert_eq(ha_sweep_run(&req, &(struct ha_progress){stop_at_once, &calls}, &r,
	                          &err), HA_ECANCELED);
	cr_assert_null(r);
	cr_assert_eq(calls, 1);
	cr_assert_str_eq(err.message, "the table was cancelled after 512 of 9000 rows");
	cr_assert_eq(ha_sweep_run(NULL, NULL, &r, &err), HA_EINVAL);
	cr_assert_eq(ha_sweep_run(&req, NULL, NULL, &err), HA_EINVAL);
	/* the CLI's limit: 10^6 rows */
	req.samples.count = HA_SWEEP_MAX_ROWS / 3 + 1;
	cr_assert_eq(ha_sweep_run(&req, NULL, &r, &err), HA_EINVAL);
	cr_assert_str_eq(err.message, "a table of 3 budgets x 333334 values of n: at "
	                 "most 1000000 rows");
	cr_assert_null(r);

	req.samples.count = 10;
	cr_assert_eq(ha_sweep_run(&req, NULL, &r, &err), HA_OK);
	struct ha_sweep_row row;
	cr_assert_eq(ha_sweep_result_rows(r, 30, 0, NULL, NULL), HA_OK);
	cr_assert_eq(ha_sweep_result_rows(r, 30, 1, &row, &err), HA_EINVAL);
	cr_assert_str_eq(err.message, "rows 30 to 31 of a table of 30");
	cr_assert_eq(ha_sweep_result_rows(r, 29, 2, &row, NULL), HA_EINVAL);
	struct ha_sweep_fit p, l;
	cr_assert_eq(ha_sweep_result_budget_fits(r, 3, &p, &l), HA_EINVAL);
	cr_assert_eq(p.status, HA_EINVAL);
	struct ha_sweep_samples_fit f;
	cr_assert_eq(ha_sweep_result_samples_fits(r, 10, 1, &f, NULL), HA_EINVAL);
	ha_sweep_result_free(r);
	/* one budget: no per-n fits */
	req.budget_count = 1;
	cr_assert_eq(ha_sweep_run(&req, NULL, &r, &err), HA_OK);
	cr_assert_eq(ha_sweep_result_samples_fits(r, 0, 1, &f, NULL), HA_EINVAL);
	ha_sweep_result_free(r);
	ha_sweep_result_free(NULL);
	free(o.budgets);
}
