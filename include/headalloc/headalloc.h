/* headalloc — optimal head allocation under a fixed key-dimension budget.
 * The umbrella header: include this one. */
#ifndef HEADALLOC_HEADALLOC_H
#define HEADALLOC_HEADALLOC_H

#include "status.h"
#include "model.h"
#include "divisors.h"
#include "solver.h"
#include "compare.h"
#include "yaml_writer.h"
#include "report.h"
#include "fit.h"
#include "runs.h"
#include "calibrate.h"
#include "regime.h"
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
#include "checkpoint.h"

#endif
