/* A relaxed-solver workspace answers as the definition of x*, to the bit:
 * fed a sweep in n, models in random order and the sweep backwards
 * (against one-shot solves), predicting a sweep's next x*, on a sweep to
 * n = 1e300 (a bounded cost in evaluations), and in every row of
 * ha_report_table on one to eight threads (against the single query of
 * its point); its bad arguments refused. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "relaxed_problems.h"
#include "sweep_table.h"

#include "alloc/solver_internal.h"

static void assert_same(const struct ha_relaxed *got, const struct ha_relaxed *want,
                        uint64_t budget, const struct ha_model *m, double samples)
{
	cr_assert(memcmp(&got->head_dim, &want->head_dim, sizeof(double)) == 0 &&
	          memcmp(&got->heads, &want->heads, sizeof(double)) == 0 &&
	          memcmp(&got->log_mse, &want->log_mse, sizeof(double)) == 0,
	          "D=%llu n=%.17g s=%.17g c_b=%.17g c_v=%.17g hdi=%.17g: "
	          "x* %.17g / %.17g, H* %.17g / %.17g, ln f %.17g / %.17g",
	          (unsigned long long)budget, samples, m->smoothness,
	          m->bias_coef, m->var_coef, m->hdi, got->head_dim, want->head_dim,
	          got->heads, want->heads, got->log_mse, want->log_mse);
}

/* A workspace fed a sweep in n (as the table feeds it), then models in
 * random order, then the sweep backwards: every answer that of the
 * one-shot solve, to the bit, and a sweep's later points cost no NLopt
 * and few evaluations. */
Test(relaxed, a_workspace_answers_as_the_one_shot_solve_bit_for_bit,
     .timeout = 600)
{
	uint64_t rng = 20250113;
	size_t compared = 0, swept = 0, sweep_evaluations = 0, sweep_nlopt = 0;
	for (int problem = 0; problem < 300; problem++) {
		uint64_t D = pick_budget(&rng);
		struct ha_constraints c = pick_constraints(&rng, D);
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		struct ha_relaxed_solver *w;
		cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
		double n_samples;
		struct ha_model base = pick_model(&rng, &n_samples);
		double from = log_uniform(&rng, 1.001, 1e20);
		double to = from * log_uniform(&rng, 1.0, 1e40);
		for (int k = 0; k < 100; k++) {
			struct ha_model m = base;
			int sweep = k < 40 || k >= 60;
			int i = k < 40 ? k : 99 - k;
			if (sweep)
				n_samples = exp(log(from) + (log(to) - log(from)) * i / 39.0);
			else
				m = pick_model(&rng, &n_samples);
			struct ha_relaxed got, one_shot;
			enum ha_status st = ha_relaxed_solver_solve(w, &m, n_samples, &got);
			cr_assert_eq(st, ha_solver_solve_relaxed(s, &m, n_samples, &one_shot));
			if (st != HA_OK)
				continue;
			assert_same(&got, &one_shot, D, &m, n_samples);
			compared++;
			size_t evaluations, nlopt;
			ha_relaxed_solver_last_cost(w, &evaluations, &nlopt);
			if (k > 0 && k < 40) {
				swept++;
				sweep_evaluations += evaluations;
				sweep_nlopt += nlopt;
			}
		}
		ha_relaxed_solver_free(w);
		ha_solver_free(s);
	}
	cr_assert_gt(compared, 20000);

	cr_assert_eq(sweep_nlopt, 0);
	cr_assert_lt(sweep_evaluations, 16 * swept, "%zu evaluations for %zu points",
	             sweep_evaluations, swept);
}

/* A sweep to n = 1e300 (x* grows like ln n) costs a bounded
 * number of evaluations a point, however far n goes. */
