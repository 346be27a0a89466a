/* The library's one pool of worker threads (library-internal).
 *
 * `threads` means the same wherever a caller gives it (ha_sweep_request,
 * ha_cal_options): 0, one thread per online processor; 1, the calling
 * thread alone; N, N threads; at most POOL_MAX_THREADS either way.  The
 * calling thread is always one of them: it is worker 0 and works while
 * it waits, and workers 1 .. threads - 1 are started threads, so a caller
 * keeps a workspace per worker index in [0, threads).
 *
 * Jobs are numbers.  A job's work writes only the job's own slot (and
 * its worker's workspace), and the caller reads the slots in job order,
 * so what it computes from them does not depend on the thread count.
 *
 * Two ways in:
 *
 * pool_for: run(ctx, worker, task) for every task in [0, tasks) and
 * return when all are done (or one failed, or the progress cancelled).
 *
 * The ordered stream (the sweep's rows and fits): the caller owns
 * `slots` job objects and reuses them round robin, job k in slot
 * k % slots.  The life of job k:
 *
 *     k = pool_next(p);   fill slot k;  pool_submit(p);
 *     pool_wait(p, &k);   use slot k;   pool_release(p);
 *
 * with at most `slots` jobs submitted and not released (pool_can_submit).
 * Everything a slot holds is the work function's alone between submit
 * and wait, and the caller's alone between wait and release (the pool's
 * mutex orders the two).  The pool never calls anything but the work
 * function (and pool_for's progress, on the calling thread). */
#ifndef HEADALLOC_BASE_POOL_H
#define HEADALLOC_BASE_POOL_H

#include <stddef.h>

#include <headalloc/progress.h>
#include <headalloc/status.h>

#define POOL_MAX_THREADS 8

/* The threads worth using for a request of `wanted` (see above) and
 * `jobs` jobs: in [1, POOL_MAX_THREADS], and no more than jobs (at least
 * 1). */
size_t pool_threads(size_t wanted, size_t jobs);

/* Run run(ctx, worker, task) for task in [0, tasks) on `threads` threads
 * (pool_threads's count; worker in [0, threads), the calling thread 0).
 * A run that returns other than HA_OK stops the tasks not yet begun, as
 * does a non-zero return of progress->fn (told on the calling thread of
 * the tasks done, in task order, as `what`; NULL: none).  Returns HA_OK,
 * HA_ECANCELED (the progress), or the status of a failed task.  Short
 * of memory or threads, the calling thread runs the tasks alone. */
typedef enum ha_status (*pool_task_fn)(void *ctx, size_t worker, size_t task);
enum ha_status pool_for(size_t tasks, size_t threads, pool_task_fn run,
                        void *ctx, const struct ha_progress *progress,
                        const char *what);

typedef void (*pool_work_fn)(void *ctx, size_t worker, size_t job);

struct pool;

/* A pool of `threads` threads (the caller's among them) over `slots`
 * slots.  Threads that cannot be started are done without; only
 * HA_ENOMEM for the pool itself. */
enum ha_status pool_new(size_t threads, size_t slots, pool_work_fn work,
                        void *ctx, struct pool **out);

/* Whether a slot is free for pool_submit. */
int pool_can_submit(const struct pool *p);

/* The number of the job the next pool_submit hands over. */
size_t pool_next(const struct pool *p);

/* Hand job pool_next(p), its slot filled, to the workers. */
void pool_submit(struct pool *p);

/* The oldest job not released, once done, into *job: 0 when every job
 * submitted was released.  While it is not done the calling thread does
 * jobs no worker has taken. */
int pool_wait(struct pool *p, size_t *job);

/* Free the slot of the job pool_wait gave. */
void pool_release(struct pool *p);

/* Stop the workers (a job begun is finished, none is begun after) and
 * free the pool; NULL accepted. */
void pool_free(struct pool *p);

#endif
