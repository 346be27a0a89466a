/* synthetic-runs: the synthetic training runs of data/runs.yaml and
 * data/runs.csv, drawn from known parameters with a fixed seed, so that a
 * calibration can be checked against the truth (README, "Calibrating on
 * your own runs").
 *
 *   synthetic-runs yaml > data/runs.yaml
 *   synthetic-runs csv  > data/runs.csv
 *
 * The truth is the seeds' law (headalloc-model(7), CALIBRATION (The parameters), γ = 1/2, κ = 0, hdi = 1)
 * with E = 1.8, c_b = 40, s = 2 and ln c_v = -40.8; each loss is the
 * model's value times exp(0.01 z), z standard normal (1% noise, about
 * the spread of a training run over seeds), printed to 6 significant
 * digits.  The ten runs are small: budgets 128 to 512, head dimensions 8
 * to 32, n from 1e6 to 1e8.  Built on demand (meson compile -C build
 * synthetic-runs); the test data-runs-generated checks that the committed
 * files are this program's output. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <headalloc/headalloc.h>

#define SEED UINT64_C(20261130)
#define NOISE 0.01

/* The truth, in the calibration's fit scale (ln c for the coefficients). */
static const double truth[HA_CAL_PARAMS] = {
	[HA_CAL_IRREDUCIBLE] = 1.8,
	[HA_CAL_BIAS_COEF] = 3.6888794541139363, /* ln 40 */
	[HA_CAL_SMOOTHNESS] = 2.0,
	[HA_CAL_VAR_COEF] = -40.8,
	[HA_CAL_VAR_RATE] = 0.5,
	[HA_CAL_VAR_POWER] = 0.0,
	[HA_CAL_DATA_COEF] = 0.0, /* no data term; its defaults */
	[HA_CAL_DATA_POWER] = 0.28,
	[HA_CAL_VAR_SAMPLES_POWER] = 1.0,
	[HA_CAL_HDI] = 1.0,
};

/* Each run: heads, head_dim and n = 10^exponent. */
static const struct { uint64_t heads, head_dim; int exponent; } design[] = {
	{32, 8, 6},  {16, 16, 6}, {8, 32, 6},  {16, 12, 7}, {8, 24, 7},
	{16, 32, 7}, {64, 8, 8},  {32, 16, 8}, {16, 32, 8}, {4, 32, 6},
};

/* splitmix64: a fixed, portable stream of 64-bit numbers. */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* A uniform number in (0, 1). */
static double uniform(uint64_t *state)
{
	return ((double)(next(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal number (Box–Muller). */
static double normal(uint64_t *state)
{
	double u1 = uniform(state), u2 = uniform(state);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int main(int argc, char **argv)
{
	int csv = argc == 2 && strcmp(argv[1], "csv") == 0;
	if (argc != 2 || (!csv && strcmp(argv[1], "yaml") != 0)) {
		fputs("usage: synthetic-runs yaml|csv\n", stderr);
		return 2;
	}
	if (csv)
		puts("heads,head_dim,samples,loss");
	else
		printf("# Synthetic runs, not measurements: drawn by "
		       "data/synthetic-runs.c (seed %llu)\n"
		       "# from E = 1.8, c_b = 40, s = 2, ln c_v = -40.8, "
		       "var_rate 1/2, var_power 0, hdi 1,\n"
		       "# each loss times exp(0.01 z), z standard normal.\n"
		       "runs:\n", (unsigned long long)SEED);
	uint64_t state = SEED;
	for (size_t i = 0; i < sizeof design / sizeof *design; i++) {
		double samples = pow(10.0, design[i].exponent); /* exact */
		struct ha_model model = ha_cal_model_of(truth);
		struct ha_terms t;
		uint64_t budget = design[i].heads * design[i].head_dim;
		if (ha_model_eval(&model, samples, budget, design[i].head_dim, &t) != HA_OK)
			return 1;
		double loss = t.mse * exp(NOISE * normal(&state));
		if (csv)
			printf("%llu,%llu,1e%d,%.6g\n",
			       (unsigned long long)design[i].heads,
			       (unsigned long long)design[i].head_dim,
			       design[i].exponent, loss);
		else
			printf("  - {heads: %llu, head_dim: %llu, samples: 1e%d, "
			       "loss: %.6g}\n", (unsigned long long)design[i].heads,
			       (unsigned long long)design[i].head_dim,
			       design[i].exponent, loss);
	}
	return ferror(stdout) ? 1 : 0;
}
