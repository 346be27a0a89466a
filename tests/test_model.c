/* The error model against values computed by hand from headalloc-model(7), THE ERROR MODEL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "alloc/solver_internal.h"
#include <headalloc/model.h>
#include <headalloc/solver.h>
#include "alloc/model_internal.h"

static struct ha_model model_with(double s, double cb, double cv, double hdi)
{
	struct ha_model m = ha_model_defaults();
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

/* ln f at x and d ln f / dx, from the objective in u = ln x. */
static double log_relaxed_in_x(const struct ha_model *m, double samples,
                               double budget, double x, double *grad)
{
	double log_f = ha_model_log_relaxed_ln(m, samples, budget, log(x), grad);
	if (grad)
		*grad /= x;
	return log_f;
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
	double n_samples = 1e8;
	struct ha_model m = model_with(2, 1, 1, 1);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 8, &t), HA_OK);
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
	double n_samples = 1e6;
	struct ha_model m = model_with(1.5, 3, 0.5, 0.25);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 48, 4, &t), HA_OK);
	double var = 8e-6;
	assert_rel(t.bias2, 3.0 / 8.0, 1e-15);
	assert_rel(t.variance, var / 12, 1e-15);
	assert_rel(t.covariance, (1 - 1.0 / 12) * 0.75 * var, 1e-15);
	assert_rel(t.mse, 3.0 / 8.0 + var * (0.75 + 0.25 / 12), 1e-15);
	assert_rel(exp(t.log_covariance), t.covariance, 1e-14);
	assert_rel(3.0 * exp(ha_model_log_relative_mse(&m, n_samples, 48, 4, 12)), t.mse, 1e-14);
}

Test(model, hdi_zero_gives_no_variance_reduction)
{
	double n_samples = 1e4;
	struct ha_model m = model_with(2, 1, 1, 0);
	struct ha_terms t;
	ha_model_eval(&m, n_samples, 64, 4, &t);
	/* variance + covariance = var(d) whatever H. */
	assert_rel(t.variance + t.covariance, 16.0 / 1e4, 1e-14);
}

Test(model, single_head_has_no_covariance)
{
	double n_samples = 1e4;
	struct ha_model m = model_with(2, 1, 1, 0.3);
	struct ha_terms t;
	ha_model_eval(&m, n_samples, 16, 16, &t);
	cr_assert_eq(t.covariance, 0.0);
	assert_rel(t.variance, pow(16, 8) / 1e4, 1e-14);
}

Test(model, values_beyond_a_double_stay_exact_in_log_space)
{
	/* d = 512: var = 512^256 / n = 2^2304 / 1e8, far beyond a double. */
	double n_samples = 1e8;
	struct ha_model m = model_with(2, 1, 1, 1);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 512, &t), HA_OK);
	cr_assert(isinf(t.mse) && t.mse > 0);
	cr_assert(isinf(t.variance));
	double want = 2304 * log(2.0) - log(1e8);
	assert_rel(t.log_variance, want, 1e-15);
	assert_rel(t.log_mse, want, 1e-15);
	cr_assert(isfinite(t.log_mse));
}

Test(model, largest_budget_and_samples_are_finite_in_log_space)
{
	double n_samples = 1e300;
	struct ha_model m = model_with(0.01, 1e-300, 1e300, 0.5);
	uint64_t D = UINT64_C(4611686018427387904); /* 2^62 */
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, D, D, &t), HA_OK);
	cr_assert(isfinite(t.log_mse));
	cr_assert(isfinite(t.log_bias2) && isfinite(t.log_variance));
	cr_assert_eq(ha_model_eval(&m, n_samples, D, 1, &t), HA_OK);
	cr_assert(isfinite(t.log_mse) && isfinite(t.mse));
	cr_assert(!isnan(t.covariance));
}

