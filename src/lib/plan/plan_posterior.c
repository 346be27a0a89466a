/* The planner's posterior (headalloc-model(7), PLANNING): the comparison's
 * refits of every law, each law's refits weighted by its Akaike weight
 * over its refit count, so that the laws share the posterior as their
 * weights say and a law's refits share its part equally.  Where no law
 * has an AICc (too few runs for the criterion), the main law's bootstrap
 * refits, equally weighted.
 *
 * Each sample carries its run noise sigma in log space: the rms of
 * loss_se / L over the runs that have one (the same for every sample),
 * else its law's residual scale sqrt(rss / max(m - k, 1)) of the
 * least-squares fit, floored at PLAN_SIGMA_MIN so that a law fitting the
 * runs exactly still has a likelihood. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* The smallest run noise in log space: 0.01% of the loss. */
#define PLAN_SIGMA_MIN 1e-4

static double floor_sigma(double s)
{
	return isfinite(s) && s > PLAN_SIGMA_MIN ? s : PLAN_SIGMA_MIN;
}

/* rms of loss_se / L over the runs with a loss_se; 0 when none has. */
static double se_sigma(const struct ha_run *runs, size_t count)
{
	double sum = 0.0;
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (isfinite(runs[i].loss_se)) {
			double r = runs[i].loss_se / runs[i].loss;
			sum += r * r;
			n++;
		}
	return n ? sqrt(sum / (double)n) : 0.0;
}

static double residual_sigma(double rss, size_t m, size_t k)
{
	double dof = m > k ? (double)(m - k) : 1.0;
	return sqrt(rss / dof);
}

static enum ha_status alloc_samples(struct plan_posterior *p, size_t n)
{
	p->count = n;
	p->theta = malloc(n * HA_CAL_PARAMS * sizeof *p->theta);
	p->weight = malloc(n * sizeof *p->weight);
	p->log_weight = malloc(n * sizeof *p->log_weight);
	p->sigma = malloc(n * sizeof *p->sigma);
	p->law = malloc(n * sizeof *p->law);
	if (!p->theta || !p->weight || !p->log_weight || !p->sigma || !p->law)
		return HA_ENOMEM;
	return HA_OK;
}

static int row_used(const struct ha_cal_comparison *row)
{
	return row->status == HA_OK && row->weight_defined && row->weight > 0.0 &&
	       row->refit_count > 0 && row->refits;
}

/* One law's block of samples at index *at. */
static void add_law(struct plan_posterior *p, size_t *at, size_t law,
                    const double *refits, size_t n, double weight, double sigma)
{
	for (size_t r = 0; r < n; r++, (*at)++) {
		memcpy(p->theta + HA_CAL_PARAMS * *at, refits + HA_CAL_PARAMS * r,
		       HA_CAL_PARAMS * sizeof *p->theta);
		p->weight[*at] = weight / (double)n;
		p->sigma[*at] = sigma;
		p->law[*at] = law;
	}
}

static void finish_weights(struct plan_posterior *p, struct ha_plan_method *m)
{
	double total = 0.0;
	for (size_t j = 0; j < p->count; j++)
		total += p->weight[j];
	for (size_t j = 0; j < p->count; j++) {
		p->weight[j] /= total;
		p->log_weight[j] = p->weight[j] > 0.0 ? log(p->weight[j]) : -INFINITY;
	}
	for (size_t l = 0; l < m->law_count; l++)
		m->laws[l].weight /= total;
	double s = 0.0;
	for (size_t j = 0; j < p->count; j++)
		s += p->weight[j] * p->sigma[j];
	m->sigma = s;
	m->samples = p->count;
}

enum ha_status plan_posterior_make(const struct ha_calibration *c,
                                   const struct ha_run *runs, size_t count,
                                   struct plan_posterior *p,
                                   struct ha_plan_method *m,
                                   struct ha_error *err)
{
	memset(p, 0, sizeof *p);
	double se = se_sigma(runs, count);
	m->sigma_from_se = se > 0.0;
	size_t laws = 0, total = 0;
	for (size_t r = 0; c->comparison && r < c->comparison_count; r++)
		if (row_used(&c->comparison[r])) {
			laws++;
			total += c->comparison[r].refit_count;
		}
	m->main_law_only = laws == 0;
	if (laws == 0) {
		total = c->bootstrap.refits ? c->bootstrap.fitted : 0;
		laws = 1;
	}
	if (total == 0)
		return ha_fail(err, HA_EDEGENERATE,
		               "the runs leave no bootstrap refit to sample the "
		               "posterior from: add runs (an initial design needs "
		               "none)");
	m->laws = calloc(laws, sizeof *m->laws);
	if (!m->laws || alloc_samples(p, total) != HA_OK)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	m->law_count = laws;
	size_t at = 0;
	if (m->main_law_only) {
		struct ha_plan_law *l = &m->laws[0];
		snprintf(l->name, sizeof l->name, "%s",
		         c->fit.law.name[0] ? c->fit.law.name : "main");
		l->weight = 1.0;
		l->samples = total;
		l->sigma = floor_sigma(se > 0.0 ? se
		                       : residual_sigma(c->fit.rss, c->fit.runs,
		                                        c->fit.free_count));
		add_law(p, &at, 0, c->bootstrap.refits, total, 1.0, l->sigma);
	} else {
		size_t l = 0;
		for (size_t r = 0; r < c->comparison_count; r++) {
			const struct ha_cal_comparison *row = &c->comparison[r];
			if (!row_used(row))
				continue;
			struct ha_plan_law *law = &m->laws[l];
			snprintf(law->name, sizeof law->name, "%s", row->law.name);
			law->weight = row->weight;
			law->samples = row->refit_count;
			law->sigma = floor_sigma(se > 0.0 ? se
			                         : residual_sigma(row->rss, count,
			                                          row->free_count));
			add_law(p, &at, l, row->refits, row->refit_count, row->weight,
			        law->sigma);
			l++;
		}
	}
	finish_weights(p, m);
	return HA_OK;
}

void plan_posterior_free(struct plan_posterior *p)
{
	if (!p)
		return;
	free(p->theta);
	free(p->weight);
	free(p->log_weight);
	free(p->sigma);
	free(p->law);
	memset(p, 0, sizeof *p);
}
