/* What `headalloc hdi PATH` and --hdi-from measure: a weights file
 * (.safetensors, .npy, ONNX), or a Hugging Face model directory given as
 * the directory, its config.json or its model.safetensors.index.json.
 * The library decides which and applies --heads, --tensor, --layout,
 * --fused and --groups to it (ha_hdi_path_resolve); this file names
 * the options in its messages; cmd_hdi.c parses them and reports. */
#ifndef HEADALLOC_CLI_HDI_SOURCE_H
#define HEADALLOC_CLI_HDI_SOURCE_H

#include <stddef.h>

#include <headalloc/headalloc.h>

#include "hdi/hdi_internal.h"

#include "pictures.h"

/* The options that choose what to measure. */
struct hdi_choice {
	const char *path;      /* the FILE or DIR argument, as typed */
	size_t heads;          /* --heads, or 0 when not given */
	const char *tensor;    /* --tensor, or NULL */
	enum ha_layout layout; /* --layout (default out-in) */
	int have_layout;       /* --layout was given */
	/* checked again against the files a model directory reads */
	const char *output;           /* --output, or NULL */
	const struct cli_plot *plot;  /* --plot, or NULL */
	const struct ha_progress *progress; /* told of each layer, or NULL */
	enum ha_fused fused;            /* --fused (default none) */
	enum ha_fused_order fused_order; /* --fused-order (default concat) */
	/* NULL for the hdi command; "--hdi-from" for the allocation, whose
	 * messages then name --hdi-heads, --hdi-tensor and --hdi-layout */
	const char *subject;
	int groups;            /* --groups: also the query heads within each
	                          key group (a grouped directory only) */
	int groups_if_grouped; /* the same when the directory is grouped and
	                          neither heads nor tensor is given; else not */
};

/* Measure what choice says.  For a weights file --heads is required;
 * for a model directory nothing is: the preset of its model_type finds
 * the key projections and their key heads, --heads cuts each layer's key
 * block into that many heads instead, and --tensor PATTERN (with
 * --heads, and --layout) reads the tensors it names instead of the
 * preset's.  Returns EXIT_OK with *out filled (release it with
 * ha_hdi_path_close), or an exit status after printing one line on
 * stderr (then *out holds nothing to free). */
int hdi_source_measure(const struct hdi_choice *choice,
                       struct ha_hdi_path *out);

/* 1 when path stands for a model directory (the directory, its
 * config.json or its index), as hdi_source_measure takes it. */
int hdi_source_is_directory(const char *path);

#endif
