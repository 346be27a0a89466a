/* Streaming ordinary least squares with centred (Welford) updates. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include <headalloc/fit.h>

#include "fit/fit_internal.h"

struct ha_fit {
	enum ha_fit_kind kind;
	size_t count;
	double mean_x, mean_y; /* running means of X and Y */
	double sxx, sxy, syy;  /* centred sums of squares and products */
	double seen[2];        /* the first two distinct X */
	size_t distinct;       /* distinct X seen, capped at 3 */
	size_t store_cap;
	size_t store_room;     /* points the store has room for, <= cap */
	double *store;         /* X0, Y0, X1, Y1, ...: min(count, cap) points */
};

static int kind_valid(enum ha_fit_kind kind)
{
	return kind == HA_FIT_LINEAR || kind == HA_FIT_POWER_LOGLN ||
	       kind == HA_FIT_LOG || kind == HA_FIT_POWER;
}

/* A raw point and the logarithms of it that the kinds take, made once,
 * so that fits of several kinds of one point (a sweep's power and log
 * laws) share them: the same log of the same double, so the same
 * coordinates as a point of each alone.  A log given as NaN is taken
 * here. */
struct raw_point {
	double x, y;
	double log_x, log_y;
};

static struct raw_point raw_point(double x, double y, double log_x, double log_y)
{
	return (struct raw_point){x, y, isnan(log_x) ? log(x) : log_x,
	                          isnan(log_y) ? log(y) : log_y};
}

/* Map a raw point into the fit's coordinates; 0 when outside the domain. */
static int transform(enum ha_fit_kind kind, const struct raw_point *p, double *tx,
                     double *ty)
{
	double x = p->x, y = p->y;
	if (!isfinite(x) || !isfinite(y))
		return 0;
	switch (kind) {
	case HA_FIT_LINEAR:
		*tx = x;
		*ty = y;
		break;
	case HA_FIT_POWER_LOGLN:
		if (!(x > 1.0) || !(y > 0.0))
			return 0;
		*tx = log(p->log_x);
		*ty = p->log_y;
		break;
	case HA_FIT_LOG:
		if (!(x > 0.0))
			return 0;
		*tx = p->log_x;
		*ty = y;
		break;
	case HA_FIT_POWER:
		if (!(x > 0.0) || !(y > 0.0))
			return 0;
		*tx = p->log_x;
		*ty = p->log_y;
		break;
	default:
		return 0;
	}
	return isfinite(*tx) && isfinite(*ty);
}

enum ha_status ha_fit_new(enum ha_fit_kind kind, size_t store_cap,
                          struct ha_fit **out)
{
	if (!out)
		return HA_EINVAL;
	*out = NULL;
	if (!kind_valid(kind))
		return HA_EINVAL;
	if (store_cap > SIZE_MAX / (2 * sizeof(double)))
		return HA_ENOMEM;

	struct ha_fit *fit = calloc(1, sizeof *fit);
	if (!fit)
		return HA_ENOMEM;
	fit->kind = kind;
	/* The store grows as points come (see store_point), so that a table
	 * of many budgets with a few points each costs memory for the points
	 * kept, not budgets times the cap. */
	fit->store_cap = store_cap;
	*out = fit;
	return HA_OK;
}

void ha_fit_free(struct ha_fit *fit)
{
	if (!fit)
		return;
	free(fit->store);
	free(fit);
}

void ha_fit_reset(struct ha_fit *fit)
{
	if (fit)
		*fit = (struct ha_fit){.kind = fit->kind, .store_cap = fit->store_cap,
		                       .store_room = fit->store_room, .store = fit->store};
}

size_t ha_fit_count(const struct ha_fit *fit)
{
	return fit ? fit->count : 0;
}

static void count_distinct(struct ha_fit *fit, double tx)
{
	for (size_t i = 0; i < fit->distinct && i < 2; i++)
		if (tx == fit->seen[i])
			return;
	if (fit->distinct < 2)
		fit->seen[fit->distinct] = tx;
	if (fit->distinct < 3)
		fit->distinct++;
}

/* Keep point number count while the store has a place for it, doubling
 * its room as needed.  When memory runs out the store stops where it is:
 * the largest residual then needs a replay, as past the cap. */
static void store_point(struct ha_fit *fit, double tx, double ty)
{
	if (fit->count >= fit->store_cap)
		return;
	if (fit->count == fit->store_room) {
		size_t room = fit->store_room ? 2 * fit->store_room : 16;
		if (room > fit->store_cap)
			room = fit->store_cap;
		double *p = realloc(fit->store, room * 2 * sizeof *p);
		if (!p) {
			fit->store_cap = fit->count;
			return;
		}
		fit->store = p;
		fit->store_room = room;
	}
	fit->store[2 * fit->count] = tx;
	fit->store[2 * fit->count + 1] = ty;
}

