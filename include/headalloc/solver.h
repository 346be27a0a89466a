/* headalloc — the fixed-budget allocator (headalloc-model(7), THE ALLOCATION PROBLEM).
 *
 * A solver is made once per (D, constraints): it factors D and keeps the
 * ascending list of feasible head dimensions, so every later solve for a
 * new model (n, s, ...) costs a handful of evaluations. */
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
	struct ha_allocation optimum;
	struct ha_relaxed relaxed;
	struct ha_certificate certificate;
};

struct ha_solver;

/* Name of a certificate method: "bracket" or "exhaustive". */
HA_API const char *ha_certificate_method_str(enum ha_certificate_method method);

/* HA_OK when the constraints are self-consistent (min <= max where both are
 * set), HA_EINVAL otherwise.  NULL means no constraints. */
HA_API enum ha_status ha_constraints_validate(const struct ha_constraints *c);

/* Make a solver for budget D (1 <= D <= HA_BUDGET_MAX) under constraints c
 * (NULL for none).  On HA_OK *out owns a solver to free with
 * ha_solver_free().  HA_EINVAL for a bad argument, HA_EINFEASIBLE when no
 * divisor pair meets c, HA_ENOMEM. */
HA_API enum ha_status ha_solver_new(uint64_t budget, const struct ha_constraints *c,
                             struct ha_solver **out);

/* Free a solver; NULL is accepted. */
HA_API void ha_solver_free(struct ha_solver *solver);

HA_API uint64_t ha_solver_budget(const struct ha_solver *solver);
HA_API size_t ha_solver_divisor_count(const struct ha_solver *solver);
/* The feasible head dimensions, ascending; valid until ha_solver_free. */
HA_API const uint64_t *ha_solver_feasible(const struct ha_solver *solver,
                                   size_t *count);

/* The integer optimum over the feasible pairs, with its certificate, for a
 * validated model (HA_EINVAL otherwise).  Ties within a relative 1e-12 in
 * MSE go to the smaller head dimension. */
HA_API enum ha_status ha_solver_solve_integer(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       struct ha_allocation *optimum,
                                       struct ha_certificate *certificate);

/* The continuous relaxation over the feasible interval (the constraints'
 * bounds on d and H, and d >= the multiple).  x* is defined by one fixed
 * bisection over the doubles of the interval on the computed sign of
 * f' (headalloc-model(7), THE CONTINUOUS RELAXATION): a function of the
 * problem alone.  NLopt's SLSQP in ln x gives the estimate the bisection
 * starts from, which changes how many of its steps are evaluated, never
 * its answer.  log_mse is ln f at the double head_dim itself.  HA_ENOMEM
 * when NLopt cannot allocate, HA_ENUMERIC if no finite optimum results. */
HA_API enum ha_status ha_solver_solve_relaxed(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       struct ha_relaxed *relaxed);

/* Both of the above into *out. */
HA_API enum ha_status ha_solver_solve(const struct ha_solver *solver,
                               const struct ha_model *model,
                               struct ha_solution *out);

/* Every feasible pair, best first (ties: smaller d first), in a new array
 * the caller frees with free(). */
HA_API enum ha_status ha_solver_enumerate(const struct ha_solver *solver,
                                   const struct ha_model *model,
                                   struct ha_allocation **out, size_t *count);

/* One-shot convenience: ha_solver_new + ha_solver_solve + ha_solver_free. */
HA_API enum ha_status ha_solve(uint64_t budget, const struct ha_constraints *c,
                        const struct ha_model *model, struct ha_solution *out);

/* The relaxation for many models of one solver (a sweep): a workspace that
 * keeps its previous answer as the next solve's estimate (a sweep's
 * neighbour is a close one: about eight evaluations a point, no NLopt)
 * and one NLopt optimiser for its first solve.  Its answers are those of
 * ha_solver_solve_relaxed, bit for bit, whatever it solved before.  The
 * solver must outlive the workspace; a workspace serves one thread at a
 * time. */
struct ha_relaxed_solver;

/* Make a workspace for solver.  HA_EINVAL for NULL arguments, HA_ENOMEM;
 * on HA_OK *out owns it (free with ha_relaxed_solver_free). */
HA_API enum ha_status ha_relaxed_solver_new(const struct ha_solver *solver,
                                            struct ha_relaxed_solver **out);

/* Free a workspace; NULL is accepted. */
HA_API void ha_relaxed_solver_free(struct ha_relaxed_solver *relaxed_solver);

/* ha_solver_solve_relaxed on the workspace's solver: the same answer and
 * the same statuses. */
HA_API enum ha_status ha_relaxed_solver_solve(struct ha_relaxed_solver *relaxed_solver,
                                              const struct ha_model *model,
                                              struct ha_relaxed *relaxed);

#ifdef __cplusplus
}
#endif
#endif
