/* The library's one pool of worker threads (see pool.h).
 *
 * Three counters under one mutex say where every job is: jobs
 * [released, taken) are being worked on or done, [taken, submitted) wait
 * for a worker.  done[k % slots] == k + 1 once job k is done.  Workers
 * wait on `work_ready`, the caller on `job_done`, signalled for the job
 * it awaits alone (jobs end out of order: waking it for another would be
 * a context switch for nothing).  Jobs are coarse (a refit, or many rows
 * of a sweep), so one mutex costs nothing measurable. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/pool.h"

struct worker {
	struct pool *pool;
	size_t index;
	pthread_t thread;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work_ready, job_done;
	size_t slots;
	size_t *done;
	size_t submitted, taken, released;
	size_t awaited; /* k + 1 while the caller waits for job k, else 0 */
	int stopping;
	pool_work_fn work;
	void *ctx;
	struct worker *workers; /* workers[i] is worker i + 1 */
	size_t started;
};

size_t pool_threads(size_t wanted, size_t jobs)
{
	if (wanted == 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		wanted = online > 0 ? (size_t)online : 1;
	}
	if (wanted > POOL_MAX_THREADS)
		wanted = POOL_MAX_THREADS;
	if (wanted > jobs)
		wanted = jobs;
	return wanted ? wanted : 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stopping && p->taken == p->submitted)
			pthread_cond_wait(&p->work_ready, &p->lock);
		if (p->stopping)
			break;
		size_t k = p->taken++;
		pthread_mutex_unlock(&p->lock);
		p->work(p->ctx, w->index, k);
		pthread_mutex_lock(&p->lock);
		p->done[k % p->slots] = k + 1;
		if (p->awaited == k + 1)
			pthread_cond_signal(&p->job_done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Free p, of which the first `made` of its lock and its two conditions
 * were initialised. */
static void pool_discard(struct pool *p, int made)
{
	if (made > 2)
		pthread_cond_destroy(&p->job_done);
	if (made > 1)
		pthread_cond_destroy(&p->work_ready);
	if (made > 0)
		pthread_mutex_destroy(&p->lock);
	free(p->done);
	free(p->workers);
	free(p);
}

enum ha_status pool_new(size_t threads, size_t slots, pool_work_fn work,
                        void *ctx, struct pool **out)
{
	*out = NULL;
	size_t workers = threads > 1 ? threads - 1 : 0;
	struct pool *p = calloc(1, sizeof *p);
	if (!p)
		return HA_ENOMEM;
	p->done = calloc(slots, sizeof *p->done);
	p->workers = workers ? calloc(workers, sizeof *p->workers) : NULL;
	int made = 0;
	if (p->done && (!workers || p->workers)) {
		made = pthread_mutex_init(&p->lock, NULL) == 0;
		made += made == 1 && pthread_cond_init(&p->work_ready, NULL) == 0;
		made += made == 2 && pthread_cond_init(&p->job_done, NULL) == 0;
	}
	if (made < 3) {
		pool_discard(p, made);
		return HA_ENOMEM;
	}
	p->slots = slots;
	p->work = work;
	p->ctx = ctx;
	/* Threads that cannot be started are done without: their jobs are
	 * taken by the others and by the calling thread. */
	while (p->started < workers) {
		struct worker *w = &p->workers[p->started];
		w->pool = p;
		w->index = p->started + 1;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
			break;
		p->started++;
	}
	*out = p;
	return HA_OK;
}

/* Whether a slot is free for pool_submit. */
int pool_can_submit(const struct pool *p)
{
	/* Read by the one thread that writes them (the caller's). */
	return p->submitted - p->released < p->slots;
}

/* The number of the job the next pool_submit hands over. */
size_t pool_next(const struct pool *p)
{
	return p->submitted;
}

/* One more job submitted (waking a worker) or released; without threads
 * no lock is needed (pool_wait does the job). */
static void count_job(struct pool *p, size_t *counter, int wake)
{
	if (p->started == 0) {
		(*counter)++;
		return;
	}
	pthread_mutex_lock(&p->lock);
	(*counter)++;
	if (wake)
		pthread_cond_signal(&p->work_ready);
	pthread_mutex_unlock(&p->lock);
}

void pool_submit(struct pool *p)
{
	count_job(p, &p->submitted, 1);
}

int pool_wait(struct pool *p, size_t *job)
{
	size_t k = p->released;
	if (k == p->submitted)
		return 0;
	*job = k;
	if (p->started == 0) {
		p->taken++;
		p->work(p->ctx, 0, k);
		return 1;
	}
	pthread_mutex_lock(&p->lock);
	while (p->done[k % p->slots] != k + 1) {
		if (p->taken < p->submitted) {
			/* A job no worker has taken: do it here rather than
			 * sleep (a thread more than the workers would only
			 * preempt them). */
			size_t j = p->taken++;
			pthread_mutex_unlock(&p->lock);
			p->work(p->ctx, 0, j);
			pthread_mutex_lock(&p->lock);
			p->done[j % p->slots] = j + 1;
			continue;
		}
		p->awaited = k + 1;
		pthread_cond_wait(&p->job_done, &p->lock);
		p->awaited = 0;
	}
	pthread_mutex_unlock(&p->lock);
	return 1;
}

void pool_release(struct pool *p)
{
	count_job(p, &p->released, 0);
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->work_ready);
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < p->started; i++)
		pthread_join(p->workers[i].thread, NULL);
	pool_discard(p, 3);
}

