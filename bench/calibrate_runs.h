/* The calibration bench's twelve runs: the seeds' law over d x n at
 * D = 64 (d in {4, 8, 16, 32}, n in {1e4, 1e5, 1e6}), each loss times
 * 1 + 2% (u - 1/2), u from a fixed linear congruential stream.  Shared
 * by bench/calibrate_bench.c and tests/test_calibrate_ls.c, so that the
 * test checks the fits the bench times. */
#ifndef HEADALLOC_BENCH_CALIBRATE_RUNS_H
#define HEADALLOC_BENCH_CALIBRATE_RUNS_H

#include <math.h>
#include <stdint.h>

#include <headalloc/runs.h>

/* Fill runs[12]; returns 12. */
static inline size_t calibrate_bench_runs(struct ha_run *runs)
{
	static const unsigned dims[] = {4, 8, 16, 32};
	static const double ns[] = {1e4, 1e5, 1e6};
	uint64_t x = 7;
	size_t m = 0;
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 3; b++) {
			double d = dims[a];
			double l = 1.5 + 3.0 / (d * d) +
			           0.0035 * exp(0.5 * d) / ns[b] * (64.0 / d);
			x = x * 6364136223846793005u + 1442695040888963407u;
			double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
			runs[m++] = (struct ha_run){64 / dims[a], dims[a], ns[b],
			                            l * (1.0 + 0.02 * (u - 0.5)), NAN, 0};
		}
	return m;
}

#endif
