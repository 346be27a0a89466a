/* The allocation over (H, G, d) of headalloc-model(7), GROUPED-QUERY
 * ATTENTION: the exact integer optimum by evaluating every divisor triple
 * (the certificate states how many, and the bound on that number), the
 * optimum without the KV constraints (the reference of every loss
 * ratio), and the trade-off front of error against KV cache. */
#include <math.h>
#include <stdlib.h>

#include "alloc/divisors.h"
#include <headalloc/grouped.h>

#include "alloc/solver_internal.h"
#include "alloc/grouped_internal.h"

/* One candidate triple: its head dimension, key/value heads and key. */
struct triple {
	uint64_t head_dim;
	uint64_t kv_heads;
	double key;     /* ln((MSE - E - A n^-α) / c_b) */
	int feasible;   /* meets the KV constraints */
};

int ha_kv_allows(const struct ha_kv_constraints *kv, uint64_t head_dim,
                 uint64_t g)
{
	if (!kv)
		return 1;
	if (kv->kv_heads && g != kv->kv_heads)
		return 0;
	if (kv->min_kv_heads && g < kv->min_kv_heads)
		return 0;
	if (kv->max_kv_heads && g > kv->max_kv_heads)
		return 0;
	/* G d <= K, without overflow: G <= K / d. */
	if (kv->max_kv_dim && g > kv->max_kv_dim / head_dim)
		return 0;
	return 1;
}

/* prod (e_i + 1)(e_i + 2)/2 = sum over d | D of tau(D/d), saturated. */
uint64_t ha_grouped_triple_bound(uint64_t budget)
{
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t count = 0;
	if (budget == 0 || budget > HA_BUDGET_MAX ||
	    ha_factorize(budget, f, &count) != HA_OK)
		return 0;
	uint64_t b = 1;
	for (size_t i = 0; i < count; i++) {
		uint64_t e = f[i].exponent, t = (e + 1) * (e + 2) / 2;
		b = b > UINT64_MAX / t ? UINT64_MAX : b * t;
	}
	return b;
}

/* Every triple over the feasible head dimensions: G runs over the
 * divisors of D that divide H = D/d. */
static enum ha_status list_triples(const struct ha_grouped_request *req,
                                   const uint64_t *divisors, size_t divisor_count,
                                   struct triple **out, size_t *count)
{
	size_t nd = 0, n = 0, cap = 64;
	uint64_t budget = ha_solver_budget(req->solver);
	const uint64_t *dims = ha_solver_feasible(req->solver, &nd);
	struct triple *t = malloc(cap * sizeof *t);
	if (!t)
		return HA_ENOMEM;
	for (size_t i = 0; i < nd; i++) {
		uint64_t heads = budget / dims[i];
		for (size_t j = 0; j < divisor_count && divisors[j] <= heads; j++) {
			if (heads % divisors[j] != 0)
				continue;
			if (n == cap) {
				struct triple *grown = realloc(t, 2 * cap * sizeof *t);
				if (!grown) {
					free(t);
					return HA_ENOMEM;
				}
				t = grown;
				cap *= 2;
			}
			t[n].head_dim = dims[i];
			t[n].kv_heads = divisors[j];
			t[n].key = ha_model_log_relative_mse_grouped(req->model, budget,
			                                             dims[i], divisors[j]);
			t[n].feasible = ha_kv_allows(req->kv, dims[i], divisors[j]);
			n++;
		}
	}
	*out = t;
	*count = n;
	return HA_OK;
}

/* THE TIE RULE of the grouped optimum: the least key, and within
 * HA_TIE_LOG_TOLERANCE of it the larger G, then the smaller d.  Over the
 * triples for which pick(t) holds; SIZE_MAX when there are none. */
