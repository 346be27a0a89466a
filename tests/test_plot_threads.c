/* Pictures drawn from 8 threads at once: PLplot's state is process-wide,
 * so the library serialises its use (plot.c); every picture must come out
 * whole and the same bytes as the one drawn alone (the CLI draws from one
 * thread, the Python package from as many as its users start). */
#define _GNU_SOURCE /* open_memstream */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#define THREADS 8
#define ROUNDS 3

struct drawing {
	char *data;
	size_t size;
	enum ha_status status;
};

/* The landscape of budget at n in format, into memory; no assertion here
 * (it runs on worker threads): the caller checks the status. */
static struct drawing draw(uint64_t budget, double samples, enum ha_plot_format format)
{
	struct drawing d = {NULL, 0, HA_ENOMEM};
	struct ha_model m = ha_model_defaults();
	double n_samples = samples;
	struct ha_allocation_result *a = NULL;
	FILE *mem = open_memstream(&d.data, &d.size);
	if (!mem)
		return d;
	d.status = ha_allocation_result_new(budget, NULL, NULL, &m, n_samples, HA_ALLOCATION_DIVISORS,
	                                    &a, NULL);
	struct ha_plot_target t = {.stream = mem, .format = format};
	if (d.status == HA_OK)
		d.status = ha_plot_allocation(&t, &(struct ha_plot_allocation_request){
			.model = &m, .budget = budget, .allocation = a}, NULL);
	ha_allocation_result_free(a);
	if (fclose(mem) != 0 && d.status == HA_OK)
		d.status = HA_EIO;
	return d;
}

static const uint64_t budgets[] = {512, 4096, 768};
static const enum ha_plot_format formats[] = {HA_PLOT_PNG, HA_PLOT_SVG};
#define KINDS (sizeof budgets / sizeof *budgets * sizeof formats / sizeof *formats)

static struct drawing alone[KINDS];
static struct drawing together[THREADS][ROUNDS][KINDS];
static pthread_barrier_t start;

static struct drawing draw_kind(size_t k)
{
	return draw(budgets[k / 2], 1e8, formats[k % 2]);
}

static void *worker(void *arg)
{
	size_t w = (size_t)(uintptr_t)arg;
	pthread_barrier_wait(&start);
	for (size_t r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < KINDS; i++) {
			size_t k = (i + w + r) % KINDS; /* each thread its own order */
			together[w][r][k] = draw_kind(k);
		}
	return NULL;
}

Test(threads, eight_threads_draw_the_same_pictures_as_one)
{
	for (size_t k = 0; k < KINDS; k++) {
		alone[k] = draw_kind(k);
		cr_assert_eq(alone[k].status, HA_OK, "picture %zu alone", k);
	}
	pthread_t threads[THREADS];
	cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (size_t w = 0; w < THREADS; w++)
		cr_assert_eq(pthread_create(&threads[w], NULL, worker, (void *)(uintptr_t)w), 0);
	for (size_t w = 0; w < THREADS; w++)
		pthread_join(threads[w], NULL);
	pthread_barrier_destroy(&start);
	for (size_t w = 0; w < THREADS; w++)
		for (size_t r = 0; r < ROUNDS; r++)
			for (size_t k = 0; k < KINDS; k++) {
				struct drawing *d = &together[w][r][k];
				cr_assert_eq(d->status, HA_OK, "thread %zu round %zu picture %zu", w, r, k);
				cr_assert(d->size == alone[k].size &&
				          memcmp(d->data, alone[k].data, d->size) == 0,
				          "thread %zu round %zu picture %zu differs", w, r, k);
				free(d->data);
			}
	for (size_t k = 0; k < KINDS; k++)
		free(alone[k].data);
}
