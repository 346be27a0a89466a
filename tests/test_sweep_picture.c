/* A sweep's picture data (sweep_picture.h), made from the sweep's result,
 * against independent computations: every row and every curve point is the single query of
 * its point (ha_solve), the steps are ha_regimes_new's, the fits those of
 * ha_fit over the single queries' relaxed optima, and the claimed line's
 * intercept the centroid's (mean ln y - claimed mean x); a grouped
 * sweep's rows and curve are the single grouped queries of their points
 * (ha_grouped_solve) and each row lies on its regime's step. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>
#include "fit/fit_internal.h"

#define POINTS 9

static double decade(size_t i)
{
	return pow(10.0, 4.0 + (double)i);
}

/* n = decade(0), ..., decade(count - 1): a range lands on the powers of
 * ten. */
static struct ha_samples decades(size_t count)
{
	return (struct ha_samples){.count = count, .from = decade(0),
	                           .to = decade(count - 1)};
}

/* A picture borrows its sweep's result and regimes: all made by
 * picture_new (the regimes as the CLI makes them), all freed by
 * picture_free. */
static struct {
	struct ha_sweep_picture *picture;
	struct ha_sweep_result *result;
	struct ha_regimes *regimes;
} held[8];

static enum ha_status picture_new(const struct ha_sweep_request *req,
                                  struct ha_sweep_picture **out,
                                  struct ha_error *err)
{
	struct ha_sweep_result *result = NULL;
	struct ha_regimes *regimes = NULL;
	*out = NULL;
	enum ha_status st = req ? ha_sweep_run(req, NULL, &result, err) : HA_OK;
	if (st == HA_OK && req && req->samples.count > 1)
		st = req->kv ? ha_regimes_new_grouped(req->model, req->constraints, req->kv,
		                                      req->budgets, req->budget_count,
		                                      NULL, &regimes, err)
		             : ha_regimes_new(req->model, req->constraints, req->budgets,
		                              req->budget_count, NULL, &regimes, err);
	if (st == HA_OK)
		st = ha_sweep_picture_new(&(struct ha_sweep_picture_request){
			.result = result, .regimes = regimes}, out, err);
	if (st != HA_OK) {
		ha_regimes_free(regimes);
		ha_sweep_result_free(result);
		return st;
	}
	size_t k = 0;
	while (held[k].picture)
		k++;
	cr_assert_lt(k, 8);
	held[k].picture = *out;
	held[k].result = result;
	held[k].regimes = regimes;
	return st;
}

static void picture_free(struct ha_sweep_picture *p)
{
	ha_sweep_picture_free(p);
	for (size_t k = 0; p && k < 8; k++)
		if (held[k].picture == p) {
			ha_sweep_result_free(held[k].result);
			ha_regimes_free(held[k].regimes);
			held[k].picture = NULL;
			held[k].result = NULL;
			held[k].regimes = NULL;
		}
}

static struct ha_sweep_picture *picture_of(const struct ha_model *m,
                                           const uint64_t *budgets, size_t count,
                                           size_t samples)
{
	struct ha_sweep_picture *p = NULL;
	struct ha_error err;
	cr_assert_eq(picture_new(&(struct ha_sweep_request){
		.model = m, .budgets = budgets, .budget_count = count,
		.samples = decades(samples),
	}, &p, &err), HA_OK, "%s", err.message);
	return p;
}

static struct ha_solution solved(uint64_t budget, double n)
{
	struct ha_model m = ha_model_defaults();
	double n_samples = n;
	struct ha_solution s;
	cr_assert_eq(ha_solve(budget, NULL, &m, n_samples, &s), HA_OK);
	return s;
}

