/* One law fitted to the runs: validation, identifiability, the search,
 * and the statistics of the optimum (residuals, AICc, BIC, Gauss–Newton
 * covariance). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "base/error_internal.h"
#include "calibrate_internal.h"
#include "alloc/model_internal.h"

static const char *const param_names[HA_CAL_PARAMS] = {
	"irreducible", "bias_coef", "smoothness", "var_coef",
	"var_rate", "var_power", "hdi",
	"data_coef", "data_power", "var_samples_power", "group_hdi",
};

const char *ha_cal_param_str(enum ha_cal_param param)
{
	int p = (int)param;
	return p >= 0 && p < HA_CAL_PARAMS ? param_names[p] : NULL;
}

int ha_cal_param_lookup(const char *name)
{
	if (!name)
		return -1;
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (strcmp(name, param_names[p]) == 0)
			return p;
	return -1;
}

int ha_cal_param_is_log(enum ha_cal_param param)
{
	return param == HA_CAL_BIAS_COEF || param == HA_CAL_VAR_COEF;
}

int ha_cal_fixed_in_domain(enum ha_cal_param k, int log_form, double v,
                           const char **what)
{
	if (log_form) {
		*what = "a finite number";
		return isfinite(v);
	}
	switch (k) {
	case HA_CAL_BIAS_COEF:
	case HA_CAL_SMOOTHNESS:
	case HA_CAL_VAR_COEF:
	case HA_CAL_DATA_POWER:
	case HA_CAL_VAR_SAMPLES_POWER:
		*what = "a number > 0";
		return v > 0.0 && isfinite(v);
	case HA_CAL_HDI:
	case HA_CAL_GROUP_HDI:
		*what = "a number from 0 to 1";
		return v >= 0.0 && v <= 1.0;
	default:
		*what = "a number >= 0";
		return v >= 0.0 && isfinite(v);
	}
}

int ha_cal_param_reported(enum ha_cal_param param,
                          const struct ha_cal_estimate *e)
{
	int p = (int)param;
	if (!e || p < 0 || p >= HA_CAL_PARAMS)
		return 0;
	if (p < HA_CAL_DATA_COEF || e->free)
		return 1;
	struct ha_model d = ha_model_defaults();
	double def = p == HA_CAL_DATA_COEF ? d.data_coef
	           : p == HA_CAL_DATA_POWER ? d.data_power
	           : p == HA_CAL_GROUP_HDI ? d.group_hdi : d.var_samples_power;
	return e->value != def;
}

void ha_cal_law_from_model(struct ha_cal_law *law, const struct ha_model *m)
{
	memset(law, 0, sizeof *law);
	law->value[HA_CAL_IRREDUCIBLE] = m->irreducible;
	law->value[HA_CAL_BIAS_COEF] = ha_model_log_bias_coef(m);
	law->value[HA_CAL_SMOOTHNESS] = m->smoothness;
	law->value[HA_CAL_VAR_COEF] = ha_model_log_var_coef(m);
	law->value[HA_CAL_VAR_RATE] = m->var_rate;
	law->value[HA_CAL_VAR_POWER] = m->var_power;
	law->value[HA_CAL_HDI] = m->hdi;
	law->value[HA_CAL_DATA_COEF] = m->data_coef;
	law->value[HA_CAL_DATA_POWER] = m->data_power;
	law->value[HA_CAL_VAR_SAMPLES_POWER] = m->var_samples_power;
	law->value[HA_CAL_GROUP_HDI] = m->group_hdi;
}

struct ha_model ha_cal_model_of(const double value[HA_CAL_PARAMS])
{
	struct ha_model m = ha_model_defaults();
	m.irreducible = value[HA_CAL_IRREDUCIBLE];
	ha_model_set_log_bias_coef(&m, value[HA_CAL_BIAS_COEF]);
	m.smoothness = value[HA_CAL_SMOOTHNESS];
	ha_model_set_log_var_coef(&m, value[HA_CAL_VAR_COEF]);
	m.var_rate = value[HA_CAL_VAR_RATE];
	m.var_power = value[HA_CAL_VAR_POWER];
	m.hdi = value[HA_CAL_HDI];
	m.data_coef = value[HA_CAL_DATA_COEF];
	m.data_power = value[HA_CAL_DATA_POWER];
	m.var_samples_power = value[HA_CAL_VAR_SAMPLES_POWER];
	m.group_hdi = value[HA_CAL_GROUP_HDI];
	return m;
}

enum ha_status ha_cal_validate_runs(const struct ha_run *runs, size_t count,
                                    struct ha_error *err)
{
	if (!runs || count == 0)
		return ha_fail(err, HA_EINVAL, "no runs to calibrate on");
	for (size_t i = 0; i < count; i++) {
		const struct ha_run *r = &runs[i];
		size_t at = i + 1;
		if (r->heads == 0)
			return ha_fail(err, HA_EINVAL, "run %zu: heads must be >= 1, found 0", at);
		if (r->head_dim == 0)
			return ha_fail(err, HA_EINVAL, "run %zu: head_dim must be >= 1, found 0", at);
		if (r->heads > HA_BUDGET_MAX / r->head_dim)
			return ha_fail(err, HA_EINVAL,
			               "run %zu: heads x head_dim = %llu x %llu exceeds 2^63 - 1",
			               at, (unsigned long long)r->heads,
			               (unsigned long long)r->head_dim);
		if (!isfinite(r->samples) || !(r->samples > 1.0))
			return ha_fail(err, HA_EINVAL,
			               "run %zu: samples must be a finite number > 1, found %g",
			               at, r->samples);
		if (!isfinite(r->loss) || !(r->loss > 0.0))
			return ha_fail(err, HA_EINVAL,
			               "run %zu: loss must be a finite number > 0, found %g",
			               at, r->loss);
		if (r->kv_heads != 0 && r->heads % r->kv_heads != 0)
			return ha_fail(err, HA_EINVAL,
			               "run %zu: kv_heads must divide heads (%llu), found %llu",
			               at, (unsigned long long)r->heads,
			               (unsigned long long)r->kv_heads);
		if (!isnan(r->loss_se) && (!isfinite(r->loss_se) || !(r->loss_se > 0.0)))
			return ha_fail(err, HA_EINVAL,
			               "run %zu: loss_se must be a finite number > 0 (or absent), found %g",
			               at, r->loss_se);
	}
	return HA_OK;
}

enum ha_status cal_check_law(const struct ha_cal_law *law, double delta,
                             struct ha_error *err)
{
	if (!(delta > 0.0))
		return ha_fail(err, HA_EINVAL,
		               "huber_delta must be > 0 (or infinite), found %g", delta);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		const char *what;
		if (!law->free[p] &&
		    !ha_cal_fixed_in_domain((enum ha_cal_param)p,
		                            ha_cal_param_is_log((enum ha_cal_param)p),
		                            law->value[p], &what))
			return ha_fail(err, HA_EINVAL,
			               "%s: fixed value %g is outside the parameter's domain",
			               param_names[p], law->value[p]);
	}
	return HA_OK;
}

/* The Jacobian of the standardised residuals over the free parameters
 * index[0..k), each column scaled to unit norm (scale[j]; 0 for a zero
 * column, which changes no projection), and its thin SVD a = U S V'
 * (U into a): the covariance and the leverages both read it. */
