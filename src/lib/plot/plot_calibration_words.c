/* Picture 6: a calibration — its words: the numbers as the legend and
 * the caption write them, the head dimensions named under the axis, and
 * the caption's lines, packed to the width of the page (computed before
 * drawing, into the picture's data). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_calibration.h"
#include "calibrate/calibrate_internal.h"

#define LN10 2.302585092994045684
#define GAMMA "\xce\xb3"
#define KAPPA "\xce\xba"
#define DELTA "\xce\xb4"
#define ALPHA "\xce\xb1"
#define BETA "\xce\xb2"

void plot_cal_format_count(char *dst, size_t size, uint64_t v)
{
	if (v < 10000000)
		snprintf(dst, size, "%" PRIu64, v);
	else
		snprintf(dst, size, "%.4g", (double)v);
}

void plot_cal_format_samples(char *dst, size_t size, double n)
{
	double e = log10(n);
	if (n >= 1e4 && fabs(e - nearbyint(e)) < 1e-12)
		snprintf(dst, size, "10#u%.0f#d", e);
	else
		snprintf(dst, size, "%.4g", n);
}

/* ---- labels ------------------------------------------------------------------------------ */

/* The head dimensions named under the axis: the target's optimum first,
 * then the runs' and the target's divisors on the axis, left to right,
 * each at least 44 pixels from every one named. */
enum ha_status plot_cal_choose_labels(struct calplot *p)
{
	size_t cap = p->m + p->pic->mark_count + 1;
	double *v = malloc(cap * sizeof *v);
	p->labels = malloc(cap * sizeof *p->labels);
	if (!v || !p->labels) {
		free(v);
		return HA_ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->m; i++)
		v[n++] = (double)p->c->fit.residuals[i].head_dim;
	for (size_t i = 0; i < p->pic->mark_count; i++)
		v[n++] = nearbyint(pow(10.0, p->pic->marks[i].x));
	for (size_t i = 1; i < n; i++) /* insertion sort: few values, mostly sorted */
		for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	double px = (p->panel[1] - p->panel[0]) * PLOT_CAL_WIDTH / (p->pic->x1 - p->pic->x0);
	if (p->c->prediction.defined)
		p->labels[p->label_count++] = (double)p->c->prediction.head_dim;
	for (size_t i = 0; i < n; i++) {
		int room = 1;
		for (size_t k = 0; k < p->label_count && room; k++)
			room = fabs(log10(v[i]) - log10(p->labels[k])) * px >= 44.0;
		if (room)
			p->labels[p->label_count++] = v[i];
	}
	free(v);
	return HA_OK;
}

/* ---- captions ------------------------------------------------------------------------------ */

/* The characters a caption shows: PLplot's escapes (#u, #d, ...) show
 * none, "##" one, a UTF-8 sequence one. */
