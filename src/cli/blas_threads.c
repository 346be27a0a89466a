/* OpenBLAS's idle worker threads.
 *
 * Why: libheadalloc links GSL over OpenBLAS (meson.build), for the HDI's
 * matrix products.  OpenBLAS's pthread build starts its worker threads
 * when it is loaded, before main, and each spins on sched_yield for about
 * 2^28 clock ticks (its THREAD_TIMEOUT) before it sleeps: CPU spent by
 * every worker on every run, for a query or a sweep that never calls
 * BLAS.  openblas_set_num_threads(1) leaves them spinning;
 * blas_thread_shutdown_ stops them, and OpenBLAS starts them
 * again at its next threaded call (exec_blas_async re-initialises the
 * server), so the HDI keeps its threads.  The function is exported by
 * OpenBLAS but not declared in its header, so it is looked up by name:
 * with GSL's reference CBLAS, or without the symbol, nothing is done. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "blas_threads.h"

int cli_blas_threads_idle(void)
{
	int (*shutdown)(void);
	void *sym = dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
	if (!sym)
		return 0;
	/* POSIX's way from an object pointer to a function pointer */
	*(void **)&shutdown = sym;
	shutdown();
	return 1;
}