struct jacobian_svd {
	double *r, *jac;
	gsl_matrix *a, *v;
	gsl_vector *sv, *work;
	double scale[HA_CAL_PARAMS];
	int finite; /* the residuals were finite at th */
};

static void svd_free(struct jacobian_svd *s)
{
	free(s->r);
	free(s->jac);
	gsl_matrix_free(s->a);
	gsl_matrix_free(s->v);
	gsl_vector_free(s->sv);
	gsl_vector_free(s->work);
}

/* 0 when out of memory. */
static int svd_alloc(struct jacobian_svd *s, size_t m, size_t k)
{
	s->r = malloc(m * sizeof *s->r);
	s->jac = malloc(m * HA_CAL_PARAMS * sizeof *s->jac);
	s->a = gsl_matrix_alloc(m, k);
	s->v = gsl_matrix_alloc(k, k);
	s->sv = gsl_vector_alloc(k);
	s->work = gsl_vector_alloc(k);
	return s->r && s->jac && s->a && s->v && s->sv && s->work;
}

/* The scaled Jacobian at th into s->a (s->finite), then (when finite or
 * always) its SVD: GSL's status, or 0 without the SVD. */
static int svd_compute(struct jacobian_svd *s, const struct cal_data *data,
                       const double *th, const int *index, size_t k,
                       int always)
{
	size_t m = data->m;
	s->finite = cal_residuals(data, th, NULL, NULL, 0, s->r, s->jac);
	for (size_t j = 0; j < k; j++) {
		double s2 = 0.0;
		for (size_t i = 0; i < m; i++) {
			double x = s->jac[i * HA_CAL_PARAMS + index[j]];
			s2 += x * x;
		}
		s->scale[j] = s2 > 0.0 ? 1.0 / sqrt(s2) : 0.0;
		for (size_t i = 0; i < m; i++)
			gsl_matrix_set(s->a, i, j, s->jac[i * HA_CAL_PARAMS + index[j]] * s->scale[j]);
	}
	return s->finite || always ? gsl_linalg_SV_decomp(s->a, s->v, s->sv, s->work) : 0;
}

