/* headalloc — grouped-query attention: the allocation over (H, G, d)
 * (headalloc-model(7), GROUPED-QUERY ATTENTION).
 *
 * H query heads of dimension d share G key/value heads (G divides H),
 * g = H/G query heads per group.  Two heads of different groups are
 * correlated by rho = 1 - hdi, two of the same group by rho_g = 1 -
 * group_hdi, and the variance of the average is var(d) * F with
 *
 *   F = (1 + (g - 1) rho_g + (H - g) rho) / H,
 *
 * which is rho + (1 - rho)/H at G = H: ungrouped answers are unchanged,
 * bit for bit (G = H takes the code path of model.h).  The KV cache of a
 * token is 2 G d elements a layer. */
#ifndef HEADALLOC_GROUPED_H
#define HEADALLOC_GROUPED_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Restrictions on the key/value heads.  A zero field means "none";
 * kv_heads 0 is "auto": G is chosen among the divisors of H. */
struct ha_kv_constraints {
	uint64_t kv_heads;     /* G fixed (it must divide H), or 0: auto */
	uint64_t max_kv_dim;   /* G d <= this */
	uint64_t min_kv_heads;
	uint64_t max_kv_heads;
};

/* What turns an allocation into bytes and parameters. */
struct ha_kv_shape {
	uint64_t layers;    /* L >= 1 (default 1) */
	uint64_t kv_bytes;  /* B >= 1 bytes an element (default 2) */
	uint64_t model_dim; /* d_model for the parameter count; 0: none */
};

/* The defaults: layers 1, kv_bytes 2, no model_dim. */
HA_API struct ha_kv_shape ha_kv_shape_defaults(void);

/* One triple (H, G, d) and what it costs. */
struct ha_grouped_allocation {
	uint64_t heads;
	uint64_t kv_heads;
	uint64_t group_size; /* g = H/G */
	uint64_t head_dim;
	uint64_t kv_dim;     /* G d */
	uint64_t kv_cache_bytes_per_token; /* 2 G d L B */
	uint64_t attention_params; /* 2 d_model (D + G d); 0 without model_dim */
	double log_relative_mse;   /* the comparison key (see above) */
	double loss_ratio;         /* mse / the unconstrained optimum's mse */
	struct ha_terms terms;
};

/* How the grouped optimum is known: every divisor triple was evaluated.
 * candidates = sum over the feasible d of tau(D/d), at most
 * prod (e_i + 1)(e_i + 2)/2 for D = prod p_i^e_i: the cost bound. */
struct ha_grouped_certificate {
	enum ha_certificate_method method; /* HA_CERT_EXHAUSTIVE */
	size_t divisors;   /* divisors of D */
	size_t head_dims;  /* feasible head dimensions (the solver's) */
	size_t candidates; /* triples (H, G | H, d) over those: evaluated */
	size_t feasible;   /* candidates meeting the KV constraints */
	uint64_t bound;    /* prod (e_i + 1)(e_i + 2)/2 */
};

/* The continuous relaxation over real (d, G) (headalloc-model(7),
 * GROUPED-QUERY ATTENTION (The relaxation)). */
struct ha_grouped_relaxed {
	double head_dim; /* x* */
	double kv_heads; /* G* */
	double heads;    /* D / x* */
	double kv_dim;   /* G* x* */
	double log_mse;  /* ln f(x*, G*) */
};

/* The most candidate triples a grouped solve evaluates: budgets whose
 * bound prod (e_i + 1)(e_i + 2)/2 exceeds it are refused (HA_EUNSUPPORTED)
 * rather than searched for minutes in gigabytes (2^22 triples take about
 * a second and 128 MiB). */
#define HA_GROUPED_MAX_TRIPLES ((uint64_t)1 << 22)

/* What to solve: a solver (the budget and its constraints on d and H),
 * a validated model, the KV constraints and shape.  front asks for the
 * trade-off front; max_loss_ratio > 0 (>= 1) picks its smallest cache
 * within that ratio of the unconstrained optimum's error. */
struct ha_grouped_request {
	const struct ha_solver *solver;        /* required */
	const struct ha_model *model;          /* required, validated */
	double samples;                        /* n, 1 < n <= 1e300 */
	const struct ha_kv_constraints *kv;    /* NULL: none (kv_heads auto) */
	const struct ha_kv_shape *shape;       /* NULL: the defaults */
	int front;
	double max_loss_ratio;                 /* 0: none */
};

struct ha_grouped_solution {
	uint64_t budget;
	double samples; /* the n solved at */
	struct ha_grouped_allocation optimum;       /* under every constraint */
	struct ha_grouped_allocation unconstrained; /* without the KV constraints */
	struct ha_grouped_relaxed relaxed;
	struct ha_grouped_certificate certificate;
	/* The non-dominated (error, KV cache) allocations meeting every
	 * constraint, from the best error to the smallest cache (NULL unless
	 * asked for; owned: ha_grouped_solution_finish frees it). */
	struct ha_grouped_allocation *front;
	size_t front_count;
	/* With max_loss_ratio: the index in front of the smallest cache
	 * within the ratio, or front_count when none is. */
	size_t chosen;
};

/* Solve into *out (caller storage; finish it in any case).  The
 * optimum: the least error, ties within a relative 1e-12 to the larger
 * G, then the smaller d.  HA_EINVAL for a bad argument (an invalid
 * model, constraints or shape), HA_EUNSUPPORTED when the budget's bound
 * on the triples exceeds HA_GROUPED_MAX_TRIPLES, HA_EINFEASIBLE when no
 * triple meets the KV constraints, HA_ENOMEM; HA_ENUMERIC when the
 * relaxation fails. */
HA_API enum ha_status ha_grouped_solve(const struct ha_grouped_request *req,
                                       struct ha_grouped_solution *out);

/* Free what *solution owns (NULL accepted). */
HA_API void ha_grouped_solution_finish(struct ha_grouped_solution *solution);

#ifdef __cplusplus
}
#endif
#endif
