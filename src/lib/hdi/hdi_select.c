/* Which tensors of a weights file the HDI measures: a pattern's (passing
 * by those that are not 2-D), or, by default for the CLI, those whose
 * names say they are key projections (see hdi.h, ha_hdi_options). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/hdi.h>

#include "base/error_internal.h"
#include "hdi_internal.h"
#include "checkpoint/key_block.h"
#include "tensors/weights_internal.h"

/* How many of the tensors are listed in the message of a file without a
 * key projection before "and N more". */
#define LISTED 10

static int two_d(const struct ha_weights *w, size_t i)
{
	struct ha_tensor_info t;
	return ha_weights_info(w, i, &t) == HA_OK && t.ndim == 2;
}

/* No name says "keys": HA_EINVAL listing the 2-D tensors, as many as the
 * message holds up to LISTED, then how many more. */
static enum ha_status no_keys(const struct ha_weights *w, int fused,
                              struct ha_error *err)
{
	char list[HA_ERROR_MESSAGE_MAX] = "";
	size_t len = 0, shown = 0, total = 0, n = ha_weights_count(w);
	for (size_t i = 0; i < n; i++) {
		struct ha_tensor_info t;
		if (ha_weights_info(w, i, &t) != HA_OK || t.ndim != 2)
			continue;
		total++;
		char item[160];
		int k = snprintf(item, sizeof item, "%s'%.100s' [%llu, %llu]",
		                 shown ? ", " : "", t.name,
		                 (unsigned long long)t.shape[0],
		                 (unsigned long long)t.shape[1]);
		if (shown < LISTED && k > 0 && len + (size_t)k < 170) {
			memcpy(list + len, item, (size_t)k + 1);
			len += (size_t)k;
			shown++;
		}
	}
	if (total == 0)
		return ha_fail(err, HA_EINVAL, "no tensor's name says it is a key "
		               "projection (a name ending in %s), and no tensor is 2-D",
		               ckpt_key_names(fused));
	char more[48] = "";
	if (total > shown)
		snprintf(more, sizeof more, " and %zu more", total - shown);
	return ha_fail(err, HA_EINVAL, "no tensor's name says it is a key "
	               "projection (a name ending in %s); choose with --tensor "
	               "among "
	               "its 2-D tensors: %s%s", ckpt_key_names(fused), list,
	               more);
}

enum ha_status ha_hdi_select(const struct ha_weights *w, const char *pattern,
                             int keys_by_name, int fused, size_t **idx,
                             size_t *n, struct ha_hdi_skipped *skipped,
                             struct ha_error *err)
{
	memset(skipped, 0, sizeof *skipped);
	enum ha_status st = ha_weights_select(w, pattern, idx, n, err);
	if (st != HA_OK)
		return st;
	size_t kept = 0;
	if (!pattern && keys_by_name && *n > 1) {
		for (size_t i = 0; i < *n; i++) {
			struct ha_tensor_info t;
			ha_weights_info(w, (*idx)[i], &t);
			if (t.ndim == 2 && ckpt_key_name(t.name, fused))
				(*idx)[kept++] = (*idx)[i];
		}
		if (kept == 0) {
			free(*idx);
			*idx = NULL;
			*n = 0;
			return no_keys(w, fused, err);
		}
		*n = kept;
		return HA_OK;
	}
	if (!pattern)
		return HA_OK;
	struct ha_tensor_info t;
	ha_weights_info(w, (*idx)[0], &t);
	if (*n == 1 && strcmp(t.name, pattern) == 0)
		return HA_OK; /* named exactly: 2-D or an error, as it is */
	for (size_t i = 0; i < *n; i++) {
		if (two_d(w, (*idx)[i])) {
			(*idx)[kept++] = (*idx)[i];
			continue;
		}
		if (!skipped->count++)
			skipped->first = (*idx)[i];
	}
	if (kept == 0) { /* every one is: the first one's error */
		*n = 1;
		(*idx)[0] = skipped->first;
		memset(skipped, 0, sizeof *skipped);
		return HA_OK;
	}
	*n = kept;
	return HA_OK;
}
