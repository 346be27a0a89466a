/* The error model of headalloc-model(7), THE ERROR MODEL and
 * CALIBRATION (The parameters), entirely in natural logs.
 *
 * At the defaults (E = A = 0, γ = 1/2, κ = 0, β = 1, plain coefficients)
 * every expression below rounds exactly as the simple model's formula:
 * x + 0.0 and 0.5 d + 0.0 are exact, E = A = 0 adds no constant, and
 * β = 1 multiplies ln n by 1 and divides by n itself, so the general
 * model moves no digit of a simple model's answer. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <headalloc/model.h>

#include "alloc/model_internal.h"

struct ha_model ha_model_defaults(void)
{
	/* The fields not named are 0: E, κ, A, group_hdi, plain coefficients.
	 * α is the data exponent of Chinchilla's fit (Hoffmann et al. 2022,
	 * L = E + A/N^0.34 + B/D^0.28): a realistic start for a calibration;
	 * with A = 0 it changes nothing. */
	return (struct ha_model){.smoothness = 2.0, .bias_coef = 1.0, .var_coef = 1.0,
	                         .hdi = 1.0, .var_rate = 0.5, .data_power = 0.28,
	                         .var_samples_power = 1.0};
}

double ha_model_log_bias_coef(const struct ha_model *m)
{
	return m->bias_coef_is_log ? m->bias_coef : log(m->bias_coef);
}

double ha_model_log_var_coef(const struct ha_model *m)
{
	return m->var_coef_is_log ? m->var_coef : log(m->var_coef);
}

/* A log of exactly 0 is the plain 1 (e^0 = 1 exactly), so that a
 * coefficient set from its log of 0 computes and prints as the default. */
void ha_model_set_log_bias_coef(struct ha_model *m, double log_coef)
{
	m->bias_coef_is_log = log_coef != 0.0;
	m->bias_coef = log_coef != 0.0 ? log_coef : 1.0;
}

void ha_model_set_log_var_coef(struct ha_model *m, double log_coef)
{
	m->var_coef_is_log = log_coef != 0.0;
	m->var_coef = log_coef != 0.0 ? log_coef : 1.0;
}

/* A coefficient in its form: a positive finite c, or a finite ln c. */
static int coef_valid(double value, int is_log)
{
	return is_log ? isfinite(value) : isfinite(value) && value > 0.0;
}

static int positive_finite(double x)
{
	return isfinite(x) && x > 0.0;
}

int ha_samples_valid(double samples)
{
	return isfinite(samples) && samples > 1.0 && !(samples > 1e300);
}

enum ha_status ha_samples_validate(double samples)
{
	return ha_samples_valid(samples) ? HA_OK : HA_EINVAL;
}

const char *ha_model_param_domain(const char *name, double v, int *in_domain)
{
	enum { POSITIVE, NONNEGATIVE, FRACTION, LOGARITHM };
	static const struct {
		const char *name;
		int domain;
	} params[] = {
		{"smoothness", POSITIVE}, {"bias_coef", POSITIVE}, {"var_coef", POSITIVE},
		{"data_power", POSITIVE}, {"var_samples_power", POSITIVE},
		{"irreducible", NONNEGATIVE}, {"var_rate", NONNEGATIVE},
		{"var_power", NONNEGATIVE}, {"data_coef", NONNEGATIVE},
		{"hdi", FRACTION}, {"group_hdi", FRACTION},
		{"log_bias_coef", LOGARITHM}, {"log_var_coef", LOGARITHM},
	};
	static const char *const words[] = {"a finite number > 0", "a finite number >= 0",
	                                    "a number from 0 to 1", "a finite number"};
	for (size_t i = 0; i < sizeof params / sizeof *params; i++) {
		if (strcmp(name, params[i].name) != 0)
			continue;
		int d = params[i].domain;
		*in_domain = d == POSITIVE ? positive_finite(v)
		           : d == NONNEGATIVE ? isfinite(v) && v >= 0.0
		           : d == FRACTION ? v >= 0.0 && v <= 1.0 : isfinite(v);
		return words[d];
	}
	*in_domain = 0;
	return NULL;
}

