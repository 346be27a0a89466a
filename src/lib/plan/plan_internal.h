/* Internals of the planner (plan*.c); not installed.
 *
 * plan_posterior.c  the weighted samples from a calibration
 * plan_pool.c       the candidates, their costs, the runs done
 * plan_eval.c       ln L of every sample at a set of runs (targets,
 *                   candidates), grouped runs included
 * plan_value.c      the decision and the simulated value of a batch
 * plan_greedy.c     the greedy batch and the stop
 * plan_design.c     the initial design
 * plan.c            ha_plan_make */
#ifndef HEADALLOC_PLAN_INTERNAL_H
#define HEADALLOC_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/calibrate.h>
#include <headalloc/plan.h>

#include "base/error_internal.h"

/* The posterior: S samples of fit-scale parameters, their normalised
 * weights, and each one's run noise sigma in log space. */
struct plan_posterior {
	size_t count;
	double *theta;      /* count x HA_CAL_PARAMS */
	double *weight;     /* sum 1 */
	double *log_weight; /* ln weight (-inf for 0) */
	double *sigma;      /* > 0 */
	size_t *law;        /* index into method->laws */
};

/* Fill post and method's laws, samples and sigma from c (compare on).
 * HA_EDEGENERATE (err) when no sample exists; HA_ENOMEM. */
enum ha_status plan_posterior_make(const struct ha_calibration *c,
                                   const struct ha_run *runs, size_t count,
                                   struct plan_posterior *post,
                                   struct ha_plan_method *method,
                                   struct ha_error *err);
void plan_posterior_free(struct plan_posterior *post);

/* ln L_j of every sample j at every run (loss ignored): out[j * m + i].
 * Not finite where the law cannot predict it: +inf then. */
enum ha_status plan_eval(const struct plan_posterior *post,
                         const struct ha_run *runs, size_t m, double *out);

/* The allocations of D under the target's constraints, each with G key
 * heads (kv_heads: 0 G = H; HA_PLAN_KV_ALL every divisor of H; else
 * that G where it divides H), as runs at n = samples (loss 1).
 * HA_EINFEASIBLE when none (err says so); HA_ENOMEM. */
enum ha_status plan_allocations(uint64_t budget,
                                const struct ha_constraints *constraints,
                                uint64_t kv_heads, double samples,
                                struct ha_run **out, size_t *count,
                                struct ha_error *err);

/* The pool of options: given or built, the costs filled, the runs
 * already done removed.  HA_EINVAL (err names the cause) for a bad cost,
 * bad pool samples or an empty pool; HA_ENOMEM. */
enum ha_status plan_pool_make(const struct ha_plan_options *o,
                              const struct ha_run *runs, size_t count,
                              struct ha_plan_candidate **out, size_t *out_count,
                              struct ha_plan_method *method,
                              struct ha_error *err);

/* The cost of a run under o (HA_PLAN_COST_*). */
double plan_cost_of(const struct ha_plan_options *o, uint64_t heads,
                    uint64_t head_dim, uint64_t kv_heads, double samples);

/* The decision's frame: every sample's ln L at the target's A
 * allocations, its argmin and min. */
struct plan_frame {
	const struct plan_posterior *post;
	size_t allocs;
	const struct ha_run *alloc;  /* the allocations as runs */
	double *target;     /* S x A ln L */
	size_t *best;       /* S: argmin a_j */
	double *loss_gap;   /* S x A: L_j(a) - L_j(a_j) >= 0 */
	size_t outcomes;
	double ess_bar;
	uint64_t seed;
	double *scratch;    /* S x (A + 2) doubles for one outcome */
};

/* The decision under weights w (S, summing to 1): the allocation of the
 * largest probability of being optimal (ties: the earlier), that
 * probability, and the expected regret of choosing it.  prob is A
 * doubles of workspace. */
size_t plan_decide(const struct plan_frame *f, const double *w, double *prob,
                   double *p_correct, double *regret);

/* The value of adding a run to a batch: for outcome o, prior[o * S + j]
 * holds the log-likelihood of the batch's earlier runs under sample j
 * (NULL: none) and its sample index drawn[o]; mu[j] the new run's ln L_j
 * and eps[o] its standard normal.  Out: the expected max probability
 * after the batch (mean, se over outcomes), the expected regret, the
 * mean ESS and the degenerate outcomes.  loglik, when not NULL, gets
 * prior + the new run's term (O x S) for the next pick. */
struct plan_outcome_stats {
	double p_after, p_after_se, regret_after, ess_mean;
	size_t degenerate;
};
enum ha_status plan_batch_value(const struct plan_frame *f, const double *prior,
                                const size_t *drawn, const double *mu,
                                const double *eps, double *loglik,
                                struct plan_outcome_stats *out);

/* The outcomes' draws: sample indices by weight (drawn[O]) and a
 * standard normal column for batch position k (eps[O]), from the seed's
 * streams (the same for every candidate: common random numbers). */
void plan_draw_samples(const struct plan_frame *f, size_t *drawn);
void plan_draw_noise(const struct plan_frame *f, size_t position, double *eps);

/* The greedy batch and every candidate's value into plan. */
enum ha_status plan_greedy(const struct plan_frame *f,
                           const struct ha_plan_options *o,
                           const double *cand_mu, /* S x C, per sample row */
                           struct ha_plan *plan, struct ha_error *err);

/* The initial design from the pool (plan->candidates) and the runs. */
enum ha_status plan_design(const struct ha_plan_options *o,
                           const struct ha_run *runs, size_t count,
                           struct ha_plan *plan, struct ha_error *err);

#endif
