/* The sweep table: every (n, D) solved and streamed row by row, feeding
 * the scaling-law fits of spec §6, which follow the table. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "report_internal.h"

struct table {
	const struct ha_table_request *req;
	struct ha_model model;        /* req->model at the current n */
	struct ha_solver **solvers;   /* one per budget */
	struct ha_fit **dim_power;    /* per budget: ln d* vs ln ln n */
	struct ha_fit **dim_log;      /* per budget: d* vs ln n */
	struct ha_fit *heads_power;   /* per n, over the budgets */
	struct report_law_fit *by_samples; /* a finished heads fit per n */
	double *relaxed_dims;         /* x*(n_i) per budget, row-major by budget,
	                                 when small enough to keep; else NULL */
	size_t replay_budget;         /* which budget a replay regenerates */
};

/* Keep the relaxed optima of a sweep (8 bytes a point) up to 16 MB, so
 * the fits' second pass for their largest residual reads them back
 * instead of solving every point again. */
#define RELAXED_CACHE_POINTS ((size_t)1 << 21)

static double sample_at(const struct table *t, size_t i)
{
	return t->req->samples.at(t->req->samples.ctx, i);
}

/* A solver's failure for budget, in words. */
static enum ha_status solve_failed(struct ha_report *r, struct ha_error *err,
                                   enum ha_status st, uint64_t budget)
{
	if (st == HA_EINFEASIBLE)
		return report_fail(r, err, st, "no (heads, head_dim) pair of budget %"
		                   PRIu64 " meets the constraints", budget);
	return report_fail(r, err, st, "solving: %s", ha_status_str(st));
}

/* Regenerate point i of a per-budget fit: (n_i, x*(n_i)). */
static enum ha_status replay_dim(void *ctx, size_t i, double *x, double *y)
{
	struct table *t = ctx;
	*x = sample_at(t, i);
	if (t->relaxed_dims) {
		*y = t->relaxed_dims[t->replay_budget * t->req->samples.count + i];
		return HA_OK;
	}
	struct ha_model m = t->model;
	struct ha_relaxed r;
	m.samples = *x;
	enum ha_status st = ha_solver_solve_relaxed(t->solvers[t->replay_budget], &m, &r);
	*y = r.head_dim;
	return st;
}

/* Regenerate point i of a per-n fit: (D_i, H*(D_i)) at t->model.samples. */
static enum ha_status replay_heads(void *ctx, size_t i, double *x, double *y)
{
	struct table *t = ctx;
	struct ha_relaxed r;
	enum ha_status st = ha_solver_solve_relaxed(t->solvers[i], &t->model, &r);
	*x = (double)t->req->budgets[i];
	*y = r.heads;
	return st;
}

static void free_table(struct table *t)
{
	size_t nb = t->req->budget_count;
	for (size_t b = 0; b < nb; b++) {
		if (t->solvers && !t->req->solvers)
			ha_solver_free(t->solvers[b]);
		if (t->dim_power)
			ha_fit_free(t->dim_power[b]);
		if (t->dim_log)
			ha_fit_free(t->dim_log[b]);
	}
	free(t->solvers);
	free(t->dim_power);
	free(t->dim_log);
	ha_fit_free(t->heads_power);
	free(t->by_samples);
	free(t->relaxed_dims);
}

