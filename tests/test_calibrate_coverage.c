/* The bootstrap's 95% intervals against the truth (headalloc-model(7), CALIBRATION (Uncertainty and identifiability)):
 * 200 synthetic data sets with Gaussian noise of known size in ln L, each
 * calibrated with B = 200 resamples; every free parameter's interval must
 * cover its true value in 90–99% of the data sets, by least squares (the
 * default) with the case bootstrap and with the residual bootstrap's
 * modified residuals (the table of headalloc-calibrate(1), COVERAGE,
 * measures more designs and the wild kind: bench/calibrate_coverage.c).
 * The window: binomial(200, 0.95) has sd 0.015, so 0.90 is 3.2 sd below
 * the nominal level and 0.99 is 2.6 above.  B = 200 rather than 1000
 * since every resample is refitted from the whole grid of starts, and
 * CI runs this test once on two cores.  The interval's ends
 * are then the 5th and 195th of 200 ordered refits: noisier ends, whose
 * error in coverage is O(1/B) (Hall 1986), small against the window.
 * Slow: registered in the meson suite 'slow'. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/calibrate.h>
#define CAL_TEST_SEED 0
#include "cal_random.h"

#define SETS 200
#define RESAMPLES 200
#define SIGMA 0.02

/* E = 1, c_b = 4, s = 1, a power-law variance (γ = 0, κ = 2) with
 * c_v = 0.5e4 / 4096; E, c_b, s, c_v free.  96 runs: d = 2..256, H in
 * {1, 4}, six n from 1e3 to 3e5.  (With half as many runs the percentile
 * intervals of least squares cover about 0.91: the small-sample
 * narrowness of the percentile bootstrap, too near the 0.90 edge.) */
static void coverage(enum ha_cal_bootstrap_kind kind, const char *label)
{
	static const uint64_t dims[] = {2, 4, 8, 16, 32, 64, 128, 256};
	static const uint64_t heads[] = {1, 4};
	static const double samples[] = {1e3, 3e3, 1e4, 3e4, 1e5, 3e5};
	const double th[HA_CAL_PARAMS] = {1.0, log(4.0), 1.0, log(0.5e4 / 4096.0),
	                                  0.0, 2.0, 1.0, 0.0, 0.28, 1.0};
	int covered[HA_CAL_PARAMS] = {0};
	rng_state = 20240611;
	for (int set = 0; set < SETS; set++) {
		struct ha_run runs[96];
		size_t m = 0;
		for (size_t a = 0; a < 8; a++)
			for (size_t b = 0; b < 2; b++)
				for (size_t c = 0; c < 6; c++) {
					double n_samples = samples[c];
					struct ha_model model = ha_cal_model_of(th);
					struct ha_terms t;
					cr_assert_eq(ha_model_eval(&model, n_samples, heads[b] * dims[a], dims[a], &t), HA_OK);
					runs[m++] = (struct ha_run){heads[b], dims[a], samples[c],
					                            t.mse * exp(SIGMA * gauss()), NAN, 0};
				}
		struct ha_cal_options o;
		ha_cal_options_defaults(&o);
		o.law.value[HA_CAL_VAR_RATE] = 0.0;
		o.law.value[HA_CAL_VAR_POWER] = 2.0;
		o.bootstrap_kind = kind;
		o.bootstrap = RESAMPLES;
		o.seed = (uint64_t)set + 1;
		o.compare = 0;
		struct ha_calibration *c = NULL;
		struct ha_error err;
		cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
		cr_assert_eq(c->bootstrap.fitted, RESAMPLES);
		for (int p = 0; p < HA_CAL_PARAMS; p++) {
			const struct ha_cal_estimate *e = &c->fit.param[p];
			if (!e->free)
				continue;
			cr_assert(e->has_ci);
			covered[p] += e->ci95[0] <= th[p] && th[p] <= e->ci95[1];
		}
		if (set == 0)
			for (int p = 0; p < HA_CAL_PARAMS; p++)
				if (c->fit.param[p].free)
					cr_log_info("%s set 0: %s true %.6g fitted %.6g se %.3g ci95 [%.6g, %.6g]",
					            label, c->fit.param[p].name, th[p],
					            c->fit.param[p].value, c->fit.param[p].se,
					            c->fit.param[p].ci95[0], c->fit.param[p].ci95[1]);
		ha_calibration_free(c);
	}
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		if (p > HA_CAL_VAR_COEF)
			continue;
		double share = (double)covered[p] / SETS;
		cr_log_info("%s: %s covered in %d of %d data sets (%.3f)", label,
		            ha_cal_param_str((enum ha_cal_param)p), covered[p], SETS, share);
		cr_expect(share >= 0.90 && share <= 0.99,
		          "%s: the 95%% interval of %s covered the truth in %.3f of the data sets",
		          label, ha_cal_param_str((enum ha_cal_param)p), share);
	}
}

Test(calibrate_coverage, cases, .timeout = 900)
{
	coverage(HA_CAL_BOOT_CASES, "cases");
}

Test(calibrate_coverage, residuals, .timeout = 900)
{
	coverage(HA_CAL_BOOT_RESIDUALS, "residuals");
}
