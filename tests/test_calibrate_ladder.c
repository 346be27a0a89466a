/* The ladder of laws (headalloc-model(7), CALIBRATION (Comparing laws)): nested laws never fit worse
 * than the laws they contain, on the repository's runs and on synthetic
 * ones, under least squares and under Huber; a seeded fit is never worse
 * than an unseeded one (ha_cal_fit_runs, an independent search); the
 * Akaike weights against their formula; the verdict on both sides of its
 * rule; the user's laws and their refusals; least squares beside Huber. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/calibrate.h>
#include <headalloc/runs.h>
#include "calibrate/calibrate_internal.h"
#define CAL_TEST_SEED 777
#include "cal_random.h"

#define MAX_RUNS 64

/* Runs on dims x heads x samples under th (through the allocator's
 * model), each loss times exp(sigma z). */
static size_t make_runs(struct ha_run *runs, const double *th, double sigma)
{
	static const uint64_t dims[] = {4, 8, 16, 32, 64, 128};
	static const uint64_t heads[] = {2, 8};
	static const double n[] = {1e4, 1e5};
	size_t m = 0;
	for (size_t a = 0; a < 6; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 2; c++) {
				double n_samples = n[c];
				struct ha_model model = ha_cal_model_of(th);
				struct ha_terms t;
				cr_assert_eq(ha_model_eval(&model, n_samples, heads[b] * dims[a], dims[a], &t),
				             HA_OK);
				runs[m++] = (struct ha_run){heads[b], dims[a], n[c],
				                            t.mse * exp(sigma * gauss()), NAN, 0};
			}
	return m;
}

static struct ha_cal_options options(double delta)
{
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	o.bootstrap = 0;
	o.compare = 1;
	o.huber_delta = delta;
	o.target = (struct ha_cal_target){1024, 1e5, {0}};
	return o;
}

/* Every nested pair of rows: the outer law's least-squares RSS and its
 * Huber objective are no larger than the inner's; returns the pairs. */
static size_t check_nesting(const struct ha_calibration *c, const char *what)
{
	size_t pairs = 0;
	for (size_t a = 0; a < c->comparison_count; a++) {
		const struct ha_cal_comparison *outer = &c->comparison[a];
		for (size_t i = 0; i < outer->contains_count; i++) {
			const struct ha_cal_comparison *inner = &c->comparison[outer->contains[i]];
			cr_assert(ha_cal_law_contains(&outer->law, &inner->law));
			if (outer->status != HA_OK || inner->status != HA_OK)
				continue;
			pairs++;
			cr_assert_leq(outer->rss, inner->rss, "%s: %s rss %.17g > %s rss %.17g",
			              what, outer->law.name, outer->rss, inner->law.name,
			              inner->rss);
			if (outer->huber_status == HA_OK && inner->huber_status == HA_OK)
				cr_assert_leq(outer->huber_objective, inner->huber_objective,
				              "%s: %s objective %.17g > %s's %.17g", what,
				              outer->law.name, outer->huber_objective,
				              inner->law.name, inner->huber_objective);
		}
	}
	return pairs;
}

/* Each fitted row's least-squares RSS is no worse than an unseeded fit
 * of its law by ha_cal_fit_runs (an independent search from the grid). */
static void check_against_unseeded(const struct ha_run *runs, size_t m,
                                   const struct ha_calibration *c)
{
	for (size_t a = 0; a < c->comparison_count; a++) {
		const struct ha_cal_comparison *row = &c->comparison[a];
		if (row->status != HA_OK)
			continue;
		struct ha_cal_fit fit;
		struct ha_error err;
		cr_assert_eq(ha_cal_fit_runs(runs, m, &row->law, INFINITY, &fit, &err),
		             HA_OK, "%s", err.message);
		cr_assert_leq(row->rss, fit.rss * (1 + 1e-12) + 1e-30, "%s: %.17g > %.17g",
		              row->law.name, row->rss, fit.rss);
		ha_cal_fit_finish(&fit);
	}
}

