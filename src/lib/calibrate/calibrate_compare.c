/* The comparison of laws (headalloc-model(7), CALIBRATION (Comparing laws)): the same runs under the
 * ladder of ha_cal_ladder and the user's laws, side by side, each fitted
 * by least squares (the likelihood of the criteria) and under the
 * calibration's Huber δ, with its leave-one-out prediction error and its
 * optimum at the target.
 *
 * Nesting: a law is fitted after the laws it contains (fewer free
 * parameters first) and seeded with their optima, so that its objective
 * can never end above theirs (cal_minimise's seeds).
 *
 * The verdict: Akaike weights from the least-squares AICc, the rule that
 * tells laws apart (ΔAICc < HA_CAL_VERDICT_AICC: not told apart), the
 * model-averaged distribution of the optimum, and the main law by least
 * squares beside its Huber fit (does the prediction change; is δ below
 * the residual scale). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

#include "base/error_internal.h"
#include "calibrate_internal.h"

/* ---- the ladder ------------------------------------------------------------
 * One rung a row: its name, its free parameters and the values it fixes,
 * by the names --free and --fix take.  A parameter the rung neither frees
 * nor fixes keeps base's value; those in `inherit` keep base's free flag
 * as well (hdi: free in every rung exactly when it is free in base).  A
 * new law is one more row (and HA_CAL_LADDER one more). */
struct rung {
	const char *name;
	const char *free;
	const char *fixed;
};

static const struct rung ladder[HA_CAL_LADDER] = {
	{"seeds", "irreducible,bias_coef,var_coef",
	 "smoothness=2,var_rate=0.5,var_power=0"},
	{"smoothness", "irreducible,bias_coef,smoothness,var_coef",
	 "var_rate=0.5,var_power=0"},
	{"power_s2", "irreducible,bias_coef,var_coef,var_power",
	 "smoothness=2,var_rate=0"},
	{"power", "irreducible,bias_coef,smoothness,var_coef,var_power",
	 "var_rate=0"},
	{"rate", "irreducible,bias_coef,smoothness,var_coef,var_rate",
	 "var_power=0"},
	/* the data term A n^-α; fitted only on runs at 3 or more
	 * distinct sample sizes (cal_data_term_identifiable), else the row
	 * is not fitted, with the reason */
	{"seeds+data", "irreducible,bias_coef,var_coef,data_coef,data_power",
	 "smoothness=2,var_rate=0.5,var_power=0"},
	{"power+data",
	 "irreducible,bias_coef,smoothness,var_coef,var_power,data_coef,data_power",
	 "var_rate=0"},
};
static const char *const inherit[] = {"hdi", "group_hdi"};

/* The parameter of the first name in list (names end at ',' or '='),
 * with *rest after the item's comma; -1 at the end of the list. */
static int next_name(const char **list, double *value)
{
	const char *s = *list;
	if (!*s)
		return -1;
	size_t len = strcspn(s, ",=");
	char name[HA_CAL_NAME_MAX];
	snprintf(name, sizeof name, "%.*s", (int)len, s);
	s += len;
	if (*s == '=') {
		char *end;
		*value = strtod(s + 1, &end);
		s = end;
	}
	if (*s == ',')
		s++;
	*list = s;
	return ha_cal_param_lookup(name);
}

size_t ha_cal_ladder(const struct ha_cal_law *base,
                     struct ha_cal_law out[HA_CAL_LADDER])
{
	for (size_t l = 0; l < HA_CAL_LADDER; l++) {
		struct ha_cal_law *law = &out[l];
		*law = *base;
		snprintf(law->name, sizeof law->name, "%s", ladder[l].name);
		memset(law->free, 0, sizeof law->free);
		for (size_t i = 0; i < sizeof inherit / sizeof *inherit; i++) {
			int p = ha_cal_param_lookup(inherit[i]);
			law->free[p] = base->free[p] != 0;
		}
		const char *list = ladder[l].free;
		double v = 0.0;
		for (int p; (p = next_name(&list, &v)) != -1;)
			if (p >= 0)
				law->free[p] = 1;
		list = ladder[l].fixed;
		for (int p; (p = next_name(&list, &v)) != -1;)
			if (p >= 0)
				law->value[p] = v;
	}
	return HA_CAL_LADDER;
}

