/* _headalloc — every call to the library's report and plot API, in this
 * one file (the request structs change with the library; only this file
 * follows them).
 *
 * A report is rendered in YAML into memory (open_memstream) and handed to
 * Python as bytes, which yaml_load.c turns into Python objects: the keys
 * of to_dict() are the report's own by construction.  A picture is drawn
 * into memory the same way and returned as bytes for the Python layer to
 * write or show. */
#include "ha_py.h"

#include <headalloc/plot.h>
#include <headalloc/report.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a report or a picture draws, given its stream. */
typedef enum ha_status (*render_fn)(FILE *stream, const void *ctx, struct ha_error *err);

/* Render fn into memory and return the bytes, or raise. */
static PyObject *render(render_fn fn, const void *ctx)
{
	char *data = NULL;
	size_t size = 0;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st;
	Py_BEGIN_ALLOW_THREADS
	FILE *mem = open_memstream(&data, &size);
	if (!mem) {
		st = HA_ENOMEM;
	} else {
		st = fn(mem, ctx, &err);
		if (fclose(mem) != 0 && st == HA_OK)
			st = HA_EIO;
	}
	Py_END_ALLOW_THREADS
	PyObject *result;
	if (st == HA_OK)
		result = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
	else if (st == HA_ECANCELED && PyErr_Occurred())
		result = NULL; /* a progress callback's exception (KeyboardInterrupt) */
	else
		result = ha_py_raise(st, &err);
	free(data);
	return result;
}

/* ---- reports -------------------------------------------------------------- */

struct sections {
	enum ha_status (*fn)(struct ha_report *r, const void *ctx, struct ha_error *err);
	const void *ctx;
};

static enum ha_status yaml_report(FILE *stream, const void *ctx, struct ha_error *err)
{
	const struct sections *s = ctx;
	struct ha_report *r = NULL;
	enum ha_status st = ha_report_new(stream, HA_FORMAT_YAML, &r);
	if (st == HA_OK)
		st = s->fn(r, s->ctx, err);
	enum ha_status fin = r ? ha_report_end(r) : st;
	ha_report_free(r);
	return st != HA_OK ? st : fin;
}

static PyObject *report(enum ha_status (*fn)(struct ha_report *, const void *,
                                             struct ha_error *),
                        const void *ctx)
{
	struct sections s = {fn, ctx};
	return render(yaml_report, &s);
}

/* The problem as the Python layer passes it: budgets, samples, model,
 * constraints. */
struct problem {
	struct ha_model model;
	struct ha_constraints constraints;
	uint64_t *budgets;
	size_t budget_count;
	double *samples;
	size_t sample_count;
	int all;
	struct ha_py_progress *progress; /* a sweep's rows, or NULL */
	int grouped;                     /* a sweep over (H, G, d): kv, shape */
	struct ha_kv_constraints kv;
	struct ha_kv_shape shape;
};

static double sample_at(const void *ctx, size_t i)
{
	return ((const struct problem *)ctx)->samples[i];
}

static void problem_release(struct problem *p)
{
	PyMem_Free(p->budgets);
	PyMem_Free(p->samples);
}

/* (budgets, samples, model, constraints): budgets and samples sequences
 * (either may be None). */
static int problem_of(PyObject *args, struct problem *p)
{
	PyObject *budgets, *samples, *model, *cons;
	memset(p, 0, sizeof *p);
	if (!PyArg_ParseTuple(args, "OOOO|p", &budgets, &samples, &model, &cons, &p->all))
		return 0;
	if (!ha_py_model(model, ha_model_defaults().samples, &p->model) ||
	    !ha_py_constraints(cons, &p->constraints))
		return 0;
	if (ha_model_validate(&p->model) != HA_OK) {
		ha_py_input_error("model: a parameter is outside its domain");
		return 0;
	}
	if (budgets != Py_None && !ha_py_budgets(budgets, &p->budgets, &p->budget_count))
		return 0;
	if (samples != Py_None &&
	    !ha_py_doubles(samples, "samples", &p->samples, &p->sample_count)) {
		problem_release(p);
		return 0;
	}
	return 1;
}

