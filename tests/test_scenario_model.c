/* Scenario files and the generalised model (headalloc-model(7), CALIBRATION (The parameters)): the keys
 * irreducible, var_rate, var_power, log_bias_coef and log_var_coef, read
 * exactly; the model map of a report read back bit for bit, for random
 * models; and a calibration report's other keys skipped, by the rules of
 * every YAML input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>
#include "alloc/model_internal.h"

static struct ha_scenario *read_ok(const char *text)
{
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	enum ha_status st = ha_scenario_read_string(text, strlen(text), &sc, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column, err.message);
	return sc;
}

static void read_bad(const char *text, long line, long column,
                     const char *needle)
{
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	enum ha_status st = ha_scenario_read_string(text, strlen(text), &sc, &err);
	cr_assert_eq(st, HA_EFORMAT, "status %d for %s", (int)st, text);
	cr_assert_null(sc);
	cr_assert_eq(err.line, line, "%ld:%ld: %s", err.line, err.column, err.message);
	cr_assert_eq(err.column, column, "%ld:%ld: %s", err.line, err.column,
	             err.message);
	cr_assert(strstr(err.message, needle), "\"%s\" lacks \"%s\"", err.message,
	          needle);
}

Test(scenario_model, the_generalised_model_keys)
{
	struct ha_scenario *sc = read_ok(
		"model:\n"
		"  irreducible: 1.75\n"
		"  var_rate: 0\n"
		"  var_power: 2.5\n"
		"  log_bias_coef: 3.25\n"
		"  log_var_coef: -1578.125\n"
		"budgets: 512\n");
	const struct ha_model *m = &sc->model;
	cr_assert_eq(m->irreducible, 1.75);
	cr_assert_eq(m->var_rate, 0.0);
	cr_assert_eq(m->var_power, 2.5);
	cr_assert_eq(ha_model_log_bias_coef(m), 3.25);
	cr_assert_eq(ha_model_log_var_coef(m), -1578.125, "beyond a double, exact");
	cr_assert(m->bias_coef_is_log && m->var_coef_is_log, "held as given: logs");
	cr_assert_eq(m->var_coef, -1578.125);
	cr_assert_eq(m->smoothness, 2.0);
	cr_assert_eq(m->hdi, 1.0);
	m = NULL;
	ha_scenario_free(sc);

	/* Without the new keys: the defaults, so no report changes. */
	sc = read_ok("model: {smoothness: 3, bias_coef: 2}\nbudgets: 512\n");
	struct ha_model d = ha_model_defaults();
	cr_assert_eq(sc->model.irreducible, d.irreducible);
	cr_assert_eq(sc->model.var_rate, d.var_rate);
	cr_assert_eq(sc->model.var_power, d.var_power);
	cr_assert_eq(sc->model.bias_coef_is_log, 0);
	cr_assert_eq(sc->model.bias_coef, 2.0);
	cr_assert_eq(sc->model.data_coef, d.data_coef);
	cr_assert_eq(sc->model.data_power, d.data_power);
	cr_assert_eq(sc->model.var_samples_power, d.var_samples_power);
	ha_scenario_free(sc);

	/* The data term and β (headalloc-scenario(5)). */
	sc = read_ok("model:\n  data_coef: 406.4\n  data_power: 0.34\n"
	             "  var_samples_power: 0.75\nbudgets: 512\n");
	cr_assert_eq(sc->model.data_coef, 406.4);
	cr_assert_eq(sc->model.data_power, 0.34);
	cr_assert_eq(sc->model.var_samples_power, 0.75);
	ha_scenario_free(sc);
}

/* hdi: -0 reads as 0, as --hdi -0 does:
 * the report prints 0, not -0. */
Test(scenario_model, negative_zero_reads_as_zero)
{
	struct ha_scenario *sc = read_ok("model: {hdi: -0, data_coef: -0.0}\nbudgets: 512\n");
	cr_assert_eq(sc->model.hdi, 0.0);
	cr_assert(!signbit(sc->model.hdi));
	cr_assert(!signbit(sc->model.data_coef));
	ha_scenario_free(sc);
}

