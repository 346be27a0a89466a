/* The allocator beneath its public headers (library-internal): the
 * divisors of a budget (divisors.c), the solver object its searches share
 * (solver.c, integer.c, relaxed.c, relaxed_root.c), the grouped
 * allocation's checks and relaxation (grouped.c, relaxed_grouped.c) and
 * one budget's regime tables (regime.c).  Each .c says how and why. */
#ifndef HEADALLOC_SOLVER_INTERNAL_H
#define HEADALLOC_SOLVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/grouped.h>
#include <headalloc/regime.h>
#include <headalloc/solver.h>
#include "alloc/model_internal.h"

/* The most distinct primes any 64-bit integer has. */
#define HA_MAX_PRIME_FACTORS 15

/* The most divisors any D < 2^63 has (D = 9200527969062830400;
 * 103,680 is the record below 10^18; see headalloc-model(7), DIVISORS OF LARGE BUDGETS). */
#define HA_MAX_DIVISORS 161280

struct ha_prime_power {
	uint64_t prime;
	unsigned exponent;
};

/* 1 if n is prime, deterministically for every 64-bit n. */
int ha_is_prime(uint64_t n);

/* n >= 1 as prime powers, primes ascending (*count 0 for n = 1).
 * HA_EINVAL for n = 0 or a NULL pointer. */
enum ha_status ha_factorize(uint64_t n,
                            struct ha_prime_power factors[HA_MAX_PRIME_FACTORS],
                            size_t *count);

/* The divisors of n (1 <= n <= HA_BUDGET_MAX) ascending, in a new array
 * to free().  HA_EINVAL, HA_ENOMEM (then *out is NULL). */
enum ha_status ha_divisors(uint64_t n, uint64_t **out, size_t *count);

/* The number of divisors of n >= 1, without listing them (0 on error). */
uint64_t ha_divisor_count(uint64_t n);

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

/* A failed solve of budget in words, into err (NULL: none); returns st. */
enum ha_status ha_solve_failed(struct ha_error *err, enum ha_status st,
                               uint64_t budget);

/* "bracket" or "exhaustive". */
const char *ha_certificate_method_str(enum ha_certificate_method method);

/* HA_OK when min <= max where both are set (NULL: none), else HA_EINVAL. */
enum ha_status ha_constraints_validate(const struct ha_constraints *c);

/* The feasible head dimensions, ascending; valid until ha_solver_free. */
const uint64_t *ha_solver_feasible(const struct ha_solver *solver,
                                   size_t *count);

/* The integer optimum over the feasible pairs, with its certificate
 * (HA_EINVAL for an invalid model or n). */
enum ha_status ha_solver_solve_integer(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       double samples,
                                       struct ha_allocation *optimum,
                                       struct ha_certificate *certificate);

/* A sweep's memo for the integer search of one solver, one a thread:
 * ha_solver_solve_integer_next gives the optimum ha_solver_solve_integer
 * gives, to the bit.  Solvers of more than HA_INTEGER_MEMO_MAX feasible
 * divisors get none (*out NULL, HA_OK: memory, not speed, then counts). */
#define HA_INTEGER_MEMO_MAX ((size_t)1024)
struct ha_integer_memo;
enum ha_status ha_integer_memo_new(const struct ha_solver *s,
                                   struct ha_integer_memo **out);
void ha_integer_memo_free(struct ha_integer_memo *memo);

/* ha_solver_solve_integer without a certificate, for a sweep's row:
 * log_samples = log(samples), taken once a row; m is the model of the
 * memo's earlier solves at a new n, so only n is checked again. */
enum ha_status ha_solver_solve_integer_next(const struct ha_solver *s,
                                            struct ha_integer_memo *memo,
                                            const struct ha_model *m,
                                            double samples, double log_samples,
                                            struct ha_allocation *optimum);

/* The continuous relaxation over the feasible interval: x*, and ln f at
 * x*.  HA_EINVAL, HA_ENOMEM, HA_ENUMERIC (no finite optimum). */
enum ha_status ha_solver_solve_relaxed(const struct ha_solver *solver,
                                       const struct ha_model *model,
                                       double samples,
                                       struct ha_relaxed *relaxed);

/* The relaxation for many models of one solver (a sweep), one thread at
 * a time: the answers and statuses of ha_solver_solve_relaxed, bit for
 * bit, whatever it solved before.  The solver must outlive it. */
struct ha_relaxed_solver;
enum ha_status ha_relaxed_solver_new(const struct ha_solver *solver,
                                     struct ha_relaxed_solver **out);
void ha_relaxed_solver_free(struct ha_relaxed_solver *relaxed_solver);
enum ha_status ha_relaxed_solver_solve(struct ha_relaxed_solver *relaxed_solver,
                                       const struct ha_model *model,
                                       double samples,
                                       struct ha_relaxed *relaxed);

/* ha_relaxed_solver_solve for a sweep's next row (the contract of
 * ha_solver_solve_integer_next), without relaxed->log_mse (NaN: a row
 * does not print it), and *log_head_dim = log(relaxed->head_dim). */
enum ha_status ha_relaxed_solver_solve_next(struct ha_relaxed_solver *w,
                                            const struct ha_model *m,
                                            double samples, double log_samples,
                                            struct ha_relaxed *relaxed,
                                            double *log_head_dim);

/* The last solve's evaluations of the stationarity function, and of the
 * objective by NLopt (0 when it started from the previous answer). */
void ha_relaxed_solver_last_cost(const struct ha_relaxed_solver *w,
                                 size_t *root_evaluations,
                                 size_t *nlopt_evaluations);

/* The canonical relaxed optimum (relaxed_root.c): the bisection over the
 * doubles of [x_lo, x_hi] that defines x*, and its shortcut. */
