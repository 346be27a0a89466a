/* The solver object its two algorithms share (library-internal).
 *
 * solver.c makes a solver (the feasible divisors of D and the relaxed
 * interval), enumerates the feasible pairs and runs both searches;
 * integer.c finds the certified integer optimum, relaxed.c the optimum of
 * the continuous relaxation. */
#ifndef HEADALLOC_SOLVER_INTERNAL_H
#define HEADALLOC_SOLVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/solver.h>
#include "alloc/model_internal.h"

/* Equal MSE to this relative tolerance is a tie (headalloc-model(7), THE
 * TIE RULE): two values of ln MSE closer than this are equal, and the
 * smaller d wins. */
#define HA_TIE_LOG_TOLERANCE 1e-12

struct ha_solver {
	uint64_t budget;
	size_t divisor_count;
	uint64_t *feasible; /* ascending head dimensions meeting the constraints */
	size_t feasible_count;
	double x_lo, x_hi; /* the relaxed interval */
	/* With at most HA_INTEGER_MEMO_MAX feasible divisors (else NULL):
	 * ln d_i and ln(rho + (1 - rho)/H_i) at rho = 0, as a memo makes them. */
	double *log_d, *log_share0;
};

/* Name of a certificate method: "bracket" or "exhaustive". */
const char *ha_certificate_method_str(enum ha_certificate_method method);

/* HA_OK when the constraints are self-consistent (min <= max where both are
 * set), HA_EINVAL otherwise.  NULL means no constraints. */
enum ha_status ha_constraints_validate(const struct ha_constraints *c);

/* The feasible head dimensions, ascending; valid until ha_solver_free. */
const uint64_t *ha_solver_feasible(const struct ha_solver *solver,
                                   size_t *count);

/* The integer optimum over the feasible pairs, with its certificate, for a
 * validated model at a valid n (HA_EINVAL otherwise).  Ties within a
 * relative 1e-12 in MSE go to the smaller head dimension. */
enum ha_status ha_solver_solve_integer(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       double samples,
                                       struct ha_allocation *optimum,
                                       struct ha_certificate *certificate);

/* A sweep's memo for the integer search of one solver: the logarithms
 * ha_model_log_relative_mse takes of each feasible divisor, kept across
 * solves, and each solve's values, so that no index is evaluated twice.
 * ha_solver_solve_integer_next gives the optimum ha_solver_solve_integer
 * gives, to the bit: the same arithmetic in the same order.  One memo a
 * thread.  Solvers of more than HA_INTEGER_MEMO_MAX feasible divisors get
 * none (*out NULL, HA_OK; memory, not speed, is then what counts). */
#define HA_INTEGER_MEMO_MAX ((size_t)1024)
struct ha_integer_memo;
enum ha_status ha_integer_memo_new(const struct ha_solver *s,
                                   struct ha_integer_memo **out);
void ha_integer_memo_free(struct ha_integer_memo *memo);

/* ha_solver_solve_integer without a certificate, for a sweep's row, with
 * memo (made for s).  log_samples is log(samples), which a sweep's row
 * takes once for both of its solves and its fits (the same double).  m
 * is the model of the memo's earlier solves, at a new n (checked here),
 * so the model is not validated again; the memo's first solve takes the
 * whole path. */
enum ha_status ha_solver_solve_integer_next(const struct ha_solver *s,
                                            struct ha_integer_memo *memo,
                                            const struct ha_model *m,
                                            double samples, double log_samples,
                                            struct ha_allocation *optimum);

/* The continuous relaxation over the feasible interval (relaxed.c): x*,
 * and log_mse, ln f at the double head_dim itself.  HA_EINVAL for bad
 * arguments, HA_ENOMEM when NLopt cannot allocate, HA_ENUMERIC if no
 * finite optimum results. */
enum ha_status ha_solver_solve_relaxed(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       double samples,
                                       struct ha_relaxed *relaxed);

