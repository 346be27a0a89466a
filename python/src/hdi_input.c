/* _headalloc — the HDI of a file, a model directory or arrays in memory.
 *
 * Arrays come through the buffer protocol: a C-contiguous float64 array is
 * read where it lies (ha_hdi_compute makes the one working copy it
 * needs); float32, float16 and bfloat16 (its bits as uint16) are
 * converted to doubles exactly, the one copy they need. */
#include "ha_py.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hdi/hdi_internal.h"
#include "tensors/weights_internal.h"

static void hdi_destroy(PyObject *capsule)
{
	struct ha_py_hdi *h = PyCapsule_GetPointer(capsule, HA_PY_HDI_CAPSULE);
	if (!h)
		return;
	ha_hdi_report_free(h->report);
	ha_checkpoint_free(h->checkpoint);
	free(h->file);
	free(h);
}

static PyObject *hdi_capsule(struct ha_py_hdi *h)
{
	PyObject *capsule = PyCapsule_New(h, HA_PY_HDI_CAPSULE, hdi_destroy);
	if (!capsule) {
		ha_hdi_report_free(h->report);
		ha_checkpoint_free(h->checkpoint);
		free(h->file);
		free(h);
	}
	return capsule;
}

static int layout_of(const char *text, enum ha_layout *out)
{
	if (ha_layout_parse(text, out) != HA_OK) {
		ha_py_input_error("layout: expected 'out-in' or 'in-out', found '%s'", text);
		return 0;
	}
	return 1;
}

/* How Python's hdi() names its arguments in the resolver's messages. */
static const struct ha_hdi_path_words python_words = {"heads", "tensor", "layout",
                                                      "fused", "groups"};

/* Resolve and measure path as the CLI does (hdi/hdi_internal.h), the
 * GIL released; the callback takes it back (ha_py_progress_fn) to call
 * it. */
static enum ha_status measure_path(const struct ha_hdi_path_request *req,
                                   struct ha_py_progress *state, struct ha_hdi_path *src,
                                   struct ha_error *err)
{
	struct ha_progress progress = {ha_py_progress_fn, state};
	enum ha_status st;
	Py_BEGIN_ALLOW_THREADS
	st = ha_hdi_path_resolve(src, req, err);
	if (st == HA_OK)
		st = ha_hdi_path_measure(src, &progress, err);
	Py_END_ALLOW_THREADS
	return st;
}

/* The resolver's failure as the CLI words it: a failure of the heads or
 * groups given names that argument first, then the file or directory;
 * any other names the file at fault. */
static void raise_path_failure(const struct ha_hdi_path *src, enum ha_status st,
                               const struct ha_error *err)
{
	const char *word = src->fault == HA_HDI_PATH_FAULT_HEADS    ? python_words.heads
	                   : src->fault == HA_HDI_PATH_FAULT_GROUPS ? python_words.groups
	                                                           : NULL;
	if (!word || st != HA_EINVAL || err->line > 0) {
		ha_py_raise(st, err);
		return;
	}
	ha_py_input_error("%s: %s: %s", word, err->file ? err->file : src->request.path,
	                  err->message);
}

/* _hdi_path(path, pattern or None, heads (0: not given), layout or None[,
 * progress]) -> capsule.  A weights file, or a model directory given as
 * the directory, its config.json or its index (checkpoint.h), resolved by
 * the CLI's rules and in its words.  progress: None (Ctrl-C only) or
 * callable(what, done, total), told of each layer. */
PyObject *ha_py_hdi_path(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path_obj, *progress = Py_None;
	const char *pattern, *layout_text;
	Py_ssize_t heads;
	if (!PyArg_ParseTuple(args, "O&znz|O", PyUnicode_FSConverter, &path_obj, &pattern,
	                      &heads, &layout_text, &progress))
		return NULL;
	const char *path = PyBytes_AS_STRING(path_obj);
	enum ha_layout layout = HA_LAYOUT_OUT_IN;
	if ((layout_text && !layout_of(layout_text, &layout)) || heads < 0) {
		if (!PyErr_Occurred())
			ha_py_input_error("heads: expected a whole number >= 1");
		Py_DECREF(path_obj);
		return NULL;
	}
	struct ha_py_hdi *h = calloc(1, sizeof *h);
	char *file = strdup(path);
	if (!h || !file) {
		free(h);
		free(file);
		Py_DECREF(path_obj);
		return PyErr_NoMemory();
	}
	h->file = file;
	struct ha_hdi_path_request req = {.path = path,
	                                  .heads = (size_t)heads,
	                                  .tensor = pattern,
	                                  .layout = layout,
	                                  .have_layout = layout_text != NULL,
	                                  .fused = HA_FUSED_NONE,
	                                  .fused_order = HA_FUSED_CONCAT,
	                                  .words = &python_words};
	struct ha_hdi_path src;
	struct ha_error err;
	ha_error_init(&err);
	struct ha_py_progress state = {progress, NULL, 0};
	enum ha_status st = measure_path(&req, &state, &src, &err);
	PyObject *result = NULL; /* on HA_ECANCELED with state.failed: the
	                            callback's exception (KeyboardInterrupt) */
	if (st != HA_OK && !(st == HA_ECANCELED && state.failed)) {
		/* err.file may point into src: raise before closing it. */
		raise_path_failure(&src, st, &err);
	} else if (st == HA_OK) {
		h->report = src.hdi;
		h->checkpoint = src.checkpoint;
		h->layout = src.layout;
		if (src.heads_reason)
			snprintf(h->heads_reason, sizeof h->heads_reason, "%s", src.heads_reason);
		src.hdi = NULL;
		src.checkpoint = NULL;
		result = hdi_capsule(h);
		h = NULL;
	}
	ha_hdi_path_close(&src);
	if (h) {
		free(h->file);
		free(h);
	}
	Py_DECREF(path_obj);
	return result;
}

