/* An HDI source given by its path, resolved once for every caller
 * (library-internal): `headalloc hdi PATH`, the allocation's --hdi-from
 * and headalloc.hdi(path) all measure what this decides, so a path, and
 * the options that go with it, mean one thing and fail with one message
 * wherever they are given.
 *
 * A source is a weights file (safetensors, .npy, ONNX: weights.h) or a
 * Hugging Face model directory (checkpoint.h), given as the directory,
 * its config.json or its model.safetensors.index.json. */
#ifndef HEADALLOC_HDI_PATH_INTERNAL_H
#define HEADALLOC_HDI_PATH_INTERNAL_H

#include <stddef.h>

#include <headalloc/checkpoint.h>
#include <headalloc/error.h>
#include <headalloc/hdi.h>
#include <headalloc/hdi_groups.h>
#include <headalloc/progress.h>
#include <headalloc/status.h>
#include <headalloc/weights.h>

/* How the caller spells the options the messages name: the hdi
 * command's "--heads", --hdi-from's "--hdi-heads", Python's "heads".
 * The caller's words must outlive the source. */
struct ha_hdi_path_words {
	const char *heads, *tensor, *layout, *fused, *groups;
};

/* What to measure: the path and the options given with it. */
struct ha_hdi_path_request {
	const char *path;      /* as the caller typed it */
	size_t heads;          /* 0: not given */
	const char *tensor;    /* a name or fnmatch pattern; NULL: not given */
	enum ha_layout layout; /* of a weights file or of tensor's tensors */
	int have_layout;       /* the layout was given, not defaulted */
	enum ha_fused fused;   /* what tensor's tensors hold */
	enum ha_fused_order fused_order;
	int groups;            /* also the query heads within each key group
	                          (a grouped model directory only) */
	int groups_if_grouped; /* the same when the directory is grouped and
	                          neither heads nor tensor is given */
	const struct ha_hdi_path_words *words;
};

/* What a failure is about, for a caller that names it: */
enum ha_hdi_path_fault {
	/* the source's files: err->file, which is never NULL after a
	 * failure of this kind but HA_ENOMEM */
	HA_HDI_PATH_FAULT_FILES,
	/* options that do not go with this kind of source, or one it needs:
	 * the message names them in the caller's words; err->file NULL */
	HA_HDI_PATH_FAULT_OPTIONS,
	/* the heads given do not cut the directory's tensors (words->heads) */
	HA_HDI_PATH_FAULT_HEADS,
	/* the directory's key groups cannot be measured (words->groups) */
	HA_HDI_PATH_FAULT_GROUPS
};

/* A source resolved, then measured.  Caller storage; every field is
 * owned and freed by ha_hdi_path_close. */
struct ha_hdi_path {
	char *directory; /* the model directory, or NULL for a weights file */
	struct ha_weights *weights;       /* a weights file, open */
	struct ha_checkpoint *checkpoint; /* a directory's plan */
	enum ha_layout layout;            /* the layout read */
	/* NULL when the plan's (checkpoint->reason) says why its heads,
	 * else why the heads measured: "as --heads says, instead of the
	 * config's 8 key heads" */
	const char *heads_reason;
	struct ha_hdi_groups *groups; /* measured when asked, else NULL */
	struct ha_hdi_report *hdi;    /* after ha_hdi_path_measure */
	enum ha_hdi_path_fault fault; /* after a failure */
	struct ha_hdi_path_request request;
	char reason[384];
};

/* HA_OK with *dir NULL when path is a weights file (or nothing: reading
 * it then says why), or a new string *dir naming the model directory
 * path stands for: the directory itself, or the one holding path when
 * path is a regular file named config.json or
 * model.safetensors.index.json.  HA_ENOMEM. */
enum ha_status ha_hdi_path_directory(const char *path, char **dir);

/* Resolve req into *s without reading any tensor: decide file or
 * directory, check the options against it, open the weights file or
 * make the directory's plan (after which the caller may check the
 * files it reads, and show checkpoint->warning).  Rules: a weights file
 * needs heads and takes no groups; in a directory, tensor needs heads
 * (its tensors are not the preset's), layout and fused need tensor (the
 * preset knows its keys' layout and fusion), groups takes neither heads
 * nor tensor.  Errors: HA_EINVAL for a broken rule, and those of
 * ha_weights_open, ha_checkpoint_open, ha_checkpoint_open_tensors and
 * ha_checkpoint_fuse, with s->fault saying what is at fault.  Whatever
 * the status, release *s with ha_hdi_path_close; err->file may point
 * into it until then. */
enum ha_status ha_hdi_path_resolve(struct ha_hdi_path *s,
                                   const struct ha_hdi_path_request *req,
                                   struct ha_error *err);

/* Measure a resolved source into s->hdi (and s->groups when asked, the
 * groups first so that a directory that is not grouped is refused
 * before its layers are read), telling progress (may be NULL) of each
 * layer.  A weights file's tensors are chosen as ha_hdi_options'
 * keys_by_name says.  Errors: those of ha_hdi_measure_weights,
 * ha_hdi_measure_groups and ha_hdi_measure_checkpoint, with s->fault. */
enum ha_status ha_hdi_path_measure(struct ha_hdi_path *s,
                                   const struct ha_progress *progress,
                                   struct ha_error *err);

/* Free what *s holds and zero it; a zeroed *s is accepted. */
void ha_hdi_path_close(struct ha_hdi_path *s);

#endif
