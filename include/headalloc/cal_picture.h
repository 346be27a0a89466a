/* headalloc — what a calibration's picture shows, computed once in the
 * calibration layer (ha_plot_calibration only draws it).
 *
 * From a calibration (ha_calibrate) ha_cal_picture_new computes: the runs
 * in groups of one (D, n) and which of them get a curve, the window of
 * the head-dimension axis (the runs, the target's optimum and its feasible
 * neighbours within a decade, the laws' optima), and sampled on that
 * window the fitted curve of each drawn group with its pointwise 95%
 * bootstrap band (ha_cal_band), the target's curve, its divisors on the
 * window (their losses, feasibility under the target's constraints and
 * bands) and each compared law's curve and optimum.  Every x is log10 d
 * and every loss log10 L (from ha_cal_log_loss, finite however far L lies
 * beyond a double); NaN where a value is not defined.  The loss axis and
 * the mapping onto it are the picture's. */
#ifndef HEADALLOC_CAL_PICTURE_H
#define HEADALLOC_CAL_PICTURE_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "calibrate.h"
#include "error.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Points of a fitted curve across the window, and of a band (each band
 * point costs an evaluation a bootstrap refit). */
#define HA_CAL_PICTURE_CURVE_POINTS 400
#define HA_CAL_PICTURE_BAND_POINTS 160
/* Groups with a curve and a band: the largest (ties: the earlier). */
#define HA_CAL_PICTURE_CURVE_GROUPS 24
/* The target's divisors on the window beyond which none is marked. */
#define HA_CAL_PICTURE_MARKS 200

/* A curve: n points (x log10 d ascending, y log10 L); n = 0 when the
 * window holds no d in [1, D]. */
struct ha_cal_picture_curve {
	double *x, *y;
	size_t n;
};

/* A band: the 2.5% and 97.5% quantiles of log10 L over the refits. */
struct ha_cal_picture_band {
	double *x, *lo, *hi;
	size_t n;
};

/* The runs of one budget D and one n. */
struct ha_cal_picture_group {
	uint64_t budget;
	double samples;
	size_t count;
	int curve;                         /* one of the largest: fit (and band) */
	struct ha_cal_picture_curve fit;   /* when curve */
	struct ha_cal_picture_band band;   /* when curve and have_band */
};

/* A divisor of the target's budget on the window. */
struct ha_cal_picture_mark {
	double x, y;        /* log10 d, log10 L */
	int feasible, optimum;
	int has_band;       /* feasible, with a bootstrap */
	double lo, hi;      /* its band, log10 L */
};

/* A compared law (c->comparison[k]): its curve at the target (without a
 * target, at the first of the largest groups) when fitted, and its
 * optimum at the target. */
struct ha_cal_picture_law {
	struct ha_cal_picture_curve curve; /* n = 0 when not fitted */
	int has_mark;
	double mark_x, mark_y;
};

struct ha_cal_picture {
	size_t runs;                   /* of the calibration */
	double x0, x1;                 /* the window, log10 d */
	size_t *group_of;              /* run -> group */
	struct ha_cal_picture_group *groups; /* ascending D, then n */
	size_t group_count, curve_groups;
	size_t largest;                /* the first of the largest groups */
	int have_band;                 /* two or more refits */
	struct ha_cal_picture_curve target; /* with a target, else n = 0 */
	struct ha_cal_picture_mark *marks;  /* none past HA_CAL_PICTURE_MARKS */
	size_t mark_count;
	size_t target_feasible;        /* feasible divisors of the target */
	size_t target_on_axis, target_feasible_on_axis; /* divisors on the window */
	struct ha_cal_picture_law *laws; /* one per comparison row, in order */
	size_t law_count;
};

/* The picture of calibration; on HA_OK *out is to free with
 * ha_cal_picture_free().  HA_EINVAL (err: "a calibration's picture needs
 * a calibration with its runs") for a NULL argument, a calibration
 * without runs or with a target out of range; the target's allocator's
 * statuses (HA_EINFEASIBLE: "no (heads, head_dim) pair of budget D meets
 * the constraints"); ha_cal_band's; HA_ENOMEM. */
HA_API enum ha_status ha_cal_picture_new(const struct ha_calibration *calibration,
                                         struct ha_cal_picture **out,
                                         struct ha_error *err);
/* NULL is accepted. */
HA_API void ha_cal_picture_free(struct ha_cal_picture *picture);

#ifdef __cplusplus
}
#endif
#endif
