#define _DEFAULT_SOURCE /* wait4, popen */
/* headalloc-bench's sweep section: see sweep_bench.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

#include "sweep_bench.h"
#include "alloc/solver_internal.h"

#ifndef HA_BENCH_DIR
#define HA_BENCH_DIR "bench"
#endif

/* The sweep of every figure: n log-spaced in [1e4, 1e12], as the CLI's
 * --samples 1e4:1e12:POINTS; D = 512, or these four. */
#define FROM 1e4
#define TO 1e12
#define FOUR_BUDGETS "512,768,1024,4096"

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* In-process rates are per second of this process's CPU time, as the
 * SciPy loop's are (time.process_time): on a shared machine the wall
 * clock also counts the other processes' turns. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static volatile double sweep_sink;

/* Integer and relaxed optimum of every point of a sweep, no output,
 * through the public API (ha_solver_solve_integer, without the table's
 * memo of logarithms; one thread). */
static double solve_rate(size_t points)
{
	struct ha_solver *s;
	struct ha_relaxed_solver *w;
	if (ha_solver_new(512, NULL, &s) != HA_OK)
		return 0;
	if (ha_relaxed_solver_new(s, &w) != HA_OK) {
		ha_solver_free(s);
		return 0;
	}
	struct ha_model m = ha_model_defaults();
	struct ha_samples range = {NULL, points, FROM, TO};
	double start = cpu_now();
	for (size_t i = 0; i < points; i++) {
		struct ha_allocation a;
		struct ha_relaxed r;
		double n = ha_samples_value(&range, i);
		ha_solver_solve_integer(s, &m, n, &a, NULL);
		ha_relaxed_solver_solve(w, &m, n, &r);
		sweep_sink += r.head_dim + (double)a.head_dim;
	}
	double elapsed = cpu_now() - start;
	ha_relaxed_solver_free(w);
	ha_solver_free(s);
	return (double)points / elapsed;
}

/* The table of a sweep of `points` values of n over `budgets` budgets
 * (512, or the four) into /dev/null, through the library: rows per CPU
 * second into *cpu_rate, per wall second into *wall_rate. */
static enum ha_status table_run(size_t points, size_t budgets,
                                enum ha_report_format format, double *cpu_rate,
                                double *wall_rate)
{
	static const uint64_t four[4] = {512, 768, 1024, 4096};
	*cpu_rate = *wall_rate = 0;
	FILE *f = fopen("/dev/null", "w");
	if (!f)
		return HA_EIO;
	struct ha_report *r;
	struct ha_model m = ha_model_defaults();
	double start = cpu_now(), wall = seconds_now();
	enum ha_status st = ha_report_new(f, format, &r);
	if (st == HA_OK) {
		struct ha_sweep_request problem = {
			.model = &m, .budgets = four, .budget_count = budgets,
			.samples = {NULL, points, FROM, TO},
			.threads = 1}; /* per CPU second: the calling thread alone */
		struct ha_sweep_result *result = NULL;
		if (ha_sweep_run(&problem, NULL, &result, NULL) == HA_OK)
			ha_report_table(r, &(struct ha_table_request){.result = result}, NULL);
		ha_sweep_result_free(result);
		st = ha_report_end(r);
		ha_report_free(r);
	}
	double elapsed = cpu_now() - start;
	wall = seconds_now() - wall;
	fclose(f);
	if (st == HA_OK) {
		*cpu_rate = (double)(points * budgets) / elapsed;
		*wall_rate = (double)(points * budgets) / wall;
	}
	return st;
}

