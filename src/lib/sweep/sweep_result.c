/* A sweep's result (sweep.h): every row solved by the sweep, then kept
 * in its journal (each row's columns, sweep_internal.h; n in its
 * request) with its per-budget fits, so that renderers read rows and fits and never solve.
 * The per-n fits are made on demand from the kept x*, in the order asked,
 * on the calling thread: one a value of n, they would take memory that
 * grows with the sweep if they were kept. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "sweep/sweep_internal.h"
#include "fit/fit_internal.h"

struct ha_sweep_result {
	struct ha_sweep_request req;   /* its pointers into the copies below */
	struct samples_reader n;       /* of req.samples */
	struct ha_model model;
	struct ha_constraints constraints;
	struct ha_kv_constraints kv;
	struct ha_kv_shape shape;
	double *samples;               /* a list's values (NULL: a range) */
	uint64_t *budgets;
	struct journal *journal;       /* the sweep's, taken over */
	size_t columns;                /* the journal's columns a budget */
	struct ha_sweep_fit *budget_fits; /* per budget: power, logarithmic */
	struct ha_fit *heads_fit;      /* the per-n fits' (NULL: one budget) */
	double *dims;                  /* one n's x* a budget */
};

void ha_sweep_result_free(struct ha_sweep_result *r)
{
	if (!r)
		return;
	journal_free(r->journal);
	ha_fit_free(r->heads_fit);
	free(r->samples);
	free(r->budgets);
	free(r->budget_fits);
	free(r->dims);
	free(r);
}

static uint64_t uint_of(double bits)
{
	uint64_t value;
	memcpy(&value, &bits, sizeof value);
	return value;
}

/* A row from its values as the journal keeps them (sweep_column). */
static void row_of_columns(const double *v, size_t columns, uint64_t budget,
                           double samples, struct ha_sweep_row *row)
{
	*row = (struct ha_sweep_row){
		.budget = budget,
		.samples = samples,
		.heads = uint_of(v[SWEEP_HEADS]),
		.head_dim = uint_of(v[SWEEP_HEAD_DIM]),
		.mse = v[SWEEP_MSE],
		.log_mse = v[SWEEP_LOG_MSE],
		.relaxed_head_dim = v[SWEEP_X],
		.relaxed_heads = v[SWEEP_RELAXED_HEADS],
	};
	if (columns == SWEEP_GROUPED_COLUMNS) {
		row->kv_heads = uint_of(v[SWEEP_KV_HEADS]);
		row->kv_dim = uint_of(v[SWEEP_KV_DIM]);
		row->kv_cache_bytes_per_token = uint_of(v[SWEEP_KV_CACHE]);
	}
}

/* The result's own copies of what the request borrowed. */
static enum ha_status copy_request(struct ha_sweep_result *r,
                                   const struct ha_sweep_request *req)
{
	size_t nb = req->budget_count;
	r->model = *req->model;
	r->req = (struct ha_sweep_request){
		.model = &r->model,
		.budget_count = nb,
		.samples = req->samples,
	};
	if (req->constraints) {
		r->constraints = *req->constraints;
		r->req.constraints = &r->constraints;
	}
	if (req->kv) {
		r->kv = *req->kv;
		r->req.kv = &r->kv;
		r->shape = req->shape ? *req->shape : ha_kv_shape_defaults();
		r->req.shape = &r->shape;
	}
	r->budgets = malloc(nb * sizeof *r->budgets);
	r->budget_fits = calloc(2 * nb, sizeof *r->budget_fits);
	r->dims = malloc(nb * sizeof *r->dims);
	if (!r->budgets || !r->budget_fits || !r->dims)
		return HA_ENOMEM;
	if (req->samples.values) {
		size_t bytes = req->samples.count * sizeof *r->samples;
		if (!(r->samples = malloc(bytes)))
			return HA_ENOMEM;
		r->req.samples.values = memcpy(r->samples, req->samples.values, bytes);
	}
	samples_reader_init(&r->n, &r->req.samples);
	memcpy(r->budgets, req->budgets, nb * sizeof *r->budgets);
	r->req.budgets = r->budgets;
	if (nb > 1 && ha_fit_new(HA_FIT_POWER, nb <= HA_FIT_STORE_DEFAULT ? nb : 0,
	                         &r->heads_fit) != HA_OK)
		return HA_ENOMEM;
	return HA_OK;
}

