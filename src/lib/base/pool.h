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

/* The threads worth using for `wanted` (see above) and `jobs` jobs: in
 * [1, POOL_MAX_THREADS], and no more than jobs. */
size_t pool_threads(size_t wanted, size_t jobs);

/* pool_for on `threads` threads (pool_threads's count).  A failed task
 * stops the tasks not yet begun, as does a non-zero return of
 * progress->fn (told of the tasks done, in task order, as `what`; NULL:
 * none): HA_OK, HA_ECANCELED or the failed task's status.  Short of
 * memory or threads, the calling thread runs the tasks alone. */
typedef enum ha_status (*pool_task_fn)(void *ctx, size_t worker, size_t task);
enum ha_status pool_for(size_t tasks, size_t threads, pool_task_fn run,
                        void *ctx, const struct ha_progress *progress,
                        const char *what);

typedef void (*pool_work_fn)(void *ctx, size_t worker, size_t job);

struct pool;

/* A pool of `threads` threads (the caller's among them) over `slots`
 * slots; threads that cannot be started are done without. */
enum ha_status pool_new(size_t threads, size_t slots, pool_work_fn work,
                        void *ctx, struct pool **out);

int pool_can_submit(const struct pool *p);
size_t pool_next(const struct pool *p);
void pool_submit(struct pool *p);
/* The oldest job not released, once done (0: none left); meanwhile the
 * calling thread does jobs no worker has taken. */
int pool_wait(struct pool *p, size_t *job);
void pool_release(struct pool *p);

/* Stop the workers (a job begun is finished) and free the pool (NULL
 * accepted). */
void pool_free(struct pool *p);

#endif