static void nesting_on(const struct ha_run *runs, size_t m, const char *what)
{
	static const double deltas[] = {1e-3, INFINITY};
	for (size_t k = 0; k < 2; k++) {
		struct ha_cal_options o = options(deltas[k]);
		struct ha_calibration *c = NULL;
		struct ha_error err;
		cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s: %s", what,
		             err.message);
		/* seeds < smoothness < rate, power_s2 < power */
		cr_assert_geq(check_nesting(c, what), 4, "%s", what);
		if (k == 1)
			check_against_unseeded(runs, m, c);
		ha_calibration_free(c);
	}
}

static void read_runs(const char *name, struct ha_run **runs, size_t *m)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", HA_REPO_DATA, name);
	struct ha_error err;
	cr_assert_eq(ha_runs_read_file(path, HA_RUNS_AUTO, runs, m, &err), HA_OK,
	             "%s: %s", path, err.message);
}

Test(ladder, nested_laws_never_fit_worse_on_the_repository_runs)
{
	static const char *const files[] = {"runs.yaml", "runs.csv"};
	for (size_t f = 0; f < 2; f++) {
		struct ha_run *runs = NULL;
		size_t m = 0;
		read_runs(files[f], &runs, &m);
		nesting_on(runs, m, files[f]);
		free(runs);
	}
}

Test(ladder, nested_laws_never_fit_worse_on_synthetic_runs)
{
	/* The seeds' law with s = 1; a power-law variance (γ = 0, κ = 1.5);
	 * the rate law (γ = 0.05); each with 1% and 5% noise. */
	double truths[3][HA_CAL_PARAMS] = {
		{1.5, log(3.0), 1.0, log(2e4) - 64.0, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0},
		{1.0, log(4.0), 1.0, log(0.5e4 / 4096.0), 0.0, 1.5, 1.0, 0.0, 0.28, 1.0},
		{1.2, log(2.0), 1.5, log(5.0), 0.05, 0.0, 1.0, 0.0, 0.28, 1.0},
	};
	for (size_t t = 0; t < 3; t++)
		for (int s = 0; s < 2; s++) {
			struct ha_run runs[MAX_RUNS];
			size_t m = make_runs(runs, truths[t], s ? 0.05 : 0.01);
			char what[32];
			snprintf(what, sizeof what, "truth %zu, noise %d", t, s);
			nesting_on(runs, m, what);
		}
}

/* ---- weights and the verdict ---------------------------------------------- */

static void check_weights(const struct ha_calibration *c)
{
	double best = INFINITY, sum = 0.0;
	for (size_t a = 0; a < c->comparison_count; a++)
		if (c->comparison[a].status == HA_OK && c->comparison[a].aicc_defined)
			best = fmin(best, c->comparison[a].aicc);
	for (size_t a = 0; a < c->comparison_count; a++)
		if (c->comparison[a].status == HA_OK && c->comparison[a].aicc_defined)
			sum += exp(-0.5 * (c->comparison[a].aicc - best));
	double total = 0.0;
	for (size_t a = 0; a < c->comparison_count; a++) {
		const struct ha_cal_comparison *row = &c->comparison[a];
		if (!row->weight_defined)
			continue;
		double want = exp(-0.5 * (row->aicc - best)) / sum;
		cr_assert(fabs(row->weight - want) < 1e-12, "%s: %.17g, want %.17g",
		          row->law.name, row->weight, want);
		total += row->weight;
	}
	cr_assert(fabs(total - 1.0) < 1e-12);
}

