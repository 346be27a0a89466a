/* The rules of a runs table that do not depend on where its values come
 * from (runs_internal.h): which columns a header must have, what each
 * value must be, and the checks that join a run's values, in the words
 * both the CSV reader and ha_runs_from_columns refuse them with, so that
 * a table in memory is refused as the CSV file of the same rows. */
#include <stdio.h>
#include <string.h>

#include <headalloc/model.h>

#include "base/error_internal.h"
#include "runs_internal.h"

#define TEXT(x) #x
#define STRINGIFY(x) TEXT(x)

const char *const runs_key_what[HA_RUNS_KEYS] = {
	"an integer from 1 to 9223372036854775807",
	"an integer from 1 to 9223372036854775807",
	"an integer from 1 to 9223372036854775807",
	("a number > 1 and <= " STRINGIFY(RUNS_SAMPLES_MAX)),
	"a number > 0",
	"a number > 0",
	"an integer from 1 to 9223372036854775807",
};

static const char need[] =
	"a header row naming the columns heads, head_dim (or model_dim), "
	"samples and loss (and optionally loss_se and kv_heads)";

const char *runs_header_need(void)
{
	return need;
}

static void missing(const struct runs_header *h, int k, struct ha_error *err)
{
	if (h->mapped[k])
		ha_fail(err, HA_EFORMAT, "header: expected the column '%s' (named "
		        "for %s), found none", h->name[k], ha_runs_key_str(k));
	else
		ha_fail(err, HA_EFORMAT, "header: expected the column '%s' (%s), "
		        "found none", h->name[k], need);
}

enum ha_status runs_header_check(const struct runs_header *h,
                                 struct ha_error *err)
{
	static const int required[] = {HA_RUNS_KEY_HEADS, HA_RUNS_KEY_HEAD_DIM,
	                               HA_RUNS_KEY_SAMPLES, HA_RUNS_KEY_LOSS};
	for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
		int k = required[i];
		if (h->present[k] || (h->pool && k == HA_RUNS_KEY_LOSS))
			continue;
		/* model_dim stands in for head_dim */
		if (k == HA_RUNS_KEY_HEAD_DIM && h->present[HA_RUNS_KEY_MODEL_DIM])
			continue;
		if (k == HA_RUNS_KEY_HEAD_DIM && h->mapped[HA_RUNS_KEY_MODEL_DIM] &&
		    !h->mapped[k])
			k = HA_RUNS_KEY_MODEL_DIM;
		missing(h, k, err);
		return HA_EFORMAT;
	}
	/* loss_se and kv_heads are optional, but a name given for one must be
	 * there (headalloc-runs(5)): the runs would otherwise be read without
	 * their errors, or as ungrouped, without a word. */
	static const int optional[] = {HA_RUNS_KEY_LOSS_SE, HA_RUNS_KEY_KV_HEADS};
	for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
		if (h->mapped[optional[i]] && !h->present[optional[i]]) {
			missing(h, optional[i], err);
			return HA_EFORMAT;
		}
	return HA_OK;
}

enum ha_status runs_bad_value(struct ha_error *err, size_t row,
                              const char *key, const char *what,
                              const char *found)
{
	return ha_fail(err, HA_EFORMAT, "row %zu, %s: expected %s, found %s",
	               row, key, what, found);
}

enum ha_status runs_join(size_t row, struct ha_run *run, int has_head_dim,
                         int has_width, uint64_t width, const char *width_text,
                         enum ha_runs_key *at, struct ha_error *err)
{
	if (has_head_dim && run->heads > HA_BUDGET_MAX / run->head_dim) {
		*at = HA_RUNS_KEY_HEAD_DIM;
		return ha_fail(err, HA_EFORMAT, "row %zu: expected heads * head_dim "
		               "<= %llu, found %llu * %llu", row,
		               (unsigned long long)HA_BUDGET_MAX,
		               (unsigned long long)run->heads,
		               (unsigned long long)run->head_dim);
	}
	if (run->kv_heads == 0) {
		run->kv_heads = run->heads;
	} else if (run->heads % run->kv_heads != 0) {
		*at = HA_RUNS_KEY_KV_HEADS;
		return ha_fail(err, HA_EFORMAT, "row %zu, kv_heads: expected a "
		               "divisor of heads (%llu), found %llu", row,
		               (unsigned long long)run->heads,
		               (unsigned long long)run->kv_heads);
	}
	if (!has_width)
		return HA_OK;
	*at = HA_RUNS_KEY_MODEL_DIM;
	if (!has_head_dim) {
		if (width % run->heads != 0)
			return ha_fail(err, HA_EFORMAT, "row %zu, model_dim: expected a "
			               "multiple of heads (%llu), found %s", row,
			               (unsigned long long)run->heads, width_text);
		run->head_dim = width / run->heads;
		return HA_OK;
	}
	if (width != run->heads * run->head_dim)
		return ha_fail(err, HA_EFORMAT, "row %zu, model_dim: expected heads "
		               "* head_dim = %llu, found %s", row,
		               (unsigned long long)(run->heads * run->head_dim),
		               width_text);
	return HA_OK;
}
