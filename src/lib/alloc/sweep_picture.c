/* A sweep's picture data (sweep_picture.h): the regimes, rows, relaxed
 * curve and fits that ha_plot_sweep draws, computed here once, through
 * the sweep (sweep.h) and the regimes (regime.h) as the report has them;
 * a grouped sweep's (req->kv) through the same sweep under its KV
 * constraints and ha_regimes_new_grouped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/sweep_picture.h>

#include "base/error_internal.h"
#include "alloc/solver_internal.h"

#define CURVE_POINTS HA_SWEEP_PICTURE_CURVE_POINTS

void ha_sweep_picture_free(struct ha_sweep_picture *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->series && i < p->count; i++)
		free(p->series[i].rows);
	free(p->series);
	ha_regimes_free(p->regimes);
	free(p);
}

static double sample(const struct ha_sweep_request *req, size_t i)
{
	return req->samples.at(req->samples.ctx, i);
}

/* The least-squares intercept with the slope held at claimed: the line
 * through the centroid (X̄, Ȳ) of the fit's points. */
static double intercept_at_slope(const struct ha_fit_result *r, double x_mean,
                                 double claimed)
{
	double y_mean = r->intercept + r->slope * x_mean;
	return y_mean - claimed * x_mean;
}

/* The n of the relaxed curve: log-spaced over [n_lo, n_hi]. */
struct curve_samples {
	double n_lo, n_hi;
};

static double curve_ln_n(const struct curve_samples *cs, size_t i)
{
	return log(cs->n_lo) + (log(cs->n_hi) - log(cs->n_lo)) * (int)i / (CURVE_POINTS - 1);
}

static double curve_sample(const void *ctx, size_t i)
{
	return exp(curve_ln_n(ctx, i));
}

/* The sweep of the request's problem over these budgets and samples. */
static enum ha_status sweep_of(const struct ha_sweep_request *req,
                               const uint64_t *budgets, size_t count,
                               struct ha_solver *const *solvers,
                               struct ha_samples samples, struct ha_sweep **out,
                               struct ha_error *err)
{
	return ha_sweep_new(&(struct ha_sweep_request){
		.model = req->model, .constraints = req->constraints,
		.budgets = budgets, .budget_count = count, .samples = samples,
		.solvers = solvers, .kv = req->kv, .shape = req->shape,
	}, out, err);
}

/* One budget against n: the rows at the request's n (kept up to the mark
 * limit), the fits over all of them, the relaxed curve. */
static enum ha_status budget_series(const struct ha_sweep_picture *p,
                                    struct ha_sweep_picture_series *s,
                                    struct ha_solver *const *solver,
                                    struct ha_error *err)
{
	const struct ha_sweep_request *req = &p->request;
	struct ha_sweep *points = NULL, *curve = NULL;
	struct curve_samples cs = {p->samples_low, p->samples_high};
	enum ha_status st = sweep_of(req, &s->budget, 1, solver, req->samples, &points, err);
	size_t ns = req->samples.count;
	int marked = ns <= HA_SWEEP_PICTURE_MARK_LIMIT;
	if (st == HA_OK && marked && !(s->rows = malloc(ns * sizeof *s->rows)))
		st = ha_fail(err, HA_ENOMEM, "drawing the sweep: %s", ha_status_str(HA_ENOMEM));
	double x_sum = 0.0;
	const struct ha_sweep_row *rows;
	size_t count = 0;
	while (st == HA_OK &&
	       (st = ha_sweep_rows(points, &rows, &count, err)) == HA_OK && count)
		for (size_t k = 0; k < count; k++) {
			x_sum += log(log(rows[k].samples));
			if (marked)
				s->rows[s->row_count++] = rows[k];
		}
	if (st == HA_OK) {
		struct ha_sweep_fit power, logarithmic;
		ha_sweep_budget_fits(points, 0, &power, &logarithmic);
		s->power = power.result;
		s->log_law = logarithmic.result;
		s->fit_status = power.status;
		if (s->fit_status == HA_OK)
			s->fit_status = logarithmic.status;
		s->claimed = power.claimed;
		if (s->fit_status == HA_OK)
			s->claim_intercept = intercept_at_slope(&s->power, x_sum / (double)ns,
			                                        s->claimed);
		st = sweep_of(req, &s->budget, 1, solver,
		              (struct ha_samples){CURVE_POINTS, curve_sample, &cs}, &curve, err);
	}
	size_t i = 0;
	while (st == HA_OK &&
	       (st = ha_sweep_rows(curve, &rows, &count, err)) == HA_OK && count)
		for (size_t k = 0; k < count && i < CURVE_POINTS; k++, i++) {
			s->curve_log_samples[i] = curve_ln_n(&cs, i);
			s->curve_relaxed_head_dim[i] = rows[k].relaxed_head_dim;
		}
	ha_sweep_free(curve);
	ha_sweep_free(points);
	return st;
}