enum ha_status ha_model_validate(const struct ha_model *m)
{
	if (!m)
		return HA_EINVAL;
	if (!positive_finite(m->smoothness) ||
	    !coef_valid(m->bias_coef, m->bias_coef_is_log) ||
	    !coef_valid(m->var_coef, m->var_coef_is_log))
		return HA_EINVAL;
	if (!(m->hdi >= 0.0 && m->hdi <= 1.0))
		return HA_EINVAL;
	/* E >= 0: with L -> E as n and d grow, a negative E would predict a
	 * negative error (headalloc-model(7), CALIBRATION measures errors that are
	 * positive), and ln MSE would be undefined where it does. */
	if (!isfinite(m->irreducible) || !(m->irreducible >= 0.0) ||
	    (m->bias_coef_is_log != 0 && m->bias_coef_is_log != 1) ||
	    (m->var_coef_is_log != 0 && m->var_coef_is_log != 1))
		return HA_EINVAL;
	if (!isfinite(m->var_rate) || !(m->var_rate >= 0.0) ||
	    !isfinite(m->var_power) || !(m->var_power >= 0.0))
		return HA_EINVAL;
	/* The data term A n^-α (A >= 0, α > 0: it falls with n) and the
	 * variance's n^β (β > 0: more samples never raise the variance). */
	if (!isfinite(m->data_coef) || !(m->data_coef >= 0.0) ||
	    !positive_finite(m->data_power) ||
	    !positive_finite(m->var_samples_power))
		return HA_EINVAL;
	if (!(m->group_hdi >= 0.0 && m->group_hdi <= 1.0))
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

double ha_model_log_constant(const struct ha_model *m, double samples)
{
	double log_e = m->irreducible == 0.0 ? -INFINITY : log(m->irreducible);
	if (m->data_coef == 0.0)
		return log_e;
	return ha_log_add(log_e, log(m->data_coef) -
	                         m->data_power * log(samples));
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

void ha_model_eval_parts(const struct ha_model *m, double samples, uint64_t budget,
                         uint64_t head_dim, struct ha_eval_parts *p)
{
	uint64_t heads = budget / head_dim;
	double d = (double)head_dim;
	double H = (double)heads;
	double rho = 1.0 - m->hdi;
	int has_covariance = rho > 0.0 && heads > 1;
	p->log_d = log(d);
	p->log_heads = log(H);
	p->log_rho = has_covariance ? log(rho) : 0.0;
	p->log1p_heads = has_covariance ? log1p(-1.0 / H) : 0.0;
	p->pow_bias = pow(d, -m->smoothness);
	p->pow_var = pow(d, m->var_rate * d + m->var_power);
	p->log_bias_coef = ha_model_log_bias_coef(m);
	p->log_var_coef = ha_model_log_var_coef(m);
	p->log_samples_power = m->var_samples_power * log(samples);
	/* n^β: exactly n for β = 1 (+inf beyond a double, 0 below) */
	p->samples_power = m->var_samples_power == 1.0
		? samples : pow(samples, m->var_samples_power);
}

enum ha_status ha_model_eval_grouped(const struct ha_model *m, double samples,
                                     uint64_t budget, uint64_t head_dim,
                                     uint64_t kv_heads, struct ha_terms *out)
{
	if (!m || !out || head_dim == 0 || budget == 0 ||
	    budget > HA_BUDGET_MAX || budget % head_dim != 0 ||
	    !ha_samples_valid(samples) || kv_heads == 0 ||
	    (budget / head_dim) % kv_heads != 0)
		return HA_EINVAL;
	struct ha_eval_parts parts;
	ha_model_eval_parts(m, samples, budget, head_dim, &parts);
	ha_model_eval_from(m, samples, budget, head_dim, kv_heads, &parts, out);
	return HA_OK;
}

enum ha_status ha_model_eval(const struct ha_model *m, double samples,
                             uint64_t budget, uint64_t head_dim,
                             struct ha_terms *out)
{
	return ha_model_eval_grouped(m, samples, budget, head_dim,
	                             head_dim ? budget / head_dim : 0, out);
}

/* (g - 1) rho_g + (H - g) rho: the covariance share of the sum of all
 * pairs, over H (see F in grouped.h); exact in the integers g - 1 and
 * H - g where they are below 2^53. */
static double pair_weight(const struct ha_model *m, uint64_t heads,
                          uint64_t kv_heads)
{
	uint64_t group = heads / kv_heads;
	return (double)(group - 1) * (1.0 - m->group_hdi) +
	       (double)(heads - group) * (1.0 - m->hdi);
}

double ha_model_log_group_factor(const struct ha_model *m, uint64_t heads,
                                 uint64_t kv_heads)
{
	double rho = 1.0 - m->hdi;
	if (kv_heads == heads)
		return log(rho + (1.0 - rho) / (double)heads);
	return log1p(pair_weight(m, heads, kv_heads)) - log((double)heads);
}

void ha_model_eval_from(const struct ha_model *m, double samples, uint64_t budget,
                        uint64_t head_dim, uint64_t kv_heads,
                        const struct ha_eval_parts *p, struct ha_terms *out)
{
	uint64_t heads = budget / head_dim;
	double d = (double)head_dim;
	double H = (double)heads;
	double rho = 1.0 - m->hdi;
	/* ln var(d) = ln c_v + (γd + κ) ln d - β ln n: one head's variance. */
	double log_var = p->log_var_coef + (m->var_rate * d + m->var_power) * p->log_d -
	                 p->log_samples_power;
	int has_covariance = rho > 0.0 && heads > 1;

	out->log_bias2 = p->log_bias_coef - m->smoothness * p->log_d;
	out->log_variance = log_var - p->log_heads;

	/* Plain values straight from the formulas where every intermediate is
	 * a normal double (exp of a log would lose the last bits); from the
	 * logs where a power under- or overflows on the way, or where a
	 * coefficient is held as its log (its plain value need not be a
	 * double: NaN sends plain() to the log). */
	int direct = 1;
	double c_b = m->bias_coef_is_log ? NAN : m->bias_coef;
	double c_v = m->var_coef_is_log ? NAN : m->var_coef;
	out->bias2 = plain(c_b * p->pow_bias, out->log_bias2, &direct);
	double var = c_v * (p->pow_var / p->samples_power);
	out->variance = plain(var / H, out->log_variance, &direct);
	if (kv_heads == heads) {
		out->log_covariance = has_covariance
			? p->log_rho + log_var + p->log1p_heads : -INFINITY;
		out->covariance = has_covariance
			? plain(rho * var * (1.0 - 1.0 / H), out->log_covariance, &direct)
			: 0.0;
	} else {
		/* var(d) w / H with w the pair weight: the variance's value and
		 * log times w, the plain sums kept wherever the bias and the
		 * variance are normal doubles. */
		double w = pair_weight(m, heads, kv_heads);
		out->log_covariance = w > 0.0 ? log(w) + out->log_variance : -INFINITY;
		double cov = w * out->variance;
		out->covariance = w == 0.0 ? 0.0
			: isnormal(cov) && isnormal(out->variance)
			? cov : ha_exp_or_inf(out->log_covariance);
		direct = isnormal(out->bias2) && isnormal(out->variance);
	}
	out->log_reducible = ha_log_add(ha_log_add(out->log_bias2, out->log_variance),
	                                out->log_covariance);
	double sum = out->bias2 + out->variance + out->covariance;
	out->reducible = direct && isnormal(sum) ? sum
	                                         : ha_exp_or_inf(out->log_reducible);
	out->irreducible = m->irreducible;
	/* A n^-α: a plain value (it may underflow to 0; the log of the sum
	 * below keeps it whatever its size). */
	out->data = m->data_coef == 0.0 ? 0.0
	                                : m->data_coef * pow(samples, -m->data_power);
	if (m->irreducible == 0.0 && m->data_coef == 0.0) {
		out->log_mse = out->log_reducible;
		out->mse = out->reducible;
	} else {
		out->log_mse = ha_log_add(ha_model_log_constant(m, samples),
		                          out->log_reducible);
		out->mse = m->irreducible + out->data + out->reducible;
	}
}

double ha_model_log_relative_mse(const struct ha_model *m, double samples,
                                 uint64_t budget, uint64_t head_dim,
                                 uint64_t kv_heads)
{
	double d = (double)head_dim;
	/* ln(bias2 / c_b) and ln((variance + covariance) / c_b), where
	 * variance + covariance = var(d) F; E and A n^-α left out. */
	double log_bias = -m->smoothness * log(d);
	double log_var = ha_model_log_var_coef(m) - ha_model_log_bias_coef(m) +
	                 (m->var_rate * d + m->var_power) * log(d) -
	                 m->var_samples_power * log(samples) +
	                 ha_model_log_group_factor(m, budget / head_dim, kv_heads);
	return ha_log_add(log_bias, log_var);
}

void ha_relaxed_fn_init(struct ha_relaxed_fn *f, const struct ha_model *m,
                        double samples, double budget)
{
	f->log_bias_coef = ha_model_log_bias_coef(m);
	f->log_var_scale = ha_model_log_var_coef(m) - m->var_samples_power * log(samples);
	f->smoothness = m->smoothness;
	f->rho = 1.0 - m->hdi;
	f->budget = budget;
	f->log_budget = log(budget);
	f->var_rate = m->var_rate;
	f->var_power = m->var_power;
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
	double log_var = f->log_var_scale + (f->var_rate * x + f->var_power) * log_x +
	                 log_factor;
	double log_f = ha_log_add(log_bias, log_var);

	if (grad) {
		/* d/du of each log term (u = ln x), weighted by its share of f. */
		double w_bias = exp(log_bias - log_f);
		double w_var = 1.0 - w_bias;
		double dfactor = (1.0 - f->rho) * x / f->budget /
		                 (f->rho + (1.0 - f->rho) * x / f->budget);
		/* d/du of (γx + κ) ln x is γx(ln x + 1) + κ. */
		double dvar = f->var_rate * x * (log_x + 1.0) + f->var_power + dfactor;
		*grad = -f->smoothness * w_bias + w_var * dvar;
	}
	return log_f;
}

double ha_model_log_relaxed_ln(const struct ha_model *m, double samples,
                               double budget, double log_x, double *grad)
{
	struct ha_relaxed_fn f;
	ha_relaxed_fn_init(&f, m, samples, budget);
	double log_r = ha_relaxed_fn_eval(&f, log_x, grad);
	if (m->irreducible == 0.0 && m->data_coef == 0.0)
		return log_r;
	double log_f = ha_log_add(ha_model_log_constant(m, samples), log_r);
	/* d ln f/du = (R/f) d ln R/du, R/f = e^(ln R - ln f). */
	if (grad)
		*grad *= exp(log_r - log_f);
	return log_f;
}

/* Why the bracket certificate holds for every parameter value of the
 * model's domain (the condition tested by ha_model_unimodal_on).
 *
 * Let x >= 1 be a real head dimension and H = D/x.  The objective is
 *   f(x) = E + B(x) + V(x),   B = c_b x^-s,
 *   V = c e^h q,   c = c_v/n > 0,   h = (γx + κ) ln x,   q = ρ + αx,
 * with ρ = 1 - hdi in [0, 1] and α = (1 - ρ)/D >= 0, so q > 0 on x >= 1.
 * Then f' = -s c_b x^(-s-1) + V', V' = c e^h (h'q + α), and f' > 0 exactly
 * where W(x) = x^(s+1) V'(x) exceeds the constant s c_b.  If W is strictly
 * increasing on [1, inf), f' changes sign at most once, from - to +: f is
 * strictly decreasing, then strictly increasing (strictly unimodal), and so
 * is its restriction to any ascending sequence of head dimensions, which
 * is what the bisection on successive differences needs.  (The sublevel
 * sets are intervals too, so the values within the tie band of the
 * minimum are contiguous, as the solver's tie walk assumes.)
 *
 * h' = γ ln x + γ + κ/x >= 0 and h'' = γ/x - κ/x^2 on x >= 1.
 * Degenerate case γ = κ = 0 and α = 0: V is constant, f' < 0, f strictly
 * decreasing — unimodal.  Otherwise h'q + α > 0 for x > 1 and
 *   (ln W)' = (s+1)/x + h' + (h''q + h'α)/(h'q + α).
 * Every term is >= 0 except possibly h''q.  If h'' >= 0, (ln W)' >=
 * (s+1)/x > 0.  If h'' < 0 then κ > γx >= 0, so h' >= κ/x > 0, and a
 * negative numerator over a larger denominator is closer to 0:
 * h''q/(h'q + α) >= h''/h'.  With P = x h' = γx ln x + γx + κ >= κ,
 *   x^2 h' (ln W)' >= (s+1)P + P^2 + x^2 h'' = (s+1)P + P^2 + γx - κ
 *                 >= (s+1)κ + κ^2 - κ = sκ + κ^2 > 0.
 * So W is strictly increasing on [1, inf) for every s > 0, γ >= 0, κ >= 0,
 * hdi in [0, 1] — even where d^(γd+κ) is not log-convex (h'' < 0 for
 * x < κ/γ, e.g. γ = 0 with 0 < κ < 1, where V is not even convex); the
 * convexity argument of headalloc-model(7), THE ALLOCATION PROBLEM is the special case γ = 1/2, κ = 0.  E,
 * c_b, c_v and n do not enter; E only shifts f.  Convexity of f is not
 * needed: unimodality is what the certificate uses.
 *
 * The data term and β.  f = E + A n^-α + B + V with V = c_v x^(γx+κ)
 * q / n^β: at a fixed n, A n^-α is a constant like E (f' does not see
 * it), and n^β only changes the constant c = c_v/n^β > 0, which the proof
 * above never uses beyond c > 0.  So the certificate holds for every
 * A >= 0, α > 0 and β > 0 as well: nothing of the data term or of β
 * enters the hypotheses, and this function need not look at them. */
int ha_model_unimodal_on(const struct ha_model *m, double x_lo)
{
	if (!m || !(x_lo >= 1.0))
		return 0;
	return isfinite(m->smoothness) && m->smoothness > 0.0 &&
	       isfinite(m->var_rate) && m->var_rate >= 0.0 &&
	       isfinite(m->var_power) && m->var_power >= 0.0 &&
	       m->hdi >= 0.0 && m->hdi <= 1.0;
}
