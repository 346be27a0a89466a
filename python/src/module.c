/* _headalloc — the extension module: its method table and initialisation.
 * The functions are low level (tuples and capsules); the package
 * headalloc (python/headalloc/) is the interface people use. */
#define HA_PY_MODULE_C
#include "ha_py.h"

#include <headalloc/plot.h>

#define METHOD(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_VARARGS, doc}

static PyMethodDef methods[] = {
	METHOD("allocate", ha_py_allocate, "allocate(budget, samples, model, constraints) -> (..., capsule)"),
	METHOD("candidates", ha_py_candidates, "candidates(capsule) -> list"),
	METHOD("model_param_domain", ha_py_model_param_domain,
	       "model_param_domain(name, value) -> (expected, in_domain)"),
	METHOD("cal_fixed_domain", ha_py_cal_fixed_domain,
	       "cal_fixed_domain(name, value) -> (words, in_domain)"),
	METHOD("name_fault", ha_py_name_fault, "name_fault(name) -> None or str"),
	METHOD("ladder_laws", ha_py_ladder_laws, "ladder_laws() -> names"),
	METHOD("model_defaults", ha_py_model_defaults, "model_defaults() -> model tuple"),
	METHOD("calibration_parameters", ha_py_calibration_parameters, "calibration_parameters() -> names"),
	METHOD("runs_keys", ha_py_runs_keys, "runs_keys() -> the keys of a run"),
	METHOD("runs_refuse", ha_py_runs_refuse, "runs_refuse(row, key, found): raise"),
	METHOD("model_valid", ha_py_model_validate, "model_valid(model) -> bool"),
	METHOD("model_from_yaml", ha_py_model_from_yaml, "model_from_yaml(path) -> model tuple"),
	METHOD("sweep_values", ha_py_sweep_values, "sweep_values(from, to, points) -> ndarray"),
	METHOD("grouped", ha_py_grouped, "grouped(budget, samples, model, constraints, kv, front, max_loss_ratio) -> capsule"),
	METHOD("grouped_values", ha_py_grouped_values, "grouped_values(capsule) -> tuple"),
	METHOD("calibrate", ha_py_calibrate, "calibrate(runs, free, fixed, target, constraints, huber, bootstrap, seed, compare, progress[, (kind, threads, laws)]) -> capsule"),
	METHOD("calibration_model", ha_py_calibration_model, "calibration_model(capsule) -> (model, samples)"),
	METHOD("plan", ha_py_plan, "plan(runs, free, fixed, budget, samples, constraints, huber, resamples, seed, threads, kv_heads, pool, pool_samples, cost, model_dim, next, spend, stop_below, outcomes, progress) -> capsule"),
	METHOD("plan_dict", ha_py_plan_dict, "plan_dict(capsule) -> dict"),
	METHOD("plot_plan", ha_py_plot_plan, "plot_plan(name, capsule) -> bytes"),
	METHOD("calibration_runs", ha_py_calibration_runs, "calibration_runs(capsule) -> {column: ndarray}"),
	METHOD("head_weights", ha_py_head_weights, "head_weights(covariance) -> capsule"),
	METHOD("head_weights_values", ha_py_head_weights_values, "head_weights_values(capsule) -> tuple"),
	METHOD("hdi_path", ha_py_hdi_path, "hdi_path(path, pattern, heads, layout) -> capsule"),
	METHOD("hdi_arrays", ha_py_hdi_arrays, "hdi_arrays([(name, array, kind, heads)], layout, label) -> capsule"),
	METHOD("hdi_check_work", ha_py_hdi_check_work,
	       "hdi_check_work(name, rows, cols, heads, layout) -> None"),
	METHOD("hdi_values", ha_py_hdi_values, "hdi_values(capsule) -> tuple"),
	METHOD("sweep", ha_py_sweep, "sweep(budgets, samples, model, constraints[, progress[, kv]]) -> (capsule, columns)"),
	METHOD("regimes", ha_py_regimes, "regimes(budgets, None, model, constraints[, kv]) -> capsule"),
	METHOD("report_model", ha_py_report_model, "report_model(None, None, model, constraints) -> dict"),
	METHOD("report_allocation", ha_py_report_allocation, "report_allocation(capsule) -> dict"),
	METHOD("report_sweep", ha_py_report_sweep, "report_sweep(capsule[, fits_only]) -> dict"),
	METHOD("report_regimes", ha_py_report_regimes, "report_regimes(capsule) -> dict"),
	METHOD("report_hdi", ha_py_report_hdi, "report_hdi(capsule) -> dict"),
	METHOD("report_head_weights", ha_py_report_head_weights, "report_head_weights(capsule) -> dict"),
	METHOD("report_calibration", ha_py_report_calibration, "report_calibration(capsule) -> dict"),
	METHOD("plot_allocation", ha_py_plot_allocation, "plot_allocation(name, capsule) -> bytes"),
	METHOD("plot_sweep", ha_py_plot_sweep, "plot_sweep(name, capsule) -> bytes"),
	METHOD("plot_regimes", ha_py_plot_regimes, "plot_regimes(name, capsule) -> bytes"),
	METHOD("report_grouped", ha_py_report_grouped, "report_grouped(capsule) -> dict"),
	METHOD("plot_grouped", ha_py_plot_grouped, "plot_grouped(name, capsule) -> bytes"),
	METHOD("plot_hdi", ha_py_plot_hdi, "plot_hdi(name, capsule) -> bytes"),
	METHOD("plot_head_weights", ha_py_plot_head_weights, "plot_head_weights(name, capsule) -> bytes"),
	METHOD("plot_calibration", ha_py_plot_calibration, "plot_calibration(name, capsule) -> bytes"),
	METHOD("write_file", ha_py_write_file, "write_file(path, data, what) -> None"),
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_headalloc",
	"The C extension of headalloc over libheadalloc; use the package headalloc.",
	-1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__headalloc(void);
PyMODINIT_FUNC PyInit__headalloc(void)
{
	import_array();
	PyObject *m = PyModule_Create(&module);
	if (!m)
		return NULL;
	if (PyModule_AddStringConstant(m, "version", ha_version()) < 0 ||
	    PyModule_AddIntConstant(m, "plot_available", ha_plot_available()) < 0 ||
	    PyModule_AddIntConstant(m, "hdi_max_heads", (long)HA_HDI_MAX_HEADS) < 0 ||
#ifdef HA_PY_BOOTSTRAP_PROGRESS
	    PyModule_AddIntConstant(m, "bootstrap_progress", 1) < 0) {
#else
	    PyModule_AddIntConstant(m, "bootstrap_progress", 0) < 0) {
#endif
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