static size_t best_of(const struct triple *t, size_t n,
                      int (*pick)(const struct triple *, const void *),
                      const void *ctx)
{
	double least = INFINITY;
	for (size_t i = 0; i < n; i++)
		if (pick(&t[i], ctx) && t[i].key < least)
			least = t[i].key;
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!pick(&t[i], ctx) || !(t[i].key <= least + HA_TIE_LOG_TOLERANCE))
			continue;
		if (best == SIZE_MAX || t[i].kv_heads > t[best].kv_heads ||
		    (t[i].kv_heads == t[best].kv_heads &&
		     t[i].head_dim < t[best].head_dim))
			best = i;
	}
	return best;
}

static int any(const struct triple *t, const void *ctx)
{
	(void)t;
	(void)ctx;
	return 1;
}

static int feasible(const struct triple *t, const void *ctx)
{
	(void)ctx;
	return t->feasible;
}

/* Of the feasible triples with this KV dimension. */
static int of_kv_dim(const struct triple *t, const void *ctx)
{
	return t->feasible && t->kv_heads * t->head_dim == *(const uint64_t *)ctx;
}

static enum ha_status describe(const struct ha_grouped_request *req,
                               const struct triple *t,
                               struct ha_grouped_allocation *a)
{
	uint64_t budget = ha_solver_budget(req->solver);
	struct ha_kv_shape shape = req->shape ? *req->shape : ha_kv_shape_defaults();
	a->heads = budget / t->head_dim;
	a->kv_heads = t->kv_heads;
	a->group_size = a->heads / t->kv_heads;
	a->head_dim = t->head_dim;
	a->kv_dim = t->kv_heads * t->head_dim;
	a->kv_cache_bytes_per_token = 2 * a->kv_dim * shape.layers * shape.kv_bytes;
	a->attention_params = 2 * shape.model_dim * (budget + a->kv_dim);
	a->log_relative_mse = t->key;
	a->loss_ratio = 1.0;
	return ha_model_eval_grouped(req->model, budget, t->head_dim, t->kv_heads,
	                             &a->terms);
}

static int compare_kv_dim(const void *pa, const void *pb)
{
	const struct triple *a = pa, *b = pb;
	uint64_t x = a->kv_heads * a->head_dim, y = b->kv_heads * b->head_dim;
	return (x > y) - (x < y);
}

/* The front: in ascending KV dimension, the best triple of each KV
 * dimension that is better, beyond the tie band, than every allocation
 * of a smaller cache; then reversed, best error first. */
static enum ha_status make_front(const struct ha_grouped_request *req,
                                 struct triple *t, size_t n,
                                 struct ha_grouped_solution *out)
{
	qsort(t, n, sizeof *t, compare_kv_dim);
	struct ha_grouped_allocation *front = malloc((n ? n : 1) * sizeof *front);
	if (!front)
		return HA_ENOMEM;
	size_t count = 0;
	double best = INFINITY;
	for (size_t i = 0; i < n;) {
		uint64_t kv_dim = t[i].kv_heads * t[i].head_dim;
		size_t end = i;
		while (end < n && t[end].kv_heads * t[end].head_dim == kv_dim)
			end++;
		size_t b = best_of(t + i, end - i, of_kv_dim, &kv_dim);
		if (b != SIZE_MAX && t[i + b].key < best - HA_TIE_LOG_TOLERANCE) {
			enum ha_status st = describe(req, &t[i + b], &front[count++]);
			if (st != HA_OK) {
				free(front);
				return st;
			}
		}
		/* Against every smaller cache, kept or not: a chain of steps
		 * each within the tie band gains nothing. */
		if (b != SIZE_MAX && t[i + b].key < best)
			best = t[i + b].key;
		i = end;
	}
	for (size_t i = 0; i < count / 2; i++) {
		struct ha_grouped_allocation swap = front[i];
		front[i] = front[count - 1 - i];
		front[count - 1 - i] = swap;
	}
	out->front = front;
	out->front_count = count;
	return HA_OK;
}

static double ratio_to(const struct ha_grouped_allocation *a,
                       const struct ha_grouped_allocation *ref)
{
	return exp(a->terms.log_mse - ref->terms.log_mse);
}