Test(ladder, the_verdict_prefers_a_law_the_data_tell_apart)
{
	/* Power-law variance with s = 1, little noise: only the power rung
	 * fits (power_s2 holds s at 2), by far more than 2 in AICc. */
	double th[HA_CAL_PARAMS] = {1.0, log(4.0), 1.0, log(0.5e4 / 4096.0), 0.0, 1.5, 1.0, 0.0, 0.28, 1.0};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, 0.002);
	struct ha_cal_options o = options(INFINITY);
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	check_weights(c);
	const struct ha_cal_verdict *v = &c->verdict;
	cr_assert(v->defined);
	cr_assert_str_eq(c->comparison[v->best].law.name, "power", "%s", v->text);
	cr_assert_eq(v->tied_count, 0, "%s", v->text);
	cr_assert_geq(c->comparison[v->runner_up].delta_aicc, HA_CAL_VERDICT_AICC);
	cr_assert(strstr(v->text, "power is preferred"), "%s", v->text);
	ha_calibration_free(c);
}

Test(ladder, the_verdict_says_when_the_data_cannot_tell_laws_apart)
{
	/* A user's law equal to the seeds' (another name): the same fit, ΔAICc
	 * 0 < 2, so the verdict ties them; seeds' truth makes them best. */
	double th[HA_CAL_PARAMS] = {1.5, log(3.0), 2.0, log(2e4) - 64.0, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, 0.01);
	struct ha_cal_options o = options(INFINITY);
	struct ha_cal_law twin = {.name = "twin"};
	twin.free[HA_CAL_IRREDUCIBLE] = twin.free[HA_CAL_BIAS_COEF] =
		twin.free[HA_CAL_VAR_COEF] = 1;
	o.laws = &twin;
	o.law_count = 1;
	o.law.value[HA_CAL_SMOOTHNESS] = 2.0;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert_eq(c->comparison_count, HA_CAL_LADDER + 1);
	const struct ha_cal_comparison *mine = &c->comparison[HA_CAL_LADDER];
	cr_assert(mine->user);
	cr_assert_str_eq(mine->law.name, "twin");
	check_weights(c);
	/* twin and seeds contain each other */
	cr_assert(ha_cal_law_contains(&mine->law, &c->comparison[0].law));
	cr_assert(ha_cal_law_contains(&c->comparison[0].law, &mine->law));
	cr_assert_leq(mine->rss, c->comparison[0].rss);
	const struct ha_cal_verdict *v = &c->verdict;
	cr_assert(v->defined);
	cr_assert_geq(v->tied_count, 1, "%s", v->text);
	cr_assert(strstr(v->text, "cannot tell"), "%s", v->text);
	cr_assert(strstr(v->text, "twin") && strstr(v->text, "seeds"), "%s", v->text);
	for (size_t i = 0; i < v->tied_count; i++)
		cr_assert_lt(c->comparison[v->tied[i]].delta_aicc, HA_CAL_VERDICT_AICC);
	ha_calibration_free(c);
}

Test(ladder, the_users_laws_are_refused_when_their_names_clash)
{
	double th[HA_CAL_PARAMS] = {1.5, log(3.0), 2.0, log(2e4) - 64.0, 0.5, 0.0, 1.0, 0.0, 0.28, 1.0};
	struct ha_run runs[MAX_RUNS];
	size_t m = make_runs(runs, th, 0.01);
	struct ha_cal_law laws[2] = {{.name = "power"}, {.name = "mine"}};
	laws[0].free[HA_CAL_IRREDUCIBLE] = laws[1].free[HA_CAL_IRREDUCIBLE] = 1;
	struct ha_cal_options o = options(INFINITY);
	struct ha_calibration *c = (struct ha_calibration *)1;
	struct ha_error err;
	o.laws = laws;
	o.law_count = 1;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_EINVAL);
	cr_assert_null(c);
	cr_assert(strstr(err.message, "'power' is the name of a law of the ladder"),
	          "%s", err.message);
	snprintf(laws[0].name, sizeof laws[0].name, "mine");
	o.law_count = 2;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "'mine' is defined twice"), "%s", err.message);
	laws[0].name[0] = '\0';
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "has no name"), "%s", err.message);
	o.law_count = HA_CAL_USER_LAWS_MAX + 1;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_EINVAL);
}

/* ---- least squares beside Huber ------------------------------------------- */

