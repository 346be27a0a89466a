/* The calibration's progress callback during the comparison and inside
 * the fits: told of the laws fitted (and again between a law's stages
 * and its starts, so that a front end's Ctrl-C is heard within a fraction
 * of a second), only ever from the thread that made the call whatever
 * the refits' threads, changing nothing in the result, and stopping the
 * work with HA_ECANCELED as soon as it returns non-zero. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/calibrate.h>
#include <headalloc/runs.h>

static struct ha_run *runs;
static size_t count;

static void read_runs(void)
{
	struct ha_error err;
	cr_assert_eq(ha_runs_read_file(HA_REPO_DATA "/runs.yaml", HA_RUNS_AUTO, &runs, &count,
	                               &err), HA_OK, "%s", err.message);
}

static void release(void)
{
	free(runs);
}

TestSuite(cancel, .init = read_runs, .fini = release);

static struct ha_cal_options options(void)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o); /* compare = 1 */
	o.bootstrap = 20;
	o.threads = 4;
	o.target.budget = 512;
	o.target.samples = 1e8;
	return o;
}

struct record {
	pthread_t caller;
	int foreign;           /* calls from another thread */
	size_t laws, resamples;
	uint64_t laws_total, last_laws;
	int laws_backwards;    /* a laws count that went down */
	int calls_after_stop;
	int stopped;
	uint64_t stop_at_laws; /* stop at the first "laws" call with done >= this; 0: never */
};

static int record(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct record *r = ctx;
	if (!pthread_equal(pthread_self(), r->caller))
		r->foreign++;
	if (r->stopped) {
		r->calls_after_stop++;
		return 1;
	}
	if (strcmp(what, "laws") == 0) {
		r->laws++;
		r->laws_total = total;
		r->laws_backwards += done < r->last_laws;
		r->last_laws = done;
		if (r->stop_at_laws && done + 1 >= r->stop_at_laws) {
			r->stopped = 1;
			return 1;
		}
	} else if (strcmp(what, "resamples") == 0) {
		r->resamples++;
	}
	return 0;
}

Test(cancel, the_comparison_reports_its_laws_from_the_calling_thread)
{
	struct ha_cal_options o = options();
	struct ha_calibration *plain = NULL, *told = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, count, &o, &plain, &err), HA_OK, "%s", err.message);
	struct record r = {.caller = pthread_self()};
	o.progress = (struct ha_progress){record, &r};
	cr_assert_eq(ha_calibrate(runs, count, &o, &told, &err), HA_OK, "%s", err.message);
	cr_assert_eq(r.foreign, 0, "%d calls from the refits' threads", r.foreign);
	cr_assert_eq(r.laws_total, HA_CAL_LADDER);
	cr_assert_eq(r.last_laws, HA_CAL_LADDER);
	cr_assert_eq(r.laws_backwards, 0);
	/* at least once a law after it is fitted, and between its stages */
	cr_assert_geq(r.laws, 3 * HA_CAL_LADDER);
	cr_assert_gt(r.resamples, 0);
	/* the callback changes nothing */
	cr_assert_eq(told->comparison_count, plain->comparison_count);
	for (size_t i = 0; i < plain->comparison_count; i++) {
		cr_assert_eq(memcmp(told->comparison[i].law.value, plain->comparison[i].law.value,
		                    sizeof plain->comparison[i].law.value), 0, "row %zu", i);
		cr_assert_eq(told->comparison[i].share, plain->comparison[i].share);
	}
	cr_assert_eq(told->prediction.head_dim, plain->prediction.head_dim);
	ha_calibration_free(plain);
	ha_calibration_free(told);
}

Test(cancel, the_first_law_stops_inside_its_fits)
{
	struct ha_cal_options o = options();
	struct record r = {.caller = pthread_self(), .stop_at_laws = 1};
	o.progress = (struct ha_progress){record, &r};
	struct ha_calibration *c = (struct ha_calibration *)1;
	struct ha_error err;
	/* stopped at the first "laws" call, which comes before the first law
	 * is done (done = 0): between its starts or its stages */
	cr_assert_eq(ha_calibrate(runs, count, &o, &c, &err), HA_ECANCELED);
	cr_assert_null(c);
	cr_assert_eq(r.laws, 1);
	cr_assert_eq(r.last_laws, 0);
	cr_assert_eq(r.calls_after_stop, 0);
	cr_assert_str_eq(err.message, "the comparison was cancelled");
}

Test(cancel, a_later_law_stops_too)
{
	struct ha_cal_options o = options();
	struct record r = {.caller = pthread_self(), .stop_at_laws = 5};
	o.progress = (struct ha_progress){record, &r};
	struct ha_calibration *c = (struct ha_calibration *)1;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, count, &o, &c, &err), HA_ECANCELED);
	cr_assert_null(c);
	cr_assert_eq(r.last_laws, 4);
	cr_assert_eq(r.calls_after_stop, 0);
}
