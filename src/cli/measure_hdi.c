/* Measuring the HDI for the hdi command and for --hdi-from: what is
 * refused before any data is read (the cost limits of hdi.h), and what
 * is said about the answer after (heads without weights, heads of lower
 * rank), in the one place both commands share. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

/* Refuse a selected tensor whose overlaps would cost more than
 * HA_HDI_MAX_WORK multiply-adds, before its data is read.  Tensors that
 * are not 2-D or that heads do not divide are left to the library, which
 * names them the same way. */
static enum ha_status check_cost(const struct ha_weights *w,
                                 const char *pattern, size_t heads,
                                 enum ha_layout layout, struct ha_error *err)
{
	size_t *idx = NULL, n = 0;
	enum ha_status st = ha_weights_select(w, pattern, &idx, &n, err);
	for (size_t i = 0; st == HA_OK && i < n; i++) {
		struct ha_tensor_info t;
		ha_weights_info(w, idx[i], &t);
		if (t.ndim != 2)
			continue;
		uint64_t out = layout == HA_LAYOUT_OUT_IN ? t.shape[0] : t.shape[1];
		uint64_t model = layout == HA_LAYOUT_OUT_IN ? t.shape[1] : t.shape[0];
		if (heads == 1 || out % heads != 0)
			continue; /* no pairs; or the library's message */
		/* (H d_k)^2 d_model, computed without overflow */
		long double work = (long double)out * (long double)out *
		                   (long double)model;
		if (work > (long double)HA_HDI_MAX_WORK) {
			snprintf(err->message, sizeof err->message,
			         "tensor '%s' [%" PRIu64 ", %" PRIu64 "]: its head "
			         "overlaps take (H*d_k)^2*d_model = %.3Lg "
			         "multiply-adds, more than the limit of %.3Lg (see "
			         "LIMITS in headalloc(1))", t.name, t.shape[0],
			         t.shape[1], work, (long double)HA_HDI_MAX_WORK);
			err->status = st = HA_EUNSUPPORTED;
		}
	}
	free(idx);
	return st;
}

/* "head 7", or "heads 3, 7, 9", or "heads 3, 7, 9, ..." */
static void list_heads(const struct ha_hdi_tensor *t, int zero, char *buf,
                       size_t size)
{
	size_t used = 0, shown = 0;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	for (size_t h = 0; h < t->heads && used + 24 < size; h++) {
		int match = zero ? t->rank[h] == 0
		                 : t->rank[h] > 0 && t->rank[h] < full;
		if (!match)
			continue;
		if (shown == 8) {
			used += (size_t)snprintf(buf + used, size - used, ", ...");
			break;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%zu",
		                         shown ? ", " : "", h);
		shown++;
	}
}

/* An HDI over heads without weights is no measurement (every head all
 * zero: an error); some zero or lower-rank heads are said, with what was
 * done about them. */
static enum ha_status check_heads(const char *path,
                                  const struct ha_hdi_report *r,
                                  struct ha_error *err)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct ha_hdi_tensor *t = &r->tensors[i];
		size_t zero = 0;
		for (size_t h = 0; h < t->heads; h++)
			zero += t->rank[h] == 0;
		size_t lower = t->rank_deficient - zero;
		size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
		char list[160] = "";
		if (zero == t->heads) {
			if (t->heads == 1)
				snprintf(err->message, sizeof err->message,
				         "tensor '%s': its weights are all zero: there "
				         "is no subspace to measure", t->name);
			else
				snprintf(err->message, sizeof err->message,
				         "tensor '%s': the weights of all %zu heads "
				         "are zero: there is no subspace to measure",
				         t->name, t->heads);
			err->status = HA_EDEGENERATE;
			return HA_EDEGENERATE;
		}
		if (zero) {
			list_heads(t, 1, list, sizeof list);
			fprintf(stderr, "headalloc: warning: %s: tensor '%s': %zu of "
			        "%zu heads %s all zero (head%s %s); %s as "
			        "overlapping no other head, which raises the HDI\n",
			        path, t->name, zero, t->heads, zero == 1 ? "is" : "are",
			        zero == 1 ? "" : "s", list,
			        zero == 1 ? "it counts" : "each counts");
		}
		if (lower) {
			list_heads(t, 0, list, sizeof list);
			fprintf(stderr, "headalloc: warning: %s: tensor '%s': %zu of "
			        "%zu heads %s rank below %zu (head%s %s); %s "
			        "overlaps are taken over the rank %s\n",
			        path, t->name, lower, t->heads,
			        lower == 1 ? "has" : "have", full, lower == 1 ? "" : "s",
			        list, lower == 1 ? "its" : "their",
			        lower == 1 ? "it has" : "they have");
		}
	}
	return HA_OK;
}

int cli_measure_hdi(const char *subject, const char *path,
                    const char *pattern, size_t heads, enum ha_layout layout,
                    struct ha_hdi_report **out)
{
	struct ha_weights *w = NULL;
	struct ha_error err;
	*out = NULL;
	ha_error_clear(&err);
	enum ha_status st = ha_weights_open(path, &w, &err);
	if (st == HA_OK)
		st = check_cost(w, pattern, heads, layout, &err);
	if (st == HA_OK)
		st = ha_hdi_from_weights(w, pattern, heads, layout, out, &err);
	ha_weights_free(w);
	if (st == HA_OK)
		st = check_heads(path, *out, &err);
	if (st != HA_OK) {
		ha_hdi_report_free(*out);
		*out = NULL;
		return cli_library_failure(subject, path, st, &err);
	}
	return EXIT_OK;
}
