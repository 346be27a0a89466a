/* Running PLplot into a target: the guard that keeps PLplot from printing
 * or exiting, the in-memory output that is checked, made deterministic
 * and only then written, and the page's panels. */
#define _GNU_SOURCE /* fopencookie: to know whether PLplot closed the stream */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "plot_internal.h"

/* ---- the output, in memory ------------------------------------------------------
 * PLplot writes to a FILE and closes it when the stream ends (some
 * drivers; after a failure, perhaps not).  A cookie stream over a growing
 * buffer tells which, and keeps the bytes until they are known to be a
 * whole picture. */

struct sink {
	char *data;
	size_t size, capacity;
	int closed;
	int out_of_memory;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *s = cookie;
	if (size > s->capacity - s->size) {
		size_t want = s->capacity ? s->capacity : 65536;
		while (want - s->size < size) {
			if (want > SIZE_MAX / 2) {
				s->out_of_memory = 1;
				return -1;
			}
			want *= 2;
		}
		char *grown = realloc(s->data, want);
		if (!grown) {
			s->out_of_memory = 1;
			return -1;
		}
		s->data = grown;
		s->capacity = want;
	}
	memcpy(s->data + s->size, buf, size);
	s->size += size;
	return (ssize_t)size;
}

static int sink_close(void *cookie)
{
	((struct sink *)cookie)->closed = 1;
	return 0;
}

/* ---- the guard -------------------------------------------------------------------
 * PLplot's plexit() calls the exit handler and then prints and exits;
 * the handler never returns, it jumps back into plot_render.  plabort()
 * calls the abort handler and, with plsError's buffer set, prints
 * nothing; the operation is skipped, and the picture fails. */

static jmp_buf *guard_jump;
static char guard_message[256];

