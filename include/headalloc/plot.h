/* headalloc — pictures of the reports, drawn with PLplot.
 *
 * One picture per kind of report, from the same inputs as the report
 * (report.h) or from the results it renders (the regimes, an allocation,
 * a sweep's picture data: regime.h, allocation.h, sweep_picture.h),
 * computed by the same functions; the pictures themselves only draw:
 *
 *   ha_plot_allocation    the error landscape of one budget at one n
 *   ha_plot_sweep         the optimal head_dim against n (or D) with fits
 *   ha_plot_regimes       the exact regimes in n of each budget
 *   ha_plot_hdi           the overlap matrices and HDI of key projections
 *   ha_plot_head_weights  optimal head weights and their covariance
 *   ha_plot_calibration   measured losses, the calibrated fit and its
 *                         prediction at a target
 *   ha_plot_grouped       the KV cache against the error: a grouped
 *                         allocation's trade-off front
 *   ha_plot_plan          which run to train next: each candidate's
 *                         value against its cost, the picks marked
 *
 * Each writes one complete picture to target->stream in the target's
 * format (SVG, PNG or PDF), or nothing at all on failure.  The same input
 * gives the same bytes: PLplot's output is made deterministic (the PDF
 * creation date is blanked).  Every quantity that can pass a double (an
 * error of d^(d/2), a regime boundary at n = 10^685) is drawn from its
 * logarithm; a point that falls outside the axes is marked at the edge
 * and counted in the caption, never dropped silently.  Colour maps are
 * colour-blind safe: viridis for continuous values, Okabe–Ito for
 * categories.
 *
 * PLplot is process-wide state: these functions take one lock of the
 * library's around every use of it, so any number of threads may draw
 * at once (the pictures are drawn one after another; what each computes
 * first, and the writing of each finished picture to its stream, run in
 * parallel).  They must not run while the caller draws with PLplot
 * itself.  While one
 * runs, PLplot's exit and abort handlers are headalloc's (so that PLplot
 * neither prints nor exits; its failures become statuses) and they are
 * reset to PLplot's defaults afterwards.  A build without PLplot (meson
 * -Dplot=disabled) keeps every function; each then returns
 * HA_EUNSUPPORTED, and ha_plot_available() says 0. */
#ifndef HEADALLOC_PLOT_H
#define HEADALLOC_PLOT_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "allocation.h"
#include "cal_picture.h"
#include "calibrate.h"
#include "covariance.h"
#include "error.h"
#include "grouped.h"
#include "hdi.h"
#include "model.h"
#include "plan.h"
#include "report.h"
#include "solver.h"
#include "status.h"
#include "sweep_picture.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ha_plot_format {
	HA_PLOT_SVG = 0, /* PLplot's SVG driver; sizes in points */
	HA_PLOT_PNG = 1, /* cairo (plplot-driver-cairo); sizes in pixels */
	HA_PLOT_PDF = 2  /* cairo (plplot-driver-cairo); sizes in points */
};

/* 1 when this build draws pictures, 0 when it was built without PLplot. */
HA_API int ha_plot_available(void);

/* The format a file name asks for, by its extension: ".svg", ".png" or
 * ".pdf" in any case.  HA_EINVAL for a NULL argument or any other name
 * (no extension, ".jpg", a bare ".png"); then *out is untouched.  Works
 * in builds without PLplot too. */
HA_API enum ha_status ha_plot_format_from_path(const char *path,
                                               enum ha_plot_format *out);

/* Where a panel's axes are, so that a caller (or a test) can find a
 * value in the picture: the frame of the panel spans [left, right] x
 * [bottom, top] as fractions of the page's width and height from its
 * bottom-left corner, and world coordinates x_min..x_max, y_min..y_max
 * map linearly onto it.  On a log axis (x_log, y_log) the world
 * coordinate is log10 of the value.  A pixel of a PNG at world (x, y) is
 * column (left + (x - x_min) / (x_max - x_min) (right - left)) width and
 * row (1 - bottom - (y - y_min) / (y_max - y_min) (top - bottom)) height,
 * counted from the top-left corner. */
struct ha_plot_axes {
	double left, right, bottom, top;
	double x_min, x_max, y_min, y_max;
	int x_log, y_log;
};

/* Where a picture goes.  axes, when not NULL, receives the axes of the
 * picture's first axes_capacity panels (in the order each function
 * lists); axes_count is set to the number of panels drawn.  width and
 * height are set to the page's size (pixels for PNG, points otherwise). */
struct ha_plot_target {
	FILE *stream;                /* required; written, never closed */
	enum ha_plot_format format;
	struct ha_plot_axes *axes;   /* NULL: not wanted */
	size_t axes_capacity;
	size_t axes_count;           /* out */
	unsigned width, height;      /* out */
};

/* ---- the pictures --------------------------------------------------------
 * Every function returns HA_OK; HA_EINVAL for a NULL target, stream or
 * request, an unknown format, or a request that breaks its contract;
 * HA_EUNSUPPORTED when built without PLplot or when PLplot lacks the
 * format's driver (the message names the package); HA_EIO when writing
 * the stream fails or PLplot reports a failure (its message is kept);
 * HA_ENOMEM; and the solver's statuses where a picture solves.  err, when
 * not NULL, is filled with a one-line message on failure.  Pointers in a
 * request are borrowed for the call only. */

