/* The calibration's bootstrap: B = 1000 resamples on 12 runs with
 * --compare, one thread (the baseline, measured in the same run) against
 * the machine's threads, each the best of REPS (default 3) runs, in wall
 * and in CPU seconds (the CPU time says what the work costs on a machine
 * other jobs share; the wall time what a user waits).  Then the parts:
 * the main law's bootstrap alone, and the comparison without a
 * bootstrap, on one thread.
 *   meson compile -C build calibrate-bench &&
 *   build/bench/headalloc-calibrate-bench [REPS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <headalloc/calibrate.h>

#include "calibrate_runs.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct cost {
	double wall, cpu; /* the best of the repetitions, each */
};

static struct cost cost(const struct ha_run *runs, size_t m, size_t threads,
                        size_t bootstrap, int compare, int reps)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = bootstrap;
	o.compare = compare;
	o.threads = threads;
	o.target = (struct ha_cal_target){64, 1e5, {0}};
	struct cost best = {INFINITY, INFINITY};
	for (int r = 0; r < reps; r++) {
		struct ha_calibration *c = NULL;
		struct ha_error err;
		double t0 = now(), c0 = cpu_now();
		if (ha_calibrate(runs, m, &o, &c, &err) != HA_OK) {
			fprintf(stderr, "calibrate: %s\n", err.message);
			return (struct cost){NAN, NAN};
		}
		double t = now() - t0, cpu = cpu_now() - c0;
		ha_calibration_free(c);
		best.wall = t < best.wall ? t : best.wall;
		best.cpu = cpu < best.cpu ? cpu : best.cpu;
	}
	return best;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3;
	if (reps < 1)
		reps = 1;
	struct ha_run runs[12];
	size_t m = calibrate_bench_runs(runs);
	struct cost one = cost(runs, m, 1, 1000, 1, reps);
	struct cost all = cost(runs, m, 0, 1000, 1, reps);
	printf("calibrate, B = 1000, 12 runs, --compare (best of %d):\n", reps);
	printf("  1 thread (baseline)   %.3f s wall  %.3f s CPU\n", one.wall, one.cpu);
	printf("  online threads        %.3f s wall  %.3f s CPU   (%.2fx the "
	       "baseline's wall speed)\n", all.wall, all.cpu, one.wall / all.wall);
	struct cost boot = cost(runs, m, 1, 1000, 0, 1);
	struct cost ladder = cost(runs, m, 1, 0, 1, 1);
	printf("parts, 1 thread: the main law's bootstrap (no --compare) %.3f s "
	       "CPU, the comparison without a bootstrap %.3f s CPU; the rest, "
	       "the comparison's bootstrap, %.3f s CPU\n", boot.cpu, ladder.cpu,
	       one.cpu - boot.cpu - ladder.cpu);
	return 0;
}
