/* The columns of a CSV runs file under a tracker's names (runs.h,
 * struct ha_runs_names): the keys, the mapping and its checks. */
#include <string.h>

#include <headalloc/runs.h>

#include "base/error_internal.h"
#include "input/runs_internal.h"

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

/* Text a header cell can hold: no control character (the CSV reader
 * refuses them everywhere but inside quotes, and a name with a line
 * break is no name). */
static int is_name(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7F)
			return 0;
	return 1;
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
	if (n == 0 || n >= HA_RUNS_NAME_MAX || !is_name(column))
		return ha_fail(err, HA_EINVAL, "%s: expected a column name of 1 to "
		               "%d bytes of text, found '%.64s'", key_names[k],
		               HA_RUNS_NAME_MAX - 1, column);
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
