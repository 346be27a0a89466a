/* Reports of a solved allocation: YAML for machines, text for people. */
#include <inttypes.h>
#include <math.h>

#include <headalloc/report.h>

static double log10_of(double log_value)
{
	return log_value / log(10.0);
}

static void yaml_terms(struct ha_yaml_writer *w, const struct ha_allocation *a)
{
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, a->heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, a->head_dim);
	ha_yaml_key(w, "mse");
	ha_yaml_double(w, a->terms.mse);
	ha_yaml_key(w, "log10_mse");
	ha_yaml_double(w, log10_of(a->terms.log_mse));
	ha_yaml_key(w, "bias2");
	ha_yaml_double(w, a->terms.bias2);
	ha_yaml_key(w, "variance");
	ha_yaml_double(w, a->terms.variance);
	ha_yaml_key(w, "covariance");
	ha_yaml_double(w, a->terms.covariance);
}

void ha_report_yaml_model(struct ha_yaml_writer *w, const struct ha_model *model)
{
	ha_yaml_key(w, "model");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "smoothness");
	ha_yaml_double(w, model->smoothness);
	ha_yaml_key(w, "bias_coef");
	ha_yaml_double(w, model->bias_coef);
	ha_yaml_key(w, "var_coef");
	ha_yaml_double(w, model->var_coef);
	ha_yaml_key(w, "hdi");
	ha_yaml_double(w, model->hdi);
	ha_yaml_end_map(w);
}

void ha_report_yaml_solution(struct ha_yaml_writer *w,
                             const struct ha_model *model,
                             const struct ha_solution *sol,
                             const struct ha_allocation *candidates,
                             size_t count)
{
	ha_yaml_key(w, "budget");
	ha_yaml_uint(w, sol->budget);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, model->samples);

	ha_report_yaml_model(w, model);

	ha_yaml_key(w, "optimum");
	ha_yaml_begin_map(w, 0);
	yaml_terms(w, &sol->optimum);
	ha_yaml_end_map(w);

	ha_yaml_key(w, "relaxed");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "head_dim");
	ha_yaml_double(w, sol->relaxed.head_dim);
	ha_yaml_key(w, "heads");
	ha_yaml_double(w, sol->relaxed.heads);
	ha_yaml_key(w, "mse");
	ha_yaml_double(w, ha_exp_or_inf(sol->relaxed.log_mse));
	ha_yaml_key(w, "log10_mse");
	ha_yaml_double(w, log10_of(sol->relaxed.log_mse));
	ha_yaml_end_map(w);

	ha_yaml_key(w, "certificate");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "method");
	ha_yaml_string(w, ha_certificate_method_str(sol->certificate.method));
	ha_yaml_key(w, "divisors");
	ha_yaml_uint(w, sol->certificate.divisors);
	ha_yaml_key(w, "feasible");
	ha_yaml_uint(w, sol->certificate.feasible);
	ha_yaml_key(w, "evaluated");
	ha_yaml_uint(w, sol->certificate.evaluated);
	ha_yaml_end_map(w);

	if (!candidates)
		return;
	ha_yaml_key(w, "candidates");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < count; i++) {
		ha_yaml_begin_map(w, 1);
		yaml_terms(w, &candidates[i]);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
}

/* A value for people: %.6g, or "inf" beyond a double. */
static const char *human(double v, char buf[32])
{
	if (isinf(v))
		snprintf(buf, 32, "inf");
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}

static int digits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void text_table(FILE *f, const struct ha_allocation *rows, size_t count)
{
	char b1[32], b2[32], b3[32], b4[32];
	/* heads and head_dim columns as wide as their widest entry (the
	 * largest H and d are the two ends of the divisor list). */
	int width = 8;
	for (size_t i = 0; i < count; i++) {
		if (digits(rows[i].heads) > width)
			width = digits(rows[i].heads);
		if (digits(rows[i].head_dim) > width)
			width = digits(rows[i].head_dim);
	}
	fprintf(f, "\n%*s %*s %13s %13s %13s %13s %13s\n", width, "heads", width,
	        "head_dim", "mse", "log10_mse", "bias2", "variance", "covariance");
	for (size_t i = 0; i < count; i++) {
		const struct ha_terms *t = &rows[i].terms;
		fprintf(f, "%*" PRIu64 " %*" PRIu64 " %13s %13.6f %13s %13s %13s\n",
		        width, rows[i].heads, width, rows[i].head_dim, human(t->mse, b1),
		        log10_of(t->log_mse), human(t->bias2, b2),
		        human(t->variance, b3), human(t->covariance, b4));
	}
}