/* 1. The error landscape of one budget at one n: log10 of the MSE and of
 * its three parts (bias², variance, covariance) against head_dim on a log
 * axis over every divisor of the budget, heads H = D / head_dim on the
 * top axis; feasible divisors in colour, infeasible ones grey, the
 * integer optimum marked, the relaxed optimum a vertical line.  Panel 0
 * (the only one): x is log10 head_dim, y is log10 of the error. */
struct ha_plot_allocation_request {
	const struct ha_model *model;             /* required */
	const struct ha_constraints *constraints; /* NULL: none */
	uint64_t budget;                          /* 1 <= D <= HA_BUDGET_MAX */
	const struct ha_hdi_source *hdi_source;   /* NULL: the HDI was given */
	/* Required: this budget's allocation, made with
	 * ha_allocation_result_new (allocation.h) with HA_ALLOCATION_DIVISORS,
	 * borrowed, drawn as it is (the picture computes nothing); HA_EINVAL
	 * without it or with another budget's. */
	const struct ha_allocation_result *allocation;
};
HA_API enum ha_status ha_plot_allocation(struct ha_plot_target *target,
                                         const struct ha_plot_allocation_request *req,
                                         struct ha_error *err);

/* 2. A sweep, from its picture data (ha_sweep_picture_new,
 * sweep_picture.h; the picture computes nothing): with several n, the
 * integer optimum head_dim (exact steps, from the regimes) and the
 * relaxed optimum against n on a log axis, one colour per budget, with
 * the fitted laws of headalloc-model(7), SCALING LAWS (ln d = ln a + b ln ln n and d = p + q ln n,
 * fitted over the request's values of n as in the report) and the seeds'
 * claimed exponent b = 2/(4+s) as a dashed line (the best fit with b held
 * at the claim).  With one n and several budgets: the same against the
 * budget D, with the fitted ln H* = ln c + e ln D and the claim e = 1.
 * Panel 0: x is log10 n (or log10 D), y is head_dim (log10 head_dim when
 * y_log). */
struct ha_plot_sweep_request {
	/* Required, borrowed, drawn as it is; HA_EINVAL without it. */
	const struct ha_sweep_picture *picture;
};
HA_API enum ha_status ha_plot_sweep(struct ha_plot_target *target,
                                    const struct ha_plot_sweep_request *req,
                                    struct ha_error *err);

/* 3. The regimes (the request of ha_report_regimes, budget_count >= 1):
 * one row per budget (row i spans y in [i, i + 1], its bar [i + 0.18,
 * i + 0.68], the first budget at the bottom), its intervals of n on a log axis coloured by the optimal
 * head_dim, each boundary labelled with its n.  The axis ends at n =
 * 10^300 at most (the largest n headalloc takes); regimes that start
 * beyond are counted in the caption with the first one's start.  When
 * the axis spans more than 40 decades a second panel repeats the rows for
 * n up to 10^16.  Panels: the full range, then the zoom when drawn; x is
 * log10 n, y the row. */
HA_API enum ha_status ha_plot_regimes(struct ha_plot_target *target,
                                      const struct ha_regimes_request *req,
                                      struct ha_error *err);

/* 4. The HDI of key projections: for each selected layer (tensor) its
 * H x H overlap matrix as a heatmap on a fixed [0, 1] scale with a colour
 * bar (row i, column j is the overlap of heads i and j, head 0 at the top
 * left; matrices of more than 256 heads are shown as block means, which
 * the panel's title says), and a strip of the HDI of every layer of the
 * report with the selected layers highlighted.  Panels: the heatmaps in
 * the order of layers (x is the column j, y the row i, cell (i, j)
 * centred on (j, i)), then the strip (x is the layer's index, y its
 * HDI).  With selected_only set the strip holds the selected layers
 * alone, at their indices: one picture a layer (headalloc hdi
 * --plot-each) then has the same size whatever the report's count. */
struct ha_plot_hdi_request {
	const char *file;                 /* required: the file measured */
	enum ha_layout layout;
	const struct ha_hdi_report *hdi;  /* required, count >= 1 */
	const size_t *layers;             /* indices into hdi->tensors to draw;
	                                     NULL: every layer */
	size_t layer_count;
	/* A reference HDI per layer (hdi->count values in [0, 1]), drawn in
	 * the strip as a dashed line: the hook for the HDI of random
	 * subspaces of the same shapes.  NULL: none. */
	const double *baseline;
	const char *baseline_label;       /* its legend entry; NULL: "baseline" */
	int selected_only;                /* the strip: the selected layers alone */
};
HA_API enum ha_status ha_plot_hdi(struct ha_plot_target *target,
                                  const struct ha_plot_hdi_request *req,
                                  struct ha_error *err);

/* 5. Optimal head weights: the weights alpha as bars (one per head, the
 * uniform weight 1/H as a dashed line) and, when sigma is given, the
 * covariance Sigma as a heatmap with a colour bar.  Panels: the bars (x
 * is the head, y the weight), then the heatmap when drawn. */
