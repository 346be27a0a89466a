/* The whole calibration (headalloc-model(7), CALIBRATION): options and
 * the work limit, the main fit, the prediction at the target, bootstrap,
 * comparison, whether the answer is evidence, and the warnings. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "base/text.h"

#include "base/error_internal.h"
#include "calibrate_internal.h"
#include "alloc/solver_internal.h"

void ha_cal_options_defaults(struct ha_cal_options *o)
{
	memset(o, 0, sizeof *o);
	struct ha_model seeds = ha_model_defaults();
	ha_cal_law_from_model(&o->law, &seeds);
	snprintf(o->law.name, sizeof o->law.name, "smoothness");
	o->law.free[HA_CAL_IRREDUCIBLE] = 1;
	o->law.free[HA_CAL_BIAS_COEF] = 1;
	o->law.free[HA_CAL_SMOOTHNESS] = 1;
	o->law.free[HA_CAL_VAR_COEF] = 1;
	o->huber_delta = HA_CAL_HUBER_DEFAULT;
	o->bootstrap = HA_CAL_BOOTSTRAP_DEFAULT;
	o->seed = 1;
	o->compare = 1;
	o->collinear = HA_CAL_COLLINEAR_DEFAULT;
	o->bootstrap_kind = HA_CAL_BOOT_CASES;
}

static enum ha_status check_options(const struct ha_cal_options *o,
                                    struct ha_error *err)
{
	enum ha_status st = cal_check_law(&o->law, o->huber_delta, err);
	const char *fault = o->law.name[0] && memchr(o->law.name, '\0',
	                                             HA_CAL_NAME_MAX)
	                    ? ha_name_fault(o->law.name, strlen(o->law.name), NULL)
	                    : NULL;
	if (st == HA_OK && fault) {
		char shown[HA_CAL_NAME_MAX];
		return ha_fail(err, HA_EINVAL, "law: its name '%s' %s",
		               ha_text_safe(o->law.name, shown, sizeof shown), fault);
	}
	if (st == HA_OK)
		st = cal_check_user_laws(o, err);
	if (st != HA_OK)
		return st;
	if (!ha_cal_bootstrap_kind_str(o->bootstrap_kind))
		return ha_fail(err, HA_EINVAL,
		               "bootstrap_kind: %d is none of cases, residuals, wild",
		               (int)o->bootstrap_kind);
	if (!(o->collinear > 0.0 && o->collinear <= 1.0))
		return ha_fail(err, HA_EINVAL,
		               "collinear: the correlation threshold must be in (0, 1], found %g",
		               o->collinear);
	const struct ha_cal_target *t = &o->target;
	if (t->budget == 0)
		return HA_OK;
	if (t->budget > HA_BUDGET_MAX)
		return ha_fail(err, HA_EINVAL, "target budget %llu exceeds 2^63 - 1",
		               (unsigned long long)t->budget);
	if (!isfinite(t->samples) || !(t->samples > 1.0) || t->samples > 1e300)
		return ha_fail(err, HA_EINVAL,
		               "target samples must be a finite number in (1, 1e300], found %g",
		               t->samples);
	if (ha_constraints_validate(&t->constraints) != HA_OK)
		return ha_fail(err, HA_EINVAL,
		               "target constraints: a minimum exceeds its maximum");
	return HA_OK;
}

/* group_hdi free (in the law or a user law) needs a run with kv_heads <
 * heads: on ungrouped runs it is not in the model at all. */
static enum ha_status check_groups(const struct ha_run *runs, size_t count,
                                   const struct ha_cal_options *o,
                                   struct ha_error *err)
{
	int free = o->law.free[HA_CAL_GROUP_HDI];
	for (size_t l = 0; o->laws && l < o->law_count; l++)
		free |= o->laws[l].free[HA_CAL_GROUP_HDI];
	if (!free)
		return HA_OK;
	for (size_t i = 0; i < count; i++)
		if (runs[i].kv_heads != 0 && runs[i].kv_heads < runs[i].heads)
			return HA_OK;
	return ha_fail(err, HA_EINVAL,
	               "group_hdi: free, but no run has kv_heads < heads (no "
	               "grouped run, so the runs do not determine it)");
}

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

/* ---- whether the answer is evidence --------------------------------------- */

