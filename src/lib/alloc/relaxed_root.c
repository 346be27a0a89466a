/* The canonical relaxed optimum x* (headalloc-model(7), THE CONTINUOUS
 * RELAXATION): one fixed bisection over the ordered doubles of the
 * relaxed interval [x_lo, x_hi] on the computed sign of the stationarity
 * function Q, and a fast way to the same double.
 *
 * Q(x) = ln V(x) + ln V'(x)/V(x)·x - ln(s B(x)), V the variance term and B
 * the bias term: Q >= 0 exactly where f' >= 0.  Written in u = ln x,
 *   Q = t1 + t4 + t2 + t3 + C,   t1 = (γx + κ) u,   t4 = s u,
 *   t2 = ln(ρ + (1 - ρ) x/D),   t3 = ln(γx(u + 1) + κ + (1-ρ)x/D / (ρ + (1-ρ)x/D)),
 *   C = ln c_v - ln n - ln c_b - ln s,
 * every t_i non-decreasing in x and t4 strictly increasing (s > 0, u >= 0
 * on x >= 1): Q is strictly increasing, whatever γ, κ, hdi (a sum of
 * monotone terms, which the sign of the slope of ln f is not).
 *
 * THE DEFINITION.  P(x) is "the computed Q(x) >= 0".  Keys are the bit
 * patterns of the positive doubles, which order them.  x* is x_lo if
 * P(x_lo), x_hi if not P(x_hi), and otherwise the upper end b of the
 * bracket [a, b] = [key(x_lo), key(x_hi)] halved (m = a + (b - a)/2; b = m
 * if P(m), else a = m) until b = a + 1.  That is a function of the
 * problem alone: a fixed sequence of questions, each a function of one
 * double.  Bisection runs over x, not u: x* is then the double at which
 * the mse is evaluated and printed, so the mse reported is attained there
 * (with s = 1e300 the minimum over the reals is an infimum at x -> 1+; over
 * the doubles it is attained at 1 + 2^-52).
 *
 * THE SHORTCUT.  The computed terms carry errors.  Counted in unit
 * roundoffs r = ε/2 (log within 1 ulp, as glibc's is: within 2r|u| of
 * u; the constants C, ln D, ρ and 1 - ρ are the computed ones,
 * part of the definition), with γ, κ >= 0:
 *   t1 = (γx + κ)u        5r|t1| (three roundings, and u's 2r),
 *   t4 = s u              3r|t4|,
 *   t2 = u - ln D (ρ = 0) 2r u + r|t2|;  log(ρ + a) (ρ > 0) 3r + 2r|t2|,
 *   t3 = log(dvar)        8r + 2r|t3| (dvar a sum of non-negative parts,
 *                         each within 6r: a/(ρ + a) within 6r, the growth
 *                         term within 5r; two additions),
 * and the four additions s1 = t1 + t4, s2 = t2 + t3, s3 = s1 + s2,
 * Q = s3 + C add r|s1|, r|s2|, r|s3| and r|Q| (C enters only the last
 * one, and near the root |Q| is small, so it costs next to nothing).  So
 *   |Q_c - Q| <= E = r (5|t1| + 3|t4| + e2 + 8 + 2|t3| + |s1| + |s2| + |s3| + |Q_c|)
 * (e2 the t2 line) up to second-order terms, which a factor 1.0625
 * covers.  Each part is k|f| for an f non-decreasing in x, k far below
 * 1, whose slope is that of the terms it sums (the part 2r u of ρ = 0
 * is covered by t2' = 1/x there), and t4' = s/x > 0: Q ± E is
 * non-decreasing, so
 *   m <= l:  Q_c(m) <= Q(m) + E(m) <= Q(l) + E(l) <= Q_c(l) + 2 E(l),
 *   m >= h:  Q_c(m) >= Q_c(h) - 2 E(h).
 * (The tests check E against Q in long double on random problems and
 * points.)  So one evaluation at l with Q_c(l) + 2E(l) < 0 settles every
 * question of the bisection at a double <= l (answer "no") without
 * evaluating it,
 * and Q_c(h) - 2E(h) >= 0 settles every one at a double >= h ("yes").
 * The bisection with these certificates asks exactly the questions of
 * the definition and gets the same answers: the same x*, from any
 * starting estimate; only questions strictly between l and h are
 * evaluated.  Newton steps on Q in u from the estimate (the previous
 * answer of a sweep, or NLopt's point) place l and h around the root at
 * about 2E/Q' each side. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "alloc/solver_internal.h"

/* 2 E in ε = 2r per unit of the sum (see above), with a few per cent
 * for the second-order terms and the rounding of E. */
