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
#include <stdint.h>
#include <stdio.h>
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

enum ha_status cal_data_init(struct cal_data *data, const struct ha_run *runs,
                             size_t count)
{
	const size_t arrays = 9;
	double *block = malloc(arrays * count * sizeof *block);
	if (!block)
		return HA_ENOMEM;
	data->block = block;
	data->m = count;
	data->log_d = block;
	data->d_log_d = block + count;
	data->log_n = block + 2 * count;
	data->log_loss = block + 3 * count;
	data->inv_w = block + 4 * count;
	data->cover = block + 5 * count;
	data->weight = block + 6 * count;
	data->log_q1 = block + 7 * count;
	data->gcover = block + 8 * count;
	data->grouped = 0;
	data->loss_min = INFINITY;
	data->log_n_min = INFINITY;
	data->threads = 1;
	for (size_t i = 0; i < count; i++) {
		double d = (double)runs[i].head_dim;
		data->log_d[i] = log(d);
		data->d_log_d[i] = d * log(d);
		data->log_n[i] = log(runs[i].samples);
		data->log_loss[i] = log(runs[i].loss);
		data->inv_w[i] = isnan(runs[i].loss_se) ? 1.0
		                                        : runs[i].loss / runs[i].loss_se;
		uint64_t h = runs[i].heads, g = runs[i].kv_heads;
		if (g == 0 || g == h) {
			data->cover[i] = 1.0 - 1.0 / (double)h; /* as before groups */
			data->gcover[i] = 0.0;
		} else { /* g query heads a group: F = 1 - hdi (H-g)/H - group_hdi (g-1)/H */
			uint64_t size = h / g;
			data->cover[i] = (double)(h - size) / (double)h;
			data->gcover[i] = (double)(size - 1) / (double)h;
			data->grouped = 1;
		}
		data->log_q1[i] = log(1.0 - 1.0 * data->cover[i]);
		data->weight[i] = 1.0;
		if (runs[i].loss < data->loss_min)
			data->loss_min = runs[i].loss;
		if (data->log_n[i] < data->log_n_min)
			data->log_n_min = data->log_n[i];
	}
	if (cal_data_configs(data, runs) != HA_OK) {
		free(block);
		data->block = NULL;
		return HA_ENOMEM;
	}
	return HA_OK;
}

void cal_data_free(struct cal_data *data)
{
	if (data) {
		free(data->block);
		data->block = NULL;
		free(data->config);
		data->config = NULL;
	}
}

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
 * so that the gradient's shares are products, not exponentials of
 * differences of logs (issue 17: five exp a run and step). */
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
	if (p->log_a != -INFINITY)
		p->log_l = log_total(e, p->log_a, p->log_r);
	else
		p->log_l = e == 0.0 ? p->log_r : log_add(log(e), p->log_r);
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

