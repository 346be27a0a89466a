/* The ordered pool of worker threads (see sweep_pool.h).
 *
 * Three counters under one mutex say where every job is: jobs
 * [released, taken) are being worked on or done, [taken, submitted) wait
 * for a worker.  done[k % slots] == k + 1 once job k is done.  Workers
 * wait on `work_ready`, the caller on `job_done` (signalled for the job
 * it awaits alone); jobs are coarse (many rows each), so one mutex costs
 * nothing measurable. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <headalloc/sweep.h>

#include "alloc/sweep_pool.h"

struct worker {
	struct pool *pool;
	size_t index;
	pthread_t thread;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work_ready, job_done;
	void *const *jobs;
	size_t slots;
	size_t *done;
	size_t submitted, taken, released;
	size_t awaited; /* k + 1 while the caller waits for job k, else 0 */
	int stopping;
	int caller_works; /* pool_wait does waiting jobs itself, as worker worker_count */
	pool_work_fn work;
	void *ctx;
	struct worker *workers;
	size_t worker_count;
};

size_t pool_threads_for(size_t wanted)
{
	if (wanted == HA_THREADS_ONLINE) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		wanted = online > 0 ? (size_t)online : 1;
	}
	if (wanted > POOL_MAX_THREADS)
		wanted = POOL_MAX_THREADS;
	return wanted > 1 ? wanted : 0;
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
		p->work(p->ctx, w->index, p->jobs[k % p->slots]);
		pthread_mutex_lock(&p->lock);
		p->done[k % p->slots] = k + 1;
		/* Only the job the caller waits for wakes it (jobs end out of
		 * order: waking it for another was a context switch for
		 * nothing). */
		if (p->awaited == k + 1)
			pthread_cond_signal(&p->job_done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

enum ha_status pool_new(size_t workers, void *const *jobs, size_t slots,
                        int caller_works, pool_work_fn work, void *ctx,
                        struct pool **out)
{
	*out = NULL;
	struct pool *p = calloc(1, sizeof *p);
	if (!p)
		return HA_ENOMEM;
	p->done = calloc(slots, sizeof *p->done);
	p->workers = workers ? calloc(workers, sizeof *p->workers) : NULL;
	if (!p->done || (workers && !p->workers)) {
		free(p->done);
		free(p->workers);
		free(p);
		return HA_ENOMEM;
	}
	p->jobs = jobs;
	p->slots = slots;
	p->caller_works = caller_works;
	p->work = work;
	p->ctx = ctx;
	int locks = pthread_mutex_init(&p->lock, NULL) == 0;
	int ready = locks && pthread_cond_init(&p->work_ready, NULL) == 0;
	int done = ready && pthread_cond_init(&p->job_done, NULL) == 0;
	if (!done) {
		if (ready)
			pthread_cond_destroy(&p->work_ready);
		if (locks)
			pthread_mutex_destroy(&p->lock);
		free(p->done);
		free(p->workers);
		free(p);
		return HA_ENOMEM;
	}
	/* Threads that cannot be started are done without. */
	for (size_t i = 0; i < workers; i++) {
		struct worker *w = &p->workers[p->worker_count];
		w->pool = p;
		w->index = p->worker_count;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
			break;
		p->worker_count++;
	}
	*out = p;
	return HA_OK;
}

size_t pool_workers(const struct pool *p)
{
	return p->worker_count;
}

int pool_can_submit(const struct pool *p)
{
	/* Read by the one thread that writes it (the caller's). */
	return p->submitted - p->released < p->slots;
}

void *pool_slot(const struct pool *p)
{
	return p->jobs[p->submitted % p->slots];
}

void pool_submit(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->submitted++;
	pthread_cond_signal(&p->work_ready);
	pthread_mutex_unlock(&p->lock);
}

void *pool_wait(struct pool *p)
{
	size_t k = p->released;
	if (k == p->submitted)
		return NULL;
	void *job = p->jobs[k % p->slots];
	if (p->worker_count == 0) {
		/* No threads: the calling thread does the job now. */
		p->taken++;
		p->work(p->ctx, 0, job);
		return job;
	}
	pthread_mutex_lock(&p->lock);
	while (p->done[k % p->slots] != k + 1) {
		if (p->caller_works && p->taken < p->submitted) {
			/* A job no worker has taken: do it here rather than
			 * sleep (one more thread busy than the workers alone
			 * would preempt them on a machine of `workers` CPUs). */
			size_t j = p->taken++;
			pthread_mutex_unlock(&p->lock);
			p->work(p->ctx, p->worker_count, p->jobs[j % p->slots]);
			pthread_mutex_lock(&p->lock);
			p->done[j % p->slots] = j + 1;
			continue;
		}
		p->awaited = k + 1;
		pthread_cond_wait(&p->job_done, &p->lock);
		p->awaited = 0;
	}
	pthread_mutex_unlock(&p->lock);
	return job;
}

void pool_release(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->released++;
	pthread_mutex_unlock(&p->lock);
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->work_ready);
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < p->worker_count; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_cond_destroy(&p->job_done);
	pthread_cond_destroy(&p->work_ready);
	pthread_mutex_destroy(&p->lock);
	free(p->done);
	free(p->workers);
	free(p);
}