#define CERTIFICATE_FACTOR 1.0625

/* Newton steps from the estimate, each moving ln x by at most this. */
#define NEWTON_STEPS 16
#define NEWTON_MAX_STEP 4.0

/* Attempts at a certificate on each side, the distance from the centre
 * growing 8-fold each time. */
#define CERTIFICATE_TRIES 8
#define CERTIFICATE_GROWTH 8.0

struct stationarity {
	double q;     /* Q_c(x) */
	double bound; /* 2 E(x): |Q_c - Q| over the side settled by x */
	double slope; /* dQ/du, for Newton */
};

void ha_relaxed_root_init(struct ha_relaxed_root *r, const struct ha_relaxed_fn *fn,
                          double x_lo, double x_hi)
{
	r->x_lo = x_lo;
	r->x_hi = x_hi;
	r->rate = fn->var_rate;
	r->power = fn->var_power;
	r->rho = fn->rho;
	r->share = 1.0 - fn->rho;
	r->budget = fn->budget;
	r->log_budget = fn->log_budget;
	r->smoothness = fn->smoothness;
	r->log_smoothness = log(fn->smoothness);
	r->yes_x = NAN;
	ha_relaxed_root_move(r, fn);
}

void ha_relaxed_root_move(struct ha_relaxed_root *r, const struct ha_relaxed_fn *fn)
{
	r->constant = fn->log_var_scale - fn->log_bias_coef - r->log_smoothness;
	r->evaluations = 0;
	r->last_slope = r->last_width = 0.0;
}

/* The terms of Q at x, and Q_c(x) from them: one function for the
 * certificates' evaluations and for the bisection's bare questions, so
 * that both compute the same double. */
struct terms {
	double u, t1, t2, t3, t4, s1, s2, s3, dfactor, grow, dvar;
	double t2_error; /* t2's error in units of r (see above) */
};

static inline double q_terms(const struct ha_relaxed_root *r, double x, struct terms *t)
{
	t->u = log(x);
	t->t1 = (r->rate * x + r->power) * t->u;
	double a = r->share * x / r->budget;
	if (r->rho > 0.0) {
		t->t2 = log(r->rho + a);
		t->dfactor = a / (r->rho + a);
		t->t2_error = 3.0 + 2.0 * fabs(t->t2);
	} else {
		t->t2 = t->u - r->log_budget;
		t->dfactor = 1.0;
		t->t2_error = 2.0 * t->u + fabs(t->t2);
	}
	t->grow = r->rate * x * (t->u + 1.0);
	t->dvar = t->grow + r->power + t->dfactor;
	t->t3 = log(t->dvar);
	t->t4 = r->smoothness * t->u;
	/* ((t1 + t4) + (t2 + t3)) + C, its partial sums kept for the bound */
	t->s1 = t->t1 + t->t4;
	t->s2 = t->t2 + t->t3;
	t->s3 = t->s1 + t->s2;
	return t->s3 + r->constant;
}

static void evaluate(struct ha_relaxed_root *r, double x, struct stationarity *out)
{
	r->evaluations++;
	struct terms t;
	out->q = q_terms(r, x, &t);
	/* 2E = ε (the sum in units of r) */
	out->bound = CERTIFICATE_FACTOR * DBL_EPSILON *
	             (5.0 * fabs(t.t1) + 3.0 * fabs(t.t4) + t.t2_error + 8.0 +
	              2.0 * fabs(t.t3) + fabs(t.s1) + fabs(t.s2) + fabs(t.s3) +
	              fabs(out->q));
	double ddvar = t.grow + r->rate * x + t.dfactor * (1.0 - t.dfactor);
	out->slope = (t.grow + r->power) + t.dfactor + ddvar / t.dvar + r->smoothness;
}

