/* _headalloc — the computations: allocation, candidates, models,
 * calibration and head weights.  Each function converts its arguments,
 * calls the library (without the GIL where the work can be long) and
 * returns plain tuples or a capsule that owns the library's result; the
 * Python layer names them. */
#include "ha_py.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc/model_internal.h"
#include "alloc/solver_internal.h"
#include "input/runs_internal.h"

PyObject *ha_py_terms_tuple(const struct ha_terms *t)
{
	return Py_BuildValue("(ddddddddddd)", t->log_bias2, t->log_variance,
	                     t->log_covariance, t->log_mse, t->bias2, t->variance,
	                     t->covariance, t->mse, t->irreducible,
	                     t->log_reducible, t->reducible);
}

/* The model of tuple and n = samples, each validated, the message
 * naming which is out of its domain. */
int ha_py_valid_model(PyObject *tuple, double samples, struct ha_model *m)
{
	if (!ha_py_model(tuple, m))
		return 0;
	if (ha_model_validate(m) != HA_OK) {
		ha_py_input_error("model: a parameter is outside its domain");
		return 0;
	}
	if (ha_samples_validate(samples) != HA_OK) {
		PyObject *value = PyFloat_FromDouble(samples);
		if (value) {
			ha_py_bad_value(value, "samples", "%s", HA_MODEL_SAMPLES_DOMAIN);
			Py_DECREF(value);
		}
		return 0;
	}
	return 1;
}

static void allocation_destroy(PyObject *capsule)
{
	struct ha_py_allocation *a = PyCapsule_GetPointer(capsule, HA_PY_ALLOCATION_CAPSULE);
	if (a)
		ha_allocation_result_free(a->result);
	PyMem_Free(a);
}

/* _allocate(budget, samples, model, constraints) -> (heads, head_dim,
 * terms, relaxed, certificate, capsule): the capsule owns the result
 * that the report, the candidates and the picture read. */
PyObject *ha_py_allocate(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *budget_obj, *model_obj, *cons_obj;
	double samples;
	if (!PyArg_ParseTuple(args, "OdOO", &budget_obj, &samples, &model_obj, &cons_obj))
		return NULL;
	uint64_t budget;
	struct ha_py_allocation *a = PyMem_Calloc(1, sizeof *a);
	if (!a)
		return PyErr_NoMemory();
	if (!ha_py_budget(budget_obj, "budget", &budget) ||
	    !ha_py_valid_model(model_obj, samples, &a->model) ||
	    !ha_py_constraints(cons_obj, &a->constraints)) {
		PyMem_Free(a);
		return NULL;
	}
	/* The candidates (to_dict, candidates()) and the landscape (plot())
	 * with the optimum, once. */
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st;
	Py_BEGIN_ALLOW_THREADS
	st = ha_allocation_result_new(budget, &a->constraints, NULL, &a->model,
	                              samples, HA_ALLOCATION_CANDIDATES | HA_ALLOCATION_DIVISORS,
	                              &a->result, &err);
	Py_END_ALLOW_THREADS
	PyObject *capsule = st == HA_OK
		? PyCapsule_New(a, HA_PY_ALLOCATION_CAPSULE, allocation_destroy) : NULL;
	if (!capsule) {
		struct ha_constraints constraints = a->constraints;
		ha_allocation_result_free(a->result);
		PyMem_Free(a);
		if (st == HA_EINFEASIBLE)
			return ha_py_infeasible(budget, &constraints);
		return st == HA_OK ? NULL : ha_py_raise(st, NULL);
	}
	const struct ha_solution *s = &a->result->solution;
	return Py_BuildValue("(KKN(ddd)(snnn)N)", (unsigned long long)s->optimum.heads,
	                     (unsigned long long)s->optimum.head_dim,
	                     ha_py_terms_tuple(&s->optimum.terms), s->relaxed.head_dim,
	                     s->relaxed.heads, s->relaxed.log_mse,
	                     ha_certificate_method_str(s->certificate.method),
	                     (Py_ssize_t)s->certificate.divisors,
	                     (Py_ssize_t)s->certificate.feasible,
	                     (Py_ssize_t)s->certificate.evaluated, capsule);
}

/* _candidates(capsule) -> [(heads, head_dim, terms)], best first: the
 * allocation's own. */
