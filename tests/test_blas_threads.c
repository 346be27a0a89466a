/* The CLI puts OpenBLAS's idle worker threads to sleep at start
 * (src/cli/blas_threads.c): afterwards the process runs on its own
 * thread alone, and BLAS still computes (starting its threads again). */
#include <dirent.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_matrix.h>

#include "../src/cli/blas_threads.h"

static int threads_of_process(void)
{
	DIR *d = opendir("/proc/self/task");
	cr_assert(d, "no /proc/self/task");
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(blas_threads, idle_leaves_one_thread_and_blas_works)
{
	int openblas = dlsym(RTLD_DEFAULT, "blas_thread_shutdown_") != NULL;
	/* OpenBLAS's workers: one fewer than its thread count (the caller's
	 * thread is the other); Criterion's own threads stay. */
	int workers = 0;
	void *count = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
	if (count) {
		int (*get)(void);
		*(void **)&get = count;
		workers = get() - 1;
	}
	int before = threads_of_process();
	cr_assert_eq(cli_blas_threads_idle(), openblas);
	/* pthread_join returns once a worker has cleared its thread id, a
	 * moment before the kernel removes its /proc/self/task entry; so
	 * the count may lag the join briefly. */
	int after = threads_of_process();
	for (int tries = 0; after > before - workers && tries < 200; tries++) {
		nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
		after = threads_of_process();
	}
	cr_assert_eq(after, before - workers,
	             "%d threads after, %d before, %d OpenBLAS workers",
	             after, before, workers);
	/* A product big enough for OpenBLAS to use its threads. */
	size_t n = 300;
	gsl_matrix *a = gsl_matrix_alloc(n, n), *c = gsl_matrix_alloc(n, n);
	cr_assert(a && c);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			gsl_matrix_set(a, i, j, (double)((i + 2 * j) % 7) - 3.0);
	gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, a, a, 0.0, c);
	for (size_t i = 0; i < n; i += 37)
		for (size_t j = 0; j < n; j += 41) {
			double s = 0.0;
			for (size_t k = 0; k < n; k++)
				s += gsl_matrix_get(a, i, k) * gsl_matrix_get(a, j, k);
			cr_assert_eq(gsl_matrix_get(c, i, j), s, "(%zu, %zu)", i, j);
		}
	gsl_matrix_free(a);
	gsl_matrix_free(c);
}
