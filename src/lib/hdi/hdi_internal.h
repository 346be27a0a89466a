/* The HDI beneath hdi.h (library-internal): its numerical core, and a
 * source given by its path (hdi_path.c). */
#ifndef HEADALLOC_HDI_INTERNAL_H
#define HEADALLOC_HDI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <headalloc/checkpoint.h>
#include <headalloc/error.h>
#include <headalloc/hdi.h>
#include <headalloc/hdi_groups.h>
#include <headalloc/progress.h>
#include <headalloc/status.h>
#include <headalloc/weights.h>

/* Replace each head's block of w (`cols` columns, row-major, d_model =
 * m, d_k = n, in `layout`) by an orthonormal basis of its column space,
 * padded with zero vectors, and fill t's measures (its arrays allocated
 * and zeroed), GSL's error handler off.  HA_ENOMEM, HA_ENUMERIC. */
enum ha_status ha_hdi_overlaps(double *w, size_t cols, size_t m, size_t n,
                               size_t heads, enum ha_layout layout,
                               struct ha_hdi_tensor *t, struct ha_error *err);

/* HA_EUNSUPPORTED when a tensor named name, [rows, cols] on disk, whose
 * outputs x model block is cut into heads heads, would cost more than
 * HA_HDI_MAX_WORK multiply-adds (the message says how many); HA_OK for
 * one head or heads that do not divide outputs (compute says why). */
enum ha_status ha_hdi_check_work(const char *name, uint64_t rows,
                                 uint64_t cols, uint64_t outputs,
                                 uint64_t model, size_t heads,
                                 struct ha_error *err);

/* After r->tensors[i] is measured: HA_EDEGENERATE when all its heads are
 * zero; a warning in r for some zero heads and one for heads of lower
 * rank; HA_ENOMEM. */
enum ha_status ha_hdi_check_heads(struct ha_hdi_report *r, size_t i,
                                  struct ha_error *err);

/* The caller's options as far as its size reaches, the defaults beyond
 * (a caller built against an older, shorter struct). */
static inline struct ha_hdi_options
ha_hdi_options_of(const struct ha_hdi_options *opt)
{
	struct ha_hdi_options o = HA_HDI_OPTIONS_INIT;
	if (opt)
		memcpy(&o, opt, opt->size < sizeof o ? opt->size : sizeof o);
	o.size = sizeof o;
	return o;
}

/* "out-in" or "in-out", and back (HA_EINVAL for anything else). */
const char *ha_layout_str(enum ha_layout layout);
enum ha_status ha_layout_parse(const char *text, enum ha_layout *out);

/* The expected HDI of `heads` independent uniformly random heads of
 * dimension head_dim in R^model_dim (1 for heads < 2, 0 for no model_dim). */
double ha_hdi_random_baseline(size_t heads, size_t head_dim,
                              size_t model_dim);

/* An HDI source given by its path: a weights file (weights.h) or a
 * Hugging Face model directory (checkpoint.h), given as the directory,
 * its config.json or its model.safetensors.index.json.  `headalloc hdi
 * PATH`, --hdi-from and headalloc.hdi(path) all resolve it here, so a
 * path and its options mean one thing and fail with one message
 * wherever they are given.
 *
 * How the caller spells the options the messages name ("--heads",
 * "--hdi-heads", Python's "heads"); they must outlive the source. */
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

/* What a failure is about: the source's files (err->file, set but for
 * HA_ENOMEM); options that do not go with the source, or one it needs
 * (err->file NULL); the heads given (words->heads); the directory's key
 * groups (words->groups). */
enum ha_hdi_path_fault {
	HA_HDI_PATH_FAULT_FILES,
	HA_HDI_PATH_FAULT_OPTIONS,
	HA_HDI_PATH_FAULT_HEADS,
	HA_HDI_PATH_FAULT_GROUPS
};

/* A source resolved, then measured; freed by ha_hdi_path_close. */
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

/* A new string *dir naming the model directory path stands for (the
 * directory, or the one holding its config.json or
 * model.safetensors.index.json), else NULL: a weights file, or nothing
 * (reading it then says why).  HA_ENOMEM. */
enum ha_status ha_hdi_path_directory(const char *path, char **dir);

/* Resolve req into *s without reading any tensor: file or directory, the
 * options checked against it (hdi_path.c's rules; HA_EINVAL), the
 * weights file opened or the directory's plan made (the caller may then
 * check the files it reads and show checkpoint->warning).  Errors also
 * those of the weights and checkpoint readers, with s->fault.  Whatever
 * the status, release *s with ha_hdi_path_close (err->file may point
 * into it until then). */
enum ha_status ha_hdi_path_resolve(struct ha_hdi_path *s,
                                   const struct ha_hdi_path_request *req,
                                   struct ha_error *err);

/* Measure a resolved source into s->hdi (and s->groups when asked,
 * first, so that a directory that is not grouped is refused before its
 * layers are read), telling progress (may be NULL) of each layer.
 * Errors: those of the ha_hdi_measure_* functions, with s->fault. */
enum ha_status ha_hdi_path_measure(struct ha_hdi_path *s,
                                   const struct ha_progress *progress,
                                   struct ha_error *err);

/* Free what *s holds and zero it; a zeroed *s is accepted. */
void ha_hdi_path_close(struct ha_hdi_path *s);

#endif
