/* The decision at the target and the value of a batch of runs for it
 * (headalloc-model(7), PLANNING).
 *
 * Under weights w over the posterior's samples, P(a optimal) = sum_j w_j
 * [a_j = a]; the decision is the allocation of the largest, p_correct
 * that probability, and the expected regret sum_j w_j (L_j(decision) -
 * L_j(a_j)).
 *
 * A batch's value is estimated by simulation: outcome o draws a sample
 * j_o by weight and, for each run of the batch, y = ln L_{j_o}(run) +
 * sigma_{j_o} eps (eps standard normal, one a run); every sample i is
 * re-weighted by the batch's likelihood, w_i' ∝ w_i prod N(y; ln
 * L_i(run), sigma_i^2), in log space with log-sum-exp; the outcome's
 * max_a P'(a optimal) is averaged over the outcomes.  Every candidate
 * is simulated on the same draws (the same j_o and, at each place of the
 * batch, the same eps): common random numbers, so that candidates are
 * compared on the same luck. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "calibrate/calibrate_rng.h"
#include "plan_internal.h"

/* The outcomes' streams, clear of the bootstrap's (seed, b) for b below
 * 2^62. */
#define STREAM_SAMPLES (UINT64_C(3) << 62)
#define STREAM_NOISE (UINT64_C(1) << 63)

size_t plan_decide(const struct plan_frame *f, const double *w, double *prob,
                   double *p_correct, double *regret)
{
	size_t A = f->allocs, S = f->post->count;
	for (size_t a = 0; a < A; a++)
		prob[a] = 0.0;
	for (size_t j = 0; j < S; j++)
		prob[f->best[j]] += w[j];
	size_t best = 0;
	for (size_t a = 1; a < A; a++)
		if (prob[a] > prob[best])
			best = a;
	double r = 0.0;
	for (size_t j = 0; j < S; j++)
		if (w[j] > 0.0)
			r += w[j] * f->loss_gap[j * A + best];
	*p_correct = prob[best] < 1.0 ? prob[best] : 1.0;
	*regret = r;
	return best;
}

/* Uniform in (0, 1): 53 random bits, never 0. */
static double uniform(struct cal_rng *r)
{
	return ((double)(cal_rng_next(r) >> 11) + 0.5) * 0x1p-53;
}

void plan_draw_samples(const struct plan_frame *f, size_t *drawn)
{
	struct cal_rng r;
	cal_rng_init(&r, f->seed, STREAM_SAMPLES);
	size_t S = f->post->count;
	const double *w = f->post->weight;
	for (size_t o = 0; o < f->outcomes; o++) {
		double u = uniform(&r), acc = 0.0;
		size_t j = 0;
		for (; j + 1 < S; j++) {
			acc += w[j];
			if (u < acc)
				break;
		}
		drawn[o] = j;
	}
}

void plan_draw_noise(const struct plan_frame *f, size_t position, double *eps)
{
	struct cal_rng r;
	cal_rng_init(&r, f->seed, STREAM_NOISE + position);
	/* Box–Muller, both of each pair used. */
	for (size_t o = 0; o < f->outcomes; o += 2) {
		double u1 = uniform(&r), u2 = uniform(&r);
		double rad = sqrt(-2.0 * log(u1)), ang = 6.283185307179586 * u2;
		eps[o] = rad * cos(ang);
		if (o + 1 < f->outcomes)
			eps[o + 1] = rad * sin(ang);
	}
}

/* Normalise log weights lw[S] into w[S]; returns the ESS. */
static double normalise(const double *lw, double *w, size_t S)
{
	double top = -INFINITY;
	for (size_t i = 0; i < S; i++)
		if (lw[i] > top)
			top = lw[i];
	double sum = 0.0;
	for (size_t i = 0; i < S; i++) {
		/* below e^-60 of the largest a weight is nothing beside it */
		w[i] = lw[i] - top < -60.0 ? 0.0 : exp(lw[i] - top);
		sum += w[i];
	}
	double sq = 0.0;
	for (size_t i = 0; i < S; i++) {
		w[i] /= sum;
		sq += w[i] * w[i];
	}
	return 1.0 / sq;
}

/* Bisection steps of the tempering's power: to 2^-8 of the unit
 * interval, finer than the threshold's ESS can tell. */
#define TEMPER_STEPS 8