Test(model, validate_rejects_each_bad_field)
{
	struct ha_model good = ha_model_defaults();
	double bad_samples[] = {1.0, 0.5, -3, NAN, INFINITY, 1e301};
	for (size_t i = 0; i < sizeof bad_samples / sizeof *bad_samples; i++) {
		cr_assert_eq(ha_samples_validate(bad_samples[i]), HA_EINVAL, "samples %g",
		             bad_samples[i]);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&good, bad_samples[i], 64, 8, &t), HA_EINVAL);
	}
	cr_assert_eq(ha_samples_validate(1e300), HA_OK);
	cr_assert_eq(ha_samples_validate(nextafter(1.0, 2.0)), HA_OK);
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
	double n_samples = HA_SAMPLES_DEFAULT;
	struct ha_model m = ha_model_defaults();
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 3, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 0, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval(&m, n_samples, 0, 1, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval(&m, n_samples, UINT64_MAX, 1, &t), HA_EINVAL);
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
	double n_samples = 3e7;
	struct ha_model m = model_with(2.5, 2, 0.7, 0.6);
	struct ha_terms t;
	ha_model_eval(&m, n_samples, 1024, 16, &t);
	double grad;
	assert_rel(log_relaxed_in_x(&m, n_samples, 1024, 16, &grad), t.log_mse, 1e-14);
	/* Central difference of ln f. */
	double h = 1e-6, x = 13.3;
	double fd = (log_relaxed_in_x(&m, n_samples, 1024, x + h, NULL) -
	             log_relaxed_in_x(&m, n_samples, 1024, x - h, NULL)) / (2 * h);
	log_relaxed_in_x(&m, n_samples, 1024, x, &grad);
	cr_assert(fabs(fd - grad) < 1e-7 * (1 + fabs(grad)), "fd %g grad %g", fd, grad);
}

/* ---- the generalised model of headalloc-model(7), CALIBRATION (The parameters) ---------------------- */

Test(model, new_parameters_default_to_the_seeds_model)
{
	struct ha_model m = ha_model_defaults();
	cr_assert_eq(m.irreducible, 0.0);
	cr_assert_eq(m.var_rate, 0.5);
	cr_assert_eq(m.var_power, 0.0);
	cr_assert_eq(m.bias_coef_is_log, 0);
	cr_assert_eq(m.var_coef_is_log, 0);
	cr_assert_eq(ha_model_log_bias_coef(&m), 0.0);
	cr_assert_eq(ha_model_log_var_coef(&m), 0.0);
}

Test(model, validate_rejects_bad_new_fields)
{
	struct ha_model good = ha_model_defaults();
	double not_finite[] = {NAN, INFINITY, -INFINITY};
	for (size_t i = 0; i < 3; i++) {
		struct ha_model m = good;
		m.irreducible = not_finite[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
		m = good;
		ha_model_set_log_bias_coef(&m, not_finite[i]);
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
		m = good;
		ha_model_set_log_var_coef(&m, not_finite[i]);
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
	}
	/* A log may be any finite number, zero and negatives included; a
	 * plain coefficient must be positive; a form is 0 or 1. */
	struct ha_model f = good;
	ha_model_set_log_var_coef(&f, -1598.0);
	cr_assert_eq(ha_model_validate(&f), HA_OK);
	f.var_coef_is_log = 0;
	cr_assert_eq(ha_model_validate(&f), HA_EINVAL);
	f = good;
	f.bias_coef_is_log = 2;
	cr_assert_eq(ha_model_validate(&f), HA_EINVAL);
	double bad_rate[] = {-1e-300, -1.0, NAN, INFINITY};
	for (size_t i = 0; i < 4; i++) {
		struct ha_model m = good;
		m.var_rate = bad_rate[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
		m = good;
		m.var_power = bad_rate[i];
		cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
	}
	/* E >= 0: a negative E would predict a negative error as n, d grow. */
	struct ha_model m = good;
	m.irreducible = -1e-300;
	cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
	m.irreducible = 0.0;
	m.var_rate = 0.0;
	m.var_power = 3.0;
	cr_assert_eq(ha_model_validate(&m), HA_OK);
}

Test(model, generalised_variance_by_hand)
{
	/* γ = 0.25, κ = 1.5, c_v = 2, n = 1e3, d = 16, D = 64 (H = 4),
	 * hdi = 0.5: var = 2 * 16^(4 + 1.5) / 1e3 = 2 * 2^22 / 1e3. */
	double n_samples = 1e3;
	struct ha_model m = model_with(1.0, 3.0, 2.0, 0.5);
	m.var_rate = 0.25;
	m.var_power = 1.5;
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 64, 16, &t), HA_OK);
	double var = 2.0 * 4194304.0 / 1e3;
	assert_rel(t.bias2, 3.0 / 16.0, 1e-15);
	assert_rel(t.variance, var / 4.0, 1e-15);
	assert_rel(t.covariance, 0.75 * 0.5 * var, 1e-15);
	assert_rel(t.mse, 3.0 / 16.0 + var * (0.5 + 0.5 / 4.0), 1e-15);
	assert_rel(t.log_variance, log(var / 4.0), 1e-15);
	cr_assert_eq(t.mse, t.reducible);
	cr_assert_eq(t.irreducible, 0.0);
}