/* kv None (over (H, d)) or the KV options (grouped.c): p then over (H,
 * G, d), its shape checked at every budget.  0 with the error set (p
 * released). */
static int problem_grouped(PyObject *kv, struct problem *p)
{
	if (kv == Py_None)
		return 1;
	p->grouped = 1;
	int ok = ha_py_kv(kv, &p->kv, &p->shape);
	for (size_t i = 0; ok && i < p->budget_count; i++)
		ok = ha_py_kv_shape_check(&p->shape, p->budgets[i]);
	if (!ok)
		problem_release(p);
	return ok;
}

/* (budgets, samples, model, constraints[, kv]): problem_of, then
 * problem_grouped. */
static int problem_kv_of(PyObject *args, struct problem *p)
{
	Py_ssize_t n = PyTuple_Check(args) ? PyTuple_GET_SIZE(args) : 0;
	if (n != 4 && n != 5) {
		PyErr_SetString(PyExc_TypeError, "expected (budgets, samples, model, "
		                "constraints[, kv])");
		return 0;
	}
	PyObject *head = PyTuple_GetSlice(args, 0, 4);
	if (!head)
		return 0;
	int ok = problem_of(head, p);
	Py_DECREF(head);
	return ok && problem_grouped(n == 5 ? PyTuple_GET_ITEM(args, 4) : Py_None, p);
}

static enum ha_status header_section(struct ha_report *r, const void *ctx,
                                     struct ha_error *err)
{
	const struct problem *p = ctx;
	struct ha_header_request req = {.model = &p->model, .constraints = &p->constraints};
	return ha_report_header(r, &req, err);
}

/* _report_model(None, None, model, constraints) -> YAML bytes. */
PyObject *ha_py_report_model(PyObject *self, PyObject *args)
{
	(void)self;
	struct problem p;
	if (!problem_of(args, &p))
		return NULL;
	PyObject *result = report(header_section, &p);
	problem_release(&p);
	return result;
}

static enum ha_status allocation_section(struct ha_report *r, const void *ctx,
                                         struct ha_error *err)
{
	const struct problem *p = ctx;
	struct ha_model m = p->model;
	m.samples = p->samples[0];
	struct ha_allocation_result *a = NULL;
	enum ha_status st = ha_allocation_result_new(
		p->budgets[0], &p->constraints, NULL, &m,
		p->all ? HA_ALLOCATION_CANDIDATES : 0, &a, NULL);
	if (st == HA_OK) {
		struct ha_allocation_request req = {.model = &m, .solution = &a->solution,
		                                    .candidates = a->candidates,
		                                    .candidate_count = a->candidate_count};
		st = ha_report_allocation(r, &req, err);
	}
	ha_allocation_result_free(a);
	return st;
}

/* _report_allocation([budget], [samples], model, constraints, all). */
PyObject *ha_py_report_allocation(PyObject *self, PyObject *args)
{
	(void)self;
	struct problem p;
	if (!problem_of(args, &p))
		return NULL;
	PyObject *result = p.budget_count == 1 && p.sample_count == 1
	                           ? report(allocation_section, &p)
	                           : ha_py_input_error("allocation: one budget and one n");
	problem_release(&p);
	return result;
}

/* The sweep of the problem. */
static void sweep_request(const struct problem *p, struct ha_sweep_request *req)
{
	*req = (struct ha_sweep_request){
		.model = &p->model,
		.constraints = &p->constraints,
		.budgets = p->budgets,
		.budget_count = p->budget_count,
		.samples = {p->sample_count, sample_at, p},
	};
	if (p->grouped) {
		req->kv = &p->kv;
		req->shape = &p->shape;
	}
}

static enum ha_status sweep_sections(struct ha_report *r, const void *ctx,
                                     struct ha_error *err)
{
	const struct problem *p = ctx;
	struct ha_sweep_request problem;
	sweep_request(p, &problem);
	ha_report_table_hooks(r, &problem);
	struct ha_sweep *sweep = NULL;
	enum ha_status st = header_section(r, ctx, err);
	if (st == HA_OK)
		st = ha_sweep_new(&problem, &sweep, err);
	if (st != HA_OK)
		return st;
	struct ha_table_request req = {.sweep = sweep};
	if (p->progress)
		req.progress = (struct ha_progress){ha_py_progress_fn, p->progress};
	st = ha_report_table(r, &req, err);
	ha_sweep_free(sweep);
	return st;
}