static void keep_message(const char *message)
{
	if (guard_message[0])
		return;
	snprintf(guard_message, sizeof guard_message, "%s", message ? message : "");
	/* One line: PLplot's messages end in newlines. */
	for (char *p = guard_message; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	size_t n = strlen(guard_message);
	while (n && guard_message[n - 1] == ' ')
		guard_message[--n] = '\0';
}

static int on_plplot_exit(const char *message)
{
	keep_message(message);
	if (guard_jump)
		longjmp(*guard_jump, 1);
	return 1; /* not reached while a picture is drawn */
}

static void on_plplot_abort(const char *message)
{
	keep_message(message);
}

struct run {
	struct plot_canvas canvas;
	const char *device;
	FILE *file;
	plot_draw_fn draw;
	const void *data;
	PLINT errcode;      /* plsError's: 1 after a plabort */
	char errmsg[1024];  /* plsError's buffer (PLplot writes < 300 chars) */
	int exited;         /* PLplot called plexit */
	int started;        /* our stream exists */
	int ended;          /* our stream was ended */
};

static const PLINT palette[PLOT_COLOURS][3] = {
	[PLOT_WHITE] = {255, 255, 255},
	[PLOT_BLACK] = {0, 0, 0},
	[PLOT_ORANGE] = {230, 159, 0},
	[PLOT_SKY] = {86, 180, 233},
	[PLOT_GREEN] = {0, 158, 115},
	[PLOT_YELLOW] = {240, 228, 66},
	[PLOT_BLUE] = {0, 114, 178},
	[PLOT_VERMILION] = {213, 94, 0},
	[PLOT_PURPLE] = {204, 121, 167},
	[PLOT_GREY] = {153, 153, 153},
	[PLOT_LIGHT_GREY] = {225, 225, 225},
	[PLOT_DARK_GREY] = {90, 90, 90},
	[PLOT_WHITE_INK] = {255, 255, 255},
};

/* Viridis (van der Walt and Smith), by its values at nine evenly spaced
 * points, interpolated linearly in RGB. */
static const unsigned char viridis[9][3] = {
	{68, 1, 84},   {71, 44, 122},  {59, 81, 139},  {44, 113, 142},
	{33, 144, 141}, {39, 173, 129}, {92, 200, 99}, {170, 220, 50},
	{253, 231, 37},
};

static void set_colour_maps(void)
{
	enum { ENTRIES = PLOT_COLOURS + PLOT_EXTRAS };
	PLINT r[ENTRIES], g[ENTRIES], b[ENTRIES];
	for (int i = 0; i < ENTRIES; i++) {
		int from = i < PLOT_COLOURS ? i : PLOT_BLACK;
		r[i] = palette[from][0];
		g[i] = palette[from][1];
		b[i] = palette[from][2];
	}
	plscmap0(r, g, b, ENTRIES);
	/* Colour map 1 as 256 entries of our own interpolation: plscmap1l
	 * would interpolate the control points in HLS, and the legends'
	 * colours (plot_viridis_rgb) would not match the bars'. */
	PLINT vr[256], vg[256], vb[256];
	for (int i = 0; i < 256; i++) {
		unsigned rgb[3];
		plot_viridis_rgb(i / 255.0, rgb);
		vr[i] = (PLINT)rgb[0];
		vg[i] = (PLINT)rgb[1];
		vb[i] = (PLINT)rgb[2];
	}
	plscmap1(vr, vg, vb, 256);
}

/* Everything PLplot does, inside the guard.  Returns after the stream is
 * ended, normally or after PLplot gave up. */
static void guarded(struct run *volatile run)
{
	jmp_buf jump;
	PLINT previous = 0;
	plgstrm(&previous);
	guard_jump = &jump;
	guard_message[0] = '\0';
	plsexit(on_plplot_exit);
	plsabort(on_plplot_abort);
	if (setjmp(jump) == 0) {
		PLINT stream = -1;
		plmkstrm(&stream);
		if (stream >= 0) {
			run->started = 1;
			plsError(&run->errcode, run->errmsg);
			plsdev(run->device);
			plsfile(run->file);
			plspage(0.0, 0.0, (PLINT)run->canvas.width,
			        (PLINT)run->canvas.height, 0, 0);
			set_colour_maps();
			plinit();
			pladv(0);
			plschr(0.0, 0.8);
			run->draw(&run->canvas, run->data);
			plend1();
			run->ended = 1;
		}
	} else {
		run->exited = 1;
		/* End the stream PLplot left (it would have done so itself
		 * before exiting); a second failure leaves it. */
		if (run->started && !run->ended && setjmp(jump) == 0) {
			plend1();
			run->ended = 1;
		}
	}
	plsexit(NULL);
	plsabort(NULL);
	guard_jump = NULL;
	plsstrm(previous);
}

/* ---- the format ----------------------------------------------------------------- */

static const char *device_of(enum ha_plot_format f)
{
	switch (f) {
	case HA_PLOT_SVG:
		return "svg";
	case HA_PLOT_PNG:
		return "pngcairo";
	case HA_PLOT_PDF:
		return "pdfcairo";
	}
	return NULL;
}

/* Whether PLplot has the driver: asked first, since plinit() prompts on
 * the terminal for an unknown device.  plgDevs fills the caller's arrays
 * of *count entries (one is its end mark). */
static int have_device(const char *name)
{
	enum { ROOM = 512 };
	const char **menu = malloc(ROOM * sizeof *menu);
	const char **names = malloc(ROOM * sizeof *names);
	int count = ROOM, found = 0;
	if (menu && names) {
		plgDevs(&menu, &names, &count);
		for (int i = 0; i < count && !found; i++)
			found = names[i] && strcmp(names[i], name) == 0;
	}
	free((void *)menu);
	free((void *)names);
	return found;
}

static int has_magic(const struct sink *s, enum ha_plot_format f)
{
	static const char png[] = "\x89PNG\r\n\x1a\n";
	const char *magic = f == HA_PLOT_PNG ? png : f == HA_PLOT_PDF ? "%PDF-" : "<?xml";
	size_t len = f == HA_PLOT_PNG ? 8 : 5;
	return s->size > len && memcmp(s->data, magic, len) == 0;
}

/* cairo dates its PDFs: blank the date (spaces keep every byte offset of
 * the cross-reference table right), so that a picture is a function of
 * its input. */
static void blank_creation_date(struct sink *s)
{
	static const char key[] = "/CreationDate (";
	size_t klen = sizeof key - 1;
	for (size_t i = 0; i + klen < s->size; i++) {
		if (memcmp(s->data + i, key, klen) != 0)
			continue;
		size_t end = i + klen;
		while (end < s->size && s->data[end] != ')' && end - i < 64)
			end++;
		if (end < s->size && s->data[end] == ')')
			memset(s->data + i, ' ', end - i + 1);
		return;
	}
}

enum ha_status plot_check_target(const struct ha_plot_target *t,
                                 struct ha_error *err)
{
	if (!t || !t->stream)
		return ha_fail(err, HA_EINVAL, "a picture needs a target stream");
	if (!device_of(t->format))
		return ha_fail(err, HA_EINVAL, "unknown picture format %d", (int)t->format);
	return HA_OK;
}

enum ha_status plot_render(struct ha_plot_target *t, unsigned width,
                           unsigned height, plot_draw_fn draw,
                           const void *data, struct ha_error *err)
{
	enum ha_status st = plot_check_target(t, err);
	if (st != HA_OK)
		return st;
	const char *device = device_of(t->format);
	if (!have_device(device))
		return ha_fail(err, HA_EUNSUPPORTED,
		               "PLplot has no '%s' driver for %s pictures (install %s)",
		               device, ha_plot_format_str(t->format),
		               t->format == HA_PLOT_SVG ? "libplplot17"
		                                        : "plplot-driver-cairo");
	struct run *run = calloc(1, sizeof *run);
	struct sink sink = {0};
	cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
	FILE *file = run ? fopencookie(&sink, "w", io) : NULL;
	if (!file) {
		free(run);
		return ha_fail(err, HA_ENOMEM, "drawing: %s", ha_status_str(HA_ENOMEM));
	}
	t->axes_count = 0;
	t->width = width;
	t->height = height;
	run->canvas = (struct plot_canvas){.target = t, .width = width, .height = height};
	run->device = device;
	run->file = file;
	run->draw = draw;
	run->data = data;
	guarded(run);
	if (!sink.closed)
		fclose(file);

	if (sink.out_of_memory)
		st = ha_fail(err, HA_ENOMEM, "drawing: %s", ha_status_str(HA_ENOMEM));
	else if (run->exited || !run->started || run->errcode)
		st = ha_fail(err, HA_EIO, "drawing with PLplot failed: %s",
		             guard_message[0] ? guard_message
		                              : run->started ? "unknown error"
		                                             : "no PLplot stream left");
	else if (!has_magic(&sink, t->format))
		st = ha_fail(err, HA_EIO, "drawing with PLplot failed: its %s driver wrote no %s",
		             device, ha_plot_format_str(t->format));
	free(run);
	if (st == HA_OK && t->format == HA_PLOT_PDF)
		blank_creation_date(&sink);
	if (st == HA_OK && (fwrite(sink.data, 1, sink.size, t->stream) != sink.size ||
	                    fflush(t->stream) != 0 || ferror(t->stream)))
		st = ha_fail(err, HA_EIO, "writing the picture failed");
	free(sink.data);
	return st;
}

/* ---- panels ------------------------------------------------------------------------ */

void plot_panel(struct plot_canvas *c, double left, double right,
                double bottom, double top, double x0, double x1, double y0,
                double y1, int x_log, int y_log)
{
	c->axes = (struct ha_plot_axes){left, right, bottom, top, x0, x1, y0, y1,
	                                x_log, y_log};
	struct ha_plot_target *t = c->target;
	if (t->axes && t->axes_count < t->axes_capacity)
		t->axes[t->axes_count] = c->axes;
	t->axes_count++;
	plvpor(left, right, bottom, top);
	plwind(x0, x1, y0, y1);
}

double plot_px_x(const struct plot_canvas *c)
{
	const struct ha_plot_axes *a = &c->axes;
	return (a->x_max - a->x_min) / ((a->right - a->left) * c->width);
}

double plot_px_y(const struct plot_canvas *c)
{
	const struct ha_plot_axes *a = &c->axes;
	return (a->y_max - a->y_min) / ((a->top - a->bottom) * c->height);
}

double plot_log_step(double span)
{
	span = fabs(span);
	if (span <= 10.0)
		return 0.0;
	/* 1, 2 or 5 times a power of ten decades: at most 8 labels */
	double step = pow(10.0, floor(log10(span / 8.0)));
	if (span / step > 8.0)
		step *= 2.0;
	if (span / step > 8.0)
		step *= 2.5;
	if (span / step > 8.0)
		step *= 2.0;
	return step;
}

/* The labels of a log axis drawn as a linear axis of log10 values. */
static void log_label(PLINT axis, PLFLT value, char *label, PLINT length,
                      PLPointer data)
{
	(void)axis;
	(void)data;
	snprintf(label, (size_t)length, "10#u%.6g#d", value);
}

/* PLplot labels a log axis ('l') at every decade whatever the tick given:
 * past 10 decades the axis becomes a linear one of log10 values
 * labelled 10^x every plot_log_step() decades ('o': log_label), without
 * minor ticks (PLplot's would be 2..9 times each label only). */
static int axis_options(char out[16], const char *opt, double span,
                        double *tick)
{
	int relabel = strchr(opt, 'l') && plot_log_step(span) > 0.0;
	int numbered = strchr(opt, 'n') || strchr(opt, 'm');
	*tick = relabel ? plot_log_step(span) : 0.0;
	size_t o = 0;
	for (; *opt && o < 14; opt++) {
		if (relabel && (*opt == 's' || *opt == 'l'))
			continue;
		out[o++] = *opt;
	}
	if (relabel && numbered)
		out[o++] = 'o';
	out[o] = '\0';
	return relabel;
}

void plot_axes_box(const char *xopt, double xspan, const char *yopt,
                   double yspan)
{
	char xo[16], yo[16];
	double xtick, ytick;
	int relabel = axis_options(xo, xopt, xspan, &xtick);
	relabel |= axis_options(yo, yopt, yspan, &ytick);
	if (relabel)
		plslabelfunc(log_label, NULL);
	plcol0(PLOT_BLACK);
	plwidth(1.0);
	pllsty(1);
	plbox(xo, xtick, 0, yo, ytick, 0);
	if (relabel)
		plslabelfunc(NULL, NULL);
}

void plot_box(const struct plot_canvas *c, const char *xopt, const char *yopt)
{
	plot_axes_box(xopt, c->axes.x_max - c->axes.x_min, yopt,
	              c->axes.y_max - c->axes.y_min);
}

/* ---- colours --------------------------------------------------------------------------- */

void plot_viridis_rgb(double t, unsigned rgb[3])
{
	if (!(t >= 0.0))
		t = 0.0;
	if (t > 1.0)
		t = 1.0;
	double at = t * 8.0;
	int i = (int)at;
	if (i > 7)
		i = 7;
	double f = at - i;
	for (int k = 0; k < 3; k++)
		rgb[k] = (unsigned)lround(viridis[i][k] + f * (viridis[i + 1][k] - viridis[i][k]));
}

enum plot_colour plot_text_on_viridis(double t)
{
	unsigned rgb[3];
	plot_viridis_rgb(t, rgb);
	/* Relative luminance, roughly: the lighter half of viridis takes
	 * black text. */
	double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
	return y > 110.0 ? PLOT_BLACK : PLOT_WHITE_INK;
}

void plot_viridis_ink(double t)
{
	if (!(t >= 0.0))
		t = 0.0;
	if (t > 1.0)
		t = 1.0;
	plcol1(t);
}

int plot_category(size_t i, size_t count)
{
	static const enum plot_colour okabe_ito[] = {
		PLOT_BLUE, PLOT_VERMILION, PLOT_GREEN, PLOT_ORANGE, PLOT_PURPLE,
		PLOT_SKY, PLOT_BLACK,
	};
	size_t n = sizeof okabe_ito / sizeof *okabe_ito;
	int index;
	if (count <= n) {
		index = (int)okabe_ito[i % n];
	} else {
		/* stop short of viridis' yellow, which white paper swallows */
		unsigned rgb[3];
		plot_viridis_rgb(0.85 * (double)i / (double)(count - 1), rgb);
		index = PLOT_EXTRA + (int)(i % PLOT_EXTRAS);
		plscol0(index, (PLINT)rgb[0], (PLINT)rgb[1], (PLINT)rgb[2]);
	}
	plcol0(index);
	return index;
}

/* ---- text ---------------------------------------------------------------------------- */

void plot_escape(char *dst, size_t size, const char *src, size_t max_chars)
{
	size_t o = 0, taken = 0;
	if (!size)
		return;
	for (; src && *src && o + 4 < size; src++) {
		if (taken == max_chars) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char ch = (unsigned char)*src;
		char out = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		dst[o++] = out;
		if (out == '#')
			dst[o++] = '#';
		taken++;
	}
	dst[o] = '\0';
}

void plot_format_log10(char *dst, size_t size, double log10_value)
{
	if (isinf(log10_value))
		snprintf(dst, size, log10_value > 0 ? "inf" : "0");
	else if (fabs(log10_value) <= 15.0)
		snprintf(dst, size, "%.4g", pow(10.0, log10_value));
	else
		snprintf(dst, size, "10#u%.5g#d", log10_value);
}

void plot_mtex(const char *side, double disp, double pos, double just,
               const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	plmtex(side, disp, pos, just, text);
}

void plot_ptex(double x, double y, double just, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	plptex(x, y, 1.0, 0.0, just, text);
}

/* Text relative to the whole page: a viewport over all of it. */
static void page_text(const struct plot_canvas *c, double y_fraction,
                      double scale, const char *text)
{
	(void)c;
	plvpor(0.0, 1.0, 0.0, 1.0);
	plwind(0.0, 1.0, 0.0, 1.0);
	plschr(0.0, scale);
	plcol0(PLOT_BLACK);
	plptex(0.04, y_fraction, 1.0, 0.0, 0.0, text);
	plschr(0.0, 0.8);
}

void plot_caption(const struct plot_canvas *c, int line, const char *fmt, ...)
{
	char text[PLOT_CAPTION_MAX + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* Four lines of 27 points at the bottom of the page, line 0 highest. */
	double y = (4.0 * 27.0 - 27.0 * line - 16.0) / c->height;
	page_text(c, y, 0.7, text);
}

void plot_title(const struct plot_canvas *c, const char *fmt, ...)
{
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	page_text(c, 1.0 - 32.0 / c->height, 1.0, text);
}

/* ---- marks -------------------------------------------------------------------------------- */

void plot_disc(const struct plot_canvas *c, double x, double y, double r,
               int outline)
{
	enum { SIDES = 24 };
	PLFLT px[SIDES + 1], py[SIDES + 1];
	double rx = r * plot_px_x(c), ry = r * plot_px_y(c);
	for (int i = 0; i <= SIDES; i++) {
		double a = 2.0 * 3.14159265358979323846 * i / SIDES;
		px[i] = x + rx * cos(a);
		py[i] = y + ry * sin(a);
	}
	plfill(SIDES, px, py);
	if (outline) {
		plcol0(PLOT_BLACK);
		plwidth(1.0);
		pllsty(1);
		plline(SIDES + 1, px, py);
	}
}

void plot_arrowhead(const struct plot_canvas *c, double x, double y,
                    double r, int dir)
{
	double rx = r * plot_px_x(c), ry = r * plot_px_y(c);
	PLFLT px[3] = {x - rx, x + rx, x};
	PLFLT py[3] = {y - dir * ry, y - dir * ry, y + dir * ry};
	plfill(3, px, py);
}

void plot_rect(double x0, double x1, double y0, double y1)
{
	PLFLT px[4] = {x0, x1, x1, x0};
	PLFLT py[4] = {y0, y0, y1, y1};
	plfill(4, px, py);
}

/* ---- data -------------------------------------------------------------------------------- */

size_t plot_thin(double *x, double *y, size_t n, double x_lo, double x_hi,
                 size_t columns)
{
	if (n <= 4 * columns || !(x_hi > x_lo))
		return n;
	size_t out = 0, i = 0;
	while (i < n) {
		if (!isfinite(y[i])) {
			x[out] = x[i];
			y[out++] = NAN;
			i++;
			continue;
		}
		long col = (long)((x[i] - x_lo) / (x_hi - x_lo) * (double)columns);
		size_t first = i, lo = i, hi = i, last = i;
		while (i < n && isfinite(y[i]) &&
		       (long)((x[i] - x_lo) / (x_hi - x_lo) * (double)columns) == col) {
			if (y[i] < y[lo])
				lo = i;
			if (y[i] > y[hi])
				hi = i;
			last = i++;
		}
		/* first, then the extremes in x order, then last: the indices are
		 * ascending, so writing in place never overtakes the reading. */
		size_t keep[4] = {first, lo < hi ? lo : hi, lo < hi ? hi : lo, last};
		size_t prev = (size_t)-1;
		for (int k = 0; k < 4; k++) {
			if (keep[k] == prev)
				continue;
			prev = keep[k];
			x[out] = x[keep[k]];
			y[out++] = y[keep[k]];
		}
	}
	return out;
}

void plot_polyline(const double *x, const double *y, size_t n)
{
	size_t start = 0;
	while (start < n) {
		while (start < n && !isfinite(y[start]))
			start++;
		size_t end = start;
		while (end < n && isfinite(y[end]))
			end++;
		if (end - start >= 2)
			plline((PLINT)(end - start), x + start, y + start);
		start = end;
	}
}
