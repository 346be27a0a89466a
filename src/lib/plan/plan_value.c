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
		w[i] = lw[i] == -INFINITY ? 0.0 : exp(lw[i] - top);
		sum += w[i];
	}
	double sq = 0.0;
	for (size_t i = 0; i < S; i++) {
		w[i] /= sum;
		sq += w[i] * w[i];
	}
	return 1.0 / sq;
}

/* log N(y; mu, sigma^2) up to the constant -ln sqrt(2 pi), which every
 * sample shares. */
static double log_normal(double y, double mu, double sigma)
{
	if (!isfinite(mu))
		return -INFINITY;
	double z = (y - mu) / sigma;
	return -0.5 * z * z - log(sigma);
}

enum ha_status plan_batch_value(const struct plan_frame *f, const double *prior,
                                const size_t *drawn, const double *mu,
                                const double *eps, double *loglik,
                                struct plan_outcome_stats *out)
{
	const struct plan_posterior *p = f->post;
	size_t S = p->count, O = f->outcomes;
	double *lw = f->scratch, *w = lw + S, *prob = w + S;
	double sum = 0.0, sum2 = 0.0, regret = 0.0, ess = 0.0;
	size_t degenerate = 0;
	for (size_t o = 0; o < O; o++) {
		size_t j = drawn[o];
		int informative = isfinite(mu[j]);
		double y = informative ? mu[j] + p->sigma[j] * eps[o] : 0.0;
		int any = 0;
		for (size_t i = 0; i < S; i++) {
			double ll = prior ? prior[o * S + i] : 0.0;
			if (informative)
				ll += log_normal(y, mu[i], p->sigma[i]);
			if (loglik)
				loglik[o * S + i] = ll;
			lw[i] = p->log_weight[i] + ll;
			any |= lw[i] > -INFINITY;
		}
		if (!any) /* no sample can have made it: the prior stands */
			memcpy(lw, p->log_weight, S * sizeof *lw);
		double e = normalise(lw, w, S);
		double pc, rg;
		plan_decide(f, w, prob, &pc, &rg);
		sum += pc;
		sum2 += pc * pc;
		regret += rg;
		ess += e;
		degenerate += e < f->ess_bar;
	}
	double mean = sum / (double)O;
	double var = (sum2 - (double)O * mean * mean) / (double)(O - 1);
	out->p_after = mean;
	out->p_after_se = var > 0.0 ? sqrt(var / (double)O) : 0.0;
	out->regret_after = regret / (double)O;
	out->ess_mean = ess / (double)O;
	out->degenerate = degenerate;
	return HA_OK;
}
