/* A sweep's picture data (sweep_picture.h): the rows and fits that
 * ha_plot_sweep draws, read from the sweep's result (sweep.h) as the
 * report reads them, the regimes (regime.h) the caller made, and the one
 * thing neither holds, computed here once: the relaxed curve (a sweep of
 * its own; a grouped result's under its KV constraints). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/sweep_picture.h>

#include "base/error_internal.h"
#include "sweep/sweep_internal.h"

#define CURVE_POINTS HA_SWEEP_PICTURE_CURVE_POINTS

void ha_sweep_picture_free(struct ha_sweep_picture *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->series && i < p->count; i++)
		free(p->series[i].rows);
	free(p->series);
	free(p);
}

static enum ha_status out_of_memory(struct ha_error *err)
{
	return ha_fail(err, HA_ENOMEM, "drawing the sweep: %s", ha_status_str(HA_ENOMEM));
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

/* One budget (the result's b) against n: the rows at the request's n
 * (kept up to the mark limit), the fits over all of them, the relaxed
 * curve. */
static enum ha_status budget_series(const struct ha_sweep_picture *p,
                                    struct ha_sweep_result *result, size_t b,
                                    struct ha_sweep_picture_series *s,
                                    struct ha_solver *const *solver,
                                    struct ha_error *err)
{
	const struct ha_sweep_request *req = &p->request;
	struct ha_sweep *curve = NULL;
	struct curve_samples cs = {p->samples_low, p->samples_high};
	double curve_n[CURVE_POINTS];
	for (size_t i = 0; i < CURVE_POINTS; i++)
		curve_n[i] = exp(curve_ln_n(&cs, i));
	enum ha_status st = HA_OK;
	size_t ns = req->samples.count, nb = req->budget_count;
	int marked = ns <= HA_SWEEP_PICTURE_MARK_LIMIT;
	if (marked && !(s->rows = malloc(ns * sizeof *s->rows)))
		st = out_of_memory(err);
	double x_sum = 0.0;
	for (size_t i = 0; st == HA_OK && i < ns; i++) {
		x_sum += log(log(ha_samples_value(&req->samples, i)));
		if (marked)
			st = ha_sweep_result_rows(result, i * nb + b, 1,
			                          &s->rows[s->row_count++], err);
	}
	if (st == HA_OK) {
		struct ha_sweep_fit power, logarithmic;
		ha_sweep_result_budget_fits(result, b, &power, &logarithmic);
		s->power = power.result;
		s->log_law = logarithmic.result;
		s->fit_status = power.status;
		if (s->fit_status == HA_OK)
			s->fit_status = logarithmic.status;
		s->claimed = power.claimed;
		if (s->fit_status == HA_OK)
			s->claim_intercept = intercept_at_slope(&s->power, x_sum / (double)ns,
			                                        s->claimed);
		/* the request's problem, at the curve's n, for this budget */
		struct ha_sweep_request curve_req = *req;
		curve_req.budgets = &s->budget;
		curve_req.budget_count = 1;
		curve_req.samples = (struct ha_samples){.values = curve_n, .count = CURVE_POINTS};
		curve_req.solvers = solver;
		st = ha_sweep_new(&curve_req, &curve, err);
	}
	const struct ha_sweep_row *rows;
	size_t i = 0, count = 0;
	while (st == HA_OK &&
	       (st = ha_sweep_rows(curve, &rows, &count, err)) == HA_OK && count)
		for (size_t k = 0; k < count && i < CURVE_POINTS; k++, i++) {
			s->curve_log_samples[i] = curve_ln_n(&cs, i);
			s->curve_relaxed_head_dim[i] = rows[k].relaxed_head_dim;
		}
	ha_sweep_free(curve);
	return st;
}

/* Rows by budget (rows of one budget at one n are the same row). */
static int by_budget(const void *a, const void *b)
{
	const struct ha_sweep_row *x = a, *y = b;
	return (x->budget > y->budget) - (x->budget < y->budget);
}

/* One n, several budgets: the optima at each D in ascending order
 * (duplicates kept) and the per-n fit ln H* = ln c +
 * e ln D over them. */