/* Every row of the sweep, progress told after each batch. */
static enum ha_status solve_rows(struct ha_sweep *s, const struct ha_progress *progress,
                                 struct ha_error *err)
{
	size_t done = 0, total = s->req.budget_count * s->req.samples.count;
	for (;;) {
		const struct ha_sweep_row *rows;
		size_t count = 0;
		enum ha_status st = ha_sweep_rows(s, &rows, &count, err);
		if (st != HA_OK || count == 0)
			return st;
		done += count;
		if (progress && progress->fn &&
		    progress->fn(progress->ctx, "rows", done, total))
			return ha_fail(err, HA_ECANCELED, "the table was cancelled after "
			               "%zu of %zu rows", done, total);
	}
}

static enum ha_status keep(struct ha_sweep_result *r, struct ha_sweep *s,
                           const struct ha_sweep_request *req, struct ha_error *err)
{
	if (copy_request(r, req) != HA_OK)
		return ha_fail(err, HA_ENOMEM, "keeping the table: %s",
		               ha_status_str(HA_ENOMEM));
	for (size_t b = 0; b < req->budget_count; b++)
		ha_sweep_budget_fits(s, b, &r->budget_fits[2 * b], &r->budget_fits[2 * b + 1]);
	if (!journal_kept(s->journal))
		return ha_fail(err, HA_EIO, "keeping the table's rows: no temporary "
		               "file in $TMPDIR (or /tmp) and no memory for them");
	r->journal = s->journal;
	r->columns = s->columns;
	s->journal = NULL;
	return HA_OK;
}

enum ha_status ha_sweep_run(const struct ha_sweep_request *req,
                            const struct ha_progress *progress,
                            struct ha_sweep_result **out, struct ha_error *err)
{
	if (out)
		*out = NULL;
	if (!out)
		return ha_fail(err, HA_EINVAL, "a table needs somewhere to go");
	if (req && req->budget_count > 0 &&
	    req->samples.count > HA_SWEEP_MAX_ROWS / req->budget_count)
		return ha_fail(err, HA_EINVAL, "a table of %zu budgets x %zu values "
		               "of n: at most %zu rows", req->budget_count,
		               req->samples.count, HA_SWEEP_MAX_ROWS);
	struct ha_sweep *s = NULL;
	enum ha_status st = ha_sweep_new(req, &s, err);
	if (st == HA_OK)
		st = solve_rows(s, progress, err);
	struct ha_sweep_result *r = NULL;
	if (st == HA_OK && !(r = calloc(1, sizeof *r)))
		st = ha_fail(err, HA_ENOMEM, "keeping the table: %s",
		             ha_status_str(HA_ENOMEM));
	if (st == HA_OK)
		st = keep(r, s, req, err);
	ha_sweep_free(s);
	if (st != HA_OK) {
		ha_sweep_result_free(r);
		return st;
	}
	*out = r;
	return HA_OK;
}

const struct ha_sweep_request *ha_sweep_result_request(const struct ha_sweep_result *r)
{
	return r ? &r->req : NULL;
}

size_t ha_sweep_result_row_count(const struct ha_sweep_result *r)
{
	return r ? r->req.budget_count * r->req.samples.count : 0;
}

/* Point b of a per-n fit, (D_b, H*) with H* = D_b / x*: from the dims of
 * the n being fitted, as the fit's second pass replays it. */