/* Add a point already in the fit's coordinates. */
static void add_transformed(struct ha_fit *fit, double tx, double ty)
{
	store_point(fit, tx, ty);
	count_distinct(fit, tx);

	/* Welford: update the means, then the centred sums with the old and
	 * new deviations, which keeps them exact for an exact line far
	 * better than raw sums of squares would. */
	fit->count++;
	double n = (double)fit->count;
	double dx = tx - fit->mean_x;
	double dy = ty - fit->mean_y;
	fit->mean_x += dx / n;
	fit->mean_y += dy / n;
	fit->sxx += dx * (tx - fit->mean_x);
	fit->sxy += dx * (ty - fit->mean_y);
	fit->syy += dy * (ty - fit->mean_y);
}

enum ha_status ha_fit_add(struct ha_fit *fit, double x, double y)
{
	double tx, ty;
	struct raw_point p = raw_point(x, y, NAN, NAN);
	if (!fit || !transform(fit->kind, &p, &tx, &ty))
		return HA_EINVAL;
	add_transformed(fit, tx, ty);
	return HA_OK;
}

void fit_add_pair_logs(struct ha_fit *a, struct ha_fit *b, double x, double y,
                       double log_x, double log_y, enum ha_status *status_a,
                       enum ha_status *status_b, double coords[FIT_PAIR_COORDS])
{
	struct raw_point p = raw_point(x, y, log_x, log_y);
	struct ha_fit *fit[2] = {a, b};
	enum ha_status *status[2] = {status_a, status_b};
	for (int k = 0; k < 2; k++) {
		double tx = NAN, ty = NAN;
		enum ha_status st = HA_EINVAL;
		if (fit[k] && transform(fit[k]->kind, &p, &tx, &ty)) {
			add_transformed(fit[k], tx, ty);
			st = HA_OK;
		}
		if (status[k])
			*status[k] = st;
		if (coords) {
			coords[2 * k] = tx;
			coords[2 * k + 1] = ty;
		}
	}
}

/* Fold one residual into the running SSR and maximum. */
static void take_residual(struct ha_fit_result *r, double tx, double ty,
                          size_t index, double *ssr)
{
	double res = ty - r->intercept - r->slope * tx;
	*ssr += res * res;
	if (fabs(res) > r->max_abs_residual || index == 0) {
		r->max_abs_residual = fabs(res);
		r->max_residual_index = index;
	}
}

/* The line of a fit into *r (zeroed first): HA_OK, or why there is none. */
static enum ha_status line_of(const struct ha_fit *fit, struct ha_fit_result *r)
{
	if (fit->distinct < 3)
		return HA_EDEGENERATE;
	if (!isfinite(fit->sxx) || !isfinite(fit->sxy) ||
	    !isfinite(fit->syy) || !isfinite(fit->mean_x) ||
	    !isfinite(fit->mean_y) || !(fit->sxx > 0.0))
		return HA_ENUMERIC;

	*r = (struct ha_fit_result){0};
	r->kind = fit->kind;
	r->count = fit->count;
	r->slope = fit->sxy / fit->sxx;
	r->intercept = fit->mean_y - r->slope * fit->mean_x;
	return HA_OK;
}

/* The rest of a result from its line and SSR, into *out on HA_OK. */
static enum ha_status finish(const struct ha_fit *fit, struct ha_fit_result r,
                             double ssr, struct ha_fit_result *out)
{
	double n = (double)fit->count;
	if (!isfinite(ssr) || !isfinite(r.slope) || !isfinite(r.intercept))
		return HA_ENUMERIC;

	double dof = n - 2.0;
	double s2 = ssr / dof;
	r.residual_sd = sqrt(s2);
	r.se_slope = sqrt(s2 / fit->sxx);
	r.se_intercept =
		sqrt(s2 * (1.0 / n + fit->mean_x * fit->mean_x / fit->sxx));
	r.t_quantile = gsl_cdf_tdist_Pinv(0.5 + 0.5 * HA_FIT_LEVEL, dof);
	r.slope_low = r.slope - r.t_quantile * r.se_slope;
	r.slope_high = r.slope + r.t_quantile * r.se_slope;

	/* ssr and syy are finite here: 1 - ssr/syy is, clamped into [0, 1]. */
	r.r2_defined = fit->syy > 0.0;
	r.r2 = r.r2_defined ? fmin(1.0, fmax(0.0, 1.0 - ssr / fit->syy)) : 1.0;

	if (!isfinite(r.se_slope) || !isfinite(r.se_intercept) ||
	    !isfinite(r.t_quantile) || !isfinite(r.slope_low) ||
	    !isfinite(r.slope_high) || !isfinite(r.max_abs_residual))
		return HA_ENUMERIC;
	*out = r;
	return HA_OK;
}

/* Where the second pass reads its points: the fit's store (one fit
 * that holds them all), a raw replay (transformed for each fit) or a
 * pair's own coordinates, kept by the caller. */
struct pass_source {
	const struct ha_fit *fit[2]; /* fit[1] NULL: one fit */
	ha_fit_replay_fn replay;
	fit_coords_fn coords;
	void *ctx;
};

/* Point i's coordinates for each fit, into c; got[k] the status of
 * fit k's point. */
