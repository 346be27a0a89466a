/* Grouped-query attention's evaluations, relaxation and checks behind
 * ha_grouped_solve (library-internal). */
#ifndef HEADALLOC_GROUPED_INTERNAL_H
#define HEADALLOC_GROUPED_INTERNAL_H

#include <stdint.h>

#include <headalloc/grouped.h>
#include <headalloc/model.h>
#include <headalloc/solver.h>

/* HA_OK when min <= max where both are set and a fixed kv_heads lies
 * within them; HA_EINVAL otherwise.  NULL means no constraints. */
enum ha_status ha_kv_constraints_validate(const struct ha_kv_constraints *c);

/* HA_OK when layers, kv_bytes >= 1 and, for budget D, 2 D L B (the
 * largest KV cache) and 4 d_model D (the largest attention) fit in a
 * uint64_t; HA_EINVAL otherwise (and for NULL). */
enum ha_status ha_kv_shape_validate(const struct ha_kv_shape *shape,
                                    uint64_t budget);

/* The error of H = D/d query heads of dimension d in kv_heads groups
 * (kv_heads must divide H), split as in ha_model_eval: the covariance
 * term is var(d) ((g - 1) rho_g + (H - g) rho) / H.  With kv_heads = H
 * it is ha_model_eval itself.  HA_EINVAL for the preconditions of
 * ha_model_eval or a kv_heads that does not divide H. */
enum ha_status ha_model_eval_grouped(const struct ha_model *model,
                                     uint64_t budget, uint64_t head_dim,
                                     uint64_t kv_heads,
                                     struct ha_terms *out);

/* ln((MSE - E - A n^-α) / c_b) of a grouped allocation, the key the
 * grouped solver compares (ha_model_log_relative_mse at kv_heads = H,
 * bit for bit).  The caller checks the preconditions. */
double ha_model_log_relative_mse_grouped(const struct ha_model *model,
                                         uint64_t budget,
                                         uint64_t head_dim,
                                         uint64_t kv_heads);

/* prod (e_i + 1)(e_i + 2)/2 for D = prod p_i^e_i: the number of triples
 * (H, G, d) with H d = D and G | H (saturated at UINT64_MAX; 0 for D out
 * of range). */
uint64_t ha_grouped_triple_bound(uint64_t budget);

/* The relaxation alone: min ln f over real x in the solver's interval and
 * real G in [max(1, min_kv_heads), min(D/x, max_kv_heads)] with G x <=
 * max_kv_dim (or G fixed), by NLopt's SLSQP in (ln x, ln G) with the
 * KV bound as an inequality constraint.  HA_EINVAL for bad arguments,
 * HA_EINFEASIBLE when the region is empty, HA_ENOMEM, HA_ENUMERIC when
 * NLopt fails. */
enum ha_status ha_grouped_solve_relaxed(const struct ha_solver *solver,
                                        const struct ha_model *model,
                                        const struct ha_kv_constraints *kv,
                                        struct ha_grouped_relaxed *out);

/* ln f(x, G) - the reducible part, ln(c_b x^-s + c_v x^(γx+κ)/n^β F) with
 * F = rho + (1 - rho_g) x/D + (rho_g - rho)/G - of real (x, G). */
double ha_model_log_relaxed_grouped(const struct ha_model *model,
                                    double budget, double x,
                                    double kv_heads);

#endif
