/* The sweep table's rows: solved and formatted in chunks by worker
 * threads (report_pool.h), written in order by the calling thread.
 *
 * A row is the same function of (n, D) on any thread: every thread has a
 * relaxation workspace of its own for each budget (a workspace's answers
 * do not depend on its past), the integer solvers are only read, and the
 * text of a row is formatted exactly as it is written without threads.
 * The calling thread alone calls the request's samples.at, puts the
 * relaxed optima into the journal and the fits (in row order, so that
 * their sums are the same), and writes.
 *
 * YAML rows after the first are formatted by the writer's fast path for
 * flat rows (yaml_flat_item: a new line, "- ", a flow map of plain
 * scalars with ", " between pairs) and written past it with yaml_writer_raw;
 * the first row goes through the emitter, which then knows the sequence
 * holds an item (an empty one it would write as []). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/format_double.h"
#include "report/report_pool.h"
#include "alloc/solver_internal.h"
#include "report/report_table_sections.h"

/* Rows a job: a few milliseconds of work, so that handing jobs over
 * costs nothing measurable, and little memory a job. */
#define CHUNK_ROWS ((size_t)512)

/* The most bytes one row's text takes: a YAML row is at most ~330 bytes
 * (eight keys, three integers, five doubles of at most 24 characters), a
 * text row at most ~430 (fixed widths, %.6f of a log10 at most 316). */
#define ROW_MAX ((size_t)512)

/* Worker threads only for tables of at least this many rows, and of at
 * most this many budgets (each thread keeps a workspace a budget). */
#define THREADED_MIN_ROWS (4 * CHUNK_ROWS)
#define THREADED_MAX_BUDGETS ((size_t)64)

/* What the calling thread needs of a solved row. */
struct row {
	uint64_t heads, head_dim;
	double mse, log_mse, relaxed_dim, relaxed_heads;
};

struct rows_job {
	size_t first, count;           /* rows [first, first + count) */
	size_t solved;                 /* rows solved: count, or the failing one */
	enum ha_status status;         /* HA_OK, or the failure of row `solved` */
	size_t text_used;              /* bytes of text, of the rows solved */
	double samples[CHUNK_ROWS];    /* n of each row */
	struct row rows[CHUNK_ROWS];
	char text[CHUNK_ROWS * ROW_MAX];
};

struct rows {
	struct table *t;
	int yaml;
	struct ha_relaxed_solver ***relaxed; /* per worker, one per budget */
	struct ha_integer_memo ***memos;     /* per worker, one per budget */
	size_t worker_sets;                  /* sets in relaxed and memos */
	struct rows_job **jobs;
	size_t slots;
	int json;   /* rows through the writer's events, one by one */
};