int ha_cal_law_contains(const struct ha_cal_law *outer,
                        const struct ha_cal_law *inner)
{
	if (!outer || !inner)
		return 0;
	for (int p = 0; p < HA_CAL_PARAMS; p++) {
		if (inner->free[p] && !outer->free[p])
			return 0;
		if (!outer->free[p] && inner->value[p] != outer->value[p])
			return 0;
	}
	return 1;
}

enum ha_status cal_check_user_laws(const struct ha_cal_options *o,
                                   struct ha_error *err)
{
	if (o->law_count == 0)
		return HA_OK;
	if (!o->laws)
		return ha_fail(err, HA_EINVAL, "laws: %zu laws but no array",
		               o->law_count);
	if (o->law_count > HA_CAL_USER_LAWS_MAX)
		return ha_fail(err, HA_EINVAL, "laws: at most %d laws, found %zu",
		               HA_CAL_USER_LAWS_MAX, o->law_count);
	for (size_t i = 0; i < o->law_count; i++) {
		const char *name = o->laws[i].name;
		if (!name[0] || !memchr(name, '\0', HA_CAL_NAME_MAX))
			return ha_fail(err, HA_EINVAL, "laws: law %zu has no name", i + 1);
		/* a law's name is a row of the report: the one name rule */
		const char *fault = ha_name_fault(name, strlen(name), NULL);
		if (fault) {
			char shown[HA_CAL_NAME_MAX];
			return ha_fail(err, HA_EINVAL, "laws: law %zu's name '%s' %s",
			               i + 1, ha_text_safe(name, shown, sizeof shown),
			               fault);
		}
		for (size_t l = 0; l < HA_CAL_LADDER; l++)
			if (strcmp(name, ladder[l].name) == 0)
				return ha_fail(err, HA_EINVAL,
				               "laws: '%s' is the name of a law of the ladder",
				               name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(name, o->laws[j].name) == 0)
				return ha_fail(err, HA_EINVAL, "laws: '%s' is defined twice",
				               name);
	}
	return HA_OK;
}

/* ---- the verdict -------------------------------------------------------- */

static int has_aicc(const struct ha_cal_comparison *row)
{
	return row->status == HA_OK && row->aicc_defined;
}

/* "a", "a and b", "a, b and c" of the rows best and tied[] into buf. */
static void name_list(const struct ha_calibration *c, const struct ha_cal_verdict *v,
                      char *buf, size_t size)
{
	size_t used = 0, n = v->tied_count + 1;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t r = i == 0 ? v->best : v->tied[i - 1];
		const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
		int w = snprintf(buf + used, size - used, "%s%s", sep,
		                 c->comparison[r].law.name);
		if (w < 0 || (size_t)w >= size - used)
			return;
		used += (size_t)w;
	}
}