/* cal_objective, each weighted run's parts into kept (NULL: not). */
static double objective(const struct cal_data *data, const double *th,
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

double cal_objective(const struct cal_data *data, const double *th,
                     double delta, double *grad)
{
	return objective(data, th, delta, grad, NULL);
}

double cal_objective_keep(const struct cal_data *data, const double *th,
                          double delta, double *kept)
{
	return objective(data, th, delta, NULL, kept);
}

/* Entry a of the gradients of ln B and of ln V of run i (gb and gv
 * below), each computed only when asked for: no arrays to clear a run
 * (issue 17: clearing them was a tenth of the residuals' time). */
static double gradient_log_b(const struct cal_data *data, size_t i, int a)
{
	switch (a) {
	case HA_CAL_BIAS_COEF: return 1.0;
	case HA_CAL_SMOOTHNESS: return -data->log_d[i];
	default: return 0.0;
	}
}

static double gradient_log_v(const struct cal_data *data, size_t i,
                             const struct parts *p, int a)
{
	switch (a) {
	case HA_CAL_VAR_COEF: return 1.0;
	case HA_CAL_VAR_RATE: return data->d_log_d[i];
	case HA_CAL_VAR_POWER: return data->log_d[i];
	case HA_CAL_HDI: return -data->cover[i] / p->q;
	case HA_CAL_VAR_SAMPLES_POWER: return -data->log_n[i];
	case HA_CAL_GROUP_HDI: return -data->gcover[i] / p->q;
	default: return 0.0;
	}
}

/* Add c Hess(ln L̂_i) to h: Hess ln L̂ = sB gb gb' + sV (gv gv' + Hess ln V)
 * + Hess(A n^-α)/L̂ - g g', with gb, gv the gradients of ln B, ln V and
 * sB, sV their shares.  A n^-α is linear in A: its only second
 * derivatives are d2/dA dα = -ln n n^-α and d2/dα2 = (ln n)^2 A n^-α.
 * The shares are g's own entries (log_fitted_gradient computes sB and
 * sV as d ln L̂ / d ln c_b and d ln L̂ / d ln c_v): the same doubles,
 * without computing their exponentials again. */
static void add_log_fitted_hessian(const struct cal_data *data, size_t i,
                                   const struct parts *p, const double *g,
                                   double c, const int *index, int k,
                                   double *dense, const int *pos, double *h)
{
	double share_b = g[HA_CAL_BIAS_COEF];
	double share_v = g[HA_CAL_VAR_COEF];
	/* The entries of the parameters asked for only (each entry's sum is
	 * the same either way), their factors gathered first: share_b gb_a
	 * is the left product of share_b gb_a gb_b, so the same doubles. */
	double sbg[HA_CAL_PARAMS], svg[HA_CAL_PARAMS], gbj[HA_CAL_PARAMS],
		gvj[HA_CAL_PARAMS], gj[HA_CAL_PARAMS];
	for (int j = 0; j < k; j++) {
		int a = index[j];
		gbj[j] = gradient_log_b(data, i, a);
		gvj[j] = gradient_log_v(data, i, p, a);
		sbg[j] = share_b * gbj[j];
		svg[j] = share_v * gvj[j];
		gj[j] = g[a];
	}
	for (int j = 0; j < k; j++) {
		double *row = dense + j * k;
		for (int l = 0; l <= j; l++) /* the lower triangle (mirrored) */
			row[l] += c * (sbg[j] * gbj[l] + svg[j] * gvj[l] -
			               gj[j] * gj[l]);
	}
#define H(a, b) (*(pos[a] >= 0 && pos[b] >= 0 ? dense + pos[a] * k + pos[b] \
                                               : h + (a) * HA_CAL_PARAMS + (b)))
	/* ln V holds ln q, q = 1 - hdi cover: d2/dhdi2 = -(cover/q)^2 */
	double t = data->cover[i] / p->q;
	H(HA_CAL_HDI, HA_CAL_HDI) -= c * share_v * t * t;
	if (data->gcover[i] != 0.0) { /* and of group_hdi, gcover in place of cover */
		double u = data->gcover[i] / p->q;
		H(HA_CAL_HDI, HA_CAL_GROUP_HDI) -= c * share_v * t * u;
		H(HA_CAL_GROUP_HDI, HA_CAL_HDI) -= c * share_v * t * u;
		H(HA_CAL_GROUP_HDI, HA_CAL_GROUP_HDI) -= c * share_v * u * u;
	}
	double ln_n = data->log_n[i];
	double cross = -ln_n * g[HA_CAL_DATA_COEF]; /* -ln n n^-α / L̂ */
	H(HA_CAL_DATA_COEF, HA_CAL_DATA_POWER) += c * cross;
	H(HA_CAL_DATA_POWER, HA_CAL_DATA_COEF) += c * cross;
	H(HA_CAL_DATA_POWER, HA_CAL_DATA_POWER) +=
		c * ln_n * ln_n *
		(p->log_a == -INFINITY ? 0.0
		 : p->inv_l > 0.0      ? p->a_term * p->inv_l
		                       : exp(p->log_a - p->log_l));
#undef H
}

/* cal_residuals_curvature; with kept (cal_objective_keep's at th) the
 * weighted runs' parts come from it and the unweighted runs' r and jac
 * rows are 0. */