/* A 2-D buffer of the given kind ('d' float64, 'f' float32, 'e' float16,
 * 'b' bfloat16 bits) as doubles: *data points into the buffer for float64,
 * else into *owned, a new array.  Non-finite elements are refused, named
 * by their flat index. */
static enum ha_status doubles_of(const Py_buffer *b, int kind, const char *name,
                                 const double **data, double **owned,
                                 struct ha_error *err)
{
	size_t n = (size_t)(b->shape[0] * b->shape[1]);
	*owned = NULL;
	double *d = NULL;
	if (kind == 'd') {
		*data = b->buf;
	} else {
		d = malloc(sizeof *d * (n ? n : 1));
		if (!d)
			return HA_ENOMEM;
		for (size_t i = 0; i < n; i++) {
			if (kind == 'f')
				d[i] = ((const float *)b->buf)[i];
			else if (kind == 'e')
				d[i] = ha_f16_to_double(((const uint16_t *)b->buf)[i]);
			else
				d[i] = ha_bf16_to_double(((const uint16_t *)b->buf)[i]);
		}
		*owned = d;
		*data = d;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite((*data)[i])) {
			ha_weights_fail_nonfinite(name, i, (*data)[i], err);
			free(d);
			*owned = NULL;
			return HA_EFORMAT;
		}
	}
	return HA_OK;
}

/* The library's work limit for a rows x cols tensor cut into heads in
 * layout (ha_hdi_check_work, the rule the command line applies to a
 * tensor before reading it). */
static enum ha_status work_check(const char *name, size_t rows, size_t cols, size_t heads,
                                 enum ha_layout layout, struct ha_error *err)
{
	int out_in = layout == HA_LAYOUT_OUT_IN;
	return ha_hdi_check_work(name, rows, cols, out_in ? rows : cols, out_in ? cols : rows,
	                         heads, err);
}

/* _hdi_check_work(name, rows, cols, heads, layout) -> None: the work
 * limit of a tensor of that shape, checked from its shape alone, before
 * the Python layer copies or converts it. */
PyObject *ha_py_hdi_check_work(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name, *layout_text;
	Py_ssize_t rows, cols, heads;
	if (!PyArg_ParseTuple(args, "snnns", &name, &rows, &cols, &heads, &layout_text))
		return NULL;
	enum ha_layout layout;
	if (!layout_of(layout_text, &layout))
		return NULL;
	if (rows < 0 || cols < 0 || heads < 1)
		Py_RETURN_NONE; /* the measurement says what is wrong */
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = work_check(name, (size_t)rows, (size_t)cols, (size_t)heads, layout,
	                               &err);
	if (st != HA_OK)
		return ha_py_raise(st, &err);
	Py_RETURN_NONE;
}

/* _hdi_arrays([(name, buffer, kind, heads)], layout, label[, progress])
 * -> capsule: every array measured by the library's policy
 * (ha_hdi_report_add: the work limit, the zero and lower-rank warnings),
 * in the order given; progress as _hdi_path's, after each array. */