static int by_budget(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* One n, several budgets: the optima at each D in ascending order and
 * the sweep's per-n fit ln H* = ln c + e ln D over them. */
static enum ha_status budget_line(const struct ha_sweep_picture *p,
                                  struct ha_sweep_picture_series *s,
                                  struct ha_error *err)
{
	const struct ha_sweep_request *req = &p->request;
	size_t nb = req->budget_count;
	uint64_t *budgets = malloc(nb * sizeof *budgets);
	s->rows = malloc(nb * sizeof *s->rows);
	struct ha_sweep *line = NULL;
	enum ha_status st = budgets && s->rows ? HA_OK
	                    : ha_fail(err, HA_ENOMEM, "drawing the sweep: %s",
	                              ha_status_str(HA_ENOMEM));
	if (st == HA_OK) {
		memcpy(budgets, req->budgets, nb * sizeof *budgets);
		qsort(budgets, nb, sizeof *budgets, by_budget);
		st = sweep_of(req, budgets, nb, NULL,
		              (struct ha_samples){1, req->samples.at, req->samples.ctx}, &line,
		              err);
	}
	double x_sum = 0.0;
	const struct ha_sweep_row *rows;
	size_t count = 0;
	while (st == HA_OK &&
	       (st = ha_sweep_rows(line, &rows, &count, err)) == HA_OK && count)
		for (size_t k = 0; k < count && s->row_count < nb; k++) {
			x_sum += log((double)budgets[s->row_count]);
			s->rows[s->row_count++] = rows[k];
		}
	const struct ha_sweep_samples_fit *fits = NULL;
	if (st == HA_OK)
		st = ha_sweep_samples_fits(line, &fits, &count, err);
	if (st == HA_OK && count != 1)
		st = ha_fail(err, HA_ENUMERIC, "drawing the sweep: %zu per-n fits of one n",
		             count);
	if (st == HA_OK) {
		s->power = fits[0].heads_law.result;
		s->fit_status = fits[0].heads_law.status;
		s->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
		if (s->fit_status == HA_OK)
			s->claim_intercept = intercept_at_slope(&s->power, x_sum / (double)nb,
			                                        s->claimed);
	}
	ha_sweep_free(line);
	free(budgets);
	return st;
}

/* The request checked, the range of its n found. */
static enum ha_status check_request(const struct ha_sweep_request *req,
                                    double *lo, double *hi, struct ha_error *err)
{
	if (!req || !req->model || !req->budgets || req->budget_count == 0 ||
	    req->samples.count == 0 || !req->samples.at ||
	    ha_model_validate(req->model) != HA_OK ||
	    ha_constraints_validate(req->constraints) != HA_OK)
		return ha_fail(err, HA_EINVAL, "a sweep needs a valid model, budgets and samples");
	if (req->samples.count == 1 && req->budget_count == 1)
		return ha_fail(err, HA_EINVAL, "a sweep needs several budgets or several values of n");
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < req->samples.count; i++) {
		double n = sample(req, i);
		if (!(n > 1.0 && n <= 1e300))
			return ha_fail(err, HA_EINVAL, "a sweep's n must be in (1, 1e300], not %g", n);
		*lo = fmin(*lo, n);
		*hi = fmax(*hi, n);
	}
	return HA_OK;
}

enum ha_status ha_sweep_picture_new(const struct ha_sweep_request *req,
                                    struct ha_sweep_picture **out,
                                    struct ha_error *err)
{
	if (out)
		*out = NULL;
	double lo = 0.0, hi = 0.0;
	enum ha_status st = out ? check_request(req, &lo, &hi, err)
	                        : ha_fail(err, HA_EINVAL, "a sweep picture needs somewhere to go");
	if (st != HA_OK)
		return st;
	struct ha_sweep_picture *p = calloc(1, sizeof *p);
	if (!p)
		return ha_fail(err, HA_ENOMEM, "drawing the sweep: %s", ha_status_str(HA_ENOMEM));
	p->request = *req;
	p->request.on_batch = NULL;
	p->request.batch_ctx = NULL;
	p->request.scratch_size = 0;
	p->against_budget = req->samples.count == 1;
	p->samples_low = lo;
	p->samples_high = hi;
	p->count = p->against_budget ? 1 : req->budget_count;
	p->series = calloc(p->count, sizeof *p->series);
	if (!p->series) {
		ha_sweep_picture_free(p);
		return ha_fail(err, HA_ENOMEM, "drawing the sweep: %s", ha_status_str(HA_ENOMEM));
	}
	if (!p->against_budget) {
		st = req->kv
		     ? ha_regimes_new_grouped(req->model, req->constraints, req->kv,
		                              req->budgets, req->budget_count,
		                              req->solvers, &p->regimes, err)
		     : ha_regimes_new(req->model, req->constraints, req->budgets,
		                      req->budget_count, req->solvers, &p->regimes, err);
		if (st != HA_OK) {
			ha_sweep_picture_free(p);
			return st;
		}
	}
	for (size_t b = 0; st == HA_OK && b < p->count; b++) {
		struct ha_sweep_picture_series *s = &p->series[b];
		if (p->against_budget) {
			st = budget_line(p, s, err);
		} else {
			s->budget = req->budgets[b];
			s->regimes = &p->regimes->budgets[b];
			st = budget_series(p, s, req->solvers ? &req->solvers[b] : NULL, err);
		}
	}
	if (st != HA_OK) {
		ha_sweep_picture_free(p);
		return st;
	}
	*out = p;
	return HA_OK;
}
