/* What a report of HDIs refuses before any data is read (the cost limit
 * HA_HDI_MAX_WORK) and what it says about each tensor after (heads
 * without weights, heads of lower rank): the rules of hdi.h, the same for
 * weights files and model directories. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "hdi_internal.h"

enum ha_status ha_hdi_check_work(const char *name, uint64_t rows,
                                 uint64_t cols, uint64_t outputs,
                                 uint64_t model, size_t heads,
                                 struct ha_error *err)
{
	if (heads <= 1 || outputs % heads != 0)
		return HA_OK; /* no pairs; or compute's own message */
	/* (H d_k)^2 d_model, computed without overflow */
	long double work = (long double)outputs * (long double)outputs *
	                   (long double)model;
	if (work <= (long double)HA_HDI_MAX_WORK)
		return HA_OK;
	return ha_fail(err, HA_EUNSUPPORTED,
	               "tensor '%s' [%" PRIu64 ", %" PRIu64 "]: its head "
	               "overlaps take (H*d_k)^2*d_model = %.3Lg "
	               "multiply-adds, more than the limit of %.3Lg (see "
	               "LIMITS in headalloc(1))", name, rows, cols, work,
	               (long double)HA_HDI_MAX_WORK);
}

/* "head 7", or "heads 3, 7, 9", or "heads 3, 7, 9, ..." */
static void list_heads(const struct ha_hdi_tensor *t, int zero, char *buf,
                       size_t size)
{
	size_t used = 0, shown = 0;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	buf[0] = '\0';
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

static enum ha_status add_warning(struct ha_hdi_report *r,
                                  enum ha_hdi_warning_kind kind, size_t i,
                                  struct ha_hdi_warning **w,
                                  struct ha_error *err)
{
	struct ha_hdi_warning *more =
		realloc(r->warnings, (r->warning_count + 1) * sizeof *more);
	if (!more)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	r->warnings = more;
	*w = &more[r->warning_count++];
	(*w)->kind = kind;
	(*w)->tensor = i;
	return HA_OK;
}

enum ha_status ha_hdi_check_heads(struct ha_hdi_report *r, size_t i,
                                  struct ha_error *err)
{
	const struct ha_hdi_tensor *t = &r->tensors[i];
	size_t zero = 0;
	for (size_t h = 0; h < t->heads; h++)
		zero += t->rank[h] == 0;
	size_t lower = t->rank_deficient - zero;
	size_t full = t->head_dim < t->model_dim ? t->head_dim : t->model_dim;
	char list[160];
	struct ha_hdi_warning *w = NULL;
	enum ha_status st = HA_OK;
	if (zero == t->heads) {
		if (t->heads == 1)
			return ha_fail(err, HA_EDEGENERATE,
			               "tensor '%s': its weights are all zero: "
			               "there is no subspace to measure", t->name);
		return ha_fail(err, HA_EDEGENERATE,
		               "tensor '%s': the weights of all %zu heads are "
		               "zero: there is no subspace to measure", t->name,
		               t->heads);
	}
	if (zero && (st = add_warning(r, HA_HDI_WARN_ZERO_HEADS, i, &w, err)) == HA_OK) {
		list_heads(t, 1, list, sizeof list);
		snprintf(w->message, sizeof w->message,
		         "tensor '%s': %zu of %zu heads %s all zero (head%s %s); "
		         "%s as overlapping no other head, which raises the HDI",
		         t->name, zero, t->heads, zero == 1 ? "is" : "are",
		         zero == 1 ? "" : "s", list,
		         zero == 1 ? "it counts" : "each counts");
	}
	if (st == HA_OK && lower &&
	    (st = add_warning(r, HA_HDI_WARN_LOW_RANK, i, &w, err)) == HA_OK) {
		list_heads(t, 0, list, sizeof list);
		snprintf(w->message, sizeof w->message,
		         "tensor '%s': %zu of %zu heads %s rank below %zu (head%s "
		         "%s); %s overlaps are taken over the rank %s", t->name,
		         lower, t->heads, lower == 1 ? "has" : "have", full,
		         lower == 1 ? "" : "s", list, lower == 1 ? "its" : "their",
		         lower == 1 ? "it has" : "they have");
	}
	return st;
}
