/* _headalloc — a sweep: solved once into the library's result, kept in
 * a capsule that the report and the picture read (render.c), its table's
 * columns filled as NumPy arrays straight from the result's rows. */
#include "ha_py.h"

#include <math.h>

static void sweep_destroy(PyObject *capsule)
{
	struct ha_py_sweep *s = PyCapsule_GetPointer(capsule, HA_PY_SWEEP_CAPSULE);
	if (s)
		ha_sweep_result_free(s->result);
	PyMem_Free(s);
}

/* The sweep of the problem. */
static void sweep_request(const struct ha_py_problem *p, struct ha_sweep_request *req)
{
	*req = (struct ha_sweep_request){
		.model = &p->model,
		.constraints = &p->constraints,
		.budgets = p->budgets,
		.budget_count = p->budget_count,
		.samples = {.values = p->samples, .count = p->sample_count},
		.threads = 0, /* one per online processor */
	};
	if (p->grouped) {
		req->kv = &p->kv;
		req->shape = &p->shape;
	}
}

/* The table's columns, in the report's order, with the kv columns of a
 * grouped sweep. */
enum column {
	COL_BUDGET, COL_SAMPLES, COL_HEADS, COL_HEAD_DIM, COL_MSE, COL_LOG10_MSE,
	COL_RELAXED_HEAD_DIM, COL_RELAXED_HEADS, COL_KV_HEADS, COL_KV_DIM,
	COL_KV_CACHE, COLUMNS
};
static const char *const column_names[COLUMNS] = {
	"budget", "samples", "heads", "head_dim", "mse", "log10_mse",
	"relaxed_head_dim", "relaxed_heads", "kv_heads", "kv_dim",
	"kv_cache_bytes_per_token",
};

/* The integer columns: int64 while every budget fits one (each count is
 * at most its budget), else uint64. */
static int integer_column(enum column c)
{
	return c == COL_BUDGET || c == COL_HEADS || c == COL_HEAD_DIM ||
	       c >= COL_KV_HEADS;
}

/* The arrays of the columns, filled from the result's rows a batch at a
 * time, with the GIL released (the arrays are this call's alone). */
static PyObject *sweep_columns(struct ha_sweep_result *result)
{
	const struct ha_sweep_request *req = ha_sweep_result_request(result);
	size_t rows = ha_sweep_result_row_count(result);
	size_t count = req->kv ? COLUMNS : COL_KV_HEADS;
	int wide = 0;
	for (size_t b = 0; b < req->budget_count; b++)
		wide |= req->budgets[b] > (uint64_t)INT64_MAX;
	PyObject *arrays[COLUMNS] = {NULL};
	void *data[COLUMNS];
	npy_intp n = (npy_intp)rows;
	for (size_t c = 0; c < count; c++) {
		int type = !integer_column(c) ? NPY_FLOAT64 : wide ? NPY_UINT64 : NPY_INT64;
		arrays[c] = PyArray_SimpleNew(1, &n, type);
		if (!arrays[c]) {
			for (size_t k = 0; k < c; k++)
				Py_DECREF(arrays[k]);
			return NULL;
		}
		data[c] = PyArray_DATA((PyArrayObject *)arrays[c]);
	}
	struct ha_sweep_row batch[HA_SWEEP_BATCH_MAX];
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = HA_OK;
	const double ln10 = log(10.0);
	Py_BEGIN_ALLOW_THREADS
	for (size_t at = 0; st == HA_OK && at < rows; at += HA_SWEEP_BATCH_MAX) {
		size_t k = rows - at < HA_SWEEP_BATCH_MAX ? rows - at : HA_SWEEP_BATCH_MAX;
		st = ha_sweep_result_rows(result, at, k, batch, &err);
		for (size_t j = 0; st == HA_OK && j < k; j++) {
			const struct ha_sweep_row *row = &batch[j];
			size_t i = at + j;
			((uint64_t *)data[COL_BUDGET])[i] = row->budget;
			((double *)data[COL_SAMPLES])[i] = row->samples;
			((uint64_t *)data[COL_HEADS])[i] = row->heads;
			((uint64_t *)data[COL_HEAD_DIM])[i] = row->head_dim;
			((double *)data[COL_MSE])[i] = row->mse;
			/* as the report writes it (report_log10) */
			((double *)data[COL_LOG10_MSE])[i] = row->log_mse / ln10;
			((double *)data[COL_RELAXED_HEAD_DIM])[i] = row->relaxed_head_dim;
			((double *)data[COL_RELAXED_HEADS])[i] = row->relaxed_heads;
			if (count == COLUMNS) {
				((uint64_t *)data[COL_KV_HEADS])[i] = row->kv_heads;
				((uint64_t *)data[COL_KV_DIM])[i] = row->kv_dim;
				((uint64_t *)data[COL_KV_CACHE])[i] = row->kv_cache_bytes_per_token;
			}
		}
	}
	Py_END_ALLOW_THREADS
	/* The names made once: a name made and dropped a call would be
	 * interned and removed from the interpreter's table each time. */
	static PyObject *names[COLUMNS];
	PyObject *columns = st == HA_OK ? PyDict_New() : NULL;
	for (size_t c = 0; columns && c < count; c++) {
		if (!names[c])
			names[c] = PyUnicode_InternFromString(column_names[c]);
		if (!names[c] || PyDict_SetItem(columns, names[c], arrays[c]) < 0)
			Py_CLEAR(columns);
	}
	for (size_t c = 0; c < count; c++)
		Py_DECREF(arrays[c]);
	if (st != HA_OK)
		return ha_py_raise(st, &err);
	return columns;
}

