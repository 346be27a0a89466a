/* _headalloc — every call to the library's report and plot API, in this
 * one file (the request structs change with the library; only this file
 * follows them).
 *
 * A report is rendered into Python objects through the report's events
 * (events.c): the keys of to_dict() are the report's own by construction,
 * and no text is made.  Each report and picture reads the result its
 * Python object owns (a capsule): nothing is solved again.  A picture is
 * drawn into memory and returned as bytes for the Python layer to write
 * or show. */
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

static PyObject *report(ha_py_sections_fn fn, const void *ctx)
{
	return ha_py_report_dict(fn, ctx, NULL);
}

static enum ha_status header_section(struct ha_report *r, const void *ctx,
                                     struct ha_error *err)
{
	const struct ha_py_problem *p = ctx;
	struct ha_header_request req = {.model = &p->model, .constraints = &p->constraints};
	return ha_report_header(r, &req, err);
}

/* _report_model(None, None, model, constraints) -> dict. */
PyObject *ha_py_report_model(PyObject *self, PyObject *args)
{
	(void)self;
	struct ha_py_problem p;
	if (!ha_py_problem_of(args, &p))
		return NULL;
	PyObject *result = report(header_section, &p);
	ha_py_problem_release(&p);
	return result;
}

static enum ha_status allocation_section(struct ha_report *r, const void *ctx,
                                         struct ha_error *err)
{
	const struct ha_py_allocation *a = ctx;
	return ha_report_allocation(r, &(struct ha_allocation_request){
		.model = &a->model, .solution = &a->result->solution,
		.candidates = a->result->candidates,
		.candidate_count = a->result->candidate_count,
	}, err);
}

/* _report_allocation(capsule) -> dict: the allocation with its candidates
 * (--all). */
PyObject *ha_py_report_allocation(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_allocation *a = PyCapsule_GetPointer(capsule,
	                                                        HA_PY_ALLOCATION_CAPSULE);
	return a ? report(allocation_section, a) : NULL;
}

/* ---- sweeps ---------------------------------------------------------------- */

static enum ha_status sweep_sections(struct ha_report *r, const void *ctx,
                                     struct ha_error *err)
{
	const struct ha_py_sweep *s = ctx;
	const struct ha_sweep_request *req = ha_sweep_result_request(s->result);
	enum ha_status st = ha_report_header(r, &(struct ha_header_request){
		.model = req->model, .constraints = &s->constraints}, err);
	if (st == HA_OK)
		st = ha_report_table(r, &(struct ha_table_request){.result = s->result}, err);
	return st;
}

/* _report_sweep(capsule[, fits_only]) -> dict: the report of the sweep
 * (with fits_only true, without its table: the fits at the cost of
 * their own objects alone). */
PyObject *ha_py_report_sweep(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	int fits_only = 0;
	if (!PyArg_ParseTuple(args, "O|p", &capsule, &fits_only))
		return NULL;
	const struct ha_py_sweep *s = PyCapsule_GetPointer(capsule, HA_PY_SWEEP_CAPSULE);
	return s ? ha_py_report_dict(sweep_sections, s, fits_only ? "table" : NULL) : NULL;
}

/* ---- regimes --------------------------------------------------------------- */

/* Regimes of budgets: over (H, G, d) under kv when given
 * (ha_regimes_new_grouped, as the CLI's --regimes with the KV options),
 * else over (H, d). */
static enum ha_status regimes_new(const struct ha_model *model,
                                  const struct ha_constraints *constraints,
                                  const struct ha_kv_constraints *kv,
                                  const uint64_t *budgets, size_t count,
                                  struct ha_regimes **out, struct ha_error *err)
{
	if (kv)
		return ha_regimes_new_grouped(model, constraints, kv, budgets, count,
		                              NULL, out, err);
	return ha_regimes_new(model, constraints, budgets, count, NULL, out, err);
}

/* The capsule of regimes: the problem and its regimes. */
struct ha_py_regimes {
	struct ha_py_problem problem;
	struct ha_regimes *regimes;
};
#define HA_PY_REGIMES_CAPSULE "headalloc.regimes"

static void regimes_destroy(PyObject *capsule)
{
	struct ha_py_regimes *g = PyCapsule_GetPointer(capsule, HA_PY_REGIMES_CAPSULE);
	if (!g)
		return;
	ha_regimes_free(g->regimes);
	ha_py_problem_release(&g->problem);
	PyMem_Free(g);
}

/* _regimes(budgets, None, model, constraints[, kv]) -> capsule: kv None
 * or the KV options (grouped.c), the regimes then over (H, G, d) with
 * kv_heads and kv_dim. */