Test(model, irreducible_shifts_the_error_and_nothing_else)
{
	double n_samples = 1e5;
	struct ha_model m = model_with(2, 1, 1, 1);
	struct ha_terms base, t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 8, &base), HA_OK);
	m.irreducible = 1.75;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 8, &t), HA_OK);
	cr_assert_eq(t.bias2, base.bias2);
	cr_assert_eq(t.variance, base.variance);
	cr_assert_eq(t.reducible, base.mse);
	cr_assert_eq(t.log_reducible, base.log_mse);
	cr_assert_eq(t.irreducible, 1.75);
	assert_rel(t.mse, 1.75 + base.mse, 1e-15);
	assert_rel(t.log_mse, log(1.75 + base.mse), 1e-15);
	/* E leaves the comparison key alone: it moves no argmin. */
	cr_assert_eq(ha_model_log_relative_mse(&m, n_samples, 512, 8, 64),
	             ha_model_log_relative_mse(&(struct ha_model){
	                 .smoothness = 2, .bias_coef = 1, .var_coef = 1, .hdi = 1,
	                 .var_rate = 0.5, .data_power = 0.28,
	                 .var_samples_power = 1}, n_samples, 512, 8, 64));
	/* A huge E: the log stays exact where the plain sum rounds. */
	m.irreducible = 1e300;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 8, &t), HA_OK);
	assert_rel(t.log_mse, log(1e300), 1e-15);
	cr_assert(isfinite(t.log_reducible));
}

Test(model, coefficients_beyond_a_double_are_carried_as_logs)
{
	/* ln c_v = -1578 (a calibrated value): c_v underflows a double, its
	 * log does not; the set/get pair is exact. */
	struct ha_model m = ha_model_defaults();
	double n_samples = 1e9;
	ha_model_set_log_var_coef(&m, -1578.25);
	ha_model_set_log_bias_coef(&m, 800.5);
	cr_assert_eq(ha_model_log_var_coef(&m), -1578.25);
	cr_assert_eq(ha_model_log_bias_coef(&m), 800.5);
	cr_assert_eq(ha_model_validate(&m), HA_OK);
	struct ha_terms t;
	uint64_t d = 512;
	cr_assert_eq(ha_model_eval(&m, n_samples, 4096, d, &t), HA_OK);
	double log_var = -1578.25 + 256.0 * log(512.0) - log(1e9);
	assert_rel(t.log_variance, log_var - log(8.0), 1e-15);
	assert_rel(t.log_bias2, 800.5 - 2.0 * log(512.0), 1e-15);
	cr_assert(isinf(t.bias2) && isinf(t.mse));
	cr_assert(isfinite(t.log_mse));
	/* A coefficient is one number in one form: the plain 5 e^2 and its
	 * log give the same error; a log of 0 is the plain 1, bit for bit. */
	struct ha_model p = ha_model_defaults();
	p.var_coef = 5.0 * exp(2.0);
	assert_rel(ha_model_log_var_coef(&p), log(5.0) + 2.0, 1e-15);
	struct ha_model q = ha_model_defaults();
	ha_model_set_log_var_coef(&q, log(5.0) + 2.0);
	cr_assert_eq(q.var_coef_is_log, 1);
	cr_assert_eq(ha_model_log_var_coef(&q), log(5.0) + 2.0);
	struct ha_terms tp, tq;
	cr_assert_eq(ha_model_eval(&p, HA_SAMPLES_DEFAULT, 64, 8, &tp), HA_OK);
	cr_assert_eq(ha_model_eval(&q, HA_SAMPLES_DEFAULT, 64, 8, &tq), HA_OK);
	assert_rel(tp.mse, tq.mse, 1e-14);
	assert_rel(tp.variance, 5.0 * exp(2.0) * pow(8, 4) / 1e8 / 8.0, 1e-14);
	struct ha_model z = ha_model_defaults(), one = ha_model_defaults();
	ha_model_set_log_bias_coef(&z, 0.0);
	cr_assert(memcmp(&z, &one, sizeof z) == 0);
}

