/* _headalloc — Python objects to the library's structs and back, the
 * error bridge to headalloc._errors, and the progress trampoline. */
#include "ha_py.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "alloc/solver_internal.h"
#include "input/budget_list.h"

/* headalloc._errors.from_status(status, message, file, line, column)
 * makes the exception; raising it here keeps the classes in Python. */
static PyObject *make_error(int status, const char *message, const char *file,
                            long line, long column)
{
	PyObject *mod = PyImport_ImportModule("headalloc._errors");
	if (!mod)
		return NULL;
	PyObject *exc = PyObject_CallMethod(mod, "from_status", "isNll", status,
	                                    message, file ? PyUnicode_DecodeFSDefault(file)
	                                                  : Py_NewRef(Py_None),
	                                    line, column);
	Py_DECREF(mod);
	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

PyObject *ha_py_raise(enum ha_status status, const struct ha_error *err)
{
	if (status == HA_ENOMEM)
		return PyErr_NoMemory();
	const char *message = err && err->message[0] ? err->message
	                                             : ha_status_str(status);
	return make_error((int)status, message, err ? err->file : NULL,
	                  err ? err->line : 0, err ? err->column : 0);
}

PyObject *ha_py_input_error(const char *format, ...)
{
	char message[HA_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, format);
	vsnprintf(message, sizeof message, format, ap);
	va_end(ap);
	return make_error((int)HA_EINVAL, message, NULL, 0, 0);
}

void ha_py_append_constraints(char *message, size_t size, const struct ha_constraints *c)
{
	const struct { const char *name; uint64_t value; } items[] = {
		{"head_dim_multiple", c->head_dim_multiple},
		{"min_head_dim", c->min_head_dim},
		{"max_head_dim", c->max_head_dim},
		{"min_heads", c->min_heads},
		{"max_heads", c->max_heads},
	};
	size_t used = strlen(message);
	if (used + 1 < size)
		message[used++] = ':', message[used] = '\0';
	for (size_t i = 0; i < sizeof items / sizeof *items && used < size; i++)
		if (items[i].value)
			used += (size_t)snprintf(message + used, size - used, " %s %llu",
			                         items[i].name, (unsigned long long)items[i].value);
}

PyObject *ha_py_infeasible(uint64_t budget, const struct ha_constraints *c)
{
	struct ha_error err;
	ha_error_init(&err);
	snprintf(err.message, sizeof err.message,
	         "no (heads, head_dim) pair of budget %llu meets the constraints",
	         (unsigned long long)budget);
	ha_py_append_constraints(err.message, sizeof err.message, c);
	return ha_py_raise(HA_EINFEASIBLE, &err);
}

int ha_py_target_feasible(uint64_t budget, const struct ha_constraints *c)
{
	struct ha_solver *solver = NULL;
	enum ha_status st = ha_solver_new(budget, c, &solver);
	ha_solver_free(solver);
	if (st == HA_EINFEASIBLE)
		ha_py_infeasible(budget, c);
	else if (st != HA_OK)
		ha_py_raise(st, NULL);
	return st == HA_OK;
}

/* ---- numbers ------------------------------------------------------------- */

PyObject *ha_py_bad_value(PyObject *obj, const char *name, const char *format, ...)
{
	char expected[HA_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, format);
	vsnprintf(expected, sizeof expected, format, ap);
	va_end(ap);
	PyObject *repr = PyObject_Repr(obj);
	const char *text = repr ? PyUnicode_AsUTF8(repr) : NULL;
	if (!text)
		PyErr_Clear();
	ha_py_input_error("%s: invalid value %.200s: expected %s", name, text ? text : "?",
	                  expected);
	Py_XDECREF(repr);
	return NULL;
}

static int as_double(PyObject *obj, const char *name, double *out)
{
	double v = PyFloat_AsDouble(obj);
	if (v == -1.0 && PyErr_Occurred()) {
		PyErr_Clear();
		ha_py_input_error("%s: expected a number", name);
		return 0;
	}
	*out = v;
	return 1;
}

static int as_u64(PyObject *obj, const char *name, uint64_t min, uint64_t max,
                  uint64_t *out)
{
	PyObject *index = PyBool_Check(obj) ? NULL : PyNumber_Index(obj);
	if (!index) {
		PyErr_Clear();
		ha_py_bad_value(obj, name, "a whole number from %llu to %llu",
		          (unsigned long long)min, (unsigned long long)max);
		return 0;
	}
	int overflow = 0;
	long long s = PyLong_AsLongLongAndOverflow(index, &overflow);
	Py_DECREF(index);
	if (overflow || s < 0 || (uint64_t)s < min || (uint64_t)s > max) {
		if (PyErr_Occurred())
			PyErr_Clear();
		ha_py_bad_value(obj, name, "a whole number from %llu to %llu",
		          (unsigned long long)min, (unsigned long long)max);
		return 0;
	}
	*out = (uint64_t)s;
	return 1;
}

int ha_py_budget(PyObject *obj, const char *name, uint64_t *out)
{
	return as_u64(obj, name, 1, HA_BUDGET_MAX, out);
}

/* headalloc.Model's tuple is struct ha_model's fields in order: each
 * coefficient is one number and a flag saying whether it is the log. */
int ha_py_model(PyObject *tuple, struct ha_model *out)
{
	if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 13) {
		PyErr_SetString(PyExc_TypeError, "model: expected the 13-tuple of headalloc.Model");
		return 0;
	}
	double v[13];
	for (Py_ssize_t i = 0; i < 13; i++)
		if (!as_double(PyTuple_GET_ITEM(tuple, i), "model", &v[i]))
			return 0;
	*out = (struct ha_model){
		.smoothness = v[0], .bias_coef = v[1], .var_coef = v[2],
		.hdi = v[3], .irreducible = v[4], .var_rate = v[5],
		.var_power = v[6], .bias_coef_is_log = v[7] != 0.0,
		.var_coef_is_log = v[8] != 0.0, .data_coef = v[9],
		.data_power = v[10], .var_samples_power = v[11],
		.group_hdi = v[12],
	};
	return 1;
}

