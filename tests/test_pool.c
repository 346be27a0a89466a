/* The library's one thread pool (base/pool.h): what `threads` means,
 * every task run once on a worker in range, failures and cancellation,
 * the ordered stream's order; and the two heaviest users, a bootstrap
 * with the comparison and a threaded sweep, giving the same doubles on
 * one thread and on two. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "base/pool.h"

#include "../bench/calibrate_runs.h"

Test(pool, threads_mean_the_same_for_every_request)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t want = online < 1 ? 1 : online > 8 ? 8 : (size_t)online;
	cr_assert_eq(pool_threads(0, 1000), want, "0: the online processors, at most 8");
	cr_assert_eq(pool_threads(1, 1000), 1);
	cr_assert_eq(pool_threads(3, 1000), 3);
	cr_assert_eq(pool_threads(100, 1000), POOL_MAX_THREADS);
	cr_assert_eq(pool_threads(5, 2), 2, "no more threads than jobs");
	cr_assert_eq(pool_threads(5, 0), 1);
	cr_assert_eq(POOL_MAX_THREADS, 8);
}

/* Each task records its worker and how often it ran. */
struct tally {
	size_t threads, fail_at;
	atomic_int runs[600];
	size_t worker[600];
	double sum[600];
	uint64_t last_done, progress_calls, cancel_at;
};

static enum ha_status count_task(void *ctx, size_t worker, size_t task)
{
	struct tally *t = ctx;
	atomic_fetch_add(&t->runs[task], 1);
	t->worker[task] = worker;
	/* some work, so that the workers share the tasks */
	double x = 0.0;
	for (int i = 0; i < 2000; i++)
		x += sqrt((double)i + (double)task);
	t->sum[task] = x;
	return task == t->fail_at ? HA_ENUMERIC : HA_OK;
}

static int count_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct tally *t = ctx;
	cr_assert_str_eq(what, "tasks");
	cr_assert_eq(total, 600);
	cr_assert_eq(done, t->last_done + 1, "progress in task order");
	t->last_done = done;
	t->progress_calls++;
	return done == t->cancel_at;
}

Test(pool, every_task_runs_once_on_a_worker_in_range)
{
	for (size_t threads = 1; threads <= 4; threads++) {
		static struct tally t;
		memset(&t, 0, sizeof t);
		t.threads = threads;
		t.fail_at = SIZE_MAX;
		t.cancel_at = UINT64_MAX;
		struct ha_progress p = {count_progress, &t};
		cr_assert_eq(pool_for(600, threads, count_task, &t, &p, "tasks"), HA_OK);
		for (size_t k = 0; k < 600; k++) {
			cr_assert_eq(atomic_load(&t.runs[k]), 1, "task %zu on %zu threads", k, threads);
			cr_assert_lt(t.worker[k], threads);
		}
		cr_assert_eq(t.progress_calls, 600);
	}
}

Test(pool, a_failure_and_a_cancel_stop_the_tasks)
{
	static struct tally t;
	for (size_t threads = 1; threads <= 3; threads += 2) {
		memset(&t, 0, sizeof t);
		t.fail_at = 40;
		t.cancel_at = UINT64_MAX;
		cr_assert_eq(pool_for(600, threads, count_task, &t, NULL, NULL), HA_ENUMERIC);
		size_t ran = 0;
		for (size_t k = 0; k < 600; k++)
			ran += (size_t)atomic_load(&t.runs[k]);
		cr_assert_lt(ran, 600, "the tasks after a failure are not all run");

		memset(&t, 0, sizeof t);
		t.fail_at = SIZE_MAX;
		t.cancel_at = 10;
		struct ha_progress p = {count_progress, &t};
		cr_assert_eq(pool_for(600, threads, count_task, &t, &p, "tasks"), HA_ECANCELED);
		cr_assert_eq(t.progress_calls, 10, "no progress after the cancel");
		ran = 0;
		for (size_t k = 0; k < 600; k++)
			ran += (size_t)atomic_load(&t.runs[k]);
		cr_assert_lt(ran, 600);
	}
}

/* The ordered stream: slots reused round robin, jobs back in order. */
struct stream {
	size_t slots;
	size_t value[3];
	size_t result[3];
};

static void square(void *ctx, size_t worker, size_t job)
{
	(void)worker;
	struct stream *s = ctx;
	size_t v = s->value[job % s->slots];
	s->result[job % s->slots] = v * v;
}