static int free_index(const struct ha_cal_law *law, int *index)
{
	int k = 0;
	for (int p = 0; p < HA_CAL_PARAMS; p++)
		if (law->free[p])
			index[k++] = p;
	return k;
}

static void covariance(struct ha_cal_fit *fit, const struct cal_data *data,
                       const double *th)
{
	size_t m = data->m, k = fit->free_count;
	int index[HA_CAL_PARAMS];
	free_index(&fit->law, index);
	fit->has_covariance = 0;
	if (k == 0) {
		snprintf(fit->no_covariance, sizeof fit->no_covariance,
		         "no free parameter");
		return;
	}
	if (m <= k) {
		snprintf(fit->no_covariance, sizeof fit->no_covariance,
		         "%zu runs leave no degree of freedom for %zu free parameters",
		         m, k);
		return;
	}
	struct jacobian_svd s = {0};
	snprintf(fit->no_covariance, sizeof fit->no_covariance,
	         "out of memory for the covariance");
	if (!svd_alloc(&s, m, k))
		goto done;
	if (svd_compute(&s, data, th, index, k, 1) != 0) {
		snprintf(fit->no_covariance, sizeof fit->no_covariance,
		         "the singular value decomposition of the Jacobian failed");
		goto done;
	}
	const double *scale = s.scale;
	gsl_matrix *v = s.v;
	gsl_vector *sv = s.sv;
	double smax = gsl_vector_get(sv, 0), smin = gsl_vector_get(sv, k - 1);
	int zero_column = 0;
	for (size_t j = 0; j < k; j++)
		zero_column |= scale[j] == 0.0;
	if (zero_column || !(smin > 1e-10 * smax)) {
		/* Name the parameters of the direction the data do not fix. */
		char names[160] = "";
		size_t used = 0;
		for (size_t j = 0; j < k; j++) {
			double c = scale[j] == 0.0 ? 1.0 : gsl_matrix_get(v, j, k - 1);
			if (fabs(c) < 0.1)
				continue;
			int w = snprintf(names + used, sizeof names - used, "%s%s",
			                 used ? ", " : "", param_names[index[j]]);
			if (w < 0 || (size_t)w >= sizeof names - used)
				break;
			used += (size_t)w;
		}
		snprintf(fit->no_covariance, sizeof fit->no_covariance,
		         "the Jacobian is rank-deficient: the runs do not determine "
		         "%s separately", names);
		goto done;
	}
	double inv[HA_CAL_PARAMS][HA_CAL_PARAMS]; /* (J'J)^-1, columns scaled */
	for (size_t j = 0; j < k; j++)
		for (size_t l = 0; l < k; l++) {
			inv[j][l] = 0.0;
			for (size_t q = 0; q < k; q++) {
				double sq = gsl_vector_get(sv, q);
				inv[j][l] += gsl_matrix_get(v, j, q) * gsl_matrix_get(v, l, q) /
				             (sq * sq);
			}
		}
	/* The correlation from (J'J)^-1 itself, so that it is defined even
	 * where the residuals vanish (sigma^2 = 0): noise-free runs still
	 * show which parameters the design cannot tell apart. */
	double sigma2 = fit->rss / (double)(m - k);
	for (size_t j = 0; j < k; j++)
		for (size_t l = 0; l < k; l++) {
			fit->covariance[index[j]][index[l]] =
				sigma2 * inv[j][l] * scale[j] * scale[l];
			double c = inv[j][l] / sqrt(inv[j][j] * inv[l][l]);
			fit->correlation[index[j]][index[l]] =
				j == l ? 1.0 : c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
		}
	for (size_t j = 0; j < k; j++) {
		double vj = fit->covariance[index[j]][index[j]];
		fit->param[index[j]].has_se = 1;
		fit->param[index[j]].se = sqrt(vj > 0.0 ? vj : 0.0);
	}
	fit->has_covariance = 1;
	fit->no_covariance[0] = '\0';
done:
	svd_free(&s);
}

