/* _headalloc — the grouped-query allocation over (H, G, d) (grouped.h):
 * the KV options converted and checked, the solve (ha_grouped_solve)
 * kept in a capsule that the values, the report and the picture read,
 * so that all three show one solution. */
#include "ha_py.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "alloc/solver_internal.h"

static const char *const kv_names[7] = {"kv_heads", "max_kv_dim", "min_kv_heads",
                                        "max_kv_heads", "layers", "kv_bytes",
                                        "model_dim"};

int ha_py_kv(PyObject *tuple, struct ha_kv_constraints *kv, struct ha_kv_shape *shape)
{
	if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 7) {
		PyErr_SetString(PyExc_TypeError, "kv: expected the 7-tuple of the KV options");
		return 0;
	}
	uint64_t v[7];
	for (Py_ssize_t i = 0; i < 7; i++) {
		/* 0: auto (kv_heads), none (the bounds, model_dim), the default
		 * (layers 1, kv_bytes 2) */
		PyObject *index = PyNumber_Index(PyTuple_GET_ITEM(tuple, i));
		unsigned long long u = index ? PyLong_AsUnsignedLongLong(index) : 0;
		Py_XDECREF(index);
		if (PyErr_Occurred() || u > HA_BUDGET_MAX) {
			PyErr_Clear();
			ha_py_input_error("%s: expected a whole number from 1 to %" PRIu64,
			                  kv_names[i], (uint64_t)HA_BUDGET_MAX);
			return 0;
		}
		v[i] = u;
	}
	*kv = (struct ha_kv_constraints){v[0], v[1], v[2], v[3]};
	*shape = ha_kv_shape_defaults();
	if (v[4])
		shape->layers = v[4];
	if (v[5])
		shape->kv_bytes = v[5];
	shape->model_dim = v[6];
	if (ha_kv_constraints_validate(kv) != HA_OK) {
		ha_py_input_error("kv_heads %" PRIu64 ", min_kv_heads %" PRIu64
		                  ", max_kv_heads %" PRIu64 ": a minimum above its "
		                  "maximum, or kv_heads outside them",
		                  kv->kv_heads, kv->min_kv_heads, kv->max_kv_heads);
		return 0;
	}
	return 1;
}

int ha_py_kv_shape_check(PyObject *tuple, const struct ha_kv_shape *shape, uint64_t budget)
{
	if (ha_kv_shape_validate(shape, budget) == HA_OK)
		return 1;
	/* each value as the command line says it: "layers 32", "kv_bytes 2
	 * (the default)", "model_dim none (the default)" */
	const uint64_t value[3] = {shape->layers, shape->kv_bytes, shape->model_dim};
	char said[3][64];
	for (int i = 0; i < 3; i++) {
		int given = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, 4 + i)) == 1;
		char number[24];
		snprintf(number, sizeof number, "%" PRIu64, value[i]);
		snprintf(said[i], sizeof said[i], "%s %s%s", kv_names[4 + i],
		         value[i] || i < 2 ? number : "none", given ? "" : " (the default)");
	}
	ha_py_input_error("%s, %s and %s at budget %" PRIu64 ": the KV cache or the "
	                  "attention's parameters exceed 2^64-1", said[0], said[1], said[2],
	                  budget);
	return 0;
}

static void grouped_destroy(PyObject *capsule)
{
	struct ha_py_grouped *g = PyCapsule_GetPointer(capsule, HA_PY_GROUPED_CAPSULE);
	if (g) {
		ha_grouped_solution_finish(&g->solution);
		free(g);
	}
}

/* The InfeasibleError of KV constraints no triple meets, naming them as
 * the CLI does. */
static PyObject *infeasible(const struct ha_py_grouped *g)
{
	char message[HA_ERROR_MESSAGE_MAX];
	int n = snprintf(message, sizeof message, "no (heads, kv_heads, head_dim) of "
	                 "budget %" PRIu64 " meets the KV constraints:", g->budget);
	const uint64_t v[4] = {g->kv.kv_heads, g->kv.max_kv_dim, g->kv.min_kv_heads,
	                       g->kv.max_kv_heads};
	for (int i = 0; i < 4; i++)
		if (v[i] && n > 0 && (size_t)n < sizeof message)
			n += snprintf(message + n, sizeof message - (size_t)n, " %s %" PRIu64,
			              kv_names[i], v[i]);
	struct ha_error err;
	ha_error_init(&err);
	snprintf(err.message, sizeof err.message, "%s", message);
	return ha_py_raise(HA_EINFEASIBLE, &err);
}

/* _grouped(budget, samples, model, constraints, kv, front,
 * max_loss_ratio) -> capsule. */
