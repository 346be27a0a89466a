/* The certified integer search of headalloc-model(7), THE CERTIFICATE:
 * the feasible divisor with the least MSE, and a certificate of how that
 * is known.
 *
 * Why a bracket search is a proof: where the relaxed objective f is
 * strictly unimodal on x >= the least feasible divisor (proven in model.c
 * for every validated model, checked per model by
 * ha_model_unimodal_on()), so is its restriction to the ascending
 * feasible divisors: the first index where f stops decreasing is the
 * integer optimum, found by binary search on the sign of successive
 * differences.  Where it is not proven the search enumerates. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/model.h>
#include <headalloc/solver.h>

#include "alloc/model_internal.h"
#include "alloc/solver_internal.h"

/* Solves without a memo keep their values on the stack up to this many
 * feasible divisors. */
#define STACK_MEMO_MAX 64

/* Feasible sets this small are simply enumerated. */
#define EXHAUSTIVE_MAX 4

/* What the searches evaluate: ln(MSE / c_b) at feasible index i, counted
 * in *evaluations.  Plain: ha_model_log_relative_mse.  With a memo (a
 * sweep's): the same arithmetic on logarithms kept across solves, each
 * index evaluated once a solve, so the same values, the same search path
 * and the same optimum, at a fraction of the cost. */
struct evaluator {
	const struct ha_solver *s;
	const struct ha_model *m;
	double samples;               /* n */
	struct ha_integer_memo *memo; /* NULL: plain */
	size_t *evaluations;
	int count_every; /* count values taken from the memo too (as plain) */
};

struct ha_integer_memo {
	const struct ha_solver *solver;
	double *log_share;      /* ln(rho + (1 - rho) / H_i) at share_rho */
	double share_rho;       /* NaN: log_share not yet made */
	double *value;          /* the values of this solve ... */
	uint32_t *stamp;        /* ... where stamp[i] == generation */
	uint32_t generation;
	double log_coef_ratio;  /* ln c_v - ln c_b of this solve */
	double samples;         /* n of this solve */
	double log_samples;     /* β ln n of this solve */
	double log_bias_coef, log_var_coef;
	/* ha_model_eval's parts of each index (parts_made[i]), made once a
	 * model (memo_start). */
	struct ha_eval_parts *parts;
	unsigned char *parts_made;
	/* Made by memo_start for ha_solver_solve_integer_next: the model it
	 * was started for passed ha_model_validate, and whether that model
	 * is proven unimodal (ha_model_unimodal_on: not a function of n). */
	int started;
	int unimodal;
};

static double log_mse_at(const struct evaluator *e, size_t i)
{
	const struct ha_solver *s = e->s;
	const struct ha_model *m = e->m;
	struct ha_integer_memo *w = e->memo;
	if (!w) {
		(*e->evaluations)++;
		return ha_model_log_relative_mse(m, e->samples, s->budget, s->feasible[i],
		                                 s->budget / s->feasible[i]);
	}
	if (w->stamp[i] == w->generation) {
		if (e->count_every)
			(*e->evaluations)++;
		return w->value[i];
	}
	(*e->evaluations)++;
	/* ha_model_log_relative_mse, term by term in its order, with its
	 * logarithms looked up. */
	double d = (double)s->feasible[i];
	double log_bias = -m->smoothness * s->log_d[i];
	double log_var = w->log_coef_ratio + (m->var_rate * d + m->var_power) * s->log_d[i] -
	                 w->log_samples + w->log_share[i];
	w->stamp[i] = w->generation;
	return w->value[i] = ha_log_add(log_bias, log_var);
}

enum ha_status ha_integer_memo_new(const struct ha_solver *s,
                                   struct ha_integer_memo **out)
{
	*out = NULL;
	if (s->feasible_count > HA_INTEGER_MEMO_MAX)
		return HA_OK;
	struct ha_integer_memo *w = calloc(1, sizeof *w);
	if (!w)
		return HA_ENOMEM;
	size_t n = s->feasible_count;
	w->log_share = malloc(n * sizeof *w->log_share);
	w->value = malloc(n * sizeof *w->value);
	w->stamp = calloc(n, sizeof *w->stamp);
	w->parts = malloc(n * sizeof *w->parts);
	w->parts_made = calloc(n, sizeof *w->parts_made);
	if (!w->log_share || !w->value || !w->stamp || !w->parts || !w->parts_made) {
		ha_integer_memo_free(w);
		return HA_ENOMEM;
	}
	w->solver = s;
	w->share_rho = NAN;
	*out = w;
	return HA_OK;
}