Test(scenario_model, bad_generalised_keys)
{
	read_bad("model: {irreducible: -1}\nbudgets: 1\n", 1, 22,
	         "model.irreducible: expected a number >= 0, found '-1'");
	read_bad("model: {var_rate: .inf}\nbudgets: 1\n", 1, 19,
	         "model.var_rate: expected a number >= 0");
	read_bad("model: {var_power: \"1\"}\nbudgets: 1\n", 1, 20,
	         "model.var_power: expected a number >= 0, found the quoted string '1'");
	read_bad("model: {log_var_coef: 1e999}\nbudgets: 1\n", 1, 23,
	         "model.log_var_coef: '1e999' is beyond a double");
	read_bad("model:\n  log_bias_coef: 1\n  bias_coef: 2\nbudgets: 1\n", 2, 3,
	         "model.log_bias_coef: expected bias_coef or log_bias_coef, not "
	         "both (bias_coef is at line 3)");
	read_bad("model: {data_coef: -1}\nbudgets: 1\n", 1, 20,
	         "model.data_coef: expected a number >= 0, found '-1'");
	read_bad("model: {data_power: 0}\nbudgets: 1\n", 1, 21,
	         "model.data_power: expected a number > 0, found '0'");
	read_bad("model: {var_samples_power: .nan}\nbudgets: 1\n", 1, 28,
	         "model.var_samples_power: expected a number > 0");
}

/* splitmix64 */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static double random_real(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random(s) >> 11) / 9007199254740992.0;
}

/* A report's model map (the allocation report's, also the calibration
 * report's) read back as a scenario's model gives the same model, bit for
 * bit, and the same answer, for random models with and without log
 * scales and with default and other E, γ, κ. */
Test(scenario_model, report_model_maps_read_back_exactly)
{
	uint64_t s = 7;
	for (int trial = 0; trial < 300; trial++) {
		struct ha_model m = ha_model_defaults();
		double n_samples = 1e9;
		m.smoothness = random_real(&s, 0.1, 4.0);
		m.hdi = random_real(&s, 0.0, 1.0);
		if (next_random(&s) % 2)
			ha_model_set_log_bias_coef(&m, random_real(&s, -50.0, 50.0));
		else
			m.bias_coef = random_real(&s, 1e-3, 1e3);
		if (next_random(&s) % 2)
			ha_model_set_log_var_coef(&m, random_real(&s, -3000.0, 10.0));
		else
			m.var_coef = random_real(&s, 1e-3, 1e3);
		if (next_random(&s) % 2)
			m.irreducible = random_real(&s, 0.0, 5.0);
		if (next_random(&s) % 2)
			m.var_rate = random_real(&s, 0.0, 1.0);
		if (next_random(&s) % 2)
			m.var_power = random_real(&s, 0.0, 4.0);
		if (next_random(&s) % 2)
			m.data_coef = random_real(&s, 0.0, 500.0);
		if (next_random(&s) % 3 == 0)
			m.data_power = random_real(&s, 0.05, 1.0);
		if (next_random(&s) % 2)
			m.var_samples_power = random_real(&s, 0.2, 2.0);
		cr_assert_eq(ha_model_validate(&m), HA_OK);

		struct ha_solver *solver = NULL;
		struct ha_solution sol, back_sol;
		cr_assert_eq(ha_solver_new(720, NULL, &solver), HA_OK);
		cr_assert_eq(ha_solver_solve(solver, &m, n_samples, &sol), HA_OK);

		char *text = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);
		struct ha_report *r = NULL;
		cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
		cr_assert_eq(ha_report_allocation(r, &(struct ha_allocation_request){
			.model = &m, .solution = &sol}, NULL), HA_OK);
		cr_assert_eq(ha_report_end(r), HA_OK);
		ha_report_free(r);
		cr_assert_eq(fclose(f), 0);
		/* The allocation report has other keys: keep only its model. */
		char *start = strstr(text, "model:\n"), *end = strstr(text, "optimum:");
		cr_assert(start && end);
		*end = '\0';
		char scenario[2048];
		snprintf(scenario, sizeof scenario, "%sbudgets: 720\n", start);
		struct ha_scenario *sc = read_ok(scenario);
		struct ha_model back = sc->model;
		cr_assert_eq(back.smoothness, m.smoothness);
		cr_assert_eq(back.hdi, m.hdi);
		cr_assert_eq(back.irreducible, m.irreducible);
		cr_assert_eq(back.var_rate, m.var_rate);
		cr_assert_eq(back.var_power, m.var_power);
		cr_assert_eq(back.data_coef, m.data_coef);
		cr_assert_eq(back.data_power, m.data_power);
		cr_assert_eq(back.var_samples_power, m.var_samples_power);
		cr_assert_eq(ha_model_log_bias_coef(&back), ha_model_log_bias_coef(&m),
		             "trial %d: %s", trial, scenario);
		cr_assert_eq(ha_model_log_var_coef(&back), ha_model_log_var_coef(&m),
		             "trial %d: %s", trial, scenario);
		/* The default keys are written only off their defaults. */
		cr_assert_eq(strstr(scenario, "irreducible") != NULL, m.irreducible != 0.0);
		cr_assert_eq(strstr(scenario, "var_rate") != NULL, m.var_rate != 0.5);
		cr_assert_eq(strstr(scenario, "data_coef") != NULL, m.data_coef != 0.0);
		cr_assert_eq(strstr(scenario, "data_power") != NULL,
		             m.data_coef != 0.0 || m.data_power != 0.28);
		cr_assert_eq(strstr(scenario, "var_samples_power") != NULL,
		             m.var_samples_power != 1.0);
		cr_assert_eq(strstr(scenario, "log_var_coef") != NULL,
		             m.var_coef_is_log);
		cr_assert_eq(ha_solver_solve(solver, &back, n_samples, &back_sol), HA_OK);
		cr_assert_eq(back_sol.optimum.head_dim, sol.optimum.head_dim);
		cr_assert_eq(back_sol.optimum.terms.log_mse, sol.optimum.terms.log_mse);
		ha_solver_free(solver);
		ha_scenario_free(sc);
		free(text);
	}
}