struct ha_relaxed_root {
	double x_lo, x_hi;
	double rate, power, rho, share, budget, log_budget, smoothness;
	double constant; /* ln c_v - ln n - ln c_b - ln s */
	double log_smoothness;
	size_t evaluations; /* of the stationarity function since init */
	/* dQ/du and the uncertainty width 2E/Q' (in u) near the root of the
	 * last solve (0 when it found none): the next prediction's. */
	double last_slope, last_width;
	/* ln x at the last question of the last solve answered "yes" (x NaN:
	 * none), which is often x* itself: its log is then not made again. */
	double yes_x, yes_u;
};
void ha_relaxed_root_init(struct ha_relaxed_root *root,
                          const struct ha_relaxed_fn *fn, double x_lo, double x_hi);
/* What init would make for an fn that differs in log_var_scale alone. */
void ha_relaxed_root_move(struct ha_relaxed_root *root, const struct ha_relaxed_fn *fn);
/* x*, the same double whatever the estimate (NaN: none).  With width > 0
 * (in u) certificates are first sought at estimate (1 ∓ width). */
double ha_relaxed_root_solve(struct ha_relaxed_root *root, double estimate,
                             double width);
/* log(x), the same double, taken from the last solve's questions. */
double ha_relaxed_root_log(const struct ha_relaxed_root *root, double x);
/* The computed Q at x, and 2E(x) in *bound (tests). */
double ha_relaxed_root_q(struct ha_relaxed_root *root, double x, double *bound);

/* HA_OK when min <= max where both are set and a fixed kv_heads lies
 * within them (NULL: none); HA_EINVAL otherwise. */
enum ha_status ha_kv_constraints_validate(const struct ha_kv_constraints *c);

/* HA_OK when layers, kv_bytes >= 1 and 2 D L B (the largest KV cache)
 * and 4 d_model D (the largest attention) fit in a uint64_t. */
enum ha_status ha_kv_shape_validate(const struct ha_kv_shape *shape,
                                    uint64_t budget);

/* 1 when G key heads of dimension head_dim meet kv (NULL: none). */
int ha_kv_allows(const struct ha_kv_constraints *kv, uint64_t head_dim,
                 uint64_t kv_heads);

/* The number of triples (H, G, d) with H d = D and G | H (saturated at
 * UINT64_MAX; 0 for D out of range). */
uint64_t ha_grouped_triple_bound(uint64_t budget);

/* The grouped relaxation alone (relaxed_grouped.c): min ln f over real
 * (x, G) in the region the solver and kv allow.  HA_EINVAL,
 * HA_EINFEASIBLE (an empty region), HA_ENOMEM, HA_ENUMERIC. */
enum ha_status ha_grouped_solve_relaxed(const struct ha_solver *solver,
                                        const struct ha_model *model,
                                        double samples,
                                        const struct ha_kv_constraints *kv,
                                        struct ha_grouped_relaxed *out);

/* A grouped sweep lists each budget's triples once, all of them within
 * HA_GROUPED_MAX_TRIPLES, and its work (values of n x the sum over its
 * budgets of triples + HA_GROUPED_ROW_WORK) within
 * HA_GROUPED_MAX_SWEEP_WORK, a run of seconds; a row's relaxation and
 * bookkeeping cost about as much as 128 triples (bench: "limits"). */
#define HA_GROUPED_ROW_WORK ((uint64_t)128)
#define HA_GROUPED_MAX_SWEEP_WORK ((uint64_t)1 << 26)

/* Those bounds, before any work: HA_OK, or HA_EUNSUPPORTED with the sizes
 * and the limit in *err; HA_EINVAL for no budgets or points. */
enum ha_status ha_grouped_sweep_check(const uint64_t *budgets,
                                      size_t budget_count, size_t points,
                                      struct ha_error *err);

/* The (d, G) of every triple of a budget: d over the solver's feasible
 * head dimensions, G over the divisors of H = D/d, in that order. */
struct grouped_pairs {
	uint64_t *head_dim, *kv_heads;
	size_t count;
	size_t divisors, head_dims; /* of the budget; feasible ones */
	uint64_t bound;             /* ha_grouped_triple_bound */
};

/* Free *out in any case: HA_EUNSUPPORTED past HA_GROUPED_MAX_TRIPLES,
 * HA_ENOMEM. */
enum ha_status grouped_pairs_list(const struct ha_solver *solver,
                                  struct grouped_pairs *out);
void grouped_pairs_free(struct grouped_pairs *pairs);

/* ha_grouped_solve over pairs listed for req->solver's budget (NULL:
 * listed here). */
enum ha_status grouped_solve_listed(const struct ha_grouped_request *req,
                                    const struct grouped_pairs *pairs,
                                    struct ha_grouped_solution *out);

/* The regime table of budget D over head_dims (ascending divisors of D),
 * sorted by n, in a new array to free().  HA_EINVAL for NULL pointers, an
 * invalid model, D out of range or head dimensions that are zero,
 * unsorted, repeated or not divisors; HA_EINFEASIBLE for count == 0;
 * HA_ENOMEM.  On error *out is NULL. */
enum ha_status ha_regime_compute(const struct ha_model *model, uint64_t budget,
                                 const uint64_t *head_dims, size_t count,
                                 struct ha_regime **out, size_t *regimes);

/* The same over the triples (H, G, d) under kv (NULL: none), each regime
 * with its G; also HA_EINFEASIBLE when no triple meets kv, HA_EUNSUPPORTED
 * past HA_GROUPED_MAX_TRIPLES. */
enum ha_status ha_regime_compute_grouped(const struct ha_solver *solver,
                                         const struct ha_model *model,
                                         const struct ha_kv_constraints *kv,
                                         struct ha_regime **out,
                                         size_t *regimes);

#endif
