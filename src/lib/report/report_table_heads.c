/* The sweep's per-n fits, ln H* = ln c + e ln D over the budgets at each
 * n (headalloc-model(7), SCALING LAWS): one a value of n, so as many as the table has points.
 * Their points are read back from the journal (or solved again) on the
 * calling thread, which also writes; the fits themselves are computed and
 * formatted in jobs of many n by worker threads (report_pool.h).
 *
 * A fit's YAML after the first is written past the emitter, as raw text:
 * an item of the block sequence by_samples, "\n  - samples: N\n
 * heads_law:" and the fit's map (report_raw_fit), exactly the emitter's
 * bytes.  The first item, and a fit that failed (reported in words), go
 * through the emitter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/format_double.h"
#include "report/report_pool.h"
#include "report/report_table_sections.h"

/* Values of x* a job: the points of a job hold at most this many (and at
 * least one point, whatever its budgets). */
#define JOB_VALUES ((size_t)8192)
#define JOB_POINTS ((size_t)128)

/* Worker threads only for at least this many jobs, and for at most this
 * many budgets (each thread keeps a fit with room for every budget). */
#define THREADED_MIN_JOBS ((size_t)4)
#define THREADED_MAX_BUDGETS ((size_t)64)

/* An item's text besides its fit: "\n  - samples: N\n    heads_law:" in
 * YAML, the label in text. */
#define ITEM_EXTRA ((size_t)96)

struct heads_job {
	size_t first, count;          /* points [first, first + count) */
	double *samples;              /* n of each point */
	double *dims;                 /* x* of point k, budget b: [k * nb + b] */
	struct report_law_fit *fits;  /* of each point */
	size_t *text_end;             /* the end of each point's text */
	char *text;                   /* YAML: empty for emitted points */
};

struct heads {
	struct table *t;
	int yaml;
	size_t points_per_job;
	struct ha_fit **fits;         /* one per worker */
	size_t fit_count;
	int json;                     /* every point through the writer's events */
	struct heads_job *jobs;
	void **job_pointers;
	size_t slots;
};

/* Point b of a job's fit: (D_b, H*) with H* = D_b / x*, as the journal's
 * replay makes it. */
struct job_point {
	const struct table *t;
	const double *dims;
};

static enum ha_status replay_job(void *ctx, size_t b, double *x, double *y)
{
	const struct job_point *jp = ctx;
	*x = (double)jp->t->req->budgets[b];
	*y = *x / jp->dims[b];
	return HA_OK;
}

static void fit_point(const struct table *t, struct ha_fit *fit,
                      const double *dims, struct report_law_fit *f)
{
	const struct ha_table_request *req = t->req;
	struct job_point jp = {t, dims};
	ha_fit_reset(fit);
	for (size_t b = 0; b < req->budget_count; b++) {
		double x, y;
		replay_job(&jp, b, &x, &y);
		ha_fit_add(fit, x, y);
	}
	report_finish_fit(f, LAW_HEADS_POWER, fit, replay_job, &jp);
	f->claimed = HA_FIT_SEED_BUDGET_EXPONENT;
	if (f->status == HA_OK)
		f->largest_budget = req->budgets[f->result.max_residual_index];
}

static char *put_text(char *p, const char *text)
{
	size_t length = strlen(text);
	memcpy(p, text, length);
	return p + length;
}

/* The work of a job: fit and format its points. */
static void fit_points(void *ctx, size_t worker, void *job_)
{
	struct heads *hs = ctx;
	struct heads_job *job = job_;
	const struct table *t = hs->t;
	size_t nb = t->req->budget_count;
	char *p = job->text;
	for (size_t k = 0; k < job->count; k++) {
		struct report_law_fit *f = &job->fits[k];
		fit_point(t, hs->fits[worker], job->dims + k * nb, f);
		double n = job->samples[k];
		if (!hs->yaml) {
			/* "samples %.6g" */
			char label[64] = "samples ";
			ha_fd_format_g(n, 6, label + 8);
			p = report_text_fit_buf(p, label, f);
		} else if (job->first + k > 0 && f->status == HA_OK && !hs->json) {
			char buf[32];
			p = put_text(p, "\n  - samples: ");
			p = put_text(p, ha_yaml_double_text(n, buf));
			p = put_text(p, "\n    heads_law:");
			p = report_raw_fit(p, 6, f);
		}
		job->text_end[k] = (size_t)(p - job->text);
	}
}

static void emit_point(struct ha_yaml_writer *w, double n,
                       const struct report_law_fit *f)
{
	ha_yaml_begin_map(w, 0);
	ha_yaml_key(w, "samples");
	ha_yaml_double(w, n);
	ha_yaml_key(w, "heads_law");
	report_yaml_fit(w, f);
	ha_yaml_end_map(w);
}

/* A job done: its text written in order, the points without text through
 * the emitter. */
static void take_points(struct heads *hs, struct ha_report *r,
                        const struct heads_job *job)
{
	size_t from = 0;
	for (size_t k = 0; hs->yaml && k < job->count; k++) {
		size_t start = k ? job->text_end[k - 1] : 0;
		if (job->text_end[k] > start)
			continue;
		/* No text: this one goes through the emitter, after the text
		 * before it. */
		if (start > from)
			yaml_writer_raw(r->yaml, job->text + from, start - from);
		emit_point(r->yaml, job->samples[k], &job->fits[k]);
		from = start;
	}
	size_t end = job->count ? job->text_end[job->count - 1] : 0;
	if (end > from) {
		if (hs->yaml)
			yaml_writer_raw(r->yaml, job->text + from, end - from);
		else
			fwrite(job->text + from, 1, end - from, r->stream);
	}
}

