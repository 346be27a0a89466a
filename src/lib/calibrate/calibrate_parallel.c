/* Independent tasks on worker threads (issue 17: the full fits' grids
 * of starts and the leave-one-out refits, besides the bootstraps' own
 * pools).  The calling thread is worker 0 and works too; worker w owns
 * whatever workspace the caller gave it, and each task writes its own
 * slot, so a caller that combines the slots afterwards in task order
 * gets the same doubles whatever the thread count. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "calibrate_internal.h"

size_t cal_threads_for(size_t wanted, size_t tasks)
{
	if (wanted == 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		wanted = online > 0 ? (size_t)online : 1;
	}
	if (wanted > CAL_MAX_THREADS)
		wanted = CAL_MAX_THREADS;
	if (wanted > tasks)
		wanted = tasks;
	return wanted ? wanted : 1;
}

struct pool {
	size_t tasks;
	int (*run)(void *ctx, size_t worker, size_t task);
	void *ctx;
	atomic_size_t next;
	atomic_int failed;
};

struct worker {
	pthread_t thread;
	struct pool *pool;
	size_t index;
};

static void work(struct pool *p, size_t worker)
{
	while (!atomic_load(&p->failed)) {
		size_t t = atomic_fetch_add(&p->next, 1);
		if (t >= p->tasks)
			return;
		if (!p->run(p->ctx, worker, t))
			atomic_store(&p->failed, 1);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	work(w->pool, w->index);
	return NULL;
}

int cal_parallel(size_t tasks, size_t threads,
                 int (*run)(void *ctx, size_t worker, size_t task), void *ctx)
{
	struct pool p = {.tasks = tasks, .run = run, .ctx = ctx};
	atomic_init(&p.next, 0);
	atomic_init(&p.failed, 0);
	struct worker w[CAL_MAX_THREADS];
	int started[CAL_MAX_THREADS] = {0};
	size_t n = threads < 1 ? 1 : threads > CAL_MAX_THREADS ? CAL_MAX_THREADS : threads;
	for (size_t t = 1; t < n && t < tasks; t++) {
		w[t] = (struct worker){.pool = &p, .index = t};
		/* a thread that could not start leaves its share to the others */
		started[t] = pthread_create(&w[t].thread, NULL, worker_main, &w[t]) == 0;
	}
	work(&p, 0);
	for (size_t t = 1; t < n && t < tasks; t++)
		if (started[t])
			pthread_join(w[t].thread, NULL);
	return !atomic_load(&p.failed);
}

/* ---- cancellation inside the fits ------------------------------------------- */

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