static void weights_and_verdict(struct ha_calibration *c)
{
	struct ha_cal_verdict *v = &c->verdict;
	memset(v, 0, sizeof *v);
	size_t n = c->comparison_count, with = 0, best = 0;
	for (size_t i = 0; i < n; i++)
		if (has_aicc(&c->comparison[i]) &&
		    (with++ == 0 || c->comparison[i].aicc < c->comparison[best].aicc))
			best = i;
	if (with == 0) {
		snprintf(v->text, sizeof v->text,
		         "no verdict: no law has an AICc (it needs more runs than "
		         "free parameters + 1)");
		return;
	}
	double sum = 0.0, top = c->comparison[best].aicc;
	for (size_t i = 0; i < n; i++) {
		struct ha_cal_comparison *row = &c->comparison[i];
		if (!has_aicc(row))
			continue;
		row->weight_defined = 1;
		row->delta_aicc = row->aicc - top;
		row->weight = exp(-0.5 * row->delta_aicc);
		sum += row->weight;
	}
	for (size_t i = 0; i < n; i++)
		if (c->comparison[i].weight_defined)
			c->comparison[i].weight /= sum;
	v->best = best;
	if (with < 2) {
		snprintf(v->text, sizeof v->text,
		         "no verdict: %s is the only law with an AICc",
		         c->comparison[best].law.name);
		return;
	}
	v->defined = 1;
	int have_runner = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ha_cal_comparison *row = &c->comparison[i];
		if (i == best || !row->weight_defined)
			continue;
		if (!have_runner || row->delta_aicc < c->comparison[v->runner_up].delta_aicc) {
			v->runner_up = i;
			have_runner = 1;
		}
		if (row->delta_aicc < HA_CAL_VERDICT_AICC) {
			v->tied[v->tied_count++] = i;
			v->delta = fmax(v->delta, row->delta_aicc);
		}
	}
	char names[HA_CAL_MESSAGE_MAX];
	if (v->tied_count) {
		name_list(c, v, names, sizeof names);
		snprintf(v->text, sizeof v->text,
		         "the data cannot tell %s apart: delta AICc %s%.3g < %g",
		         names, v->tied_count > 1 ? "up to " : "", v->delta,
		         HA_CAL_VERDICT_AICC);
		return;
	}
	const struct ha_cal_comparison *b = &c->comparison[best];
	v->delta = c->comparison[v->runner_up].delta_aicc;
	snprintf(v->text, sizeof v->text,
	         "%s is preferred: delta AICc %.3g >= %g to %s, the next "
	         "(Akaike weight %.3g)", b->law.name, v->delta, HA_CAL_VERDICT_AICC,
	         c->comparison[v->runner_up].law.name, b->weight);
}

/* ---- the model-averaged distribution ------------------------------------------ */

/* c->averaged from the rows' weights and distributions.  HA_ENOMEM only. */
static enum ha_status average(struct ha_calibration *c)
{
	size_t cap = 0;
	c->averaged_no_answer = 0.0;
	for (size_t i = 0; i < c->comparison_count; i++) {
		const struct ha_cal_comparison *row = &c->comparison[i];
		if (!row->weight_defined)
			continue;
		double w = row->weight;
		if (row->resamples > 0) {
			double answered = 0.0;
			for (size_t k = 0; k < row->distribution_count; k++) {
				const struct ha_cal_share *s = &row->distribution[k];
				answered += s->share;
				if (!cal_add_share(&c->averaged, &c->averaged_count, &cap,
				                   s->heads, s->head_dim, 0, w * s->share))
					return HA_ENOMEM;
			}
			c->averaged_no_answer += w * fmax(0.0, 1.0 - answered);
		} else if (row->has_prediction) {
			if (!cal_add_share(&c->averaged, &c->averaged_count, &cap,
			                   row->heads, row->head_dim, 0, w))
				return HA_ENOMEM;
		} else {
			c->averaged_no_answer += w;
		}
	}
	cal_sort_shares(c->averaged, c->averaged_count);
	return HA_OK;
}

/* ---- least squares beside the Huber fit ----------------------------------------- */

enum ha_status cal_least_squares(const struct ha_run *runs,
                                 const struct cal_data *data, double delta,
                                 const struct ha_solver *solver, double samples,
                                 struct ha_calibration *c)
{
	struct ha_cal_least_squares *ls = &c->least_squares;
	memset(ls, 0, sizeof *ls);
	if (isinf(delta) || c->fit.free_count == 0)
		return HA_OK;
	struct ha_cal_fit fit;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = cal_fit_data(runs, data, &c->fit.law, INFINITY,
	                                 c->fit.law.value, 1, &fit, &err);
	if (st == HA_ENOMEM)
		return st;
	if (st != HA_OK)
		return HA_OK; /* no least-squares optimum: nothing to compare */
	ls->defined = 1;
	ls->rss = fit.rss;
	ls->residual_scale = sqrt(fit.rss / (double)fit.runs);
	ls->delta_below_scale = delta < ls->residual_scale;
	ls->has_prediction = cal_predict(solver, samples, fit.law.value,
	                                 &ls->heads, &ls->head_dim, NULL);
	ha_cal_fit_finish(&fit);
	const struct ha_cal_prediction *p = &c->prediction;
	ls->prediction_changes = ls->has_prediction && p->defined &&
	                         p->head_dim != ls->head_dim;
	if (ls->delta_below_scale &&
	    !cal_warn(c, HA_CAL_WARN_HUBER_SCALE,
	                    "Huber delta %g is below the residual scale %.3g (rms "
	                    "of the least-squares residuals): most runs weigh in "
	                    "by their sign alone, as in a least-absolute-deviations "
	                    "fit", delta, ls->residual_scale))
		return HA_ENOMEM;
	if (ls->prediction_changes &&
	    !cal_warn(c, HA_CAL_WARN_LEAST_SQUARES,
	                    "least squares predicts %llu x %llu where the Huber fit "
	                    "(delta %g) predicts %llu x %llu: the answer rests on "
	                    "the choice of delta",
	                    (unsigned long long)ls->heads,
	                    (unsigned long long)ls->head_dim, delta,
	                    (unsigned long long)p->heads,
	                    (unsigned long long)p->head_dim))
		return HA_ENOMEM;
	return HA_OK;
}