static char *put_uint(char *p, uint64_t value)
{
	char digits[20];
	size_t n = 0;
	do {
		digits[n++] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	while (n)
		*p++ = digits[--n];
	return p;
}

/* A row after the first, by the writer's fast path for flat rows
 * (yaml_writer_internal.h); samples_text is n's. */
static char *put_yaml_row(char *p, uint64_t budget, const char *samples_text,
                          size_t samples_length, const struct row *row)
{
	static const struct yaml_flat_key keys[8] = {
		YAML_FLAT_KEY("budget"), YAML_FLAT_KEY("samples"),
		YAML_FLAT_KEY("heads"), YAML_FLAT_KEY("head_dim"),
		YAML_FLAT_KEY("mse"), YAML_FLAT_KEY("log10_mse"),
		YAML_FLAT_KEY("relaxed_head_dim"), YAML_FLAT_KEY("relaxed_heads"),
	};
	const struct yaml_flat_value values[8] = {
		{.kind = YAML_FLAT_UINT, .uint_value = budget},
		{.kind = YAML_FLAT_TEXT, .text = samples_text, .length = samples_length},
		{.kind = YAML_FLAT_UINT, .uint_value = row->heads},
		{.kind = YAML_FLAT_UINT, .uint_value = row->head_dim},
		{.kind = YAML_FLAT_DOUBLE, .double_value = row->mse},
		{.kind = YAML_FLAT_DOUBLE, .double_value = report_log10(row->log_mse)},
		{.kind = YAML_FLAT_DOUBLE, .double_value = row->relaxed_dim},
		{.kind = YAML_FLAT_DOUBLE, .double_value = row->relaxed_heads},
	};
	return yaml_flat_item(p, keys, values, 8);
}

/* text right-aligned in width columns, as printf's "%{width}s". */
static char *put_padded(char *p, const char *text, size_t length, size_t width)
{
	if (length < width) {
		memset(p, ' ', width - length);
		p += width - length;
	}
	memcpy(p, text, length);
	return p + length;
}

static char *put_uint_padded(char *p, uint64_t value, size_t width)
{
	char digits[24];
	return put_padded(p, digits, (size_t)(put_uint(digits, value) - digits),
	                  width);
}

/* printf's "%{width}.6g". */
static char *put_g6(char *p, double value, size_t width)
{
	char buf[HA_FD_BUFSIZE];
	return put_padded(p, buf, ha_fd_format_g(value, 6, buf), width);
}

/* printf's "%{width}.6f" (snprintf's own beyond ha_fd_format_f's reach:
 * a value of more than 16 digits before the point, or below 10^-6). */
static char *put_f6(char *p, double value, size_t width)
{
	char buf[400];
	size_t length = ha_fd_format_f(value, 6, buf);
	if (length == 0) {
		int n = snprintf(buf, sizeof buf, "%.6f", value);
		length = n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0;
	}
	return put_padded(p, buf, length, width);
}

/* A text row, as fprintf(f, "%20" PRIu64 " %12.6g %20" PRIu64 " %10"
 * PRIu64 " %13s %12.6f %16.6g %14.6g\n", budget, samples, heads,
 * head_dim, report_human(mse), log10 mse, x*, H*) writes it, without
 * printf's cost (a fifth of a text sweep's). */
static char *put_text_row(char *p, uint64_t budget, double samples,
                          const struct row *row)
{
	p = put_uint_padded(p, budget, 20);
	*p++ = ' ';
	p = put_g6(p, samples, 12);
	*p++ = ' ';
	p = put_uint_padded(p, row->heads, 20);
	*p++ = ' ';
	p = put_uint_padded(p, row->head_dim, 10);
	*p++ = ' ';
	/* report_human: "inf" beyond a double, else %.6g. */
	if (isinf(row->mse))
		p = put_padded(p, "inf", 3, 13);
	else
		p = put_g6(p, row->mse, 13);
	*p++ = ' ';
	p = put_f6(p, report_log10(row->log_mse), 12);
	*p++ = ' ';
	p = put_g6(p, row->relaxed_dim, 16);
	*p++ = ' ';
	p = put_g6(p, row->relaxed_heads, 14);
	*p++ = '\n';
	return p;
}

/* The work of a job, on a worker thread (or the calling one): solve its
 * rows and format them, stopping at the first failure. */
static void solve_rows(void *ctx, size_t worker, void *job_)
{
	struct rows *rs = ctx;
	struct rows_job *job = job_;
	const struct table *t = rs->t;
	const struct ha_table_request *req = t->req;
	struct ha_relaxed_solver **relaxed = rs->relaxed[worker];
	struct ha_integer_memo **memos = rs->memos[worker];
	size_t nb = req->budget_count;
	struct ha_model m = *req->model;
	char *p = job->text;
	/* One n has a row a budget: its YAML text is made once. */
	double samples_of_text = NAN;
	char samples_text[HA_FD_BUFSIZE + 2];
	size_t samples_length = 0;
	size_t k;
	job->status = HA_OK;
	for (k = 0; k < job->count; k++) {
		size_t at = job->first + k, b = at % nb;
		m.samples = job->samples[k];
		struct ha_allocation optimum;
		struct ha_relaxed relaxation;
		enum ha_status st = ha_solver_solve_integer_memo(t->solvers[b], memos[b],
		                                                 &m, &optimum);
		if (st == HA_OK)
			st = ha_relaxed_solver_solve(relaxed[b], &m, &relaxation);
		if (st != HA_OK) {
			job->status = st;
			break;
		}
		struct row *row = &job->rows[k];
		row->heads = optimum.heads;
		row->head_dim = optimum.head_dim;
		row->mse = optimum.terms.mse;
		row->log_mse = optimum.terms.log_mse;
		row->relaxed_dim = relaxation.head_dim;
		row->relaxed_heads = relaxation.heads;
		if (!rs->yaml) {
			p = put_text_row(p, req->budgets[b], m.samples, row);
		} else if (at > 0 && !rs->json) {
			if (!(samples_of_text == m.samples)) {
				samples_length = (size_t)(yaml_flat_double(samples_text, m.samples) -
				                          samples_text);
				samples_of_text = m.samples;
			}
			p = put_yaml_row(p, req->budgets[b], samples_text, samples_length,
			                 row);
		}
	}
	job->solved = k;
	job->text_used = (size_t)(p - job->text);
}

/* The first row of the table, through the emitter. */
static void emit_first_row(struct ha_yaml_writer *w, uint64_t budget,
                           double samples, const struct row *row)
{
	ha_yaml_begin_map(w, 1);
	ha_yaml_key(w, "budget");
	ha_yaml_uint(w, budget);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, samples);
	ha_yaml_key(w, "heads");
	ha_yaml_uint(w, row->heads);
	ha_yaml_key(w, "head_dim");
	ha_yaml_uint(w, row->head_dim);
	ha_yaml_key(w, "mse");
	ha_yaml_double(w, row->mse);
	ha_yaml_key(w, "log10_mse");
	ha_yaml_double(w, report_log10(row->log_mse));
	ha_yaml_key(w, "relaxed_head_dim");
	ha_yaml_double(w, row->relaxed_dim);
	ha_yaml_key(w, "relaxed_heads");
	ha_yaml_double(w, row->relaxed_heads);
	ha_yaml_end_map(w);
}