PyObject *ha_py_regimes(PyObject *self, PyObject *args)
{
	(void)self;
	struct ha_py_regimes *g = PyMem_Calloc(1, sizeof *g);
	if (!g)
		return PyErr_NoMemory();
	if (!ha_py_problem_kv_of(args, &g->problem)) {
		PyMem_Free(g);
		return NULL;
	}
	const struct ha_py_problem *p = &g->problem;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st;
	Py_BEGIN_ALLOW_THREADS
	st = regimes_new(&p->model, &p->constraints, p->grouped ? &p->kv : NULL,
	                 p->budgets, p->budget_count, &g->regimes, &err);
	Py_END_ALLOW_THREADS
	PyObject *capsule = st == HA_OK
		? PyCapsule_New(g, HA_PY_REGIMES_CAPSULE, regimes_destroy) : NULL;
	if (!capsule) {
		ha_regimes_free(g->regimes);
		ha_py_problem_release(&g->problem);
		PyMem_Free(g);
		if (st == HA_EUNSUPPORTED) { /* "budget D: ...", as the command line says */
			char message[HA_ERROR_MESSAGE_MAX];
			memcpy(message, err.message, sizeof message);
			snprintf(err.message, sizeof err.message, "budget %.*s",
			         (int)sizeof err.message - 8, message);
		}
		return st == HA_OK ? NULL : ha_py_raise(st, &err);
	}
	return capsule;
}

static void regimes_request(const struct ha_py_regimes *g, struct ha_regimes_request *req)
{
	const struct ha_py_problem *p = &g->problem;
	*req = (struct ha_regimes_request){.model = &p->model,
	                                   .constraints = &p->constraints,
	                                   .budgets = p->budgets,
	                                   .budget_count = p->budget_count,
	                                   .regimes = g->regimes};
}

static enum ha_status regimes_sections(struct ha_report *r, const void *ctx,
                                       struct ha_error *err)
{
	const struct ha_py_regimes *g = ctx;
	struct ha_regimes_request req;
	regimes_request(g, &req);
	enum ha_status st = header_section(r, &g->problem, err);
	if (st == HA_OK)
		st = ha_report_regimes(r, &req, err);
	return st;
}

/* _report_regimes(capsule) -> dict. */
PyObject *ha_py_report_regimes(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_regimes *g = PyCapsule_GetPointer(capsule, HA_PY_REGIMES_CAPSULE);
	return g ? report(regimes_sections, g) : NULL;
}

static enum ha_status hdi_section(struct ha_report *r, const void *ctx,
                                  struct ha_error *err)
{
	const struct ha_py_hdi *h = ctx;
	struct ha_hdi_request req = {.file = h->file, .layout = h->layout,
	                             .hdi = h->report, .checkpoint = h->checkpoint,
	                             .heads_reason = h->heads_reason[0]
	                                                     ? h->heads_reason
	                                                     : NULL};
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

/* _plot_*(name, capsule): the picture of a result. */
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

static enum ha_status draw_allocation(struct ha_plot_target *t, const void *ctx,
                                      struct ha_error *err)
{
	const struct ha_py_allocation *a = ctx;
	return ha_plot_allocation(t, &(struct ha_plot_allocation_request){
		.model = &a->model, .constraints = &a->constraints,
		.budget = a->result->budget, .allocation = a->result,
	}, err);
}

/* _plot_allocation(name, capsule): the landscape of the allocation's
 * budget, from its divisors. */
PyObject *ha_py_plot_allocation(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_ALLOCATION_CAPSULE, draw_allocation);
}

static enum ha_status draw_sweep(struct ha_plot_target *t, const void *ctx,
                                 struct ha_error *err)
{
	return ha_plot_sweep(t, &(struct ha_plot_sweep_request){.picture = ctx}, err);
}

/* _plot_sweep(name, capsule): the picture data made from the result with
 * the GIL held (the result is read by one thread at a time), with the
 * regimes of its budgets and its relaxed curve (what the table does not
 * hold), then drawn. */
PyObject *ha_py_plot_sweep(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "sO", &name, &capsule))
		return NULL;
	const struct ha_py_sweep *s = PyCapsule_GetPointer(capsule, HA_PY_SWEEP_CAPSULE);
	if (!s)
		return NULL;
	const struct ha_sweep_request *req = ha_sweep_result_request(s->result);
	struct ha_regimes *regimes = NULL;
	struct ha_sweep_picture *data = NULL;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = HA_OK;
	if (req->samples.count > 1)
		st = regimes_new(req->model, req->constraints, req->kv, req->budgets,
		                 req->budget_count, &regimes, &err);
	if (st == HA_OK)
		st = ha_sweep_picture_new(&(struct ha_sweep_picture_request){
			.result = s->result, .regimes = regimes}, &data, &err);
	PyObject *bytes = st == HA_OK ? picture(name, draw_sweep, data)
	                              : ha_py_raise(st, &err);
	ha_sweep_picture_free(data);
	ha_regimes_free(regimes);
	return bytes;
}

static enum ha_status draw_regimes(struct ha_plot_target *t, const void *ctx,
                                   struct ha_error *err)
{
	struct ha_regimes_request req;
	regimes_request(ctx, &req);
	return ha_plot_regimes(t, &req, err);
}

/* _plot_regimes(name, capsule). */
PyObject *ha_py_plot_regimes(PyObject *self, PyObject *args)
{
	(void)self;
	return plot_capsule(args, HA_PY_REGIMES_CAPSULE, draw_regimes);
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
