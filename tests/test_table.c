/* The sweep table's own machinery (report_table*.c, the sweep's journal
 * and pool): rows written past the emitter must be the bytes the emitter
 * writes, on any number of threads, and the fits' second pass must give
 * the same report whether it reads the rows back from memory or from a
 * temporary file; progress counts every row.  The
 * numbers themselves are checked in test_report.c, the way the table
 * spells them in test_table_numbers.c. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "sweep_table.h"
#include "test_random.h"

#include "report/report_internal.h"

/* A sweep: the model, the constraints, the budgets and the values of n. */
struct sweep {
	struct ha_model model;
	struct ha_constraints constraints;
	uint64_t budgets[4];
	size_t budget_count;
	double *samples;
	size_t sample_count;
};

/* The table of k, alone in a report, into a new string, by `threads`
 * threads (0: one per online processor). */
static char *render_threads(const struct sweep *k, enum ha_report_format format,
                            size_t threads)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_report *r;
	struct ha_error err;
	cr_assert_eq(ha_report_new(f, format, &r), HA_OK);
	enum ha_status st = sweep_table(r, (struct ha_sweep_request){
		.model = &k->model,
		.constraints = &k->constraints,
		.budgets = k->budgets,
		.budget_count = k->budget_count,
		.samples = {.values = k->samples, .count = k->sample_count},
		.threads = threads,
	}, &err);
	cr_assert_eq(st, HA_OK, "%s", err.message);
	cr_assert_eq(ha_report_end(r), HA_OK);
	ha_report_free(r);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* On the calling thread alone (threads_write_the_bytes_of_one_thread
 * compares the others with it). */
static char *render_table(const struct sweep *k, enum ha_report_format format)
{
	return render_threads(k, format, 1);
}

/* The same rows, every one through the emitter (each point solved by a
 * fresh one-shot solve), up to the key that follows the table. */
static char *emitted_rows(const struct sweep *k)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_yaml_writer *w;
	cr_assert_eq(ha_yaml_writer_new(f, &w), HA_OK);
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "table");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < k->sample_count; i++) {
		struct ha_model m = k->model;
		double n_samples = k->samples[i];
		for (size_t b = 0; b < k->budget_count; b++) {
			struct ha_solution s;
			cr_assert_eq(ha_solve(k->budgets[b], &k->constraints, &m, n_samples, &s), HA_OK);
			ha_yaml_begin_map(w, 1);
			ha_yaml_key(w, "budget");
			ha_yaml_uint(w, s.budget);
			ha_yaml_key(w, "samples");
			ha_yaml_double(w, n_samples);
			ha_yaml_key(w, "heads");
			ha_yaml_uint(w, s.optimum.heads);
			ha_yaml_key(w, "head_dim");
			ha_yaml_uint(w, s.optimum.head_dim);
			ha_yaml_key(w, "mse");
			ha_yaml_double(w, s.optimum.terms.mse);
			ha_yaml_key(w, "log10_mse");
			ha_yaml_double(w, s.optimum.terms.log_mse / log(10.0));
			ha_yaml_key(w, "relaxed_head_dim");
			ha_yaml_double(w, s.relaxed.head_dim);
			ha_yaml_key(w, "relaxed_heads");
			ha_yaml_double(w, s.relaxed.heads);
			ha_yaml_end_map(w);
		}
	}
	ha_yaml_end_seq(w);
	ha_yaml_key(w, "fits");
	ha_yaml_null(w);
	ha_yaml_end_map(w);
	cr_assert_eq(ha_yaml_writer_end(w), HA_OK);
	ha_yaml_writer_free(w);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* Cut text at its line "fits:..." (the table ends before it). */
static void cut_at_fits(char *text)
{
	char *fits = strstr(text, "\nfits:");
	cr_assert_not_null(fits, "no fits after the table: %.200s", text);
	fits[1] = '\0';
}

