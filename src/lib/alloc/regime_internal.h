/* The regime tables of one budget behind ha_regimes_new (regime.c). */
#ifndef HA_ALLOC_REGIME_INTERNAL_H
#define HA_ALLOC_REGIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/model.h>
#include <headalloc/regime.h>

/* The regime table of budget D over the given feasible head dimensions
 * (ascending, each dividing D; e.g. ha_solver_feasible()), for the model's
 * s, c_b, c_v and hdi (over every n).  On HA_OK *out is a
 * new array of *count regimes sorted by n, which the caller frees with
 * free().  HA_EINVAL for NULL pointers, an invalid model, D out of range,
 * or head dimensions that are zero, unsorted, repeated or not divisors;
 * HA_EINFEASIBLE for count == 0; HA_ENOMEM.  On error *out is NULL. */
enum ha_status ha_regime_compute(const struct ha_model *model, uint64_t budget,
                                 const uint64_t *head_dims, size_t count,
                                 struct ha_regime **out, size_t *regimes);

/* The regimes over the triples (H, G, d) of headalloc-model(7),
 * GROUPED-QUERY ATTENTION, under the KV constraints kv (NULL: none, G
 * auto), each with its G as kv_heads; regime.c says why they are an
 * exact envelope too.  HA_EINVAL for a NULL solver, model or out, an
 * invalid model or kv; HA_EINFEASIBLE when no triple meets kv;
 * HA_EUNSUPPORTED when the budget's bound on the triples exceeds
 * HA_GROUPED_MAX_TRIPLES (grouped.h); HA_ENOMEM.  On error *out is NULL. */
enum ha_status ha_regime_compute_grouped(const struct ha_solver *solver,
                                         const struct ha_model *model,
                                         const struct ha_kv_constraints *kv,
                                         struct ha_regime **out,
                                         size_t *regimes);

#endif