Test(pool, the_stream_hands_jobs_back_in_order)
{
	for (size_t threads = 1; threads <= 3; threads++) {
		struct stream s = {.slots = 3};
		struct pool *p = NULL;
		cr_assert_eq(pool_new(threads, s.slots, square, &s, &p), HA_OK);
		size_t next = 0, seen = 0, k;
		for (;;) {
			while (next < 100 && pool_can_submit(p)) {
				cr_assert_eq(pool_next(p), next);
				s.value[next % s.slots] = next;
				next++;
				pool_submit(p);
			}
			if (!pool_wait(p, &k))
				break;
			cr_assert_eq(k, seen);
			cr_assert_eq(s.result[k % s.slots], k * k);
			seen++;
			pool_release(p);
		}
		cr_assert_eq(seen, 100);
		pool_free(p);
	}
}

/* ---- the same doubles on one thread and on two ---------------------------- */

static void same_doubles(const double *a, const double *b, size_t n, const char *what)
{
	cr_assert_eq(memcmp(a, b, n * sizeof *a), 0, "%s differ between 1 and 2 threads", what);
}

static void same_shares(const struct ha_cal_share *a, const struct ha_cal_share *b,
                        size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(a[i].heads, b[i].heads, "%s", what);
		cr_assert_eq(a[i].head_dim, b[i].head_dim, "%s", what);
		cr_assert_eq(a[i].count, b[i].count, "%s", what);
		same_doubles(&a[i].share, &b[i].share, 1, what);
	}
}

static void same_fit(const struct ha_cal_fit *a, const struct ha_cal_fit *b)
{
	same_doubles(a->law.value, b->law.value, HA_CAL_PARAMS, "the estimates");
	const double ax[] = {a->objective, a->rss, a->rms, a->aicc, a->bic};
	const double bx[] = {b->objective, b->rss, b->rms, b->aicc, b->bic};
	same_doubles(ax, bx, 5, "the fit's objective, rss, rms, aicc and bic");
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		cr_assert_eq(a->param[p].has_ci, b->param[p].has_ci);
		same_doubles(&a->param[p].se, &b->param[p].se, 1, "the standard errors");
		same_doubles(a->param[p].ci95, b->param[p].ci95, 2, "the intervals");
	}
	same_doubles(&a->covariance[0][0], &b->covariance[0][0],
	             HA_CAL_PARAMS * HA_CAL_PARAMS, "the covariances");
}

static void same_comparison(const struct ha_cal_comparison *a,
                            const struct ha_cal_comparison *b)
{
	same_doubles(a->law.value, b->law.value, HA_CAL_PARAMS, "a law's estimates");
	const double ax[] = {a->objective, a->rss, a->aicc, a->bic, a->loo_rmse,
	                     a->loss, a->weight, a->delta_aicc, a->huber_objective,
	                     a->share};
	const double bx[] = {b->objective, b->rss, b->aicc, b->bic, b->loo_rmse,
	                     b->loss, b->weight, b->delta_aicc, b->huber_objective,
	                     b->share};
	same_doubles(ax, bx, sizeof ax / sizeof *ax, "a law's doubles");
	cr_assert_eq(a->answered, b->answered);
	cr_assert_eq(a->distribution_count, b->distribution_count);
	same_shares(a->distribution, b->distribution, a->distribution_count,
	            "a law's distribution");
}

