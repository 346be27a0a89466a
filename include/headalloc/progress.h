/* headalloc — progress and cancellation of long work.
 *
 * Long library calls (a sweep's rows, a bootstrap's resamples, the layers
 * of a model directory read and measured) take an optional progress
 * callback in their request.  The library calls it from the thread that
 * made the call, at most a few hundred times a second, with the work done
 * so far and the total (both in the call's own unit: rows, resamples,
 * layers; total 0 when unknown).  What the front end does with it is its
 * own affair: the CLI draws one updating line on a terminal, the Python
 * package hands it to tqdm.
 *
 * The callback returns 0 to go on; any other value cancels the call, which
 * then returns HA_ECANCELED as soon as it can (within a second of work),
 * having freed what it made and written nothing further.  A NULL callback
 * means no progress and no cancellation. */
#ifndef HEADALLOC_PROGRESS_H
#define HEADALLOC_PROGRESS_H

#include "export.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what: a short static lower-case noun for the unit ("rows",
 * "resamples", "layers"), never NULL. */
typedef int (*ha_progress_fn)(void *ctx, const char *what, uint64_t done,
                              uint64_t total);

/* A callback and its context, as requests carry them. */
struct ha_progress {
	ha_progress_fn fn; /* NULL: none */
	void *ctx;
};

#ifdef __cplusplus
}
#endif
#endif