/* _report_sweep(budgets, samples, model, constraints[, progress[, kv]]):
 * progress None (Ctrl-C only) or callable(what, done, total), told of the
 * rows solved (ha_table_request.progress), on this thread with the GIL
 * taken back for the call (ha_py_progress_fn); kv None (rows over (H,
 * d)) or the KV options (grouped.c), each row then the optimum over (H,
 * G, d) with the kv columns. */
PyObject *ha_py_report_sweep(PyObject *self, PyObject *args)
{
	(void)self;
	struct problem p;
	PyObject *progress = Py_None, *kv = Py_None;
	Py_ssize_t n = PyTuple_GET_SIZE(args);
	if (n >= 5)
		progress = PyTuple_GET_ITEM(args, 4);
	if (n >= 6)
		kv = PyTuple_GET_ITEM(args, 5);
	PyObject *head = PyTuple_GetSlice(args, 0, 4);
	if (!head)
		return NULL;
	int ok = problem_of(head, &p);
	Py_DECREF(head);
	if (!ok)
		return NULL;
	if (!problem_grouped(kv, &p))
		return NULL;
	struct ha_py_progress state = {progress, NULL, 0};
	p.progress = &state;
	PyObject *result = report(sweep_sections, &p);
	problem_release(&p);
	return result;
}

static void regimes_request(const struct problem *p, struct ha_regimes_request *req)
{
	*req = (struct ha_regimes_request){.model = &p->model,
	                                   .constraints = &p->constraints,
	                                   .budgets = p->budgets,
	                                   .budget_count = p->budget_count};
}

/* The problem's regimes: over (H, G, d) under its KV constraints when
 * grouped (ha_regimes_new_grouped, as the CLI's --regimes with the KV
 * options), else over (H, d). */
static enum ha_status regimes_of(const struct problem *p, struct ha_regimes **out,
                                 struct ha_error *err)
{
	if (p->grouped)
		return ha_regimes_new_grouped(&p->model, &p->constraints, &p->kv,
		                              p->budgets, p->budget_count, NULL, out, err);
	return ha_regimes_new(&p->model, &p->constraints, p->budgets, p->budget_count,
	                      NULL, out, err);
}

static enum ha_status regimes_sections(struct ha_report *r, const void *ctx,
                                       struct ha_error *err)
{
	struct ha_regimes_request req;
	regimes_request(ctx, &req);
	struct ha_regimes *regimes = NULL;
	enum ha_status st = regimes_of(ctx, &regimes, err);
	req.regimes = regimes;
	if (st == HA_OK)
		st = header_section(r, ctx, err);
	if (st == HA_OK)
		st = ha_report_regimes(r, &req, err);
	ha_regimes_free(regimes);
	return st;
}

/* _report_regimes(budgets, None, model, constraints[, kv]): kv None or
 * the KV options (grouped.c), the regimes then over (H, G, d) with
 * kv_heads and kv_dim. */
PyObject *ha_py_report_regimes(PyObject *self, PyObject *args)
{
	(void)self;
	struct problem p;
	if (!problem_kv_of(args, &p))
		return NULL;
	PyObject *result = report(regimes_sections, &p);
	problem_release(&p);
	return result;
}

static enum ha_status hdi_section(struct ha_report *r, const void *ctx,
                                  struct ha_error *err)
{
	const struct ha_py_hdi *h = ctx;
	struct ha_hdi_request req = {.file = h->file, .layout = h->layout,
	                             .hdi = h->report, .checkpoint = h->checkpoint};
	return ha_report_hdi(r, &req, err);
}

/* _report_hdi(capsule). */
PyObject *ha_py_report_hdi(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_hdi *h = PyCapsule_GetPointer(capsule, HA_PY_HDI_CAPSULE);
	return h ? report(hdi_section, h) : NULL;
}

static enum ha_status weights_section(struct ha_report *r, const void *ctx,
                                      struct ha_error *err)
{
	const struct ha_py_head_weights *w = ctx;
	struct ha_head_weights_request req = {.weights = &w->weights};
	return ha_report_head_weights(r, &req, err);
}