/* The weights at an outcome the samples cannot resolve (its ESS below
 * the bar): the likelihood raised to the largest power tau in (0, 1]
 * that keeps the ESS at the bar (by bisection), as if the run were
 * noisier, sigma / sqrt(tau): S samples cannot represent a likelihood
 * sharper than their spacing, and the untempered weights, resolved to a
 * sample or two, would credit the run with singling out a hypothesis
 * the posterior only approximates.  lw and w are overwritten; the prior
 * stands when even it lies below the bar. */
static void temper(const double *log_weight, const double *ll, size_t S,
                   double bar, double *lw, double *w)
{
	if (normalise(log_weight, w, S) < bar) {
		memcpy(lw, log_weight, S * sizeof *lw);
		normalise(lw, w, S);
		return;
	}
	double lo = 0.0, hi = 1.0;
	for (int step = 0; step < TEMPER_STEPS; step++) {
		double tau = 0.5 * (lo + hi);
		for (size_t i = 0; i < S; i++)
			lw[i] = ll[i] == -INFINITY ? -INFINITY : log_weight[i] + tau * ll[i];
		if (normalise(lw, w, S) >= bar)
			lo = tau;
		else
			hi = tau;
	}
	for (size_t i = 0; i < S; i++)
		lw[i] = ll[i] == -INFINITY ? -INFINITY : log_weight[i] + lo * ll[i];
	if (lo == 0.0)
		memcpy(lw, log_weight, S * sizeof *lw);
	normalise(lw, w, S);
}

/* log N(y; mu, sigma^2) up to the constant -ln sqrt(2 pi), which every
 * sample shares (log_sigma = ln sigma, taken once a call). */
static double log_normal(double y, double mu, double sigma, double log_sigma)
{
	if (!isfinite(mu))
		return -INFINITY;
	double z = (y - mu) / sigma;
	return -0.5 * z * z - log_sigma;
}

enum ha_status plan_batch_value(const struct plan_frame *f, double *scratch,
                                const double *prior,
                                const size_t *drawn, const double *mu,
                                const double *eps, double *loglik,
                                struct plan_outcome_stats *out)
{
	const struct plan_posterior *p = f->post;
	size_t S = p->count, O = f->outcomes;
	double *lw = scratch, *w = lw + S, *ll = w + S, *log_sigma = ll + S;
	double *prob = log_sigma + S;
	for (size_t i = 0; i < S; i++)
		log_sigma[i] = log(p->sigma[i]);
	double mean = 0.0, m2 = 0.0, regret = 0.0, ess = 0.0;
	size_t degenerate = 0;
	for (size_t o = 0; o < O; o++) {
		size_t j = drawn[o];
		int informative = isfinite(mu[j]);
		double y = informative ? mu[j] + p->sigma[j] * eps[o] : 0.0;
		int any = 0;
		for (size_t i = 0; i < S; i++) {
			ll[i] = prior ? prior[o * S + i] : 0.0;
			if (informative)
				ll[i] += log_normal(y, mu[i], p->sigma[i], log_sigma[i]);
			if (loglik)
				loglik[o * S + i] = ll[i];
			lw[i] = p->log_weight[i] + ll[i];
			any |= lw[i] > -INFINITY;
		}
		if (!any) /* no sample can have made it: the prior stands */
			memcpy(lw, p->log_weight, S * sizeof *lw);
		double e = normalise(lw, w, S);
		if (any && e < f->ess_bar)
			temper(p->log_weight, ll, S, f->ess_bar, lw, w);
		double pc, rg;
		plan_decide(f, w, prob, &pc, &rg);
		/* Welford: the spread of a constant is 0 exactly */
		double delta = pc - mean;
		mean += delta / (double)(o + 1);
		m2 += delta * (pc - mean);
		regret += rg;
		ess += e;
		degenerate += e < f->ess_bar;
	}
	double var = m2 / (double)(O - 1);
	/* the mean of probabilities, to within its rounding */
	out->p_after = mean < 0.0 ? 0.0 : mean > 1.0 ? 1.0 : mean;
	out->p_after_se = var > 0.0 ? sqrt(var / (double)O) : 0.0;
	out->regret_after = regret / (double)O;
	out->ess_mean = ess / (double)O;
	out->degenerate = degenerate;
	return HA_OK;
}
