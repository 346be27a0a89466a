/* The `kv` map of a scenario file: the same keys, in the same form, as
 * the kv map of a grouped allocation's YAML report, so that the report
 * reads back as a scenario. */
#include <headalloc/grouped.h>

#include "input/scenario_kv.h"
#include "alloc/grouped_internal.h"

enum kv_key {
	KV_HEADS, MAX_KV_DIM, MIN_KV_HEADS, MAX_KV_HEADS, LAYERS, KV_BYTES,
	MODEL_DIM
};

static const struct ha_yr_key kv_keys[] = {
	[KV_HEADS] = {"kv_heads", HA_YR_OPTIONAL},
	[MAX_KV_DIM] = {"max_kv_dim", HA_YR_OPTIONAL},
	[MIN_KV_HEADS] = {"min_kv_heads", HA_YR_OPTIONAL},
	[MAX_KV_HEADS] = {"max_kv_heads", HA_YR_OPTIONAL},
	[LAYERS] = {"layers", HA_YR_OPTIONAL},
	[KV_BYTES] = {"kv_bytes", HA_YR_OPTIONAL},
	[MODEL_DIM] = {"model_dim", HA_YR_OPTIONAL}};

static enum ha_status kv_field(struct ha_yr *r, void *ctx, size_t key,
                               const char *where)
{
	struct ha_scenario *sc = ctx;
	uint64_t *fields[] = {&sc->kv.kv_heads, &sc->kv.max_kv_dim,
	                      &sc->kv.min_kv_heads, &sc->kv.max_kv_heads,
	                      &sc->kv_shape.layers, &sc->kv_shape.kv_bytes,
	                      &sc->kv_shape.model_dim};
	if (key == KV_HEADS && ha_yr_is_word(r, "auto")) {
		sc->kv.kv_heads = 0;
		return HA_OK;
	}
	return ha_yr_uint(r, where, key == KV_HEADS
	                  ? "auto or an integer from 1 to 9223372036854775807" : NULL,
	                  1, HA_BUDGET_MAX, fields[key]);
}

enum ha_status ha_scenario_read_kv(struct ha_yr *r, const char *where,
                                   struct ha_scenario *sc)
{
	yaml_mark_t at = r->ev.start_mark;
	struct ha_yr_map map = HA_YR_MAP(kv_keys);
	enum ha_status st = ha_yr_read_map(r, where, "a mapping", &map, kv_field, sc);
	if (st != HA_OK)
		return st;
	sc->has_kv = 1;
	if (ha_kv_constraints_validate(&sc->kv) != HA_OK)
		return ha_yr_fail_at(r, at, HA_EFORMAT, "%s: expected min_kv_heads <= "
		                     "kv_heads <= max_kv_heads where given, found %llu, "
		                     "%llu and %llu", where,
		                     (unsigned long long)sc->kv.min_kv_heads,
		                     (unsigned long long)sc->kv.kv_heads,
		                     (unsigned long long)sc->kv.max_kv_heads);
	return HA_OK;
}
