/* headalloc — pictures of the reports, drawn with PLplot.
 *
 * One picture per kind of report, from the same inputs as the report
 * (report.h) and computed through the same solver:
 *
 *   ha_plot_allocation    the error landscape of one budget at one n
 *   ha_plot_sweep         the optimal head_dim against n (or D) with fits
 *   ha_plot_regimes       the exact regimes in n of each budget
 *   ha_plot_hdi           the overlap matrices and HDI of key projections
 *   ha_plot_head_weights  optimal head weights and their covariance
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
 * PLplot is process-wide state: these functions are not thread-safe and
 * must not run while the caller draws with PLplot itself.  While one
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

#include "covariance.h"
#include "error.h"
#include "hdi.h"
#include "model.h"
#include "report.h"
#include "solver.h"
#include "status.h"

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

/* "svg", "png" or "pdf" (never NULL). */
HA_API const char *ha_plot_format_str(enum ha_plot_format format);

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
	const struct ha_model *model;             /* required; model->samples is n */
	const struct ha_constraints *constraints; /* NULL: none */
	uint64_t budget;                          /* 1 <= D <= HA_BUDGET_MAX */
	const struct ha_hdi_source *hdi_source;   /* NULL: the HDI was given */
};
HA_API enum ha_status ha_plot_allocation(struct ha_plot_target *target,
                                         const struct ha_plot_allocation_request *req,
                                         struct ha_error *err);

/* 2. A sweep (the request of ha_report_table): with several n, the
 * integer optimum head_dim (exact steps, from the regimes) and the
 * relaxed optimum against n on a log axis, one colour per budget, with
 * the fitted laws of spec §6 (ln d = ln a + b ln ln n and d = p + q ln n,
 * fitted over the request's values of n as in the report) and the seeds'
 * claimed exponent b = 2/(4+s) as a dashed line (the best fit with b held
 * at the claim).  With one n and several budgets: the same against the
 * budget D, with the fitted ln H* = ln c + e ln D and the claim e = 1.
 * Panel 0: x is log10 n (or log10 D), y is head_dim (log10 head_dim when
 * y_log). */
HA_API enum ha_status ha_plot_sweep(struct ha_plot_target *target,
                                    const struct ha_table_request *req,
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
 * HDI). */
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

#ifdef __cplusplus
}
#endif
#endif
