/* The fixed-budget allocator of headalloc-model(7), THE ALLOCATION PROBLEM: the solver object (the feasible
 * divisors of D under the constraints, and the relaxed interval), the
 * enumeration of every feasible pair, and ha_solver_solve, which runs the
 * certified integer search (integer.c) and the continuous relaxation
 * (relaxed.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include <headalloc/model.h>
#include <headalloc/solver.h>

#include "base/error_internal.h"
#include "alloc/solver_internal.h"

const char *ha_certificate_method_str(enum ha_certificate_method method)
{
	return method == HA_CERT_EXHAUSTIVE ? "exhaustive" : "bracket";
}

static int range_ok(uint64_t lo, uint64_t hi)
{
	return lo == 0 || hi == 0 || lo <= hi;
}

enum ha_status ha_constraints_validate(const struct ha_constraints *c)
{
	if (!c)
		return HA_OK;
	if (!range_ok(c->min_head_dim, c->max_head_dim) ||
	    !range_ok(c->min_heads, c->max_heads))
		return HA_EINVAL;
	return HA_OK;
}

static int is_feasible(uint64_t budget, uint64_t d, const struct ha_constraints *c)
{
	uint64_t heads = budget / d;
	if (c->head_dim_multiple && d % c->head_dim_multiple != 0)
		return 0;
	if (c->min_head_dim && d < c->min_head_dim)
		return 0;
	if (c->max_head_dim && d > c->max_head_dim)
		return 0;
	if (c->min_heads && heads < c->min_heads)
		return 0;
	if (c->max_heads && heads > c->max_heads)
		return 0;
	return 1;
}

/* The real interval of d allowed by the bounds on d and on H = D/d (and
 * d >= m for a multiple m; the multiple itself has no relaxation). */
static void relaxed_interval(uint64_t budget, const struct ha_constraints *c,
                             double *lo, double *hi)
{
	double D = (double)budget;
	*lo = 1.0;
	*hi = D;
	if (c->min_head_dim && (double)c->min_head_dim > *lo)
		*lo = (double)c->min_head_dim;
	/* A multiple of m is at least m. */
	if (c->head_dim_multiple && (double)c->head_dim_multiple > *lo)
		*lo = (double)c->head_dim_multiple;
	if (c->max_heads && D / (double)c->max_heads > *lo)
		*lo = D / (double)c->max_heads;
	if (c->max_head_dim && (double)c->max_head_dim < *hi)
		*hi = (double)c->max_head_dim;
	if (c->min_heads && D / (double)c->min_heads < *hi)
		*hi = D / (double)c->min_heads;
}

enum ha_status ha_solver_new(uint64_t budget, const struct ha_constraints *c,
                             struct ha_solver **out)
{
	static const struct ha_constraints none = {0, 0, 0, 0, 0};
	if (!out)
		return HA_EINVAL;
	*out = NULL;
	if (budget == 0 || budget > HA_BUDGET_MAX ||
	    ha_constraints_validate(c) != HA_OK)
		return HA_EINVAL;
	if (!c)
		c = &none;

	struct ha_solver *s = calloc(1, sizeof *s);
	if (!s)
		return HA_ENOMEM;
	s->budget = budget;
	enum ha_status st = ha_divisors(budget, &s->feasible, &s->divisor_count);
	if (st != HA_OK) {
		free(s);
		return st;
	}
	/* Keep the feasible divisors in place, in order. */
	for (size_t i = 0; i < s->divisor_count; i++)
		if (is_feasible(budget, s->feasible[i], c))
			s->feasible[s->feasible_count++] = s->feasible[i];
	if (s->feasible_count == 0) {
		ha_solver_free(s);
		return HA_EINFEASIBLE;
	}
	relaxed_interval(budget, c, &s->x_lo, &s->x_hi);
	/* The logarithms the integer search takes of each divisor, for the
	 * few-divisor solvers (integer.c). */
	if (s->feasible_count <= HA_INTEGER_MEMO_MAX) {
		s->log_d = malloc(s->feasible_count * sizeof *s->log_d);
		s->log_share0 = malloc(s->feasible_count * sizeof *s->log_share0);
		if (!s->log_d || !s->log_share0) {
			ha_solver_free(s);
			return HA_ENOMEM;
		}
		for (size_t i = 0; i < s->feasible_count; i++) {
			double H = (double)(budget / s->feasible[i]);
			s->log_d[i] = log((double)s->feasible[i]);
			s->log_share0[i] = log(0.0 + (1.0 - 0.0) / H);
		}
	}
	*out = s;
	return HA_OK;
}