/* _report_head_weights(capsule). */
PyObject *ha_py_report_head_weights(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_head_weights *w = PyCapsule_GetPointer(capsule, HA_PY_WEIGHTS_CAPSULE);
	return w ? report(weights_section, w) : NULL;
}

static enum ha_status calibration_section(struct ha_report *r, const void *ctx,
                                          struct ha_error *err)
{
	struct ha_calibration_request req = {.calibration = ctx};
	return ha_report_calibration(r, &req, err);
}

/* _report_calibration(capsule). */
PyObject *ha_py_report_calibration(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_calibration *c = PyCapsule_GetPointer(capsule, HA_PY_CALIBRATION_CAPSULE);
	return c ? report(calibration_section, c) : NULL;
}

static enum ha_status grouped_section(struct ha_report *r, const void *ctx,
                                      struct ha_error *err)
{
	const struct ha_py_grouped *g = ctx;
	return ha_report_grouped(r, &(struct ha_grouped_report_request){
		.model = &g->model, .solution = &g->solution, .kv = &g->kv,
		.shape = &g->shape, .max_loss_ratio = g->max_loss_ratio,
	}, err);
}

/* _report_grouped(capsule). */
PyObject *ha_py_report_grouped(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_grouped *g = PyCapsule_GetPointer(capsule, HA_PY_GROUPED_CAPSULE);
	return g ? report(grouped_section, g) : NULL;
}

/* ---- pictures ------------------------------------------------------------- */

struct picture {
	enum ha_plot_format format;
	enum ha_status (*draw)(struct ha_plot_target *t, const void *ctx, struct ha_error *err);
	const void *ctx;
};

static enum ha_status draw_picture(FILE *stream, const void *ctx, struct ha_error *err)
{
	const struct picture *p = ctx;
	struct ha_plot_target t = {.stream = stream, .format = p->format};
	return p->draw(&t, p->ctx, err);
}

/* Draw into bytes in the format of the file name `name`. */
static PyObject *picture(const char *name,
                         enum ha_status (*draw)(struct ha_plot_target *, const void *,
                                                struct ha_error *),
                         const void *ctx)
{
	struct picture p = {HA_PLOT_PNG, draw, ctx};
	if (ha_plot_format_from_path(name, &p.format) != HA_OK)
		return ha_py_input_error("plot: expected a file name ending in .png, .svg or .pdf, found '%s'",
		                         name);
	return render(draw_picture, &p);
}

static enum ha_status draw_allocation(struct ha_plot_target *t, const void *ctx,
                                      struct ha_error *err)
{
	const struct problem *p = ctx;
	struct ha_model m = p->model;
	m.samples = p->samples[0];
	struct ha_allocation_result *a = NULL;
	enum ha_status st = ha_allocation_result_new(p->budgets[0], &p->constraints,
	                                             NULL, &m, HA_ALLOCATION_DIVISORS,
	                                             &a, err);
	struct ha_plot_allocation_request req = {.model = &m, .constraints = &p->constraints,
	                                         .budget = p->budgets[0],
	                                         .allocation = a};
	if (st == HA_OK)
		st = ha_plot_allocation(t, &req, err);
	ha_allocation_result_free(a);
	return st;
}

static enum ha_status draw_sweep(struct ha_plot_target *t, const void *ctx,
                                 struct ha_error *err)
{
	struct ha_sweep_request problem;
	sweep_request(ctx, &problem);
	struct ha_sweep_picture *picture = NULL;
	enum ha_status st = ha_sweep_picture_new(&problem, &picture, err);
	if (st == HA_OK)
		st = ha_plot_sweep(t, &(struct ha_plot_sweep_request){.picture = picture}, err);
	ha_sweep_picture_free(picture);
	return st;
}

static enum ha_status draw_regimes(struct ha_plot_target *t, const void *ctx,
                                   struct ha_error *err)
{
	struct ha_regimes_request req;
	regimes_request(ctx, &req);
	struct ha_regimes *regimes = NULL;
	enum ha_status st = regimes_of(ctx, &regimes, err);
	req.regimes = regimes;
	if (st == HA_OK)
		st = ha_plot_regimes(t, &req, err);
	ha_regimes_free(regimes);
	return st;
}