Test(sweep_picture, against_n_every_number_is_the_single_query)
{
	struct ha_model m = ha_model_defaults();
	const uint64_t budgets[] = {512, 128};
	struct ha_sweep_picture *p = picture_of(&m, budgets, 2, POINTS);
	cr_assert_not(p->against_budget);
	cr_assert_eq(p->count, 2);
	cr_assert_eq(p->samples_low, 1e4);
	cr_assert_eq(p->samples_high, 1e12);
	struct ha_regimes *want_regimes = NULL;
	cr_assert_eq(ha_regimes_new(&m, NULL, budgets, 2, NULL, &want_regimes, NULL), HA_OK);
	for (size_t b = 0; b < 2; b++) {
		const struct ha_sweep_picture_series *s = &p->series[b];
		cr_assert_eq(s->budget, budgets[b]);
		const struct ha_budget_regimes *g = &want_regimes->budgets[b];
		cr_assert_eq(s->regimes->count, g->count);
		for (size_t i = 0; i < g->count; i++) {
			cr_assert_eq(s->regimes->regimes[i].head_dim, g->regimes[i].head_dim);
			cr_assert_eq(s->regimes->regimes[i].log_samples_from,
			             g->regimes[i].log_samples_from);
		}
		/* the rows, and the fits over the single queries' x* */
		struct ha_fit *power, *logarithmic;
		cr_assert_eq(ha_fit_new(HA_FIT_POWER_LOGLN, HA_FIT_STORE_DEFAULT, &power), HA_OK);
		cr_assert_eq(ha_fit_new(HA_FIT_LOG, HA_FIT_STORE_DEFAULT, &logarithmic), HA_OK);
		cr_assert_eq(s->row_count, POINTS);
		double x_sum = 0.0, y_sum = 0.0;
		for (size_t i = 0; i < POINTS; i++) {
			struct ha_solution want = solved(budgets[b], decade(i));
			cr_assert_eq(s->rows[i].samples, decade(i));
			cr_assert_eq(s->rows[i].head_dim, want.optimum.head_dim);
			cr_assert_eq(s->rows[i].relaxed_head_dim, want.relaxed.head_dim);
			ha_fit_add(power, decade(i), want.relaxed.head_dim);
			ha_fit_add(logarithmic, decade(i), want.relaxed.head_dim);
			x_sum += log(log(decade(i)));
			y_sum += log(want.relaxed.head_dim);
		}
		struct ha_fit_result wp, wl;
		cr_assert_eq(ha_fit_result(power, NULL, NULL, &wp), HA_OK);
		cr_assert_eq(ha_fit_result(logarithmic, NULL, NULL, &wl), HA_OK);
		cr_assert_eq(s->fit_status, HA_OK);
		cr_assert_eq(s->power.slope, wp.slope);
		cr_assert_eq(s->power.intercept, wp.intercept);
		cr_assert_eq(s->log_law.slope, wl.slope);
		cr_assert_eq(s->log_law.intercept, wl.intercept);
		cr_assert_eq(s->claimed, ha_fit_seed_exponent(m.smoothness));
		double centroid = y_sum / POINTS - s->claimed * x_sum / POINTS;
		cr_assert(fabs(s->claim_intercept - centroid) < 1e-12,
		          "claimed line %.17g, centroid %.17g", s->claim_intercept, centroid);
		ha_fit_free(power);
		ha_fit_free(logarithmic);
		/* the curve: log-spaced over the n, both ends, each point solved */
		cr_assert_eq(s->curve_log_samples[0], log(1e4));
		cr_assert(fabs(s->curve_log_samples[HA_SWEEP_PICTURE_CURVE_POINTS - 1] -
		               log(1e12)) < 1e-12);
		for (size_t i = 0; i < HA_SWEEP_PICTURE_CURVE_POINTS; i += 17) {
			struct ha_solution want = solved(budgets[b], exp(s->curve_log_samples[i]));
			cr_assert_eq(s->curve_relaxed_head_dim[i], want.relaxed.head_dim,
			             "curve point %zu", i);
		}
	}
	ha_regimes_free(want_regimes);
	picture_free(p);
}

