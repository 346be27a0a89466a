/* Whether a calibration's answer is evidence (headalloc-model(7),
 * CALIBRATION (Goodness of fit; The answer)): the goodness of fit and its
 * verdict, and the support of the prediction — inside the measured head
 * dims or not, its margin over the runner-up against the noise, the best
 * run measured at the target, and the parameters the runs do not identify
 * that move the argmin.  Also the joint work limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "base/error_internal.h"
#include "calibrate_internal.h"

size_t ha_cal_work_laws(const struct ha_cal_options *o)
{
	if (!o || !(o->compare || o->law_count))
		return 0;
	return HA_CAL_LADDER + o->law_count;
}

double ha_cal_work(size_t runs, const struct ha_cal_options *o)
{
	if (!o)
		return 0.0;
	double m = (double)runs, resamples = (double)o->bootstrap;
	double laws = ha_cal_work_laws(o);
	double compared = resamples < (double)HA_CAL_COMPARE_RESAMPLES
	                          ? resamples : (double)HA_CAL_COMPARE_RESAMPLES;
	return m * (1.0 + resamples + laws * (m + 1.0 + compared));
}

enum ha_status ha_cal_check_work(size_t runs, const struct ha_cal_options *o,
                                 struct ha_error *err)
{
	double work = ha_cal_work(runs, o);
	if (work <= HA_CAL_WORK_MAX)
		return HA_OK;
	size_t laws = ha_cal_work_laws(o);
	char terms[96] = "";
	if (laws)
		snprintf(terms, sizeof terms, " + %zu laws x (runs + 1 + %zu)", laws,
		         o->bootstrap < HA_CAL_COMPARE_RESAMPLES ? o->bootstrap
		                                                : HA_CAL_COMPARE_RESAMPLES);
	return ha_fail(err, HA_EINVAL, "%zu runs with --bootstrap %zu%s need %.4g "
	               "run-fits, above the limit %.4g (runs x (1 + resamples%s)): "
	               "lower --bootstrap%s", runs, o->bootstrap,
	               laws ? " and --compare" : "", work, HA_CAL_WORK_MAX, terms,
	               laws ? " or leave out --compare" : "");
}

void cal_goodness(const struct ha_cal_fit *fit, const struct ha_run *runs,
                  struct ha_cal_goodness *g)
{
	size_t m = fit->runs, k = fit->free_count;
	memset(g, 0, sizeof *g);
	g->rms_log_residual = fit->rms;
	double mean = 0.0, ss = 0.0;
	int all_se = 1;
	for (size_t i = 0; i < m; i++) {
		mean += log(runs[i].loss);
		all_se &= !isnan(runs[i].loss_se);
	}
	mean /= (double)m;
	for (size_t i = 0; i < m; i++) {
		double x = log(runs[i].loss) - mean;
		ss += x * x;
	}
	g->loss_spread = sqrt(ss / (double)m);
	if (all_se) {
		g->has_chi2 = 1;
		g->chi2 = fit->rss;
		g->dof = m > k ? m - k : 0;
		if (g->dof > 0) {
			g->has_p = 1;
			g->p_value = gsl_cdf_chisq_Q(g->chi2, (double)g->dof);
		}
	}
	if (g->has_p)
		g->lack_of_fit = g->p_value < HA_CAL_LACK_OF_FIT_P;
	else
		g->lack_of_fit = g->rms_log_residual >
		                 HA_CAL_LACK_OF_FIT_RATIO * g->loss_spread;
}

/* The argmin's head_dim with p held at v and the others refitted from
 * the grid; 0 when the refit or the solve fails. */
static uint64_t argmin_with(const struct cal_data *data,
                            const struct ha_cal_law *law, double delta, int p,
                            double v, const struct ha_solver *solver,
                            double samples)
{
	struct ha_cal_law held = *law;
	held.free[p] = 0;
	held.value[p] = v;
	double th[HA_CAL_PARAMS], f;
	if (cal_minimise(data, &held, delta, NULL, NULL, 0, th, &f, NULL, NULL,
	                 NULL) != HA_OK)
		return 0;
	struct ha_allocation a;
	if (cal_predict(solver, samples, th, &a, NULL) != HA_OK)
		return 0;
	return a.head_dim;
}

/* The interval p moves across: its bootstrap ci95, else value ± 2 se,
 * clamped to the domain; 0 when it has neither. */