static enum ha_status solve_triples(const struct ha_grouped_request *req,
                                    struct triple *t, size_t n,
                                    struct ha_grouped_solution *out)
{
	size_t unc = best_of(t, n, any, NULL), opt = best_of(t, n, feasible, NULL);
	if (opt == SIZE_MAX)
		return HA_EINFEASIBLE;
	enum ha_status st = describe(req, &t[unc], &out->unconstrained);
	if (st == HA_OK)
		st = describe(req, &t[opt], &out->optimum);
	if (st != HA_OK)
		return st;
	out->optimum.loss_ratio = ratio_to(&out->optimum, &out->unconstrained);
	for (size_t i = 0; i < n; i++)
		out->certificate.feasible += t[i].feasible != 0;
	if (!req->front && !(req->max_loss_ratio > 0.0))
		return HA_OK;
	st = make_front(req, t, n, out);
	if (st != HA_OK)
		return st;
	out->chosen = out->front_count;
	for (size_t i = 0; i < out->front_count; i++) {
		struct ha_grouped_allocation *a = &out->front[i];
		a->loss_ratio = ratio_to(a, &out->unconstrained);
		/* The smallest cache within R: the last of the front within. */
		if (req->max_loss_ratio > 0.0 &&
		    a->terms.log_mse - out->unconstrained.terms.log_mse <=
		    log(req->max_loss_ratio))
			out->chosen = i;
	}
	return HA_OK;
}

enum ha_status ha_grouped_solve(const struct ha_grouped_request *req,
                                struct ha_grouped_solution *out)
{
	if (!out)
		return HA_EINVAL;
	*out = (struct ha_grouped_solution){0};
	static const struct ha_kv_constraints none = {0, 0, 0, 0};
	if (!req || !req->solver || ha_model_validate(req->model) != HA_OK ||
	    ha_kv_constraints_validate(req->kv) != HA_OK ||
	    (req->max_loss_ratio != 0.0 && !(req->max_loss_ratio >= 1.0 &&
	                                     isfinite(req->max_loss_ratio))))
		return HA_EINVAL;
	struct ha_grouped_request r = *req;
	if (!r.kv)
		r.kv = &none;
	struct ha_kv_shape shape = r.shape ? *r.shape : ha_kv_shape_defaults();
	r.shape = &shape;
	uint64_t budget = ha_solver_budget(r.solver);
	if (ha_kv_shape_validate(&shape, budget) != HA_OK)
		return HA_EINVAL;
	out->budget = budget;

	uint64_t bound = ha_grouped_triple_bound(budget);
	if (bound == 0 || bound > HA_GROUPED_MAX_TRIPLES)
		return HA_EUNSUPPORTED;
	uint64_t *divisors = NULL;
	size_t divisor_count = 0;
	struct triple *t = NULL;
	size_t n = 0;
	enum ha_status st = ha_divisors(budget, &divisors, &divisor_count);
	if (st == HA_OK)
		st = list_triples(&r, divisors, divisor_count, &t, &n);
	free(divisors);
	if (st != HA_OK)
		return st;
	size_t head_dims = 0;
	ha_solver_feasible(r.solver, &head_dims);
	out->certificate = (struct ha_grouped_certificate){
		.method = HA_CERT_EXHAUSTIVE,
		.divisors = divisor_count,
		.head_dims = head_dims,
		.candidates = n,
		.bound = bound,
	};
	st = solve_triples(&r, t, n, out);
	free(t);
	if (st == HA_OK)
		st = ha_grouped_solve_relaxed(r.solver, r.model, r.kv, &out->relaxed);
	if (st != HA_OK)
		ha_grouped_solution_finish(out);
	return st;
}

void ha_grouped_solution_finish(struct ha_grouped_solution *s)
{
	if (!s)
		return;
	free(s->front);
	s->front = NULL;
	s->front_count = 0;
}
