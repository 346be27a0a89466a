/* The caller's progress callback heard inside a fit's search
 * (calibrate_internal.h, struct cal_poll): only the thread that called
 * ha_calibrate tells the callback (progress.h); the pool's other workers
 * read the stopped flag. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "calibrate_internal.h"

static double monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cal_poll_init(struct cal_poll *p, const struct ha_progress *progress,
                   const char *what, size_t total)
{
	p->progress = progress;
	p->what = what;
	p->done = 0;
	p->total = total;
	p->caller = pthread_self();
	p->last = monotonic_seconds();
	atomic_init(&p->stopped, 0);
}

int cal_poll_tell(struct cal_poll *p)
{
	if (atomic_load(&p->stopped))
		return 0;
	const struct ha_progress *cb = p->progress;
	p->last = monotonic_seconds();
	if (cb && cb->fn && cb->fn(cb->ctx, p->what, p->done, p->total) != 0) {
		atomic_store(&p->stopped, 1);
		return 0;
	}
	return 1;
}

int cal_poll_check(struct cal_poll *p)
{
	if (atomic_load(&p->stopped))
		return 0;
	/* The callback belongs to the caller's thread (progress.h); the
	 * workers only read the flag. */
	if (!pthread_equal(pthread_self(), p->caller) ||
	    monotonic_seconds() - p->last < CAL_POLL_SECONDS)
		return 1;
	return cal_poll_tell(p);
}

int cal_poll_stopped(const struct cal_data *data)
{
	return data->poll && atomic_load(&data->poll->stopped);
}