static enum ha_status init_table(struct table *t, struct ha_report *r,
                                 struct ha_error *err)
{
	const struct ha_table_request *req = t->req;
	size_t nb = req->budget_count, ns = req->samples.count;
	t->model = *req->model;
	t->solvers = calloc(nb, sizeof *t->solvers);
	t->dim_power = calloc(nb, sizeof *t->dim_power);
	t->dim_log = calloc(nb, sizeof *t->dim_log);
	if (nb > 1)
		t->by_samples = calloc(ns, sizeof *t->by_samples);
	if (!t->solvers || !t->dim_power || !t->dim_log || (nb > 1 && !t->by_samples))
		return report_fail(r, err, HA_ENOMEM, "preparing the table: %s",
		                   ha_status_str(HA_ENOMEM));
	if (ns > HA_FIT_STORE_DEFAULT && ns <= RELAXED_CACHE_POINTS / nb)
		t->relaxed_dims = malloc(nb * ns * sizeof *t->relaxed_dims);
	for (size_t b = 0; b < nb; b++) {
		enum ha_status st = HA_OK;
		if (req->solvers) /* borrowed: the caller frees them */
			t->solvers[b] = req->solvers[b];
		else
			st = ha_solver_new(req->budgets[b], req->constraints,
			                   &t->solvers[b]);
		if (st != HA_OK)
			return solve_failed(r, err, st, req->budgets[b]);
		if (ha_fit_new(HA_FIT_POWER_LOGLN, HA_FIT_STORE_DEFAULT, &t->dim_power[b]) != HA_OK ||
		    ha_fit_new(HA_FIT_LOG, HA_FIT_STORE_DEFAULT, &t->dim_log[b]) != HA_OK)
			return report_fail(r, err, HA_ENOMEM, "preparing the fits: %s",
			                   ha_status_str(HA_ENOMEM));
	}
	if (nb > 1 && ha_fit_new(HA_FIT_POWER, HA_FIT_STORE_DEFAULT, &t->heads_power) != HA_OK)
		return report_fail(r, err, HA_ENOMEM, "preparing the fits: %s",
		                   ha_status_str(HA_ENOMEM));
	return HA_OK;
}

static void write_row(struct ha_report *r, double samples,
                      const struct ha_solution *sol)
{
	char b[32];
	if (!r->yaml) {
		fprintf(r->stream, "%20" PRIu64 " %12.6g %20" PRIu64 " %10" PRIu64
		        " %13s %12.6f %16.6g %14.6g\n", sol->budget, samples,
		        sol->optimum.heads, sol->optimum.head_dim,
		        report_human(sol->optimum.terms.mse, b),
		        report_log10(sol->optimum.terms.log_mse),
		        sol->relaxed.head_dim, sol->relaxed.heads);
		return;
	}
	struct ha_yaml_writer *w = r->yaml;
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
	ha_yaml_double(w, report_log10(sol->optimum.terms.log_mse));
	ha_yaml_key(w, "relaxed_head_dim");
	ha_yaml_double(w, sol->relaxed.head_dim);
	ha_yaml_key(w, "relaxed_heads");
	ha_yaml_double(w, sol->relaxed.heads);
	ha_yaml_end_map(w);
}

/* Solve every (n, D), streaming the rows and feeding the fits. */
static enum ha_status write_rows(struct table *t, struct ha_report *r,
                                 struct ha_error *err)
{
	const struct ha_table_request *req = t->req;
	size_t nb = req->budget_count, ns = req->samples.count;
	if (r->yaml) {
		ha_yaml_key(r->yaml, "table");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fprintf(r->stream, "\n%20s %12s %20s %10s %13s %12s %16s %14s\n",
		        "budget", "samples", "heads", "head_dim", "mse", "log10_mse",
		        "relaxed_head_dim", "relaxed_heads");
	}
	for (size_t i = 0; i < ns; i++) {
		t->model.samples = sample_at(t, i);
		if (t->heads_power)
			ha_fit_reset(t->heads_power);
		for (size_t b = 0; b < nb; b++) {
			struct ha_solution sol;
			enum ha_status st = ha_solver_solve(t->solvers[b], &t->model, &sol);
			if (st != HA_OK)
				return solve_failed(r, err, st, req->budgets[b]);
			write_row(r, t->model.samples, &sol);
			if (t->relaxed_dims)
				t->relaxed_dims[b * ns + i] = sol.relaxed.head_dim;
			ha_fit_add(t->dim_power[b], t->model.samples, sol.relaxed.head_dim);
			ha_fit_add(t->dim_log[b], t->model.samples, sol.relaxed.head_dim);
			if (t->heads_power)
				ha_fit_add(t->heads_power, (double)req->budgets[b], sol.relaxed.heads);
		}
		if (t->heads_power) {
			struct report_law_fit *f = &t->by_samples[i];
			report_finish_fit(f, LAW_HEADS_POWER, t->heads_power, replay_heads, t);
			f->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
			if (f->status == HA_OK)
				f->largest_budget = req->budgets[f->result.max_residual_index];
		}
		/* A closed pipe need not cost the rest of a long sweep. */
		if (report_write_failed(r))
			return report_end(r, err);
	}
	if (r->yaml)
		ha_yaml_end_seq(r->yaml);
	return HA_OK;
}

