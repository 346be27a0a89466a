/* The certificates' error bound (relaxed_root.c, THE SHORTCUT): the
 * computed stationarity function Q_c lies within E of Q, which is Q in
 * exact arithmetic on the root's own constants.  Q here is computed
 * independently in long double (64-bit significand: its own error is
 * 2^-11 of a double rounding), on random problems, at random points of
 * the interval and at the doubles around x*, where the shortcut's
 * certificates are placed. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "relaxed_problems.h"

#include "alloc/solver_internal.h"

/* Q at x from the root's constants, in long double. */
static long double q_long(const struct ha_relaxed_root *r, double x)
{
	long double X = x, u = logl(X);
	long double t1 = ((long double)r->rate * X + r->power) * u;
	long double a = (long double)r->share * X / r->budget;
	long double t2, dfactor;
	if (r->rho > 0.0) {
		t2 = logl(r->rho + a);
		dfactor = a / (r->rho + a);
	} else {
		t2 = u - r->log_budget;
		dfactor = 1.0L;
	}
	long double t3 = logl((long double)r->rate * X * (u + 1.0L) + r->power + dfactor);
	long double t4 = (long double)r->smoothness * u;
	return t1 + t4 + t2 + t3 + r->constant;
}

Test(relaxed_bound, the_computed_q_lies_within_its_bound, .timeout = 600)
{
	uint64_t rng = 20261202;
	size_t checked = 0;
	double worst = 0.0; /* the largest |Q_c - Q| / E seen */
	for (int problem = 0; problem < 2000; problem++) {
		uint64_t D = pick_budget(&rng);
		double n_samples;
		struct ha_model m = pick_model(&rng, &n_samples);
		struct ha_relaxed_fn fn;
		ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
		struct ha_relaxed_root root;
		ha_relaxed_root_init(&root, &fn, 1.0, (double)D);
		double root_x = ha_relaxed_root_solve(&root, NAN, 0.0);
		for (int k = 0; k < 40; k++) {
			double x = k < 20 ? root_x : exp(uniform(&rng, 0.0, log((double)D)));
			/* the doubles around x*: up to 2^12 ulps either side */
			if (k < 20 && k > 0) {
				int steps = (int)(next_random(&rng) % 4096);
				for (int i = 0; i < steps; i++)
					x = nextafter(x, k % 2 ? INFINITY : 0.0);
			}
			if (!(x >= 1.0 && x <= (double)D))
				continue;
			double e;
			double q = ha_relaxed_root_q(&root, x, &e);
			e *= 0.5;
			long double exact = q_long(&root, x);
			/* Q is -inf where the variance does not grow with d (γ = κ = 0
			 * and ρ = 1): no certificate is had there, nor needed. */
			if (!isfinite(q)) {
				cr_assert(!(q + 2.0 * e < 0.0) && !(q - 2.0 * e >= 0.0),
				          "D=%llu x=%.17g: q %.17g certified", (unsigned long long)D, x, q);
				continue;
			}
			cr_assert(isfinite(e) && e > 0.0,
			          "D=%llu x=%.17g: q %.17g, E %.17g", (unsigned long long)D, x, q, e);
			double error = (double)fabsl((long double)q - exact);
			cr_assert(error <= e, "D=%llu n=%.17g s=%.17g γ=%.17g κ=%.17g hdi=%.17g "
			          "x=%.17g: |Q_c - Q| = %.3g above E = %.3g",
			          (unsigned long long)D, n_samples, m.smoothness, m.var_rate,
			          m.var_power, m.hdi, x, error, e);
			if (error / e > worst)
				worst = error / e;
			checked++;
		}
	}
	cr_log_info("%zu points, the largest |Q_c - Q| / E %.3g", checked, worst);
	cr_assert_gt(checked, 60000);
	/* The check has teeth: the errors reach a fair part of the bound
	 * (a bound a hundred times too small would have failed above). */
	cr_assert_gt(worst, 0.01, "largest |Q_c - Q| / E: %.3g", worst);
}