Test(ladder, least_squares_beside_huber_and_the_delta_below_the_noise)
{
	struct ha_run *runs = NULL;
	size_t m = 0;
	read_runs("runs.yaml", &runs, &m);
	struct ha_cal_options o = options(1e-3);
	o.compare = 0;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	const struct ha_cal_least_squares *ls = &c->least_squares;
	cr_assert(ls->defined);
	/* the residual scale of an independent least-squares fit */
	struct ha_cal_fit fit;
	cr_assert_eq(ha_cal_fit_runs(runs, m, &c->fit.law, INFINITY, &fit, &err), HA_OK);
	cr_assert_leq(ls->rss, fit.rss * (1 + 1e-12));
	cr_assert(fabs(ls->residual_scale - sqrt(fit.rss / (double)m)) <
	          1e-6 * ls->residual_scale);
	ha_cal_fit_finish(&fit);
	cr_assert_gt(ls->residual_scale, 1e-3);
	cr_assert(ls->delta_below_scale);
	int warned = 0;
	for (size_t i = 0; i < c->warning_count; i++)
		warned |= c->warnings[i].kind == HA_CAL_WARN_HUBER_SCALE;
	cr_assert(warned);
	cr_assert_eq(ls->prediction_changes, ls->head_dim != c->prediction.head_dim);
	ha_calibration_free(c);

	/* δ = 1, above every residual: no warning; δ = inf: nothing beside. */
	o.huber_delta = 1.0;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(c->least_squares.defined && !c->least_squares.delta_below_scale);
	for (size_t i = 0; i < c->warning_count; i++)
		cr_assert_neq(c->warnings[i].kind, HA_CAL_WARN_HUBER_SCALE);
	ha_calibration_free(c);
	o.huber_delta = INFINITY;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	cr_assert(!c->least_squares.defined);
	ha_calibration_free(c);
	free(runs);
}

/* ---- the comparison's bootstrap and the averaged distribution --------------- */

Test(ladder, the_averaged_distribution_sums_to_one)
{
	struct ha_run *runs = NULL;
	size_t m = 0;
	read_runs("runs.yaml", &runs, &m);
	struct ha_cal_options o = options(1e-3);
	o.bootstrap = 10;
	struct ha_calibration *c = NULL;
	struct ha_error err;
	cr_assert_eq(ha_calibrate(runs, m, &o, &c, &err), HA_OK, "%s", err.message);
	double sum = c->averaged_no_answer;
	for (size_t i = 0; i < c->averaged_count; i++) {
		cr_assert_gt(c->averaged[i].share, 0.0);
		cr_assert_eq(c->averaged[i].heads * c->averaged[i].head_dim, 1024);
		if (i)
			cr_assert_geq(c->averaged[i - 1].share, c->averaged[i].share);
		sum += c->averaged[i].share;
	}
	cr_assert(fabs(sum - 1.0) < 1e-12, "%.17g", sum);
	for (size_t a = 0; a < c->comparison_count; a++) {
		const struct ha_cal_comparison *row = &c->comparison[a];
		if (row->status != HA_OK)
			continue;
		cr_assert_eq(row->resamples, 10);
		size_t counted = 0;
		for (size_t k = 0; k < row->distribution_count; k++)
			counted += row->distribution[k].count;
		cr_assert_eq(counted, row->answered);
		cr_assert_leq(row->answered, row->resamples);
	}
	ha_calibration_free(c);
	free(runs);
}

/* The comparison's bootstrap refits its resamples on worker threads: the
 * thread count changes nothing, in any law's distribution or the
 * averaged one. */
