/* An HDI source given by its path: a weights file or a model directory,
 * and the options that go with each (see hdi_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error_internal.h"
#include "hdi_internal.h"
#include "checkpoint/checkpoint_internal.h"

enum ha_status ha_hdi_path_directory(const char *path, char **dir)
{
	static const char *const model_files[] = {CKPT_CONFIG, CKPT_INDEX};
	struct stat st;
	*dir = NULL;
	if (stat(path, &st) != 0)
		return HA_OK;
	if (S_ISDIR(st.st_mode)) {
		*dir = strdup(path);
		return *dir ? HA_OK : HA_ENOMEM;
	}
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int named = 0;
	for (size_t i = 0; i < sizeof model_files / sizeof *model_files; i++)
		named |= strcmp(base, model_files[i]) == 0;
	if (!S_ISREG(st.st_mode) || !named)
		return HA_OK;
	/* "config.json" is in ".", "/config.json" in "/" */
	size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	*dir = malloc(n ? n + 1 : 2);
	if (!*dir)
		return HA_ENOMEM;
	memcpy(*dir, n ? path : ".", n ? n : 1);
	(*dir)[n ? n : 1] = '\0';
	return HA_OK;
}

/* A failure: what is at fault, and err->file the file at fault or else
 * the source itself. */
static enum ha_status fail_with(struct ha_hdi_path *s, enum ha_status st,
                                enum ha_hdi_path_fault fault,
                                struct ha_error *err)
{
	if (st == HA_OK)
		return st;
	s->fault = fault;
	if (err && !err->file && fault != HA_HDI_PATH_FAULT_OPTIONS)
		err->file = s->directory ? s->directory : s->request.path;
	return st;
}

/* Reading a directory's tensors as the heads given: an HA_EINVAL in no
 * file is about those heads. */
static enum ha_hdi_path_fault heads_or_files(enum ha_status st,
                                             const struct ha_error *err)
{
	return st == HA_EINVAL && err && !err->file ? HA_HDI_PATH_FAULT_HEADS
	                                            : HA_HDI_PATH_FAULT_FILES;
}

/* The options a weights file takes. */
static enum ha_status file_options(const struct ha_hdi_path_request *r,
                                   struct ha_error *err)
{
	const struct ha_hdi_path_words *w = r->words;
	if (r->groups)
		return ha_fail(err, HA_EINVAL, "%s needs a model directory: its "
		               "config says which query heads share a key head",
		               w->groups);
	if (!r->heads)
		return ha_fail(err, HA_EINVAL, "%s is required", w->heads);
	return HA_OK;
}

/* The options a model directory takes: its preset knows which tensors
 * hold the keys, their heads, layout and fusion. */
static enum ha_status directory_options(const struct ha_hdi_path_request *r,
                                        struct ha_error *err)
{
	const struct ha_hdi_path_words *w = r->words;
	if (r->groups && (r->tensor || r->heads))
		return ha_fail(err, HA_EINVAL, "%s measures the config's key "
		               "groups: it takes neither %s nor %s", w->groups,
		               w->heads, w->tensor);
	if (r->tensor && !r->heads)
		return ha_fail(err, HA_EINVAL, "%s in a model directory needs %s: "
		               "the tensors it names are not the preset's",
		               w->tensor, w->heads);
	if (!r->tensor && r->have_layout)
		return ha_fail(err, HA_EINVAL, "%s applies to a model directory "
		               "only with %s: the preset knows the layout of its "
		               "keys", w->layout, w->tensor);
	if (!r->tensor && r->fused != HA_FUSED_NONE)
		return ha_fail(err, HA_EINVAL, "%s applies to a model directory "
		               "only with %s: the preset knows how its keys are "
		               "fused", w->fused, w->tensor);
	return HA_OK;
}

/* The plan of the tensors r->tensor names, read as r->heads heads. */
static enum ha_status plan_tensors(struct ha_hdi_path *s,
                                   struct ha_error *err)
{
	const struct ha_hdi_path_request *r = &s->request;
	enum ha_status st = ha_checkpoint_open_tensors(
		s->directory, r->tensor, r->heads, r->layout, &s->checkpoint, err);
	if (st != HA_OK)
		return fail_with(s, st, heads_or_files(st, err), err);
	st = ha_checkpoint_fuse(s->checkpoint, r->fused, r->fused_order, err);
	if (st != HA_OK)
		return fail_with(s, st, HA_HDI_PATH_FAULT_FILES, err);
	snprintf(s->reason, sizeof s->reason, "as %s says, in each tensor %s "
	         "names%s", r->words->heads, r->words->tensor,
	         r->fused == HA_FUSED_QKV  ? " (the keys of its q|k|v)"
	         : r->fused == HA_FUSED_KV ? " (the keys of its k|v)"
	                                   : "");
	s->heads_reason = s->reason;
	return HA_OK;
}

