/* The allocation over (H, G, d) of headalloc-model(7), GROUPED-QUERY
 * ATTENTION: the exact integer optimum by evaluating every divisor triple
 * (the certificate states how many, and the bound on that number), the
 * optimum without the KV constraints (the reference of every loss
 * ratio), and the trade-off front of error against KV cache. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include <headalloc/grouped.h>

#include "base/error_internal.h"
#include "alloc/solver_internal.h"

/* One candidate triple: its head dimension, key/value heads and key. */
struct triple {
	uint64_t head_dim;
	uint64_t kv_heads;
	double key;     /* ln((MSE - E - A n^-α) / c_b) */
	int feasible;   /* meets the KV constraints */
};

struct ha_kv_shape ha_kv_shape_defaults(void)
{
	return (struct ha_kv_shape){.layers = 1, .kv_bytes = 2, .model_dim = 0};
}

enum ha_status ha_kv_constraints_validate(const struct ha_kv_constraints *c)
{
	if (!c)
		return HA_OK;
	if (c->min_kv_heads && c->max_kv_heads && c->min_kv_heads > c->max_kv_heads)
		return HA_EINVAL;
	if (c->kv_heads && ((c->min_kv_heads && c->kv_heads < c->min_kv_heads) ||
	                    (c->max_kv_heads && c->kv_heads > c->max_kv_heads)))
		return HA_EINVAL;
	return HA_OK;
}

enum ha_status ha_kv_shape_validate(const struct ha_kv_shape *s, uint64_t budget)
{
	if (!s || s->layers == 0 || s->kv_bytes == 0 || budget == 0 ||
	    budget > HA_BUDGET_MAX)
		return HA_EINVAL;
	/* 2 D L B <= UINT64_MAX and 4 d_model D <= UINT64_MAX, by division. */
	uint64_t room = UINT64_MAX / 2 / budget;
	if (s->layers > room || s->kv_bytes > room / s->layers)
		return HA_EINVAL;
	if (s->model_dim && s->model_dim > UINT64_MAX / 4 / budget)
		return HA_EINVAL;
	return HA_OK;
}

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

enum ha_status grouped_pairs_list(const struct ha_solver *solver,
                                  struct grouped_pairs *out)
{
	*out = (struct grouped_pairs){0};
	uint64_t budget = solver->budget;
	out->bound = ha_grouped_triple_bound(budget);
	if (out->bound == 0 || out->bound > HA_GROUPED_MAX_TRIPLES)
		return HA_EUNSUPPORTED;
	uint64_t *divisors = NULL;
	size_t divisor_count = 0, nd = 0, n = 0;
	enum ha_status st = ha_divisors(budget, &divisors, &divisor_count);
	if (st != HA_OK)
		return st;
	const uint64_t *dims = ha_solver_feasible(solver, &nd);
	/* the bound holds every triple: one allocation, never grown */
	size_t cap = out->bound ? (size_t)out->bound : 1;
	out->head_dim = malloc(cap * sizeof *out->head_dim);
	out->kv_heads = malloc(cap * sizeof *out->kv_heads);
	if (!out->head_dim || !out->kv_heads) {
		free(divisors);
		grouped_pairs_free(out);
		return HA_ENOMEM;
	}
	/* G runs over the divisors of D that divide H = D/d */
	for (size_t i = 0; i < nd; i++) {
		uint64_t heads = budget / dims[i];
		for (size_t j = 0; j < divisor_count && divisors[j] <= heads; j++)
			if (heads % divisors[j] == 0 && n < cap) {
				out->head_dim[n] = dims[i];
				out->kv_heads[n++] = divisors[j];
			}
	}
	free(divisors);
	out->count = n;
	out->divisors = divisor_count;
	out->head_dims = nd;
	return HA_OK;
}

void grouped_pairs_free(struct grouped_pairs *p)
{
	if (!p)
		return;
	free(p->head_dim);
	free(p->kv_heads);
	*p = (struct grouped_pairs){0};
}

