/* The C side of python/bench/call_cost.py: the time of one
 * ha_solve(512, no constraints, the default model at n = 1e8), the call
 * headalloc.allocate(512, 1e8) makes, best of 5 rounds of 200,000; with
 * the argument "grouped", of the calls headalloc.allocate(4096, 1e12,
 * kv_heads="auto", max_kv_dim=1024, pareto=True) makes (ha_solver_new,
 * ha_grouped_solve with the front), best of 5 rounds of 2,000. */
#include <headalloc/headalloc.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int grouped(void)
{
	struct ha_model m = ha_model_defaults();
	const struct ha_constraints none = {0};
	const struct ha_kv_constraints kv = {.max_kv_dim = 1024};
	const struct ha_kv_shape shape = ha_kv_shape_defaults();
	volatile unsigned long long sink = 0;
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		const int n = 2000;
		double start = now();
		for (int i = 0; i < n; i++) {
			struct ha_solver *solver = NULL;
			struct ha_grouped_solution s;
			memset(&s, 0, sizeof s);
			if (ha_solver_new(4096, &none, &solver) != HA_OK ||
			    ha_grouped_solve(&(struct ha_grouped_request){
				    .solver = solver, .model = &m, .samples = 1e12, .kv = &kv,
				    .shape = &shape,
				    .front = 1}, &s) != HA_OK)
				return 1;
			sink += s.optimum.kv_heads + s.front_count;
			ha_grouped_solution_finish(&s);
			ha_solver_free(solver);
		}
		double per = (now() - start) / n;
		if (per < best)
			best = per;
	}
	printf("%.9g\n", best);
	return sink == 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "grouped") == 0)
		return grouped();
	struct ha_model m = ha_model_defaults();
	volatile unsigned long long sink = 0;
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		const int n = 200000;
		double start = now();
		for (int i = 0; i < n; i++) {
			struct ha_solution s;
			if (ha_solve(512, NULL, &m, 1e8, &s) != HA_OK)
				return 1;
			sink += s.optimum.head_dim;
		}
		double per = (now() - start) / n;
		if (per < best)
			best = per;
	}
	printf("%.9g\n", best);
	return sink == 0;
}
