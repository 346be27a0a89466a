/* _headalloc — the runs of calibrate() and plan(): a runs file, or
 * columns in memory read by ha_runs_from_columns, so that both go
 * through the CSV reader's rules and words; the columns' names, for
 * either, through ha_runs_names_set as the command line's --columns. */
#include "ha_py.h"

#include <stdio.h>
#include <string.h>

#include "input/runs_internal.h"

/* A refusal of the columns' names, prefixed as the command line's
 * --columns is. */
static int columns_error(struct ha_error *err)
{
	char message[HA_ERROR_MESSAGE_MAX];
	memcpy(message, err->message, sizeof message);
	snprintf(err->message, sizeof err->message, "columns: %.*s",
	         (int)sizeof err->message - 10, message);
	ha_py_raise(HA_EINVAL, err);
	return 0;
}

/* The names of a dict {key: column} (None or empty: their own). */
static int names_of(PyObject *map, struct ha_runs_names *names)
{
	struct ha_error err;
	ha_error_init(&err);
	ha_runs_names_init(names);
	if (map == Py_None)
		return 1;
	if (!PyDict_Check(map)) {
		ha_py_input_error("columns: expected a dict");
		return 0;
	}
	PyObject *key, *value;
	Py_ssize_t at = 0;
	while (PyDict_Next(map, &at, &key, &value)) {
		const char *k = PyUnicode_AsUTF8(key);
		const char *v = k ? PyUnicode_AsUTF8(value) : NULL;
		if (!k || !v)
			return 0;
		if (ha_runs_names_set(names, k, v, &err) != HA_OK)
			return columns_error(&err);
	}
	if (ha_runs_names_check(names, &err) != HA_OK)
		return columns_error(&err);
	return 1;
}

/* The runs of HA_RUNS_KEYS columns, each None or a contiguous float64
 * buffer of one length. */
static int runs_of_columns(PyObject *cols, const struct ha_runs_names *names,
                           struct ha_run **out, size_t *count)
{
	if (!PyTuple_Check(cols) || PyTuple_GET_SIZE(cols) != HA_RUNS_KEYS) {
		PyErr_Format(PyExc_TypeError, "runs: expected %d columns", HA_RUNS_KEYS);
		return 0;
	}
	Py_buffer b[HA_RUNS_KEYS];
	const double *col[HA_RUNS_KEYS] = {NULL};
	Py_ssize_t n = -1;
	int held = 0, ok = 1;
	for (; ok && held < HA_RUNS_KEYS; held++) {
		PyObject *c = PyTuple_GET_ITEM(cols, held);
		if (c == Py_None) {
			b[held].obj = NULL;
			continue;
		}
		if (PyObject_GetBuffer(c, &b[held], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
			break;
		Py_ssize_t len = b[held].len / (Py_ssize_t)sizeof(double);
		if (b[held].itemsize != sizeof(double) || strcmp(b[held].format, "d") != 0 ||
		    (n >= 0 && len != n)) {
			PyErr_SetString(PyExc_TypeError, "runs: columns of float64 and one length");
			ok = 0;
		}
		col[held] = b[held].buf;
		n = len;
	}
	ok = ok && held == HA_RUNS_KEYS;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = HA_OK;
	if (ok) {
		struct ha_runs_columns c = {
			(size_t)(n < 0 ? 0 : n), col[HA_RUNS_KEY_HEADS], col[HA_RUNS_KEY_HEAD_DIM],
			col[HA_RUNS_KEY_MODEL_DIM], col[HA_RUNS_KEY_SAMPLES], col[HA_RUNS_KEY_LOSS],
			col[HA_RUNS_KEY_LOSS_SE], col[HA_RUNS_KEY_KV_HEADS], names};
		st = ha_runs_from_columns(&c, out, count, &err);
	}
	for (int i = 0; i < held; i++)
		if (b[i].obj)
			PyBuffer_Release(&b[i]);
	if (ok && st != HA_OK) {
		/* no file: the message alone, as a CSV file's without its position */
		err.line = err.column = 0;
		ha_py_raise(st, &err);
		return 0;
	}
	return ok;
}

int ha_py_runs(PyObject *runs_obj, struct ha_run **runs, size_t *count,
               PyObject **path)
{
	*path = NULL;
	PyObject *source, *map;
	if (!PyArg_ParseTuple(runs_obj, "OO", &source, &map))
		return 0;
	struct ha_runs_names names;
	if (!names_of(map, &names))
		return 0;
	if (PyTuple_Check(source))
		return runs_of_columns(source, &names, runs, count);
	if (!PyUnicode_FSConverter(source, path))
		return 0;
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st;
	Py_BEGIN_ALLOW_THREADS
	st = ha_runs_read_file_named(PyBytes_AS_STRING(*path), HA_RUNS_AUTO, &names,
	                             runs, count, &err);
	Py_END_ALLOW_THREADS
	if (st == HA_OK)
		return 1;
	if (!err.file)
		err.file = PyBytes_AS_STRING(*path);
	ha_py_raise(st, &err);
	Py_CLEAR(*path);
	return 0;
}

/* _runs_keys() -> the keys of a run, in the order of enum ha_runs_key
 * (the order of the columns ha_py_runs takes). */
PyObject *ha_py_runs_keys(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	PyObject *keys = PyTuple_New(HA_RUNS_KEYS);
	for (int k = 0; keys && k < HA_RUNS_KEYS; k++) {
		PyObject *name = PyUnicode_FromString(ha_runs_key_str((enum ha_runs_key)k));
		if (!name) {
			Py_CLEAR(keys);
			break;
		}
		PyTuple_SET_ITEM(keys, k, name);
	}
	return keys;
}

/* _runs_refuse(row, key, found) raises the CSV reader's refusal of a
 * value of key (its index) in row (1-based) shown as found: for a value
 * in memory that is no number, which the columns cannot carry. */
PyObject *ha_py_runs_refuse(PyObject *self, PyObject *args)
{
	(void)self;
	Py_ssize_t row;
	int key;
	const char *found;
	if (!PyArg_ParseTuple(args, "nis", &row, &key, &found))
		return NULL;
	if (row < 1 || key < 0 || key >= HA_RUNS_KEYS) {
		PyErr_SetString(PyExc_ValueError, "_runs_refuse: no such row or key");
		return NULL;
	}
	char shown[48];
	snprintf(shown, sizeof shown, "'%.40s'", found);
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = runs_bad_value(&err, (size_t)row, ha_runs_key_str((enum ha_runs_key)key),
	                                   runs_key_what[key], shown);
	return ha_py_raise(st, &err);
}
