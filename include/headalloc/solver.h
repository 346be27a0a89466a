/* headalloc — the fixed-budget allocator (headalloc-model(7), THE ALLOCATION PROBLEM).
 *
 * A solver is made once per (D, constraints): it factors D and keeps the
 * ascending list of feasible head dimensions, so every later solve for a
 * new model or n costs a handful of evaluations. */
#ifndef HEADALLOC_SOLVER_H
#define HEADALLOC_SOLVER_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Restrictions on the divisor pairs (H, d).  A zero field means "none". */
struct ha_constraints {
	uint64_t head_dim_multiple; /* d must be a multiple of this */
	uint64_t min_head_dim;
	uint64_t max_head_dim;
	uint64_t min_heads;
	uint64_t max_heads;
};

/* One divisor pair and its error. */
struct ha_allocation {
	uint64_t heads;
	uint64_t head_dim;
	struct ha_terms terms;
};

/* The continuous relaxation over real x = d in the feasible interval. */
struct ha_relaxed {
	double head_dim;  /* x* */
	double heads;     /* D / x* */
	double log_mse;   /* ln f(x*) */
};

enum ha_certificate_method {
	HA_CERT_BRACKET,   /* convexity: a discrete local minimum is global */
	HA_CERT_EXHAUSTIVE /* every feasible divisor evaluated */
};

struct ha_certificate {
	enum ha_certificate_method method;
	size_t divisors;  /* divisors of D */
	size_t feasible;  /* divisors meeting the constraints */
	size_t evaluated; /* model evaluations spent on the integer optimum */
};

struct ha_solution {
	uint64_t budget;
	double samples; /* the n solved at */
	struct ha_allocation optimum;
	struct ha_relaxed relaxed;
	struct ha_certificate certificate;
};

struct ha_solver;

/* Make a solver for budget D (1 <= D <= HA_BUDGET_MAX) under constraints c
 * (NULL for none).  On HA_OK *out owns a solver to free with
 * ha_solver_free().  HA_EINVAL for a bad argument, HA_EINFEASIBLE when no
 * divisor pair meets c, HA_ENOMEM. */
HA_API enum ha_status ha_solver_new(uint64_t budget, const struct ha_constraints *c,
                             struct ha_solver **out);

/* Free a solver; NULL is accepted. */
HA_API void ha_solver_free(struct ha_solver *solver);

/* Solve for a validated model at n = samples (HA_EINVAL for an invalid
 * model or n) into *out: the
 * integer optimum over the feasible pairs with its certificate (ties
 * within a relative 1e-12 in MSE go to the smaller head dimension), and
 * the optimum of the continuous relaxation over the feasible interval
 * (headalloc-model(7), THE CONTINUOUS RELAXATION; log_mse is ln f at the
 * double head_dim itself).  HA_ENOMEM when NLopt cannot allocate,
 * HA_ENUMERIC if no finite relaxed optimum results. */
HA_API enum ha_status ha_solver_solve(const struct ha_solver *solver,
                                      const struct ha_model *model, double samples,
                                      struct ha_solution *out);

/* Every feasible pair at n = samples, best first (ties: smaller d
 * first), in a new array the caller frees with free(). */
HA_API enum ha_status ha_solver_enumerate(const struct ha_solver *solver,
                                          const struct ha_model *model,
                                          double samples,
                                          struct ha_allocation **out,
                                          size_t *count);

/* One-shot convenience: ha_solver_new + ha_solver_solve + ha_solver_free. */
HA_API enum ha_status ha_solve(uint64_t budget, const struct ha_constraints *c,
                               const struct ha_model *model, double samples,
                               struct ha_solution *out);

#ifdef __cplusplus
}
#endif
#endif