/* pool_for's jobs: its tasks, skipped once one has failed or the
 * progress has cancelled. */
struct for_state {
	pool_task_fn run;
	void *ctx;
	enum ha_status *status; /* of each task; HA_OK when skipped */
	atomic_int stop;
};

static void for_task(void *ctx, size_t worker, size_t task)
{
	struct for_state *f = ctx;
	f->status[task] = HA_OK;
	if (atomic_load_explicit(&f->stop, memory_order_relaxed))
		return;
	f->status[task] = f->run(f->ctx, worker, task);
	if (f->status[task] != HA_OK)
		atomic_store_explicit(&f->stop, 1, memory_order_relaxed);
}

static int cancelled(const struct ha_progress *progress, const char *what,
                     size_t done, size_t tasks)
{
	return progress && progress->fn &&
	       progress->fn(progress->ctx, what, done, tasks) != 0;
}

static enum ha_status for_alone(size_t tasks, pool_task_fn run, void *ctx,
                                const struct ha_progress *progress,
                                const char *what)
{
	for (size_t t = 0; t < tasks; t++) {
		enum ha_status st = run(ctx, 0, t);
		if (st != HA_OK)
			return st;
		if (cancelled(progress, what, t + 1, tasks))
			return HA_ECANCELED;
	}
	return HA_OK;
}

enum ha_status pool_for(size_t tasks, size_t threads, pool_task_fn run,
                        void *ctx, const struct ha_progress *progress,
                        const char *what)
{
	if (threads > tasks)
		threads = tasks;
	if (threads <= 1)
		return for_alone(tasks, run, ctx, progress, what);
	struct for_state f = {.run = run, .ctx = ctx,
	                      .status = malloc(tasks * sizeof *f.status)};
	atomic_init(&f.stop, 0);
	struct pool *p = NULL;
	if (!f.status || pool_new(threads, tasks, for_task, &f, &p) != HA_OK) {
		free(f.status);
		return for_alone(tasks, run, ctx, progress, what);
	}
	/* Every task at once: no slot is reused, and a long task holds up
	 * no other. */
	while (pool_next(p) < tasks)
		pool_submit(p);
	enum ha_status st = HA_OK;
	size_t k;
	while (pool_wait(p, &k)) {
		pool_release(p);
		if (st == HA_OK && f.status[k] != HA_OK)
			st = f.status[k];
		if (st == HA_OK && cancelled(progress, what, k + 1, tasks)) {
			st = HA_ECANCELED;
			atomic_store_explicit(&f.stop, 1, memory_order_relaxed);
		}
	}
	pool_free(p);
	free(f.status);
	return st;
}