enum ha_status ha_grouped_sweep_check(const uint64_t *budgets,
                                      size_t budget_count, size_t points,
                                      struct ha_error *err)
{
	if (!budgets || budget_count == 0 || points == 0)
		return ha_fail(err, HA_EINVAL, "a grouped table needs budgets and "
		               "sample sizes");
	uint64_t triples = 0, row_work = 0;
	for (size_t b = 0; b < budget_count; b++) {
		uint64_t t = ha_grouped_triple_bound(budgets[b]);
		if (t > HA_GROUPED_MAX_TRIPLES)
			return ha_fail(err, HA_EUNSUPPORTED, "budget %" PRIu64 ": the "
			               "grouped allocation would evaluate up to %" PRIu64
			               " triples (H, G, d); at most %" PRIu64 " are allowed "
			               "(see LIMITS in headalloc(1))",
			               budgets[b], t, HA_GROUPED_MAX_TRIPLES);
		triples += t; /* each term and the sum within 2^23: no overflow */
		row_work += t + HA_GROUPED_ROW_WORK;
		if (triples > HA_GROUPED_MAX_TRIPLES)
			return ha_fail(err, HA_EUNSUPPORTED, "the %zu budgets have "
			               "more than %" PRIu64 " triples (H, G, d) in all, "
			               "listed once for the table (see LIMITS in "
			               "headalloc(1))",
			               budget_count, HA_GROUPED_MAX_TRIPLES);
	}
	if (row_work > HA_GROUPED_MAX_SWEEP_WORK / points)
		return ha_fail(err, HA_EUNSUPPORTED, "the grouped table's work is "
		               "%" PRIu64 " values of n x %" PRIu64 " (the budgets' "
		               "%" PRIu64 " triples (H, G, d) and %" PRIu64 " a row), "
		               "above the limit %" PRIu64 ": fewer sample sizes or "
		               "budgets (see LIMITS in headalloc(1))", points, row_work, triples,
		               HA_GROUPED_ROW_WORK, HA_GROUPED_MAX_SWEEP_WORK);
	return HA_OK;
}

/* Every triple of the listed pairs, with its key at req's model and its
 * feasibility under req's KV constraints. */
static enum ha_status list_triples(const struct ha_grouped_request *req,
                                   const struct grouped_pairs *p,
                                   struct triple **out)
{
	uint64_t budget = req->solver->budget;
	struct triple *t = malloc((p->count ? p->count : 1) * sizeof *t);
	if (!t)
		return HA_ENOMEM;
	for (size_t i = 0; i < p->count; i++) {
		t[i].head_dim = p->head_dim[i];
		t[i].kv_heads = p->kv_heads[i];
		t[i].key = ha_model_log_relative_mse(req->model, req->samples, budget,
		                                     p->head_dim[i], p->kv_heads[i]);
		t[i].feasible = ha_kv_allows(req->kv, p->head_dim[i], p->kv_heads[i]);
	}
	*out = t;
	return HA_OK;
}

/* THE TIE RULE of the grouped optimum: the least key, and within
 * HA_TIE_LOG_TOLERANCE of it the larger G, then the smaller d.  Over
 * every triple, or the feasible ones only; SIZE_MAX when there are none. */
static size_t best_of(const struct triple *t, size_t n, int feasible_only)
{
	double least = INFINITY;
	for (size_t i = 0; i < n; i++)
		if ((t[i].feasible || !feasible_only) && t[i].key < least)
			least = t[i].key;
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if ((!t[i].feasible && feasible_only) ||
		    !(t[i].key <= least + HA_TIE_LOG_TOLERANCE))
			continue;
		if (best == SIZE_MAX || t[i].kv_heads > t[best].kv_heads ||
		    (t[i].kv_heads == t[best].kv_heads &&
		     t[i].head_dim < t[best].head_dim))
			best = i;
	}
	return best;
}

