/* The calibration objective: log residuals of the measured losses, their
 * Huber sum and its gradient, and the residuals' Jacobian — all through
 * log-sum-exp, so that c_v d^(γd+κ) never leaves log space.
 *
 * The data term A n^-α and β (headalloc-model(7), CALIBRATION (The data
 * term)) are fitted on a linear scale: A >= 0, α, β >= HA_CAL_POWER_MIN.
 * With A = 0 and β = 1 every expression below computes what it did
 * without them (A = 0 takes the old path; 1 * ln n is ln n). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"

const double cal_lower[HA_CAL_PARAMS] = {
	0.0, -INFINITY, HA_CAL_SMOOTHNESS_MIN, -INFINITY, 0.0, 0.0, 0.0,
	0.0, HA_CAL_POWER_MIN, HA_CAL_POWER_MIN, 0.0,
};
const double cal_upper[HA_CAL_PARAMS] = {
	INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 1.0,
	INFINITY, INFINITY, INFINITY, 1.0,
};

static double log_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* The parts of run i: ln B, ln V, q, ln R = ln(B + V), ln L̂, and ln of
 * the data term A n^-α (-inf when A = 0); where every term is an
 * ordinary double (inv_l > 0), also B, V, A n^-α and 1 / L̂ themselves,
 * so that the gradient's shares are products, not five exponentials of
 * differences of logs a run and step. */
struct parts {
	double log_b, log_v, q, log_r, log_l, log_a;
	double b, v, a_term, inv_l;
};

/* ln(E + A n^-α + R): the old expressions when A = 0. */
static double log_total(double e, double log_a, double log_r)
{
	if (log_a == -INFINITY)
		return e == 0.0 ? log_r : log_add(log(e), log_r);
	double log_c = e == 0.0 ? log_a : log_add(log(e), log_a);
	return log_add(log_c, log_r);
}

static void parts_of(const struct cal_data *data, const double *th, size_t i,
                     struct parts *p)
{
	p->log_b = th[HA_CAL_BIAS_COEF] - th[HA_CAL_SMOOTHNESS] * data->log_d[i];
	double hdi = th[HA_CAL_HDI];
	p->q = 1.0 - hdi * data->cover[i];
	double log_q;
	if (data->gcover[i] != 0.0) { /* a grouped run */
		p->q -= th[HA_CAL_GROUP_HDI] * data->gcover[i];
		log_q = log(p->q);
	} else {
		/* ln q at the grid's and the seeds' hdi = 0 and 1 without a
		 * log: the same doubles (q = 1 exactly at hdi = 0; log_q1 holds
		 * ln q at hdi = 1, computed as here). */
		log_q = hdi == 0.0                  ? 0.0
		        : hdi == 1.0 && data->log_q1 ? data->log_q1[i]
		                                     : log(p->q);
	}
	p->log_v = th[HA_CAL_VAR_COEF] + th[HA_CAL_VAR_RATE] * data->d_log_d[i] +
	           th[HA_CAL_VAR_POWER] * data->log_d[i] -
	           th[HA_CAL_VAR_SAMPLES_POWER] * data->log_n[i] + log_q;
	double a = th[HA_CAL_DATA_COEF];
	p->log_a = a == 0.0 ? -INFINITY
	                    : log(a) - th[HA_CAL_DATA_POWER] * data->log_n[i];
	double e = th[HA_CAL_IRREDUCIBLE];
	/* Where every term is an ordinary double, one exp each and one log
	 * for ln R and ln L̂ (most evaluations: a fit's runs are losses of
	 * order one, and the terms' sum has no cancellation); the
	 * log-sum-exp below otherwise. */
	if (fabs(p->log_b) < 600.0 && fabs(p->log_v) < 600.0 &&
	    p->log_a < 600.0) {
		p->b = exp(p->log_b);
		p->v = exp(p->log_v);
		p->a_term = p->log_a == -INFINITY ? 0.0 : exp(p->log_a);
		double r = p->b + p->v, total = e + p->a_term + r;
		p->log_r = log(r);
		p->log_l = total == r ? p->log_r : log(total);
		p->inv_l = 1.0 / total;
		return;
	}
	p->b = p->v = p->a_term = p->inv_l = 0.0;
	p->log_r = log_add(p->log_b, p->log_v);
	p->log_l = log_total(e, p->log_a, p->log_r);
}

double cal_log_fitted(const struct cal_data *data, const double *th, size_t i)
{
	struct parts p;
	parts_of(data, th, i, &p);
	return p.log_l;
}

/* d ln L̂ / d th_j for all ten, given the parts; with data_coef 0 the
 * entry of A is 0 rather than computed (a caller that does not read it:
 * one exp a run less). */
