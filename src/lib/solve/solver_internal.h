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

/* Equal MSE to this relative tolerance is a tie (spec §3): two values of
 * ln MSE closer than this are equal, and the smaller d wins. */
#define HA_TIE_LOG_TOLERANCE 1e-12

struct ha_solver {
	uint64_t budget;
	size_t divisor_count;
	uint64_t *feasible; /* ascending head dimensions meeting the constraints */
	size_t feasible_count;
	double x_lo, x_hi; /* the relaxed interval */
};

#endif