Test(pool, a_bootstrap_gives_the_same_doubles_on_one_thread_and_two)
{
	struct ha_run runs[12];
	size_t m = calibrate_bench_runs(runs);
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = 40;
	o.compare = 1;
	o.target = (struct ha_cal_target){64, 1e5, {0}};
	struct ha_calibration *c[2] = {NULL, NULL};
	for (int t = 0; t < 2; t++) {
		struct ha_error err;
		o.threads = (size_t)t + 1;
		cr_assert_eq(ha_calibrate(runs, m, &o, &c[t], &err), HA_OK, "%s", err.message);
	}
	const struct ha_calibration *a = c[0], *b = c[1];
	same_fit(&a->fit, &b->fit);
	cr_assert_eq(a->bootstrap.fitted, b->bootstrap.fitted);
	cr_assert_gt(a->bootstrap.fitted, 0, "no refit: the test would hold vacuously");
	same_doubles(a->bootstrap.refits, b->bootstrap.refits,
	             a->bootstrap.fitted * HA_CAL_PARAMS, "the refits");
	cr_assert_eq(a->prediction.distribution_count, b->prediction.distribution_count);
	same_shares(a->prediction.distribution, b->prediction.distribution,
	            a->prediction.distribution_count, "the prediction");
	same_doubles(&a->prediction.no_answer_share, &b->prediction.no_answer_share, 1,
	             "the no-answer shares");
	cr_assert_eq(a->comparison_count, b->comparison_count);
	cr_assert_gt(a->comparison_count, 1);
	for (size_t r = 0; r < a->comparison_count; r++)
		same_comparison(&a->comparison[r], &b->comparison[r]);
	cr_assert_eq(a->averaged_count, b->averaged_count);
	same_shares(a->averaged, b->averaged, a->averaged_count, "the averaged shares");
	same_doubles(&a->averaged_no_answer, &b->averaged_no_answer, 1,
	             "the averaged no-answer");
	ha_calibration_free(c[0]);
	ha_calibration_free(c[1]);
}

/* A sweep big enough for threads (2048 rows or more) over three budgets. */
#define POINTS 1500
static const uint64_t budgets[] = {256, 512, 4096};

/* Every double a sweep's result gives, in order. */
static double *sweep_doubles(size_t threads, size_t *n)
{
	struct ha_model model = ha_model_defaults();
	struct ha_sweep_result *s = NULL;
	cr_assert_eq(ha_sweep_run(&(struct ha_sweep_request){
		.model = &model, .budgets = budgets, .budget_count = 3,
		.samples = {.count = POINTS, .from = 1e3, .to = 1e12}, .threads = threads,
	}, NULL, &s, NULL), HA_OK);
	size_t cap = 3 * POINTS * 6 + 6 * 16 + POINTS * 16, used = 0;
	double *out = malloc(cap * sizeof *out);
	struct ha_sweep_row *rows = malloc(3 * POINTS * sizeof *rows);
	cr_assert(out && rows);
	cr_assert_eq(ha_sweep_result_rows(s, 0, 3 * POINTS, rows, NULL), HA_OK);
	for (size_t k = 0; k < 3 * POINTS; k++) {
		const double row[] = {rows[k].samples, (double)rows[k].heads,
		                      (double)rows[k].head_dim, rows[k].mse,
		                      rows[k].log_mse, rows[k].relaxed_head_dim};
		memcpy(out + used, row, sizeof row);
		used += 6;
	}
	cr_assert_eq(used, 3 * POINTS * 6);
	for (size_t b = 0; b < 3; b++) {
		struct ha_sweep_fit f[2];
		cr_assert_eq(ha_sweep_result_budget_fits(s, b, &f[0], &f[1]), HA_OK);
		for (int i = 0; i < 2; i++) {
			const struct ha_fit_result *r = &f[i].result;
			const double x[] = {r->intercept, r->slope, r->se_intercept,
			                    r->se_slope, r->slope_low, r->slope_high,
			                    r->residual_sd, r->r2};
			memcpy(out + used, x, sizeof x);
			used += 8;
		}
	}
	static struct ha_sweep_samples_fit fits[POINTS];
	cr_assert_eq(ha_sweep_result_samples_fits(s, 0, POINTS, fits, NULL), HA_OK);
	for (size_t k = 0; k < POINTS; k++) {
		const struct ha_fit_result *r = &fits[k].heads_law.result;
		const double x[] = {fits[k].samples, r->intercept, r->slope,
		                    r->se_intercept, r->se_slope, r->residual_sd, r->r2};
		memcpy(out + used, x, sizeof x);
		used += 7;
	}
	free(rows);
	ha_sweep_result_free(s);
	*n = used;
	return out;
}

Test(pool, a_sweep_gives_the_same_doubles_on_one_thread_and_two)
{
	size_t n1, n2;
	double *one = sweep_doubles(1, &n1), *two = sweep_doubles(2, &n2);
	cr_assert_eq(n1, n2);
	for (size_t i = 0; i < n1; i++)
		cr_assert_eq(memcmp(&one[i], &two[i], sizeof one[i]), 0,
		             "double %zu: %.17g on one thread, %.17g on two", i, one[i], two[i]);
	free(one);
	free(two);
}
