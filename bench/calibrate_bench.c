/* The calibration's bootstrap: B = 1000 resamples on 12 runs with
 * --compare, one thread (the baseline, measured in the same run) against
 * the machine's threads.  meson compile -C build calibrate-bench &&
 * build/bench/headalloc-calibrate-bench */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include <headalloc/calibrate.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Twelve runs of the seeds' law over d x n at D = 64, 1% noise. */
static size_t runs_of(struct ha_run *runs)
{
	static const unsigned dims[] = {4, 8, 16, 32};
	static const double ns[] = {1e4, 1e5, 1e6};
	uint64_t x = 7;
	size_t m = 0;
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 3; b++) {
			double d = dims[a];
			double l = 1.5 + 3.0 / (d * d) + 0.0035 * exp(0.5 * d) / ns[b] * (64.0 / d);
			x = x * 6364136223846793005u + 1442695040888963407u;
			double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
			runs[m++] = (struct ha_run){64 / dims[a], dims[a], ns[b],
			                            l * (1.0 + 0.02 * (u - 0.5)), NAN};
		}
	return m;
}

static double cost(const struct ha_run *runs, size_t m, size_t threads, int reps)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = 1000;
	o.compare = 1;
	o.threads = threads;
	o.target = (struct ha_cal_target){64, 1e5, {0}};
	double best = INFINITY;
	for (int r = 0; r < reps; r++) {
		struct ha_calibration *c = NULL;
		struct ha_error err;
		double t0 = now();
		if (ha_calibrate(runs, m, &o, &c, &err) != HA_OK) {
			fprintf(stderr, "calibrate: %s\n", err.message);
			return NAN;
		}
		double t = now() - t0;
		ha_calibration_free(c);
		best = t < best ? t : best;
	}
	return best;
}

int main(void)
{
	struct ha_run runs[12];
	size_t m = runs_of(runs);
	double one = cost(runs, m, 1, 3);
	double all = cost(runs, m, 0, 3);
	printf("calibrate, B = 1000, 12 runs, --compare (best of 3, wall):\n");
	printf("  1 thread (baseline)   %.3f s\n", one);
	printf("  online threads        %.3f s   (%.2fx the baseline's speed)\n", all,
	       one / all);
	return 0;
}