PyObject *ha_py_candidates(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_allocation *a = PyCapsule_GetPointer(capsule,
	                                                        HA_PY_ALLOCATION_CAPSULE);
	if (!a)
		return NULL;
	const struct ha_allocation *all = a->result->candidates;
	size_t count = a->result->candidate_count;
	PyObject *list = PyList_New((Py_ssize_t)count);
	for (size_t i = 0; list && i < count; i++) {
		PyObject *row = Py_BuildValue("(KKN)", (unsigned long long)all[i].heads,
		                              (unsigned long long)all[i].head_dim,
		                              ha_py_terms_tuple(&all[i].terms));
		if (!row) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, row);
	}
	return list;
}

/* _model_valid(model) -> bool: ha_model_validate. */
PyObject *ha_py_model_validate(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *model_obj;
	if (!PyArg_ParseTuple(args, "O", &model_obj))
		return NULL;
	struct ha_model m;
	if (!ha_py_model(model_obj, &m))
		return NULL;
	return PyBool_FromLong(ha_model_validate(&m) == HA_OK);
}

/* _model_param_domain(name, value) -> (expected, in_domain): the domain
 * of a parameter in the words every front end uses; expected None for a
 * name that is no parameter. */
PyObject *ha_py_model_param_domain(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	double v;
	if (!PyArg_ParseTuple(args, "sd", &name, &v))
		return NULL;
	int in_domain = 0;
	const char *expected = ha_model_param_domain(name, v, &in_domain);
	return Py_BuildValue("(zO)", expected, in_domain ? Py_True : Py_False);
}

/* _model_defaults() -> the model tuple of ha_model_defaults(). */
PyObject *ha_py_model_defaults(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	const struct ha_model m = ha_model_defaults();
	return ha_py_model_tuple(&m);
}

/* _calibration_parameters() -> the calibration's parameter names, in
 * the library's order (ha_cal_param_str). */
PyObject *ha_py_calibration_parameters(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	PyObject *t = PyTuple_New(HA_CAL_PARAMS);
	if (!t)
		return NULL;
	for (int k = 0; k < HA_CAL_PARAMS; k++) {
		PyObject *name = PyUnicode_FromString(ha_cal_param_str((enum ha_cal_param)k));
		if (!name) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, k, name);
	}
	return t;
}

/* _model_from_yaml(path) -> model tuple of a scenario file's model (a
 * calibration report is one). */
PyObject *ha_py_model_from_yaml(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path_obj;
	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
		return NULL;
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_scenario_read_file(PyBytes_AS_STRING(path_obj), &sc, &err);
	if (st != HA_OK && !err.file)
		err.file = PyBytes_AS_STRING(path_obj);
	PyObject *result = st == HA_OK ? ha_py_model_tuple(&sc->model) : ha_py_raise(st, &err);
	ha_scenario_free(sc);
	Py_DECREF(path_obj);
	return result;
}

/* _sweep_values(from, to, points) -> the log-spaced values of a sweep's
 * range. */
PyObject *ha_py_sweep_values(PyObject *self, PyObject *args)
{
	(void)self;
	double from, to;
	Py_ssize_t points;
	if (!PyArg_ParseTuple(args, "ddn", &from, &to, &points))
		return NULL;
	if (!(from > 0 && to > from && isfinite(to)) || points < 2)
		return ha_py_input_error("logspace: expected 0 < from < to (finite) and points >= 2");
	npy_intp dims[1] = {points};
	PyObject *a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
	if (!a)
		return NULL;
	double *d = PyArray_DATA((PyArrayObject *)a);
	struct ha_samples range = {NULL, (size_t)points, from, to};
	for (Py_ssize_t i = 0; i < points; i++)
		d[i] = ha_samples_value(&range, (size_t)i);
	return a;
}

/* ---- calibration ------------------------------------------------------------ */

static void calibration_destroy(PyObject *capsule)
{
	ha_calibration_free(PyCapsule_GetPointer(capsule, HA_PY_CALIBRATION_CAPSULE));
}

int ha_py_law(PyObject *free_obj, PyObject *fixed_obj, struct ha_cal_law *law)
{
	for (int k = 0; k < HA_CAL_PARAMS; k++) {
		PyObject *f = PyTuple_GetItem(free_obj, k);
		if (!f)
			return 0;
		law->free[k] = PyObject_IsTrue(f);
	}
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (PyDict_Next(fixed_obj, &pos, &key, &value)) {
		long k = PyLong_AsLong(key);
		double v = PyFloat_AsDouble(value);
		if (PyErr_Occurred())
			return 0;
		if (k < 0 || k >= HA_CAL_PARAMS) {
			ha_py_input_error("fix: no parameter %ld", k);
			return 0;
		}
		law->value[k] = v;
	}
	return 1;
}