/* Fill a run's figures from a child's exit and resources. */
static void finish_run(struct sweep_run *run, double start, int status,
                       const struct rusage *usage)
{
	struct sweep_run r = *run;
	r.seconds = seconds_now() - start;
	r.ran = 1;
	r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r.peak_rss_mb = (double)usage->ru_maxrss / 1024.0;
	r.cpu_seconds = (double)usage->ru_utime.tv_sec + 1e-6 * (double)usage->ru_utime.tv_usec +
	                (double)usage->ru_stime.tv_sec + 1e-6 * (double)usage->ru_stime.tv_usec;
	r.rows_per_second = (double)(r.points * r.budgets) / r.seconds;
	r.rows_per_cpu_second = (double)(r.points * r.budgets) / r.cpu_seconds;
	/* The best of the runs: least wall, least CPU, largest RSS. */
	if (run->ran && run->exit_status == 0 && r.exit_status == 0) {
		if (run->seconds < r.seconds) {
			r.seconds = run->seconds;
			r.rows_per_second = run->rows_per_second;
		}
		if (run->cpu_seconds < r.cpu_seconds) {
			r.cpu_seconds = run->cpu_seconds;
			r.rows_per_cpu_second = run->rows_per_cpu_second;
		}
		if (run->peak_rss_mb > r.peak_rss_mb)
			r.peak_rss_mb = run->peak_rss_mb;
	}
	*run = r;
}

/* The CLI on a long sweep, stdout to /dev/null: times and peak RSS from
 * wait4(). */
static void run_cli(struct sweep_run *run, const char *cli)
{
	char spec[64];
	snprintf(spec, sizeof spec, "%g:%g:%zu", FROM, TO, run->points);
	const char *budgets = run->budgets == 1 ? "512" : FOUR_BUDGETS;
	double start = seconds_now();
	pid_t pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(cli, cli, "--budget", budgets, "--samples", spec, "--format",
		      run->format, (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage usage;
	if (wait4(pid, &status, 0, &usage) < 0)
		return;
	finish_run(run, start, status, &usage);
}

/* The library's table in a child process (so that its peak RSS is its
 * own): the four budgets, YAML. */
static void run_library(struct sweep_run *run)
{
	double start = seconds_now();
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		double cpu, wall;
		_exit(table_run(run->points, run->budgets, HA_FORMAT_YAML, &cpu,
		                &wall) == HA_OK ? 0 : 1);
	}
	int status;
	struct rusage usage;
	if (wait4(pid, &status, 0, &usage) < 0)
		return;
	finish_run(run, start, status, &usage);
}

/* Check the SciPy loop's answers ("n d x" lines) against headalloc's. */
static void check_scipy(struct sweep_bench *b, FILE *p)
{
	struct ha_solver *s;
	if (ha_solver_new(512, NULL, &s) != HA_OK)
		return;
	double n, x;
	unsigned long long d;
	size_t checked = 0;
	b->scipy_agree = 1;
	while (fscanf(p, "%lf %llu %lf", &n, &d, &x) == 3) {
		struct ha_model m = ha_model_defaults();
		struct ha_solution sol;
		if (ha_solver_solve(s, &m, n, &sol) != HA_OK || sol.optimum.head_dim != d)
			b->scipy_agree = 0;
		double diff = fabs(x - sol.relaxed.head_dim) / sol.relaxed.head_dim;
		if (diff > b->scipy_max_rel_diff)
			b->scipy_max_rel_diff = diff;
		checked++;
	}
	if (checked == 0 || b->scipy_max_rel_diff > 1e-9)
		b->scipy_agree = 0;
	ha_solver_free(s);
}

/* The naive per-point minimize_scalar loop, under the Python that ran
 * the SciPy loop (its answers unchecked: a bounded Brent search on a
 * flat minimum resolves x* to ~1e-8 only). */
static void run_naive(struct sweep_bench *b, const char *python, size_t points)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "'%s' '%s/scipy_sweep.py' 512 %g %g %zu 0 minimize_scalar 2>&1",
	         python, HA_BENCH_DIR, FROM, TO, points);
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	char line[256] = "";
	double rate = 0, seconds = 0;
	int got = fgets(line, sizeof line, p) &&
	          sscanf(line, "rate %lf %lf", &rate, &seconds) == 2;
	int status = pclose(p);
	if (got && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		b->naive_points = points;
		b->naive_per_second = rate;
	}
}