/* The relaxation for many models of one solver (a sweep): a workspace
 * that keeps its previous answers for the next solve's estimate, NLopt's
 * only for its first solve.  ha_relaxed_solver_solve gives the answers
 * and statuses of ha_solver_solve_relaxed, bit for bit, whatever it
 * solved before.  The solver must outlive the workspace; a workspace
 * serves one thread at a time.  _new: HA_EINVAL for NULL arguments,
 * HA_ENOMEM; _free accepts NULL. */
struct ha_relaxed_solver;
enum ha_status ha_relaxed_solver_new(const struct ha_solver *solver,
                                     struct ha_relaxed_solver **out);
void ha_relaxed_solver_free(struct ha_relaxed_solver *relaxed_solver);
enum ha_status ha_relaxed_solver_solve(struct ha_relaxed_solver *relaxed_solver,
                                       const struct ha_model *model,
                                       double samples,
                                       struct ha_relaxed *relaxed);

/* ha_relaxed_solver_solve for a sweep's next row, without
 * relaxed->log_mse (set to NaN: a row prints x* and H* but not the
 * relaxed mse), with log_samples = log(samples) given and
 * *log_head_dim = log(relaxed->head_dim) on HA_OK (the solve has it: the
 * same double).  m is the model of w's earlier solves, at a new n
 * (checked here), so it is not compared with the kept one
 * (ha_solver_solve_integer_next's contract). */
enum ha_status ha_relaxed_solver_solve_next(struct ha_relaxed_solver *w,
                                            const struct ha_model *m,
                                            double samples, double log_samples,
                                            struct ha_relaxed *relaxed,
                                            double *log_head_dim);

/* Evaluations a workspace spent on its last solve: of the stationarity
 * function, and of the objective by NLopt (0 when the solve started from
 * the previous answer). */
void ha_relaxed_solver_last_cost(const struct ha_relaxed_solver *w,
                                 size_t *root_evaluations,
                                 size_t *nlopt_evaluations);

/* The canonical relaxed optimum (relaxed_root.c): the bisection over the
 * doubles of [x_lo, x_hi] that defines x*, and its shortcut.  A problem
 * is prepared from the relaxed objective; evaluations counts every
 * evaluation of the stationarity function since init. */
struct ha_relaxed_fn;
struct ha_relaxed_root {
	double x_lo, x_hi;
	double rate, power, rho, share, budget, log_budget, smoothness;
	double constant; /* ln c_v - ln n - ln c_b - ln s */
	double log_smoothness;
	size_t evaluations;
	/* dQ/du and the uncertainty width 2E/Q' (in u) near the root of the
	 * last solve (0 when it found none): the next prediction's. */
	double last_slope, last_width;
	/* ln x at the last question of the last solve answered "yes" (x NaN:
	 * none), which is often x* itself: its log is then not made again. */
	double yes_x, yes_u;
};
void ha_relaxed_root_init(struct ha_relaxed_root *root,
                          const struct ha_relaxed_fn *fn, double x_lo, double x_hi);
/* root made again for fn, which differs from the fn of its init in
 * log_var_scale alone (a sweep's next n): what init would make. */
void ha_relaxed_root_move(struct ha_relaxed_root *root, const struct ha_relaxed_fn *fn);
/* x*, reached from estimate (any double; NaN for none: then every
 * question of the bisection is evaluated, x* by the definition itself):
 * the same double whatever the estimate.  With width > 0 (in u),
 * certificates are first sought at estimate (1 ∓ width): two evaluations
 * when estimate is a prediction within a fraction of width of the root;
 * otherwise the evaluations spent are kept as certificates. */
double ha_relaxed_root_solve(struct ha_relaxed_root *root, double estimate,
                             double width);
/* log(x), taken from the last solve's questions when one was at x: the
 * same double as log(x) (the same call on the same double). */
double ha_relaxed_root_log(const struct ha_relaxed_root *root, double x);
/* The computed stationarity function Q at x, and in *bound 2E(x), twice
 * the bound E on |Q_c - Q| that the certificates use (relaxed_root.c,
 * THE SHORTCUT) (tests). */
double ha_relaxed_root_q(struct ha_relaxed_root *root, double x, double *bound);

#endif