void ha_integer_memo_free(struct ha_integer_memo *w)
{
	if (!w)
		return;
	free(w->log_share);
	free(w->value);
	free(w->stamp);
	free(w->parts);
	free(w->parts_made);
	free(w);
}

/* The part of memo_start that depends on n: ln n, and a new generation
 * of values. */
static void memo_next(struct ha_integer_memo *w, const struct ha_model *m,
                      double samples, double log_samples)
{
	const struct ha_solver *s = w->solver;
	w->samples = samples;
	w->log_samples = m->var_samples_power * log_samples; /* β ln n */
	if (++w->generation == 0) {
		/* Once in 2^32 solves: no stamp may look current. */
		for (size_t i = 0; i < s->feasible_count; i++)
			w->stamp[i] = 0;
		w->generation = 1;
	}
}

/* Make the memo ready for a solve of m (validated) at n = samples, ln n
 * = log_samples. */
static void memo_start(struct ha_integer_memo *w, const struct ha_model *m,
                       double samples, double log_samples)
{
	const struct ha_solver *s = w->solver;
	double rho = 1.0 - m->hdi;
	if (!(rho == w->share_rho)) {
		for (size_t i = 0; i < s->feasible_count; i++) {
			double H = (double)(s->budget / s->feasible[i]);
			w->log_share[i] = log(rho + (1.0 - rho) / H);
		}
		w->share_rho = rho;
	}
	w->log_bias_coef = ha_model_log_bias_coef(m);
	w->log_var_coef = ha_model_log_var_coef(m);
	if (w->parts_made)
		memset(w->parts_made, 0, s->feasible_count);
	w->log_coef_ratio = w->log_var_coef - w->log_bias_coef;
	w->started = 1;
	w->unimodal = ha_model_unimodal_on(m, (double)s->feasible[0]);
	memo_next(w, m, samples, log_samples);
}

/* ha_model_eval at feasible index i, its parts of d kept in the memo. */
static void memo_eval(struct ha_integer_memo *w, const struct ha_model *m, size_t i,
                      struct ha_terms *out)
{
	const struct ha_solver *s = w->solver;
	struct ha_eval_parts *p = &w->parts[i];
	if (!w->parts_made[i]) {
		ha_model_eval_parts(m, w->samples, s->budget, s->feasible[i], p);
		w->parts_made[i] = 1;
	}
	/* The parts of the model and of n, as ha_model_eval_parts makes them. */
	p->log_bias_coef = w->log_bias_coef;
	p->log_var_coef = w->log_var_coef;
	p->log_samples_power = w->log_samples;
	p->samples_power = m->var_samples_power == 1.0
		? w->samples : pow(w->samples, m->var_samples_power);
	ha_model_eval_from(m, w->samples, s->budget, s->feasible[i],
	                   s->budget / s->feasible[i], p, out);
}

/* Evaluate every feasible divisor; the answer is the smallest d within
 * the tie tolerance of the minimum.  Any count is accepted (a model not
 * proven unimodal is enumerated whatever its size): values past the
 * first EXHAUSTIVE_MAX are evaluated again rather than stored. */
static size_t argmin_exhaustive(const struct evaluator *e)
{
	double value[EXHAUSTIVE_MAX];
	double min = INFINITY;
	for (size_t i = 0; i < e->s->feasible_count; i++) {
		double v = log_mse_at(e, i);
		if (i < EXHAUSTIVE_MAX)
			value[i] = v;
		if (v < min)
			min = v;
	}
	size_t best = 0;
	while ((best < EXHAUSTIVE_MAX ? value[best] : log_mse_at(e, best)) >
	       min + HA_TIE_LOG_TOLERANCE)
		best++;
	return best;
}