/* P(x), "Q_c(x) >= 0", counted as an evaluation: the bisection's
 * questions need neither the bound nor the slope (nor their division). */
static int question(struct ha_relaxed_root *r, double x)
{
	r->evaluations++;
	struct terms t;
	int yes = q_terms(r, x, &t) >= 0.0;
	/* selects, not a branch on the answer (which no predictor guesses) */
	r->yes_x = yes ? x : r->yes_x;
	r->yes_u = yes ? t.u : r->yes_u;
	return yes;
}

static uint64_t key_of(double x)
{
	uint64_t k;
	memcpy(&k, &x, sizeof k);
	return k;
}

static double double_of(uint64_t k)
{
	double x;
	memcpy(&x, &k, sizeof x);
	return x;
}

/* What is known without evaluating: every double <= below answers no,
 * every double >= above answers yes (when set). */
struct certificates {
	int has_below, has_above;
	double below, above;
};

/* Record what evaluating at x settled. */
static void settle(struct certificates *c, double x, const struct stationarity *e)
{
	if (e->q + e->bound < 0.0 && (!c->has_below || x > c->below)) {
		c->has_below = 1;
		c->below = x;
	}
	if (e->q - e->bound >= 0.0 && (!c->has_above || x < c->above)) {
		c->has_above = 1;
		c->above = x;
	}
}

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* Certificates on both sides of the root, from an estimate of it. */
static void find_certificates(struct ha_relaxed_root *r, double estimate,
                              struct certificates *c)
{
	double x = clamp(estimate, r->x_lo, r->x_hi);
	double u_lo = log(r->x_lo), u_hi = log(r->x_hi);
	struct stationarity e;
	double u = log(x);
	for (int i = 0;; i++) {
		evaluate(r, x, &e);
		settle(c, x, &e);
		if (i == NEWTON_STEPS || !(fabs(e.q) > e.bound) || !(e.slope > 0.0))
			break;
		double step = clamp(-e.q / e.slope, -NEWTON_MAX_STEP, NEWTON_MAX_STEP);
		double u_next = clamp(u + step, u_lo, u_hi);
		double x_next = clamp(exp(u_next), r->x_lo, r->x_hi);
		if (x_next == x)
			break;
		u = u_next;
		x = x_next;
	}
	/* Either side: from x, 1.2 uncertainty widths (2E/Q' in u) out, then
	 * growing, until that side is settled or the interval ends. */
	double width = e.slope > 0.0 && isfinite(e.bound) ? 1.2 * e.bound / e.slope : 0.0;
	r->last_slope = e.slope;
	r->last_width = e.slope > 0.0 && isfinite(e.bound) ? e.bound / e.slope : 0.0;
	for (int side = 0; side < 2; side++) {
		double step = x * width;
		for (int i = 0; i < CERTIFICATE_TRIES; i++) {
			if (side == 0 ? c->has_below && c->below >= x - step
			              : c->has_above && c->above <= x + step)
				break;
			double y = side == 0 ? x - step : x + step;
			y = side == 0 ? fmin(y, nextafter(x, 0.0)) : fmax(y, nextafter(x, INFINITY));
			y = clamp(y, r->x_lo, r->x_hi);
			evaluate(r, y, &e);
			settle(c, y, &e);
			if (side == 0 ? c->has_below && c->below >= y : c->has_above && c->above <= y)
				break;
			if (y == (side == 0 ? r->x_lo : r->x_hi))
				break;
			step = step * CERTIFICATE_GROWTH + x * DBL_EPSILON;
		}
	}
}

/* One question of the definition: P at the double of key k. */
static int ask(struct ha_relaxed_root *r, const struct certificates *c, uint64_t k)
{
	if (c->has_below && k <= key_of(c->below))
		return 0;
	if (c->has_above && k >= key_of(c->above))
		return 1;
	return question(r, double_of(k));
}

