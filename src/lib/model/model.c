/* The error model of spec §2, entirely in natural logs. */
#include <math.h>
#include <stddef.h>

#include <headalloc/model.h>

struct ha_model ha_model_defaults(void)
{
	struct ha_model m = {
		.samples = 1e8,
		.smoothness = 2.0,
		.bias_coef = 1.0,
		.var_coef = 1.0,
		.hdi = 1.0,
	};
	return m;
}

static int positive_finite(double x)
{
	return isfinite(x) && x > 0.0;
}

enum ha_status ha_model_validate(const struct ha_model *m)
{
	if (!m)
		return HA_EINVAL;
	if (!isfinite(m->samples) || !(m->samples > 1.0) || m->samples > 1e300)
		return HA_EINVAL;
	if (!positive_finite(m->smoothness) || !positive_finite(m->bias_coef) ||
	    !positive_finite(m->var_coef))
		return HA_EINVAL;
	if (!(m->hdi >= 0.0 && m->hdi <= 1.0))
		return HA_EINVAL;
	return HA_OK;
}

double ha_log_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	double hi = a > b ? a : b;
	double lo = a > b ? b : a;
	return hi + log1p(exp(lo - hi));
}

double ha_exp_or_inf(double log_value)
{
	double v = exp(log_value);
	return isfinite(v) ? v : INFINITY;
}

/* ln var(d) = ln c_v + (d/2) ln d - ln n: one head's variance. */
static double log_head_variance(const struct ha_model *m, double d)
{
	return log(m->var_coef) + 0.5 * d * log(d) - log(m->samples);
}

/* direct when it is a normal double, else exp(log_value) (+inf beyond a
 * double); clears *all_direct when it falls back. */
static double plain(double direct, double log_value, int *all_direct)
{
	if (isnormal(direct))
		return direct;
	*all_direct = 0;
	return ha_exp_or_inf(log_value);
}

enum ha_status ha_model_eval(const struct ha_model *m, uint64_t budget,
                             uint64_t head_dim, struct ha_terms *out)
{
	if (!m || !out || head_dim == 0 || budget == 0 ||
	    budget > HA_BUDGET_MAX || budget % head_dim != 0)
		return HA_EINVAL;

	uint64_t heads = budget / head_dim;
	double d = (double)head_dim;
	double H = (double)heads;
	double rho = 1.0 - m->hdi;
	double log_var = log_head_variance(m, d);
	int has_covariance = rho > 0.0 && heads > 1;

	out->log_bias2 = log(m->bias_coef) - m->smoothness * log(d);
	out->log_variance = log_var - log(H);
	out->log_covariance = has_covariance
		? log(rho) + log_var + log1p(-1.0 / H) : -INFINITY;
	out->log_mse = ha_log_add(ha_log_add(out->log_bias2, out->log_variance),
	                          out->log_covariance);

	/* Plain values straight from the formulas where every intermediate is
	 * a normal double (exp of a log would lose the last bits); from the
	 * logs where a power under- or overflows on the way. */
	int direct = 1;
	out->bias2 = plain(m->bias_coef * pow(d, -m->smoothness),
	                   out->log_bias2, &direct);
	double var = m->var_coef * (pow(d, 0.5 * d) / m->samples);
	out->variance = plain(var / H, out->log_variance, &direct);
	out->covariance = has_covariance
		? plain(rho * var * (1.0 - 1.0 / H), out->log_covariance, &direct)
		: 0.0;
	double sum = out->bias2 + out->variance + out->covariance;
	out->mse = direct && isnormal(sum) ? sum : ha_exp_or_inf(out->log_mse);
	return HA_OK;
}

double ha_model_log_relative_mse(const struct ha_model *m, uint64_t budget,
                                 uint64_t head_dim)
{
	double d = (double)head_dim;
	double H = (double)(budget / head_dim);
	double rho = 1.0 - m->hdi;
	/* ln(bias2 / c_b) and ln((variance + covariance) / c_b), where
	 * variance + covariance = var(d) (rho + (1 - rho)/H). */
	double log_bias = -m->smoothness * log(d);
	double log_var = log(m->var_coef) - log(m->bias_coef) + 0.5 * d * log(d) -
	                 log(m->samples) + log(rho + (1.0 - rho) / H);
	return ha_log_add(log_bias, log_var);
}

double ha_model_log_relaxed(const struct ha_model *m, double budget, double x,
                            double *grad)
{
	double grad_u;
	double log_f = ha_model_log_relaxed_ln(m, budget, log(x), grad ? &grad_u : NULL);
	if (grad)
		*grad = grad_u / x;
	return log_f;
}

void ha_relaxed_fn_init(struct ha_relaxed_fn *f, const struct ha_model *m,
                        double budget)
{
	f->log_bias_coef = log(m->bias_coef);
	f->log_var_scale = log(m->var_coef) - log(m->samples);
	f->smoothness = m->smoothness;
	f->rho = 1.0 - m->hdi;
	f->budget = budget;
	f->log_budget = log(budget);
}

double ha_relaxed_fn_eval(const struct ha_relaxed_fn *f, double log_x,
                          double *grad)
{
	double x = exp(log_x);
	/* ln of the variance factor rho + (1 - rho) x / D; for rho = 0 it is
	 * ln x - ln D, with no rounding of x / D. */
	double log_factor = f->rho > 0.0
		? log(f->rho + (1.0 - f->rho) * x / f->budget)
		: log_x - f->log_budget;
	double log_bias = f->log_bias_coef - f->smoothness * log_x;
	double log_var = f->log_var_scale + 0.5 * x * log_x + log_factor;
	double log_f = ha_log_add(log_bias, log_var);

	if (grad) {
		/* d/du of each log term (u = ln x), weighted by its share of f. */
		double w_bias = exp(log_bias - log_f);
		double w_var = 1.0 - w_bias;
		double dfactor = (1.0 - f->rho) * x / f->budget /
		                 (f->rho + (1.0 - f->rho) * x / f->budget);
		double dvar = 0.5 * x * (log_x + 1.0) + dfactor;
		*grad = -f->smoothness * w_bias + w_var * dvar;
	}
	return log_f;
}

double ha_model_log_relaxed_ln(const struct ha_model *m, double budget,
                               double log_x, double *grad)
{
	struct ha_relaxed_fn f;
	ha_relaxed_fn_init(&f, m, budget);
	return ha_relaxed_fn_eval(&f, log_x, grad);
}