Test(model, generalised_relaxed_objective_and_its_gradient)
{
	double n_samples = 3e4;
	struct ha_model m = model_with(1.3, 2, 0.7, 0.6);
	m.var_rate = 0.1;
	m.var_power = 0.7;
	m.irreducible = 0.25;
	ha_model_set_log_var_coef(&m, -3.0);
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 1024, 16, &t), HA_OK);
	double grad;
	assert_rel(log_relaxed_in_x(&m, n_samples, 1024, 16, &grad), t.log_mse, 1e-14);
	double h = 1e-6, x = 13.3;
	double fd = (log_relaxed_in_x(&m, n_samples, 1024, x + h, NULL) -
	             log_relaxed_in_x(&m, n_samples, 1024, x - h, NULL)) / (2 * h);
	log_relaxed_in_x(&m, n_samples, 1024, x, &grad);
	cr_assert(fabs(fd - grad) < 1e-7 * (1 + fabs(grad)), "fd %g grad %g", fd, grad);
	/* The prepared function leaves E out: ln(f - E). */
	struct ha_relaxed_fn fn;
	ha_relaxed_fn_init(&fn, &m, n_samples, 1024);
	double g2;
	double log_r = ha_relaxed_fn_eval(&fn, log(16.0), &g2);
	assert_rel(log_r, t.log_reducible, 1e-14);
	double u = log(x), hu = 1e-6;
	double fdu = (ha_relaxed_fn_eval(&fn, u + hu, NULL) -
	              ha_relaxed_fn_eval(&fn, u - hu, NULL)) / (2 * hu);
	ha_relaxed_fn_eval(&fn, u, &g2);
	cr_assert(fabs(fdu - g2) < 1e-7 * (1 + fabs(g2)), "fd %g grad %g", fdu, g2);
}

Test(model, unimodality_hypotheses)
{
	struct ha_model m = ha_model_defaults();
	cr_assert(ha_model_unimodal_on(&m, 1.0));
	cr_assert(ha_model_unimodal_on(&m, 64.0));
	cr_assert(!ha_model_unimodal_on(&m, 0.5));
	cr_assert(!ha_model_unimodal_on(&m, NAN));
	cr_assert(!ha_model_unimodal_on(NULL, 1.0));
	struct ha_model b = m;
	b.var_rate = 0.0;
	b.var_power = 0.3; /* not log-convex, still unimodal (proof in model.c) */
	b.irreducible = 4.0;
	ha_model_set_log_var_coef(&b, -1500.0);
	cr_assert(ha_model_unimodal_on(&b, 1.0));
	b = m;
	b.var_rate = -0.1;
	cr_assert(!ha_model_unimodal_on(&b, 1.0));
	b = m;
	b.var_power = -0.1;
	cr_assert(!ha_model_unimodal_on(&b, 1.0));
	b = m;
	b.smoothness = 0.0;
	cr_assert(!ha_model_unimodal_on(&b, 1.0));
	b = m;
	b.hdi = 1.5;
	cr_assert(!ha_model_unimodal_on(&b, 1.0));
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return *s >> 11;
}

static double unit(uint64_t *s)
{
	return (double)lcg(s) / 9007199254740992.0;
}

/* The theorem behind ha_model_unimodal_on, checked numerically and apart
 * from the solver: over every divisor of D, for random s, γ, κ, hdi,
 * coefficients and n, ln(MSE/c_b) falls and then rises (allowing the
 * 1e-12 band of rounding). */
