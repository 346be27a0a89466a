/* headalloc-bench's sweep section (issue 13): points per second of a
 * sweep in process and as a whole process, in text and YAML; the long
 * sweep's time and peak RSS for one budget and four; and the ratio to a
 * SciPy/NumPy loop doing the same per-point work, measured in the same
 * run (skipped, with the reason, when no Python with SciPy is found).
 *
 * Every time is given as CPU time (user + system, every thread) beside
 * the wall time: on a shared machine the wall clock also counts the other
 * processes' turns, and with the table's worker threads the CPU time is
 * the sum over the threads, so that wall < CPU where they overlap. */
#ifndef HEADALLOC_SWEEP_BENCH_H
#define HEADALLOC_SWEEP_BENCH_H

#include <stddef.h>

/* One timed run (the best of several: least wall time, least CPU time,
 * largest peak RSS of them). */
struct sweep_run {
	const char *format;    /* "yaml" or "text" */
	size_t budgets;        /* 1 or 4 */
	size_t points;         /* values of n */
	int ran, exit_status;
	double seconds, cpu_seconds, peak_rss_mb; /* wall; user + system */
	double rows_per_second;     /* rows / wall second */
	double rows_per_cpu_second; /* rows / CPU second */
};

struct sweep_bench {
	size_t points;            /* values of n in the long sweep */
	size_t repeats;           /* runs of each long sweep (the best counts) */
	size_t in_process_points; /* values of n of the in-process sweeps */
	double solve_per_second;  /* per CPU second: integer + relaxed optimum */
	/* The table section into /dev/null, D = 512: rows per CPU second
	 * and per wall second (the workers' threads overlap). */
	double yaml_per_second, yaml_per_wall_second;
	double text_per_second, text_per_wall_second;
	/* The CLI: 1 budget x points values of n, and 4 budgets x points/4
	 * (the CLI's limit is 10^6 rows), YAML and text. */
	struct sweep_run cli[4];
	/* The library in a child process: 4 budgets x 250,000 values of n
	 * (a sweep result's limit of 10^6 rows), YAML. */
	struct sweep_run four_full;
	int scipy_ran;            /* 0: see scipy_note */
	char scipy_note[160];
	size_t scipy_points;
	double scipy_per_second;   /* per CPU second */
	double scipy_max_rel_diff; /* of x* against headalloc's, at the checks */
	int scipy_agree;           /* integer optima equal, x* within 1e-9 */
	/* The naive loop: scipy.optimize.minimize_scalar per point (same
	 * Python); 0 when it did not run. */
	size_t naive_points;
	double naive_per_second;
};

/* Measure everything (quick: fewer points, one run each) with the CLI
 * at cli. */
void sweep_bench_run(struct sweep_bench *b, const char *cli, int quick);

/* Print the figures as text, or as YAML keys of the bench's document. */
void sweep_bench_print_text(const struct sweep_bench *b);
void sweep_bench_print_yaml(const struct sweep_bench *b);

#endif
