/* --plot: check the file early, draw in memory, write after the report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "pictures.h"
#include "base/text.h"

static const char plot_files[] = "a file name ending in .svg, .png or .pdf";

static int cannot_write(const char *path, int err)
{
	fprintf(stderr, "headalloc: --plot: cannot write '%s': %s\n", path,
	        strerror(err));
	return EXIT_USAGE;
}

/* Whether a file can be put at path: not onto a directory, and into a
 * directory that exists and takes new files (a special file such as
 * /dev/null is written in place, so it must be writable itself). */
static int check_destination(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return cannot_write(path, EISDIR);
		if (!S_ISREG(st.st_mode))
			return access(path, W_OK) == 0 ? EXIT_OK : cannot_write(path, errno);
	}
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	char *dir = malloc(len + 2);
	if (!dir)
		return cli_library_failure("--plot", NULL, HA_ENOMEM, NULL);
	if (!slash)
		strcpy(dir, ".");
	else if (len == 0)
		strcpy(dir, "/");
	else {
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	int rc = EXIT_OK;
	if (stat(dir, &st) != 0)
		rc = cannot_write(path, errno);
	else if (!S_ISDIR(st.st_mode))
		rc = cannot_write(path, ENOTDIR);
	else if (access(dir, W_OK | X_OK) != 0)
		rc = cannot_write(path, errno);
	free(dir);
	return rc;
}

int cli_plot_option(struct cli_plot *plot, const char *arg)
{
	if (!*arg || ha_plot_format_from_path(arg, &plot->format) != HA_OK)
		return cli_bad_value("--plot", arg, plot_files);
	if (!ha_plot_available()) {
		fputs("headalloc: --plot: this headalloc was built without pictures"
		      " (PLplot); see PICTURES in headalloc(1)\n", stderr);
		return EXIT_USAGE;
	}
	int rc = check_destination(arg);
	if (rc == EXIT_OK)
		plot->path = arg;
	return rc;
}

int cli_plot_check(const struct cli_plot *plot, const char *output,
                   const char *command)
{
	if (plot->each && !plot->path)
		return cli_usage_error(command, "--plot-each needs --plot");
	if (plot->path && output && atomic_file_same(plot->path, output))
		return cli_usage_error(command, "--plot and --output name the same file '%s'",
		                       output);
	/* --plot-each's names are known once the pictures are counted. */
	return plot->path && !plot->each ? cli_check_path("--plot", plot->path)
	                                 : EXIT_OK;
}

/* FILE, or FILE with "-I" before its extension. */
static char *picture_path(const struct cli_plot *plot, size_t i, size_t count)
{
	if (!plot->each)
		return strdup(plot->path);
	char last[24], digits[24], number[48] = "-";
	snprintf(last, sizeof last, "%zu", count ? count - 1 : 0);
	snprintf(digits, sizeof digits, "%zu", i);
	/* zero-padded to the width of the last number */
	for (size_t pad = strlen(digits); pad < strlen(last); pad++)
		strcat(number, "0");
	strcat(number, digits);
	const char *dot = strrchr(plot->path, '.'); /* there is one: checked */
	size_t stem = (size_t)(dot - plot->path), len = strlen(number);
	char *path = malloc(strlen(plot->path) + len + 1);
	if (!path)
		return NULL;
	memcpy(path, plot->path, stem);
	memcpy(path + stem, number, len);
	strcpy(path + stem + len, dot);
	return path;
}

struct picture {
	struct atomic_file file; /* its temporary file, drawn and closed */
	char *path;
};

/* Remove the temporary files not committed, free the names. */
static void free_pictures(struct picture *p, size_t count)
{
	for (size_t i = 0; p && i < count; i++) {
		atomic_file_abort(&p[i].file);
		free(p[i].path);
	}
	free(p);
}

/* Draw picture i straight into its temporary file and close it: nothing
 * of it stays in memory (the library holds one picture while it draws). */
static int draw_picture(struct picture *p, const struct cli_plot *plot,
                        size_t i, cli_draw_fn draw, const void *ctx)
{
	int e = atomic_file_open(&p->file, p->path);
	if (e)
		return cli_output_error("--plot", p->path, e);
	struct ha_error err;
	ha_error_init(&err);
	struct ha_plot_target target = {.stream = p->file.stream, .format = plot->format};
	enum ha_status st = draw(&target, ctx, plot->each ? i : 0, &err);
	if (st != HA_OK) {
		atomic_file_abort(&p->file);
		return cli_library_failure("--plot", NULL, st, &err);
	}
	e = atomic_file_close(&p->file);
	return e ? cli_output_error("--plot", p->path, e) : EXIT_OK;
}

static int write_picture(struct picture *p)
{
	int e = atomic_file_commit(&p->file);
	return e ? cli_output_error("--plot", p->path, e) : EXIT_OK;
}

/* Before any picture is drawn: every file --plot will write may be
 * written, and none of them is the --output file. */
static int check_pictures(const struct picture *p, size_t count,
                          const char *output)
{
	for (size_t i = 0; i < count; i++) {
		if (output && atomic_file_same(p[i].path, output)) {
			char safe[4096];
			fprintf(stderr, "headalloc: --plot-each: the picture '%s' is "
			        "the --output file\n",
			        ha_text_safe(p[i].path, safe, sizeof safe));
			return EXIT_USAGE;
		}
		int rc = cli_check_path("--plot", p[i].path);
		if (rc != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

int cli_emit_with_pictures(const char *output, enum ha_report_format format,
                           cli_report_fn write, const void *ctx,
                           const struct cli_plot *plot, size_t count,
                           cli_draw_fn draw, const void *draw_ctx)
{
	/* One picture at a time into its temporary file; the files are renamed
	 * into place after the report, or removed when anything fails. */
	size_t pictures = !plot->path ? 0 : plot->each ? count : 1;
	struct picture *p = pictures ? calloc(pictures, sizeof *p) : NULL;
	if (pictures && !p)
		return cli_library_failure("--plot", NULL, HA_ENOMEM, NULL);
	int status = EXIT_OK;
	for (size_t i = 0; status == EXIT_OK && i < pictures; i++)
		if (!(p[i].path = picture_path(plot, i, pictures)))
			status = cli_library_failure("--plot", NULL, HA_ENOMEM, NULL);
	if (status == EXIT_OK)
		status = check_pictures(p, pictures, output);
	for (size_t i = 0; status == EXIT_OK && i < pictures; i++)
		status = draw_picture(&p[i], plot, i, draw, draw_ctx);
	if (status == EXIT_OK)
		status = cli_emit(output, format, write, ctx);
	for (size_t i = 0; status == EXIT_OK && i < pictures; i++)
		status = write_picture(&p[i]);
	free_pictures(p, pictures);
	return status;
}

int cli_file_command_ready(const struct cli_file_options *file,
                           const struct cli_plot *plot, const char *command)
{
	int status = cli_input(file->file, "the input");
	if (status == EXIT_OK)
		status = cli_check_output(file->output);
	if (status == EXIT_OK)
		status = cli_plot_check(plot, file->output, command);
	return status;
}