Test(model, the_relaxed_objective_is_unimodal_over_the_divisors)
{
	static const uint64_t budgets[] = {720720, 65536, 4096, 1081080, 97};
	uint64_t *divisors[5];
	size_t counts[5];
	for (int b = 0; b < 5; b++)
		cr_assert_eq(ha_divisors(budgets[b], &divisors[b], &counts[b]), HA_OK);
	uint64_t s = 7;
	for (int trial = 0; trial < 3000; trial++) {
		struct ha_model m = ha_model_defaults();
		double n_samples = exp(log(2.0) + unit(&s) * log(1e30));
		m.smoothness = exp(log(0.02) + unit(&s) * log(400.0));
		int shape = (int)(lcg(&s) % 4);
		m.var_rate = shape == 0 ? 0.0 : shape == 1 ? 0.02 * unit(&s) : 2.0 * unit(&s);
		m.var_power = lcg(&s) % 3 == 0 ? 0.0 : lcg(&s) % 2 ? unit(&s) : 10.0 * unit(&s);
		m.hdi = lcg(&s) % 3 == 0 ? 1.0 : unit(&s);
		ha_model_set_log_bias_coef(&m, 40.0 * unit(&s) - 20.0);
		ha_model_set_log_var_coef(&m, 80.0 * unit(&s) - 40.0);
		m.irreducible = unit(&s);
		cr_assert(ha_model_unimodal_on(&m, 1.0));
		uint64_t D = budgets[trial % 5];
		double prev = INFINITY;
		int rising = 0;
		for (size_t i = 0; i < counts[trial % 5]; i++) {
			uint64_t d = divisors[trial % 5][i];
			double v = ha_model_log_relative_mse(&m, n_samples, D, d, D / d);
			double band = 1e-12 * fmax(1.0, fabs(v));
			if (rising)
				cr_assert(v >= prev - band, "trial %d d %llu falls again", trial,
				          (unsigned long long)d);
			else if (v > prev + band)
				rising = 1;
			prev = v;
		}
	}
	for (int b = 0; b < 5; b++)
		free(divisors[b]);
}

/* ---- the data term A n^-α and the variance's n^β ---------------------- */

/* ln L by the formula of headalloc-model(7), CALIBRATION, in long double,
 * written apart from the library. */
static long double log_loss_ld(const struct ha_model *m, double samples,
                               uint64_t D, uint64_t d)
{
	long double x = (long double)d, H = (long double)(D / d);
	long double n = (long double)samples, rho = 1.0L - (long double)m->hdi;
	long double bias = (long double)m->bias_coef * powl(x, -(long double)m->smoothness);
	long double var = (long double)m->var_coef *
	                  powl(x, (long double)m->var_rate * x + (long double)m->var_power) /
	                  powl(n, (long double)m->var_samples_power);
	long double data = (long double)m->data_coef * powl(n, -(long double)m->data_power);
	return logl((long double)m->irreducible + data + bias +
	            var * (rho + (1.0L - rho) / H));
}

Test(model, data_term_defaults_and_domain)
{
	double n_samples = HA_SAMPLES_DEFAULT;
	struct ha_model m = ha_model_defaults();
	cr_assert_eq(m.data_coef, 0.0);
	cr_assert_eq(m.data_power, 0.28);
	cr_assert_eq(m.var_samples_power, 1.0);
	cr_assert_eq(ha_model_log_constant(&m, HA_SAMPLES_DEFAULT), -INFINITY);
	struct ha_model b = m;
	b.data_coef = -1e-300;
	cr_assert_eq(ha_model_validate(&b), HA_EINVAL);
	b = m;
	b.data_coef = INFINITY;
	cr_assert_eq(ha_model_validate(&b), HA_EINVAL);
	double bad[] = {0.0, -0.5, NAN, INFINITY};
	for (int i = 0; i < 4; i++) {
		b = m;
		b.data_power = bad[i];
		cr_assert_eq(ha_model_validate(&b), HA_EINVAL);
		b = m;
		b.var_samples_power = bad[i];
		cr_assert_eq(ha_model_validate(&b), HA_EINVAL);
	}
	/* The defaults compute what the seeds' model did, bit for bit: β = 1
	 * and A = 0 against the same model with the fields unset by hand. */
	struct ha_terms t;
	cr_assert_eq(ha_model_eval(&m, n_samples, 512, 8, &t), HA_OK);
	cr_assert_eq(t.data, 0.0);
	cr_assert_eq(t.mse, 1.0 / 64 + 4.096e-5 / 64);
	cr_assert_eq(t.log_mse, t.log_reducible);
}

