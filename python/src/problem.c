/* _headalloc — the problem as the Python layer passes it (budgets,
 * samples, model, constraints, and the KV options of a grouped one),
 * checked and converted for the library. */
#include "ha_py.h"

#include <string.h>

void ha_py_problem_release(struct ha_py_problem *p)
{
	PyMem_Free(p->budgets);
	PyMem_Free(p->samples);
}

/* (budgets, samples, model, constraints): budgets and samples sequences
 * (either may be None). */
int ha_py_problem_of(PyObject *args, struct ha_py_problem *p)
{
	PyObject *budgets, *samples, *model, *cons;
	memset(p, 0, sizeof *p);
	if (!PyArg_ParseTuple(args, "OOOO|p", &budgets, &samples, &model, &cons, &p->all))
		return 0;
	if (!ha_py_model(model, &p->model) ||
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
		ha_py_problem_release(p);
		return 0;
	}
	return 1;
}

/* kv None (over (H, d)) or the KV options (grouped.c): p then over (H,
 * G, d), its shape checked at every budget.  0 with the error set (p
 * released). */
int ha_py_problem_grouped(PyObject *kv, struct ha_py_problem *p)
{
	if (kv == Py_None)
		return 1;
	p->grouped = 1;
	int ok = ha_py_kv(kv, &p->kv, &p->shape);
	for (size_t i = 0; ok && i < p->budget_count; i++)
		ok = ha_py_kv_shape_check(kv, &p->shape, p->budgets[i]);
	if (!ok)
		ha_py_problem_release(p);
	return ok;
}

/* (budgets, samples, model, constraints[, kv]): problem_of, then
 * problem_grouped. */
int ha_py_problem_kv_of(PyObject *args, struct ha_py_problem *p)
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
	int ok = ha_py_problem_of(head, p);
	Py_DECREF(head);
	return ok && ha_py_problem_grouped(n == 5 ? PyTuple_GET_ITEM(args, 4) : Py_None, p);
}
