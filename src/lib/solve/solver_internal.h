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

/* Equal MSE to this relative tolerance is a tie (headalloc-model(7), THE TIE RULE): two values of
 * ln MSE closer than this are equal, and the smaller d wins. */
#define HA_TIE_LOG_TOLERANCE 1e-12

struct ha_solver {
	uint64_t budget;
	size_t divisor_count;
	uint64_t *feasible; /* ascending head dimensions meeting the constraints */
	size_t feasible_count;
	double x_lo, x_hi; /* the relaxed interval */
};

/* A sweep's memo for the integer search of one solver: the logarithms
 * ha_model_log_relative_mse takes of each feasible divisor, kept across
 * solves, and each solve's values, so that no index is evaluated twice.
 * ha_solver_solve_integer_memo gives the optimum ha_solver_solve_integer
 * gives, to the bit: the same arithmetic in the same order.  One memo a
 * thread.  Solvers of more than HA_INTEGER_MEMO_MAX feasible divisors get
 * none (*out NULL, HA_OK; memory, not speed, is then what counts). */
#define HA_INTEGER_MEMO_MAX ((size_t)1024)
struct ha_integer_memo;
enum ha_status ha_integer_memo_new(const struct ha_solver *s,
                                   struct ha_integer_memo **out);
void ha_integer_memo_free(struct ha_integer_memo *memo);

/* ha_solver_solve_integer without a certificate, with memo (made for s;
 * NULL: none). */
enum ha_status ha_solver_solve_integer_memo(const struct ha_solver *s,
                                            struct ha_integer_memo *memo,
                                            const struct ha_model *m,
                                            struct ha_allocation *optimum);

#endif