Test(relaxed, a_sweep_to_1e300_costs_few_evaluations_a_point)
{
	struct ha_solver *s;
	cr_assert_eq(ha_solver_new(UINT64_C(9223372036854775807), NULL, &s), HA_OK);
	struct ha_relaxed_solver *w;
	cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
	struct ha_model m = ha_model_defaults();
	size_t total = 0, points = 20000, worst = 0;
	for (size_t i = 0; i < points; i++) {
		double n_samples = exp(log(1e3) + (log(1e300) - log(1e3)) * (double)i / (double)(points - 1));
		struct ha_relaxed r;
		cr_assert_eq(ha_relaxed_solver_solve(w, &m, n_samples, &r), HA_OK);
		size_t evaluations, nlopt;
		ha_relaxed_solver_last_cost(w, &evaluations, &nlopt);
		if (i > 0) {
			cr_assert_eq(nlopt, 0);
			total += evaluations;
			worst = evaluations > worst ? evaluations : worst;
		}
	}
	cr_assert_lt(total, 14 * (points - 1), "%zu evaluations", total);
	cr_assert_lt(worst, 40);
	ha_relaxed_solver_free(w);
	ha_solver_free(s);
}

/* A workspace predicts a sweep's next x* from its last two answers; the
 * answer is still the definition's (every question evaluated, from a root
 * prepared by ha_relaxed_fn_init).  On the first sweep (20,000 points,
 * D = 512) the previous answer alone cost 12.87 evaluations a point, the
 * prediction 11.87 (9.81 on 10^6 points). */
Test(relaxed, a_predicted_sweep_answers_as_the_definition, .timeout = 600)
{
	uint64_t rng = 16;
	size_t points = 0, evaluations = 0;
	for (int problem = 0; problem < 40; problem++) {
		uint64_t D = problem == 0 ? 512 : pick_budget(&rng);
		struct ha_solver *s;
		if (ha_solver_new(D, NULL, &s) != HA_OK)
			continue;
		struct ha_relaxed_solver *w;
		cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
		double drawn; /* pick_model's n: each point has its own */
		struct ha_model m = problem == 0 ? ha_model_defaults()
		                                 : pick_model(&rng, &drawn);
		double from = problem == 0 ? 1e4 : log_uniform(&rng, 1.001, 1e20);
		double to = problem == 0 ? 1e12 : from * log_uniform(&rng, 1e3, 1e40);
		struct ha_samples range = {.count = problem == 0 ? 20000 : 400,
		                           .from = from, .to = to};
		for (size_t i = 0; i < range.count; i++) {
			double n_samples = ha_samples_value(&range, i);
			struct ha_relaxed got;
			if (ha_relaxed_solver_solve(w, &m, n_samples, &got) != HA_OK)
				continue;
			struct ha_relaxed_fn fn;
			ha_relaxed_fn_init(&fn, &m, n_samples, (double)D);
			struct ha_relaxed_root root;
			ha_relaxed_root_init(&root, &fn, 1.0, (double)D);
			double want = ha_relaxed_root_solve(&root, NAN, 0.0);
			cr_assert(memcmp(&got.head_dim, &want, sizeof want) == 0,
			          "D=%llu n=%.17g s=%.17g hdi=%.17g: %.17g, defined %.17g",
			          (unsigned long long)D, n_samples, m.smoothness, m.hdi,
			          got.head_dim, want);
			size_t e, nlopt;
			ha_relaxed_solver_last_cost(w, &e, &nlopt);
			points += problem == 0 && i >= 2;
			evaluations += problem == 0 && i >= 2 ? e : 0;
		}
		ha_relaxed_solver_free(w);
		ha_solver_free(s);
	}
	cr_assert_eq(points, 19998);
	cr_assert_lt(evaluations, 12 * points + points / 4, "%zu evaluations for %zu points",
	             evaluations, points);
}

