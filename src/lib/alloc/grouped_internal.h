/* Grouped-query attention's evaluations, relaxation and checks behind
 * ha_grouped_solve (library-internal). */
#ifndef HEADALLOC_GROUPED_INTERNAL_H
#define HEADALLOC_GROUPED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/grouped.h>
#include <headalloc/model.h>
#include <headalloc/solver.h>

#include "alloc/model_internal.h"

/* HA_OK when min <= max where both are set and a fixed kv_heads lies
 * within them; HA_EINVAL otherwise.  NULL means no constraints. */
enum ha_status ha_kv_constraints_validate(const struct ha_kv_constraints *c);

/* HA_OK when layers, kv_bytes >= 1 and, for budget D, 2 D L B (the
 * largest KV cache) and 4 d_model D (the largest attention) fit in a
 * uint64_t; HA_EINVAL otherwise (and for NULL). */
enum ha_status ha_kv_shape_validate(const struct ha_kv_shape *shape,
                                    uint64_t budget);

/* 1 when G key heads of dimension head_dim meet the KV constraints kv
 * (NULL: none), the rule of the grouped allocation and its regimes. */
int ha_kv_allows(const struct ha_kv_constraints *kv, uint64_t head_dim,
                 uint64_t kv_heads);

/* prod (e_i + 1)(e_i + 2)/2 for D = prod p_i^e_i: the number of triples
 * (H, G, d) with H d = D and G | H (saturated at UINT64_MAX; 0 for D out
 * of range). */
uint64_t ha_grouped_triple_bound(uint64_t budget);

/* The relaxation alone (relaxed_grouped.c): min ln f over real x in the
 * solver's interval and real G in [max(1, min_kv_heads), min(D/x,
 * max_kv_heads)] with G x <= max_kv_dim (or G fixed).  HA_EINVAL for bad
 * arguments, HA_EINFEASIBLE when the region is empty, HA_ENOMEM,
 * HA_ENUMERIC when NLopt fails. */
enum ha_status ha_grouped_solve_relaxed(const struct ha_solver *solver,
                                        const struct ha_model *model,
                                        double samples,
                                        const struct ha_kv_constraints *kv,
                                        struct ha_grouped_relaxed *out);

/* A grouped sweep (sweep.h, with kv) lists each budget's triples once and
 * evaluates them at every row: the triples of all its budgets together
 * are within HA_GROUPED_MAX_TRIPLES (they are kept for the sweep), and
 * its work, in triple evaluations, values of n x the sum over its budgets
 * of (triples + HA_GROUPED_ROW_WORK), within HA_GROUPED_MAX_SWEEP_WORK,
 * refused before any work (HA_EUNSUPPORTED) rather than run for hours.  A
 * row's relaxation and bookkeeping cost about as much as 128 triples
 * (bench: "limits"); the limit is a run of seconds. */
#define HA_GROUPED_ROW_WORK ((uint64_t)128)
#define HA_GROUPED_MAX_SWEEP_WORK ((uint64_t)1 << 26)

/* Those bounds for a grouped sweep of these budgets at `points` values of
 * n, computed before any work (ha_sweep_new checks them too): HA_OK, or
 * HA_EUNSUPPORTED with the sizes and the limit in *err; HA_EINVAL for no
 * budgets or points. */
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

/* List the pairs of solver's budget into *out (free it in any case):
 * HA_EUNSUPPORTED past HA_GROUPED_MAX_TRIPLES, HA_ENOMEM. */
enum ha_status grouped_pairs_list(const struct ha_solver *solver,
                                  struct grouped_pairs *out);
void grouped_pairs_free(struct grouped_pairs *pairs);

/* ha_grouped_solve over pairs listed for req->solver's budget (NULL:
 * listed here). */
enum ha_status grouped_solve_listed(const struct ha_grouped_request *req,
                                    const struct grouped_pairs *pairs,
                                    struct ha_grouped_solution *out);

#endif
