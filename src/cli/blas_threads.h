/* OpenBLAS's idle worker threads, put to sleep at start (blas_threads.c). */
#ifndef HEADALLOC_CLI_BLAS_THREADS_H
#define HEADALLOC_CLI_BLAS_THREADS_H

/* Stop the worker threads OpenBLAS started when it was loaded, if it was
 * (a later BLAS call starts them again); 1 when there were some to stop. */
int cli_blas_threads_idle(void);

#endif
