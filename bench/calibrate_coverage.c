/* The coverage of the calibration's bootstrap 95% intervals
 * (headalloc-calibrate(1), COVERAGE): data sets drawn from a known law
 * on the documented designs, each calibrated with the default options
 * (least squares, no comparison) and each bootstrap kind (cases,
 * residuals, wild), and for each design, kind and
 * free parameter the share of data sets whose interval holds the truth.
 *
 *   meson compile -C build calibrate-coverage &&
 *   build/bench/headalloc-calibrate-coverage [SETS [B [DESIGN]]]
 *
 * SETS data sets (default 200) of B resamples each (default 200); DESIGN
 * one design's name (default all).  E, c_b and c_v are free (the
 * command's default), and s too on runs24 and runs96.  Binomial(200, 0.95) has sd 0.015, so
 * a share below 0.92 is 2 sd short of the level.  The designs:
 *   runs10     the ten configurations of data/runs.yaml under its truth
 *              (E = 1.8, c_b = 40, s = 2, ln c_v = -40.8), noise 1%, no
 *              loss_se;
 *   runs10-se  the same runs with noise 0.5%, 1% and 2% in turn and each
 *              run's loss_se stated;
 *   runs10-het the same unequal noise, no loss_se stated;
 *   runs24     runs96's d at H = 1 and n in {1e3, 1e4, 1e5};
 *   runs96     the slow test's design (tests/test_calibrate_coverage.c):
 *              d = 2..256, H in {1, 4}, six n, a power-law variance,
 *              noise 2%.
 * The noise is Gaussian in ln L.  One line per data set and kind goes
 * to stderr with its time, so that a long run shows its progress. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <headalloc/calibrate.h>

#include "calibrate/calibrate_internal.h"

#define MAX_RUNS 96

static uint64_t state;

static double unit(void)
{
	state = state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return ((double)(state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2.0 * log(unit())) * cos(6.283185307179586 * unit());
}

struct design {
	const char *name;
	double truth[HA_CAL_PARAMS];
	size_t (*runs)(const double *truth, struct ha_run *out); /* noise-free */
	double noise[3]; /* run i's noise is noise[i % 3] */
	int state_se;    /* each run states its loss_se */
	int smoothness;  /* s free besides E, c_b and c_v */
};

static double loss_of(const double *th, uint64_t heads, uint64_t dim, double n)
{
	struct ha_model model = ha_cal_model_of(th);
	struct ha_terms t;
	if (ha_model_eval(&model, n, heads * dim, dim, &t) != HA_OK) {
		fprintf(stderr, "the model has no loss at %llu x %llu\n",
		        (unsigned long long)heads, (unsigned long long)dim);
		exit(1);
	}
	return t.mse;
}

static size_t runs10(const double *th, struct ha_run *out)
{
	static const struct { uint64_t heads, head_dim; double n; } at[] = {
		{32, 8, 1e6},  {16, 16, 1e6}, {8, 32, 1e6},  {16, 12, 1e7}, {8, 24, 1e7},
		{16, 32, 1e7}, {64, 8, 1e8},  {32, 16, 1e8}, {16, 32, 1e8}, {4, 32, 1e6},
	};
	size_t m = sizeof at / sizeof at[0];
	for (size_t i = 0; i < m; i++)
		out[i] = (struct ha_run){at[i].heads, at[i].head_dim, at[i].n,
		                         loss_of(th, at[i].heads, at[i].head_dim, at[i].n),
		                         NAN, 0};
	return m;
}

static size_t runs7(const double *th, struct ha_run *out)
{
	runs10(th, out);
	return 7;
}

static size_t runs96(const double *th, struct ha_run *out)
{
	static const uint64_t dims[] = {2, 4, 8, 16, 32, 64, 128, 256};
	static const uint64_t heads[] = {1, 4};
	static const double samples[] = {1e3, 3e3, 1e4, 3e4, 1e5, 3e5};
	size_t m = 0;
	for (size_t a = 0; a < 8; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 6; c++)
				out[m++] = (struct ha_run){heads[b], dims[a], samples[c],
				                           loss_of(th, heads[b], dims[a], samples[c]),
				                           NAN, 0};
	return m;
}

/* runs96's d at H = 1 and three of its n. */
static size_t runs24(const double *th, struct ha_run *out)
{
	static const uint64_t dims[] = {2, 4, 8, 16, 32, 64, 128, 256};
	static const double samples[] = {1e3, 1e4, 1e5};
	size_t m = 0;
	for (size_t a = 0; a < 8; a++)
		for (size_t c = 0; c < 3; c++)
			out[m++] = (struct ha_run){1, dims[a], samples[c],
			                           loss_of(th, 1, dims[a], samples[c]), NAN, 0};
	return m;
}