static enum ha_status budget_line(const struct ha_sweep_picture *p,
                                  struct ha_sweep_result *result,
                                  struct ha_sweep_picture_series *s,
                                  struct ha_error *err)
{
	const struct ha_sweep_request *req = &p->request;
	size_t nb = req->budget_count;
	s->rows = malloc(nb * sizeof *s->rows);
	enum ha_status st = s->rows ? ha_sweep_result_rows(result, 0, nb, s->rows, err)
	                            : out_of_memory(err);
	if (st != HA_OK)
		return st;
	s->row_count = nb;
	qsort(s->rows, nb, sizeof *s->rows, by_budget);
	double x_sum = 0.0;
	for (size_t b = 0; b < nb; b++)
		x_sum += log((double)s->rows[b].budget);
	struct ha_sweep_samples_fit fit;
	st = ha_sweep_result_samples_fits(result, 0, 1, &fit, err);
	if (st == HA_OK) {
		s->power = fit.heads_law.result;
		s->fit_status = fit.heads_law.status;
		s->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
		if (s->fit_status == HA_OK)
			s->claim_intercept = intercept_at_slope(&s->power, x_sum / (double)nb,
			                                        s->claimed);
	}
	return st;
}

/* The request checked, the range of its n found. */
static enum ha_status check_request(const struct ha_sweep_request *req,
                                    double *lo, double *hi, struct ha_error *err)
{
	if (!req || !req->model || !req->budgets || req->budget_count == 0 ||
	    req->samples.count == 0 ||
	    ha_model_validate(req->model) != HA_OK ||
	    ha_constraints_validate(req->constraints) != HA_OK)
		return ha_fail(err, HA_EINVAL, "a sweep needs a valid model, budgets and samples");
	if (req->samples.count == 1 && req->budget_count == 1)
		return ha_fail(err, HA_EINVAL, "a sweep needs several budgets or several values of n");
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < req->samples.count; i++) {
		double n = ha_samples_value(&req->samples, i);
		if (!(n > 1.0 && n <= 1e300))
			return ha_fail(err, HA_EINVAL, "a sweep's n must be in (1, 1e300], not %g", n);
		*lo = fmin(*lo, n);
		*hi = fmax(*hi, n);
	}
	return HA_OK;
}

/* The regimes given for the picture against n: one a budget of the
 * result, in its order, over (H, G, d) for a grouped result. */
static enum ha_status check_regimes(const struct ha_sweep_request *req,
                                    const struct ha_regimes *regimes,
                                    struct ha_error *err)
{
	int fits = regimes && regimes->count == req->budget_count &&
	           regimes->grouped == (req->kv != NULL);
	for (size_t b = 0; fits && b < req->budget_count; b++)
		fits = regimes->budgets[b].budget == req->budgets[b];
	return fits ? HA_OK
	            : ha_fail(err, HA_EINVAL, "a sweep picture against n needs the "
	                      "regimes of the sweep's budgets");
}

enum ha_status ha_sweep_picture_new(const struct ha_sweep_picture_request *preq,
                                    struct ha_sweep_picture **out,
                                    struct ha_error *err)
{
	if (out)
		*out = NULL;
	const struct ha_sweep_request *kept = preq && preq->result
		? ha_sweep_result_request(preq->result) : NULL;
	double lo = 0.0, hi = 0.0;
	enum ha_status st = out ? check_request(kept, &lo, &hi, err)
	                        : ha_fail(err, HA_EINVAL, "a sweep picture needs somewhere to go");
	if (st == HA_OK && kept->samples.count > 1)
		st = check_regimes(kept, preq->regimes, err);
	if (st != HA_OK)
		return st;
	struct ha_sweep_picture *p = calloc(1, sizeof *p);
	int against_budget = kept->samples.count == 1;
	size_t count = against_budget ? 1 : kept->budget_count;
	if (!p || !(p->series = calloc(count, sizeof *p->series))) {
		free(p);
		return out_of_memory(err);
	}
	p->request = *kept;
	p->request.solvers = preq->solvers;
	p->against_budget = against_budget;
	p->samples_low = lo;
	p->samples_high = hi;
	p->count = count;
	if (!against_budget)
		p->regimes = preq->regimes;
	for (size_t b = 0; st == HA_OK && b < count; b++) {
		struct ha_sweep_picture_series *s = &p->series[b];
		if (against_budget) {
			st = budget_line(p, preq->result, s, err);
		} else {
			s->budget = kept->budgets[b];
			s->regimes = &p->regimes->budgets[b];
			st = budget_series(p, preq->result, b, s,
			                   preq->solvers ? &preq->solvers[b] : NULL, err);
		}
	}
	if (st != HA_OK) {
		ha_sweep_picture_free(p);
		return st;
	}
	*out = p;
	return HA_OK;
}