static void random_sweep(uint64_t *rng, struct sweep *k)
{
	static const uint64_t special[] = {
		1, 2, 512, 4544, UINT64_C(9223372036854775807),
		UINT64_C(897612484786617600), UINT64_C(4611686018427387904),
	};
	memset(k, 0, sizeof *k);
	k->model = ha_model_defaults();
	if (next_random(rng) % 2) {
		k->model.smoothness = log_uniform(rng, 0.05, 8);
		k->model.bias_coef = log_uniform(rng, 1e-6, 1e6);
		k->model.var_coef = log_uniform(rng, 1e-6, 1e6);
		k->model.hdi = uniform(rng, 0, 1);
	}
	k->budget_count = 1 + next_random(rng) % 3;
	for (size_t b = 0; b < k->budget_count; b++)
		k->budgets[b] = next_random(rng) % 3 == 0
			? special[next_random(rng) % (sizeof special / sizeof *special)]
			: 1 + next_random(rng) % 100000;
	/* Sometimes head dimensions so large that the error is beyond a
	 * double (.inf). */
	uint64_t r = next_random(rng) % 6;
	if (r < 2)
		k->constraints.min_head_dim = 1 + next_random(rng) % 8;
	else if (r == 2)
		k->constraints.min_head_dim = 600 + next_random(rng) % 2000;
	if (next_random(rng) % 3 == 0)
		k->constraints.min_heads = 1;
	k->sample_count = 1 + next_random(rng) % 400;
	k->samples = malloc(k->sample_count * sizeof *k->samples);
	cr_assert_not_null(k->samples);
	/* A log-spaced sweep or scattered values, down to n near 1 (huge
	 * errors) and up to 1e300 (.inf-free but 17-digit numbers). */
	double from = log_uniform(rng, 1.0001, 1e200), to = log_uniform(rng, 1.0001, 1e300);
	int scattered = next_random(rng) % 2;
	for (size_t i = 0; i < k->sample_count; i++)
		k->samples[i] = scattered ? log_uniform(rng, 1.0001, 1e300)
		              : k->sample_count == 1 ? from
		              : exp(log(from) + (log(to) - log(from)) * (double)i /
		                                 (double)(k->sample_count - 1));
}

/* Random sweeps: the table's rows are byte for byte those the emitter
 * writes for the same solutions. */
Test(table, rows_are_the_bytes_the_emitter_writes, .timeout = 600)
{
	uint64_t rng = 424242;
	size_t rows = 0;
	int with_inf = 0;
	for (int c = 0; c < 60; c++) {
		struct sweep k;
		random_sweep(&rng, &k);
		struct ha_solver *s;
		int feasible = 1;
		for (size_t b = 0; b < k.budget_count && feasible; b++) {
			feasible = ha_solver_new(k.budgets[b], &k.constraints, &s) == HA_OK;
			ha_solver_free(s);
		}
		if (!feasible) {
			free(k.samples);
			continue;
		}
		char *got = render_table(&k, HA_FORMAT_YAML);
		char *want = emitted_rows(&k);
		cut_at_fits(got);
		cut_at_fits(want);
		cr_assert_str_eq(got, want);
		rows += k.sample_count * k.budget_count;
		with_inf += strstr(got, ".inf") != NULL;
		free(got);
		free(want);
		free(k.samples);
	}
	cr_assert_gt(rows, 10000);
	cr_assert_gt(with_inf, 0, "some error beyond a double (.inf) came up");
}

/* A table of n log-spaced values of n in [1e4, 1e12] for three budgets. */
static struct sweep long_sweep(size_t n)
{
	struct sweep k;
	memset(&k, 0, sizeof k);
	k.model = ha_model_defaults();
	k.budgets[0] = 512;
	k.budgets[1] = 768;
	k.budgets[2] = 4096;
	k.budget_count = 3;
	k.sample_count = n;
	k.samples = malloc(n * sizeof *k.samples);
	cr_assert_not_null(k.samples);
	for (size_t i = 0; i < n; i++)
		k.samples[i] = exp(log(1e4) + (log(1e12) - log(1e4)) * (double)i /
		                                  (double)(n - 1));
	return k;
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Past a megabyte of kept values the journal is a temporary file in
 * $TMPDIR, removed at once; where none can be made it is kept in memory.
 * Both give the same report, in both formats, to the byte. */
Test(table, a_long_table_reads_its_fits_back_or_solves_again_alike,
     .timeout = 600)
{
	struct sweep k = long_sweep(43691);
	char dir[] = "/tmp/headalloc-test-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(setenv("TMPDIR", dir, 1), 0);
	char *from_file = render_table(&k, HA_FORMAT_YAML);
	char *from_file_text = render_table(&k, HA_FORMAT_TEXT);
	cr_assert_eq(entries(dir), 0, "the journal leaves no file behind");
	cr_assert_eq(rmdir(dir), 0);

	/* The directory is gone: no temporary file can be made. */
	char *solved = render_table(&k, HA_FORMAT_YAML);
	char *solved_text = render_table(&k, HA_FORMAT_TEXT);
	cr_assert(strcmp(from_file, solved) == 0, "YAML differs");
	cr_assert(strcmp(from_file_text, solved_text) == 0, "text differs");
	/* The per-n fits of all 43,691 values of n are there. */
	size_t fits = 0;
	for (const char *p = from_file; (p = strstr(p, "\n    heads_law:\n")); p++)
		fits++;
	cr_assert_eq(fits, 43691);
	free(from_file);
	free(from_file_text);
	free(solved);
	free(solved_text);
	free(k.samples);
}

/* A stream that fills up while rows go past the emitter: HA_EIO, sticky. */
Test(table, a_stream_full_among_the_rows_gives_eio)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	cr_assert_not_null(f);
	struct sweep k = long_sweep(1000);
	struct ha_report *r;
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	struct ha_error err;
	enum ha_status st = sweep_table(r, (struct ha_sweep_request){
		.model = &k.model,
		.budgets = k.budgets,
		.budget_count = k.budget_count,
		.samples = {.values = k.samples, .count = k.sample_count},
	}, &err);
	cr_assert_eq(st, HA_EIO);
	cr_assert_eq(err.status, HA_EIO);
	cr_assert_eq(ha_report_end(r), HA_EIO);
	ha_report_free(r);
	fclose(f);
	free(k.samples);
}

