/* The sweep table's own machinery (report_table.c, report_journal.c):
 * rows written past the emitter must be the bytes the emitter writes, and
 * the fits' second pass must give the same report whether it reads the
 * relaxed optima back from memory, from a temporary file, or solves
 * again.  The numbers themselves are checked in test_report.c. */
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

#include "report/report_internal.h"
#include "alloc/sweep_pool.h"
#include "alloc/solver_internal.h"

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

static double uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random(state) >> 11) / 9007199254740992.0;
}

static double log_uniform(uint64_t *state, double lo, double hi)
{
	return exp(uniform(state, log(lo), log(hi)));
}

/* A sweep: the model, the constraints, the budgets and the values of n. */
struct sweep {
	struct ha_model model;
	struct ha_constraints constraints;
	uint64_t budgets[4];
	size_t budget_count;
	double *samples;
	size_t sample_count;
};

static double sample_of(const void *ctx, size_t i)
{
	return ((const struct sweep *)ctx)->samples[i];
}

/* The table of k, alone in a report, into a new string, by `threads`
 * threads (0: the default, one thread). */
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
		.samples = {k->sample_count, sample_of, k},
		.threads = threads,
	}, &err);
	cr_assert_eq(st, HA_OK, "%s", err.message);
	cr_assert_eq(ha_report_end(r), HA_OK);
	ha_report_free(r);
	cr_assert_eq(fclose(f), 0);
	return text;
}

