/* The planner's value estimator (src/lib/plan/plan_value.c) against
 * independent computations, on frames built by hand:
 *  - two samples whose optima differ: the expected posterior probability
 *    of the decision after one run is the integral over y of
 *    max(w1 N(y; mu1, s1), w2 N(y; mu2, s2)) (the predictive density
 *    cancels), computed here by the trapezoid rule on a fine grid;
 *  - a run every sample predicts alike is worth nothing, exactly;
 *  - a run that splits the samples by their optimum is worth 1 - p;
 *  - the decision's probability and regret against a direct sum.
 * Links the library's objects. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_internal.h"

struct bench {
	struct plan_posterior post;
	struct plan_frame f;
	size_t best[64];
	double gap[64 * 4];
	double weight[64], log_weight[64], sigma[64];
	double scratch[4 * 64 + 4];
	size_t drawn[40000];
	double eps[40000];
};

static void setup(struct bench *b, size_t samples, size_t allocs,
                  size_t outcomes, uint64_t seed)
{
	memset(b, 0, sizeof *b);
	b->post.count = samples;
	b->post.weight = b->weight;
	b->post.log_weight = b->log_weight;
	b->post.sigma = b->sigma;
	b->f.post = &b->post;
	b->f.allocs = allocs;
	b->f.best = b->best;
	b->f.loss_gap = b->gap;
	b->f.outcomes = outcomes;
	b->f.seed = seed;
	b->f.ess_bar = 0.0;
}

static void weights(struct bench *b, const double *w)
{
	for (size_t j = 0; j < b->post.count; j++) {
		b->weight[j] = w[j];
		b->log_weight[j] = log(w[j]);
	}
}

static double normal_pdf(double y, double mu, double s)
{
	double z = (y - mu) / s;
	return exp(-0.5 * z * z) / (s * 2.5066282746310002);
}

/* The integral of max(w1 N1, w2 N2) over y by the trapezoid rule. */
static double expected_max(double w1, double mu1, double s1, double w2,
                           double mu2, double s2)
{
	double lo = fmin(mu1 - 12 * s1, mu2 - 12 * s2);
	double hi = fmax(mu1 + 12 * s1, mu2 + 12 * s2);
	size_t n = 400000;
	double h = (hi - lo) / (double)n, sum = 0.0;
	for (size_t i = 0; i <= n; i++) {
		double y = lo + h * (double)i;
		double v = fmax(w1 * normal_pdf(y, mu1, s1), w2 * normal_pdf(y, mu2, s2));
		sum += (i == 0 || i == n) ? 0.5 * v : v;
	}
	return sum * h;
}

static struct plan_outcome_stats value_of(struct bench *b, const double *mu)
{
	plan_draw_samples(&b->f, b->drawn);
	plan_draw_noise(&b->f, 0, b->eps);
	struct plan_outcome_stats st;
	cr_assert_eq(plan_batch_value(&b->f, b->scratch, NULL, b->drawn, mu, b->eps,
	                              NULL, &st),
	             HA_OK);
	return st;
}

Test(plan_value, two_samples_against_the_integral)
{
	static const struct {
		double w1, mu1, s1, mu2, s2;
	} cases[] = {
		{0.7, 0.00, 0.01, 0.01, 0.01},
		{0.6, 0.00, 0.02, 0.01, 0.01},
		{0.9, 0.00, 0.01, 0.03, 0.01},
		{0.5, 0.00, 0.01, 0.005, 0.015},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		struct bench b;
		setup(&b, 2, 2, 40000, 7 + k);
		double w[2] = {cases[k].w1, 1.0 - cases[k].w1};
		weights(&b, w);
		b.sigma[0] = cases[k].s1;
		b.sigma[1] = cases[k].s2;
		b.best[0] = 0;
		b.best[1] = 1;
		double mu[2] = {cases[k].mu1, cases[k].mu2};
		struct plan_outcome_stats st = value_of(&b, mu);
		double exact = expected_max(w[0], mu[0], b.sigma[0], w[1], mu[1],
		                            b.sigma[1]);
		cr_assert(st.p_after_se > 0.0);
		cr_assert(fabs(st.p_after - exact) < 4.0 * st.p_after_se + 1e-9,
		          "case %zu: simulated %.6f +- %.6f, integral %.6f", k,
		          st.p_after, st.p_after_se, exact);
		cr_assert(exact >= fmax(w[0], w[1]) - 1e-9,
		          "the expected max cannot fall below the prior's");
	}
}

Test(plan_value, a_run_predicted_alike_is_worth_nothing)
{
	struct bench b;
	setup(&b, 6, 3, 512, 3);
	double w[6] = {0.3, 0.1, 0.2, 0.15, 0.05, 0.2};
	weights(&b, w);
	size_t best[6] = {0, 1, 2, 0, 1, 0};
	memcpy(b.best, best, sizeof best);
	double mu[6];
	for (size_t j = 0; j < 6; j++) {
		b.sigma[j] = 0.01;
		mu[j] = 0.75;
	}
	struct plan_outcome_stats st = value_of(&b, mu);
	double prob[3], p, regret;
	plan_decide(&b.f, b.weight, prob, &p, &regret);
	cr_assert(fabs(st.p_after - p) < 1e-12, "after %.17g, before %.17g",
	          st.p_after, p);
	cr_assert(fabs(st.p_after_se) < 1e-9);
}