/* A job done: its rows written, their relaxed optima put into the
 * journal and the fits; then its failure, if it has one. */
static enum ha_status take_rows(struct rows *rs, struct ha_report *r,
                                struct ha_error *err, const struct rows_job *job)
{
	struct table *t = rs->t;
	size_t nb = t->req->budget_count;
	for (size_t k = 0; k < job->solved; k++) {
		size_t at = job->first + k, b = at % nb;
		const struct row *row = &job->rows[k];
		if ((at == 0 || rs->json) && rs->yaml)
			emit_first_row(r->yaml, t->req->budgets[b], job->samples[k], row);
		journal_put(t->journal, row->relaxed_dim);
		ha_fit_add(t->dim_power[b], job->samples[k], row->relaxed_dim);
		ha_fit_add(t->dim_log[b], job->samples[k], row->relaxed_dim);
	}
	if (job->text_used > 0) {
		if (rs->yaml)
			yaml_writer_raw(r->yaml, job->text, job->text_used);
		else
			fwrite(job->text, 1, job->text_used, r->stream);
	}
	if (job->status != HA_OK)
		return table_solve_failed(r, err, job->status,
		                          t->req->budgets[(job->first + job->solved) % nb]);
	return HA_OK;
}

static void free_rows(struct rows *rs)
{
	size_t nb = rs->t->req->budget_count;
	for (size_t w = 0; w < rs->worker_sets; w++) {
		for (size_t b = 0; rs->memos[w] && b < nb; b++)
			ha_integer_memo_free(rs->memos[w][b]);
		free(rs->memos[w]);
		/* Set 0 of the workspaces is the table's own. */
		if (w == 0)
			continue;
		for (size_t b = 0; rs->relaxed[w] && b < nb; b++)
			ha_relaxed_solver_free(rs->relaxed[w][b]);
		free(rs->relaxed[w]);
	}
	free(rs->relaxed);
	free(rs->memos);
	for (size_t i = 0; rs->jobs && i < rs->slots; i++)
		free(rs->jobs[i]);
	free(rs->jobs);
}

