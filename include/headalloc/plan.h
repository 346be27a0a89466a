/* headalloc — which run to train next (headalloc-model(7), PLANNING).
 *
 * After a calibration the question is which allocation wins at the
 * target (D, N), and how sure that is.  ha_plan_make answers it and says
 * which runs of a pool of runnable ones would make it surer, for their
 * cost:
 *
 *   posterior  every law of the ladder (and the caller's) refitted on
 *              case resamples of the runs (ha_calibrate's comparison),
 *              each law's refits weighted by its Akaike weight over its
 *              refit count;
 *   decision   the allocation of D most often optimal over the samples:
 *              p_correct its posterior probability of being optimal,
 *              expected_regret the mean of L(decision) - L(optimum);
 *   value      of a candidate run: the expected rise of that probability
 *              if the run were trained, its outcome simulated from the
 *              posterior predictive (the run noise sigma in log space)
 *              and the samples re-weighted by its likelihood;
 *   plan       K runs picked greedily by value per unit cost of the
 *              batch, or as many as a spend allows;
 *   stop       no candidate is worth more than stop_below: train the
 *              target now;
 *   initial    too few runs to fit: the smallest set of the pool that
 *              lets the ladder be fitted, cheapest first, with reasons.
 *
 * The result is one owned object (struct ha_plan) that the report and
 * the picture render; they compute nothing. */
#ifndef HEADALLOC_PLAN_H
#define HEADALLOC_PLAN_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "calibrate.h"
#include "error.h"
#include "progress.h"
#include "runs.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run costs. */
enum ha_plan_cost {
	HA_PLAN_COST_PARAMS_TOKENS = 0, /* 6 P n, P the attention's parameters
	                                   at model_dim (Q and O D model_dim
	                                   each, K and V G d model_dim each);
	                                   without model_dim D n */
	HA_PLAN_COST_TOKENS = 1         /* n */
};

/* A runnable run and its cost (> 0, finite). */
struct ha_plan_candidate {
	uint64_t heads;
	uint64_t head_dim;
	uint64_t kv_heads; /* G dividing heads; 0 is taken as heads */
	double samples;    /* n > 1 */
	double cost;       /* NaN: from options.cost (a pool file's row
	                      without a cost) */
};

/* Defaults of struct ha_plan_options. */
#define HA_PLAN_OUTCOMES_DEFAULT ((size_t)256)
#define HA_PLAN_RESAMPLES_DEFAULT ((size_t)50)
#define HA_PLAN_STOP_BELOW_DEFAULT 0.01
#define HA_PLAN_POOL_SAMPLES_DEFAULT 4
/* kv_heads: every divisor G of H for each allocation. */
#define HA_PLAN_KV_ALL UINT64_MAX
/* The most picks of a plan, and the most pool samples. */
#define HA_PLAN_PICKS_MAX ((size_t)1000)
#define HA_PLAN_POOL_SAMPLES_MAX ((size_t)64)
/* The simulation's work, candidates x outcomes x samples x (picks or 1),
 * refused above this before any work. */
#define HA_PLAN_WORK_MAX 4e9
/* The batch's likelihoods, outcomes x samples doubles (twice), refused
 * above this many before any work (the samples counted as resamples x
 * laws): 2^25, 256 MiB each. */
#define HA_PLAN_MEMORY_MAX 33554432.0
/* An outcome whose importance weights have an effective sample size
 * below max(HA_PLAN_ESS_MIN, HA_PLAN_ESS_SHARE x samples) is degenerate:
 * its likelihood is tempered to that size (headalloc-model(7),
 * PLANNING). */
#define HA_PLAN_ESS_MIN 5.0
#define HA_PLAN_ESS_SHARE 0.01
/* Capacity of a reason, with its NUL. */
#define HA_PLAN_REASON_MAX 128

struct ha_plan_options {
	/* The calibration: law, laws, huber_delta, seed (also the
	 * simulation's), threads, and the target (budget D, samples N,
	 * constraints) all taken from here; compare and bootstrap are set
	 * by the planner (bootstrap = resamples). */
	struct ha_cal_options cal;
	uint64_t kv_heads;          /* 0: G = H; G: that many key/value heads
	                               (allocations with G | H); HA_PLAN_KV_ALL */
	/* The pool: given (costs NaN are computed), or NULL to build it from
	 * every allocation of D at each of pool_samples (NULL: the default
	 * HA_PLAN_POOL_SAMPLES_DEFAULT log-spaced n from N/1000 to N/10,
	 * clipped above 1). */
	const struct ha_plan_candidate *pool;
	size_t pool_count;
	const double *pool_samples;
	size_t pool_samples_count;
	enum ha_plan_cost cost;
	uint64_t model_dim;         /* 0: none */
	size_t next;                /* K picks at most; 0 with spend 0: the
	                               decision alone */
	double spend;               /* > 0: pick while the batch's cost stays
	                               within it; 0: none */
	double stop_below;          /* in (0, 1) */
	size_t outcomes;            /* simulated outcomes a candidate, >= 2 */
	size_t resamples;           /* posterior refits a law, >= 2 */
	struct ha_progress progress; /* "candidates" evaluated; cancels */
};

