/* headalloc hdi's input, and --hdi-from's: the library resolves the
 * path and measures it (hdi/hdi_internal.h); this file names the
 * options in its messages, keeps the outputs off the files a model
 * directory reads and prints the warnings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "hdi_source.h"
#include "progress_line.h"

static const struct ha_hdi_path_words hdi_words = {
	"--heads", "--tensor", "--layout", "--fused", "--groups"};
static const struct ha_hdi_path_words hdi_from_words = {
	"--hdi-heads", "--hdi-tensor", "--hdi-layout", "--fused", "--groups"};

/* "headalloc: warning: PATH: MESSAGE" for each warning of r. */
static void print_warnings(const char *path, const struct ha_hdi_report *r)
{
	char safe_path[4096], safe[HA_HDI_WARNING_MAX];
	if (r->warning_count)
		cli_progress_clear();
	for (size_t i = 0; i < r->warning_count; i++)
		fprintf(stderr, "headalloc: warning: %s: %s\n",
		        ha_text_safe(path, safe_path, sizeof safe_path),
		        ha_text_safe(r->warnings[i].message, safe, sizeof safe));
}

/* Every file of the model directory the plan reads (config.json, the
 * index, every shard) is an input no output may replace; checked again
 * now that they are known, before any layer is read. */
static int register_directory(const char *dir, const struct ha_checkpoint *c,
                              const struct hdi_choice *ch)
{
	static const char *const files[] = {"config.json",
	                                    "model.safetensors.index.json"};
	size_t n = sizeof files / sizeof *files;
	int rc = EXIT_OK;
	for (size_t i = 0; rc == EXIT_OK && i < n + c->count; i++) {
		const char *name = i < n ? files[i] : c->layers[i - n].shard_name;
		if (i > n && strcmp(name, c->layers[i - n - 1].shard_name) == 0)
			continue; /* the layers of one shard */
		char *path = malloc(strlen(dir) + strlen(name) + 2);
		if (!path)
			return cli_library_failure(NULL, dir, HA_ENOMEM, NULL);
		sprintf(path, "%s/%s", dir, name);
		struct stat st;
		if (i >= n || stat(path, &st) == 0)
			rc = cli_input(path, "the model directory's file");
		free(path);
	}
	if (rc == EXIT_OK)
		rc = cli_check_output(ch->output);
	if (rc == EXIT_OK && ch->plot)
		rc = cli_plot_check(ch->plot, ch->output, "hdi");
	return rc;
}

/* One line on stderr naming what s->fault says is at fault. */
static int failure(const struct hdi_choice *ch, const struct ha_hdi_path *s,
                   enum ha_status st, const struct ha_error *err)
{
	const struct ha_hdi_path_words *w = s->request.words;
	switch (s->fault) {
	case HA_HDI_PATH_FAULT_OPTIONS:
		return cli_usage_error(ch->subject ? NULL : "hdi", "%s",
		                       err->message);
	case HA_HDI_PATH_FAULT_HEADS:
		return cli_library_failure(w->heads, ch->path, st, err);
	case HA_HDI_PATH_FAULT_GROUPS:
		return cli_library_failure(w->groups, ch->path, st, err);
	case HA_HDI_PATH_FAULT_FILES:
		break;
	}
	return cli_library_failure(ch->subject, ch->path, st, err);
}

static int resolve(const struct hdi_choice *ch, struct ha_hdi_path *s)
{
	struct ha_hdi_path_request req = {
		ch->path, ch->heads, ch->tensor, ch->layout, ch->have_layout,
		ch->fused, ch->fused_order, ch->groups, ch->groups_if_grouped,
		ch->subject ? &hdi_from_words : &hdi_words};
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = ha_hdi_path_resolve(s, &req, &err);
	if (st != HA_OK)
		return failure(ch, s, st, &err);
	if (!s->directory)
		return EXIT_OK;
	if (s->checkpoint->warning[0]) /* the plan's word about the directory */
		fprintf(stderr, "headalloc: warning: %s: %s\n", s->directory,
		        s->checkpoint->warning);
	return register_directory(s->directory, s->checkpoint, ch);
}

int hdi_source_measure(const struct hdi_choice *choice,
                       struct ha_hdi_path *out)
{
	int status = resolve(choice, out);
	if (status == EXIT_OK) {
		const char *where = out->directory ? out->directory : choice->path;
		struct ha_error err;
		ha_error_init(&err);
		enum ha_status st = ha_hdi_path_measure(out, choice->progress,
		                                          &err);
		if (out->groups)
			print_warnings(where, out->groups->groups);
		status = st == HA_OK ? EXIT_OK : failure(choice, out, st, &err);
		if (status == EXIT_OK)
			print_warnings(where, out->hdi);
	}
	if (status != EXIT_OK)
		ha_hdi_path_close(out);
	return status;
}

int hdi_source_is_directory(const char *path)
{
	char *dir;
	if (ha_hdi_path_directory(path, &dir) != HA_OK)
		return 0; /* out of memory: measuring it then says so */
	int is = dir != NULL;
	free(dir);
	return is;
}
