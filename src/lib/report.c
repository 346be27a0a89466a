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
