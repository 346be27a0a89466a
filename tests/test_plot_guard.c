/* The guard around PLplot (src/lib/plot/plot.c), from inside the
 * library: a PLplot that gives up (plexit) or skips an operation
 * (plabort) becomes a status with PLplot's message, nothing is printed,
 * nothing is written, and PLplot draws again afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <plplot.h>

#include "plot/plot_internal.h"

/* PLplot's own, exported from libplplot but declared in its private
 * header. */
void plexit(const char *errormsg);

static void draw_exit(struct plot_canvas *c, const void *data)
{
	(void)data;
	plot_panel(c, 0.1, 0.9, 0.1, 0.9, 0.0, 1.0, 0.0, 1.0, 0, 0);
	plexit("injected failure");
}

static void draw_abort(struct plot_canvas *c, const void *data)
{
	(void)data;
	plot_panel(c, 0.1, 0.9, 0.1, 0.9, 0.0, 1.0, 0.0, 1.0, 0, 0);
	plcol0(9999); /* no such colour: plabort */
}

static void draw_nothing(struct plot_canvas *c, const void *data)
{
	(void)data;
	plot_panel(c, 0.1, 0.9, 0.1, 0.9, 0.0, 1.0, 0.0, 1.0, 0, 0);
	plot_box(c, "bcnst", "bcnstv");
}

static enum ha_status render(enum ha_plot_format format, plot_draw_fn draw,
                             struct ha_error *err, size_t *written)
{
	char *data = NULL;
	FILE *mem = open_memstream(&data, written);
	cr_assert_not_null(mem);
	struct ha_plot_target t = {.stream = mem, .format = format};
	enum ha_status st = plot_render(&t, 1000, 700, draw, NULL, err);
	cr_assert_eq(fclose(mem), 0);
	free(data);
	return st;
}

Test(guard, plplot_exit_and_abort_become_statuses, .init = cr_redirect_stdout)
{
	cr_redirect_stderr();
	static const enum ha_plot_format formats[] = {HA_PLOT_SVG, HA_PLOT_PNG, HA_PLOT_PDF};
	for (size_t f = 0; f < 3; f++) {
		struct ha_error err;
		size_t written = 1;
		cr_assert_eq(render(formats[f], draw_exit, &err, &written), HA_EIO);
		cr_assert_str_eq(err.message, "drawing with PLplot failed: injected failure");
		cr_assert_eq(written, 0, "nothing written");

		written = 1;
		cr_assert_eq(render(formats[f], draw_abort, &err, &written), HA_EIO);
		cr_assert_str_eq(err.message, "drawing with PLplot failed: plcol0:"
		                 " Invalid color map entry: 9999");
		cr_assert_eq(written, 0, "nothing written");

		/* and PLplot draws again */
		cr_assert_eq(render(formats[f], draw_nothing, &err, &written), HA_OK, "%s",
		             err.message);
		cr_assert_gt(written, 100);
	}
	fflush(stdout);
	fflush(stderr);
	cr_assert_stdout_eq_str("");
	cr_assert_stderr_eq_str("");
}