int ha_py_columns(PyObject *cols, int want, const char *what, Py_buffer *b,
                  Py_ssize_t *count)
{
	if (!PyTuple_Check(cols) || PyTuple_GET_SIZE(cols) != want) {
		PyErr_Format(PyExc_TypeError, "%s: expected %d columns", what, want);
		return 0;
	}
	Py_ssize_t n = -1;
	for (int got = 0; got < want; got++) {
		int ok = PyObject_GetBuffer(PyTuple_GET_ITEM(cols, got), &b[got],
		                            PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0;
		Py_ssize_t len = ok ? b[got].len / 8 : 0;
		if (ok && (b[got].itemsize != 8 || (n >= 0 && len != n))) {
			PyBuffer_Release(&b[got]);
			PyErr_Format(PyExc_TypeError, "%s: columns of 8-byte items and one length", what);
			ok = 0;
		}
		if (!ok) {
			while (got-- > 0)
				PyBuffer_Release(&b[got]);
			return 0;
		}
		n = len;
	}
	*count = n;
	return 1;
}

/* _calibrate(runs, free, fixed, target, constraints, huber_delta,
 * bootstrap, seed, compare, progress) -> capsule.  runs is (a path or
 * the columns, the columns' names) as ha_py_runs takes it; free an
 * HA_CAL_PARAMS-tuple of 0/1; fixed a dict {index: fit-scale value};
 * target None or (budget, samples). */
PyObject *ha_py_calibrate(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *runs_obj, *free_obj, *fixed_obj, *target_obj, *cons_obj, *progress;
	PyObject *options = NULL;
	double huber;
	Py_ssize_t bootstrap;
	unsigned long long seed;
	int compare;
	if (!PyArg_ParseTuple(args, "OOO!OOdnKpO|O!", &runs_obj, &free_obj, &PyDict_Type,
	                      &fixed_obj, &target_obj, &cons_obj, &huber, &bootstrap,
	                      &seed, &compare, &progress, &PyTuple_Type, &options))
		return NULL;
	struct ha_cal_options o;
	struct ha_cal_law user_laws[HA_CAL_USER_LAWS_MAX];
	ha_cal_options_defaults(&o);
	if (options && !ha_py_cal_options(options, &o, user_laws))
		return NULL;
	o.huber_delta = huber;
	if (bootstrap < 0)
		return ha_py_input_error("bootstrap: expected a whole number >= 0, found %zd", bootstrap);
	o.bootstrap = (size_t)bootstrap;
	o.seed = seed;
	o.compare = compare;
	if (!ha_py_law(free_obj, fixed_obj, &o.law))
		return NULL;
	if (target_obj != Py_None) {
		PyObject *b;
		if (!PyArg_ParseTuple(target_obj, "Od", &b, &o.target.samples))
			return NULL;
		if (!ha_py_budget(b, "target budget", &o.target.budget))
			return NULL;
		if (!ha_samples_valid(o.target.samples))
			return ha_py_bad_value(PyTuple_GET_ITEM(target_obj, 1), "target samples",
			                       "%s", HA_MODEL_SAMPLES_DOMAIN);
		if (!ha_py_constraints(cons_obj, &o.target.constraints) ||
		    !ha_py_target_feasible(o.target.budget, &o.target.constraints))
			return NULL;
	}
	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_error err;
	ha_error_init(&err);
	PyObject *path = NULL;
	if (!ha_py_runs(runs_obj, &runs, &count, &path))
		return NULL;
	enum ha_status st = HA_OK;
	struct ha_calibration *cal = NULL;
	struct ha_py_progress state = {progress, NULL, 0};
#ifdef HA_PY_BOOTSTRAP_PROGRESS
	o.progress.fn = ha_py_progress_fn;
	o.progress.ctx = &state;
#else
	(void)state;
#endif
	if (st == HA_OK) {
		Py_BEGIN_ALLOW_THREADS
		st = ha_calibrate(runs, count, &o, &cal, &err);
		Py_END_ALLOW_THREADS
		/* the runs' file, as the command line names it */
		if (st != HA_OK && path && !err.file)
			err.file = PyBytes_AS_STRING(path);
	}
	free(runs);
	PyObject *result;
	if (st == HA_ECANCELED && state.failed)
		result = NULL; /* the callback's exception (KeyboardInterrupt) */
	else if (st != HA_OK)
		result = ha_py_raise(st, &err);
	else {
		result = PyCapsule_New(cal, HA_PY_CALIBRATION_CAPSULE, calibration_destroy);
		if (!result)
			ha_calibration_free(cal);
	}
	Py_XDECREF(path);
	return result;
}

/* _calibration_model(capsule) -> (model tuple, samples). */
PyObject *ha_py_calibration_model(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_calibration *cal = PyCapsule_GetPointer(capsule, HA_PY_CALIBRATION_CAPSULE);
	if (!cal)
		return NULL;
	return Py_BuildValue("(Nd)", ha_py_model_tuple(&cal->model), cal->samples);
}

/* ---- head weights --------------------------------------------------------- */

static void weights_destroy(PyObject *capsule)
{
	struct ha_py_head_weights *w = PyCapsule_GetPointer(capsule, HA_PY_WEIGHTS_CAPSULE);
	if (w) {
		ha_head_weights_finish(&w->weights);
		free(w->sigma);
		free(w);
	}
}

/* _head_weights(path or 2-D C-contiguous float64 array) -> capsule. */
PyObject *ha_py_head_weights(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *src;
	if (!PyArg_ParseTuple(args, "O", &src))
		return NULL;
	struct ha_error err;
	ha_error_init(&err);
	struct ha_py_head_weights *w = calloc(1, sizeof *w);
	if (!w)
		return PyErr_NoMemory();
	size_t heads = 0;
	enum ha_status st;
	PyObject *path = NULL;
	if (PyUnicode_Check(src) || PyBytes_Check(src)) {
		if (!PyUnicode_FSConverter(src, &path)) {
			free(w);
			return NULL;
		}
		st = ha_covariance_read(PyBytes_AS_STRING(path), &w->sigma, &heads, &err);
	} else {
		Py_buffer b;
		if (PyObject_GetBuffer(src, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0) {
			free(w);
			return NULL;
		}
		if (b.ndim != 2 || b.shape[0] != b.shape[1] || b.itemsize != 8 ||
		    strcmp(b.format, "d") != 0) {
			PyBuffer_Release(&b);
			free(w);
			return ha_py_input_error("covariance: expected a square 2-D array of float64");
		}
		heads = (size_t)b.shape[0];
		w->sigma = malloc(sizeof *w->sigma * (heads > 0 ? heads * heads : 1));
		if (w->sigma)
			memcpy(w->sigma, b.buf, sizeof *w->sigma * heads * heads);
		PyBuffer_Release(&b);
		st = w->sigma ? HA_OK : HA_ENOMEM;
	}
	if (st == HA_OK) {
		Py_BEGIN_ALLOW_THREADS
		st = ha_covariance_weights(w->sigma, heads, &w->weights, &err);
		Py_END_ALLOW_THREADS
	}
	if (st != HA_OK) {
		/* a file's covariance, named as the command line names it */
		if (path && !err.file)
			err.file = PyBytes_AS_STRING(path);
		free(w->sigma);
		free(w);
		PyObject *r = ha_py_raise(st, &err);
		Py_XDECREF(path);
		return r;
	}
	Py_XDECREF(path);
	PyObject *capsule = PyCapsule_New(w, HA_PY_WEIGHTS_CAPSULE, weights_destroy);
	if (!capsule) {
		ha_head_weights_finish(&w->weights);
		free(w->sigma);
		free(w);
	}
	return capsule;
}

/* _head_weights_values(capsule) -> (alpha, error_optimal, error_uniform,
 * gain, pseudo_inverse, null_space, rank, min_eigenvalue, sigma). */
PyObject *ha_py_head_weights_values(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_head_weights *p = PyCapsule_GetPointer(capsule, HA_PY_WEIGHTS_CAPSULE);
	if (!p)
		return NULL;
	const struct ha_head_weights *w = &p->weights;
	PyObject *sigma = ha_py_array_double(p->sigma, w->heads * w->heads);
	if (sigma) {
		npy_intp dims[2] = {(npy_intp)w->heads, (npy_intp)w->heads};
		PyArray_Dims shape = {dims, 2};
		PyObject *s2 = PyArray_Newshape((PyArrayObject *)sigma, &shape, NPY_CORDER);
		Py_DECREF(sigma);
		sigma = s2;
	}
	return Py_BuildValue("(NdddiinNd)", ha_py_array_double(w->alpha, w->heads),
	                     w->error_optimal, w->error_uniform, w->gain,
	                     w->pseudo_inverse, w->null_space, (Py_ssize_t)w->rank,
	                     sigma, w->min_eigenvalue);
}