Test(sweep_picture, against_d_rows_ascend_and_the_heads_law_fits_them)
{
	struct ha_model m = ha_model_defaults();
	const uint64_t budgets[] = {1024, 128, 4096, 256};
	const uint64_t ascending[] = {128, 256, 1024, 4096};
	struct ha_sweep_picture *p = picture_of(&m, budgets, 4, 1);
	cr_assert(p->against_budget);
	cr_assert_eq(p->count, 1);
	const struct ha_sweep_picture_series *s = &p->series[0];
	cr_assert_null(s->regimes);
	cr_assert_eq(s->row_count, 4);
	struct ha_fit *heads;
	cr_assert_eq(ha_fit_new(HA_FIT_POWER, 4, &heads), HA_OK);
	double x_sum = 0.0, y_sum = 0.0;
	for (size_t i = 0; i < 4; i++) {
		struct ha_solution want = solved(ascending[i], decade(0));
		cr_assert_eq(s->rows[i].budget, ascending[i]);
		cr_assert_eq(s->rows[i].head_dim, want.optimum.head_dim);
		cr_assert_eq(s->rows[i].relaxed_head_dim, want.relaxed.head_dim);
		double h = (double)ascending[i] / want.relaxed.head_dim;
		ha_fit_add(heads, (double)ascending[i], h);
		x_sum += log((double)ascending[i]);
		y_sum += log(h);
	}
	struct ha_fit_result want;
	cr_assert_eq(ha_fit_result(heads, NULL, NULL, &want), HA_OK);
	cr_assert_eq(s->fit_status, HA_OK);
	cr_assert(fabs(s->power.slope - want.slope) < 1e-12);
	cr_assert(fabs(s->power.intercept - want.intercept) < 1e-12);
	cr_assert_eq(s->claimed, HA_FIT_SEED_BUDGET_EXPONENT);
	cr_assert(fabs(s->claim_intercept - (y_sum / 4 - x_sum / 4)) < 1e-12);
	ha_fit_free(heads);
	picture_free(p);
}

Test(sweep_picture, many_points_keep_no_rows_but_fit_them_all)
{
	struct ha_model m = ha_model_defaults();
	const uint64_t budgets[] = {512};
	struct ha_sweep_picture *p = NULL;
	cr_assert_eq(picture_new(&(struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = 1,
		.samples = decades(HA_SWEEP_PICTURE_MARK_LIMIT + 1),
	}, &p, NULL), HA_OK);
	cr_assert_eq(p->series[0].row_count, 0);
	cr_assert_eq(p->series[0].power.count, HA_SWEEP_PICTURE_MARK_LIMIT + 1);
	picture_free(p);
}

Test(sweep_picture, refuses_what_has_no_picture)
{
	struct ha_model m = ha_model_defaults();
	const uint64_t one[] = {512};
	struct ha_sweep_picture *p = (struct ha_sweep_picture *)1;
	struct ha_error err;
	cr_assert_eq(picture_new(NULL, &p, &err), HA_EINVAL);
	cr_assert_null(p);
	struct ha_sweep_request point = {.model = &m, .budgets = one, .budget_count = 1,
	                                 .samples = decades(1)};
	cr_assert_eq(picture_new(&point, &p, &err), HA_EINVAL);
	cr_assert_str_eq(err.message, "a sweep needs several budgets or several values of n");
	const uint64_t infeasible[] = {7};
	struct ha_constraints none_fit = {.min_head_dim = 64};
	struct ha_sweep_request hard = {.model = &m, .constraints = &none_fit,
	                                .budgets = infeasible, .budget_count = 1,
	                                .samples = decades(3)};
	cr_assert_eq(picture_new(&hard, &p, &err), HA_EINFEASIBLE);
	cr_assert_str_eq(err.message, "no (heads, head_dim) pair of budget 7 meets the constraints");
	cr_assert_null(p);
	picture_free(NULL);
}

/* The single grouped query of (D, n) under kv. */
static void solved_grouped(uint64_t budget, double n,
                           const struct ha_kv_constraints *kv,
                           const struct ha_kv_shape *shape,
                           struct ha_grouped_solution *out)
{
	struct ha_model m = ha_model_defaults();
	m.group_hdi = 0.2;
	double n_samples = n;
	struct ha_solver *solver = NULL;
	cr_assert_eq(ha_solver_new(budget, NULL, &solver), HA_OK);
	cr_assert_eq(ha_grouped_solve(&(struct ha_grouped_request){
		.solver = solver, .model = &m, .samples = n_samples, .kv = kv, .shape = shape}, out), HA_OK);
	ha_solver_free(solver);
}