PyObject *ha_py_model_tuple(const struct ha_model *m)
{
	return Py_BuildValue("(dddddddiidddd)",
	                     m->smoothness, m->bias_coef, m->var_coef, m->hdi,
	                     m->irreducible, m->var_rate, m->var_power,
	                     m->bias_coef_is_log != 0, m->var_coef_is_log != 0,
	                     m->data_coef, m->data_power, m->var_samples_power,
	                     m->group_hdi);
}

int ha_py_constraints(PyObject *tuple, struct ha_constraints *out)
{
	static const char *const names[5] = {"head_dim_multiple", "min_head_dim",
	                                     "max_head_dim", "min_heads",
	                                     "max_heads"};
	memset(out, 0, sizeof *out);
	if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 5) {
		PyErr_SetString(PyExc_TypeError, "constraints: expected a 5-tuple");
		return 0;
	}
	uint64_t v[5];
	for (Py_ssize_t i = 0; i < 5; i++)
		if (!as_u64(PyTuple_GET_ITEM(tuple, i), names[i], 0, HA_BUDGET_MAX, &v[i]))
			return 0;
	out->head_dim_multiple = v[0];
	out->min_head_dim = v[1];
	out->max_head_dim = v[2];
	out->min_heads = v[3];
	out->max_heads = v[4];
	/* each pair out of order, named as the command line names it */
	if (out->min_head_dim && out->max_head_dim && out->min_head_dim > out->max_head_dim) {
		ha_py_input_error("min_head_dim %llu is larger than max_head_dim %llu",
		                  (unsigned long long)out->min_head_dim,
		                  (unsigned long long)out->max_head_dim);
		return 0;
	}
	if (out->min_heads && out->max_heads && out->min_heads > out->max_heads) {
		ha_py_input_error("min_heads %llu is larger than max_heads %llu",
		                  (unsigned long long)out->min_heads,
		                  (unsigned long long)out->max_heads);
		return 0;
	}
	if (ha_constraints_validate(out) != HA_OK) {
		ha_py_input_error("constraints: a minimum above its maximum");
		return 0;
	}
	return 1;
}

int ha_py_budgets(PyObject *seq, uint64_t **out, size_t *count)
{
	PyObject *fast = PySequence_Fast(seq, "budgets: expected a sequence of whole numbers");
	if (!fast)
		return 0;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	uint64_t *v = PyMem_Malloc(sizeof *v * (size_t)(n ? n : 1));
	if (!v) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return 0;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		if (!ha_py_budget(PySequence_Fast_GET_ITEM(fast, i), "budgets", &v[i])) {
			PyMem_Free(v);
			Py_DECREF(fast);
			return 0;
		}
	}
	Py_DECREF(fast);
	/* the list's rules, the command line's --budget's (budget_list.h) */
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_budget_list_check(v, (size_t)n, &err);
	if (st == HA_OK)
		st = ha_budget_list_check_divisors(v, (size_t)n, &err);
	if (st != HA_OK) {
		PyMem_Free(v);
		if (st == HA_EINVAL)
			ha_py_input_error("budgets: %s", err.message);
		else
			ha_py_raise(st, &err);
		return 0;
	}
	*out = v;
	*count = (size_t)n;
	return 1;
}

int ha_py_doubles(PyObject *seq, const char *name, double **out, size_t *count)
{
	PyObject *fast = PySequence_Fast(seq, "expected a sequence of numbers");
	if (!fast)
		return 0;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	double *v = PyMem_Malloc(sizeof *v * (size_t)(n ? n : 1));
	if (!v) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return 0;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		if (!as_double(PySequence_Fast_GET_ITEM(fast, i), name, &v[i])) {
			PyMem_Free(v);
			Py_DECREF(fast);
			return 0;
		}
	}
	Py_DECREF(fast);
	*out = v;
	*count = (size_t)n;
	return 1;
}

PyObject *ha_py_array_double(const double *v, size_t n)
{
	npy_intp dims[1] = {(npy_intp)n};
	PyObject *a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
	if (a && n)
		memcpy(PyArray_DATA((PyArrayObject *)a), v, n * sizeof *v);
	return a;
}

PyObject *ha_py_array_size(const size_t *v, size_t n)
{
	npy_intp dims[1] = {(npy_intp)n};
	PyObject *a = PyArray_SimpleNew(1, dims, NPY_UINT64);
	if (!a)
		return NULL;
	npy_uint64 *d = PyArray_DATA((PyArrayObject *)a);
	for (size_t i = 0; i < n; i++)
		d[i] = (npy_uint64)v[i];
	return a;
}

/* ---- progress ------------------------------------------------------------ */

int ha_py_progress_fn(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct ha_py_progress *p = ctx;
	if (p->failed)
		return 1;
	PyGILState_STATE gil = PyGILState_Ensure();
	int stop = 0;
	if (PyErr_CheckSignals() < 0) {
		stop = 1;
	} else if (p->callable && p->callable != Py_None) {
		PyObject *r = PyObject_CallFunction(p->callable, "sKK", what,
		                                    (unsigned long long)done,
		                                    (unsigned long long)total);
		if (!r)
			stop = 1;
		else
			Py_DECREF(r);
	}
	if (stop) {
		/* Keep the exception for the caller (it is in this thread's
		 * state, which PyGILState_Release leaves alone). */
		p->failed = 1;
	}
	PyGILState_Release(gil);
	return stop;
}
