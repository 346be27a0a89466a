/* The error model against values computed by hand from spec §2. */
#include <math.h>

#include <criterion/criterion.h>

#include <headalloc/model.h>

static struct ha_model model_with(double n, double s, double cb, double cv,
                                  double hdi)
{
	struct ha_model m = ha_model_defaults();
	m.samples = n;
	m.smoothness = s;
	m.bias_coef = cb;
	m.var_coef = cv;
	m.hdi = hdi;
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	return m;
}

static void assert_rel(double got, double want, double tol)
{
	cr_assert(fabs(got - want) <= tol * fabs(want),
	          "got %.17g, want %.17g (relative tolerance %g)", got, want, tol);
}

Test(model, defaults_match_the_spec)
{
	struct ha_model m = ha_model_defaults();
	cr_assert_eq(m.smoothness, 2.0);
	cr_assert_eq(m.bias_coef, 1.0);
	cr_assert_eq(m.var_coef, 1.0);
	cr_assert_eq(m.hdi, 1.0);
	cr_assert_eq(ha_model_validate(&m), HA_OK);
}

Test(model, d8_of_512_at_1e8)
{
	/* bias2 = 8^-2 = 1/64; var = 8^4 / 1e8 = 4.096e-5; H = 64. */
	struct ha_model m = model_with(1e8, 2, 1, 1, 1);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, 512, 8, &t), HA_OK);
	assert_rel(t.bias2, 1.0 / 64, 1e-15);
	assert_rel(t.variance, 4.096e-5 / 64, 1e-15);
	cr_assert_eq(t.covariance, 0.0);
	cr_assert_eq(t.log_covariance, -INFINITY);
	assert_rel(t.mse, 1.0 / 64 + 6.4e-7, 1e-15);
	assert_rel(t.log_mse, log(1.0 / 64 + 6.4e-7), 1e-15);
}

Test(model, coefficients_and_correlated_heads)
{
	/* s = 1.5, c_b = 3, c_v = 0.5, hdi = 0.25 (rho = 0.75), n = 1e6,
	 * D = 48, d = 4, H = 12: var = 0.5 * 4^2 / 1e6 = 8e-6. */
	struct ha_model m = model_with(1e6, 1.5, 3, 0.5, 0.25);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, 48, 4, &t), HA_OK);
	double var = 8e-6;
	assert_rel(t.bias2, 3.0 / 8.0, 1e-15);
	assert_rel(t.variance, var / 12, 1e-15);
	assert_rel(t.covariance, (1 - 1.0 / 12) * 0.75 * var, 1e-15);
	assert_rel(t.mse, 3.0 / 8.0 + var * (0.75 + 0.25 / 12), 1e-15);
	assert_rel(exp(t.log_covariance), t.covariance, 1e-14);
	assert_rel(3.0 * exp(ha_model_log_relative_mse(&m, 48, 4)), t.mse, 1e-14);
}

Test(model, hdi_zero_gives_no_variance_reduction)
{
	struct ha_model m = model_with(1e4, 2, 1, 1, 0);
	struct ha_terms t;
	ha_model_eval(&m, 64, 4, &t);
	/* variance + covariance = var(d) whatever H. */
	assert_rel(t.variance + t.covariance, 16.0 / 1e4, 1e-14);
}

Test(model, single_head_has_no_covariance)
{
	struct ha_model m = model_with(1e4, 2, 1, 1, 0.3);
	struct ha_terms t;
	ha_model_eval(&m, 16, 16, &t);
	cr_assert_eq(t.covariance, 0.0);
	assert_rel(t.variance, pow(16, 8) / 1e4, 1e-14);
}

Test(model, values_beyond_a_double_stay_exact_in_log_space)
{
	/* d = 512: var = 512^256 / n = 2^2304 / 1e8, far beyond a double. */
	struct ha_model m = model_with(1e8, 2, 1, 1, 1);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, 512, 512, &t), HA_OK);
	cr_assert(isinf(t.mse) && t.mse > 0);
	cr_assert(isinf(t.variance));
	double want = 2304 * log(2.0) - log(1e8);
	assert_rel(t.log_variance, want, 1e-15);
	assert_rel(t.log_mse, want, 1e-15);
	cr_assert(isfinite(t.log_mse));
}

Test(model, largest_budget_and_samples_are_finite_in_log_space)
{
	struct ha_model m = model_with(1e300, 0.01, 1e-300, 1e300, 0.5);
	uint64_t D = UINT64_C(4611686018427387904); /* 2^62 */
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, D, D, &t), HA_OK);
	cr_assert(isfinite(t.log_mse));
	cr_assert(isfinite(t.log_bias2) && isfinite(t.log_variance));
	cr_assert_eq(ha_model_eval(&m, D, 1, &t), HA_OK);
	cr_assert(isfinite(t.log_mse) && isfinite(t.mse));
	cr_assert(!isnan(t.covariance));
}

Test(model, validate_rejects_each_bad_field)
{
	struct ha_model good = ha_model_defaults();
	double bad_samples[] = {1.0, 0.5, -3, NAN, INFINITY, 1e301};
	for (size_t i = 0; i < sizeof bad_samples / sizeof *bad_samples; i++) {
		struct ha_model m = good;
		m.samples = bad_samples[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL, "samples %g", bad_samples[i]);
	}
	double bad_positive[] = {0.0, -1.0, NAN, INFINITY};
	for (size_t i = 0; i < 4; i++) {
		struct ha_model m = good;
		m.smoothness = bad_positive[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
		m = good;
		m.bias_coef = bad_positive[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
		m = good;
		m.var_coef = bad_positive[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
	}
	double bad_hdi[] = {-0.01, 1.01, NAN};
	for (size_t i = 0; i < 3; i++) {
		struct ha_model m = good;
		m.hdi = bad_hdi[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
	}
	cr_assert_eq(ha_model_validate(NULL), HA_EINVAL);
}

Test(model, eval_rejects_non_divisors)
{
	struct ha_model m = ha_model_defaults();
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, 512, 3, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval(&m, 512, 0, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval(&m, 0, 1, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval(&m, UINT64_MAX, 1, &t), HA_EINVAL);
}

Test(model, log_add_handles_infinities)
{
	cr_assert_eq(ha_log_add(-INFINITY, 3.0), 3.0);
	cr_assert_eq(ha_log_add(2.0, -INFINITY), 2.0);
	assert_rel(ha_log_add(1000.0, 1000.0), 1000.0 + log(2.0), 1e-15);
	cr_assert_eq(ha_exp_or_inf(1e6), INFINITY);
	cr_assert_eq(ha_exp_or_inf(-INFINITY), 0.0);
}

Test(model, relaxed_objective_matches_integer_model_and_its_gradient)
{
	struct ha_model m = model_with(3e7, 2.5, 2, 0.7, 0.6);
	struct ha_terms t;
	ha_model_eval(&m, 1024, 16, &t);
	double grad;
	assert_rel(ha_model_log_relaxed(&m, 1024, 16, &grad), t.log_mse, 1e-14);
	/* Central difference of ln f. */
	double h = 1e-6, x = 13.3;
	double fd = (ha_model_log_relaxed(&m, 1024, x + h, NULL) -
	             ha_model_log_relaxed(&m, 1024, x - h, NULL)) / (2 * h);
	ha_model_log_relaxed(&m, 1024, x, &grad);
	cr_assert(fabs(fd - grad) < 1e-7 * (1 + fabs(grad)), "fd %g grad %g", fd, grad);
}