/* The plan of the preset of config.json's model_type. */
static enum ha_status plan_preset(struct ha_hdi_path *s,
                                  struct ha_error *err)
{
	const struct ha_hdi_path_request *r = &s->request;
	enum ha_status st = ha_checkpoint_open(s->directory, &s->checkpoint,
	                                       err);
	if (st != HA_OK)
		return fail_with(s, st, HA_HDI_PATH_FAULT_FILES, err);
	if (r->heads) {
		snprintf(s->reason, sizeof s->reason,
		         "as %s says, instead of the config's %s", r->words->heads,
		         s->checkpoint->reason);
		s->heads_reason = s->reason;
	}
	return HA_OK;
}

enum ha_status ha_hdi_path_resolve(struct ha_hdi_path *s,
                                   const struct ha_hdi_path_request *req,
                                   struct ha_error *err)
{
	memset(s, 0, sizeof *s);
	if (!req || !req->path || !req->words)
		return ha_fail(err, HA_EINVAL, "hdi: no source to measure");
	s->request = *req;
	if (ha_hdi_path_directory(req->path, &s->directory) != HA_OK)
		return ha_fail(err, HA_ENOMEM, "%s", ha_status_str(HA_ENOMEM));
	enum ha_status st = s->directory ? directory_options(req, err)
	                                 : file_options(req, err);
	if (st != HA_OK)
		return fail_with(s, st, HA_HDI_PATH_FAULT_OPTIONS, err);
	if (!s->directory) {
		s->layout = req->layout;
		st = ha_weights_open(req->path, &s->weights, err);
		return fail_with(s, st, HA_HDI_PATH_FAULT_FILES, err);
	}
	st = req->tensor ? plan_tensors(s, err) : plan_preset(s, err);
	if (st == HA_OK)
		s->layout = s->checkpoint->layout;
	return st;
}

static enum ha_status measure_directory(struct ha_hdi_path *s,
                                        struct ha_hdi_options *opt,
                                        struct ha_error *err)
{
	const struct ha_hdi_path_request *r = &s->request;
	const struct ha_checkpoint *c = s->checkpoint;
	int groups = r->groups || (r->groups_if_grouped && !r->heads &&
	                           !r->tensor && c->key_heads < c->query_heads);
	enum ha_status st = HA_OK;
	if (groups) {
		st = ha_hdi_measure_groups(c, opt, &s->groups, err);
		if (st != HA_OK)
			return fail_with(s, st, st == HA_EINVAL
			                                ? HA_HDI_PATH_FAULT_GROUPS
			                                : HA_HDI_PATH_FAULT_FILES,
			                 err);
	}
	opt->heads = r->heads;
	st = ha_hdi_measure_checkpoint(c, opt, &s->hdi, err);
	return fail_with(s, st, heads_or_files(st, err), err);
}

enum ha_status ha_hdi_path_measure(struct ha_hdi_path *s,
                                   const struct ha_progress *progress,
                                   struct ha_error *err)
{
	if (!s || (!s->weights && !s->checkpoint) || s->hdi)
		return ha_fail(err, HA_EINVAL, "hdi: a source not resolved, or "
		               "measured already");
	const struct ha_hdi_path_request *r = &s->request;
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	if (progress)
		opt.progress = *progress;
	if (s->checkpoint)
		return measure_directory(s, &opt, err);
	opt.fused = r->fused;
	opt.fused_order = r->fused_order;
	opt.keys_by_name = 1;
	enum ha_status st = ha_hdi_measure_weights(s->weights, r->tensor,
	                                           r->heads, r->layout, &opt,
	                                           &s->hdi, err);
	return fail_with(s, st, HA_HDI_PATH_FAULT_FILES, err);
}

void ha_hdi_path_close(struct ha_hdi_path *s)
{
	if (!s)
		return;
	ha_hdi_report_free(s->hdi);
	ha_hdi_groups_free(s->groups);
	ha_checkpoint_free(s->checkpoint);
	ha_weights_free(s->weights);
	free(s->directory);
	memset(s, 0, sizeof *s);
}