static int residuals(const struct cal_data *data, const double *th,
                     const double *kept, double delta, const int *index, int k,
                     double *r, double *jac, double *curv)
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
	/* The entries between the parameters asked for are summed in a
	 * dense k x k block (each entry's terms in the runs' order, as in
	 * place: the same doubles; its rows' loops vectorise), put into
	 * curv at the end; pos[a]: a's place in index, or -1. */
	double dense[HA_CAL_PARAMS * HA_CAL_PARAMS];
	int pos[HA_CAL_PARAMS];
	if (curv) {
		for (int a = 0; a < HA_CAL_PARAMS; a++)
			pos[a] = -1;
		for (int j = 0; j < k; j++)
			pos[index[j]] = j;
		for (int j = 0; j < k * k; j++)
			dense[j] = 0.0;
		/* The entries asked for, and those add_log_fitted_hessian
		 * updates whatever index holds: not all 121 (issue 17). */
		static const int fixed[][2] = {
			{HA_CAL_HDI, HA_CAL_HDI}, {HA_CAL_HDI, HA_CAL_GROUP_HDI},
			{HA_CAL_GROUP_HDI, HA_CAL_HDI},
			{HA_CAL_GROUP_HDI, HA_CAL_GROUP_HDI},
			{HA_CAL_DATA_COEF, HA_CAL_DATA_POWER},
			{HA_CAL_DATA_POWER, HA_CAL_DATA_COEF},
			{HA_CAL_DATA_POWER, HA_CAL_DATA_POWER},
		};
		for (size_t f = 0; f < sizeof fixed / sizeof *fixed; f++)
			curv[fixed[f][0] * HA_CAL_PARAMS + fixed[f][1]] = 0.0;
	}
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
		if (!jac && !curv)
			continue;
		double g[HA_CAL_PARAMS];
		log_fitted_gradient(data, th, i, &p, data_coef, g);
		if (jac)
			for (int j = 0; j < HA_CAL_PARAMS; j++)
				jac[i * HA_CAL_PARAMS + j] = -data->inv_w[i] * g[j];
		/* Hess r_i = -inv_w Hess ln L̂_i, weighted by w psi(r_i). */
		if (curv && data->weight[i] != 0.0) {
			double psi;
			huber(r[i], delta, &psi);
			add_log_fitted_hessian(data, i, &p, g,
			                       -data->weight[i] * psi * data->inv_w[i],
			                       index, k, dense, pos, curv);
		}
	}
	/* The block's lower triangle into both of curv's: C is symmetric
	 * (its upper entries were the same sums with the factors of each
	 * product in the other order). */
	if (curv)
		for (int j = 0; j < k; j++)
			for (int l = 0; l < k; l++)
				curv[index[j] * HA_CAL_PARAMS + index[l]] =
					l <= j ? dense[j * k + l] : dense[l * k + j];
	return ok;
}

int cal_residuals_curvature(const struct cal_data *data, const double *th,
                            double delta, const int *index, int k, double *r,
                            double *jac, double *curv)
{
	return residuals(data, th, NULL, delta, index, k, r, jac, curv);
}

int cal_residuals_curvature_kept(const struct cal_data *data, const double *th,
                                 const double *kept, double delta,
                                 const int *index, int k, double *r,
                                 double *jac, double *curv)
{
	return residuals(data, th, kept, delta, index, k, r, jac, curv);
}

int cal_residuals(const struct cal_data *data, const double *th, double *r,
                  double *jac)
{
	return cal_residuals_curvature(data, th, 1.0, NULL, 0, r, jac, NULL);
}

size_t cal_free_count(const struct ha_cal_law *law)
{
	size_t k = 0;
	for (int j = 0; j < HA_CAL_PARAMS; j++)
		k += law->free[j] != 0;
	return k;
}

size_t cal_distinct_samples(const struct cal_data *data)
{
	size_t distinct = 0;
	for (size_t i = 0; i < data->m; i++) {
		if (data->weight[i] == 0.0)
			continue;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = data->weight[j] != 0.0 && data->log_n[j] == data->log_n[i];
		distinct += !seen;
	}
	return distinct;
}

int cal_data_term_identifiable(const struct cal_data *data,
                               const struct ha_cal_law *law, char *msg)
{
	if (!law->free[HA_CAL_DATA_COEF] && !law->free[HA_CAL_DATA_POWER]) {
		msg[0] = '\0';
		return 1;
	}
	size_t distinct = cal_distinct_samples(data);
	if (distinct < 3) {
		snprintf(msg, HA_CAL_MESSAGE_MAX,
		         "the runs hold %zu distinct sample size%s: the data term "
		         "(data_coef, data_power) needs runs at 3 or more",
		         distinct, distinct == 1 ? "" : "s");
		return 0;
	}
	msg[0] = '\0';
	return 1;
}

double cal_data_share(const struct cal_data *data, const double *th, size_t i)
{
	if (th[HA_CAL_DATA_COEF] == 0.0)
		return 0.0;
	return exp(log(th[HA_CAL_DATA_COEF]) - th[HA_CAL_DATA_POWER] * data->log_n[i] -
	           data->log_loss[i]);
}

int cal_identifiable(const struct cal_data *data, const struct ha_run *runs,
                     size_t k, char *msg)
{
	return cal_design_check(data, runs, k, NULL, msg);
}