static size_t visible(const char *s)
{
	size_t n = 0;
	for (; *s; s++) {
		if (*s == '#' && s[1]) {
			n += s[1] == '#';
			s++;
			continue;
		}
		n += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return n;
}

/* Append an item to the caption: after sep on the line being filled,
 * or at the start of the next line when fresh or when it would not fit
 * (the last line takes what remains). */
static void put(struct calplot *p, int fresh, const char *sep, const char *fmt, ...)
	HA_PRINTF(4, 5);

static void put(struct calplot *p, int fresh, const char *sep, const char *fmt, ...)
{
	char item[PLOT_CAPTION_MAX + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(item, sizeof item, fmt, ap);
	va_end(ap);
	char *line = p->caption[p->caption_line];
	if (line[0] && (fresh || visible(line) + visible(sep) + visible(item) >
	                                 PLOT_CAL_CAPTION_ROOM) &&
	    p->caption_line + 1 < PLOT_CAL_CAPTION_LINES)
		line = p->caption[++p->caption_line];
	size_t used = strlen(line), size = sizeof p->caption[0];
	snprintf(line + used, size - used, "%s%s", line[0] ? sep : "", item);
}

/* A value with its interval, in as many digits (4 to 9) as tell the
 * three apart: ln c_v = -1578.01 [-1578.03, -1577.92], not -1578
 * [-1578, -1578]. */
static void value_and_range(char *dst, size_t size, double v, const double *range)
{
	int digits = 4;
	for (; range && digits < 9; digits++) {
		char a[32], b[32], c[32];
		snprintf(a, sizeof a, "%.*g", digits, range[0]);
		snprintf(b, sizeof b, "%.*g", digits, v);
		snprintf(c, sizeof c, "%.*g", digits, range[1]);
		if ((range[0] == v || strcmp(a, b) != 0) && (range[1] == v || strcmp(b, c) != 0) &&
		    (range[0] == range[1] || strcmp(a, c) != 0))
			break;
	}
	if (range)
		snprintf(dst, size, "%.*g [%.*g, %.*g]", digits, v, digits, range[0], digits,
		         range[1]);
	else
		snprintf(dst, size, "%.4g", v);
}

/* One parameter, as the caption gives it. */
static void parameter(struct calplot *p, const struct ha_cal_estimate *e, int k,
                      const char *sep)
{
	static const char *const symbol[HA_CAL_PARAMS] = {
		"E", "c#db#u", "s", "c#dv#u", GAMMA, KAPPA, "hdi", "A", ALPHA, BETA,
	};
	char number[96], value[64] = "";
	value_and_range(number, sizeof number, e->value, e->has_ci ? e->ci95 : NULL);
	if (!e->has_ci && e->has_se) {
		size_t used = strlen(number);
		snprintf(number + used, sizeof number - used, " " PLOT_PLUSMINUS " %.2g", e->se);
	}
	if (e->log_scale) {
		/* the coefficient itself, from its logarithm: it may lie far
		 * beyond a double (ln c_v = -1578 is c_v = 10^-685.3) */
		char v[48];
		plot_format_log10(v, sizeof v, e->value / LN10);
		snprintf(value, sizeof value, " (%s = %s)", symbol[k], v);
	}
	put(p, 0, sep, "%s%s = %s%s", e->log_scale ? "ln " : "", symbol[k], number, value);
}

static void parameter_lines(struct calplot *p)
{
	const struct ha_cal_fit *fit = &p->c->fit;
	if (isinf(fit->huber_delta))
		put(p, 0, "", "least-squares fit to %zu runs:", fit->runs);
	else
		put(p, 0, "", "fit to %zu runs (Huber " DELTA " = %g):", fit->runs,
		    fit->huber_delta);
	const char *sep = " ";
	for (int k = 0; k < HA_CAL_PARAMS; k++)
		if (fit->param[k].free) {
			parameter(p, &fit->param[k], k, sep);
			sep = ", ";
		}
	sep = ";  fixed: ";
	for (int k = 0; k < HA_CAL_PARAMS; k++)
		if (!fit->param[k].free &&
		    ha_cal_param_reported((enum ha_cal_param)k, &fit->param[k])) {
			parameter(p, &fit->param[k], k, sep);
			sep = ", ";
		}
	put(p, 0, ";  ", "rms log residual %.3g", fit->rms);
}

void plot_cal_captions(struct calplot *p)
{
	const struct ha_calibration *c = p->c;
	const struct ha_cal_prediction *pr = &c->prediction;
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	memset(p->caption, 0, sizeof p->caption);
	p->caption_line = 0;
	parameter_lines(p);
	if (pr->defined) {
		char n[32], loss[48];
		plot_cal_format_samples(n, sizeof n, pr->samples);
		plot_format_log10(loss, sizeof loss, pr->log_loss / LN10);
		put(p, 1, "", "target D = %" PRIu64 ", n = %s: optimum %" PRIu64 " heads "
		    PLOT_TIMES " d#dk#u = %" PRIu64 " (" PLOT_DISC_GLYPH "), loss %s", pr->budget,
		    n, pr->heads, pr->head_dim, loss);
		for (size_t i = 0; i < pr->distribution_count; i++)
			if (pr->distribution[i].head_dim == pr->head_dim)
				put(p, 0, ", ", "the optimum of %.1f%% of the refits",
				    100.0 * pr->distribution[i].share);
		for (size_t i = 0; i < c->warning_count; i++)
			if (c->warnings[i].kind == HA_CAL_WARN_BUDGET_OUTSIDE ||
			    c->warnings[i].kind == HA_CAL_WARN_SAMPLES_OUTSIDE) {
				put(p, 0, " ", "(an extrapolation)");
				break;
			}
		put(p, 0, ";  ", "%zu of its %zu feasible head_dims on the axis%s",
		    p->pic->target_feasible_on_axis, p->pic->target_feasible,
		    p->pic->target_on_axis > HA_CAL_PICTURE_MARKS ? " (not marked)" : "");
		if (p->pic->have_band && p->pic->target_on_axis <= HA_CAL_PICTURE_MARKS)
			put(p, 0, ", ", "each with the 95%% interval of its loss");
	} else {
		put(p, 1, "", "no target: no prediction");
	}
	if (b->fitted >= 2)
		put(p, 1, "", "%s bootstrap: %zu of %zu resamples refitted (seed %" PRIu64
		    "): 95%% intervals [ ], bands",
		    cal_bootstrap_word(b->kind),
		    b->fitted, b->resamples, b->seed);
	else
		put(p, 1, "", "no bootstrap (%zu refits): no intervals, no bands", b->fitted);
	if (p->pic->curve_groups < p->pic->group_count)
		put(p, 0, ";  ", "curves of the %zu largest of %zu groups", p->pic->curve_groups,
		    p->pic->group_count);
	put(p, 0, ";  ", "beyond the axis: %zu mark%s above, %zu below", p->above,
	    p->above == 1 ? "" : "s", p->below);
	if (p->bars_cut)
		put(p, 0, ", ", "%zu error bar ends cut", p->bars_cut);
}


/* ---- room for words ------------------------------------------------------------------ */

int plot_cal_bar_named(size_t i, size_t best, size_t count, size_t stride)
{
	if (stride <= 1 || i == best)
		return 1;
	if (best >= count)
		return i % stride == 0;
	size_t gap = i > best ? i - best : best - i;
	return gap >= stride && gap % stride == 0;
}

size_t plot_cal_title_room(unsigned width, size_t runs)
{
	char prefix[96];
	int n = snprintf(prefix, sizeof prefix,
	                 "Calibration of the error model to %zu runs of ", runs);
	/* and 3 for the "..." of a shortened name */
	double room = 0.92 * (double)width / PLOT_CAL_TITLE_CHAR_PX -
	              (double)(n > 0 ? n : 0) - 3.0;
	return room > 8.0 ? (size_t)room : 8;
}
