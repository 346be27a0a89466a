/* _headalloc — what the extension's files share: the conversions between
 * Python objects and the library's structs, the error bridge, and the
 * functions each file exports to the module's method table. */
#ifndef HA_PY_H
#define HA_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL ha_py_numpy_api
#ifndef HA_PY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <headalloc/headalloc.h>
#include <headalloc/calibrate.h>
#include <headalloc/grouped.h>
#include <headalloc/head_weights.h>
#include <headalloc/hdi.h>
#include <headalloc/regime.h>
#include <headalloc/runs.h>
#include <headalloc/scenario.h>
#include <headalloc/solver.h>

/* ---- convert.c ---------------------------------------------------------- */

/* Raise the headalloc.Error subclass of status (headalloc._errors) with
 * err's message, file, line and column (err may be NULL: the status's
 * words).  Returns NULL, for `return ha_py_raise(...)`. */
PyObject *ha_py_raise(enum ha_status status, const struct ha_error *err);
/* The same with a message of the binding's own (InputError). */
PyObject *ha_py_input_error(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

/* InputError "NAME: invalid value REPR: expected EXPECTED": the command
 * line's words for a bad value, with Python's repr of it.  Returns NULL. */
PyObject *ha_py_bad_value(PyObject *obj, const char *name, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* InfeasibleError "no (heads, head_dim) pair of budget D meets the
 * constraints: NAME VALUE ...", the command line's words with the
 * keywords for its options.  Returns NULL. */
PyObject *ha_py_infeasible(uint64_t budget, const struct ha_constraints *c);
/* ":" and " NAME VALUE" for each constraint set, after message. */
void ha_py_append_constraints(char *message, size_t size, const struct ha_constraints *c);
/* Whether some pair of budget meets c (a target's check before any fit,
 * as the command line makes it); 0 with the error set. */
int ha_py_target_feasible(uint64_t budget, const struct ha_constraints *c);

/* The model tuple of the Python layer: (smoothness, bias_coef, var_coef,
 * hdi, irreducible, var_rate, var_power, bias_log_scale, var_log_scale,
 * data_coef, data_power, var_samples_power, group_hdi), each coefficient
 * c = coef * exp(log_scale), held by the library in one form (plain when
 * the scale is 0, else ln c); n is not a model parameter and travels
 * apart.  0 and an exception on failure. */
int ha_py_model(PyObject *tuple, struct ha_model *out);
PyObject *ha_py_model_tuple(const struct ha_model *m);
/* (head_dim_multiple, min_head_dim, max_head_dim, min_heads, max_heads). */
int ha_py_constraints(PyObject *tuple, struct ha_constraints *out);
/* A budget: an int from 1 to HA_BUDGET_MAX; name for the message. */
int ha_py_budget(PyObject *obj, const char *name, uint64_t *out);
/* A list of budgets into a new array (PyMem_Free). */
int ha_py_budgets(PyObject *seq, uint64_t **out, size_t *count);
/* A sequence of floats into a new array (PyMem_Free). */
int ha_py_doubles(PyObject *seq, const char *name, double **out, size_t *count);
/* A new 1-D float64 or uint64 array copied from C. */
PyObject *ha_py_array_double(const double *v, size_t n);
PyObject *ha_py_array_size(const size_t *v, size_t n);

/* ---- progress (convert.c) ------------------------------------------------ */

/* A progress callback of the library that calls a Python callable
 * callable(what, done, total) under the GIL, and stops the work (non-zero
 * return) when it raises or a signal handler (Ctrl-C) does.  The state
 * keeps the exception for the caller to restore once the library has
 * returned HA_ECANCELED. */
struct ha_py_progress {
	PyObject *callable;     /* borrowed; None or NULL: signals only */
	PyThreadState *thread;  /* the caller's, saved by Py_BEGIN_ALLOW_THREADS */
	int failed;             /* an exception is pending in the thread */
};
int ha_py_progress_fn(void *ctx, const char *what, uint64_t done, uint64_t total);

/* ---- calls.c: the computations ------------------------------------------ */

/* The terms tuple of the Python layer (Terms, _results.py). */
PyObject *ha_py_terms_tuple(const struct ha_terms *t);
/* The model of tuple and n = samples, each validated; the message
 * names which is out of its domain. */
int ha_py_valid_model(PyObject *tuple, double samples, struct ha_model *m);

PyObject *ha_py_allocate(PyObject *self, PyObject *args);
PyObject *ha_py_candidates(PyObject *self, PyObject *args);
PyObject *ha_py_model_validate(PyObject *self, PyObject *args);
PyObject *ha_py_model_defaults(PyObject *self, PyObject *args);
PyObject *ha_py_model_param_domain(PyObject *self, PyObject *args);
PyObject *ha_py_calibration_parameters(PyObject *self, PyObject *args);
PyObject *ha_py_model_from_yaml(PyObject *self, PyObject *args);
PyObject *ha_py_sweep_values(PyObject *self, PyObject *args);
PyObject *ha_py_calibrate(PyObject *self, PyObject *args);
/* The law's free set (an HA_CAL_PARAMS-tuple of truths) and fixed
 * values (a dict {index: fit-scale value}) into *law (calls.c); 0 with
 * the error set. */
int ha_py_law(PyObject *free_obj, PyObject *fixed_obj, struct ha_cal_law *law);
/* Borrow the `want` buffers of a tuple of contiguous columns of 8-byte
 * items and one length (calls.c): b[0 .. want) to release, *count their
 * length; 0 with the error set (`what` names the input) and nothing
 * held. */
int ha_py_columns(PyObject *cols, int want, const char *what, Py_buffer *b,
                  Py_ssize_t *count);
/* The runs of (source, names) (runs_input.c): source a path, or a tuple
 * of HA_RUNS_KEYS columns in the order of enum ha_runs_key, each None
 * (absent) or contiguous float64; names None or a dict {key: column}.
 * Into *runs (malloc'd), *count; for a file *path is its name (a new
 * reference, to name it in later errors), else NULL.  0 with the error
 * set, the CSV reader's words for a column or value in memory. */
int ha_py_runs(PyObject *runs_obj, struct ha_run **runs, size_t *count,
               PyObject **path);
PyObject *ha_py_runs_keys(PyObject *self, PyObject *args);
PyObject *ha_py_runs_refuse(PyObject *self, PyObject *args);

/* ---- plan.c: which run to train next -------------------------------------- */
PyObject *ha_py_plan(PyObject *self, PyObject *args);
PyObject *ha_py_plan_dict(PyObject *self, PyObject *args);
PyObject *ha_py_plot_plan(PyObject *self, PyObject *args);
PyObject *ha_py_calibration_model(PyObject *self, PyObject *args);
PyObject *ha_py_head_weights(PyObject *self, PyObject *args);
PyObject *ha_py_head_weights_values(PyObject *self, PyObject *args);

/* ---- cal_options.c: bootstrap_kind, threads, laws ----------------------- */

/* (kind, threads, ((name, free flags), ...)) into o; the laws' storage is
 * the caller's, alive while o is used.  0 and an exception on failure. */
int ha_py_cal_options(PyObject *tuple, struct ha_cal_options *o,
                      struct ha_cal_law laws[HA_CAL_USER_LAWS_MAX]);

PyObject *ha_py_cal_fixed_domain(PyObject *self, PyObject *args);
PyObject *ha_py_name_fault(PyObject *self, PyObject *args);
PyObject *ha_py_ladder_laws(PyObject *self, PyObject *args);

/* ---- cal_frame.c: a calibration's runs as NumPy columns ----------------- */

PyObject *ha_py_calibration_runs(PyObject *self, PyObject *args);

/* ---- grouped.c: the allocation over (H, G, d) ---------------------------- */

/* The KV options (kv_heads, max_kv_dim, min_kv_heads, max_kv_heads,
 * layers, kv_bytes, model_dim), 0 each for auto, none or the default;
 * checked alone and together (ha_kv_constraints_validate). */
int ha_py_kv(PyObject *tuple, struct ha_kv_constraints *kv, struct ha_kv_shape *shape);
/* ha_kv_shape_validate at budget, the message naming the three as the
 * command line does (tuple: the KV options, to tell a default). */
int ha_py_kv_shape_check(PyObject *tuple, const struct ha_kv_shape *shape, uint64_t budget);

/* The capsule of a grouped allocation: the problem and its solution. */
struct ha_py_grouped {
	uint64_t budget;
	struct ha_model model; /* n is the solution's */
	struct ha_constraints constraints;
	struct ha_kv_constraints kv;
	struct ha_kv_shape shape;
	double max_loss_ratio; /* 0: none */
	struct ha_grouped_solution solution;
};
#define HA_PY_GROUPED_CAPSULE "headalloc.grouped"

PyObject *ha_py_grouped(PyObject *self, PyObject *args);
PyObject *ha_py_grouped_values(PyObject *self, PyObject *args);

/* ---- hdi_input.c --------------------------------------------------------- */

PyObject *ha_py_hdi_path(PyObject *self, PyObject *args);
PyObject *ha_py_hdi_arrays(PyObject *self, PyObject *args);
PyObject *ha_py_hdi_check_work(PyObject *self, PyObject *args);
PyObject *ha_py_hdi_values(PyObject *self, PyObject *args);

/* The capsule of an HDI: the report, the plan of a directory (or NULL),
 * the name of what was measured, and why the heads when not the plan's
 * ("" then). */
struct ha_py_hdi {
	struct ha_hdi_report *report;
	struct ha_checkpoint *checkpoint;
	enum ha_layout layout;
	char *file;
	char heads_reason[384];
};
#define HA_PY_HDI_CAPSULE "headalloc.hdi"
#define HA_PY_CALIBRATION_CAPSULE "headalloc.calibration"
#define HA_PY_PLAN_CAPSULE "headalloc.plan"
/* The capsule of head weights: the weights and the covariance. */
struct ha_py_head_weights {
	struct ha_head_weights weights;
	double *sigma;
};
#define HA_PY_WEIGHTS_CAPSULE "headalloc.head_weights"

/* ---- problem.c ------------------------------------------------------------- */

/* The problem as the Python layer passes it: budgets, samples, model,
 * constraints. */
struct ha_py_problem {
	struct ha_model model;
	struct ha_constraints constraints;
	uint64_t *budgets;
	size_t budget_count;
	double *samples;
	size_t sample_count;
	int all;
	int grouped;                     /* over (H, G, d): kv, shape */
	struct ha_kv_constraints kv;
	struct ha_kv_shape shape;
};

/* Free what a problem holds. */
void ha_py_problem_release(struct ha_py_problem *p);
/* (budgets, samples, model, constraints[, all]): budgets and samples
 * sequences (either may be None).  0 with the error set. */
int ha_py_problem_of(PyObject *args, struct ha_py_problem *p);
/* kv None (over (H, d)) or the KV options (grouped.c): p then over (H,
 * G, d), its shape checked at every budget.  0 with the error set (p
 * released). */
int ha_py_problem_grouped(PyObject *kv, struct ha_py_problem *p);
/* (budgets, samples, model, constraints[, kv]): both of the above. */
int ha_py_problem_kv_of(PyObject *args, struct ha_py_problem *p);

/* ---- sweep.c ---------------------------------------------------------------- */

/* The capsule of a sweep: its result (which owns a copy of the problem)
 * and the constraints it was asked under (for the report's header). */
struct ha_py_sweep {
	struct ha_sweep_result *result;
	struct ha_constraints constraints;
};
#define HA_PY_SWEEP_CAPSULE "headalloc.sweep"

PyObject *ha_py_sweep(PyObject *self, PyObject *args);

/* The capsule of an allocation: its problem and its result (with its
 * candidates and divisors). */
struct ha_py_allocation {
	struct ha_model model; /* n is the result's */
	struct ha_constraints constraints;
	struct ha_allocation_result *result;
};
#define HA_PY_ALLOCATION_CAPSULE "headalloc.allocation"

/* ---- render.c: every call to the report and plot API -------------------- */

PyObject *ha_py_report_model(PyObject *self, PyObject *args);
PyObject *ha_py_report_allocation(PyObject *self, PyObject *args);
PyObject *ha_py_report_sweep(PyObject *self, PyObject *args);
PyObject *ha_py_regimes(PyObject *self, PyObject *args);
PyObject *ha_py_report_regimes(PyObject *self, PyObject *args);
PyObject *ha_py_report_hdi(PyObject *self, PyObject *args);
PyObject *ha_py_report_head_weights(PyObject *self, PyObject *args);
PyObject *ha_py_report_calibration(PyObject *self, PyObject *args);
PyObject *ha_py_report_grouped(PyObject *self, PyObject *args);
PyObject *ha_py_plot_allocation(PyObject *self, PyObject *args);
PyObject *ha_py_plot_sweep(PyObject *self, PyObject *args);
PyObject *ha_py_plot_regimes(PyObject *self, PyObject *args);
PyObject *ha_py_plot_hdi(PyObject *self, PyObject *args);
PyObject *ha_py_plot_head_weights(PyObject *self, PyObject *args);
PyObject *ha_py_plot_calibration(PyObject *self, PyObject *args);
PyObject *ha_py_plot_grouped(PyObject *self, PyObject *args);

/* ---- write_file.c: bytes into a file by the CLI's rules ----------------- */

PyObject *ha_py_write_file(PyObject *self, PyObject *args);

/* ---- events.c -------------------------------------------------------------- */

/* A report's sections, written to r. */
typedef enum ha_status (*ha_py_sections_fn)(struct ha_report *r, const void *ctx,
                                            struct ha_error *err);

/* The report fn writes, as Python objects built from its events (maps
 * dicts in order, sequences lists, scalars of their types): a new
 * reference, or NULL with the error set.  skip, when not NULL, names a
 * top-level key whose value is left out (no objects made for it). */
PyObject *ha_py_report_dict(ha_py_sections_fn fn, const void *ctx, const char *skip);

#endif