Test(relaxed, a_workspace_refuses_bad_arguments)
{
	struct ha_solver *s;
	struct ha_relaxed_solver *w = (void *)&s;
	cr_assert_eq(ha_relaxed_solver_new(NULL, &w), HA_EINVAL);
	cr_assert_null(w);
	cr_assert_eq(ha_solver_new(512, NULL, &s), HA_OK);
	cr_assert_eq(ha_relaxed_solver_new(s, NULL), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_new(s, &w), HA_OK);
	struct ha_model m = ha_model_defaults();
	struct ha_relaxed r;
	cr_assert_eq(ha_relaxed_solver_solve(NULL, &m, HA_SAMPLES_DEFAULT, &r), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_solve(w, NULL, HA_SAMPLES_DEFAULT, &r), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_solve(w, &m, HA_SAMPLES_DEFAULT, NULL), HA_EINVAL);
	cr_assert_eq(ha_relaxed_solver_solve(w, &m, 1.0, &r), HA_EINVAL);
	ha_relaxed_solver_free(w);
	ha_relaxed_solver_free(NULL);
	ha_solver_free(s);
}

/* The next number after key in text from *at on (moved past it). */
static double number_after(const char **at, const char *key)
{
	const char *p = strstr(*at, key);
	cr_assert_not_null(p, "no %s", key);
	p += strlen(key);
	/* sscanf's %lf reads as strtod does; an end pointer of strtod's,
	 * inlined into the caller's loop, was a dangling pointer to gcc -O2 */
	double v = 0.0;
	int used = 0;
	cr_assert(sscanf(p, "%lf%n", &v, &used) == 1 && used > 0, "no number after %s", key);
	*at = p + used;
	return v;
}

/* Every row of a sweep table (random points in random order, one to
 * eight threads) carries the relaxed optimum of the single query of its
 * point, to the bit. */
Test(relaxed, every_table_row_is_the_single_query_of_its_point, .timeout = 600)
{
	uint64_t rng = 99;
	size_t rows = 0;
	for (int sweep = 0; sweep < 16; sweep++) {
		uint64_t budgets[3];
		for (int b = 0; b < 3; b++)
			budgets[b] = pick_budget(&rng);
		double drawn; /* pick_model's n: the sweep has its own */
		struct ha_model m = pick_model(&rng, &drawn);
		m.irreducible = 0.0;
		/* At least 2048 rows: shorter tables use one thread. */
		size_t count = 700 + next_random(&rng) % 300;
		double *samples = malloc(count * sizeof *samples);
		cr_assert_not_null(samples);
		for (size_t i = 0; i < count; i++)
			samples[i] = log_uniform(&rng, 1.001, 1e300);
		size_t threads = 1 + (size_t)sweep % 8;
		char *text = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);
		cr_assert_not_null(f);
		struct ha_report *r;
		struct ha_error err;
		cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
		cr_assert_eq(sweep_table(r, (struct ha_sweep_request){
			.model = &m, .budgets = budgets, .budget_count = 3,
			.samples = {.values = samples, .count = count}, .threads = threads,
		}, &err), HA_OK, "%s", err.message);
		cr_assert_eq(ha_report_end(r), HA_OK);
		ha_report_free(r);
		cr_assert_eq(fclose(f), 0);
		const char *at = text;
		for (size_t i = 0; i < count; i++)
			for (int b = 0; b < 3; b++) {
				struct ha_solution want;
				cr_assert_eq(ha_solve(budgets[b], NULL, &m, samples[i], &want), HA_OK);
				double x = number_after(&at, "relaxed_head_dim: ");
				double h = number_after(&at, "relaxed_heads: ");
				cr_assert(memcmp(&x, &want.relaxed.head_dim, sizeof x) == 0 &&
				          memcmp(&h, &want.relaxed.heads, sizeof h) == 0,
				          "%zu threads, D=%llu n=%.17g: row %.17g, query %.17g",
				          threads, (unsigned long long)budgets[b], samples[i],
				          x, want.relaxed.head_dim);
				rows++;
			}
		free(text);
		free(samples);
	}
	cr_assert_gt(rows, 16 * 3 * 700 - 1);
}
