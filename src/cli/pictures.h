/* --plot FILE (and --plot-each): pictures beside the report, drawn by the
 * library (headalloc/plot.h) and written atomically like --output. */
#ifndef HEADALLOC_CLI_PICTURES_H
#define HEADALLOC_CLI_PICTURES_H

#include <stdbool.h>
#include <stddef.h>

#include <headalloc/headalloc.h>

#include "common.h"

/* The getopt codes of --plot and --plot-each in every command. */
enum { CLI_OPT_PLOT = 400, CLI_OPT_PLOT_EACH };

struct cli_plot {
	const char *path;            /* --plot FILE, or NULL */
	enum ha_plot_format format;  /* from FILE's extension */
	bool each;                   /* --plot-each: one file per picture */
};

/* Apply --plot FILE: FILE must end in .svg, .png or .pdf, this build must
 * draw pictures, and FILE must be a place a file can be written (not a
 * directory; its directory exists and is writable), so that a run that
 * cannot write its picture stops before it computes or writes anything.
 * Returns EXIT_OK, or EXIT_USAGE after a message. */
int cli_plot_option(struct cli_plot *plot, const char *arg);

/* The checks that need every option: --plot-each needs --plot, and
 * --plot must not name the --output file.  command is NULL for the
 * allocation command.  EXIT_OK, or EXIT_USAGE after a message. */
int cli_plot_check(const struct cli_plot *plot, const char *output,
                   const char *command);

/* Draw picture i (of the count given to cli_emit_with_pictures) into
 * target. */
typedef enum ha_status (*cli_draw_fn)(struct ha_plot_target *target,
                                      const void *ctx, size_t i,
                                      struct ha_error *err);

/* The report and its pictures, all or nothing: draw the pictures (none
 * when plot->path is NULL; count of them with --plot-each, else picture 0
 * only) one at a time, each straight into a temporary file beside its
 * name, closed before the next is drawn (memory holds one picture at a
 * time); then write the report with cli_emit(); then rename each
 * picture into place: FILE, or with --plot-each FILE with "-I" before
 * its extension (I from 0, zero-padded to the width of count - 1).  A
 * picture that cannot be drawn stops the run and removes the temporary
 * files before anything is written.  Returns the exit status. */
int cli_emit_with_pictures(const char *output, enum ha_report_format format,
                           cli_report_fn write, const void *ctx,
                           const struct cli_plot *plot, size_t count,
                           cli_draw_fn draw, const void *draw_ctx);

/* Before any work of a file command (hdi, weights, calibrate): register
 * its input file, so that no output may replace it, then check --output
 * and --plot (atomic_file_check, cli_plot_check).  Returns EXIT_OK, or the
 * exit status after one line naming the refused path. */
int cli_file_command_ready(const struct cli_file_options *file,
                           const struct cli_plot *plot, const char *command);

#endif