/* Fill the next job: n and every budget's x* of its points. */
static void fill_job(struct heads_job *job, struct table *t, size_t *next,
                     size_t points, size_t per_job)
{
	size_t nb = t->req->budget_count;
	job->first = *next;
	job->count = points - *next < per_job ? points - *next : per_job;
	for (size_t k = 0; k < job->count; k++) {
		size_t i = job->first + k;
		job->samples[k] = table_sample_at(t, i);
		/* Budget by budget: the journal reads a block of points of one
		 * budget at a time (and the table keeps every x* it solved, so
		 * a lost journal solves again with the same result). */
		for (size_t b = 0; b < nb; b++)
			table_relaxed_dim_at(t, b, i, &job->dims[k * nb + b]);
	}
	*next += job->count;
}

static void free_heads(struct heads *hs)
{
	/* Fit 0 is the table's own. */
	for (size_t w = 1; w < hs->fit_count; w++)
		ha_fit_free(hs->fits[w]);
	free(hs->fits);
	for (size_t i = 0; hs->jobs && i < hs->slots; i++) {
		free(hs->jobs[i].samples);
		free(hs->jobs[i].dims);
		free(hs->jobs[i].fits);
		free(hs->jobs[i].text_end);
		free(hs->jobs[i].text);
	}
	free(hs->jobs);
	free(hs->job_pointers);
}

static enum ha_status prepare_heads(struct heads *hs, size_t workers)
{
	size_t nb = hs->t->req->budget_count, per = hs->points_per_job;
	size_t fits = workers ? workers : 1;
	hs->slots = workers ? 2 * workers + 2 : 1;
	hs->fits = calloc(fits, sizeof *hs->fits);
	hs->jobs = calloc(hs->slots, sizeof *hs->jobs);
	hs->job_pointers = calloc(hs->slots, sizeof *hs->job_pointers);
	if (!hs->fits || !hs->jobs || !hs->job_pointers)
		return HA_ENOMEM;
	hs->fits[0] = hs->t->heads_power;
	hs->fit_count = 1;
	for (size_t w = 1; w < fits; w++) {
		if (ha_fit_new(HA_FIT_POWER, nb, &hs->fits[w]) != HA_OK)
			return HA_ENOMEM;
		hs->fit_count++;
	}
	size_t item = (hs->yaml ? REPORT_RAW_FIT_MAX : REPORT_TEXT_FIT_MAX) +
	              ITEM_EXTRA;
	for (size_t i = 0; i < hs->slots; i++) {
		struct heads_job *job = &hs->jobs[i];
		job->samples = malloc(per * sizeof *job->samples);
		job->dims = malloc(per * nb * sizeof *job->dims);
		job->fits = malloc(per * sizeof *job->fits);
		job->text_end = malloc(per * sizeof *job->text_end);
		job->text = malloc(per * item);
		if (!job->samples || !job->dims || !job->fits || !job->text_end ||
		    !job->text)
			return HA_ENOMEM;
		hs->job_pointers[i] = job;
	}
	return HA_OK;
}

void table_write_samples_fits(struct table *t, struct ha_report *r)
{
	size_t nb = t->req->budget_count, points = t->req->samples.count;
	struct heads hs = {.t = t, .yaml = r->yaml != NULL,
	                   .json = r->yaml != NULL && !r->yaml_text};
	hs.points_per_job = JOB_VALUES / nb;
	if (hs.points_per_job > JOB_POINTS)
		hs.points_per_job = JOB_POINTS;
	if (hs.points_per_job == 0)
		hs.points_per_job = 1;
	size_t jobs = (points + hs.points_per_job - 1) / hs.points_per_job;
	size_t workers = jobs >= THREADED_MIN_JOBS && nb <= THREADED_MAX_BUDGETS
		? pool_threads_for(t->req->threads) : 0;
	struct pool *pool = NULL;
	enum ha_status st = prepare_heads(&hs, workers);
	if (st == HA_OK)
		st = pool_new(workers, hs.job_pointers, hs.slots, fit_points, &hs,
		              &pool);
	if (st != HA_OK) {
		/* Short of memory for jobs of many points: one point a job in
		 * the calling thread, else give up with the report's failure. */
		free_heads(&hs);
		hs = (struct heads){.t = t, .yaml = r->yaml != NULL,
		                    .json = r->yaml != NULL && !r->yaml_text,
		                    .points_per_job = 1};
		if (prepare_heads(&hs, 0) != HA_OK ||
		    pool_new(0, hs.job_pointers, hs.slots, fit_points, &hs, &pool) != HA_OK) {
			free_heads(&hs);
			report_fail(r, NULL, HA_ENOMEM, "writing the fits: %s",
			            ha_status_str(HA_ENOMEM));
			return;
		}
	}
	size_t next = 0;
	while (!report_write_failed(r)) {
		while (next < points && pool_can_submit(pool)) {
			fill_job(pool_slot(pool), t, &next, points, hs.points_per_job);
			pool_submit(pool);
		}
		const struct heads_job *job = pool_wait(pool);
		if (!job)
			break;
		take_points(&hs, r, job);
		pool_release(pool);
	}
	pool_free(pool);
	free_heads(&hs);
}