static enum ha_status replay_heads(void *ctx, size_t b, double *x, double *y)
{
	const struct ha_sweep_result *r = ctx;
	*x = (double)r->budgets[b];
	*y = *x / r->dims[b];
	return HA_OK;
}

/* Fit ln H* = ln c + e ln D over the budgets at one n, r->dims[b] the
 * x* of budget b there. */
static void fit_heads(struct ha_sweep_result *r, struct ha_sweep_fit *f)
{
	ha_fit_reset(r->heads_fit);
	for (size_t b = 0; b < r->req.budget_count; b++) {
		double x, y;
		replay_heads(r, b, &x, &y);
		ha_fit_add(r->heads_fit, x, y);
	}
	*f = (struct ha_sweep_fit){.points = ha_fit_count(r->heads_fit),
	                           .claimed = HA_FIT_SEED_BUDGET_EXPONENT};
	f->status = ha_fit_result(r->heads_fit, replay_heads, r, &f->result);
	if (f->status == HA_OK)
		f->largest_budget = r->budgets[f->result.max_residual_index];
}

static enum ha_status lost(struct ha_error *err)
{
	return ha_fail(err, HA_EIO, "reading the table's rows back: %s",
	               ha_status_str(HA_EIO));
}

enum ha_status ha_sweep_result_rows(struct ha_sweep_result *r, size_t first,
                                    size_t count, struct ha_sweep_row *rows,
                                    struct ha_error *err)
{
	size_t total = ha_sweep_result_row_count(r);
	if (!r || (count && !rows) || first > total || count > total - first)
		return ha_fail(err, HA_EINVAL, "rows %zu to %zu of a table of %zu",
		               first, first + count, total);
	size_t nb = r->req.budget_count;
	size_t i = first / nb, b = first % nb;
	double n = NAN, v[SWEEP_GROUPED_COLUMNS];
	for (size_t k = 0; k < count; k++) {
		if (k == 0 || b == 0)
			n = samples_read(&r->n, i);
		if (journal_get(r->journal, b * r->columns, r->columns,
		                i, v) != HA_OK)
			return lost(err);
		row_of_columns(v, r->columns, r->budgets[b], n, &rows[k]);
		if (++b == nb) {
			b = 0;
			i++;
		}
	}
	return HA_OK;
}

enum ha_status ha_sweep_result_budget_fits(const struct ha_sweep_result *r, size_t b,
                                           struct ha_sweep_fit *power,
                                           struct ha_sweep_fit *logarithmic)
{
	if (!power || !logarithmic)
		return HA_EINVAL;
	if (!r || b >= r->req.budget_count) {
		*power = *logarithmic = (struct ha_sweep_fit){.status = HA_EINVAL,
		                                              .claimed = NAN};
		return HA_EINVAL;
	}
	*power = r->budget_fits[2 * b];
	*logarithmic = r->budget_fits[2 * b + 1];
	return HA_OK;
}

enum ha_status ha_sweep_result_samples_fits(struct ha_sweep_result *r,
                                            size_t first, size_t count,
                                            struct ha_sweep_samples_fit *fits,
                                            struct ha_error *err)
{
	size_t points = r ? r->req.samples.count : 0;
	if (!r || !r->heads_fit || (count && !fits) || first > points ||
	    count > points - first)
		return ha_fail(err, HA_EINVAL, "the per-n fits %zu to %zu of a table "
		               "of %zu values of n and %zu budgets", first, first + count,
		               points, r ? r->req.budget_count : 0);
	size_t nb = r->req.budget_count;
	for (size_t k = 0; k < count; k++) {
		size_t i = first + k;
		fits[k].samples = samples_read(&r->n, i);
		for (size_t b = 0; b < nb; b++)
			if (journal_get(r->journal, b * r->columns + SWEEP_X,
			                1, i, &r->dims[b]) != HA_OK)
				return lost(err);
		fit_heads(r, &fits[k].heads_law);
	}
	return HA_OK;
}