struct ha_plot_head_weights_request {
	const struct ha_head_weights *weights; /* required */
	const double *sigma;                   /* H x H row-major; NULL: none */
};
HA_API enum ha_status ha_plot_head_weights(struct ha_plot_target *target,
                                           const struct ha_plot_head_weights_request *req,
                                           struct ha_error *err);

/* 6. A calibration (the result of ha_calibrate): the measured losses
 * against head_dim on a log axis, one colour per group of runs of the
 * same budget D = H d and n (groups in ascending D, then n), each with
 * its error bar L e^(+-se/L) (the one standard error the fit weighs it
 * by, in log space; L +- se to first order) when the run gives loss_se,
 * the fitted curve of each group (the model at real d with H = D/d, over
 * the axis's d up to D) and its pointwise 95% bootstrap band (2.5% and
 * 97.5% of the refits' curves, ha_cal_band) when two or more resamples
 * were refitted.  Curves and bands are drawn for the 24 largest groups
 * (the caption says when there are more; every run's point is drawn).
 * With a target: its fitted curve with a mark at each divisor of the
 * budget on the axis (feasible ones black, with the bootstrap's 95%
 * interval of their loss; infeasible ones grey; none when more than 200
 * are on the axis, which the caption says), the optimum a large
 * vermilion disc, and a second panel of bars: the share of the
 * bootstrap's optima at the target that is each (H, d_k) (the 11 most
 * frequent, the others as one grey bar; the optimum's bar vermilion).
 * With a comparison: the fitted curve of each law, dashed, for the
 * target, or without one for the largest group (the first of the
 * largest), and its optimum at the target as a ring.  The loss axis is
 * logarithmic when the values it must show span more than a factor of
 * 30; fitted values far beyond it are drawn from their logarithms, and
 * marks beyond it are drawn at its edge and counted in the caption.  The
 * caption gives every parameter (coefficients as ln c and their value,
 * which may lie far beyond a double) with its bootstrap interval.
 * Panels: the losses (x is log10 head_dim, y the loss, log10 of it when
 * y_log), then the bars when drawn (bar i spans x in [i - 0.35,
 * i + 0.35] from y = 0 to its share, bars in ascending head_dim, the
 * others' bar last). */
struct ha_plot_calibration_request {
	const struct ha_calibration *calibration; /* required */
	const char *runs_file;                    /* named in the title; NULL: not */
	/* Required: ha_cal_picture_new(calibration) (cal_picture.h), the
	 * curves, bands and window drawn; HA_EINVAL without it. */
	const struct ha_cal_picture *picture;
};
HA_API enum ha_status ha_plot_calibration(struct ha_plot_target *target,
                                          const struct ha_plot_calibration_request *req,
                                          struct ha_error *err);

/* 7. The trade-off front of a grouped-query allocation (grouped.h), as
 * solved with front set: its non-dominated (error, KV cache) allocations
 * as a line of discs, the KV cache in bytes a token on a log x axis
 * against the loss ratio to the unconstrained optimum on a log y axis,
 * the optimum under the KV constraints a vermilion disc, with
 * max_loss_ratio its pick (the solution's chosen entry) a green disc and
 * the ratio a dashed line; ratio 1 a dotted line, and the unconstrained
 * optimum a grey disc when the KV constraints exclude it.  It draws the
 * solution as it is (it solves nothing).  HA_EINVAL without a front.
 * Panel 0: x is log10 bytes a token, y log10 of the loss ratio. */
struct ha_plot_grouped_request {
	const struct ha_model *model;               /* required: the caption */
	const struct ha_constraints *constraints;   /* NULL: none (the caption) */
	const struct ha_grouped_solution *solution; /* required, with its front */
	const struct ha_kv_constraints *kv;         /* NULL: none (the caption) */
	const struct ha_kv_shape *shape;            /* NULL: the defaults */
	double max_loss_ratio;                      /* 0: none */
	const struct ha_hdi_source *hdi_source;     /* NULL: the HDI was given */
};
HA_API enum ha_status ha_plot_grouped(struct ha_plot_target *target,
                                      const struct ha_plot_grouped_request *req,
                                      struct ha_error *err);

/* 8. A plan (ha_plan_make, plan.h): each candidate's value against its
 * cost on a log x axis, one colour per n (8 at most, the last standing
 * for the rest), each with its ±1 standard error bar; the picks ringed
 * in black and numbered by their place; --stop-below a dashed line.
 * An initial design's candidates lie on 0, its runs ringed.  It draws
 * the plan as it is.  HA_EINVAL for a plan without candidates (the
 * decision alone).  Panel 0: x is log10 cost, y the value. */
struct ha_plot_plan_request {
	const struct ha_plan *plan; /* required */
	const char *runs_file;      /* named in the title; NULL: not */
};
HA_API enum ha_status ha_plot_plan(struct ha_plot_target *target,
                                   const struct ha_plot_plan_request *req,
                                   struct ha_error *err);

#ifdef __cplusplus
}
#endif
#endif
