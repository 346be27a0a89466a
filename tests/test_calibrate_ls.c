/* Least-squares refits end at an optimum (calibrate_lm.c).
 * Every law of the ladder, fitted by least squares on two sets of runs,
 * is refitted without each run in turn from its full-data optimum, as
 * --compare's leave-one-out does (cal_minimise from a start: the
 * refit's step cap and tolerance).  The independent check: NLopt's
 * derivative-free BOBYQA, started at the refit's end in a box around it
 * (inside the parameters' domain), must not find a point lower by more
 * than 1e-6 of the objective, and at most a tenth of the refits may stop
 * at the step cap still descending (a valley the runs leave open).
 * When the least-squares Levenberg–Marquardt model kept the residuals'
 * second-order term C and asked C + μD² to be positive definite, 83 of
 * these 154 refits stopped at the step cap and 3 that stopped by their
 * tolerance were not at an optimum: this test failed on them.  (With C
 * in the model's own Hessian, 3 at the cap; Gauss–Newton's, as now,
 * none.)  Links the library's objects. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <nlopt.h>

#include <headalloc/calibrate.h>
#include <headalloc/model.h>

#include "calibrate/calibrate_internal.h"
#include "../bench/calibrate_runs.h"

/* data/runs.yaml: the seeds' law with 1% noise (data/synthetic-runs.c). */
static const struct ha_run golden_runs[] = {
	{32, 8, 1e6, 2.43791, NAN, 0},   {16, 16, 1e6, 1.91131, NAN, 0},
	{8, 32, 1e6, 2.15375, NAN, 0},   {16, 12, 1e7, 2.10414, NAN, 0},
	{8, 24, 1e7, 1.89903, NAN, 0},   {16, 32, 1e7, 1.84171, NAN, 0},
	{64, 8, 1e8, 2.43068, NAN, 0},   {32, 16, 1e8, 1.95857, NAN, 0},
	{16, 32, 1e8, 1.84226, NAN, 0},  {4, 32, 1e6, 2.38548, NAN, 0},
};

struct polish {
	const struct cal_data *data;
	const int *index;
	double th[HA_CAL_PARAMS];
};

static double polish_objective(unsigned n, const double *x, double *grad,
                               void *ctx)
{
	(void)grad;
	struct polish *p = ctx;
	double th[HA_CAL_PARAMS];
	memcpy(th, p->th, sizeof th);
	for (unsigned j = 0; j < n; j++)
		th[p->index[j]] = x[j];
	double f = cal_objective(p->data, th, INFINITY, NULL, NULL);
	return isfinite(f) ? f : HUGE_VAL;
}

/* BOBYQA from th over the free parameters; the lowest objective found. */
static double bobyqa_from(const struct cal_data *data,
                          const struct ha_cal_law *law, const double *th)
{
	struct polish p = {.data = data};
	int index[HA_CAL_PARAMS], k = 0;
	double x[HA_CAL_PARAMS], lo[HA_CAL_PARAMS], hi[HA_CAL_PARAMS],
	       step[HA_CAL_PARAMS];
	memcpy(p.th, th, sizeof p.th);
	for (int q = 0; q < HA_CAL_PARAMS; q++) {
		if (!law->free[q])
			continue;
		double v = th[q], w = 0.05 * (1.0 + fabs(v));
		index[k] = q;
		x[k] = v;
		lo[k] = fmax(cal_lower[q], v - w);
		hi[k] = fmin(cal_upper[q], v + w);
		step[k] = 1e-3 * (1.0 + fabs(v));
		k++;
	}
	p.index = index;
	double f = polish_objective((unsigned)k, x, NULL, &p);
	nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, (unsigned)k);
	cr_assert(opt);
	nlopt_set_min_objective(opt, polish_objective, &p);
	nlopt_set_lower_bounds(opt, lo);
	nlopt_set_upper_bounds(opt, hi);
	nlopt_set_initial_step(opt, step);
	nlopt_set_ftol_rel(opt, 1e-14);
	nlopt_set_maxeval(opt, 20000);
	double found = f;
	if (nlopt_optimize(opt, x, &found) < 0)
		found = f;
	nlopt_destroy(opt);
	return found < f ? found : f;
}

struct tally {
	int refits, capped;
};

/* Every ladder law on these runs: its leave-one-out refits. */
static void every_law(const struct ha_run *runs, size_t m, struct tally *t)
{
	struct cal_data data;
	cr_assert_eq(cal_data_init(&data, runs, m), HA_OK);
	struct ha_model model = ha_model_defaults();
	struct ha_cal_law base, ladder[HA_CAL_LADDER];
	ha_cal_law_from_model(&base, &model);
	size_t laws = ha_cal_ladder(&base, ladder);
	char msg[HA_CAL_MESSAGE_MAX];
	for (size_t l = 0; l < laws; l++) {
		const struct ha_cal_law *law = &ladder[l];
		for (size_t i = 0; i < m; i++)
			data.weight[i] = 1.0;
		if (!cal_data_term_identifiable(&data, law, msg))
			continue;
		double full[HA_CAL_PARAMS], f;
		cr_assert_eq(cal_minimise(&data, law, INFINITY, NULL, NULL, 0, full,
		                          &f, NULL, NULL, NULL), HA_OK, "%s", law->name);
		for (size_t out = 0; out < m; out++) {
			for (size_t i = 0; i < m; i++)
				data.weight[i] = i == out ? 0.0 : 1.0;
			if (!cal_identifiable(&data, runs, cal_free_count(law), NULL, msg) ||
			    !cal_data_term_identifiable(&data, law, msg))
				continue;
			double th[HA_CAL_PARAMS], fr;
			int converged = 0;
			cr_assert_eq(cal_minimise(&data, law, INFINITY, full, NULL, 0, th,
			                          &fr, NULL, NULL, &converged), HA_OK);
			t->refits++;
			if (!converged) {
				/* Still descending at the cap: a valley its runs
				 * leave open (A and α to infinity, say), counted. */
				t->capped++;
				continue;
			}
			double best = bobyqa_from(&data, law, th);
			cr_expect(fr <= best + 1e-6 * best, "%s without run %zu: the "
			          "refit ends at %.12g, BOBYQA from there reaches "
			          "%.12g", law->name, out, fr, best);
		}
	}
	cal_data_free(&data);
}

Test(least_squares, leave_one_out_refits_end_where_bobyqa_finds_nothing_lower)
{
	struct tally t = {0, 0};
	every_law(golden_runs, sizeof golden_runs / sizeof *golden_runs, &t);
	struct ha_run runs[12];
	size_t m = calibrate_bench_runs(runs);
	every_law(runs, m, &t);
	cr_log_info("%d leave-one-out refits, %d at the step cap", t.refits,
	            t.capped);
	cr_expect(t.refits >= 100, "only %d refits compared", t.refits);
	/* The cap is for valleys the runs do not constrain, not the rule. */
	cr_expect(10 * t.capped <= t.refits, "%d of %d refits at the step cap",
	          t.capped, t.refits);
}
