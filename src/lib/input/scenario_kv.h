/* The scenario file's `kv` map (headalloc-scenario(5)): the grouped-query
 * allocation's key/value constraints and shape (library-internal). */
#ifndef HEADALLOC_SCENARIO_KV_H
#define HEADALLOC_SCENARIO_KV_H

#include <headalloc/scenario.h>

#include "input/yaml_reader.h"

/* Read the map at the current event into sc->kv and sc->kv_shape and set
 * sc->has_kv; where names it ("kv") in messages. */
enum ha_status ha_scenario_read_kv(struct ha_yr *r, const char *where,
                                   struct ha_scenario *sc);

#endif
