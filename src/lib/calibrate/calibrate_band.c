/* The fitted curves of a calibration and their bootstrap bands: ln L̂ at
 * a real head dimension (H = D/d), and its quantiles over the kept
 * refits, point by point, in one double a refit of memory.  A point is
 * evaluated as a run of the fit is (cal_log_fitted), so that at a run
 * the curve passes through the run's fitted value, bit for bit. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_statistics_double.h>

#include "base/error_internal.h"
#include "calibrate_internal.h"

static int point_ok(const struct ha_cal_point *p)
{
	return p && isfinite(p->budget) && p->budget >= 1.0 &&
	       p->head_dim >= 1.0 && p->head_dim <= p->budget &&
	       isfinite(p->samples) && p->samples > 1.0;
}

/* A point as the one run of the objective's data. */
struct one_run {
	struct cal_data data;
	double log_d, d_log_d, log_n, cover, gcover, weight;
};

static void one_run(struct one_run *r, const struct ha_cal_point *p)
{
	double d = p->head_dim, heads = p->budget / p->head_dim;
	r->log_d = log(d);
	r->d_log_d = d * r->log_d;
	r->log_n = log(p->samples);
	r->cover = 1.0 - 1.0 / heads;
	r->gcover = 0.0; /* a point is ungrouped (G = H) */
	r->weight = 1.0;
	r->data = (struct cal_data){.m = 1, .log_d = &r->log_d, .d_log_d = &r->d_log_d,
	                            .log_n = &r->log_n, .cover = &r->cover,
	                            .gcover = &r->gcover, .weight = &r->weight};
}

double ha_cal_log_loss(const double value[HA_CAL_PARAMS],
                       const struct ha_cal_point *point)
{
	if (!value || !point_ok(point))
		return NAN;
	struct one_run r;
	one_run(&r, point);
	return cal_log_fitted(&r.data, value, 0);
}

/* The q-quantile of v[0..n) as gsl_stats_quantile_from_sorted_data takes
 * it from sorted data (the parameters' ci95), by selection: v is
 * reordered. */
static double quantile(double *v, size_t n, double q)
{
	double at = q * (double)(n - 1);
	size_t lhs = (size_t)floor(at);
	double delta = at - (double)lhs;
	double a = gsl_stats_select(v, 1, n, lhs);
	if (delta == 0.0 || lhs + 1 >= n)
		return a;
	double b = gsl_stats_select(v, 1, n, lhs + 1);
	return (1.0 - delta) * a + delta * b;
}

enum ha_status ha_cal_band(const struct ha_calibration *c,
                           const struct ha_cal_point *points, size_t count,
                           double lower, double upper, double *log_lower,
                           double *log_upper, struct ha_error *err)
{
	if (!c || (count && (!points || !log_lower || !log_upper)))
		return ha_fail(err, HA_EINVAL, "a band needs a calibration, points and outputs");
	if (!(lower >= 0.0 && lower <= upper && upper <= 1.0))
		return ha_fail(err, HA_EINVAL,
		               "a band's quantiles must satisfy 0 <= lower <= upper <= 1, found %g and %g",
		               lower, upper);
	for (size_t i = 0; i < count; i++)
		if (!point_ok(&points[i]))
			return ha_fail(err, HA_EINVAL,
			               "point %zu of the band is out of its domain (D %g, d %g, n %g)",
			               i, points[i].budget, points[i].head_dim, points[i].samples);
	size_t b = c->bootstrap.fitted;
	if (b < 2 || !c->bootstrap.refits)
		return ha_fail(err, HA_EDEGENERATE,
		               "a band needs at least two bootstrap refits, found %zu", b);
	double *v = malloc(b * sizeof *v);
	if (!v)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	for (size_t i = 0; i < count; i++) {
		struct one_run run;
		one_run(&run, &points[i]);
		for (size_t r = 0; r < b; r++)
			v[r] = cal_log_fitted(&run.data, c->bootstrap.refits + r * HA_CAL_PARAMS, 0);
		log_lower[i] = quantile(v, b, lower);
		log_upper[i] = quantile(v, b, upper);
	}
	free(v);
	return HA_OK;
}
