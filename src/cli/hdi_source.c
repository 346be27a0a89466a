/* headalloc hdi's input: a weights file or a model directory (see
 * hdi_source.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "hdi_source.h"

/* The files that stand for their model directory. */
static const char *const MODEL_FILES[] = {
	"config.json", "model.safetensors.index.json", NULL};

/* 1 when path stands for a model directory (the directory itself, or a
 * regular file named as one of MODEL_FILES), with *dir that directory in
 * a new string (NULL when out of memory); 0 for anything else, a weights
 * file (or nothing at all: the weights reader then says it cannot be
 * opened). */
static int model_directory(const char *path, char **dir)
{
	struct stat st;
	*dir = NULL;
	if (stat(path, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		*dir = strdup(path);
		return 1;
	}
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int named = 0;
	for (const char *const *f = MODEL_FILES; *f; f++)
		named |= strcmp(base, *f) == 0;
	if (!S_ISREG(st.st_mode) || !named)
		return 0;
	size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	*dir = malloc(n + 2);
	if (*dir) {
		memcpy(*dir, n ? path : ".", n ? n : 1);
		(*dir)[n ? n : 1] = '\0';
	}
	return 1;
}

static int measure_file(const struct hdi_choice *ch, struct hdi_measured *m)
{
	if (ch->groups)
		return cli_usage_error("hdi", "--groups needs a model directory: "
		                       "its config says which query heads share "
		                       "a key head");
	if (!ch->heads)
		return cli_usage_error("hdi", "--heads is required");
	m->layout = ch->layout;
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	if (ch->progress)
		opt.progress = *ch->progress;
	opt.fused = ch->fused;
	opt.fused_order = ch->fused_order;
	/* The limits and warnings every weights file gets (measure_hdi.c). */
	return cli_measure_hdi(NULL, ch->path, ch->tensor, ch->heads,
	                       ch->layout, &opt, &m->hdi);
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

static int measure_directory(const struct hdi_choice *ch, const char *dir,
                             struct hdi_measured *m)
{
	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st;
	/* The hdi command's options, or --hdi-from's companions. */
	const char *cmd = ch->subject ? NULL : "hdi";
	const char *heads = ch->subject ? "--hdi-heads" : "--heads";
	const char *tensor = ch->subject ? "--hdi-tensor" : "--tensor";
	if (ch->groups && (ch->tensor || ch->heads))
		return cli_usage_error("hdi", "--groups measures the config's key "
		                       "groups: it takes neither --heads nor "
		                       "--tensor");
	if (ch->tensor) {
		if (!ch->heads)
			return cli_usage_error(cmd, "%s in a model directory "
			                       "needs %s: the tensors it names "
			                       "are not the preset's", tensor,
			                       heads);
		st = ha_checkpoint_open_tensors(dir, ch->tensor, ch->heads,
		                                ch->layout, &m->checkpoint, &err);
		if (st == HA_EINVAL && !err.file)
			return cli_library_failure(heads, dir, st, &err);
		if (st == HA_OK)
			st = ha_checkpoint_fuse(m->checkpoint, ch->fused,
			                        ch->fused_order, &err);
		if (st != HA_OK)
			return cli_library_failure(ch->subject, dir, st, &err);
		snprintf(m->reason_buf, sizeof m->reason_buf,
		         "as --heads says, in each tensor --tensor names%s",
		         ch->fused == HA_FUSED_QKV  ? " (the keys of its q|k|v)"
		         : ch->fused == HA_FUSED_KV ? " (the keys of its k|v)"
		                                    : "");
		m->heads_reason = m->reason_buf;
	} else {
		if (ch->have_layout)
			return cli_usage_error(cmd, "%s applies to a model "
			                       "directory only with %s: the preset "
			                       "knows the layout of its keys",
			                       ch->subject ? "--hdi-layout"
			                                   : "--layout", tensor);
		if (ch->fused != HA_FUSED_NONE)
			return cli_usage_error("hdi", "--fused applies to a model "
			                       "directory only with --tensor: "
			                       "the preset knows how its keys "
			                       "are fused");
		st = ha_checkpoint_open(dir, &m->checkpoint, &err);
		if (st != HA_OK)
			return cli_library_failure(ch->subject, dir, st, &err);
		if (ch->heads) {
			snprintf(m->reason_buf, sizeof m->reason_buf,
			         "as --heads says, instead of the config's %s",
			         m->checkpoint->reason);
			m->heads_reason = m->reason_buf;
		}
	}
	if (m->checkpoint->warning[0]) /* the plan's word about the directory */
		fprintf(stderr, "headalloc: warning: %s: %s\n", dir,
		        m->checkpoint->warning);
	int rc = register_directory(dir, m->checkpoint, ch);
	if (rc != EXIT_OK)
		return rc;
	m->layout = m->checkpoint->layout;
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	if (ch->progress)
		opt.progress = *ch->progress;
	/* The groups first: a directory that is not grouped is refused
	 * before any layer is read. */
	int groups = ch->groups ||
	             (ch->groups_if_grouped && !ch->heads && !ch->tensor &&
	              m->checkpoint->key_heads < m->checkpoint->query_heads);
	st = groups ? ha_hdi_measure_groups(m->checkpoint, &opt, &m->groups, &err)
	            : HA_OK;
	if (st != HA_OK)
		return cli_library_failure(st == HA_EINVAL ? "--groups" : NULL,
		                           dir, st, &err);
	if (m->groups)
		cli_print_hdi_warnings(dir, m->groups->groups);
	opt.heads = ch->heads;
	st = ha_hdi_measure_checkpoint(m->checkpoint, &opt, &m->hdi, &err);
	if (st == HA_EINVAL && !err.file)
		return cli_library_failure(heads, dir, st, &err);
	if (st != HA_OK)
		return cli_library_failure(ch->subject, dir, st, &err);
	cli_print_hdi_warnings(dir, m->hdi);
	return EXIT_OK;
}

int hdi_source_measure(const struct hdi_choice *choice,
                       struct hdi_measured *out)
{
	memset(out, 0, sizeof *out);
	char *dir;
	int is_dir = model_directory(choice->path, &dir);
	if (is_dir && !dir)
		return cli_library_failure(NULL, choice->path, HA_ENOMEM, NULL);
	int status = is_dir ? measure_directory(choice, dir, out)
	                    : measure_file(choice, out);
	free(dir);
	if (status != EXIT_OK)
		hdi_measured_free(out);
	return status;
}

int hdi_source_is_directory(const char *path)
{
	char *dir;
	int is = model_directory(path, &dir);
	free(dir);
	return is;
}

void hdi_measured_free(struct hdi_measured *m)
{
	ha_hdi_report_free(m->hdi);
	ha_hdi_groups_free(m->groups);
	ha_checkpoint_free(m->checkpoint);
	memset(m, 0, sizeof *m);
}