/* Run bench/scipy_sweep.py under the first Python that has SciPy. */
static void run_scipy(struct sweep_bench *b, size_t points)
{
	const char *env = getenv("PYTHON");
	const char *pythons[] = {env && *env ? env : "python3", "python3",
	                         "/usr/bin/python3"};
	snprintf(b->scipy_note, sizeof b->scipy_note, "no python3 found");
	for (size_t k = 0; k < sizeof pythons / sizeof *pythons; k++) {
		if (k > 0 && strcmp(pythons[k], pythons[k - 1]) == 0)
			continue;
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "'%s' '%s/scipy_sweep.py' 512 %g %g %zu 8 2>&1",
		         pythons[k], HA_BENCH_DIR, FROM, TO, points);
		FILE *p = popen(cmd, "r");
		if (!p)
			continue;
		char line[256] = "";
		double rate = 0, seconds = 0;
		int got = fgets(line, sizeof line, p) &&
		          sscanf(line, "rate %lf %lf", &rate, &seconds) == 2;
		if (got)
			check_scipy(b, p);
		int status = pclose(p);
		if (got && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			b->scipy_ran = 1;
			b->scipy_points = points;
			b->scipy_per_second = rate;
			snprintf(b->scipy_note, sizeof b->scipy_note, "%s", pythons[k]);
			run_naive(b, pythons[k], points / 4);
			return;
		}
		/* Say why the last candidate could not run it. */
		line[strcspn(line, "\n")] = '\0';
		if (*line)
			snprintf(b->scipy_note, sizeof b->scipy_note, "%s: %s", pythons[k], line);
	}
}

void sweep_bench_run(struct sweep_bench *b, const char *cli, int quick)
{
	memset(b, 0, sizeof *b);
	b->points = quick ? 100000 : 1000000;
	b->repeats = quick ? 1 : 3;
	b->in_process_points = quick ? 20000 : 200000;
	b->solve_per_second = solve_rate(b->in_process_points);
	table_run(b->in_process_points, 1, HA_FORMAT_YAML, &b->yaml_per_second,
	          &b->yaml_per_wall_second);
	table_run(b->in_process_points, 1, HA_FORMAT_TEXT, &b->text_per_second,
	          &b->text_per_wall_second);
	const char *formats[] = {"yaml", "yaml", "text", "text"};
	for (size_t i = 0; i < 4; i++) {
		struct sweep_run *r = &b->cli[i];
		r->format = formats[i];
		r->budgets = i % 2 ? 4 : 1;
		/* The CLI makes at most 10^6 rows. */
		r->points = b->points / r->budgets;
		r->exit_status = -1;
		for (size_t k = 0; k < b->repeats; k++)
			run_cli(r, cli);
	}
	/* A sweep's result holds at most HA_SWEEP_MAX_ROWS rows. */
	b->four_full = (struct sweep_run){.format = "yaml", .budgets = 4,
	                                  .points = HA_SWEEP_MAX_ROWS / 4,
	                                  .exit_status = -1};
	run_library(&b->four_full);
	run_scipy(b, quick ? 5000 : 20000);
}

static void print_run_text(const struct sweep_run *r)
{
	if (r->ran && r->exit_status == 0)
		printf("%.3f s wall, %.3f s CPU, %.4g rows/s (%.4g rows/CPU s), "
		       "peak RSS %.1f MB\n", r->seconds, r->cpu_seconds,
		       r->rows_per_second, r->rows_per_cpu_second, r->peak_rss_mb);
	else
		printf("did not run (exit %d)\n", r->exit_status);
}