Test(model, data_term_and_samples_power_against_long_double)
{
	uint64_t s = 11;
	static const uint64_t budgets[] = {256, 4096, 720720};
	for (int trial = 0; trial < 500; trial++) {
		struct ha_model m = ha_model_defaults();
		double n_samples = exp(log(2.0) + unit(&s) * log(1e12));
		m.smoothness = 0.5 + 3.0 * unit(&s);
		m.bias_coef = exp(4.0 * unit(&s) - 2.0);
		m.var_coef = exp(4.0 * unit(&s) - 2.0);
		m.hdi = unit(&s);
		m.var_rate = trial % 2 ? 0.0 : 0.05 * unit(&s);
		m.var_power = 3.0 * unit(&s);
		m.irreducible = trial % 3 ? unit(&s) : 0.0;
		m.data_coef = trial % 4 ? 10.0 * unit(&s) : 0.0;
		m.data_power = 0.05 + unit(&s);
		m.var_samples_power = 0.2 + 2.0 * unit(&s);
		cr_assert_eq(ha_model_validate(&m), HA_OK);
		uint64_t D = budgets[trial % 3];
		uint64_t d = D >> (lcg(&s) % 5);
		struct ha_terms t;
		cr_assert_eq(ha_model_eval(&m, n_samples, D, d, &t), HA_OK);
		long double want = log_loss_ld(&m, n_samples, D, d);
		cr_assert(fabsl((long double)t.log_mse - want) <= 1e-13L * fmaxl(1.0L, fabsl(want)),
		          "trial %d: log_mse %.17g, long double %.17Lg", trial, t.log_mse, want);
		if (isfinite(t.mse))
			assert_rel(t.mse, (double)expl(want), 1e-12); /* exp of a log near 690 */
		else
			cr_assert(want > 709.0L);
		assert_rel(t.data, m.data_coef * pow(n_samples, -m.data_power) + 0.0, 1e-15);
		/* The relaxed objective at x = d is the same L. */
		double lr = log_relaxed_in_x(&m, n_samples, (double)D, (double)d, NULL);
		cr_assert(fabsl((long double)lr - want) <= 1e-12L * fmaxl(1.0L, fabsl(want)),
		          "trial %d: relaxed %.17g, long double %.17Lg", trial, lr, want);
	}
}

/* A n^-α moves no argmin and β is exact: the solver's integer optimum is
 * the brute force minimum of the long double loss over every divisor, and
 * the same with and without the data term. */
Test(model, data_term_moves_no_argmin_and_beta_solves_exactly)
{
	uint64_t s = 5;
	static const uint64_t budgets[] = {512, 4096, 1000, 720720};
	for (int trial = 0; trial < 200; trial++) {
		struct ha_model m = ha_model_defaults();
		double n_samples = exp(log(10.0) + unit(&s) * log(1e10));
		m.smoothness = 1.0 + 2.0 * unit(&s);
		m.hdi = unit(&s);
		m.var_samples_power = 0.3 + 1.5 * unit(&s);
		m.data_coef = 5.0 * unit(&s);
		m.data_power = 0.1 + unit(&s);
		uint64_t D = budgets[trial % 4];
		struct ha_solution with, without;
		cr_assert_eq(ha_solve(D, NULL, &m, n_samples, &with), HA_OK);
		struct ha_model plain_m = m;
		plain_m.data_coef = 0.0;
		cr_assert_eq(ha_solve(D, NULL, &plain_m, n_samples, &without), HA_OK);
		cr_assert_eq(with.optimum.head_dim, without.optimum.head_dim);
		cr_assert(fabs(with.relaxed.head_dim - without.relaxed.head_dim) <=
		          1e-9 * without.relaxed.head_dim);
		/* Brute force in long double (ties within 1e-12 to the smaller d,
		 * as the solver's rule; a near tie is skipped). */
		uint64_t *dv;
		size_t nd;
		cr_assert_eq(ha_divisors(D, &dv, &nd), HA_OK);
		uint64_t best = dv[0];
		long double best_v = log_loss_ld(&plain_m, n_samples, D, dv[0]), second = INFINITY;
		for (size_t i = 1; i < nd; i++) {
			long double v = log_loss_ld(&plain_m, n_samples, D, dv[i]);
			if (v < best_v) {
				second = best_v;
				best_v = v;
				best = dv[i];
			} else if (v < second) {
				second = v;
			}
		}
		free(dv);
		if (second - best_v > 1e-10L)
			cr_assert_eq(with.optimum.head_dim, best, "trial %d D %llu", trial,
			             (unsigned long long)D);
		/* The reported loss carries A n^-α. */
		long double want = log_loss_ld(&m, n_samples, D, with.optimum.head_dim);
		cr_assert(fabsl((long double)with.optimum.terms.log_mse - want) <= 1e-13L);
		cr_assert(with.relaxed.log_mse > log(m.data_coef * pow(n_samples, -m.data_power)) ||
		          m.data_coef == 0.0);
	}
}