/* Sweeps long enough for the worker threads (rows and per-n fits): the
 * same bytes from one thread, from three and from every online processor,
 * in both formats. */
Test(table, threads_write_the_bytes_of_one_thread, .timeout = 600)
{
	uint64_t rng = 7;
	size_t threaded = 0;
	for (int c = 0; c < 10; c++) {
		struct sweep k;
		random_sweep(&rng, &k);
		free(k.samples);
		k.budget_count = 1 + (size_t)c % 4;
		for (size_t b = 0; b < k.budget_count; b++)
			k.budgets[b] = c % 3 == 0 ? (uint64_t)512 << b
			                           : 1 + next_random(&rng) % 100000;
		k.constraints = (struct ha_constraints){0, 0, 0, 0, 0};
		k.sample_count = 2100 + next_random(&rng) % 3000;
		k.samples = malloc(k.sample_count * sizeof *k.samples);
		cr_assert_not_null(k.samples);
		double from = log_uniform(&rng, 1.0001, 1e100);
		double to = from * log_uniform(&rng, 1, 1e100);
		for (size_t i = 0; i < k.sample_count; i++)
			k.samples[i] = c % 2 ? log_uniform(&rng, 1.0001, 1e300)
			             : exp(log(from) + (log(to) - log(from)) * (double)i /
			                                (double)(k.sample_count - 1));
		for (int format = 0; format < 2; format++) {
			enum ha_report_format f = format ? HA_FORMAT_TEXT : HA_FORMAT_YAML;
			char *one = render_threads(&k, f, 1);
			char *three = render_threads(&k, f, 3);
			char *any = render_threads(&k, f, 0);
			cr_assert(strcmp(one, three) == 0, "sweep %d, %s: 3 threads differ",
			          c, format ? "text" : "yaml");
			cr_assert(strcmp(one, any) == 0, "sweep %d, %s: all online processors differ",
			          c, format ? "text" : "yaml");
			free(one);
			free(three);
			free(any);
			threaded++;
		}
		free(k.samples);
	}
	cr_assert_eq(threaded, 20);
}

/* ---- progress ---------------------------------------------------------------- */

struct rows_seen {
	uint64_t last, total, calls, stop_after;
	int ordered; /* done never fell and never passed total */
};

static int count_rows(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct rows_seen *s = ctx;
	cr_assert_str_eq(what, "rows");
	if (done < s->last || done > total)
		s->ordered = 0;
	s->last = done;
	s->total = total;
	s->calls++;
	return s->stop_after && s->calls >= s->stop_after;
}

static enum ha_status table_with_progress(size_t threads, struct rows_seen *seen)
{
	static const uint64_t budgets[] = {512, 4096};
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_report *r;
	struct ha_error err;
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	struct ha_model m = ha_model_defaults();
	struct sweep k = {.model = m, .budget_count = 2, .sample_count = 3000};
	memcpy(k.budgets, budgets, sizeof budgets);
	k.samples = malloc(k.sample_count * sizeof *k.samples);
	cr_assert_not_null(k.samples);
	for (size_t i = 0; i < k.sample_count; i++)
		k.samples[i] = exp(log(1e3) + (double)i * (log(1e12) - log(1e3)) / 2999.0);
	enum ha_status st = sweep_table_progress(r, (struct ha_sweep_request){
		.model = &k.model,
		.budgets = k.budgets,
		.budget_count = k.budget_count,
		.samples = {.values = k.samples, .count = k.sample_count},
		.threads = threads,
	}, (struct ha_progress){count_rows, seen}, &err);
	ha_report_free(r);
	fclose(f);
	free(text);
	free(k.samples);
	return st;
}

Test(table, progress_counts_every_row_in_order)
{
	for (size_t threads = 1; threads <= 4; threads += 3) {
		struct rows_seen seen = {.ordered = 1};
		cr_assert_eq(table_with_progress(threads, &seen), HA_OK);
		cr_assert(seen.ordered, "%zu threads", threads);
		cr_assert_eq(seen.total, 6000);
		cr_assert_eq(seen.last, 6000, "%zu threads: the last call has every row", threads);
		cr_assert_geq(seen.calls, 1);
	}
}

Test(table, progress_cancels_the_table)
{
	struct rows_seen seen = {.ordered = 1, .stop_after = 1};
	cr_assert_eq(table_with_progress(4, &seen), HA_ECANCELED);
	cr_assert_eq(seen.calls, 1, "not told again once it asked to stop");
	cr_assert_lt(seen.last, 6000);
}
