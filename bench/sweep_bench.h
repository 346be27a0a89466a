/* headalloc-bench's sweep section (issue 13): points per second of a
 * sweep in process and as a whole process, in text and YAML; the long
 * sweep's time and peak RSS for one budget and four; and the ratio to a
 * SciPy/NumPy loop doing the same per-point work, measured in the same
 * run (skipped, with the reason, when no Python with SciPy is found). */
#ifndef HEADALLOC_SWEEP_BENCH_H
#define HEADALLOC_SWEEP_BENCH_H

#include <stddef.h>

/* One run of the CLI on the long sweep. */
struct sweep_cli_run {
	const char *format;    /* "yaml" or "text" */
	size_t budgets;        /* 1 or 4 */
	int ran, exit_status;
	double seconds, cpu_seconds, peak_rss_mb; /* wall; user + system */
	double rows_per_second;
};

struct sweep_bench {
	size_t points;            /* values of n in the long sweep */
	size_t in_process_points; /* values of n of the in-process sweeps */
	double solve_per_second;  /* per CPU second: integer + relaxed optimum */
	double yaml_per_second;   /* the table section into /dev/null */
	double text_per_second;
	struct sweep_cli_run cli[4];
	int scipy_ran;            /* 0: see scipy_note */
	char scipy_note[160];
	size_t scipy_points;
	double scipy_per_second;
	double scipy_max_rel_diff; /* of x* against headalloc's, at the checks */
	int scipy_agree;           /* integer optima equal, x* within 1e-9 */
};

/* Measure everything (quick: fewer points) with the CLI at cli. */
void sweep_bench_run(struct sweep_bench *b, const char *cli, int quick);

/* Print the figures as text, or as YAML keys of the bench's document. */
void sweep_bench_print_text(const struct sweep_bench *b);
void sweep_bench_print_yaml(const struct sweep_bench *b);

#endif