Test(plan_value, a_run_that_splits_the_optima_decides)
{
	struct bench b;
	setup(&b, 8, 2, 1024, 11);
	double w[8];
	double mu_split[8], mu_weak[8], mu_flat[8];
	for (size_t j = 0; j < 8; j++) {
		w[j] = 1.0 / 8.0;
		b.best[j] = j < 5 ? 0 : 1;  /* p_correct 5/8 */
		b.sigma[j] = 0.01;
		mu_split[j] = b.best[j] ? 0.5 : 0.0;       /* 50 sigma apart */
		mu_weak[j] = b.best[j] ? 0.005 : 0.0;      /* half a sigma */
		mu_flat[j] = 0.2;
	}
	weights(&b, w);
	struct plan_outcome_stats split = value_of(&b, mu_split);
	struct plan_outcome_stats weak = value_of(&b, mu_weak);
	struct plan_outcome_stats flat = value_of(&b, mu_flat);
	cr_assert(fabs(split.p_after - 1.0) < 1e-12, "split: %.17g", split.p_after);
	cr_assert(split.p_after > weak.p_after && weak.p_after > flat.p_after,
	          "split %.6f, weak %.6f, flat %.6f", split.p_after, weak.p_after,
	          flat.p_after);
	cr_assert(fabs(flat.p_after - 5.0 / 8.0) < 1e-12);
}

Test(plan_value, decision_against_a_direct_sum)
{
	struct bench b;
	setup(&b, 10, 4, 2, 1);
	double w[10], total = 0.0;
	for (size_t j = 0; j < 10; j++) {
		w[j] = 1.0 + (double)((j * 7) % 5);
		total += w[j];
	}
	for (size_t j = 0; j < 10; j++)
		w[j] /= total;
	weights(&b, w);
	for (size_t j = 0; j < 10; j++) {
		b.best[j] = (j * 3) % 4;
		for (size_t a = 0; a < 4; a++)
			b.gap[j * 4 + a] = a == b.best[j] ? 0.0 : 0.01 * (double)(a + j % 3 + 1);
	}
	double prob[4], p, regret;
	size_t d = plan_decide(&b.f, b.weight, prob, &p, &regret);
	double direct[4] = {0};
	for (size_t j = 0; j < 10; j++)
		direct[b.best[j]] += w[j];
	size_t arg = 0;
	for (size_t a = 1; a < 4; a++)
		if (direct[a] > direct[arg])
			arg = a;
	double r = 0.0;
	for (size_t j = 0; j < 10; j++)
		r += w[j] * b.gap[j * 4 + arg];
	cr_assert_eq(d, arg);
	cr_assert(fabs(p - direct[arg]) < 1e-15);
	cr_assert(fabs(regret - r) < 1e-15);
}

Test(plan_value, the_draws_follow_the_weights)
{
	struct bench b;
	setup(&b, 3, 1, 40000, 5);
	double w[3] = {0.5, 0.3, 0.2};
	weights(&b, w);
	plan_draw_samples(&b.f, b.drawn);
	plan_draw_noise(&b.f, 0, b.eps);
	size_t count[3] = {0};
	double mean = 0.0, sq = 0.0;
	for (size_t o = 0; o < 40000; o++) {
		count[b.drawn[o]]++;
		mean += b.eps[o];
		sq += b.eps[o] * b.eps[o];
	}
	for (size_t j = 0; j < 3; j++) {
		double share = (double)count[j] / 40000.0;
		double se = sqrt(w[j] * (1.0 - w[j]) / 40000.0);
		cr_assert(fabs(share - w[j]) < 5.0 * se, "sample %zu: %.4f", j, share);
	}
	mean /= 40000.0;
	cr_assert(fabs(mean) < 5.0 / sqrt(40000.0));
	cr_assert(fabs(sq / 40000.0 - 1.0) < 0.05);
}

Test(plan_value, degenerate_outcomes_are_tempered_to_the_bar)
{
	struct bench b;
	setup(&b, 8, 2, 512, 13);
	double w[8], mu[8];
	for (size_t j = 0; j < 8; j++) {
		w[j] = 1.0 / 8.0;
		b.best[j] = j < 5 ? 0 : 1;
		b.sigma[j] = 0.01;
		mu[j] = 0.03 * (double)j; /* 3 sigma apart: every outcome singles one out */
	}
	weights(&b, w);
	struct plan_outcome_stats raw = value_of(&b, mu);
	b.f.ess_bar = 6.0;
	struct plan_outcome_stats tempered = value_of(&b, mu);
	cr_assert(raw.ess_mean < 6.0, "untempered ESS %.3f", raw.ess_mean);
	cr_assert_eq(tempered.degenerate, 512, "every outcome below the bar");
	cr_assert(fabs(tempered.ess_mean - raw.ess_mean) < 1e-12,
	          "the ESS reported is the untempered one");
	/* a posterior kept at 6 of 8 samples or more cannot be sure */
	cr_assert(tempered.p_after < raw.p_after, "tempered %.4f, raw %.4f",
	          tempered.p_after, raw.p_after);
	cr_assert(tempered.p_after > 5.0 / 8.0 - 4.0 * tempered.p_after_se);
	/* weights of ESS >= 6 put at most a on 5 samples and 1 - a on 3
	 * with a^2/5 + (1 - a)^2/3 <= 1/6, a <= (5 + sqrt 5)/8 = 0.9045;
	 * 3 samples hold less than that: no outcome's max P' exceeds it */
	cr_assert(tempered.p_after <= (5.0 + sqrt(5.0)) / 8.0 + 1e-12,
	          "tempered %.6f", tempered.p_after);
}
