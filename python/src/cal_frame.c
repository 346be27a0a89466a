/* _headalloc — a calibration's runs with their fitted values, as NumPy
 * columns filled straight from the result's struct ha_cal_residual rows
 * (include/headalloc/calibrate.h): every field, the exact ln L̂ and the
 * standardised residual included, which the report leaves out. */
#include "ha_py.h"

#include <stddef.h>

/* A new float64 column of field `offset` of each residual. */
static PyObject *double_column(const struct ha_cal_residual *r, size_t n, size_t offset)
{
	npy_intp dims[1] = {(npy_intp)n};
	PyObject *a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
	if (!a)
		return NULL;
	double *d = PyArray_DATA((PyArrayObject *)a);
	for (size_t i = 0; i < n; i++)
		d[i] = *(const double *)((const char *)&r[i] + offset);
	return a;
}

static PyObject *count_column(const struct ha_cal_residual *r, size_t n, size_t offset)
{
	npy_intp dims[1] = {(npy_intp)n};
	PyObject *a = PyArray_SimpleNew(1, dims, NPY_UINT64);
	if (!a)
		return NULL;
	npy_uint64 *d = PyArray_DATA((PyArrayObject *)a);
	for (size_t i = 0; i < n; i++)
		d[i] = *(const uint64_t *)((const char *)&r[i] + offset);
	return a;
}

/* _calibration_runs(capsule) -> {column: ndarray}, in the runs' order. */
PyObject *ha_py_calibration_runs(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_calibration *cal = PyCapsule_GetPointer(capsule, HA_PY_CALIBRATION_CAPSULE);
	if (!cal)
		return NULL;
	static const struct {
		const char *name;
		size_t offset;
		int count;
	} columns[] = {
		{"heads", offsetof(struct ha_cal_residual, heads), 1},
		{"head_dim", offsetof(struct ha_cal_residual, head_dim), 1},
		{"samples", offsetof(struct ha_cal_residual, samples), 0},
		{"loss", offsetof(struct ha_cal_residual, loss), 0},
		{"loss_se", offsetof(struct ha_cal_residual, loss_se), 0},
		{"fitted", offsetof(struct ha_cal_residual, fitted), 0},
		{"log_fitted", offsetof(struct ha_cal_residual, log_fitted), 0},
		{"residual", offsetof(struct ha_cal_residual, residual), 0},
		{"standardised", offsetof(struct ha_cal_residual, standardised), 0},
	};
	const struct ha_cal_residual *r = cal->fit.residuals;
	size_t n = cal->fit.runs;
	PyObject *out = PyDict_New();
	for (size_t c = 0; out && c < sizeof columns / sizeof *columns; c++) {
		PyObject *col = columns[c].count ? count_column(r, n, columns[c].offset)
		                                 : double_column(r, n, columns[c].offset);
		if (!col || PyDict_SetItemString(out, columns[c].name, col) < 0)
			Py_CLEAR(out);
		Py_XDECREF(col);
	}
	return out;
}
