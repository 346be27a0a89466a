#define _DEFAULT_SOURCE /* wait4 */
/* headalloc-bench — throughput of the solver against baselines measured in
 * the same run, an end-to-end sweep, divisor enumeration of hard D, and
 * ha_format_double against the snprintf/strtod method it replaced, and a
 * calibration of the synthetic runs of data/runs.yaml (library and CLI).
 *
 *   headalloc-bench [--quick] [--sweeps-only] [--format text|yaml] [--cli PATH]
 *
 * Every figure is measured here and now; ratios are against the brute-force
 * baseline of the same run, so they do not depend on the machine's speed.
 * --sweeps-only measures the sweep section alone.
 * --cli names the headalloc binary for the end-to-end sweep (default: the
 * one built beside this program). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <headalloc/calibrate.h>
#include <headalloc/headalloc.h>

#include "sweep_bench.h"
#include "alloc/solver_internal.h"
#include "report/yaml_writer.h"

struct problem {
	uint64_t budget;
	struct ha_model model;
	double samples;           /* n */
	struct ha_solver *solver; /* shared per budget */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = UINT64_C(0x243F6A8885A308D3);

static uint64_t next_random(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * UINT64_C(2685821657736338717);
}

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random() >> 11) / 9007199254740992.0;
}

/* Sink for results, so the compiler cannot drop the work. */
static volatile uint64_t sink;

/* The integer optimum by evaluating every feasible divisor. */
static uint64_t brute_force(const struct problem *p)
{
	size_t count;
	const uint64_t *d = ha_solver_feasible(p->solver, &count);
	uint64_t best = d[0];
	double best_log = ha_model_log_relative_mse(&p->model, p->samples, p->budget, d[0],
	                                            p->budget / d[0]);
	for (size_t i = 1; i < count; i++) {
		double v = ha_model_log_relative_mse(&p->model, p->samples, p->budget, d[i],
		                                     p->budget / d[i]);
		if (v < best_log) {
			best_log = v;
			best = d[i];
		}
	}
	return best;
}

/* The integer optimum by trying every integer 1..D as a head dimension. */
static uint64_t naive(const struct problem *p)
{
	uint64_t best = 1;
	double best_log = INFINITY;
	for (uint64_t d = 1; d <= p->budget; d++) {
		if (p->budget % d)
			continue;
		double v = ha_model_log_relative_mse(&p->model, p->samples, p->budget, d,
		                                     p->budget / d);
		if (v < best_log) {
			best_log = v;
			best = d;
		}
	}
	return best;
}

struct rate {
	const char *name;
	double per_second;
	double seconds;
	size_t count;
};

enum method { SHIPPED_INTEGER, BRUTE_FORCE, NAIVE, SHIPPED_FULL, FROM_SCRATCH };

/* Run one method over the problems (repeating until at least min_seconds
 * have passed) and return its rate. */
static struct rate measure(const char *name, enum method method,
                           struct problem *problems, size_t count,
                           double min_seconds)
{
	size_t done = 0;
	double start = now(), elapsed;
	do {
		for (size_t i = 0; i < count; i++) {
			struct problem *p = &problems[i];
			struct ha_allocation a;
			struct ha_solution s;
			switch (method) {
			case SHIPPED_INTEGER:
				ha_solver_solve_integer(p->solver, &p->model, p->samples, &a, NULL);
				sink += a.head_dim;
				break;
			case BRUTE_FORCE:
				sink += brute_force(p);
				break;
			case NAIVE:
				sink += naive(p);
				break;
			case SHIPPED_FULL:
				ha_solver_solve(p->solver, &p->model, p->samples, &s);
				sink += s.optimum.head_dim;
				break;
			case FROM_SCRATCH:
				ha_solve(p->budget, NULL, &p->model, p->samples, &s);
				sink += s.optimum.head_dim;
				break;
			}
		}
		done += count;
		elapsed = now() - start;
	} while (elapsed < min_seconds);
	struct rate r = {name, (double)done / elapsed, elapsed, done};
	return r;
}

/* Every D < 2^63 of the form 2^a1 3^a2 5^a3 ... with a1 >= a2 >= ...
 * (the only shapes that can hold a divisor-count record), kept if among
 * the top `want` by divisor count. */
struct rich {
	uint64_t value;
	uint64_t divisors;
};

static const uint64_t first_primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29,
                                        31, 37, 41, 43, 47, 53};