void sweep_bench_print_text(const struct sweep_bench *b)
{
	printf("\nsweeps (n log-spaced in [1e4, 1e12], D = 512; four budgets: %s):\n",
	       FOUR_BUDGETS);
	printf("  in process, %zu points: solve only (public API) %.4g points/CPU s; YAML table "
	       "%.4g rows/CPU s, %.4g rows/wall s; text table %.4g rows/CPU s, "
	       "%.4g rows/wall s\n", b->in_process_points, b->solve_per_second,
	       b->yaml_per_second, b->yaml_per_wall_second, b->text_per_second,
	       b->text_per_wall_second);
	for (size_t i = 0; i < 4; i++) {
		const struct sweep_run *r = &b->cli[i];
		printf("  CLI, %zu budget%s x %zu points, %-4s (best of %zu): ", r->budgets,
		       r->budgets == 1 ? " " : "s", r->points, r->format, b->repeats);
		print_run_text(r);
	}
	printf("  library, 4 budgets x %zu points, yaml: ", b->four_full.points);
	print_run_text(&b->four_full);
	if (!b->scipy_ran) {
		printf("  SciPy/NumPy loop: skipped (%s)\n", b->scipy_note);
		return;
	}
	printf("  SciPy/NumPy loop (%s), %zu points: %.4g points/CPU s; headalloc per "
	       "CPU s %.3gx (solve only), %.3gx (YAML table); per wall s %.3gx (YAML "
	       "table, its threads); answers %s (x* within %.2g)\n",
	       b->scipy_note, b->scipy_points, b->scipy_per_second,
	       b->solve_per_second / b->scipy_per_second,
	       b->yaml_per_second / b->scipy_per_second,
	       b->yaml_per_wall_second / b->scipy_per_second,
	       b->scipy_agree ? "agree" : "DISAGREE", b->scipy_max_rel_diff);
	if (b->naive_points)
		printf("  naive minimize_scalar loop, %zu points: %.4g points/CPU s; "
		       "headalloc per CPU s %.3gx (solve only), %.3gx (YAML table)\n",
		       b->naive_points, b->naive_per_second,
		       b->solve_per_second / b->naive_per_second,
		       b->yaml_per_second / b->naive_per_second);
}

static void print_run_yaml(const struct sweep_run *r)
{
	printf("{format: %s, budgets: %zu, points: %zu, ran: %s, exit_status: %d, "
	       "seconds: %.4g, cpu_seconds: %.4g, rows_per_second: %.6g, "
	       "rows_per_cpu_second: %.6g, peak_rss_mb: %.4g}\n", r->format,
	       r->budgets, r->points, r->ran ? "true" : "false", r->exit_status,
	       r->seconds, r->cpu_seconds, r->rows_per_second,
	       r->rows_per_cpu_second, r->peak_rss_mb);
}

void sweep_bench_print_yaml(const struct sweep_bench *b)
{
	printf("sweeps:\n  in_process: {points: %zu, solve_per_second: %.6g, "
	       "yaml_rows_per_second: %.6g, yaml_rows_per_wall_second: %.6g, "
	       "text_rows_per_second: %.6g, text_rows_per_wall_second: %.6g}\n",
	       b->in_process_points, b->solve_per_second, b->yaml_per_second,
	       b->yaml_per_wall_second, b->text_per_second, b->text_per_wall_second);
	printf("  repeats: %zu\n  whole_process:\n", b->repeats);
	for (size_t i = 0; i < 4; i++) {
		printf("  - ");
		print_run_yaml(&b->cli[i]);
	}
	printf("  library_four_budgets: ");
	print_run_yaml(&b->four_full);
	if (!b->scipy_ran) {
		printf("  scipy: {ran: false, note: \"%s\"}\n", b->scipy_note);
		return;
	}
	printf("  scipy: {ran: true, python: \"%s\", points: %zu, per_second: %.6g, "
	       "solve_ratio: %.4g, yaml_ratio: %.4g, yaml_wall_ratio: %.4g, "
	       "agree: %s, max_rel_diff: %.3g}\n",
	       b->scipy_note, b->scipy_points, b->scipy_per_second,
	       b->solve_per_second / b->scipy_per_second,
	       b->yaml_per_second / b->scipy_per_second,
	       b->yaml_per_wall_second / b->scipy_per_second,
	       b->scipy_agree ? "true" : "false", b->scipy_max_rel_diff);
	if (b->naive_points)
		printf("  naive_minimize_scalar: {points: %zu, per_second: %.6g, "
		       "solve_ratio: %.4g, yaml_ratio: %.4g}\n", b->naive_points,
		       b->naive_per_second, b->solve_per_second / b->naive_per_second,
		       b->yaml_per_second / b->naive_per_second);
}