/* ---- the rows ---------------------------------------------------------------- */

/* Leave-one-out set `out` (pool_for's task), on the worker's own
 * weights. */
enum loo_kind { LOO_UNFITTABLE, LOO_FAILED, LOO_NOMEM, LOO_FITTED };

struct loo_set {
	enum loo_kind kind;
	double error; /* ln L - ln L̂ of the run left out */
	int converged;
};

struct loo {
	const struct ha_run *runs;
	const struct cal_data *data;
	const struct ha_cal_fit *fit;
	double *weights;     /* m a worker */
	struct loo_set *set; /* m */
};

static enum ha_status loo_one(void *ctx, size_t worker, size_t out)
{
	struct loo *x = ctx;
	struct loo_set *set = &x->set[out];
	size_t m = x->data->m;
	struct cal_data local = *x->data;
	local.weight = x->weights + worker * m;
	local.threads = 1;
	for (size_t i = 0; i < m; i++)
		local.weight[i] = i == out ? 0.0 : 1.0;
	char msg[HA_CAL_MESSAGE_MAX];
	set->kind = LOO_UNFITTABLE;
	if (!cal_identifiable(&local, x->runs, x->fit->free_count, NULL, msg))
		return HA_OK;
	double th[HA_CAL_PARAMS], objective;
	enum ha_status st = cal_minimise(&local, &x->fit->law, INFINITY,
	                                 x->fit->law.value, NULL, 0, th, &objective,
	                                 NULL, NULL, &set->converged);
	set->kind = st == HA_OK ? LOO_FITTED : st == HA_ENOMEM ? LOO_NOMEM
	                                                       : LOO_FAILED;
	if (st == HA_OK)
		set->error = x->data->log_loss[out] - cal_log_fitted(x->data, th, out);
	return HA_OK;
}

/* Leave-one-out: refit without each run by least squares (from the
 * law's full-data optimum) and predict it.  0 when some leave-one-out set cannot be
 * fitted, or a refit fails.  The refits run on data->threads threads
 * (loo_one) and are summed afterwards in the runs' order, stopping at
 * the first that fails: the serial loop's result whatever the thread
 * count. */
static int leave_one_out(const struct ha_run *runs, const struct cal_data *data,
                         const struct ha_cal_fit *fit, double *rmse, size_t *unconverged,
                         enum ha_status *oom)
{
	size_t m = data->m, threads = pool_threads(data->threads, m);
	struct loo x = {runs, data, fit, malloc(threads * m * sizeof *x.weights),
	                malloc(m * sizeof *x.set)};
	*oom = HA_OK;
	double sum = 0.0;
	int ok = x.weights && x.set;
	if (!ok)
		*oom = HA_ENOMEM;
	else
		pool_for(m, threads, loo_one, &x, NULL, NULL);
	for (size_t out = 0; out < m && ok; out++) {
		const struct loo_set *set = &x.set[out];
		if (set->kind != LOO_FITTED) {
			if (set->kind == LOO_NOMEM)
				*oom = HA_ENOMEM;
			ok = 0;
			break;
		}
		*unconverged += !set->converged;
		if (!isfinite(set->error)) {
			ok = 0;
			break;
		}
		sum += set->error * set->error;
	}
	free(x.weights);
	free(x.set);
	*rmse = ok ? sqrt(sum / (double)m) : 0.0;
	return ok;
}