PyObject *ha_py_hdi_arrays(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *list, *progress = Py_None;
	const char *layout_text, *label;
	if (!PyArg_ParseTuple(args, "O!ss|O", &PyList_Type, &list, &layout_text, &label,
	                      &progress))
		return NULL;
	enum ha_layout layout;
	if (!layout_of(layout_text, &layout))
		return NULL;
	size_t count = (size_t)PyList_GET_SIZE(list);
	if (count == 0)
		return ha_py_input_error("hdi: no tensor to measure");
	struct ha_py_hdi *h = calloc(1, sizeof *h);
	struct ha_hdi_report *r = ha_hdi_report_new();
	char *file = strdup(label);
	if (!h || !r || !file) {
		free(h);
		ha_hdi_report_free(r);
		free(file);
		return PyErr_NoMemory();
	}
	h->report = r;
	h->file = file;
	h->layout = layout;
	struct ha_py_progress state = {progress, NULL, 0};
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = HA_OK;
	for (size_t i = 0; i < count && st == HA_OK; i++) {
		const char *name, *kind;
		PyObject *obj;
		Py_ssize_t heads;
		if (!PyArg_ParseTuple(PyList_GET_ITEM(list, (Py_ssize_t)i), "sOsn", &name, &obj,
		                      &kind, &heads))
			goto fail;
		if (heads < 1) {
			ha_py_input_error("heads: expected a whole number >= 1 for tensor '%s'", name);
			goto fail;
		}
		Py_buffer b;
		if (PyObject_GetBuffer(obj, &b, PyBUF_C_CONTIGUOUS | PyBUF_ND) < 0)
			goto fail;
		if (b.ndim != 2) {
			PyBuffer_Release(&b);
			ha_py_input_error("tensor '%s': expected a 2-D array, found %d dimensions",
			                  name, b.ndim);
			goto fail;
		}
		const double *data;
		double *owned;
		size_t rows = (size_t)b.shape[0], cols = (size_t)b.shape[1];
		Py_BEGIN_ALLOW_THREADS
		/* the work limit before the one copy a conversion makes */
		st = work_check(name, rows, cols, (size_t)heads, layout, &err);
		if (st == HA_OK)
			st = doubles_of(&b, kind[0], name, &data, &owned, &err);
		else
			owned = NULL;
		if (st == HA_OK)
			st = ha_hdi_report_add(r, data, rows, cols, (size_t)heads, layout, name,
			                       &err);
		free(owned);
		Py_END_ALLOW_THREADS
		PyBuffer_Release(&b);
		if (st != HA_OK)
			break;
		/* The GIL is held here: the trampoline's PyGILState_Ensure
		 * nests. */
		if (ha_py_progress_fn(&state, "layers", i + 1, count))
			goto fail; /* the callback's exception */
	}
	if (st != HA_OK) {
		ha_py_raise(st, &err);
		goto fail;
	}
	return hdi_capsule(h);
fail:
	ha_hdi_report_free(r);
	free(file);
	free(h);
	return NULL;
}

/* One warning as (kind, tensor index or None, message). */
static PyObject *warning_item(const char *kind, Py_ssize_t tensor, const char *message)
{
	PyObject *text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
	if (!text)
		return NULL;
	return tensor < 0 ? Py_BuildValue("(sON)", kind, Py_None, text)
	                  : Py_BuildValue("(snN)", kind, tensor, text);
}

/* The warnings: [(kind, tensor index, message)], kind "directory" (the
 * plan's word about a model directory, index None, first), "zero heads",
 * "low rank" or "skipped" (tensors a pattern passed by, index None). */
static PyObject *warnings_of(const struct ha_py_hdi *h)
{
	const struct ha_hdi_report *r = h->report;
	int plan = h->checkpoint && h->checkpoint->warning[0];
	PyObject *list = PyList_New((Py_ssize_t)r->warning_count + plan);
	if (list && plan) {
		PyObject *item = warning_item("directory", -1, h->checkpoint->warning);
		if (!item)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, 0, item);
	}
	for (size_t i = 0; list && i < r->warning_count; i++) {
		const struct ha_hdi_warning *w = &r->warnings[i];
		const char *kind = w->kind == HA_HDI_WARN_ZERO_HEADS ? "zero heads"
		                   : w->kind == HA_HDI_WARN_LOW_RANK ? "low rank"
		                                                     : "skipped";
		PyObject *item = warning_item(kind, w->tensor == SIZE_MAX ? -1 : (Py_ssize_t)w->tensor,
		                              w->message);
		if (!item) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i + plan, item);
	}
	return list;
}

/* _hdi_values(capsule) -> ([(name, heads, head_dim, model_dim, hdi,
 * baseline, overlap, rank, rank_deficient)], mean_hdi, mean_baseline,
 * layout, file, warnings). */
PyObject *ha_py_hdi_values(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_py_hdi *h = PyCapsule_GetPointer(capsule, HA_PY_HDI_CAPSULE);
	if (!h)
		return NULL;
	const struct ha_hdi_report *r = h->report;
	PyObject *layers = PyList_New((Py_ssize_t)r->count);
	for (size_t i = 0; layers && i < r->count; i++) {
		const struct ha_hdi_tensor *t = &r->tensors[i];
		npy_intp dims[2] = {(npy_intp)t->heads, (npy_intp)t->heads};
		PyObject *overlap = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
		if (overlap)
			memcpy(PyArray_DATA((PyArrayObject *)overlap), t->overlap,
			       sizeof(double) * t->heads * t->heads);
		PyObject *row = overlap ? Py_BuildValue("(snnnddNNn)", t->name, (Py_ssize_t)t->heads,
		                                        (Py_ssize_t)t->head_dim,
		                                        (Py_ssize_t)t->model_dim, t->hdi,
		                                        t->baseline_hdi, overlap,
		                                        ha_py_array_size(t->rank, t->heads),
		                                        (Py_ssize_t)t->rank_deficient)
		                        : NULL;
		if (!row) {
			Py_CLEAR(layers);
			break;
		}
		PyList_SET_ITEM(layers, (Py_ssize_t)i, row);
	}
	if (!layers)
		return NULL;
	PyObject *warnings = warnings_of(h);
	if (!warnings) {
		Py_DECREF(layers);
		return NULL;
	}
	return Py_BuildValue("(NddsO&N)", layers, r->mean_hdi, r->mean_baseline_hdi,
	                     ha_layout_str(h->layout), PyUnicode_DecodeFSDefault, h->file,
	                     warnings);
}