/* Whether a calibration's answer is evidence (headalloc-model(7),
 * CALIBRATION (Goodness of fit; The answer)): the goodness of fit and its
 * verdict, and the support of the prediction — inside the measured head
 * dims or not, its margin over the runner-up against the noise, the best
 * run measured at the target, and the parameters the runs do not identify
 * that move the argmin. */
static void goodness(const struct ha_cal_fit *fit, const struct ha_run *runs,
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
	uint64_t heads, head_dim;
	return cal_predict(solver, samples, th, &heads, &head_dim, NULL) ? head_dim
	                                                                 : 0;
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

static enum ha_status support(const struct ha_run *runs, const struct cal_data *data,
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

/* ---- the warnings -------------------------------------------------------- */

int cal_warn(struct ha_calibration *c, enum ha_cal_warning_kind kind,
             const char *fmt, ...)
{
	struct ha_cal_warning *w = realloc(c->warnings,
	                                   (c->warning_count + 1) * sizeof *w);
	if (!w)
		return 0;
	c->warnings = w;
	w += c->warning_count++;
	w->kind = kind;
	va_list ap;
	va_start(ap, fmt);
	if (vsnprintf(w->message, sizeof w->message, fmt, ap) < 0)
		w->message[0] = '\0';
	va_end(ap);
	return 1;
}

/* The warnings of headalloc-model(7), CALIBRATION (Uncertainty and identifiability; The answer) that need no bootstrap. */
static int fit_warnings(struct ha_calibration *c, const struct ha_run *runs,
                        size_t count, const struct ha_cal_options *o)
{
	const struct ha_cal_fit *fit = &c->fit;
	int ok = 1;
	double n_lo = runs[0].samples, n_hi = runs[0].samples;
	uint64_t d_lo = runs[0].heads * runs[0].head_dim, d_hi = d_lo;
	for (size_t i = 1; i < count; i++) {
		uint64_t budget = runs[i].heads * runs[i].head_dim;
		n_lo = fmin(n_lo, runs[i].samples);
		n_hi = fmax(n_hi, runs[i].samples);
		d_lo = budget < d_lo ? budget : d_lo;
		d_hi = budget > d_hi ? budget : d_hi;
	}
	if (n_lo == n_hi && fit->free_count > 0)
		ok &= cal_warn(c, HA_CAL_WARN_ONE_SAMPLES,
		           "every run has samples %g: var_coef and n are one number, "
		           "and a prediction at another n rests on the 1/n law alone",
		           n_lo);
	if (fit->free_count > 0 && !fit->has_covariance)
		ok &= cal_warn(c, HA_CAL_WARN_NO_COVARIANCE, "no standard errors: %s",
		           fit->no_covariance);
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		for (int q = p + 1; q < HA_CAL_PARAMS && fit->has_covariance; q++) {
			double r = fit->correlation[p][q];
			if (fit->law.free[p] && fit->law.free[q] && fabs(r) >= o->collinear)
				ok &= cal_warn(c, HA_CAL_WARN_COLLINEAR,
				           "%s and %s are nearly collinear (correlation %.4f)",
				           fit->param[p].name, fit->param[q].name, r);
		}
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (fit->param[p].at_bound)
			ok &= cal_warn(c, HA_CAL_WARN_AT_BOUND,
			           "%s ended on a bound of its domain (%g)",
			           fit->param[p].name, fit->param[p].value);
	const struct ha_cal_target *t = &o->target;
	if (t->budget == 0)
		return ok;
	if (t->budget < d_lo || t->budget > d_hi)
		ok &= cal_warn(c, HA_CAL_WARN_BUDGET_OUTSIDE,
		           "target budget %llu lies outside the runs' budgets "
		           "[%llu, %llu]: the prediction is an extrapolation",
		           (unsigned long long)t->budget, (unsigned long long)d_lo,
		           (unsigned long long)d_hi);
	if (t->samples < n_lo || t->samples > n_hi)
		ok &= cal_warn(c, HA_CAL_WARN_SAMPLES_OUTSIDE,
		           "target samples %g lies outside the runs' samples "
		           "[%g, %g]: the prediction is an extrapolation",
		           t->samples, n_lo, n_hi);
	return ok;
}

static int lack_of_fit_warning(struct ha_calibration *c)
{
	const struct ha_cal_goodness *g = &c->goodness;
	if (g->has_p)
		return cal_warn(c, HA_CAL_WARN_LACK_OF_FIT,
		            "lack of fit: chi2 %.4g on %zu degrees of freedom (p = "
		            "%.3g < %g): the law misfits the runs; its prediction is "
		            "not evidence", g->chi2, g->dof, g->p_value,
		            HA_CAL_LACK_OF_FIT_P);
	return cal_warn(c, HA_CAL_WARN_LACK_OF_FIT,
	            "lack of fit: the rms log residual %.4g exceeds %g x the "
	            "spread of the measured log losses (%.4g): the law misfits "
	            "the runs; its prediction is not evidence",
	            g->rms_log_residual, HA_CAL_LACK_OF_FIT_RATIO, g->loss_spread);
}

/* The prediction's support checks that fail (headalloc-model(7),
 * CALIBRATION (The answer)). */
static int support_warnings(struct ha_calibration *c)
{
	const struct ha_cal_prediction *p = &c->prediction;
	const struct ha_cal_support *s = &p->support;
	int ok = 1;
	if (c->goodness.lack_of_fit)
		ok &= lack_of_fit_warning(c);
	if (!s->inside_measured_head_dims)
		ok &= cal_warn(c, HA_CAL_WARN_UNSUPPORTED,
		           "the predicted head_dim %llu lies outside the measured "
		           "head dims [%llu, %llu]: an extrapolation in d",
		           (unsigned long long)p->head_dim,
		           (unsigned long long)s->measured_head_dims[0],
		           (unsigned long long)s->measured_head_dims[1]);
	if (s->has_runner_up && !(s->loss_gap > s->noise)) {
		char prob[96] = "";
		if (s->has_probability)
			snprintf(prob, sizeof prob,
			         "; the runner-up is better in %.1f%% of the bootstrap's refits",
			         100.0 * s->probability_better);
		ok &= cal_warn(c, HA_CAL_WARN_UNSUPPORTED,
		           "the predicted gap in loss to the runner-up %llu x %llu "
		           "(%.3g) is within the noise (%.3g, %s): the runs cannot "
		           "tell them apart%s",
		           (unsigned long long)s->runner_heads,
		           (unsigned long long)s->runner_head_dim, s->loss_gap,
		           s->noise, s->noise_from_se ? "the rms loss_se"
		                                      : "the rms residual x the loss",
		           prob);
	}
	if (s->has_best_measured && !s->beats_best_measured)
		ok &= cal_warn(c, HA_CAL_WARN_UNSUPPORTED,
		           "the predicted loss %.6g of %llu x %llu does not beat the "
		           "run %llu x %llu measured at the target's budget and "
		           "samples (loss %.6g)", p->loss,
		           (unsigned long long)p->heads, (unsigned long long)p->head_dim,
		           (unsigned long long)s->best_heads,
		           (unsigned long long)s->best_head_dim, s->best_loss);
	for (size_t i = 0; i < s->unidentified_count; i++) {
		const struct ha_cal_estimate *e = &c->fit.param[s->unidentified[i]];
		ok &= cal_warn(c, HA_CAL_WARN_UNSUPPORTED,
		           "the argmin changes when %s, which the runs do not "
		           "identify, moves across its interval (%s): the prediction "
		           "rests on its value", e->name,
		           e->has_ci ? "the bootstrap's 95%" : "value +- 2 se");
	}
	return ok;
}

static enum ha_status oom(struct ha_error *err)
{
	return ha_fail(err, HA_ENOMEM, "out of memory");
}

enum ha_status ha_calibrate(const struct ha_run *runs, size_t count,
                            const struct ha_cal_options *o,
                            struct ha_calibration **out, struct ha_error *err)
{
	ha_error_init(err);
	if (!out)
		return ha_fail(err, HA_EINVAL, "no result to fill");
	*out = NULL;
	if (!o)
		return ha_fail(err, HA_EINVAL, "no options");
	enum ha_status st = ha_cal_validate_runs(runs, count, err);
	if (st == HA_OK)
		st = check_options(o, err);
	if (st == HA_OK)
		st = check_groups(runs, count, o, err);
	if (st != HA_OK)
		return st;
	st = ha_cal_check_work(count, o, err);
	if (st != HA_OK)
		return st;

	struct ha_solver *solver = NULL;
	if (o->target.budget) {
		st = ha_solver_new(o->target.budget, &o->target.constraints, &solver);
		if (st == HA_EINFEASIBLE)
			return ha_fail(err, st,
			               "target budget %llu: no allocation meets the constraints",
			               (unsigned long long)o->target.budget);
		if (st != HA_OK)
			return st == HA_ENOMEM ? oom(err)
			                       : ha_fail(err, st, "target budget %llu: %s",
			                                 (unsigned long long)o->target.budget,
			                                 ha_status_str(st));
	}
	struct ha_calibration *c = calloc(1, sizeof *c);
	struct cal_data data;
	if (!c || cal_data_init(&data, runs, count) != HA_OK) {
		free(c);
		ha_solver_free(solver);
		return oom(err);
	}
	data.threads = o->threads; /* as pool_threads reads it (base/pool.h) */
	/* The main fit may be stopped between its starts; the bootstrap
	 * and the comparison are told of their own work. */
	struct cal_poll poll;
	cal_poll_init(&poll, &o->progress, "fits", 1);
	data.poll = o->progress.fn ? &poll : NULL;
	st = cal_fit_data(runs, &data, &o->law, o->huber_delta, NULL, 0, &c->fit,
	                  err);
	data.poll = NULL;
	if (st != HA_OK)
		goto fail_quiet;

	double n = o->target.budget ? o->target.samples : runs[0].samples;
	if (!o->target.budget)
		for (size_t i = 1; i < count; i++)
			n = fmax(n, runs[i].samples);
	c->model = ha_cal_model_of(c->fit.law.value);
	c->samples = n;
	struct ha_cal_prediction *pred = &c->prediction;
	if (solver) {
		struct ha_allocation a;
		st = ha_model_validate(&c->model) != HA_OK
		     ? HA_EINVAL
		     : ha_solver_solve_integer(solver, &c->model, n, &a,
		                               &pred->certificate);
		if (st != HA_OK) {
			ha_fail(err, st, "the calibrated model gives no optimum at the target: %s",
			        ha_status_str(st));
			goto fail_quiet;
		}
		pred->defined = 1;
		pred->budget = o->target.budget;
		pred->samples = n;
		pred->constraints = o->target.constraints;
		pred->heads = a.heads;
		pred->head_dim = a.head_dim;
		pred->loss = a.terms.mse;
		pred->log_loss = a.terms.log_mse;
	}
	if (!fit_warnings(c, runs, count, o))
		goto fail_oom;
	goodness(&c->fit, runs, &c->goodness);
	st = cal_bootstrap(runs, &data, o->huber_delta, o, solver, n, c);
	if (st == HA_ECANCELED) {
		ha_fail(err, st, "the bootstrap was cancelled");
		goto fail_quiet;
	}
	if (st != HA_OK || !cal_bootstrap_warnings(c, &data, runs))
		goto fail_oom;
	if (solver && (support(runs, &data, o->huber_delta, solver, c) != HA_OK ||
	               !support_warnings(c)))
		goto fail_oom;
	if (!solver && c->goodness.lack_of_fit && !lack_of_fit_warning(c))
		goto fail_oom;
	if (cal_least_squares(runs, &data, o->huber_delta, solver, n, c) != HA_OK)
		goto fail_oom;
	if (o->compare || o->law_count) {
		st = cal_compare(runs, &data, o, solver, n, c);
		if (st == HA_ECANCELED) {
			ha_fail(err, st, "the comparison was cancelled");
			goto fail_quiet;
		}
		if (st != HA_OK)
			goto fail_oom;
	}
	cal_data_free(&data);
	ha_solver_free(solver);
	*out = c;
	return HA_OK;

fail_oom:
	oom(err);
	st = HA_ENOMEM;
fail_quiet:
	cal_data_free(&data);
	ha_solver_free(solver);
	ha_calibration_free(c);
	return st;
}

void ha_calibration_free(struct ha_calibration *c)
{
	if (!c)
		return;
	ha_cal_fit_finish(&c->fit);
	free(c->prediction.distribution);
	free(c->bootstrap.refits);
	for (size_t i = 0; c->comparison && i < c->comparison_count; i++) {
		free(c->comparison[i].distribution);
		free(c->comparison[i].refits);
	}
	free(c->comparison);
	free(c->averaged);
	free(c->warnings);
	free(c);
}
