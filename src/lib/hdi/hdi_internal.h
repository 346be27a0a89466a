/* The numerical core of the HDI (library-internal; see hdi.h). */
#ifndef HEADALLOC_HDI_INTERNAL_H
#define HEADALLOC_HDI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <headalloc/error.h>
#include <headalloc/hdi.h>
#include <headalloc/status.h>

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

#endif