#define RUNS96_TRUTH {1.0, 1.3862943611198906, 1.0, 0.19942702469689372, 0.0, 2.0, \
	1.0, 0.0, 0.28, 1.0, 0.0} /* ln 4, ln(0.5e4 / 4096) */

#define RUNS10_TRUTH {1.8, 3.6888794541139363, 2.0, -40.8, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0, 0.0}

static const struct design designs[] = {
	{"runs7", RUNS10_TRUTH, runs7, {0.01, 0.01, 0.01}, 0, 0},
	{"runs10", RUNS10_TRUTH, runs10, {0.01, 0.01, 0.01}, 0, 0},
	{"runs10-se", RUNS10_TRUTH, runs10, {0.005, 0.01, 0.02}, 1, 0},
	{"runs10-het", RUNS10_TRUTH, runs10, {0.005, 0.01, 0.02}, 0, 0},
	{"runs24", RUNS96_TRUTH, runs24, {0.02, 0.02, 0.02}, 0, 1},
	{"runs96", RUNS96_TRUTH, runs96, {0.02, 0.02, 0.02}, 0, 1},
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void measure(const struct design *d, size_t sets, size_t resamples)
{
	static const enum ha_cal_bootstrap_kind kinds[] = {
		HA_CAL_BOOT_CASES, HA_CAL_BOOT_RESIDUALS, HA_CAL_BOOT_WILD};
	struct ha_run clean[MAX_RUNS], runs[MAX_RUNS];
	size_t m = d->runs(d->truth, clean);
	for (size_t k = 0; k < 3; k++) {
		size_t covered[HA_CAL_PARAMS] = {0}, counted = 0;
		int free[HA_CAL_PARAMS] = {0};
		state = 20261206; /* the same data sets for both kinds */
		for (size_t set = 0; set < sets; set++) {
			for (size_t i = 0; i < m; i++) {
				double sigma = d->noise[i % 3];
				runs[i] = clean[i];
				runs[i].loss = clean[i].loss * exp(sigma * gauss());
				runs[i].loss_se = d->state_se ? sigma * runs[i].loss : NAN;
			}
			struct ha_cal_options o;
			ha_cal_options_defaults(&o);
			o.law.value[HA_CAL_VAR_RATE] = d->truth[HA_CAL_VAR_RATE];
			o.law.value[HA_CAL_VAR_POWER] = d->truth[HA_CAL_VAR_POWER];
			o.law.free[HA_CAL_SMOOTHNESS] = d->smoothness;
			o.bootstrap = resamples;
			o.bootstrap_kind = kinds[k];
			o.seed = set + 1;
			o.compare = 0;
			struct ha_calibration *c = NULL;
			struct ha_error err;
			double t0 = now();
			if (ha_calibrate(runs, m, &o, &c, &err) != HA_OK) {
				fprintf(stderr, "%s set %zu: %s\n", d->name, set, err.message);
				continue;
			}
			counted++;
			for (int p = 0; p < HA_CAL_PARAMS; p++) {
				const struct ha_cal_estimate *e = &c->fit.param[p];
				free[p] = e->free;
				if (e->free && e->has_ci)
					covered[p] += e->ci95[0] <= d->truth[p] &&
					              d->truth[p] <= e->ci95[1];
			}
			fprintf(stderr, "%s %s set %zu: %.2f s\n", d->name,
			        ha_cal_bootstrap_kind_str(kinds[k]), set, now() - t0);
			ha_calibration_free(c);
		}
		for (int p = 0; p < HA_CAL_PARAMS; p++)
			if (free[p])
				printf("%-10s %-10s %-12s %4zu of %4zu  %.3f\n", d->name,
				       ha_cal_bootstrap_kind_str(kinds[k]),
				       ha_cal_param_str((enum ha_cal_param)p), covered[p],
				       counted, counted ? (double)covered[p] / (double)counted : 0.0);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	size_t sets = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	size_t resamples = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
	const char *only = argc > 3 ? argv[3] : NULL;
	if (sets == 0 || resamples < 2) {
		fprintf(stderr, "usage: %s [SETS >= 1 [B >= 2 [DESIGN]]]\n", argv[0]);
		return 2;
	}
	printf("%-10s %-10s %-12s %-12s  %s\n", "design", "kind", "parameter",
	       "covered", "share");
	for (size_t i = 0; i < sizeof designs / sizeof designs[0]; i++)
		if (!only || strcmp(only, designs[i].name) == 0)
			measure(&designs[i], sets, resamples);
	return 0;
}
