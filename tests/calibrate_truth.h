/* What the calibration tests share: runs generated from known parameters
 * through the allocator's model (not the calibration's own objective),
 * the seeds' parameters, the allocator's optimum as the oracle, and the
 * options of a quick fit (no bootstrap, no comparison).  Included by
 * test_calibrate.c, test_calibrate_refusals.c and test_calibrate_laws.c. */
#ifndef HA_TEST_CALIBRATE_TRUTH_H
#define HA_TEST_CALIBRATE_TRUTH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include <headalloc/calibrate.h>
#include <headalloc/solver.h>

#define MAX_RUNS 128

#include "cal_random.h"

/* The loss of (H, d, n) under th, through the allocator's model. */
static inline double loss_of(const double *th, uint64_t heads, uint64_t dim, double n)
{
	struct ha_model m = ha_cal_model_of(th);
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n, heads * dim, dim, &t), HA_OK);
	cr_assert(isfinite(t.mse) && t.mse > 0);
	return t.mse;
}

/* Runs on the grid dims x heads x samples, the combinations (a, b, c)
 * with a + b + c divisible by `stride` (so every d, H and n appears),
 * with multiplicative noise exp(sigma z). */
static inline size_t make_runs(struct ha_run *runs, const double *th,
                        const uint64_t *dims, size_t nd,
                        const uint64_t *heads, size_t nh,
                        const double *samples, size_t ns, size_t stride,
                        double sigma)
{
	size_t m = 0;
	for (size_t a = 0; a < nd; a++)
		for (size_t b = 0; b < nh; b++)
			for (size_t c = 0; c < ns; c++) {
				if ((a + b + c) % stride)
					continue;
				cr_assert_lt(m, MAX_RUNS);
				double l = loss_of(th, heads[b], dims[a], samples[c]);
				runs[m++] = (struct ha_run){heads[b], dims[a], samples[c],
				                            l * exp(sigma * gauss()), NAN, 0};
			}
	return m;
}

static inline struct ha_cal_law law_with(const double *th, const int *free)
{
	struct ha_cal_law law;
	memset(&law, 0, sizeof law);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		law.value[p] = th[p];
		law.free[p] = free[p];
	}
	return law;
}

static inline void assert_recovers(const struct ha_cal_fit *fit, const double *th,
                            double tol)
{
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		double got = fit->param[p].value;
		double err = fabs(got - th[p]);
		cr_assert(err <= tol * fmax(fabs(th[p]), 1e-3),
		          "%s: fitted %.17g, true %.17g", fit->param[p].name, got, th[p]);
	}
}

/* The optimum at the target under th, by the allocator (the oracle). */
static inline struct ha_allocation oracle(const double *th, const struct ha_cal_target *t)
{
	struct ha_model m = ha_cal_model_of(th);
	struct ha_solution sol;
	cr_assert_eq(ha_solve(t->budget, &t->constraints, &m, t->samples, &sol), HA_OK);
	return sol.optimum;
}

__attribute__((unused)) static const uint64_t dims_a[] = {4, 6, 8, 10, 12, 14, 16};
__attribute__((unused)) static const uint64_t heads_a[] = {2, 4, 8};
__attribute__((unused)) static const double samples_a[] = {1e4, 1e5, 1e6};

static inline void seeds_truth(double *th)
{
	th[HA_CAL_IRREDUCIBLE] = 1.5;
	th[HA_CAL_BIAS_COEF] = log(3.0);
	th[HA_CAL_SMOOTHNESS] = 1.0;
	th[HA_CAL_VAR_COEF] = log(0.25e5) - 6.0 * log(12.0);
	th[HA_CAL_VAR_RATE] = 0.5;
	th[HA_CAL_VAR_POWER] = 0.0;
	th[HA_CAL_HDI] = 1.0;
	th[HA_CAL_DATA_COEF] = 0.0; /* the data term's defaults: none */
	th[HA_CAL_DATA_POWER] = 0.28;
	th[HA_CAL_VAR_SAMPLES_POWER] = 1.0;
}


static inline struct ha_cal_options quick_options(void)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = 0;
	o.compare = 0;
	return o;
}

#endif
