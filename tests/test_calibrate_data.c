/* Calibration with the data term A n^-α (headalloc-model(7), CALIBRATION
 * (The data term)) on a synthetic learning-curve sweep: D = 256, H in
 * {4, 8, 16, 32}, three token counts, the loss falling with n by the same
 * amount at every head_dim, log-normal noise of 1e-3.  The laws with the
 * data term reach the noise; the laws without it cannot follow the
 * curves.  (No public multi-n head sweep was found to use instead.) */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/calibrate.h>
#include "calibrate/calibrate_internal.h"

#define NOISE 1e-3

/* splitmix64, and a normal deviate by Box–Muller. */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static double normal(uint64_t *s)
{
	double u1 = ((double)(next_random(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(next_random(s) >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* The sweep: L = E + A n^-α + c_b d^-s + c_v d^κ / n, times e^(noise). */
static size_t sweep(struct ha_run *runs, uint64_t seed)
{
	static const uint64_t heads[] = {4, 8, 16, 32};
	static const double tokens[] = {1e8, 3e8, 1e9};
	size_t m = 0;
	for (int h = 0; h < 4; h++)
		for (int t = 0; t < 3; t++, m++) {
			double d = 256.0 / (double)heads[h], n = tokens[t];
			double loss = 1.7 + 400.0 * pow(n, -0.34) + 0.5 / d +
			              10.0 * d * d / n;
			runs[m] = (struct ha_run){heads[h], 256 / heads[h], n,
			                          loss * exp(NOISE * normal(&seed)),
			                          NAN, 0};
		}
	return m;
}

static double rms_of(const struct ha_run *runs, size_t m,
                     const struct ha_cal_law *law)
{
	struct ha_cal_fit fit;
	struct ha_error err;
	enum ha_status st = ha_cal_fit_runs(runs, m, law, INFINITY, &fit, &err);
	cr_assert_eq(st, HA_OK, "%s: %s", law->name, err.message);
	/* The residuals recomputed from the fitted values by the formula of
	 * headalloc-model(7), in long double, apart from the library. */
	const double *v = fit.law.value;
	double sum = 0.0;
	for (size_t i = 0; i < m; i++) {
		long double d = (long double)runs[i].head_dim, n = runs[i].samples;
		long double rho = 1.0L - v[HA_CAL_HDI];
		long double l = v[HA_CAL_IRREDUCIBLE] +
			v[HA_CAL_DATA_COEF] * powl(n, -(long double)v[HA_CAL_DATA_POWER]) +
			expl(v[HA_CAL_BIAS_COEF] - v[HA_CAL_SMOOTHNESS] * logl(d)) +
			expl(v[HA_CAL_VAR_COEF] +
			     (v[HA_CAL_VAR_RATE] * d + v[HA_CAL_VAR_POWER]) * logl(d) -
			     v[HA_CAL_VAR_SAMPLES_POWER] * logl(n)) *
			(rho + (1.0L - rho) / (long double)runs[i].heads);
		double r = (double)(logl((long double)runs[i].loss) - logl(l));
		sum += r * r;
	}
	double rms = sqrt(sum / (double)m);
	cr_assert(fabs(rms - fit.rms) <= 1e-9 * fmax(rms, 1e-12),
	          "%s: rms %g, the fit's %g", law->name, rms, fit.rms);
	ha_cal_fit_finish(&fit);
	return rms;
}

Test(calibrate_data, a_learning_curve_sweep_fits_to_its_noise_with_the_data_term,
     .timeout = 300)
{
	struct ha_run runs[12];
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	struct ha_cal_law laws[HA_CAL_LADDER];
	cr_assert_eq(ha_cal_ladder(&o.law, laws), HA_CAL_LADDER);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		size_t m = sweep(runs, seed);
		double old_best = INFINITY, data_best = INFINITY;
		for (int l = 0; l < HA_CAL_LADDER; l++) {
			double rms = rms_of(runs, m, &laws[l]);
			int data = laws[l].free[HA_CAL_DATA_COEF];
			cr_log_info("seed %llu %-12s rms log residual %.3g",
			            (unsigned long long)seed, laws[l].name, rms);
			if (data)
				data_best = fmin(data_best, rms);
			else
				old_best = fmin(old_best, rms);
		}
		/* Least squares with k free parameters leaves about
		 * NOISE sqrt((m - k)/m) of rms: at most the noise, with room
		 * for an unlucky draw. */
		cr_assert_lt(data_best, 1.5 * NOISE, "seed %llu: data laws %g",
		             (unsigned long long)seed, data_best);
		cr_assert_gt(old_best, 5.0 * NOISE, "seed %llu: old laws %g",
		             (unsigned long long)seed, old_best);
	}
}
