/* The grouped allocation's triples listed once per budget
 * (library-internal): a sweep's rows of one budget differ only in n, so
 * they share the (d, G) pairs and evaluate them at each row's model. */
#ifndef HEADALLOC_GROUPED_INTERNAL_H
#define HEADALLOC_GROUPED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/grouped.h>

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

/* ha_grouped_solve over pairs listed for req->solver's budget. */
enum ha_status grouped_solve_listed(const struct ha_grouped_request *req,
                                    const struct grouped_pairs *pairs,
                                    struct ha_grouped_solution *out);

#endif
