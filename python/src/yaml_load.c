/* _headalloc — one YAML document (a report the library rendered) as
 * Python objects, with libyaml's parser: maps are dicts (in order),
 * sequences lists; a plain scalar is None (null, ~, empty), a bool
 * (true, false), an int (digits with an optional sign), a float (a
 * decimal, or .inf, -.inf, .nan) or else a str; quoted scalars are str.
 * Floats are read with Python's own float(), which is correctly rounded,
 * so a report's 17 digits come back bit for bit. */
#include "ha_py.h"

#include <string.h>
#include <yaml.h>

static int all_digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* A decimal float: [-+]?(digits[.digits*]|.digits)([eE][-+]?digits)? */
static int is_float(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	size_t int_digits = 0, frac_digits = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, int_digits++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, frac_digits++;
	}
	if (int_digits + frac_digits == 0)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			i++;
		size_t e = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, e++;
		if (!e)
			return 0;
	}
	return i == n;
}

static PyObject *scalar(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "strict");
	if (n == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0)
		Py_RETURN_NONE;
	if (strcmp(s, "true") == 0)
		Py_RETURN_TRUE;
	if (strcmp(s, "false") == 0)
		Py_RETURN_FALSE;
	if (strcmp(s, ".inf") == 0 || strcmp(s, "+.inf") == 0)
		return PyFloat_FromDouble(Py_HUGE_VAL);
	if (strcmp(s, "-.inf") == 0)
		return PyFloat_FromDouble(-Py_HUGE_VAL);
	if (strcmp(s, ".nan") == 0)
		return PyFloat_FromDouble(Py_NAN);
	size_t sign = (s[0] == '-' || s[0] == '+') ? 1 : 0;
	if (all_digits(s + sign, n - sign))
		return PyLong_FromString(s, NULL, 10);
	if (is_float(s, n)) {
		PyObject *text = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);
		PyObject *f = text ? PyFloat_FromString(text) : NULL;
		Py_XDECREF(text);
		return f;
	}
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "strict");
}

/* Build the node whose first event is *ev (already parsed). */
static PyObject *node(yaml_parser_t *p, yaml_event_t *ev);

static int next(yaml_parser_t *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(p, ev)) {
		PyErr_Format(PyExc_ValueError, "report YAML: %s at line %zu",
		             p->problem ? p->problem : "parse error",
		             (size_t)p->problem_mark.line + 1);
		return 0;
	}
	return 1;
}

static PyObject *node(yaml_parser_t *p, yaml_event_t *ev)
{
	if (ev->type == YAML_SCALAR_EVENT)
		return scalar(ev);
	int mapping = ev->type == YAML_MAPPING_START_EVENT;
	if (!mapping && ev->type != YAML_SEQUENCE_START_EVENT) {
		PyErr_SetString(PyExc_ValueError, "report YAML: unexpected event");
		return NULL;
	}
	PyObject *out = mapping ? PyDict_New() : PyList_New(0);
	PyObject *key = NULL;
	while (out) {
		yaml_event_t e;
		if (!next(p, &e)) {
			Py_CLEAR(out);
			break;
		}
		if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		PyObject *v = node(p, &e);
		yaml_event_delete(&e);
		int bad = !v;
		if (!bad && !mapping)
			bad = PyList_Append(out, v) < 0;
		else if (!bad && !key)
			key = Py_NewRef(v);
		else if (!bad) {
			bad = PyDict_SetItem(out, key, v) < 0;
			Py_CLEAR(key);
		}
		Py_XDECREF(v);
		if (bad)
			Py_CLEAR(out);
	}
	Py_XDECREF(key);
	return out;
}

PyObject *ha_py_yaml_load_bytes(const char *text, size_t len)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return PyErr_NoMemory();
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	PyObject *result = NULL;
	int done = 0;
	while (!done) {
		yaml_event_t e;
		if (!next(&p, &e)) {
			Py_CLEAR(result);
			break;
		}
		switch (e.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_SCALAR_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (!result)
				result = node(&p, &e);
			if (!result)
				done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&p);
	if (!result && !PyErr_Occurred())
		Py_RETURN_NONE;
	return result;
}

/* _yaml_load(bytes) -> object. */
PyObject *ha_py_yaml_load(PyObject *self, PyObject *args)
{
	(void)self;
	const char *text;
	Py_ssize_t len;
	if (!PyArg_ParseTuple(args, "y#", &text, &len))
		return NULL;
	return ha_py_yaml_load_bytes(text, (size_t)len);
}
