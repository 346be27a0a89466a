/* An ordered pool of worker threads (library-internal): jobs go in, in
 * order, are done by the workers in any order, and come back out in the
 * order they went in.  A sweep (sweep.h) has its rows and its per-n fits
 * computed by the workers while the calling thread takes the ones already
 * done, so what it hands out is what one thread doing everything, in
 * order, would hand out.
 *
 * The caller owns `slots` job objects and reuses them round robin: job k
 * lives in jobs[k % slots].  The life of job k:
 *
 *     job = pool_slot(p, k); fill it;  pool_submit(p);   (k = submitted)
 *     job = pool_wait(p);    use it;   pool_release(p);  (k = released)
 *
 * with submitted - released <= slots (pool_can_submit).  work(ctx,
 * worker, job) runs on some worker thread; worker is its index in
 * [0, workers), or 0 when the pool has no threads, in which case
 * pool_wait runs it on the calling thread.  Everything a job holds is
 * the work function's alone between submit and wait, and the caller's
 * alone between wait and release (the pool's mutex orders the two).
 * The pool never calls anything but work(): no callback of the library's
 * caller runs on a worker thread. */
#ifndef HEADALLOC_SWEEP_POOL_H
#define HEADALLOC_SWEEP_POOL_H

#include <stddef.h>

#include <headalloc/status.h>

typedef void (*pool_work_fn)(void *ctx, size_t worker, void *job);

struct pool;

/* The number of worker threads worth starting for a request of `wanted`
 * threads (HA_THREADS_ONLINE: as many as the machine has online
 * processors; at most POOL_MAX_THREADS): 0 for a request of 0 or 1 or a
 * machine of one processor, meaning the calling thread does all the
 * work. */
#define POOL_MAX_THREADS 8
size_t pool_threads_for(size_t wanted);

/* A pool of up to `workers` threads over jobs[0..slots).  Threads that
 * cannot be started are done without (with none, the calling thread does
 * the work): only HA_ENOMEM for the pool itself.  caller_works != 0:
 * pool_wait, rather than sleep while its job is not done, does a job no
 * worker has taken yet on the calling thread, as worker pool_workers()
 * (so work() needs workers + 1 workspaces). */
enum ha_status pool_new(size_t workers, void *const *jobs, size_t slots,
                        int caller_works, pool_work_fn work, void *ctx,
                        struct pool **out);

/* The threads the pool runs (0: the calling thread works). */
size_t pool_workers(const struct pool *p);

/* Whether a job's slot is free for pool_submit. */
int pool_can_submit(const struct pool *p);

/* The job to fill for the next submit. */
void *pool_slot(const struct pool *p);

/* Hand the filled job (pool_slot's) to the workers. */
void pool_submit(struct pool *p);

/* The oldest job not released, once done; NULL when none was submitted. */
void *pool_wait(struct pool *p);

/* Free the slot of the job pool_wait returned. */
void pool_release(struct pool *p);

/* Stop the workers (a job begun is finished, none is begun after) and
 * free the pool; NULL accepted. */
void pool_free(struct pool *p);

#endif