/* Jobs and workspaces for `workers` threads (0: the calling thread). */
static enum ha_status prepare_rows(struct rows *rs, size_t workers)
{
	size_t nb = rs->t->req->budget_count;
	size_t sets = workers ? workers : 1;
	rs->slots = workers ? 2 * workers + 2 : 1;
	rs->relaxed = calloc(sets, sizeof *rs->relaxed);
	rs->memos = calloc(sets, sizeof *rs->memos);
	rs->jobs = calloc(rs->slots, sizeof *rs->jobs);
	if (!rs->relaxed || !rs->memos || !rs->jobs)
		return HA_ENOMEM;
	for (size_t w = 0; w < sets; w++) {
		rs->worker_sets++;
		rs->relaxed[w] = w ? calloc(nb, sizeof **rs->relaxed) : rs->t->relaxed;
		rs->memos[w] = calloc(nb, sizeof **rs->memos);
		if (!rs->relaxed[w] || !rs->memos[w])
			return HA_ENOMEM;
		for (size_t b = 0; b < nb; b++) {
			const struct ha_solver *s = rs->t->solvers[b];
			/* Memos only for the few budgets threads take (see there). */
			enum ha_status st = nb <= THREADED_MAX_BUDGETS
				? ha_integer_memo_new(s, &rs->memos[w][b]) : HA_OK;
			if (st == HA_OK && w > 0)
				st = ha_relaxed_solver_new(s, &rs->relaxed[w][b]);
			if (st != HA_OK)
				return st;
		}
	}
	for (size_t i = 0; i < rs->slots; i++)
		if (!(rs->jobs[i] = malloc(sizeof *rs->jobs[i])))
			return HA_ENOMEM;
	return HA_OK;
}

/* Fill the next job with the rows from *next on; the n of a point is
 * asked for once (*point, *samples remember the last). */
static void fill_job(struct rows_job *job, const struct table *t, size_t *next,
                     size_t total, size_t *point, double *samples)
{
	size_t nb = t->req->budget_count;
	job->first = *next;
	job->count = total - *next < CHUNK_ROWS ? total - *next : CHUNK_ROWS;
	for (size_t k = 0; k < job->count; k++) {
		size_t i = (job->first + k) / nb;
		if (i != *point) {
			*samples = table_sample_at(t, i);
			*point = i;
		}
		job->samples[k] = *samples;
	}
	*next += job->count;
}

enum ha_status table_write_rows(struct table *t, struct ha_report *r,
                                struct ha_error *err)
{
	const struct ha_table_request *req = t->req;
	size_t nb = req->budget_count, total = nb * req->samples.count;
	if (r->yaml) {
		ha_yaml_key(r->yaml, "table");
		ha_yaml_begin_seq(r->yaml, 0);
	} else {
		fprintf(r->stream, "\n%20s %12s %20s %10s %13s %12s %16s %14s\n",
		        "budget", "samples", "heads", "head_dim", "mse", "log10_mse",
		        "relaxed_head_dim", "relaxed_heads");
	}
	size_t workers = total >= THREADED_MIN_ROWS && nb <= THREADED_MAX_BUDGETS
		? pool_threads_for(req->threads) : 0;
	struct rows rs = {.t = t, .yaml = r->yaml != NULL,
	                  .json = r->yaml != NULL && !r->yaml_text};
	struct pool *pool = NULL;
	enum ha_status st = prepare_rows(&rs, workers);
	if (st == HA_OK)
		st = pool_new(workers, (void *const *)rs.jobs, rs.slots, solve_rows,
		              &rs, &pool);
	if (st != HA_OK) {
		free_rows(&rs);
		return st == HA_ENOMEM
			? report_fail(r, err, st, "preparing the table: %s", ha_status_str(st))
			: table_solve_failed(r, err, st, req->budgets[0]);
	}
	size_t next = 0, point = SIZE_MAX, written = 0;
	double samples = NAN;
	for (;;) {
		while (next < total && pool_can_submit(pool)) {
			fill_job(pool_slot(pool), t, &next, total, &point, &samples);
			pool_submit(pool);
		}
		const struct rows_job *job = pool_wait(pool);
		if (!job)
			break;
		st = take_rows(&rs, r, err, job);
		written += job->count;
		pool_release(pool);
		if (st == HA_OK && req->progress.fn &&
		    req->progress.fn(req->progress.ctx, "rows", written, total))
			st = report_fail(r, err, HA_ECANCELED, "the table was cancelled "
			                 "after %zu of %zu rows", written, total);
		/* A closed pipe need not cost the rest of a long sweep. */
		if (st == HA_OK && report_write_failed(r))
			st = report_end(r, err);
		if (st != HA_OK)
			break;
	}
	pool_free(pool);
	free_rows(&rs);
	if (st == HA_OK && r->yaml)
		ha_yaml_end_seq(r->yaml);
	return st;
}
