/* _headalloc — the calibration's keyword options that map one to one onto
 * struct ha_cal_options (include/headalloc/calibrate.h): the bootstrap's
 * kind, the threads, and the user's laws of the comparison.  The Python
 * layer checks each value with the command line's words; the library
 * checks the laws' names against the ladder and each other. */
#include "ha_py.h"

#include <stdio.h>
#include <string.h>
#include "base/text.h"
#include "calibrate/calibrate_internal.h"

/* One law (name, free flags) into law, its fixed values those of the main
 * fit (the library takes them from the main law). */
static int law_of(PyObject *item, struct ha_cal_law *law)
{
	const char *name;
	PyObject *flags;
	if (!PyArg_ParseTuple(item, "sO!", &name, &PyTuple_Type, &flags))
		return 0;
	if (PyTuple_GET_SIZE(flags) != HA_CAL_PARAMS) {
		PyErr_SetString(PyExc_TypeError, "laws: expected a flag a parameter");
		return 0;
	}
	memset(law, 0, sizeof *law);
	if (strlen(name) >= sizeof law->name)
		return ha_py_input_error("laws: '%s': a name of at most %zu characters", name,
		                         sizeof law->name - 1) != NULL;
	snprintf(law->name, sizeof law->name, "%s", name);
	for (int k = 0; k < HA_CAL_PARAMS; k++) {
		int on = PyObject_IsTrue(PyTuple_GET_ITEM(flags, k));
		if (on < 0)
			return 0;
		law->free[k] = on;
	}
	return 1;
}

int ha_py_cal_options(PyObject *tuple, struct ha_cal_options *o,
                      struct ha_cal_law laws[HA_CAL_USER_LAWS_MAX])
{
	int kind;
	Py_ssize_t threads;
	PyObject *law_list;
	if (!PyArg_ParseTuple(tuple, "inO!", &kind, &threads, &PyTuple_Type, &law_list))
		return 0;
	if (kind != HA_CAL_BOOT_CASES && kind != HA_CAL_BOOT_RESIDUALS &&
	    kind != HA_CAL_BOOT_WILD)
		return ha_py_input_error("bootstrap_kind: no kind %d", kind) != NULL;
	if (threads < 0)
		return ha_py_input_error("threads: expected a whole number >= 0") != NULL;
	Py_ssize_t count = PyTuple_GET_SIZE(law_list);
	if (count > HA_CAL_USER_LAWS_MAX)
		return ha_py_input_error("laws: at most %d laws of your own",
		                         HA_CAL_USER_LAWS_MAX) != NULL;
	for (Py_ssize_t i = 0; i < count; i++)
		if (!law_of(PyTuple_GET_ITEM(law_list, i), &laws[i]))
			return 0;
	o->bootstrap_kind = (enum ha_cal_bootstrap_kind)kind;
	o->threads = (size_t)threads;
	o->laws = count ? laws : NULL;
	o->law_count = (size_t)count;
	return 1;
}

/* _cal_fixed_domain(name, value) -> (words, in_domain): the domain of a
 * value to fix (name plain or log_bias_coef / log_var_coef), in the words
 * the command line's --fix uses; words None for a name that is not one. */
PyObject *ha_py_cal_fixed_domain(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	double v;
	if (!PyArg_ParseTuple(args, "sd", &name, &v))
		return NULL;
	int log_form = strncmp(name, "log_", 4) == 0;
	int k = ha_cal_param_lookup(log_form ? name + 4 : name);
	if (k < 0 || (log_form && !ha_cal_param_is_log((enum ha_cal_param)k)))
		return Py_BuildValue("(OO)", Py_None, Py_False);
	const char *what = NULL;
	int inside = ha_cal_fixed_in_domain((enum ha_cal_param)k, log_form, v, &what);
	return Py_BuildValue("(sO)", what, inside ? Py_True : Py_False);
}

/* _name_fault(name) -> None or what is wrong with it as a name (the one
 * rule of base/text.h: "holds a control character"). */
PyObject *ha_py_name_fault(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	Py_ssize_t len;
	if (!PyArg_ParseTuple(args, "s#", &name, &len))
		return NULL;
	const char *fault = ha_name_fault(name, (size_t)len, NULL);
	if (!fault)
		Py_RETURN_NONE;
	return PyUnicode_FromString(fault);
}

/* _ladder_laws() -> the names of the ladder's laws (ha_cal_ladder). */
PyObject *ha_py_ladder_laws(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	struct ha_cal_options o;
	ha_cal_options_defaults(&o);
	struct ha_cal_law ladder[HA_CAL_LADDER];
	size_t n = ha_cal_ladder(&o.law, ladder);
	PyObject *names = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; names && i < n; i++) {
		PyObject *s = PyUnicode_FromString(ladder[i].name);
		if (!s) {
			Py_CLEAR(names);
			break;
		}
		PyTuple_SET_ITEM(names, (Py_ssize_t)i, s);
	}
	return names;
}