static int interval_of(const struct ha_cal_estimate *e, int p, double *lo,
                       double *hi)
{
	if (e->has_ci) {
		*lo = e->ci95[0];
		*hi = e->ci95[1];
	} else if (e->has_se) {
		*lo = e->value - 2.0 * e->se;
		*hi = e->value + 2.0 * e->se;
	} else {
		return 0;
	}
	*lo = fmax(*lo, cal_lower[p]);
	*hi = fmin(*hi, cal_upper[p]);
	return isfinite(*lo) && isfinite(*hi);
}

enum ha_status cal_support(const struct ha_run *runs, const struct cal_data *data,
                           double delta, const struct ha_solver *solver,
                           struct ha_calibration *c)
{
	struct ha_cal_prediction *pred = &c->prediction;
	struct ha_cal_support *s = &pred->support;
	const struct ha_cal_fit *fit = &c->fit;
	size_t m = data->m;
	double n = pred->samples;
	memset(s, 0, sizeof *s);
	s->measured_head_dims[0] = s->measured_head_dims[1] = runs[0].head_dim;
	int all_se = 1;
	double se2 = 0.0;
	for (size_t i = 0; i < m; i++) {
		const struct ha_run *r = &runs[i];
		if (r->head_dim < s->measured_head_dims[0])
			s->measured_head_dims[0] = r->head_dim;
		if (r->head_dim > s->measured_head_dims[1])
			s->measured_head_dims[1] = r->head_dim;
		all_se &= !isnan(r->loss_se);
		if (!isnan(r->loss_se))
			se2 += r->loss_se * r->loss_se;
		if (r->heads * r->head_dim == pred->budget &&
		    fabs(r->samples - n) <= 1e-9 * n &&
		    (!s->has_best_measured || r->loss < s->best_loss)) {
			s->has_best_measured = 1;
			s->best_heads = r->heads;
			s->best_head_dim = r->head_dim;
			s->best_loss = r->loss;
		}
	}
	s->inside_measured_head_dims = pred->head_dim >= s->measured_head_dims[0] &&
	                               pred->head_dim <= s->measured_head_dims[1];
	s->noise_from_se = all_se;
	s->noise = all_se ? sqrt(se2 / (double)m) : fit->rms * pred->loss;
	s->beats_best_measured = s->has_best_measured && pred->loss < s->best_loss;

	struct ha_model model = ha_cal_model_of(fit->law.value);
	struct ha_allocation *all = NULL;
	size_t count = 0;
	enum ha_status st = ha_solver_enumerate(solver, &model, n, &all, &count);
	if (st == HA_ENOMEM)
		return st;
	if (st == HA_OK && count > 1) {
		/* the runner-up: the best allocation other than the optimum */
		size_t r = all[0].head_dim == pred->head_dim ? 1 : 0;
		s->has_runner_up = 1;
		s->runner_heads = all[r].heads;
		s->runner_head_dim = all[r].head_dim;
		s->loss_gap = fmax(0.0, all[r].terms.mse - pred->loss);
	}
	free(all);
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	if (s->has_runner_up && b->fitted > 0 && b->refits) {
		struct ha_cal_point at = {(double)pred->budget, (double)pred->head_dim, n};
		struct ha_cal_point ru = {(double)pred->budget, (double)s->runner_head_dim, n};
		size_t better = 0;
		for (size_t i = 0; i < b->fitted; i++) {
			const double *th = b->refits + i * HA_CAL_PARAMS;
			better += ha_cal_log_loss(th, &ru) < ha_cal_log_loss(th, &at);
		}
		s->has_probability = 1;
		s->probability_better = (double)better / (double)b->fitted;
	}
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const struct ha_cal_estimate *e = &fit->param[p];
		/* se above the value: of c itself for a log-scale coefficient,
		 * whose se in ln c above 1 is an se of c above c */
		double scale = e->log_scale ? 1.0 : fabs(e->value);
		if (!e->free || (e->has_se && !(e->se > scale)))
			continue;
		double lo, hi;
		if (!interval_of(e, p, &lo, &hi))
			continue;
		uint64_t a = argmin_with(data, &fit->law, delta, p, lo, solver, n);
		uint64_t z = argmin_with(data, &fit->law, delta, p, hi, solver, n);
		if ((a && a != pred->head_dim) || (z && z != pred->head_dim))
			s->unidentified[s->unidentified_count++] = p;
	}
	return HA_OK;
}