static void log_fitted_gradient(const struct cal_data *data, const double *th,
                                size_t i, const struct parts *p, int data_coef,
                                double *g)
{
	const int linear = p->inv_l > 0.0;
	double share_b = linear ? p->b * p->inv_l : exp(p->log_b - p->log_l);
	double share_v = linear ? p->v * p->inv_l : exp(p->log_v - p->log_l);
	g[HA_CAL_IRREDUCIBLE] = linear ? p->inv_l : exp(-p->log_l);
	g[HA_CAL_BIAS_COEF] = share_b;
	g[HA_CAL_SMOOTHNESS] = -data->log_d[i] * share_b;
	g[HA_CAL_VAR_COEF] = share_v;
	g[HA_CAL_VAR_RATE] = data->d_log_d[i] * share_v;
	g[HA_CAL_VAR_POWER] = data->log_d[i] * share_v;
	g[HA_CAL_HDI] = -data->cover[i] / p->q * share_v;
	/* A n^-α: d/dA = n^-α / L̂, d/dα = -ln n (A n^-α / L̂); the variance
	 * falls as n^-β: d/dβ = -ln n share_v. */
	double a = th[HA_CAL_DATA_COEF];
	g[HA_CAL_DATA_COEF] =
		!data_coef ? 0.0
		: linear && p->a_term >= DBL_MIN ? p->a_term / a * p->inv_l
		: exp(-th[HA_CAL_DATA_POWER] * data->log_n[i] - p->log_l);
	/* exp(-inf) is +0 exactly: no call without the data term. */
	double share_a = p->log_a == -INFINITY ? 0.0
	                 : linear ? p->a_term * p->inv_l
	                          : exp(p->log_a - p->log_l);
	g[HA_CAL_DATA_POWER] = -data->log_n[i] * share_a;
	g[HA_CAL_VAR_SAMPLES_POWER] = -data->log_n[i] * share_v;
	g[HA_CAL_GROUP_HDI] = -data->gcover[i] / p->q * share_v;
}

static double huber(double r, double delta, double *psi)
{
	double a = fabs(r);
	if (a <= delta) {
		*psi = r;
		return 0.5 * r * r;
	}
	*psi = r > 0 ? delta : -delta;
	return delta * (a - 0.5 * delta);
}

_Static_assert(sizeof(struct parts) == CAL_PARTS * sizeof(double),
               "struct parts is CAL_PARTS doubles");

double cal_objective(const struct cal_data *data, const double *th,
                     double delta, double *grad, double *kept)
{
	double f = 0.0;
	if (grad)
		for (int j = 0; j < HA_CAL_PARAMS; j++)
			grad[j] = 0.0;
	for (size_t i = 0; i < data->m; i++) {
		double w = data->weight[i];
		if (w == 0.0)
			continue;
		struct parts p;
		parts_of(data, th, i, &p);
		if (!isfinite(p.log_l))
			return INFINITY;
		if (kept)
			memcpy(kept + i * CAL_PARTS, &p, sizeof p);
		double r = data->inv_w[i] * (data->log_loss[i] - p.log_l);
		double psi;
		f += w * huber(r, delta, &psi);
		if (grad) {
			double g[HA_CAL_PARAMS];
			log_fitted_gradient(data, th, i, &p, 1, g);
			/* d r / d th = -inv_w d ln L̂ / d th */
			double c = -w * psi * data->inv_w[i];
			for (int j = 0; j < HA_CAL_PARAMS; j++)
				grad[j] += c * g[j];
		}
	}
	return f;
}

int cal_residuals(const struct cal_data *data, const double *th,
                  const double *kept, const int *index, int k, double *r,
                  double *jac)
{
	static const int all[HA_CAL_PARAMS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	if (!index) {
		index = all;
		k = HA_CAL_PARAMS;
	}
	/* A's entries are read only when A is asked for (all of jac with
	 * index NULL; the LM reads the free columns alone). */
	int data_coef = 0;
	for (int j = 0; j < k; j++)
		data_coef |= index[j] == HA_CAL_DATA_COEF;
	int ok = 1;
	for (size_t i = 0; i < data->m; i++) {
		struct parts p;
		if (kept && data->weight[i] == 0.0) {
			r[i] = 0.0;
			if (jac)
				for (int j = 0; j < HA_CAL_PARAMS; j++)
					jac[i * HA_CAL_PARAMS + j] = 0.0;
			continue;
		}
		if (kept)
			memcpy(&p, kept + i * CAL_PARTS, sizeof p);
		else
			parts_of(data, th, i, &p);
		if (!isfinite(p.log_l)) {
			if (data->weight[i] != 0.0)
				ok = 0;
			r[i] = 0.0;
			if (jac)
				for (int j = 0; j < HA_CAL_PARAMS; j++)
					jac[i * HA_CAL_PARAMS + j] = 0.0;
			continue;
		}
		r[i] = data->inv_w[i] * (data->log_loss[i] - p.log_l);
		if (!jac)
			continue;
		double g[HA_CAL_PARAMS];
		log_fitted_gradient(data, th, i, &p, data_coef, g);
		for (int j = 0; j < HA_CAL_PARAMS; j++)
			jac[i * HA_CAL_PARAMS + j] = -data->inv_w[i] * g[j];
	}
	return ok;
}

size_t cal_free_count(const struct ha_cal_law *law)
{
	size_t k = 0;
	for (int j = 0; j < HA_CAL_PARAMS; j++)
		k += law->free[j] != 0;
	return k;
}