/* The leverages of the runs at a fit: the diagonal of the Gauss–Newton
 * hat matrix H = J (J'J)^+ J' of the standardised residuals' Jacobian J
 * over the free parameters (headalloc-model(7), CALIBRATION (Uncertainty
 * and identifiability)).  The residual bootstrap divides each residual by
 * sqrt(1 - h_ii): a fit pulls its curve towards the runs it rests on
 * most, whose residuals are therefore smaller than the noise, and the
 * modified residuals have the noise's variance again (Davison and
 * Hinkley 1997, chapter 6, for a linear model; Gauss–Newton makes it
 * the first-order version for a nonlinear one).  With the scaled SVD,
 * H = U_r U_r' over the r singular values the Jacobian resolves, so
 * h_ii = sum_q U_iq^2: no inverse is formed, and a direction the runs do
 * not determine adds no leverage. */
int cal_leverage(const struct cal_data *data, const struct ha_cal_law *law,
                 const double *th, double *h)
{
	size_t m = data->m;
	int index[HA_CAL_PARAMS];
	size_t k = (size_t)free_index(law, index);
	for (size_t i = 0; i < m; i++)
		h[i] = k > 0 && m <= k ? 1.0 : 0.0;
	/* as many runs as parameters or fewer: the fit passes through every
	 * run (or could), and no residual is left to resample */
	if (k == 0 || m <= k)
		return 1;
	struct jacobian_svd s = {0};
	int ok = svd_alloc(&s, m, k);
	/* no finite fit here: no leverage either */
	if (ok && svd_compute(&s, data, th, index, k, 0) == 0 && s.finite) {
		double smax = gsl_vector_get(s.sv, 0);
		for (size_t q = 0; q < k; q++) {
			/* the covariance's rank test; descending: the rest are below */
			if (!(gsl_vector_get(s.sv, q) > 1e-10 * smax))
				break;
			for (size_t i = 0; i < m; i++) {
				double u = gsl_matrix_get(s.a, i, q);
				h[i] += u * u;
			}
		}
		for (size_t i = 0; i < m; i++)
			h[i] = h[i] > 1.0 ? 1.0 : h[i];
	}
	svd_free(&s);
	return ok;
}