enum ha_status ha_report_text_solution(FILE *f, const struct ha_model *model,
                                       const struct ha_solution *sol,
                                       const struct ha_allocation *candidates,
                                       size_t count)
{
	char b1[32], b2[32], b3[32], b4[32];
	const struct ha_terms *t = &sol->optimum.terms;
	const struct ha_certificate *c = &sol->certificate;

	fprintf(f, "budget D = %" PRIu64 ", samples n = %.6g"
	        " (smoothness %.6g, bias_coef %.6g, var_coef %.6g, hdi %.6g)\n\n",
	        sol->budget, model->samples, model->smoothness, model->bias_coef,
	        model->var_coef, model->hdi);
	fprintf(f, "optimum      %" PRIu64 " heads x head_dim %" PRIu64 "\n",
	        sol->optimum.heads, sol->optimum.head_dim);
	fprintf(f, "  mse        %s (log10 %.6f)\n", human(t->mse, b1),
	        log10_of(t->log_mse));
	fprintf(f, "  bias^2     %s\n", human(t->bias2, b2));
	fprintf(f, "  variance   %s\n", human(t->variance, b3));
	fprintf(f, "  covariance %s\n", human(t->covariance, b4));
	fprintf(f, "relaxed      head_dim %.6g, heads %.6g, mse %s\n",
	        sol->relaxed.head_dim, sol->relaxed.heads,
	        human(ha_exp_or_inf(sol->relaxed.log_mse), b1));
	fprintf(f, "certificate  %s: %zu evaluations, %zu feasible of %zu divisors\n",
	        ha_certificate_method_str(c->method), c->evaluated, c->feasible,
	        c->divisors);
	if (candidates)
		text_table(f, candidates, count);
	return ferror(f) ? HA_EIO : HA_OK;
}

/* ---- sweep tables ------------------------------------------------------ */

void ha_report_yaml_table_row(struct ha_yaml_writer *w, double samples,
                              const struct ha_solution *sol)
{
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "budget");
	ha_yaml_uint(w, sol->budget);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, samples);
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, sol->optimum.heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, sol->optimum.head_dim);
	ha_yaml_key(w, "mse");
	ha_yaml_double(w, sol->optimum.terms.mse);
	ha_yaml_key(w, "log10_mse");
	ha_yaml_double(w, log10_of(sol->optimum.terms.log_mse));
	ha_yaml_key(w, "relaxed_head_dim");
	ha_yaml_double(w, sol->relaxed.head_dim);
	ha_yaml_key(w, "relaxed_heads");
	ha_yaml_double(w, sol->relaxed.heads);
	ha_yaml_end_map(w);
}

void ha_report_text_table_header(FILE *f)
{
	fprintf(f, "%20s %12s %20s %10s %13s %12s %16s %14s\n", "budget",
	        "samples", "heads", "head_dim", "mse", "log10_mse",
	        "relaxed_head_dim", "relaxed_heads");
}

void ha_report_text_table_row(FILE *f, double samples,
                              const struct ha_solution *sol)
{
	char b[32];
	fprintf(f, "%20" PRIu64 " %12.6g %20" PRIu64 " %10" PRIu64
	        " %13s %12.6f %16.6g %14.6g\n", sol->budget, samples,
	        sol->optimum.heads, sol->optimum.head_dim,
	        human(sol->optimum.terms.mse, b),
	        log10_of(sol->optimum.terms.log_mse), sol->relaxed.head_dim,
	        sol->relaxed.heads);
}

/* ---- fits ---------------------------------------------------------------- */

struct law_names {
	const char *form;      /* the law, for people and machines */
	const char *slope;     /* its slope's name */
	const char *intercept; /* its intercept's name (as fitted) */
	const char *scale;     /* exp(intercept)'s name, or NULL */
	const char *abscissa;  /* what largest_at is */
	const char *claim;     /* the seeds' claim, as "name = formula" */
};

static struct law_names law_names(enum ha_law law)
{
	static const struct law_names names[] = {
		{"ln(head_dim) = ln(a) + b ln(ln(samples))", "b", "ln_a", "a",
		 "samples", "b = 2/(4+s)"},
		{"head_dim = p + q ln(samples)", "q", "p", NULL, "samples", NULL},
		{"ln(heads) = ln(c) + e ln(budget)", "e", "ln_c", "c", "budget",
		 "e"},
	};
	return names[law];
}

static const char *status_words(enum ha_status status)
{
	return status == HA_EDEGENERATE
		? "no fit: fewer than 3 distinct points" : ha_status_str(status);
}

