/* The calibration's picture (library-internal): what plot_calibration.c
 * lays out from the calibration and its picture data (ha_cal_picture_new)
 * and plot_calibration_draw.c draws.  The picture's losses are log10
 * values; plot_cal_on_axis() turns them into world coordinates of the
 * axis (log10 L on a log axis, L on a linear one) as they are drawn. */
#ifndef HEADALLOC_PLOT_CALIBRATION_H
#define HEADALLOC_PLOT_CALIBRATION_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/cal_picture.h>
#include <headalloc/calibrate.h>

#include "plot_internal.h"

#define PLOT_CAL_WIDTH 1200
#define PLOT_CAL_HEIGHT 900
/* The bottom of the panels (a fraction of the page): the caption's seven
 * lines below. */
#define PLOT_CAL_BOTTOM 0.32
/* Groups named in the legend. */
#define PLOT_CAL_LEGEND_GROUPS 6
/* Bars of the bootstrap's optima (the last: all the others). */
#define PLOT_CAL_BARS 12
/* Caption lines (plot_caption's lines -3 to 3), and the characters
 * that fit across the page in one. */
#define PLOT_CAL_CAPTION_LINES 7
#define PLOT_CAL_CAPTION_ROOM 112

struct plot_cal_run {
	double x, y;
	int has_bar, cut_lo, cut_hi; /* a bar end beyond the axis is at its edge */
	double lo, hi;
};

struct plot_cal_bar {
	uint64_t heads, head_dim;
	double share;
	size_t count;
	int optimum; /* the prediction's */
	int others;  /* the bar of every allocation not shown alone */
};

struct calplot {
	const struct ha_plot_calibration_request *req;
	const struct ha_calibration *c;
	const struct ha_cal_picture *pic; /* what is drawn, in log10 L */
	size_t m;                     /* runs */
	struct plot_cal_run *runs;    /* in the runs' order, on the axis */
	int bar_panel;
	double panel[2];              /* left and right of the losses' panel */
	double y0, y1;                /* the loss axis (x: the picture's window) */
	int y_log;
	double optimum_x, optimum_y;  /* the prediction */
	size_t above, below, bars_cut; /* marks beyond the axis; bars cut */
	double *labels;               /* head dimensions named under the axis */
	size_t label_count;
	struct plot_cal_bar *bars;
	size_t bar_count, others;     /* others: allocations in the others' bar */
	char caption[PLOT_CAL_CAPTION_LINES][PLOT_CAPTION_MAX + 1];
	int caption_line;             /* the line being filled */
};

/* log10 L on the axis: its world coordinate; and which side of the axis
 * it lies beyond (-1 below, 1 above, 0 on it). */
double plot_cal_on_axis(const struct calplot *p, double log10_value);
int plot_cal_off_axis(const struct calplot *p, double log10_value);
/* The head dimensions named under the axis into p->labels, and the
 * captions into p->caption, from the computed data
 * (plot_calibration_words.c). */
enum ha_status plot_cal_choose_labels(struct calplot *p);

/* Whether bar i of count is named when every stride-th is (stride 1:
 * all): the optimum's bar `best` always (best = count: none), the bars
 * within stride of it never, the others in step with it. */
int plot_cal_bar_named(size_t i, size_t best, size_t count, size_t stride);

/* The characters of the runs file's name that fit on the title line of a
 * page width pixels wide after "Calibration of the error model to M
 * runs of " (PLOT_CAL_TITLE_CHAR_PX a character), at least 8. */
#define PLOT_CAL_TITLE_CHAR_PX 15.0 /* measured: 14.05 on the 1200-pixel page */
size_t plot_cal_title_room(unsigned width, size_t runs);
void plot_cal_captions(struct calplot *p);
/* A count for the legend, where width is short: exact up to 7 digits,
 * else %.4g (the caption gives it exactly). */
void plot_cal_format_count(char *dst, size_t size, uint64_t v);
/* n: 10^k for a power of ten from 10^4, else %.4g. */
void plot_cal_format_samples(char *dst, size_t size, double n);
void plot_cal_draw(struct plot_canvas *c, const void *data);

#endif