/* _sweep(budgets, samples, model, constraints[, progress[, kv]]) ->
 * (capsule, columns): every row solved once (ha_sweep_run, with the
 * library's limit of rows), on every online processor, with the GIL
 * released; progress None (Ctrl-C only) or callable(what, done, total),
 * told of the rows solved, on this thread with the GIL taken back for
 * the call (ha_py_progress_fn); kv None (rows over (H, d)) or the KV
 * options (grouped.c), each row then the optimum over (H, G, d) with the
 * kv columns.  columns: a dict of the table's columns as arrays. */
PyObject *ha_py_sweep(PyObject *self, PyObject *args)
{
	(void)self;
	struct ha_py_problem p;
	PyObject *progress = Py_None, *kv = Py_None;
	Py_ssize_t n = PyTuple_GET_SIZE(args);
	if (n >= 5)
		progress = PyTuple_GET_ITEM(args, 4);
	if (n >= 6)
		kv = PyTuple_GET_ITEM(args, 5);
	PyObject *head = PyTuple_GetSlice(args, 0, 4);
	if (!head)
		return NULL;
	int ok = ha_py_problem_of(head, &p);
	Py_DECREF(head);
	if (!ok || !ha_py_problem_grouped(kv, &p))
		return NULL;
	struct ha_py_sweep *s = PyMem_Calloc(1, sizeof *s);
	if (!s) {
		ha_py_problem_release(&p);
		return PyErr_NoMemory();
	}
	s->constraints = p.constraints;
	struct ha_py_progress state = {progress, NULL, 0};
	struct ha_sweep_request req;
	sweep_request(&p, &req);
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st;
	Py_BEGIN_ALLOW_THREADS
	st = ha_sweep_run(&req, &(struct ha_progress){ha_py_progress_fn, &state},
	                  &s->result, &err);
	Py_END_ALLOW_THREADS
	ha_py_problem_release(&p);
	PyObject *capsule = NULL;
	if (st == HA_OK)
		capsule = PyCapsule_New(s, HA_PY_SWEEP_CAPSULE, sweep_destroy);
	if (!capsule) {
		ha_sweep_result_free(s->result);
		PyMem_Free(s);
		if (st == HA_ECANCELED && PyErr_Occurred())
			return NULL; /* the progress callback's exception (KeyboardInterrupt) */
		if (st == HA_EINFEASIBLE) /* which constraints, as the command line says */
			ha_py_append_constraints(err.message, sizeof err.message, &p.constraints);
		return st == HA_OK ? NULL : ha_py_raise(st, &err);
	}
	PyObject *columns = sweep_columns(s->result);
	if (!columns) {
		Py_DECREF(capsule);
		return NULL;
	}
	return Py_BuildValue("(NN)", capsule, columns);
}