/* _plot_problem(kind, name, (budgets, samples, model, constraints[,
 * kv])) for the three pictures of a problem: kind "allocation", "sweep"
 * or "regimes"; kv (a sweep's or the regimes') the KV options or None. */
static PyObject *plot_problem(PyObject *args,
                              enum ha_status (*draw)(struct ha_plot_target *, const void *,
                                                     struct ha_error *))
{
	const char *name;
	PyObject *rest;
	if (!PyArg_ParseTuple(args, "sO!", &name, &PyTuple_Type, &rest))
		return NULL;
	struct problem p;
	if (!problem_kv_of(rest, &p))
		return NULL;
	PyObject *result;
	if (p.budget_count == 0 || (draw != draw_regimes && p.sample_count == 0))
		result = ha_py_input_error("plot: no budget or no n");
	else
		result = picture(name, draw, &p);
	problem_release(&p);
	return result;
}

PyObject *ha_py_plot_allocation(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_problem(args, draw_allocation);
}

PyObject *ha_py_plot_sweep(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_problem(args, draw_sweep);
}

PyObject *ha_py_plot_regimes(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_problem(args, draw_regimes);
}

static enum ha_status draw_hdi(struct ha_plot_target *t, const void *ctx,
                               struct ha_error *err)
{
	const struct ha_py_hdi *h = ctx;
	struct ha_plot_hdi_request req = {.file = h->file, .layout = h->layout, .hdi = h->report};
	return ha_plot_hdi(t, &req, err);
}

static enum ha_status draw_head_weights(struct ha_plot_target *t, const void *ctx,
                                        struct ha_error *err)
{
	const struct ha_py_head_weights *w = ctx;
	struct ha_plot_head_weights_request req = {.weights = &w->weights, .sigma = w->sigma};
	return ha_plot_head_weights(t, &req, err);
}

static enum ha_status draw_calibration(struct ha_plot_target *t, const void *ctx,
                                       struct ha_error *err)
{
	struct ha_cal_picture *data = NULL;
	enum ha_status st = ha_cal_picture_new(ctx, &data, err);
	if (st == HA_OK) {
		struct ha_plot_calibration_request req = {.calibration = ctx, .picture = data};
		st = ha_plot_calibration(t, &req, err);
	}
	ha_cal_picture_free(data);
	return st;
}

/* _plot_hdi(name, capsule) and the two below: the picture of a result. */
static PyObject *plot_capsule(PyObject *args, const char *capsule_name,
                              enum ha_status (*draw)(struct ha_plot_target *, const void *,
                                                     struct ha_error *))
{
	const char *name;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "sO", &name, &capsule))
		return NULL;
	const void *ctx = PyCapsule_GetPointer(capsule, capsule_name);
	return ctx ? picture(name, draw, ctx) : NULL;
}

PyObject *ha_py_plot_hdi(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_HDI_CAPSULE, draw_hdi);
}

PyObject *ha_py_plot_head_weights(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_WEIGHTS_CAPSULE, draw_head_weights);
}

PyObject *ha_py_plot_calibration(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_CALIBRATION_CAPSULE, draw_calibration);
}

static enum ha_status draw_plan(struct ha_plot_target *t, const void *ctx,
                                struct ha_error *err)
{
	return ha_plot_plan(t, &(struct ha_plot_plan_request){.plan = ctx}, err);
}

PyObject *ha_py_plot_plan(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_PLAN_CAPSULE, draw_plan);
}

static enum ha_status draw_grouped(struct ha_plot_target *t, const void *ctx,
                                   struct ha_error *err)
{
	const struct ha_py_grouped *g = ctx;
	return ha_plot_grouped(t, &(struct ha_plot_grouped_request){
		.model = &g->model, .constraints = &g->constraints,
		.solution = &g->solution, .kv = &g->kv, .shape = &g->shape,
		.max_loss_ratio = g->max_loss_ratio,
	}, err);
}

/* _plot_grouped(name, capsule): the trade-off front (solved with it). */
PyObject *ha_py_plot_grouped(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_GROUPED_CAPSULE, draw_grouped);
}