static void write_budget_fits(struct table *t, struct ha_report *r, size_t b)
{
	const struct ha_table_request *req = t->req;
	struct report_law_fit power, logarithmic;
	t->replay_budget = b;
	report_finish_fit(&power, LAW_DIM_POWER, t->dim_power[b], replay_dim, t);
	power.claimed = ha_fit_seed_exponent(req->model->smoothness);
	report_finish_fit(&logarithmic, LAW_DIM_LOG, t->dim_log[b], replay_dim, t);
	if (power.status == HA_OK)
		power.largest_at = sample_at(t, power.result.max_residual_index);
	if (logarithmic.status == HA_OK)
		logarithmic.largest_at = sample_at(t, logarithmic.result.max_residual_index);
	if (!r->yaml) {
		char label[64];
		snprintf(label, sizeof label, "budget %" PRIu64, req->budgets[b]);
		report_text_fit(r->stream, label, &power);
		report_text_fit(r->stream, label, &logarithmic);
		return;
	}
	ha_yaml_begin_map(r->yaml, 0);
	ha_yaml_key(r->yaml, "budget");
	ha_yaml_uint(r->yaml, req->budgets[b]);
	ha_yaml_key(r->yaml, "power_law");
	report_yaml_fit(r->yaml, &power);
	ha_yaml_key(r->yaml, "log_law");
	report_yaml_fit(r->yaml, &logarithmic);
	ha_yaml_end_map(r->yaml);
}

static void write_samples_fit(struct table *t, struct ha_report *r, size_t i)
{
	double n = sample_at(t, i);
	if (!r->yaml) {
		char label[64];
		snprintf(label, sizeof label, "samples %.6g", n);
		report_text_fit(r->stream, label, &t->by_samples[i]);
		return;
	}
	ha_yaml_begin_map(r->yaml, 0);
	ha_yaml_key(r->yaml, "samples");
	ha_yaml_double(r->yaml, n);
	ha_yaml_key(r->yaml, "heads_law");
	report_yaml_fit(r->yaml, &t->by_samples[i]);
	ha_yaml_end_map(r->yaml);
}

static void write_fits(struct table *t, struct ha_report *r)
{
	if (r->yaml) {
		ha_yaml_key(r->yaml, "fits");
		ha_yaml_begin_map(r->yaml, 0);
		ha_yaml_key(r->yaml, "by_budget");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fputc('\n', r->stream);
	}
	for (size_t b = 0; b < t->req->budget_count; b++)
		write_budget_fits(t, r, b);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_key(r->yaml, "by_samples");
		ha_yaml_begin_seq(r->yaml, 0);
	}
	for (size_t i = 0; t->by_samples && i < t->req->samples.count; i++)
		write_samples_fit(t, r, i);
	if (r->yaml) {
		ha_yaml_end_seq(r->yaml);
		ha_yaml_end_map(r->yaml);
	}
}

enum ha_status ha_report_table(struct ha_report *r,
                               const struct ha_table_request *req,
                               struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	if (!req->model || !req->budgets || req->budget_count == 0 ||
	    req->samples.count == 0 || !req->samples.at)
		return report_fail(r, err, HA_EINVAL,
		                   "a table needs a model, budgets and samples");
	struct table t = {0};
	t.req = req;
	st = init_table(&t, r, err);
	if (st == HA_OK)
		st = write_rows(&t, r, err);
	if (st == HA_OK)
		write_fits(&t, r);
	free_table(&t);
	return st != HA_OK ? st : report_end(r, err);
}