void ha_report_yaml_fit(struct ha_yaml_writer *w, const struct ha_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "form");
	ha_yaml_string(w, n.form);
	ha_yaml_key(w, "points");
	ha_yaml_uint(w, fit->points);
	if (fit->status != HA_OK) {
		ha_yaml_key(w, "status");
		ha_yaml_string(w, status_words(fit->status));
		ha_yaml_end_map(w);
		return;
	}
	ha_yaml_key(w, n.slope);
	ha_yaml_double(w, r->slope);
	char key[32];
	snprintf(key, sizeof key, "%s_se", n.slope);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->se_slope);
	snprintf(key, sizeof key, "%s_low", n.slope);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->slope_low);
	snprintf(key, sizeof key, "%s_high", n.slope);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->slope_high);
	ha_yaml_key(w, n.intercept);
	ha_yaml_double(w, r->intercept);
	snprintf(key, sizeof key, "%s_se", n.intercept);
	ha_yaml_key(w, key);
	ha_yaml_double(w, r->se_intercept);
	if (n.scale) {
		ha_yaml_key(w, n.scale);
		ha_yaml_double(w, ha_exp_or_inf(r->intercept));
	}
	ha_yaml_key(w, "level");
	ha_yaml_double(w, HA_FIT_LEVEL);
	ha_yaml_key(w, "r2");
	ha_yaml_double(w, r->r2);
	ha_yaml_key(w, "max_residual");
	if (r->max_residual_known)
		ha_yaml_double(w, r->max_abs_residual);
	else
		ha_yaml_null(w);
	snprintf(key, sizeof key, "max_residual_%s", n.abscissa);
	ha_yaml_key(w, key);
	if (!r->max_residual_known)
		ha_yaml_null(w);
	else if (fit->law == HA_LAW_HEADS_POWER)
		ha_yaml_uint(w, fit->largest_budget);
	else
		ha_yaml_double(w, fit->largest_at);
	if (n.claim && !isnan(fit->claimed)) {
		snprintf(key, sizeof key, "claimed_%s", n.slope);
		ha_yaml_key(w, key);
		ha_yaml_double(w, fit->claimed);
		ha_yaml_key(w, "claim_in_interval");
		ha_yaml_bool(w, fit->claimed >= r->slope_low &&
		                fit->claimed <= r->slope_high);
	}
	ha_yaml_end_map(w);
}

void ha_report_text_fit(FILE *f, const char *label, const struct ha_law_fit *fit)
{
	struct law_names n = law_names(fit->law);
	const struct ha_fit_result *r = &fit->result;
	fprintf(f, "fit %s: %s: ", label, n.form);
	if (fit->status != HA_OK) {
		fprintf(f, "%s (%zu given)\n", status_words(fit->status), fit->points);
		return;
	}
	fprintf(f, "%s = %.6g +- %.2g (95%% [%.6g, %.6g]), %s = %.6g, R^2 = %.6f",
	        n.slope, r->slope, r->se_slope, r->slope_low, r->slope_high,
	        n.scale ? n.scale : n.intercept,
	        n.scale ? ha_exp_or_inf(r->intercept) : r->intercept, r->r2);
	if (r->max_residual_known && fit->law == HA_LAW_HEADS_POWER)
		fprintf(f, ", largest residual %.3g at %s = %" PRIu64,
		        r->max_abs_residual, n.abscissa, fit->largest_budget);
	else if (r->max_residual_known)
		fprintf(f, ", largest residual %.3g at %s = %.6g", r->max_abs_residual,
		        n.abscissa, fit->largest_at);
	fprintf(f, ", %zu points", r->count);
	if (n.claim && !isnan(fit->claimed))
		fprintf(f, "; seeds claim %s = %.6g (%s the interval)", n.claim,
		        fit->claimed,
		        fit->claimed >= r->slope_low && fit->claimed <= r->slope_high
		                ? "inside" : "outside");
	fputc('\n', f);
}

/* ---- regimes ------------------------------------------------------------- */

static double log10_samples(double log_n)
{
	return isinf(log_n) ? log_n : log_n / log(10.0);
}

void ha_report_yaml_regimes(struct ha_yaml_writer *w, uint64_t budget,
                            const struct ha_regime *regimes, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const struct ha_regime *g = &regimes[i];
		ha_yaml_begin_map(w, 1);
		ha_yaml_key(w, "budget");
		ha_yaml_uint(w, budget);
		ha_yaml_key(w, "heads");
		ha_yaml_uint(w, g->heads);
		ha_yaml_key(w, "head_dim");
		ha_yaml_uint(w, g->head_dim);
		ha_yaml_key(w, "samples_from");
		ha_yaml_double(w, ha_exp_or_inf(g->log_samples_from));
		ha_yaml_key(w, "samples_to");
		ha_yaml_double(w, ha_exp_or_inf(g->log_samples_to));
		ha_yaml_key(w, "log10_samples_from");
		ha_yaml_double(w, log10_samples(g->log_samples_from));
		ha_yaml_key(w, "log10_samples_to");
		ha_yaml_double(w, log10_samples(g->log_samples_to));
		ha_yaml_end_map(w);
	}
}