void ha_solver_free(struct ha_solver *solver)
{
	if (!solver)
		return;
	free(solver->feasible);
	free(solver->log_d);
	free(solver->log_share0);
	free(solver);
}

const uint64_t *ha_solver_feasible(const struct ha_solver *solver,
                                   size_t *count)
{
	if (count)
		*count = solver->feasible_count;
	return solver->feasible;
}

enum ha_status ha_solver_solve(const struct ha_solver *s,
                               const struct ha_model *m, double samples,
                               struct ha_solution *out)
{
	if (!s || !out)
		return HA_EINVAL;
	out->budget = s->budget;
	out->samples = samples;
	enum ha_status st = ha_solver_solve_integer(s, m, samples, &out->optimum,
	                                            &out->certificate);
	if (st == HA_OK)
		st = ha_solver_solve_relaxed(s, m, samples, &out->relaxed);
	return st;
}

/* A feasible index with its sort key, ln(MSE / c_b). */
struct keyed {
	double key;
	size_t index;
};

static int by_key_then_index(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int by_index(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

enum ha_status ha_solver_enumerate(const struct ha_solver *s,
                                   const struct ha_model *m, double samples,
                                   struct ha_allocation **out, size_t *count)
{
	if (!s || !out || !count || ha_model_validate(m) != HA_OK ||
	    !ha_samples_valid(samples))
		return HA_EINVAL;
	*out = NULL;
	*count = 0;
	size_t n = s->feasible_count;
	struct ha_allocation *rows = malloc(n * sizeof *rows);
	struct keyed *order = malloc(n * sizeof *order);
	if (!rows || !order) {
		free(rows);
		free(order);
		return HA_ENOMEM;
	}
	/* Sorted on the same values the solver compares, so that the first
	 * row is always its optimum. */
	for (size_t i = 0; i < n; i++) {
		order[i].key = ha_model_log_relative_mse(m, samples, s->budget,
		                                         s->feasible[i],
		                                         s->budget / s->feasible[i]);
		order[i].index = i;
	}
	qsort(order, n, sizeof *order, by_key_then_index);
	/* The rows tied with the best (headalloc-model(7), THE TIE RULE) go smaller d first. */
	size_t tied = 1;
	while (tied < n && order[tied].key <= order[0].key + HA_TIE_LOG_TOLERANCE)
		tied++;
	qsort(order, tied, sizeof *order, by_index);
	for (size_t i = 0; i < n; i++) {
		uint64_t d = s->feasible[order[i].index];
		rows[i].head_dim = d;
		rows[i].heads = s->budget / d;
		ha_model_eval(m, samples, s->budget, d, &rows[i].terms);
	}
	free(order);
	*out = rows;
	*count = n;
	return HA_OK;
}

enum ha_status ha_solve_failed(struct ha_error *err, enum ha_status st,
                               uint64_t budget)
{
	if (st == HA_EINFEASIBLE)
		return ha_fail(err, st, "no (heads, head_dim) pair of budget %" PRIu64
		               " meets the constraints", budget);
	return ha_fail(err, st, "solving: %s", ha_status_str(st));
}

enum ha_status ha_solve(uint64_t budget, const struct ha_constraints *c,
                        const struct ha_model *model, double samples,
                        struct ha_solution *out)
{
	struct ha_solver *s;
	enum ha_status st = ha_solver_new(budget, c, &s);
	if (st != HA_OK)
		return st;
	st = ha_solver_solve(s, model, samples, out);
	ha_solver_free(s);
	return st;
}
