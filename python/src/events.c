/* _headalloc — a report as Python objects, built from the report's own
 * events (ha_report_new_events): maps are dicts (in order), sequences
 * lists, and each scalar the Python object of its type (an unsigned
 * integer an int, a double a float, a boolean a bool, null None, a
 * string a str).  No text is made or read: a double reaches Python as
 * the double the library computed. */
#include "ha_py.h"

#include <headalloc/report.h>

#include "report/yaml_writer.h"

/* Containers open, innermost last (the reports nest a few deep). */
#define TREE_MAX_DEPTH 32

/* Keys kept a report: a report has a few dozen distinct keys, written
 * again for every row of a table.  (Interning them instead would add and
 * remove them from the interpreter's table at every call.) */
#define TREE_KEYS 128

struct tree {
	PyObject *root;                    /* the document's map, owned */
	PyObject *open[TREE_MAX_DEPTH];    /* borrowed: held by their parents */
	size_t depth;
	PyObject *key;                     /* a map's key awaiting its value */
	const char *skip;                  /* a top-level key whose value is dropped */
	size_t skipping;                   /* >0: inside that value, its depth */
	const char *key_text[TREE_KEYS];   /* the library's key, as passed */
	PyObject *key_object[TREE_KEYS];   /* its str, owned */
};

/* The str of key k, made once a report: keys are looked up by their
 * address (the report passes literals) and checked by their text. */
static PyObject *key_of(struct tree *t, const char *k)
{
	size_t slot = ((uintptr_t)k >> 3) % TREE_KEYS;
	for (size_t probe = 0; probe < TREE_KEYS; probe++) {
		size_t i = (slot + probe) % TREE_KEYS;
		if (!t->key_text[i]) {
			t->key_object[i] = PyUnicode_FromString(k);
			if (t->key_object[i])
				t->key_text[i] = k;
			return Py_XNewRef(t->key_object[i]);
		}
		if (t->key_text[i] == k &&
		    strcmp(PyUnicode_AsUTF8(t->key_object[i]), k) == 0)
			return Py_NewRef(t->key_object[i]);
	}
	return PyUnicode_FromString(k); /* a full table: made each time */
}

/* Put value (a new reference, NULL for a failed conversion) into the
 * innermost container: 0, or -1 with the error set. */
static int put(struct tree *t, PyObject *value)
{
	if (!value)
		return -1;
	if (t->depth == 0) {
		Py_DECREF(value);
		PyErr_SetString(PyExc_RuntimeError, "report events: a value outside the document");
		return -1;
	}
	PyObject *into = t->open[t->depth - 1];
	int failed;
	if (PyDict_Check(into)) {
		failed = !t->key || PyDict_SetItem(into, t->key, value) < 0;
		Py_CLEAR(t->key);
	} else {
		failed = PyList_Append(into, value) < 0;
	}
	Py_DECREF(value);
	if (failed && !PyErr_Occurred())
		PyErr_SetString(PyExc_RuntimeError, "report events: a value without its key");
	return failed ? -1 : 0;
}

static int scalar(struct tree *t, PyObject *value)
{
	if (t->skipping) {
		Py_XDECREF(value);
		return value ? 0 : -1;
	}
	return put(t, value);
}

static int on_begin(void *ctx, int map)
{
	struct tree *t = ctx;
	if (t->skipping) {
		t->skipping++;
		return 0;
	}
	if (t->depth == 1 && t->skip && t->key &&
	    PyUnicode_CompareWithASCIIString(t->key, t->skip) == 0) {
		Py_CLEAR(t->key);
		t->skipping = 1;
		return 0;
	}
	if (t->depth == TREE_MAX_DEPTH) {
		PyErr_SetString(PyExc_RuntimeError, "report events: nested too deep");
		return -1;
	}
	PyObject *container = map ? PyDict_New() : PyList_New(0);
	if (!container)
		return -1;
	if (t->depth == 0) {
		t->root = container;
	} else if (put(t, Py_NewRef(container)) < 0) {
		Py_DECREF(container);
		return -1;
	} else {
		Py_DECREF(container); /* its parent holds it */
	}
	t->open[t->depth++] = container;
	return 0;
}

static int on_end(void *ctx)
{
	struct tree *t = ctx;
	if (t->skipping) {
		t->skipping--;
		return 0;
	}
	if (t->depth == 0)
		return -1;
	t->depth--;
	return 0;
}

static int on_key(void *ctx, const char *k)
{
	struct tree *t = ctx;
	if (t->skipping)
		return 0;
	Py_XSETREF(t->key, key_of(t, k));
	return t->key ? 0 : -1;
}

static int on_string(void *ctx, const char *value)
{
	return scalar(ctx, PyUnicode_DecodeUTF8(value, (Py_ssize_t)strlen(value), "strict"));
}

static int on_uint(void *ctx, uint64_t value)
{
	return scalar(ctx, PyLong_FromUnsignedLongLong(value));
}

static int on_real(void *ctx, double value)
{
	return scalar(ctx, PyFloat_FromDouble(value));
}

static int on_boolean(void *ctx, int value)
{
	return scalar(ctx, PyBool_FromLong(value));
}

static int on_null(void *ctx)
{
	return scalar(ctx, Py_NewRef(Py_None));
}

static const struct ha_report_events tree_events = {
	on_begin, on_end, on_key, on_string, on_uint, on_real,
	on_boolean, on_null,
};

PyObject *ha_py_report_dict(ha_py_sections_fn fn, const void *ctx, const char *skip)
{
	struct tree t = {.skip = skip};
	struct ha_report *r = NULL;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_report_new_events(&tree_events, &t, &r);
	if (st == HA_OK)
		st = fn(r, ctx, &err);
	enum ha_status end_st = r ? ha_report_end(r) : st;
	ha_report_free(r);
	if (st == HA_OK)
		st = end_st;
	Py_XDECREF(t.key);
	for (size_t i = 0; i < TREE_KEYS; i++)
		Py_XDECREF(t.key_object[i]);
	if (st == HA_OK && t.root)
		return t.root;
	Py_XDECREF(t.root);
	if (PyErr_Occurred())
		return NULL; /* a callback's, or a progress callback's */
	return ha_py_raise(st, &err);
}