/* The statistics of the optimum th of the (unit-weight) data. */
static enum ha_status fill_fit(struct ha_cal_fit *fit, const struct ha_run *runs,
                               const struct cal_data *data, const double *th)
{
	size_t m = data->m, k = fit->free_count;
	fit->residuals = calloc(m, sizeof *fit->residuals);
	if (!fit->residuals)
		return HA_ENOMEM;
	double rss = 0.0, sum2 = 0.0;
	for (size_t i = 0; i < m; i++) {
		struct ha_cal_residual *res = &fit->residuals[i];
		res->heads = runs[i].heads;
		res->head_dim = runs[i].head_dim;
		res->samples = runs[i].samples;
		res->loss = runs[i].loss;
		res->loss_se = runs[i].loss_se;
		res->log_fitted = cal_log_fitted(data, th, i);
		res->fitted = ha_exp_or_inf(res->log_fitted);
		res->residual = data->log_loss[i] - res->log_fitted;
		res->standardised = data->inv_w[i] * res->residual;
		rss += res->standardised * res->standardised;
		sum2 += res->residual * res->residual;
	}
	fit->rss = rss;
	fit->rms = sqrt(sum2 / (double)m);
	double dm = (double)m, dk = (double)k;
	fit->bic_defined = rss > 0.0;
	fit->bic = fit->bic_defined ? dm * log(rss / dm) + dk * log(dm) : 0.0;
	fit->aicc_defined = rss > 0.0 && m > k + 1;
	fit->aicc = fit->aicc_defined
		? dm * log(rss / dm) + 2.0 * dk + 2.0 * dk * (dk + 1.0) / (dm - dk - 1.0)
		: 0.0;
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		struct ha_cal_estimate *e = &fit->param[p];
		e->name = param_names[p];
		e->free = fit->law.free[p] != 0;
		e->log_scale = ha_cal_param_is_log((enum ha_cal_param)p);
		e->value = th[p];
		double lo = cal_lower[p], hi = cal_upper[p];
		e->at_bound = e->free &&
		              ((isfinite(lo) && th[p] <= lo + 1e-8 * fmax(1.0, fabs(lo))) ||
		               (isfinite(hi) && th[p] >= hi - 1e-8 * fmax(1.0, fabs(hi))));
	}
	covariance(fit, data, th);
	return HA_OK;
}

/* Every weighted run's standardised residual, and its square, finite at
 * th: the objective then is too. */
static int residuals_finite(const struct cal_data *data, const double *th)
{
	for (size_t i = 0; i < data->m; i++) {
		if (data->weight[i] == 0.0)
			continue;
		double r = data->inv_w[i] * (data->log_loss[i] - cal_log_fitted(data, th, i));
		if (!isfinite(r * r))
			return 0;
	}
	return 1;
}

/* 0 when a run's weight (L/se)^2 is not a normal double, msg naming it. */
static int check_weights(const struct cal_data *data, const struct ha_run *runs,
                         char *msg)
{
	for (size_t i = 0; i < data->m; i++) {
		double w2 = data->inv_w[i] * data->inv_w[i];
		if (isfinite(w2) && w2 >= DBL_MIN)
			continue;
		snprintf(msg, HA_CAL_MESSAGE_MAX,
		         "run %zu: loss_se %g against loss %g gives the run a weight "
		         "(L/se)^2 = %g beyond a double: the objective cannot weigh it",
		         i + 1, runs[i].loss_se, runs[i].loss, w2);
		return 0;
	}
	return 1;
}

/* 1 when the residuals at th (NULL: at the law's values) are not finite,
 * msg naming the --fix value or the run. */