static void consider(struct rich *top, size_t want, uint64_t value,
                     uint64_t divisors)
{
	/* top is sorted by divisors descending, then value ascending. */
	size_t i = want;
	while (i > 0 && (top[i - 1].divisors < divisors ||
	                 (top[i - 1].divisors == divisors &&
	                  top[i - 1].value > value)))
		i--;
	if (i >= want)
		return;
	memmove(&top[i + 1], &top[i], (want - 1 - i) * sizeof *top);
	top[i].value = value;
	top[i].divisors = divisors;
}

static void search_rich(struct rich *top, size_t want, size_t prime_index,
                        unsigned max_exponent, uint64_t value,
                        uint64_t divisors)
{
	consider(top, want, value, divisors);
	if (prime_index >= sizeof first_primes / sizeof *first_primes)
		return;
	uint64_t p = first_primes[prime_index];
	uint64_t v = value;
	for (unsigned e = 1; e <= max_exponent; e++) {
		if (v > HA_BUDGET_MAX / p)
			break;
		v *= p;
		search_rich(top, want, prime_index + 1, e, v, divisors * (e + 1));
	}
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct enumeration_times {
	double worst, median;
	uint64_t worst_budget;
};

static struct enumeration_times time_divisors(const uint64_t *values, size_t n)
{
	double *t = malloc(n * sizeof *t);
	struct enumeration_times r = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		double best = INFINITY;
		/* The best of 5 runs: the figure is the work, not the noise. */
		for (int rep = 0; rep < 5; rep++) {
			uint64_t *d;
			size_t count;
			double start = now();
			ha_divisors(values[i], &d, &count);
			double e = now() - start;
			sink += count;
			free(d);
			if (e < best)
				best = e;
		}
		t[i] = best;
		if (best > r.worst) {
			r.worst = best;
			r.worst_budget = values[i];
		}
	}
	qsort(t, n, sizeof *t, by_double);
	r.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
	free(t);
	return r;
}

/* A random prime in [lo, hi). */
static uint64_t random_prime(uint64_t lo, uint64_t hi)
{
	for (;;) {
		uint64_t p = lo + next_random() % (hi - lo);
		if (ha_is_prime(p))
			return p;
	}
}

/* ha_format_double as it was before format_double.c: the shortest of
 * %.16g, %.15g, %.17g that strtod reads back, then ".0" for YAML 1.1. */
static char *old_format_double(double value, char buf[32])
{
	if (isnan(value)) {
		strcpy(buf, "nan");
		return buf;
	}
	if (isinf(value)) {
		strcpy(buf, value > 0 ? "inf" : "-inf");
		return buf;
	}
	snprintf(buf, 32, "%.16g", value);
	if (strtod(buf, NULL) != value) {
		snprintf(buf, 32, "%.17g", value);
	} else {
		char shorter[32];
		snprintf(shorter, sizeof shorter, "%.15g", value);
		if (strtod(shorter, NULL) == value)
			strcpy(buf, shorter);
	}
	if (!strchr(buf, '.')) {
		char *exponent = strchr(buf, 'e');
		char tail[32] = "";
		if (exponent) {
			strcpy(tail, exponent);
			*exponent = '\0';
		}
		strcat(buf, ".0");
		strcat(buf, tail);
	}
	return buf;
}

struct format_figures {
	double old_ns, new_ns;
	size_t values;
	int agree;
};

/* Nanoseconds per value of both formatters over the same values (each
 * repeated until min_seconds have passed), after checking they print
 * the same text. */
static struct format_figures time_formatting(const double *values, size_t count,
                                             double min_seconds)
{
	struct format_figures f = {0, 0, count, 1};
	char a[32], b[32];
	for (size_t i = 0; i < count; i++)
		if (strcmp(old_format_double(values[i], a), ha_format_double(values[i], b)) != 0)
			f.agree = 0;
	for (int method = 0; method < 2; method++) {
		size_t done = 0;
		double start = now(), elapsed;
		do {
			for (size_t i = 0; i < count; i++) {
				char *text = method ? ha_format_double(values[i], a)
				                    : old_format_double(values[i], a);
				sink += (uint64_t)text[0];
			}
			done += count;
			elapsed = now() - start;
		} while (elapsed < min_seconds);
		double ns = 1e9 * elapsed / (double)done;
		if (method)
			f.new_ns = ns;
		else
			f.old_ns = ns;
	}
	return f;
}

/* ---- calibration ---------------------------------------------------- */

