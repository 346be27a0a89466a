/* The keys of a runs table (runs_internal.h): their names, and the
 * columns of a CSV runs file under a tracker's names (runs.h, struct
 * ha_runs_names); then the rules that do not depend on where the values
 * come from: which columns a header must have, what each value must be,
 * and the checks that join a run's values, in the words both the CSV
 * reader and ha_runs_from_columns refuse them with, so that a table in
 * memory is refused as the CSV file of the same rows. */
#include <stdio.h>
#include <string.h>

#include <headalloc/model.h>
#include <headalloc/runs.h>

#include "base/error_internal.h"
#include "base/text.h"
#include "runs_internal.h"

static const char *const key_names[HA_RUNS_KEYS] = {
	"heads", "head_dim", "model_dim", "samples", "loss", "loss_se",
	"kv_heads",
};

static const char keys_list[] =
	"heads, head_dim, model_dim, samples, loss, loss_se or kv_heads";

const char *ha_runs_key_str(enum ha_runs_key key)
{
	return (unsigned)key < HA_RUNS_KEYS ? key_names[key] : NULL;
}

void ha_runs_names_init(struct ha_runs_names *names)
{
	if (names)
		memset(names, 0, sizeof *names);
}

/* The name a key stands for: its mapping, or its own. */
static const char *effective(const struct ha_runs_names *names, int k)
{
	return names->name[k][0] ? names->name[k] : key_names[k];
}


static enum ha_status set_n(struct ha_runs_names *names, const char *key,
                            size_t key_length, const char *column,
                            struct ha_error *err)
{
	int k = -1;
	for (int i = 0; i < HA_RUNS_KEYS; i++)
		if (strlen(key_names[i]) == key_length &&
		    memcmp(key_names[i], key, key_length) == 0)
			k = i;
	if (k < 0)
		return ha_fail(err, HA_EINVAL, "expected a key %s, found '%.*s'",
		               keys_list, (int)(key_length > 64 ? 64 : key_length),
		               key);
	if (names->name[k][0])
		return ha_fail(err, HA_EINVAL, "expected each key once, found '%s' "
		               "again", key_names[k]);
	size_t n = strlen(column);
	/* a column's name is echoed in messages: the one name rule (text.h) */
	if (n == 0 || n >= HA_RUNS_NAME_MAX || ha_name_fault(column, n, NULL)) {
		char shown[72];
		return ha_fail(err, HA_EINVAL, "%s: expected a column name of 1 to "
		               "%d bytes of text, found '%s'", key_names[k],
		               HA_RUNS_NAME_MAX - 1,
		               ha_text_safe(column, shown, sizeof shown));
	}
	memcpy(names->name[k], column, n + 1);
	return HA_OK;
}

enum ha_status ha_runs_names_set(struct ha_runs_names *names, const char *key,
                                 const char *column, struct ha_error *err)
{
	ha_error_init(err);
	if (!names || !key || !column)
		return ha_fail(err, HA_EINVAL, "expected names, a key and a column, "
		               "found NULL");
	return set_n(names, key, strlen(key), column, err);
}

enum ha_status ha_runs_names_check(const struct ha_runs_names *names,
                                   struct ha_error *err)
{
	if (!names)
		return HA_OK;
	for (int j = 0; j < HA_RUNS_KEYS; j++)
		for (int k = j + 1; k < HA_RUNS_KEYS; k++)
			if (strcmp(effective(names, j), effective(names, k)) == 0)
				return ha_fail(err, HA_EINVAL, "expected a column for "
				               "each key, found '%s' for both %s and %s",
				               effective(names, j), key_names[j],
				               key_names[k]);
	return HA_OK;
}

enum ha_status ha_runs_names_parse(struct ha_runs_names *names,
                                   const char *spec, struct ha_error *err)
{
	ha_error_init(err);
	if (!names || !spec)
		return ha_fail(err, HA_EINVAL, "expected names and a spec, found NULL");
	char column[HA_RUNS_NAME_MAX + 1];
	for (const char *s = spec;;) {
		size_t len = strcspn(s, ",");
		const char *eq = memchr(s, '=', len);
		if (!eq || eq == s)
			return ha_fail(err, HA_EINVAL, "expected KEY=COLUMN[,KEY=COLUMN"
			               "...] with KEY %s, found '%.*s'", keys_list,
			               (int)(len > 64 ? 64 : len), s);
		size_t cl = len - (size_t)(eq + 1 - s);
		if (cl > HA_RUNS_NAME_MAX)
			cl = HA_RUNS_NAME_MAX; /* too long: set_n says so */
		memcpy(column, eq + 1, cl);
		column[cl] = '\0';
		enum ha_status st = set_n(names, s, (size_t)(eq - s), column, err);
		if (st != HA_OK)
			return st;
		if (!s[len])
			break;
		s += len + 1;
	}
	return ha_runs_names_check(names, err);
}

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

const char runs_header_need[] =
	"a header row naming the columns heads, head_dim (or model_dim), "
	"samples and loss (and optionally loss_se and kv_heads)";

static void missing(const struct runs_header *h, int k, struct ha_error *err)
{
	if (h->mapped[k])
		ha_fail(err, HA_EFORMAT, "header: expected the column '%s' (named "
		        "for %s), found none", h->name[k], ha_runs_key_str(k));
	else
		ha_fail(err, HA_EFORMAT, "header: expected the column '%s' (%s), "
		        "found none", h->name[k], runs_header_need);
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