static int trace_nonfinite(const struct cal_data *data, const struct ha_cal_law *law,
                           const double *th, char *msg)
{
	if (th && residuals_finite(data, th))
		return 0;
	/* the fixed value whose seeds' default makes the fit finite */
	struct ha_model seeds = ha_model_defaults();
	struct ha_cal_law plain;
	ha_cal_law_from_model(&plain, &seeds);
	double t[HA_CAL_PARAMS];
	memcpy(t, th ? th : law->value, sizeof t);
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		if (law->free[p])
			continue;
		double keep = t[p];
		t[p] = plain.value[p];
		int fixed_it = residuals_finite(data, t);
		t[p] = keep;
		if (fixed_it) {
			snprintf(msg, HA_CAL_MESSAGE_MAX,
			         "--fix %s%s=%g: at this value the fitted losses leave a "
			         "double (the objective is not finite)",
			         ha_cal_param_is_log((enum ha_cal_param)p) ? "log_" : "",
			         ha_cal_param_str((enum ha_cal_param)p), law->value[p]);
			return 1;
		}
	}
	for (size_t i = 0; i < data->m; i++) {
		double lf = cal_log_fitted(data, t, i);
		if (!isfinite(lf) || !isfinite(data->inv_w[i] * (data->log_loss[i] - lf))) {
			snprintf(msg, HA_CAL_MESSAGE_MAX,
			         "run %zu: its fitted loss leaves a double at every start "
			         "(ln L-hat %g): check the fixed values (--fix) and the "
			         "run's loss_se", i + 1, lf);
			return 1;
		}
	}
	snprintf(msg, HA_CAL_MESSAGE_MAX,
	         "the objective is not finite at the fixed values (--fix)");
	return 1;
}

enum ha_status cal_fit_data(const struct ha_run *runs, const struct cal_data *data,
                            const struct ha_cal_law *law, double delta,
                            const double *seeds, size_t seed_count,
                            struct ha_cal_fit *out, struct ha_error *err)
{
	memset(out, 0, sizeof *out);
	out->law = *law;
	out->runs = data->m;
	out->free_count = cal_free_count(law);
	out->huber_delta = delta;
	char msg[HA_CAL_MESSAGE_MAX];
	if (!cal_identifiable(data, runs, out->free_count, law, msg) ||
	    !cal_data_term_identifiable(data, law, msg))
		return ha_fail(err, HA_EDEGENERATE, "%s", msg);
	if (!check_weights(data, runs, msg))
		return ha_fail(err, HA_EINVAL, "%s", msg);
	double th[HA_CAL_PARAMS];
	enum ha_status st = cal_minimise(data, law, delta, NULL, seeds,
	                                 seed_count, th, &out->objective,
	                                 &out->starts, &out->reached_best, NULL);
	if (st == HA_ENOMEM)
		return ha_fail(err, st, "out of memory");
	if (st == HA_ECANCELED)
		return ha_fail(err, st, "the fit was cancelled");
	if (st == HA_ENUMERIC && trace_nonfinite(data, law, NULL, msg))
		return ha_fail(err, HA_EINVAL, "%s", msg);
	if (st == HA_OK && trace_nonfinite(data, law, th, msg))
		return ha_fail(err, HA_EINVAL, "%s", msg);
	if (st != HA_OK)
		return ha_fail(err, st, "no starting point reached a finite objective");
	memcpy(out->law.value, th, sizeof th);
	st = fill_fit(out, runs, data, th);
	if (st != HA_OK) {
		ha_cal_fit_finish(out);
		return ha_fail(err, st, "out of memory");
	}
	return HA_OK;
}

enum ha_status ha_cal_fit_runs(const struct ha_run *runs, size_t count,
                               const struct ha_cal_law *law, double huber_delta,
                               struct ha_cal_fit *out, struct ha_error *err)
{
	ha_error_init(err);
	if (!law || !out)
		return ha_fail(err, HA_EINVAL, "no law or no result to fill");
	memset(out, 0, sizeof *out);
	enum ha_status st = ha_cal_validate_runs(runs, count, err);
	if (st == HA_OK)
		st = cal_check_law(law, huber_delta, err);
	if (st != HA_OK)
		return st;
	struct cal_data data;
	if (cal_data_init(&data, runs, count) != HA_OK)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	st = cal_fit_data(runs, &data, law, huber_delta, NULL, 0, out, err);
	cal_data_free(&data);
	return st;
}

void ha_cal_fit_finish(struct ha_cal_fit *fit)
{
	if (!fit)
		return;
	free(fit->residuals);
	fit->residuals = NULL;
}