static size_t argmin_bracket(const struct evaluator *e)
{
	const struct ha_solver *s = e->s;
	size_t lo = 0, hi = s->feasible_count - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (log_mse_at(e, mid + 1) < log_mse_at(e, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Where f is flat to within rounding, the search stops anywhere on
	 * the flat stretch.  By convexity the values within the tie tolerance
	 * of the minimum are one contiguous run: walk out to both of its ends,
	 * tracking the least value seen, then take the smallest d within
	 * tolerance of it (headalloc-model(7), THE TIE RULE). */
	double min = log_mse_at(e, lo);
	size_t right = lo;
	while (right + 1 < s->feasible_count) {
		double v = log_mse_at(e, right + 1);
		if (v > min + HA_TIE_LOG_TOLERANCE)
			break;
		if (v < min)
			min = v;
		right++;
	}
	size_t left = lo;
	while (left > 0) {
		double v = log_mse_at(e, left - 1);
		if (v > min + HA_TIE_LOG_TOLERANCE)
			break;
		if (v < min)
			min = v;
		left--;
	}
	while (left < right && log_mse_at(e, left) > min + HA_TIE_LOG_TOLERANCE)
		left++;
	return left;
}

/* The search itself, then the optimum's terms. */
static void search(const struct ha_solver *s, const struct evaluator *e,
                   int unimodal, struct ha_certificate *cert,
                   struct ha_allocation *optimum)
{
	size_t best;
	if (s->feasible_count <= EXHAUSTIVE_MAX || !unimodal) {
		cert->method = HA_CERT_EXHAUSTIVE;
		best = argmin_exhaustive(e);
	} else {
		cert->method = HA_CERT_BRACKET;
		best = argmin_bracket(e);
	}
	optimum->head_dim = s->feasible[best];
	optimum->heads = s->budget / optimum->head_dim;
	if (e->memo && e->memo->parts)
		memo_eval(e->memo, e->m, best, &optimum->terms);
	else
		ha_model_eval(e->m, e->samples, s->budget, optimum->head_dim,
		              &optimum->terms);
}

static enum ha_status solve_integer(const struct ha_solver *s,
                                    struct ha_integer_memo *memo,
                                    const struct ha_model *m, double samples,
                                    double log_samples,
                                    struct ha_allocation *optimum,
                                    struct ha_certificate *certificate)
{
	if (!s || !optimum || ha_model_validate(m) != HA_OK ||
	    !ha_samples_valid(samples))
		return HA_EINVAL;
	struct ha_certificate cert = {
		.divisors = s->divisor_count,
		.feasible = s->feasible_count,
	};
	/* Without a memo, where hdi = 1 and the divisors are few: the
	 * solver's logarithms (ln d_i and ln(1/H_i), rho = 0, made once with
	 * it) in a memo of this solve alone, on the stack. */
	double value[STACK_MEMO_MAX];
	uint32_t stamp[STACK_MEMO_MAX];
	struct ha_integer_memo local;
	if (!memo && s->log_d && s->feasible_count <= STACK_MEMO_MAX &&
	    1.0 - m->hdi == 0.0) {
		memset(stamp, 0, s->feasible_count * sizeof *stamp);
		local = (struct ha_integer_memo){.solver = s, .log_share = s->log_share0,
		                                 .share_rho = 0.0, .value = value,
		                                 .stamp = stamp};
		memo_start(&local, m, samples, log(samples));
		memo = &local;
	} else if (memo) {
		memo_start(memo, m, samples, log_samples);
	}
	/* The certificate counts evaluations as the plain search makes them
	 * (the reports print the count): the stack's memo saves their cost,
	 * not their number. */
	struct evaluator e = {s, m, samples, memo, &cert.evaluated, memo == &local};
	/* `bracket` only where unimodality is proven for this model
	 * (ha_model_unimodal_on; the proof is in model.c). */
	search(s, &e, ha_model_unimodal_on(m, (double)s->feasible[0]), &cert, optimum);
	if (certificate)
		*certificate = cert;
	return HA_OK;
}

enum ha_status ha_solver_solve_integer(const struct ha_solver *s,
                                       const struct ha_model *m, double samples,
                                       struct ha_allocation *optimum,
                                       struct ha_certificate *certificate)
{
	return solve_integer(s, NULL, m, samples, NAN, optimum, certificate);
}

enum ha_status ha_solver_solve_integer_next(const struct ha_solver *s,
                                            struct ha_integer_memo *memo,
                                            const struct ha_model *m,
                                            double samples, double log_samples,
                                            struct ha_allocation *optimum)
{
	if (!memo || memo->solver != s)
		return HA_EINVAL;
	if (!memo->started)
		return solve_integer(s, memo, m, samples, log_samples, optimum, NULL);
	if (!optimum || !ha_samples_valid(samples))
		return HA_EINVAL;
	memo_next(memo, m, samples, log_samples);
	struct ha_certificate cert = {0};
	struct evaluator e = {s, m, samples, memo, &cert.evaluated, 0};
	search(s, &e, memo->unimodal, &cert, optimum);
	return HA_OK;
}