Test(sweep_picture, grouped_rows_curve_and_steps_are_the_single_grouped_queries)
{
	struct ha_model m = ha_model_defaults();
	m.group_hdi = 0.2;
	const uint64_t budgets[] = {4096, 768};
	const struct ha_kv_constraints kvs[] = {{.max_kv_dim = 512}, {.kv_heads = 4}};
	const struct ha_kv_shape shape = {.layers = 3, .kv_bytes = 2};
	for (size_t k = 0; k < 2; k++) {
		struct ha_sweep_picture *p = NULL;
		struct ha_error err;
		cr_assert_eq(picture_new(&(struct ha_sweep_request){
			.model = &m, .budgets = budgets, .budget_count = 2,
			.samples = decades(POINTS), .kv = &kvs[k], .shape = &shape,
		}, &p, &err), HA_OK, "%s", err.message);
		cr_assert(p->regimes->grouped);
		size_t grouped = 0;
		for (size_t b = 0; b < 2; b++) {
			const struct ha_sweep_picture_series *s = &p->series[b];
			cr_assert_eq(s->row_count, POINTS);
			for (size_t i = 0; i < POINTS; i++) {
				const struct ha_sweep_row *r = &s->rows[i];
				struct ha_grouped_solution want;
				solved_grouped(budgets[b], decade(i), &kvs[k], &shape, &want);
				cr_assert_eq(r->heads, want.optimum.heads, "D %zu n %zu", b, i);
				cr_assert_eq(r->kv_heads, want.optimum.kv_heads);
				cr_assert_eq(r->head_dim, want.optimum.head_dim);
				cr_assert_eq(r->kv_cache_bytes_per_token,
				             want.optimum.kv_cache_bytes_per_token);
				cr_assert_eq(r->mse, want.optimum.terms.mse);
				cr_assert_eq(r->relaxed_head_dim, want.relaxed.head_dim);
				grouped += r->kv_heads < r->heads;
				ha_grouped_solution_finish(&want);
				/* the step drawn at n is the row's (d, G) */
				double ln_n = log(r->samples);
				size_t hits = 0;
				for (size_t j = 0; j < s->regimes->count; j++) {
					const struct ha_regime *g = &s->regimes->regimes[j];
					if (!(g->log_samples_from < ln_n && ln_n < g->log_samples_to))
						continue;
					hits++;
					cr_assert_eq(g->head_dim, r->head_dim, "D %zu n %zu", b, i);
					cr_assert_eq(g->kv_heads, r->kv_heads, "D %zu n %zu", b, i);
				}
				cr_assert_eq(hits, 1);
			}
			for (size_t i = 0; i < HA_SWEEP_PICTURE_CURVE_POINTS; i += 29) {
				struct ha_grouped_solution want;
				solved_grouped(budgets[b], exp(s->curve_log_samples[i]), &kvs[k],
				               &shape, &want);
				cr_assert_eq(s->curve_relaxed_head_dim[i], want.relaxed.head_dim,
				             "curve point %zu", i);
				ha_grouped_solution_finish(&want);
			}
		}
		/* the KV constraint binds: these are not the ungrouped rows */
		cr_assert_gt(grouped, 0);
		picture_free(p);
	}
}

Test(sweep_picture, grouped_against_d_rows_are_the_single_grouped_queries)
{
	struct ha_model m = ha_model_defaults();
	m.group_hdi = 0.2;
	const uint64_t budgets[] = {4096, 256, 1024};
	const uint64_t ascending[] = {256, 1024, 4096};
	const struct ha_kv_constraints kv = {.max_kv_dim = 512};
	struct ha_sweep_picture *p = NULL;
	cr_assert_eq(picture_new(&(struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = 3,
		.samples = decades(1), .kv = &kv,
	}, &p, NULL), HA_OK);
	cr_assert(p->against_budget);
	const struct ha_sweep_picture_series *s = &p->series[0];
	cr_assert_eq(s->row_count, 3);
	for (size_t i = 0; i < 3; i++) {
		struct ha_grouped_solution want;
		solved_grouped(ascending[i], decade(0), &kv, NULL, &want);
		cr_assert_eq(s->rows[i].budget, ascending[i]);
		cr_assert_eq(s->rows[i].head_dim, want.optimum.head_dim);
		cr_assert_eq(s->rows[i].kv_heads, want.optimum.kv_heads);
		cr_assert_leq(s->rows[i].kv_dim, kv.max_kv_dim);
		cr_assert_eq(s->rows[i].relaxed_head_dim, want.relaxed.head_dim);
		ha_grouped_solution_finish(&want);
	}
	picture_free(p);
}