/* cal: ha_cal_options_defaults with the seeds' free set E, c_b, c_v (as
 * headalloc calibrate has it), compare on; kv_heads 0; no pool, default
 * pool samples; cost params-tokens without model_dim; next 1; spend 0;
 * stop_below 0.01; outcomes 256; resamples 50. */
HA_API void ha_plan_options_defaults(struct ha_plan_options *options);

/* A candidate's value for the decision. */
struct ha_plan_value {
	struct ha_plan_candidate run; /* cost filled in */
	double value;          /* mean over outcomes of max P'(a optimal) - p_correct */
	double value_se;       /* its Monte-Carlo standard error */
	double value_per_cost;
	double ess_mean;       /* mean effective sample size over outcomes */
	size_t degenerate;     /* outcomes whose ESS fell below the bar */
	size_t picked;         /* 0, or its 1-based place in the plan */
	int extrapolated;      /* head_dim outside the runs' head dims */
};

/* One pick of the plan (or of the initial design). */
struct ha_plan_pick {
	struct ha_plan_candidate run;
	double value;            /* p_correct_after - p_correct_before */
	double value_se;
	double value_per_cost;   /* the batch's value over the batch's cost:
	                            what the greedy pick maximised */
	double batch_cost;       /* the picks so far, this one included */
	double p_correct_before; /* expected, after the earlier picks */
	double p_correct_after;
	double expected_regret_after;
	size_t degenerate;
	int extrapolated;        /* head_dim outside the runs' head dims */
	char reason[HA_PLAN_REASON_MAX]; /* the initial design's; "" else */
};

/* A law of the posterior. */
struct ha_plan_law {
	char name[HA_CAL_NAME_MAX];
	double weight;   /* its share of the posterior */
	size_t samples;  /* its refits */
	double sigma;    /* its run noise in log space */
};

struct ha_plan_method {
	size_t samples;          /* posterior samples (refits) */
	struct ha_plan_law *laws;
	size_t law_count;
	int main_law_only;       /* no law had an AICc: the main law's bootstrap */
	size_t outcomes;
	int sigma_from_se;       /* sigma = rms loss_se / L of the runs */
	double sigma;            /* with se: the common sigma; else the
	                            weighted mean of the laws' */
	size_t degenerate;       /* degenerate outcomes over every evaluation */
	size_t evaluations;      /* outcomes simulated over every evaluation */
	size_t refits;           /* refits at degenerate outcomes (0: none
	                            made; their likelihood is tempered) */
	uint64_t seed;
	double ess_threshold;
	double *pool_samples;    /* the n of the pool built (NULL: given pool) */
	size_t pool_samples_count;
	int pool_samples_default;
	enum ha_plan_cost cost;
	uint64_t model_dim;
};

struct ha_plan_decision {
	int defined;          /* 0: no fit yet (an initial design) */
	uint64_t heads, head_dim, kv_heads;
	double p_correct;
	double expected_regret; /* in loss units */
	int extrapolated;       /* head_dim outside the runs' head dims */
	char undefined_reason[HA_CAL_MESSAGE_MAX];
};

struct ha_plan {
	uint64_t budget;
	double samples;
	size_t runs;                 /* the runs given */
	/* The runs' smallest and largest head_dim (0, 0 without runs).  No
	 * run has tested a head_dim outside them: there the laws' values are
	 * extrapolations in d (the variance term grows as d^(d/2)), and a
	 * decision, pick or candidate there says so (extrapolated). */
	uint64_t measured_head_dims[2];
	int initial;                 /* an initial design, not a plan */
	struct ha_plan_decision decision;
	struct ha_plan_pick *picks;
	size_t pick_count;
	/* Every candidate of the pool (less the runs done), valued alone,
	 * in the pool's order; value 0 in an initial design. */
	struct ha_plan_value *candidates;
	size_t candidate_count;
	int stop;                    /* no candidate's value exceeds stop_below */
	double stop_below;
	struct ha_plan_method method;
};

/* Plan from runs (count 0 or NULL runs: an initial design).  Errors
 * (err says which, naming the option): HA_EINVAL for bad options (a
 * cost <= 0 or not finite, next above HA_PLAN_PICKS_MAX, stop_below
 * outside (0, 1), too few outcomes or resamples, bad pool samples, the
 * work above HA_PLAN_WORK_MAX or the memory above HA_PLAN_MEMORY_MAX) or
 * an empty pool (or every candidate run
 * already); HA_EINFEASIBLE when no allocation of the target meets the
 * constraints; the calibration's own; HA_ECANCELED; HA_ENOMEM.  On HA_OK
 * *out is a new plan to free with ha_plan_free(). */
HA_API enum ha_status ha_plan_make(const struct ha_run *runs, size_t count,
                                   const struct ha_plan_options *options,
                                   struct ha_plan **out, struct ha_error *err);

/* NULL is accepted. */
HA_API void ha_plan_free(struct ha_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