static enum ha_status describe(const struct ha_grouped_request *req,
                               const struct triple *t,
                               struct ha_grouped_allocation *a)
{
	uint64_t budget = req->solver->budget;
	const struct ha_kv_shape shape = *req->shape; /* check_request's */
	a->heads = budget / t->head_dim;
	a->kv_heads = t->kv_heads;
	a->group_size = a->heads / t->kv_heads;
	a->head_dim = t->head_dim;
	a->kv_dim = t->kv_heads * t->head_dim;
	a->kv_cache_bytes_per_token = 2 * a->kv_dim * shape.layers * shape.kv_bytes;
	a->attention_params = 2 * shape.model_dim * (budget + a->kv_dim);
	a->log_relative_mse = t->key;
	a->loss_ratio = 1.0;
	return ha_model_eval_grouped(req->model, req->samples, budget, t->head_dim,
	                             t->kv_heads, &a->terms);
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
		size_t b = best_of(t + i, end - i, 1); /* of this KV dimension */
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

static enum ha_status solve_triples(const struct ha_grouped_request *req,
                                    struct triple *t, size_t n,
                                    struct ha_grouped_solution *out)
{
	size_t unc = best_of(t, n, 0), opt = best_of(t, n, 1);
	if (opt == SIZE_MAX)
		return HA_EINFEASIBLE;
	enum ha_status st = describe(req, &t[unc], &out->unconstrained);
	if (st == HA_OK)
		st = describe(req, &t[opt], &out->optimum);
	if (st != HA_OK)
		return st;
	double ref = out->unconstrained.terms.log_mse;
	out->optimum.loss_ratio = exp(out->optimum.terms.log_mse - ref);
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
		a->loss_ratio = exp(a->terms.log_mse - ref);
		/* The smallest cache within R: the last of the front within. */
		if (req->max_loss_ratio > 0.0 &&
		    a->terms.log_mse - ref <= log(req->max_loss_ratio))
			out->chosen = i;
	}
	return HA_OK;
}

/* req checked and completed into *r (its kv and shape pointing at
 * *shape when absent): HA_OK or HA_EINVAL. */
static enum ha_status check_request(const struct ha_grouped_request *req,
                                    struct ha_grouped_request *r,
                                    struct ha_kv_shape *shape)
{
	static const struct ha_kv_constraints none = {0, 0, 0, 0};
	if (!req || !req->solver || ha_model_validate(req->model) != HA_OK ||
	    ha_samples_validate(req->samples) != HA_OK ||
	    ha_kv_constraints_validate(req->kv) != HA_OK ||
	    (req->max_loss_ratio != 0.0 && !(req->max_loss_ratio >= 1.0 &&
	                                     isfinite(req->max_loss_ratio))))
		return HA_EINVAL;
	*r = *req;
	if (!r->kv)
		r->kv = &none;
	*shape = r->shape ? *r->shape : ha_kv_shape_defaults();
	r->shape = shape;
	return ha_kv_shape_validate(shape, r->solver->budget);
}

enum ha_status grouped_solve_listed(const struct ha_grouped_request *req,
                                    const struct grouped_pairs *listed,
                                    struct ha_grouped_solution *out)
{
	if (!out)
		return HA_EINVAL;
	*out = (struct ha_grouped_solution){0};
	struct ha_grouped_request r;
	struct ha_kv_shape shape;
	if (check_request(req, &r, &shape) != HA_OK)
		return HA_EINVAL;
	out->budget = r.solver->budget;
	out->samples = r.samples;
	struct grouped_pairs own = {0};
	const struct grouped_pairs *p = listed ? listed : &own;
	struct triple *t = NULL;
	enum ha_status st = listed ? HA_OK : grouped_pairs_list(r.solver, &own);
	if (st == HA_OK)
		st = list_triples(&r, p, &t);
	if (st == HA_OK) {
		out->certificate = (struct ha_grouped_certificate){
			.method = HA_CERT_EXHAUSTIVE,
			.divisors = p->divisors,
			.head_dims = p->head_dims,
			.candidates = p->count,
			.bound = p->bound,
		};
		st = solve_triples(&r, t, p->count, out);
	}
	free(t);
	grouped_pairs_free(&own);
	if (st == HA_OK)
		st = ha_grouped_solve_relaxed(r.solver, r.model, r.samples, r.kv,
		                              &out->relaxed);
	if (st != HA_OK)
		ha_grouped_solution_finish(out);
	return st;
}

enum ha_status ha_grouped_solve(const struct ha_grouped_request *req,
                                struct ha_grouped_solution *out)
{
	return grouped_solve_listed(req, NULL, out);
}

void ha_grouped_solution_finish(struct ha_grouped_solution *s)
{
	if (!s)
		return;
	free(s->front);
	s->front = NULL;
	s->front_count = 0;
}