/* The order the rows are fitted in: fewer free parameters first (a law
 * contains only laws with no more), ties in the rows' order. */
static void fit_order(const struct ha_calibration *c, size_t *order)
{
	size_t n = c->comparison_count;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			size_t a = order[j - 1], b = order[j];
			if (c->comparison[a].free_count <= c->comparison[b].free_count)
				break;
			order[j - 1] = b;
			order[j] = a;
		}
}

size_t cal_row_seeds(const struct ha_calibration *c, size_t r,
                     const double *values, const int *fitted,
                     const struct ha_cal_law *extra, double *seeds)
{
	const struct ha_cal_comparison *row = &c->comparison[r];
	size_t n = 0;
	for (size_t i = 0; i < row->contains_count; i++) {
		size_t q = row->contains[i];
		if (fitted[q])
			memcpy(seeds + HA_CAL_PARAMS * n++, values + HA_CAL_PARAMS * q,
			       HA_CAL_PARAMS * sizeof *seeds);
	}
	if (extra && ha_cal_law_contains(&row->law, extra))
		memcpy(seeds + HA_CAL_PARAMS * n++, extra->value,
		       HA_CAL_PARAMS * sizeof *seeds);
	return n;
}

/* Row r's least-squares fit (seeded) with its statistics and, when δ is
 * finite, its Huber fit (seeded likewise); HA_ECANCELED when the
 * callback (data->poll: told between the stages and inside the fits)
 * stops the work. */
static enum ha_status fit_row(const struct ha_run *runs,
                              const struct cal_data *data, double delta,
                              int lean,
                              const struct ha_solver *solver, double samples,
                              const struct ha_cal_fit *main_fit,
                              struct ha_calibration *c, size_t r,
                              double *ls_values, double *huber_values,
                              int *ls_fitted, int *huber_fitted)
{
	struct ha_cal_comparison *row = &c->comparison[r];
	double seeds[(HA_CAL_COMPARE_MAX + 1) * HA_CAL_PARAMS];
	const struct ha_cal_law *main_law = &main_fit->law;
	struct ha_cal_fit fit;
	struct ha_error err;
	ha_error_init(&err);
	size_t ns = cal_row_seeds(c, r, ls_values, ls_fitted,
	                          isinf(delta) ? main_law : NULL, seeds);
	row->status = cal_fit_data(runs, data, &row->law, INFINITY, seeds,
	                           ns, &fit, &err);
	if (row->status == HA_ENOMEM || row->status == HA_ECANCELED)
		return row->status;
	if (row->status != HA_OK) {
		snprintf(row->message, sizeof row->message, "%s", err.message);
		row->huber_status = row->status;
		return HA_OK;
	}
	ls_fitted[r] = 1;
	memcpy(ls_values + HA_CAL_PARAMS * r, fit.law.value, sizeof fit.law.value);
	row->law = fit.law;
	row->objective = fit.objective;
	row->rss = fit.rss;
	row->aicc_defined = fit.aicc_defined;
	row->aicc = fit.aicc;
	row->bic_defined = fit.bic_defined;
	row->bic = fit.bic;
	if (data->poll && !cal_poll_tell(data->poll)) {
		ha_cal_fit_finish(&fit);
		return HA_ECANCELED;
	}
	enum ha_status oom = HA_OK;
	if (!lean)
		row->loo_defined = leave_one_out(runs, data, &fit, &row->loo_rmse,
		                                 &row->loo_unconverged, &oom);
	ha_cal_fit_finish(&fit);
	if (oom == HA_ENOMEM)
		return HA_ENOMEM;
	if (data->poll && !cal_poll_tell(data->poll))
		return HA_ECANCELED; /* (a leave-one-out refit stopped too) */
	row->has_prediction = cal_predict(solver, samples, row->law.value,
	                                  &row->heads, &row->head_dim, &row->loss);
	if (isinf(delta)) {
		row->huber_status = HA_OK;
		row->huber_objective = row->objective;
		row->huber_has_prediction = row->has_prediction;
		row->huber_heads = row->heads;
		row->huber_head_dim = row->head_dim;
		return HA_OK;
	}
	if (lean) { /* compare_lean: the least-squares fit alone */
		row->huber_status = HA_EDEGENERATE;
		return HA_OK;
	}
	ns = cal_row_seeds(c, r, huber_values, huber_fitted, main_law, seeds);
	/* and the least-squares optimum: a start in the same basin, often */
	memcpy(seeds + HA_CAL_PARAMS * ns++, row->law.value, sizeof row->law.value);
	row->huber_status = cal_fit_data(runs, data, &row->law, delta,
	                                  seeds, ns, &fit, &err);
	if (row->huber_status == HA_ENOMEM || row->huber_status == HA_ECANCELED)
		return row->huber_status;
	if (row->huber_status != HA_OK)
		return HA_OK;
	huber_fitted[r] = 1;
	memcpy(huber_values + HA_CAL_PARAMS * r, fit.law.value, sizeof fit.law.value);
	row->huber_objective = fit.objective;
	row->huber_has_prediction = cal_predict(solver, samples, fit.law.value,
	                                        &row->huber_heads,
	                                        &row->huber_head_dim, NULL);
	ha_cal_fit_finish(&fit);
	row->prediction_changes = row->has_prediction && row->huber_has_prediction &&
	                          row->huber_head_dim != row->head_dim;
	return HA_OK;
}