/* The synthetic runs of the source tree (data/runs.yaml: ten runs drawn
 * by data/synthetic-runs.c), the file of the README's example. */
#ifndef HEADALLOC_RUNS_FILE
#define HEADALLOC_RUNS_FILE "data/runs.yaml"
#endif

struct calibration_times {
	int ran;
	size_t runs;
	/* Fit + B = 1000 resamples + prediction at D = 4096, n = 1e10, best
	 * of three, for a law; and the same with the ladder of laws (each
	 * rung with its leave-one-out refits). */
	double seeds, seeds_compare;       /* E, c_b, c_v free: the CLI's default */
	double four, four_compare;         /* E, c_b, s, c_v free */
	double cli;                        /* the CLI end to end, with --compare */
	int cli_status;
	size_t unconverged;                /* of the four-parameter bootstrap */
};

static double time_law(const struct ha_run *runs, size_t m, int smoothness_free,
                       int compare, size_t *unconverged)
{
	double best = INFINITY;
	for (int rep = 0; rep < 3; rep++) {
		struct ha_cal_options o;
		ha_cal_options_defaults(&o);
		o.law.free[HA_CAL_SMOOTHNESS] = smoothness_free;
		o.compare = compare;
		o.target = (struct ha_cal_target){4096, 1e10, {0, 0, 0, 0, 0}};
		struct ha_calibration *c = NULL;
		double t0 = now();
		if (ha_calibrate(runs, m, &o, &c, NULL) != HA_OK) {
			fprintf(stderr, "headalloc-bench: the calibration failed\n");
			exit(1);
		}
		double dt = now() - t0;
		if (dt < best)
			best = dt;
		if (unconverged)
			*unconverged = c->bootstrap.unconverged;
		ha_calibration_free(c);
	}
	return best;
}

/* The command of the README's example, output to /dev/null, best of 3. */
static double time_cli_calibration(const char *cli, int *status)
{
	double best = INFINITY;
	*status = -1;
	for (int rep = 0; rep < 3; rep++) {
		double start = now();
		pid_t pid = fork();
		if (pid < 0)
			return INFINITY;
		if (pid == 0) {
			/* The extrapolation warnings are expected. */
			if (!freopen("/dev/null", "w", stderr))
				_exit(127);
			execl(cli, cli, "calibrate", HEADALLOC_RUNS_FILE, "--budget",
			      "4096", "--samples", "1e10", "--compare", "--output",
			      "/dev/null", (char *)NULL);
			_exit(127);
		}
		int st;
		if (waitpid(pid, &st, 0) < 0)
			return INFINITY;
		double dt = now() - start;
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (dt < best)
			best = dt;
	}
	return best;
}

static struct calibration_times time_calibration(const char *cli)
{
	struct calibration_times out = {0};
	struct ha_run *runs = NULL;
	struct ha_error err;
	if (ha_runs_read_file(HEADALLOC_RUNS_FILE, HA_RUNS_AUTO, &runs, &out.runs,
	                      &err) != HA_OK) {
		fprintf(stderr, "headalloc-bench: %s: %s\n", HEADALLOC_RUNS_FILE,
		        err.message);
		return out;
	}
	out.ran = 1;
	out.seeds = time_law(runs, out.runs, 0, 0, NULL);
	out.seeds_compare = time_law(runs, out.runs, 0, 1, NULL);
	out.four = time_law(runs, out.runs, 1, 0, &out.unconverged);
	out.four_compare = time_law(runs, out.runs, 1, 1, NULL);
	out.cli = time_cli_calibration(cli, &out.cli_status);
	free(runs);
	return out;
}

