/* headalloc — optimal head allocation under a fixed key-dimension budget.
 * The umbrella header: include this one; it includes every public header
 * (test: tests/check_umbrella.sh).
 *
 * Names.  What the library allocates is made by ha_X_new (or a reader
 * such as ha_X_open / ha_X_read) and released by ha_X_free (NULL
 * accepted); what lives in the caller's storage is set up by ha_X_init
 * (or filled by the function that returns it) and its contents released
 * by ha_X_finish, which leaves the struct zeroed.  No other teardown verb.
 * A function is named after the type it acts on: ha_solver_new makes a
 * struct ha_solver, ha_calibration_free frees a struct ha_calibration,
 * ha_cal_options_defaults fills a struct ha_cal_options (ha_cal_ is the
 * calibrate module's prefix for its own types: options, laws,
 * parameters).  An enum's text is ha_<enum>_str (static storage, never
 * freed) and its reader ha_<enum>_parse; there is no _name.
 *
 * Ownership: who releases what the public functions hand out.
 *
 *   made by                                  released by
 *   ha_solver_new                            ha_solver_free
 *   ha_sweep_run                             ha_sweep_result_free
 *   ha_regimes_new, ha_regimes_new_grouped   ha_regimes_free
 *   ha_allocation_result_new                 ha_allocation_result_free
 *   ha_sweep_picture_new                     ha_sweep_picture_free
 *   ha_calibrate                             ha_calibration_free
 *   ha_cal_picture_new                       ha_cal_picture_free
 *   ha_report_new                            ha_report_free (after ha_report_end)
 *   ha_scenario_read_file, _read_string      ha_scenario_free
 *   ha_weights_open                          ha_weights_free
 *   ha_checkpoint_open, _open_tensors        ha_checkpoint_free
 *   ha_hdi_measure_weights, _checkpoint,     ha_hdi_report_free
 *     ha_hdi_report_new
 *   ha_hdi_measure_groups                    ha_hdi_groups_free
 *   ha_hdi_compute (caller's struct)         ha_hdi_tensor_finish
 *   ha_covariance_weights (caller's struct)  ha_head_weights_finish
 *   ha_grouped_solve (caller's struct)       ha_grouped_solution_finish
 *   ha_solver_enumerate, ha_covariance_read, free() (a plain array)
 *     ha_runs_read_file, _read_file_named,
 *     ha_runs_from_columns
 *
 * Everything else fills the caller's storage and owns nothing
 * (ha_solve, ha_solver_solve, ha_compare_model*, ha_model_eval, the
 * defaults and init functions, ha_cal_ladder, ha_cal_model_of,
 * ha_runs_names_*), writes to the caller's stream or file (ha_report_*
 * sections, ha_plot_*), or returns what the library keeps: static text
 * (ha_status_str, ha_version, ha_cal_param_str), or memory of the object
 * it is asked about, valid until that object's next call or free
 * (ha_sweep_result_request).  A struct ha_error is the caller's (ha_error_init).
 *
 * The library's internals (the YAML writer, number parsing, text, the
 * streaming fits, divisors, the solver's and the readers' helpers) are
 * declared in src/lib, not installed and not exported.
 *
 * Structs that grow.  A result the library allocates (struct
 * ha_hdi_report, ha_calibration, ...) is only ever read by callers, so
 * fields are added at its end without breaking them.  A request the
 * caller fills and that is expected to grow starts with `size_t size`,
 * set by its initialiser macro to the sizeof the caller was compiled
 * with (struct ha_hdi_options = HA_HDI_OPTIONS_INIT, then set fields by
 * name); the library reads only the fields that size covers and takes
 * the defaults for the rest, as zstd's and libcurl's versioned structs
 * do.  Older requests passed by value (struct ha_model,
 * ha_constraints, the report and plot requests) keep their layout until
 * they are converted the same way. */
#ifndef HEADALLOC_HEADALLOC_H
#define HEADALLOC_HEADALLOC_H

#include <headalloc/version.h>
#include "export.h"
#include "status.h"
#include "model.h"
#include "solver.h"
#include "grouped.h"
#include "compare.h"
#include "report.h"
#include "fit.h"
#include "runs.h"
#include "calibrate.h"
#include "cal_picture.h"
#include "plan.h"
#include "regime.h"
#include "sweep.h"
#include "sweep_picture.h"
#include "allocation.h"
#include "scenario.h"
#include "error.h"
#include "weights.h"
#include "hdi.h"
#include "covariance.h"
#include "head_weights.h"
#include "plot.h"
#include "progress.h"
#include "format.h"
#include "checkpoint.h"
#include "hdi_groups.h"
#include "hdi_matrices.h"

#endif
