/* Running PLplot into a target: the guard that keeps PLplot from printing
 * or exiting, the colour maps, and the in-memory output that is checked,
 * made deterministic and only then written. */
#define _GNU_SOURCE /* fopencookie: to know whether PLplot closed the stream */
#include <pthread.h>
#include <setjmp.h>
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
		while (want - s->size < size && want <= SIZE_MAX / 2)
			want *= 2;
		char *grown = want - s->size < size ? NULL : realloc(s->data, want);
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

/* PLplot keeps its streams, its current stream and the guard's handlers
 * in process-wide state: two pictures drawn at once from two threads
 * would draw into each other's stream, or make plinit() prompt for a
 * device.  Every use of PLplot (the driver query included) and of the
 * guard's state happens with this lock held. */
static pthread_mutex_t plplot_lock = PTHREAD_MUTEX_INITIALIZER;

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
			PLFLT def = 0.0, height = 0.0;
			plgchr(&def, &height);
			run->canvas.page_text_mm = def;
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

/* Each format's PLplot driver, the bytes its files begin with, and the
 * Debian package that has the driver. */
static const struct format {
	const char *device, *magic;
	size_t magic_length;
	const char *package;
} formats[] = {
	[HA_PLOT_SVG] = {"svg", "<?xml", 5, "libplplot17"},
	[HA_PLOT_PNG] = {"pngcairo", "\x89PNG\r\n\x1a\n", 8, "plplot-driver-cairo"},
	[HA_PLOT_PDF] = {"pdfcairo", "%PDF-", 5, "plplot-driver-cairo"},
};

/* Whether PLplot has the driver (1), not (0), or memory ran out (-1):
 * asked first, since plinit() prompts on the terminal for an unknown
 * device.  plgDevs fills the caller's arrays of *count entries (one is
 * its end mark). */
static int have_device(const char *name)
{
	enum { ROOM = 512 };
	const char **menu = malloc(ROOM * sizeof *menu);
	const char **names = malloc(ROOM * sizeof *names);
	int count = ROOM, found = menu && names ? 0 : -1;
	if (found == 0) {
		plgDevs(&menu, &names, &count);
		for (int i = 0; i < count && !found; i++)
			found = names[i] && strcmp(names[i], name) == 0;
	}
	free((void *)menu);
	free((void *)names);
	return found;
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

enum ha_status plot_check(const struct ha_plot_target *t, int valid,
                          const char *needs, struct ha_error *err)
{
	if (!t || !t->stream)
		return ha_fail(err, HA_EINVAL, "a picture needs a target stream");
	if ((unsigned)t->format >= sizeof formats / sizeof *formats)
		return ha_fail(err, HA_EINVAL, "unknown picture format %d", (int)t->format);
	return valid ? HA_OK : ha_fail(err, HA_EINVAL, "%s", needs);
}

/* Draw into sink with plplot_lock held (plot_render). */
static enum ha_status render_locked(struct ha_plot_target *t, unsigned width,
                                    unsigned height, plot_draw_fn draw,
                                    const void *data, struct sink *sink,
                                    struct ha_error *err)
{
	const struct format *format = &formats[t->format];
	const char *device = format->device;
	int have = have_device(device);
	if (have < 0)
		return ha_fail(err, HA_ENOMEM, "drawing: %s", ha_status_str(HA_ENOMEM));
	if (!have)
		return ha_fail(err, HA_EUNSUPPORTED,
		               "PLplot has no '%s' driver for %s pictures (install %s)",
		               device, ha_plot_format_str(t->format), format->package);
	struct run *run = calloc(1, sizeof *run);
	cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
	FILE *file = run ? fopencookie(sink, "w", io) : NULL;
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
	if (!sink->closed)
		fclose(file);

	enum ha_status st = HA_OK;
	if (sink->out_of_memory)
		st = ha_fail(err, HA_ENOMEM, "drawing: %s", ha_status_str(HA_ENOMEM));
	else if (run->exited || !run->started || run->errcode)
		st = ha_fail(err, HA_EIO, "drawing with PLplot failed: %s",
		             guard_message[0] ? guard_message
		                              : run->started ? "unknown error"
		                                             : "no PLplot stream left");
	else if (sink->size <= format->magic_length ||
	         memcmp(sink->data, format->magic, format->magic_length) != 0)
		st = ha_fail(err, HA_EIO, "drawing with PLplot failed: its %s driver wrote no %s",
		             device, ha_plot_format_str(t->format));
	free(run);
	return st;
}

enum ha_status plot_render(struct ha_plot_target *t, unsigned width,
                           unsigned height, plot_draw_fn draw,
                           const void *data, struct ha_error *err)
{
	enum ha_status st = plot_check(t, 1, NULL, err);
	if (st != HA_OK)
		return st;
	struct sink sink = {0};
	pthread_mutex_lock(&plplot_lock);
	st = render_locked(t, width, height, draw, data, &sink, err);
	pthread_mutex_unlock(&plplot_lock);
	/* The caller's stream may be slow (a pipe): written without the
	 * lock, so that other threads draw meanwhile. */
	if (st == HA_OK && t->format == HA_PLOT_PDF)
		blank_creation_date(&sink);
	if (st == HA_OK && (fwrite(sink.data, 1, sink.size, t->stream) != sink.size ||
	                    fflush(t->stream) != 0 || ferror(t->stream)))
		st = ha_fail(err, HA_EIO, "writing the picture failed");
	free(sink.data);
	return st;
}