static double bisect(struct ha_relaxed_root *r, const struct certificates *c)
{
	if (!(r->x_hi > r->x_lo))
		return r->x_lo;
	uint64_t a = key_of(r->x_lo), b = key_of(r->x_hi);
	if (ask(r, c, a))
		return r->x_lo;
	if (!ask(r, c, b))
		return r->x_hi;
	uint64_t below = c->has_below ? key_of(c->below) : 0;
	uint64_t above = c->has_above ? key_of(c->above) : UINT64_MAX;
	/* The questions the certificates settle: m <= below answers no,
	 * m >= above yes; the first question between them stops this loop.
	 * Most of a row's questions in a sweep, each depending on the last, so the
	 * steps are kept in offsets from a: the width w = b - a, and below -
	 * a and above - a (signed: keys of positive doubles are below 2^63).
	 * With m = a + h, h = w/2, "no" is h <= below - a and "yes" h >=
	 * above - a, and each step's chain is a shift, a compare and a mask
	 * (not a branch on the answer, which no predictor guesses; the
	 * compiler makes branches of selects here): shorter than that of
	 * masks on a, b and m. */
	int64_t w = (int64_t)(b - a), to_below = (int64_t)(below - a);
	int64_t to_above = above == UINT64_MAX ? INT64_MAX : (int64_t)(above - a);
	/* m strictly between the certificates, to_below < h < to_above, in
	 * one unsigned compare (two compares became two branches, the
	 * second on the answer): h - to_below - 1 < to_above - to_below - 1,
	 * mod 2^64; for h <= to_below the left side wraps to at least
	 * 2^64 - 1 - to_below, above the right side (to_above < 2^63). */
	uint64_t gap = (uint64_t)to_above - (uint64_t)to_below - 1;
	while (w > 1) {
		int64_t h = w >> 1; /* w > 1: w / 2 */
		if ((uint64_t)h - (uint64_t)to_below - 1 < gap)
			break;
		int64_t no = h <= to_below;
		int64_t up = h & -no; /* a moves up to m on "no" */
		a += (uint64_t)up;
		to_below -= up;
		to_above -= up;
		w = h + (w & no); /* "no": w - h = h + w % 2; "yes": h */
	}
	b = a + (uint64_t)w;
	while (b - a > 1) {
		uint64_t m = a + (b - a) / 2;
		if (ask(r, c, m))
			b = m;
		else
			a = m;
	}
	return double_of(b);
}

/* Certificates from a prediction of the root: one evaluation at
 * predicted (1 - width) and one at predicted (1 + width), width in u.
 * 1 when both settle their side; 0 otherwise (what they settled is kept
 * in *c).  The slope and width there are kept for the next prediction. */
static int certify_near(struct ha_relaxed_root *r, double predicted, double width,
                        struct certificates *c)
{
	double lo = predicted - predicted * width, hi = predicted + predicted * width;
	if (!(lo > r->x_lo && hi < r->x_hi && lo < predicted && predicted < hi))
		return 0;
	struct stationarity below, above;
	evaluate(r, lo, &below);
	settle(c, lo, &below);
	if (!(c->has_below && c->below == lo))
		return 0;
	evaluate(r, hi, &above);
	settle(c, hi, &above);
	if (!(c->has_above && c->above == hi))
		return 0;
	double slope = 0.5 * (below.slope + above.slope);
	double bound = 0.5 * (below.bound + above.bound);
	r->last_slope = slope;
	r->last_width = slope > 0.0 && isfinite(bound) ? bound / slope : 0.0;
	return 1;
}

double ha_relaxed_root_solve(struct ha_relaxed_root *r, double estimate,
                             double width)
{
	struct certificates c = {0, 0, 0.0, 0.0};
	r->last_slope = r->last_width = 0.0;
	r->yes_x = NAN;
	if (r->x_hi > r->x_lo && isfinite(estimate) &&
	    !(width > 0.0 && certify_near(r, estimate, width, &c)))
		find_certificates(r, estimate, &c);
	return bisect(r, &c);
}

double ha_relaxed_root_log(const struct ha_relaxed_root *r, double x)
{
	return x == r->yes_x ? r->yes_u : log(x);
}

double ha_relaxed_root_q(struct ha_relaxed_root *r, double x, double *bound)
{
	struct stationarity e;
	evaluate(r, x, &e);
	*bound = e.bound;
	return e.q;
}