Test(scenario_model, a_calibration_report_is_a_scenario)
{
	/* Its other keys are skipped whatever they hold, nesting and all; it
	 * needs no budget (the command line gives it). */
	struct ha_scenario *sc = read_ok(
		"calibration:\n"
		"  runs: 10\n"
		"  parameters: {irreducible: {value: 1.8, ci95: [1.7, 1.9]}}\n"
		"  residuals:\n"
		"  - {heads: 8, nested: [[[[1]]], {a: {b: [2]}}]}\n"
		"  warnings: ['a ''quoted'' warning']\n"
		"model: {log_var_coef: -40.5, irreducible: 1.8}\n"
		"prediction: {budget: 4096, distribution: []}\n"
		"comparison:\n"
		"- {law: seeds, free: [irreducible], aicc: null}\n");
	cr_assert_eq(ha_model_log_var_coef(&sc->model), -40.5);
	cr_assert_eq(sc->model.irreducible, 1.8);
	cr_assert_eq(sc->budget_count, 0);
	cr_assert_eq(sc->model_count, 0);
	ha_scenario_free(sc);

	/* Skipped, but by the rules of every YAML input. */
	read_bad("calibration: {a: [1, &x 2]}\nmodel: {hdi: 1}\n", 1, 22,
	         "expected a value, found the anchor '&x'");
	read_bad("calibration: {a: !!int 1}\n", 1, 18, "found the tag");
	read_bad("prediction: 1\nprediction: 2\nbudgets: 1\n", 2, 1,
	         "expected each key once, found 'prediction' again");
	/* Without calibration a file still needs budgets or models. */
	read_bad("prediction: {budget: 1}\n", 1, 1,
	         "expected the key 'budgets' or 'models', found neither");
	/* The report's keys are not listed among the scenario's. */
	read_bad("budgets: 1\ncalibrations: 1\n", 2, 1,
	         "expected one of the keys model, constraints, budgets, samples, "
	         "report, models, kv, found 'calibrations'");
}
