/* headalloc — optimal head allocation under a fixed key-dimension budget.
 * The umbrella header: include this one; it includes every public header
 * (test: tests/check_umbrella.sh).
 *
 * Names.  What the library allocates is made by ha_X_new (or a reader
 * such as ha_X_open / ha_X_read) and released by ha_X_free (NULL
 * accepted); what lives in the caller's storage is set up by ha_X_init
 * (or filled by the function that returns it) and its contents released
 * by ha_X_finish, which leaves the struct zeroed.  No other teardown verb.
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

#include "export.h"
#include "status.h"
#include "model.h"
#include "divisors.h"
#include "solver.h"
#include "grouped.h"
#include "compare.h"
#include "yaml_writer.h"
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
#include "number.h"
#include "plot.h"
#include "text.h"
#include "progress.h"
#include "format.h"
#include "checkpoint.h"
#include "hdi_groups.h"
#include "hdi_matrices.h"

#endif