/* n for people: %.6g while it fits a double, else 10^x. */
static const char *human_samples(double log_n, char buf[32])
{
	double v = ha_exp_or_inf(log_n);
	if (isinf(log_n))
		snprintf(buf, 32, "inf");
	else if (isinf(v))
		snprintf(buf, 32, "10^%.6g", log_n / log(10.0));
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}

void ha_report_text_regimes(FILE *f, uint64_t budget,
                            const struct ha_regime *regimes, size_t count)
{
	char from[32], to[32];
	fprintf(f, "regimes of budget %" PRIu64 " (each pair is optimal for n in"
	        " [samples_from, samples_to]):\n", budget);
	fprintf(f, "%20s %20s %16s %16s\n", "heads", "head_dim", "samples_from",
	        "samples_to");
	for (size_t i = 0; i < count; i++)
		fprintf(f, "%20" PRIu64 " %20" PRIu64 " %16s %16s\n",
		        regimes[i].heads, regimes[i].head_dim,
		        human_samples(regimes[i].log_samples_from, from),
		        human_samples(regimes[i].log_samples_to, to));
}

/* ---- public models --------------------------------------------------------- */

enum ha_status ha_report_compare_model(const struct ha_model *model,
                                       const struct ha_constraints *c,
                                       uint64_t heads, uint64_t head_dim,
                                       struct ha_model_comparison *out)
{
	if (!model || !out || heads == 0 || head_dim == 0 ||
	    heads > HA_BUDGET_MAX / head_dim)
		return HA_EINVAL;
	uint64_t budget = heads * head_dim;
	enum ha_status st = ha_solve(budget, c, model, &out->theory);
	if (st != HA_OK)
		return st;
	out->samples = model->samples;
	out->actual.heads = heads;
	out->actual.head_dim = head_dim;
	st = ha_model_eval(model, budget, head_dim, &out->actual.terms);
	if (st != HA_OK)
		return st;
	out->log10_ratio = log10_of(out->actual.terms.log_mse -
	                            out->theory.optimum.terms.log_mse);
	return HA_OK;
}

void ha_report_yaml_comparison(struct ha_yaml_writer *w,
                               const struct ha_model_comparison *cmp)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "name");
	ha_yaml_string(w, cmp->name);
	ha_yaml_key(w, "budget");
	ha_yaml_uint(w, cmp->theory.budget);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, cmp->samples);
	ha_yaml_key(w, "samples_assumed");
	ha_yaml_bool(w, cmp->samples_assumed);
	if (cmp->note) {
		ha_yaml_key(w, "note");
		ha_yaml_string(w, cmp->note);
	}
	ha_yaml_key(w, "actual");
	ha_yaml_begin_map(w, 1);
	yaml_terms(w, &cmp->actual);
	ha_yaml_end_map(w);
	ha_yaml_key(w, "theory");
	ha_yaml_begin_map(w, 1);
	yaml_terms(w, &cmp->theory.optimum);
	ha_yaml_end_map(w);
	ha_yaml_key(w, "relaxed_head_dim");
	ha_yaml_double(w, cmp->theory.relaxed.head_dim);
	ha_yaml_key(w, "mse_ratio");
	ha_yaml_double(w, ha_exp_or_inf(cmp->log10_ratio * log(10.0)));
	ha_yaml_key(w, "log10_mse_ratio");
	ha_yaml_double(w, cmp->log10_ratio);
	ha_yaml_end_map(w);
}

void ha_report_text_comparison_header(FILE *f)
{
	fprintf(f, "%-18s %8s %10s %13s %13s %16s  %s\n", "model", "budget",
	        "samples", "actual H x d", "theory H x d", "log10 mse ratio",
	        "note");
}

void ha_report_text_comparison(FILE *f, const struct ha_model_comparison *cmp)
{
	char actual[48], theory[48];
	snprintf(actual, sizeof actual, "%" PRIu64 " x %" PRIu64,
	         cmp->actual.heads, cmp->actual.head_dim);
	snprintf(theory, sizeof theory, "%" PRIu64 " x %" PRIu64,
	         cmp->theory.optimum.heads, cmp->theory.optimum.head_dim);
	fprintf(f, "%-18s %8" PRIu64 " %10.4g %13s %13s %16.6g  %s%s\n",
	        cmp->name, cmp->theory.budget, cmp->samples, actual, theory,
	        cmp->log10_ratio, cmp->samples_assumed ? "(samples assumed) " : "",
	        cmp->note ? cmp->note : "");
}