static char *render_table(const struct sweep *k, enum ha_report_format format)
{
	return render_threads(k, format, 0);
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
		m.samples = k->samples[i];
		for (size_t b = 0; b < k->budget_count; b++) {
			struct ha_solution s;
			cr_assert_eq(ha_solve(k->budgets[b], &k->constraints, &m, &s), HA_OK);
			ha_yaml_begin_map(w, 1);
			ha_yaml_key(w, "budget");
			ha_yaml_uint(w, s.budget);
			ha_yaml_key(w, "samples");
			ha_yaml_double(w, m.samples);
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

/* Past a megabyte of relaxed optima (3 x 43,691 > 2^17 values) the
 * journal is a temporary file in $TMPDIR, removed at once; where none can
 * be made the fits solve again.  Both give the same report, in both
 * formats, to the byte. */
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
		.samples = {k.sample_count, sample_of, &k},
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
			char *any = render_threads(&k, f, HA_THREADS_ONLINE);
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

/* Threads are opt-in: a zero-initialised request solves on the calling
 * thread alone. */
Test(table, zero_threads_is_the_calling_thread)
{
	cr_assert_eq(pool_threads_for(0), 0);
	cr_assert_eq(pool_threads_for(1), 0);
	cr_assert_eq(pool_threads_for(3), 3);
	cr_assert_eq(pool_threads_for(100), POOL_MAX_THREADS);
	cr_assert_leq(pool_threads_for(HA_THREADS_ONLINE), POOL_MAX_THREADS);
}

static double random_value(uint64_t *rng)
{
	switch (next_random(rng) % 10) {
	case 0:
		return INFINITY;
	case 1:
		return -INFINITY;
	case 2:
		return NAN;
	case 3:
		return 0.0;
	case 4:
		return (double)(next_random(rng) % 1000);
	default:
		return (next_random(rng) % 2 ? -1 : 1) * log_uniform(rng, 1e-300, 1e300);
	}
}

static struct report_law_fit random_fit(uint64_t *rng)
{
	static const enum ha_status failures[] = {
		HA_EDEGENERATE, HA_ENUMERIC, HA_EINVAL, HA_ENOMEM,
	};
	struct report_law_fit f;
	memset(&f, 0, sizeof f);
	f.law = (enum report_law)(next_random(rng) % 3);
	f.status = next_random(rng) % 5 ? HA_OK : failures[next_random(rng) % 4];
	f.points = next_random(rng) % 3 ? next_random(rng) % 100 : next_random(rng);
	double *values[] = {
		&f.result.intercept, &f.result.slope, &f.result.se_intercept,
		&f.result.se_slope, &f.result.slope_low, &f.result.slope_high,
		&f.result.r2, &f.result.max_abs_residual, &f.largest_at, &f.claimed,
	};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		*values[i] = random_value(rng);
	f.result.max_residual_known = (int)(next_random(rng) % 3 != 0);
	f.largest_budget = next_random(rng) % 2 ? next_random(rng) : 512;
	return f;
}

/* A list of maps {samples, heads_law: FIT} in a map, as fits.by_samples:
 * the first item and the failed fits through the emitter, the others
 * (with raw != 0) as report_raw_fit's raw text. */
static char *fits_document(const struct report_law_fit *fits,
                           const double *samples, size_t count, int raw)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_yaml_writer *w;
	cr_assert_eq(ha_yaml_writer_new(f, &w), HA_OK);
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "fits");
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "by_samples");
	ha_yaml_begin_seq(w, 0);
	for (size_t i = 0; i < count; i++) {
		if (raw && i > 0 && fits[i].status == HA_OK) {
			char item[REPORT_RAW_FIT_MAX + 96], buf[32];
			int n = snprintf(item, sizeof item, "\n  - samples: %s\n    heads_law:",
			                 ha_yaml_double_text(samples[i], buf));
			char *end = report_raw_fit(item + n, 6, &fits[i]);
			cr_assert_not_null(end);
			cr_assert_leq((size_t)(end - item - n), REPORT_RAW_FIT_MAX);
			yaml_writer_raw(w, item, (size_t)(end - item));
			continue;
		}
		cr_assert(i == 0 || fits[i].status != HA_OK || !raw);
		if (fits[i].status != HA_OK)
			cr_assert_null(report_raw_fit(NULL, 6, &fits[i]));
		ha_yaml_begin_map(w, 0);
		ha_yaml_key(w, "samples");
		ha_yaml_double(w, samples[i]);
		ha_yaml_key(w, "heads_law");
		report_yaml_fit(w, &fits[i]);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_end_map(w);
	ha_yaml_key(w, "after");
	ha_yaml_null(w);
	ha_yaml_end_map(w);
	cr_assert_eq(ha_yaml_writer_end(w), HA_OK);
	ha_yaml_writer_free(w);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* Fits of every law with every kind of value (.inf, .nan, 0, huge,
 * tiny, unknown residuals, no claim), OK and failed ones mixed: the raw
 * text is the emitter's, byte for byte. */
Test(table, raw_fits_are_the_bytes_the_emitter_writes)
{
	uint64_t rng = 99;
	for (int c = 0; c < 200; c++) {
		enum { COUNT = 40 };
		struct report_law_fit fits[COUNT];
		double samples[COUNT];
		for (size_t i = 0; i < COUNT; i++) {
			fits[i] = random_fit(&rng);
			samples[i] = c % 2 ? random_value(&rng) : log_uniform(&rng, 1.0001, 1e300);
		}
		char *emitted = fits_document(fits, samples, COUNT, 0);
		char *raw = fits_document(fits, samples, COUNT, 1);
		cr_assert_str_eq(raw, emitted);
		free(emitted);
		free(raw);
	}
}

static struct ha_model random_model(uint64_t *rng)
{
	struct ha_model m = ha_model_defaults();
	m.samples = log_uniform(rng, 1.0001, 1e300);
	if (next_random(rng) % 4 == 0)
		return m;
	m.smoothness = log_uniform(rng, 0.05, 8);
	m.bias_coef = log_uniform(rng, 1e-6, 1e6);
	m.var_coef = log_uniform(rng, 1e-6, 1e6);
	uint64_t r = next_random(rng) % 4;
	m.hdi = r == 0 ? 1.0 : r == 1 ? 0.0 : uniform(rng, 0, 1);
	if (next_random(rng) % 3 == 0) {
		m.irreducible = log_uniform(rng, 1e-9, 1);
		m.var_rate = uniform(rng, 0, 2);
		m.var_power = next_random(rng) % 2 ? 0 : uniform(rng, 0, 3);
	}
	if (next_random(rng) % 4 == 0) {
		ha_model_set_log_bias_coef(&m, uniform(rng, -800, 800));
		ha_model_set_log_var_coef(&m, uniform(rng, -800, 800));
	}
	return m;
}

/* The table's integer search through a memo finds the optimum of the
 * plain search, to the bit, for random budgets, constraints and models
 * (the memo reused across models, as a sweep reuses it, and across
 * changes of the HDI, which its shares depend on). */
Test(table, the_integer_memo_finds_the_plain_optimum, .timeout = 600)
{
	uint64_t rng = 31337;
	size_t compared = 0, bracketed = 0, hdi_one = 0;
	for (int problem = 0; problem < 300; problem++) {
		uint64_t D = next_random(&rng) % 4 == 0
			? UINT64_C(897612484786617600) >> (next_random(&rng) % 40)
			: 1 + next_random(&rng) % 100000;
		struct ha_constraints c = {0, 0, 0, 0, 0};
		if (next_random(&rng) % 3 == 0)
			c.min_head_dim = 1 + next_random(&rng) % 64;
		if (next_random(&rng) % 3 == 0)
			c.head_dim_multiple = 1 + next_random(&rng) % 8;
		struct ha_solver *s;
		if (ha_solver_new(D, &c, &s) != HA_OK)
			continue;
		struct ha_integer_memo *memo;
		cr_assert_eq(ha_integer_memo_new(s, &memo), HA_OK);
		size_t feasible;
		ha_solver_feasible(s, &feasible);
		cr_assert_eq(memo == NULL, feasible > HA_INTEGER_MEMO_MAX);
		struct ha_model base = random_model(&rng);
		for (int k = 0; k < 50; k++) {
			struct ha_model m = k % 10 == 9 ? random_model(&rng) : base;
			if (k % 10 != 9)
				m.samples = log_uniform(&rng, 1.0001, 1e300);
			struct ha_allocation plain, memoised;
			struct ha_certificate cert;
			cr_assert_eq(ha_solver_solve_integer(s, &m, &plain, &cert), HA_OK);
			cr_assert_eq(ha_solver_solve_integer_memo(s, memo, &m, &memoised), HA_OK);
			cr_assert(memcmp(&plain, &memoised, sizeof plain) == 0,
			          "D=%llu n=%.17g: d %llu / %llu",
			          (unsigned long long)D, m.samples,
			          (unsigned long long)memoised.head_dim,
			          (unsigned long long)plain.head_dim);
			/* The terms of the optimum are ha_model_eval's, bit for bit
			 * (the memo keeps its powers and logarithms of d; a solve
			 * without a memo takes the solver's logarithms where hdi = 1),
			 * and its value is ha_model_log_relative_mse's minimum. */
			struct ha_terms t;
			cr_assert_eq(ha_model_eval(&m, D, memoised.head_dim, &t), HA_OK);
			cr_assert(memcmp(&t, &memoised.terms, sizeof t) == 0 &&
			          memcmp(&t, &plain.terms, sizeof t) == 0,
			          "D=%llu n=%.17g d=%llu: the terms differ",
			          (unsigned long long)D, m.samples,
			          (unsigned long long)memoised.head_dim);
			compared++;
			hdi_one += m.hdi == 1.0;
			bracketed += cert.method == HA_CERT_BRACKET;
		}
		ha_integer_memo_free(memo);
		ha_solver_free(s);
	}
	cr_assert_gt(compared, 10000);
	cr_assert_gt(bracketed, compared / 2);
	cr_assert_gt(hdi_one, compared / 10);
}

/* ---- the text columns' formats ------------------------------------------ */

#include "report/format_double.h"

/* Doubles of every kind: any bit pattern, log-uniform magnitudes, small
 * integers and halves (exact decimal ties), values next to powers of ten
 * and to their rounding boundaries at 6 digits, subnormals. */
static double any_double(uint64_t *rng)
{
	uint64_t r = next_random(rng);
	double v;
	switch (r % 8) {
	case 0:
		memcpy(&v, &r, sizeof v);
		return v;
	case 1:
		return (double)(next_random(rng) % 100000000) / (double)(1u << (r >> 8) % 16);
	case 2: {
		double p = pow(10.0, (double)((int)(next_random(rng) % 40) - 20));
		return (r >> 8) % 2 ? nextafter(p, 0) : nextafter(p, INFINITY);
	}
	case 3: {
		/* d.dddddd5 10^k and its neighbours: the 6-digit ties. */
		double k = (double)((int)(next_random(rng) % 600) - 300);
		v = ((double)(next_random(rng) % 1000000) + 100000.5) * pow(10.0, k - 5);
		return (r >> 8) % 3 == 0 ? v : (r >> 8) % 3 == 1 ? nextafter(v, 0)
		                                                : nextafter(v, INFINITY);
	}
	case 4:
		return ldexp((double)(next_random(rng) >> 12), -1074);
	default:
		return ((r >> 8) % 2 ? -1 : 1) * exp(uniform(rng, -745, 709));
	}
}

/* %.Pg and %.Pf from format_double.c against snprintf, byte for byte,
 * for every precision the reports use and the others. */
Test(table, the_text_formats_are_snprintfs, .timeout = 600)
{
	uint64_t rng = 2718281828;
	size_t fixed = 0, fixed_small = 0;
	for (int i = 0; i < 400000; i++) {
		double v = any_double(&rng);
		char got[64], want[400];
		for (int p = 1; p <= 17; p++) {
			if (p > 8 && p < 17 && i % 8)
				continue; /* the reports use 2, 3 and 6 digits */
			size_t n = ha_fd_format_g(v, p, got);
			snprintf(want, sizeof want, "%.*g", p, v);
			cr_assert(n == strlen(got) && strcmp(got, want) == 0,
			          "%%.%dg of %a: %s, not %s", p, v, got, want);
		}
		for (int p = 0; p <= 17; p++) {
			if (p != 6 && i % 8)
				continue;
			size_t n = ha_fd_format_f(v, p, got);
			if (n == 0)
				continue;
			snprintf(want, sizeof want, "%.*f", p, v);
			cr_assert(n == strlen(got) && strcmp(got, want) == 0,
			          "%%.%df of %a: %s, not %s", p, v, got, want);
			fixed++;
			fixed_small += fabs(v) < 1.0;
		}
	}
	/* Most of the values %.6f is asked for (log10 of an error) are
	 * taken here. */
	cr_assert_gt(fixed, 100000);
	cr_assert_gt(fixed_small, 10000);
	/* Every k / 2048 and k / 2000 in [-1000, 1000]: exact ties at the
	 * sixth decimal, and their neighbours. */
	for (long k = -2048000; k <= 2048000; k++) {
		char got[64], want[64];
		double v = k % 2 ? (double)k / 2048.0 : (double)k / 2000.0;
		if (k == 0)
			continue;
		cr_assert_neq(ha_fd_format_f(v, 6, got), 0, "%a", v);
		snprintf(want, sizeof want, "%.6f", v);
		cr_assert_str_eq(got, want);
	}
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
		.samples = {k.sample_count, sample_of, &k},
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