enum ha_status cal_compare(const struct ha_run *runs, const struct cal_data *data,
                           const struct ha_cal_options *o,
                           const struct ha_solver *solver, double samples,
                           struct ha_calibration *c)
{
	struct ha_cal_law laws[HA_CAL_LADDER];
	size_t count = ha_cal_ladder(&o->law, laws);
	size_t total = count + o->law_count;
	c->comparison = calloc(total, sizeof *c->comparison);
	/* each row's optimum and whether it has one, by least squares and
	 * by Huber */
	double *ls_values = calloc(2 * total * HA_CAL_PARAMS, sizeof *ls_values);
	int *ls_fitted = calloc(2 * total, sizeof *ls_fitted);
	size_t order[HA_CAL_COMPARE_MAX];
	enum ha_status st = HA_ENOMEM;
	if (!c->comparison || !ls_values || !ls_fitted)
		goto done;
	double *huber_values = ls_values + total * HA_CAL_PARAMS;
	int *huber_fitted = ls_fitted + total;
	c->comparison_count = total;
	for (size_t l = 0; l < total; l++) {
		struct ha_cal_comparison *row = &c->comparison[l];
		if (l < count) {
			row->law = laws[l];
		} else {
			row->law = o->law;
			memcpy(row->law.free, o->laws[l - count].free, sizeof row->law.free);
			memcpy(row->law.name, o->laws[l - count].name, sizeof row->law.name);
			row->user = 1;
		}
		row->free_count = cal_free_count(&row->law);
	}
	for (size_t l = 0; l < total; l++)
		for (size_t q = 0; q < total; q++)
			if (q != l && ha_cal_law_contains(&c->comparison[l].law,
			                                  &c->comparison[q].law))
				c->comparison[l].contains[c->comparison[l].contains_count++] = q;
	fit_order(c, order);
	/* The rows' fits hear the callback (the laws done so far) between
	 * their stages and their starts: one law's fits take up to seconds. */
	struct cal_poll poll;
	cal_poll_init(&poll, &o->progress, "laws", total);
	struct cal_data polled = *data;
	polled.poll = o->progress.fn ? &poll : NULL;
	for (size_t i = 0; i < total; i++) {
		st = fit_row(runs, &polled, o->huber_delta, o->compare_lean,
		             solver, samples, &c->fit, c,
		             order[i], ls_values, huber_values, ls_fitted,
		             huber_fitted);
		if (st != HA_OK)
			goto done;
		poll.done = i + 1;
		if (polled.poll && !cal_poll_tell(&poll)) {
			st = HA_ECANCELED;
			goto done;
		}
	}
	weights_and_verdict(c);
	st = cal_compare_bootstrap(runs, data, o, solver, samples, c, order,
	                           ls_values, ls_fitted);
	if (st == HA_OK)
		st = average(c);
done:
	free(ls_values);
	free(ls_fitted);
	return st;
}