static void source_point(const struct pass_source *src, size_t i,
                         double c[FIT_PAIR_COORDS], enum ha_status got[2])
{
	const struct ha_fit *one = src->fit[1] ? NULL : src->fit[0];
	if (src->coords) {
		got[0] = got[1] = src->coords(src->ctx, i, c);
		return;
	}
	if (one && one->count <= one->store_cap) {
		c[0] = one->store[2 * i];
		c[1] = one->store[2 * i + 1];
		got[0] = HA_OK;
		return;
	}
	double x, y;
	enum ha_status st = src->replay(src->ctx, i, &x, &y);
	struct raw_point p = raw_point(x, y, NAN, NAN);
	for (int k = 0; k < (one ? 1 : 2); k++)
		got[k] = st != HA_OK ? st
		       : transform(src->fit[k]->kind, &p, &c[2 * k], &c[2 * k + 1])
		       ? HA_OK : HA_EINVAL;
}

/* The second pass of one fit, or of two at once (then into out_b and
 * *status_b too): the residual sum of squares summed directly and the
 * largest residual, a failing point stopping the fits it fails. */
static void second_pass(const struct pass_source *src, struct ha_fit_result *out_a,
                        enum ha_status *status_a, struct ha_fit_result *out_b,
                        enum ha_status *status_b)
{
	int fits = src->fit[1] ? 2 : 1;
	struct ha_fit_result r[2];
	enum ha_status st[2] = {HA_EINVAL, HA_EINVAL};
	double ssr[2] = {0.0, 0.0};
	for (int k = 0; k < fits; k++)
		st[k] = line_of(src->fit[k], &r[k]);
	size_t count = src->fit[0]->count;
	for (size_t i = 0; i < count && (st[0] == HA_OK || st[1] == HA_OK); i++) {
		double c[FIT_PAIR_COORDS];
		enum ha_status got[2];
		source_point(src, i, c, got);
		for (int k = 0; k < fits; k++) {
			if (st[k] != HA_OK)
				continue;
			if (got[k] != HA_OK)
				st[k] = got[k];
			else
				take_residual(&r[k], c[2 * k], c[2 * k + 1], i, &ssr[k]);
		}
	}
	for (int k = 0; k < fits; k++) {
		if (st[k] != HA_OK)
			continue;
		r[k].max_residual_known = 1;
		st[k] = finish(src->fit[k], r[k], ssr[k], k ? out_b : out_a);
	}
	*status_a = st[0];
	if (fits == 2)
		*status_b = st[1];
}

enum ha_status ha_fit_result(const struct ha_fit *fit, ha_fit_replay_fn replay,
                             void *ctx, struct ha_fit_result *out)
{
	if (!fit || !out)
		return HA_EINVAL;
	enum ha_status st;
	if (fit->count <= fit->store_cap || replay) {
		struct pass_source src = {{fit, NULL}, replay, NULL, ctx};
		second_pass(&src, out, &st, NULL, NULL);
		return st;
	}
	/* Without a pass: SSR = Syy - beta Sxy, clamped at zero against
	 * rounding. */
	struct ha_fit_result r;
	st = line_of(fit, &r);
	if (st != HA_OK)
		return st;
	double ssr = fit->syy - r.slope * fit->sxy;
	return finish(fit, r, ssr > 0.0 ? ssr : 0.0, out);
}

void ha_fit_result_pair(const struct ha_fit *a, const struct ha_fit *b,
                        ha_fit_replay_fn replay, void *ctx,
                        struct ha_fit_result *out_a, enum ha_status *status_a,
                        struct ha_fit_result *out_b, enum ha_status *status_b)
{
	/* One pass for both only where each would replay the same points;
	 * otherwise the two results one by one. */
	if (!a || !b || !out_a || !out_b || !replay || a->count != b->count ||
	    a->count <= a->store_cap || b->count <= b->store_cap) {
		*status_a = ha_fit_result(a, replay, ctx, out_a);
		*status_b = ha_fit_result(b, replay, ctx, out_b);
		return;
	}
	struct pass_source src = {{a, b}, replay, NULL, ctx};
	second_pass(&src, out_a, status_a, out_b, status_b);
}

enum ha_status fit_result_pair_coords(const struct ha_fit *a, const struct ha_fit *b,
                                      fit_coords_fn coords, void *ctx,
                                      struct ha_fit_result *out_a,
                                      enum ha_status *status_a,
                                      struct ha_fit_result *out_b,
                                      enum ha_status *status_b)
{
	if (!a || !b || !coords || !out_a || !out_b || !status_a || !status_b ||
	    a->count != b->count || a->store_cap || b->store_cap)
		return HA_EINVAL;
	struct pass_source src = {{a, b}, NULL, coords, ctx};
	second_pass(&src, out_a, status_a, out_b, status_b);
	return HA_OK;
}

double ha_fit_seed_exponent(double smoothness)
{
	if (!(smoothness > -4.0) || !isfinite(smoothness))
		return 0.0;
	return 2.0 / (4.0 + smoothness);
}