int main(int argc, char **argv)
{
	int quick = 0, yaml = 0, sweeps_only = 0;
	const char *cli = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--sweeps-only") == 0)
			sweeps_only = 1;
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			yaml = strcmp(argv[++i], "yaml") == 0;
		else if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc)
			cli = argv[++i];
		else {
			fprintf(stderr, "usage: headalloc-bench [--quick] [--sweeps-only] "
			        "[--format text|yaml] [--cli PATH]\n");
			return 2;
		}
	}
	static char default_cli[4096];
	if (!cli) {
		/* The CLI built beside this program: ../src/cli/headalloc. */
		ssize_t len = readlink("/proc/self/exe", default_cli, sizeof default_cli - 64);
		if (len > 0) {
			default_cli[len] = '\0';
			char *slash = strrchr(default_cli, '/');
			if (slash)
				strcpy(slash, "/../src/cli/headalloc");
		}
		cli = default_cli;
	}
	if (sweeps_only) {
		struct sweep_bench sweeps;
		sweep_bench_run(&sweeps, cli, quick);
		if (yaml) {
			printf("---\n");
			sweep_bench_print_yaml(&sweeps);
		} else {
			printf("headalloc %s benchmark%s: the sweeps only\n", ha_version(),
			       quick ? " (quick)" : "");
			sweep_bench_print_text(&sweeps);
		}
		return 0;
	}
	double min_seconds = quick ? 0.2 : 1.0;

	/* Random problems, D <= 65,536, n log-uniform in [1e3, 1e15]. */
	enum { BUDGETS = 64, PROBLEMS = 4096 };
	struct ha_solver *solvers[BUDGETS];
	uint64_t budgets[BUDGETS];
	for (size_t i = 0; i < BUDGETS; i++) {
		budgets[i] = 1 + next_random() % 65536;
		if (ha_solver_new(budgets[i], NULL, &solvers[i]) != HA_OK)
			return 1;
	}
	struct problem *problems = malloc(PROBLEMS * sizeof *problems);
	for (size_t i = 0; i < PROBLEMS; i++) {
		size_t k = next_random() % BUDGETS;
		problems[i].budget = budgets[k];
		problems[i].solver = solvers[k];
		problems[i].model = ha_model_defaults();
		problems[i].samples = exp(uniform(log(1e3), log(1e15)));
	}
	/* The methods must agree before their speeds mean anything. */
	for (size_t i = 0; i < PROBLEMS; i++) {
		struct ha_allocation a;
		ha_solver_solve_integer(problems[i].solver, &problems[i].model,
		                        problems[i].samples, &a, NULL);
		if (a.head_dim != brute_force(&problems[i]) || a.head_dim != naive(&problems[i])) {
			fprintf(stderr, "headalloc-bench: methods disagree on D=%" PRIu64 "\n",
			        problems[i].budget);
			return 1;
		}
	}

	struct rate rates[5];
	rates[0] = measure("brute force (every divisor)", BRUTE_FORCE, problems, PROBLEMS, min_seconds);
	rates[1] = measure("naive (every integer 1..D)", NAIVE, problems, quick ? 256 : 1024, min_seconds);
	rates[2] = measure("shipped, integer optimum", SHIPPED_INTEGER, problems, PROBLEMS, min_seconds);
	rates[3] = measure("shipped, full point (+ relaxed)", SHIPPED_FULL, problems, PROBLEMS, min_seconds);
	rates[4] = measure("shipped, from scratch (+ factorise)", FROM_SCRATCH, problems, PROBLEMS, min_seconds);

	/* Divisor enumeration of hard budgets. */
	enum { HARD = 20 };
	struct rich top[HARD];
	memset(top, 0, sizeof top);
	search_rich(top, HARD, 0, 64, 1, 1);
	uint64_t rich_values[HARD], semiprimes[HARD];
	for (size_t i = 0; i < HARD; i++) {
		rich_values[i] = top[i].value;
		uint64_t p = random_prime(UINT64_C(2000000000), UINT64_C(3037000499));
		uint64_t q = random_prime(UINT64_C(2000000000), HA_BUDGET_MAX / p);
		semiprimes[i] = p * q;
	}
	struct enumeration_times rich_t = time_divisors(rich_values, HARD);
	struct enumeration_times semi_t = time_divisors(semiprimes, HARD);

	struct calibration_times cal = time_calibration(cli);

	/* Formatting the doubles a report prints: magnitudes log-uniform over
	 * [1e-12, 1e16], either sign. */
	enum { FORMAT_VALUES = 4096 };
	static double format_values[FORMAT_VALUES];
	for (size_t i = 0; i < FORMAT_VALUES; i++)
		format_values[i] = (next_random() & 1 ? -1.0 : 1.0) *
		                   exp(uniform(log(1e-12), log(1e16)));
	struct format_figures fmt = time_formatting(format_values, FORMAT_VALUES, min_seconds);
	if (!fmt.agree) {
		fprintf(stderr, "headalloc-bench: the double formatters disagree\n");
		return 1;
	}
	struct sweep_bench sweeps;
	sweep_bench_run(&sweeps, cli, quick);

	for (size_t i = 0; i < BUDGETS; i++)
		ha_solver_free(solvers[i]);
	free(problems);

	if (yaml) {
		printf("---\nsolver:\n");
		for (size_t i = 0; i < 5; i++)
			printf("- {method: \"%s\", per_second: %.6g, vs_brute_force: %.4g, "
			       "calls: %zu, seconds: %.4g}\n", rates[i].name,
			       rates[i].per_second,
			       rates[i].per_second / rates[0].per_second,
			       rates[i].count, rates[i].seconds);
		printf("divisors:\n"
		       "  rich: {count: %d, most_divisors: %" PRIu64 ", worst_ms: %.4g, "
		       "median_ms: %.4g, worst_budget: %" PRIu64 "}\n"
		       "  semiprimes: {count: %d, worst_ms: %.4g, median_ms: %.4g, "
		       "worst_budget: %" PRIu64 "}\n",
		       HARD, top[0].divisors, 1e3 * rich_t.worst, 1e3 * rich_t.median,
		       rich_t.worst_budget, HARD, 1e3 * semi_t.worst,
		       1e3 * semi_t.median, semi_t.worst_budget);
		printf("format_double: {values: %zu, snprintf_strtod_ns: %.4g, "
		       "ha_format_double_ns: %.4g, speedup: %.4g}\n", fmt.values,
		       fmt.old_ns, fmt.new_ns, fmt.old_ns / fmt.new_ns);
		printf("calibration: {file: \"%s\", ran: %s, runs: %zu, resamples: 1000, "
		       "seconds: %.4g, seconds_with_comparison: %.4g, "
		       "seconds_four_free: %.4g, seconds_four_free_with_comparison: "
		       "%.4g, cli_seconds: %.4g, cli_exit_status: %d, "
		       "unconverged: %zu}\n", HEADALLOC_RUNS_FILE,
		       cal.ran ? "true" : "false", cal.runs, cal.seeds,
		       cal.seeds_compare, cal.four, cal.four_compare, cal.cli,
		       cal.cli_status, cal.unconverged);
		sweep_bench_print_yaml(&sweeps);
		return 0;
	}
	printf("headalloc %s benchmark%s: %d random (D <= 65536, n in [1e3, 1e15]) problems\n\n",
	       ha_version(), quick ? " (quick)" : "", PROBLEMS);
	printf("%-38s %14s %14s\n", "method", "per second", "vs brute force");
	for (size_t i = 0; i < 5; i++)
		printf("%-38s %14.4g %13.3gx\n", rates[i].name, rates[i].per_second,
		       rates[i].per_second / rates[0].per_second);
	printf("\ndivisor enumeration (best of 5 runs each):\n");
	printf("  20 most divisor-rich D < 2^63 (up to %" PRIu64 " divisors): worst %.3f ms (D = %" PRIu64 "), median %.3f ms\n",
	       top[0].divisors, 1e3 * rich_t.worst, rich_t.worst_budget, 1e3 * rich_t.median);
	printf("  20 semiprimes near 2^63:                          worst %.3f ms (D = %" PRIu64 "), median %.3f ms\n",
	       1e3 * semi_t.worst, semi_t.worst_budget, 1e3 * semi_t.median);
	sweep_bench_print_text(&sweeps);
	printf("\nformatting %zu doubles (|x| log-uniform in [1e-12, 1e16]), ns per value:\n",
	       fmt.values);
	printf("  snprintf %%.16g + strtod (the old ha_format_double): %8.1f\n", fmt.old_ns);
	printf("  ha_format_double:                                  %8.1f  (%.1fx faster)\n",
	       fmt.new_ns, fmt.old_ns / fmt.new_ns);
	if (!cal.ran) {
		printf("\ncalibration: did not run (%s unreadable)\n", HEADALLOC_RUNS_FILE);
		return 0;
	}
	printf("\ncalibration of the %zu runs of %s, B = 1000, target D = 4096, "
	       "n = 1e10 (best of 3):\n", cal.runs, HEADALLOC_RUNS_FILE);
	printf("  E, c_b, c_v free (the CLI's default): %.3f s; with the comparison "
	       "of laws: %.3f s\n", cal.seeds, cal.seeds_compare);
	printf("  E, c_b, s, c_v free:                  %.3f s; with the comparison "
	       "of laws: %.3f s (%zu refits unconverged)\n", cal.four,
	       cal.four_compare, cal.unconverged);
	if (cal.cli_status == 0)
		printf("  headalloc calibrate FILE --budget 4096 --samples 1e10 --compare, "
		       "end to end: %.3f s\n", cal.cli);
	else
		printf("  the CLI did not run (%s exited %d)\n", cli, cal.cli_status);
	return 0;
}
