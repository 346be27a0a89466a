/* The C side of python/bench/call_cost.py: the time of one
 * ha_solve(512, no constraints, the default model at n = 1e8), the call
 * headalloc.allocate(512, 1e8) makes, best of 5 rounds of 200,000. */
#include <headalloc/headalloc.h>

#include <stdio.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
	struct ha_model m = ha_model_defaults();
	m.samples = 1e8;
	volatile unsigned long long sink = 0;
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		const int n = 200000;
		double start = now();
		for (int i = 0; i < n; i++) {
			struct ha_solution s;
			if (ha_solve(512, NULL, &m, &s) != HA_OK)
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