PyObject *ha_py_grouped(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *budget_obj, *model_obj, *cons_obj, *kv_obj;
	double samples, ratio;
	int front;
	if (!PyArg_ParseTuple(args, "OdOOOpd", &budget_obj, &samples, &model_obj,
	                      &cons_obj, &kv_obj, &front, &ratio))
		return NULL;
	struct ha_py_grouped *g = calloc(1, sizeof *g);
	if (!g)
		return PyErr_NoMemory();
	if (!ha_py_budget(budget_obj, "budget", &g->budget) ||
	    !ha_py_valid_model(model_obj, samples, &g->model) ||
	    !ha_py_constraints(cons_obj, &g->constraints) ||
	    !ha_py_kv(kv_obj, &g->kv, &g->shape) ||
	    !ha_py_kv_shape_check(kv_obj, &g->shape, g->budget)) {
		free(g);
		return NULL;
	}
	if (!(ratio == 0.0 || ratio >= 1.0)) {
		free(g);
		return ha_py_input_error("max_loss_ratio: expected a finite number >= 1, found %.17g",
		                         ratio);
	}
	g->max_loss_ratio = ratio;
	struct ha_solver *solver = NULL;
	enum ha_status st, solver_st;
	Py_BEGIN_ALLOW_THREADS
	st = solver_st = ha_solver_new(g->budget, &g->constraints, &solver);
	if (st == HA_OK)
		st = ha_grouped_solve(&(struct ha_grouped_request){
			.solver = solver, .model = &g->model, .samples = samples, .kv = &g->kv,
			.shape = &g->shape, .front = front, .max_loss_ratio = ratio,
		}, &g->solution);
	ha_solver_free(solver);
	Py_END_ALLOW_THREADS
	PyObject *result = NULL;
	if (st == HA_EINFEASIBLE && solver_st == HA_OK)
		result = infeasible(g);
	else if (st == HA_EUNSUPPORTED) {
		/* the library's words for a budget past the bound */
		struct ha_error err;
		ha_error_init(&err);
		ha_grouped_sweep_check(&g->budget, 1, 1, &err);
		result = ha_py_raise(HA_EUNSUPPORTED, &err);
	} else if (st != HA_OK)
		result = ha_py_raise(st, NULL);
	else if (ratio > 0.0 && g->solution.chosen == g->solution.front_count) {
		struct ha_error err;
		ha_error_init(&err);
		snprintf(err.message, sizeof err.message, "max_loss_ratio %.6g: no allocation "
		         "meeting the KV constraints is within it of the unconstrained "
		         "error (the least ratio is %.6g)", ratio,
		         g->solution.optimum.loss_ratio);
		result = ha_py_raise(HA_EINFEASIBLE, &err);
	} else {
		result = PyCapsule_New(g, HA_PY_GROUPED_CAPSULE, grouped_destroy);
		if (result)
			return result;
	}
	ha_grouped_solution_finish(&g->solution);
	free(g);
	return result;
}

static PyObject *allocation_tuple(const struct ha_grouped_allocation *a)
{
	return Py_BuildValue("(KKKKKKKdN)", (unsigned long long)a->heads,
	                     (unsigned long long)a->kv_heads,
	                     (unsigned long long)a->group_size,
	                     (unsigned long long)a->head_dim,
	                     (unsigned long long)a->kv_dim,
	                     (unsigned long long)a->kv_cache_bytes_per_token,
	                     (unsigned long long)a->attention_params, a->loss_ratio,
	                     ha_py_terms_tuple(&a->terms));
}

/* _grouped_values(capsule) -> (optimum, unconstrained, relaxed,
 * certificate, front or None, chosen index or None). */
PyObject *ha_py_grouped_values(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_grouped *g = PyCapsule_GetPointer(capsule, HA_PY_GROUPED_CAPSULE);
	if (!g)
		return NULL;
	const struct ha_grouped_solution *s = &g->solution;
	PyObject *front = Py_None;
	Py_INCREF(front);
	if (s->front) {
		Py_DECREF(front);
		front = PyList_New((Py_ssize_t)s->front_count);
		for (size_t i = 0; front && i < s->front_count; i++) {
			PyObject *row = allocation_tuple(&s->front[i]);
			if (!row) {
				Py_CLEAR(front);
				break;
			}
			PyList_SET_ITEM(front, (Py_ssize_t)i, row);
		}
		if (!front)
			return NULL;
	}
	PyObject *chosen = g->max_loss_ratio > 0.0 && s->chosen < s->front_count
	                           ? PyLong_FromSize_t(s->chosen)
	                           : Py_NewRef(Py_None);
	const struct ha_grouped_relaxed *x = &s->relaxed;
	const struct ha_grouped_certificate *c = &s->certificate;
	return Py_BuildValue("(NN(ddddd)(snnnnK)NN)", allocation_tuple(&s->optimum),
	                     allocation_tuple(&s->unconstrained), x->head_dim, x->kv_heads,
	                     x->heads, x->kv_dim, x->log_mse,
	                     ha_certificate_method_str(c->method), (Py_ssize_t)c->divisors,
	                     (Py_ssize_t)c->head_dims, (Py_ssize_t)c->candidates,
	                     (Py_ssize_t)c->feasible, (unsigned long long)c->bound, front,
	                     chosen);
}
