/* The `kv` map of a scenario file: the same keys, in the same form, as
 * the kv map of a grouped allocation's YAML report, so that the report
 * reads back as a scenario. */
#include <headalloc/grouped.h>

#include "input/scenario_kv.h"
#include "alloc/grouped_internal.h"

#include <inttypes.h>
#include <stdio.h>

static const struct ha_yr_key kv_keys[HA_SCENARIO_KV_KEYS] = {
	[HA_SCENARIO_KV_HEADS] = {"kv_heads", HA_YR_OPTIONAL},
	[HA_SCENARIO_MAX_KV_DIM] = {"max_kv_dim", HA_YR_OPTIONAL},
	[HA_SCENARIO_MIN_KV_HEADS] = {"min_kv_heads", HA_YR_OPTIONAL},
	[HA_SCENARIO_MAX_KV_HEADS] = {"max_kv_heads", HA_YR_OPTIONAL},
	[HA_SCENARIO_LAYERS] = {"layers", HA_YR_OPTIONAL},
	[HA_SCENARIO_KV_BYTES] = {"kv_bytes", HA_YR_OPTIONAL},
	[HA_SCENARIO_MODEL_DIM] = {"model_dim", HA_YR_OPTIONAL}};

static enum ha_status kv_field(struct ha_yr *r, void *ctx, size_t key,
                               const char *where)
{
	struct ha_scenario *sc = ctx;
	sc->kv_line[key] = (unsigned)r->ev.start_mark.line + 1;
	sc->kv_column[key] = (unsigned)r->ev.start_mark.column + 1;
	uint64_t *fields[] = {&sc->kv.kv_heads, &sc->kv.max_kv_dim,
	                      &sc->kv.min_kv_heads, &sc->kv.max_kv_heads,
	                      &sc->kv_shape.layers, &sc->kv_shape.kv_bytes,
	                      &sc->kv_shape.model_dim};
	if (key == HA_SCENARIO_KV_HEADS && ha_yr_is_word(r, "auto")) {
		sc->kv.kv_heads = 0;
		return HA_OK;
	}
	return ha_yr_uint(r, where, key == HA_SCENARIO_KV_HEADS
	                  ? "auto or an integer from 1 to 9223372036854775807" : NULL,
	                  1, HA_BUDGET_MAX, fields[key]);
}

/* Refuse the first pair of min_kv_heads <= kv_heads <= max_kv_heads (of
 * those given) out of order, at the later key's value; kv_heads auto (0)
 * bounds nothing. */
static enum ha_status check_order(struct ha_yr *r, const char *where,
                                  const struct ha_scenario *sc)
{
	static const int pairs[][2] = {
		{HA_SCENARIO_MIN_KV_HEADS, HA_SCENARIO_MAX_KV_HEADS},
		{HA_SCENARIO_MIN_KV_HEADS, HA_SCENARIO_KV_HEADS},
		{HA_SCENARIO_KV_HEADS, HA_SCENARIO_MAX_KV_HEADS}};
	const uint64_t value[] = {
		[HA_SCENARIO_KV_HEADS] = sc->kv.kv_heads,
		[HA_SCENARIO_MIN_KV_HEADS] = sc->kv.min_kv_heads,
		[HA_SCENARIO_MAX_KV_HEADS] = sc->kv.max_kv_heads};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		int lo = pairs[i][0], hi = pairs[i][1];
		if (!value[lo] || !value[hi] || value[lo] <= value[hi])
			continue;
		int later = sc->kv_line[lo] > sc->kv_line[hi] ||
		            (sc->kv_line[lo] == sc->kv_line[hi] &&
		             sc->kv_column[lo] > sc->kv_column[hi]) ? lo : hi;
		yaml_mark_t at = {0, sc->kv_line[later] - 1, sc->kv_column[later] - 1};
		return ha_yr_fail_at(r, at, HA_EFORMAT,
		                     "%s.%s: expected %s <= %s, found %" PRIu64
		                     " > %" PRIu64, where, kv_keys[later].name,
		                     kv_keys[lo].name, kv_keys[hi].name, value[lo],
		                     value[hi]);
	}
	return HA_OK;
}

enum ha_status ha_scenario_read_kv(struct ha_yr *r, const char *where,
                                   struct ha_scenario *sc)
{
	struct ha_yr_map map = HA_YR_MAP(kv_keys);
	enum ha_status st = ha_yr_read_map(r, where, "a mapping", &map, kv_field, sc);
	if (st != HA_OK)
		return st;
	sc->has_kv = 1;
	return check_order(r, where, sc);
}