Test(ladder, the_comparison_bootstrap_does_not_depend_on_the_threads)
{
	struct ha_run *runs = NULL;
	size_t m = 0;
	read_runs("runs.yaml", &runs, &m);
	struct ha_cal_options o = options(1e-3);
	o.bootstrap = 8;
	struct ha_calibration *c[2] = {NULL, NULL};
	struct ha_error err;
	size_t threads[2] = {1, 3};
	for (int t = 0; t < 2; t++) {
		o.threads = threads[t];
		cr_assert_eq(ha_calibrate(runs, m, &o, &c[t], &err), HA_OK, "%s",
		             err.message);
	}
	cr_assert_eq(c[0]->comparison_count, c[1]->comparison_count);
	size_t answered = 0;
	for (size_t a = 0; a < c[0]->comparison_count; a++) {
		const struct ha_cal_comparison *x = &c[0]->comparison[a],
		                               *y = &c[1]->comparison[a];
		cr_assert_eq(x->answered, y->answered, "row %zu", a);
		cr_assert_eq(x->distribution_count, y->distribution_count, "row %zu", a);
		for (size_t k = 0; k < x->distribution_count; k++) {
			cr_assert_eq(x->distribution[k].head_dim, y->distribution[k].head_dim);
			cr_assert_eq(x->distribution[k].count, y->distribution[k].count);
		}
		answered += x->answered;
	}
	cr_assert_gt(answered, 0, "no law answered: the test would hold vacuously");
	cr_assert_eq(c[0]->averaged_count, c[1]->averaged_count);
	for (size_t i = 0; i < c[0]->averaged_count; i++)
		cr_assert_eq(c[0]->averaged[i].share, c[1]->averaged[i].share);
	ha_calibration_free(c[0]);
	ha_calibration_free(c[1]);
	free(runs);
}

/* The full fits' grids of starts and the leave-one-out refits run on
 * worker threads too: the thread count changes no double of
 * the main fit, of any law's least-squares and Huber fit, or of its
 * leave-one-out error. */
Test(ladder, the_full_fits_do_not_depend_on_the_threads)
{
	struct ha_run *runs = NULL;
	size_t m = 0;
	read_runs("runs.yaml", &runs, &m);
	struct ha_cal_options o = options(1e-3);
	struct ha_calibration *c[3] = {NULL, NULL, NULL};
	struct ha_error err;
	size_t threads[3] = {1, 2, 5};
	for (int t = 0; t < 3; t++) {
		o.threads = threads[t];
		cr_assert_eq(ha_calibrate(runs, m, &o, &c[t], &err), HA_OK, "%s",
		             err.message);
	}
	size_t loo = 0;
	for (int t = 1; t < 3; t++) {
		cr_assert_eq(memcmp(c[0]->fit.law.value, c[t]->fit.law.value,
		                    sizeof c[0]->fit.law.value), 0);
		cr_assert_eq(c[0]->fit.objective, c[t]->fit.objective);
		cr_assert_eq(c[0]->fit.reached_best, c[t]->fit.reached_best);
		cr_assert_eq(c[0]->comparison_count, c[t]->comparison_count);
		for (size_t a = 0; a < c[0]->comparison_count; a++) {
			const struct ha_cal_comparison *x = &c[0]->comparison[a],
			                               *y = &c[t]->comparison[a];
			cr_assert_eq(x->status, y->status, "row %zu", a);
			cr_assert_eq(memcmp(x->law.value, y->law.value,
			                    sizeof x->law.value), 0, "row %zu", a);
			cr_assert_eq(memcmp(&x->rss, &y->rss, sizeof x->rss), 0);
			cr_assert_eq(memcmp(&x->huber_objective, &y->huber_objective,
			                    sizeof x->huber_objective), 0, "row %zu", a);
			cr_assert_eq(x->loo_defined, y->loo_defined, "row %zu", a);
			cr_assert_eq(memcmp(&x->loo_rmse, &y->loo_rmse,
			                    sizeof x->loo_rmse), 0, "row %zu", a);
			cr_assert_eq(x->loo_unconverged, y->loo_unconverged, "row %zu", a);
			loo += x->loo_defined;
		}
	}
	cr_assert_gt(loo, 0, "no leave-one-out error: the test would hold vacuously");
	for (int t = 0; t < 3; t++)
		ha_calibration_free(c[t]);
	free(runs);
}
