/* The YAML writer's fast path for flat rows (yaml_writer.h,
 * library-internal: this suite links the library's objects), byte for
 * byte against libyaml's emitter. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>

#include "test_random.h"
#include "yaml_memory.h"

#include "report/yaml_writer.h"

/* Random tables (1 to 10 keys, up to 60 rows) of unsigned integers and
 * doubles of every kind (.inf, -.inf, .nan, 0 and -0, integers, huge,
 * tiny, subnormal), some doubles passed as yaml_flat_double's text: the
 * rows after the first through yaml_flat_item and yaml_writer_raw are the
 * emitter's bytes, in a document that goes on after the table. */
static char *flat_document(uint64_t seed, int fast)
{
	static const struct yaml_flat_key keys[10] = {
		YAML_FLAT_KEY("budget"), YAML_FLAT_KEY("samples"), YAML_FLAT_KEY("heads"),
		YAML_FLAT_KEY("head_dim"), YAML_FLAT_KEY("mse"), YAML_FLAT_KEY("log10_mse"),
		YAML_FLAT_KEY("relaxed_head_dim"), YAML_FLAT_KEY("relaxed_heads"),
		YAML_FLAT_KEY("x"), YAML_FLAT_KEY("a_long_key_name_of_a_column"),
	};
	uint64_t rng = seed;
	size_t count = 1 + next_random(&rng) % 10, rows = 1 + next_random(&rng) % 60;
	struct yaml_memory m;
	struct ha_yaml_writer *w = yaml_memory_open(&m);
	ha_yaml_key(w, "table");
	ha_yaml_begin_seq(w, 0);
	for (size_t r = 0; r < rows; r++) {
		struct yaml_flat_value values[10];
		char texts[10][YAML_FLAT_DOUBLE_MAX + 6];
		for (size_t k = 0; k < count; k++) {
			uint64_t kind = next_random(&rng) % 9;
			struct yaml_flat_value *v = &values[k];
			memset(v, 0, sizeof *v);
			if (kind < 3) {
				v->kind = YAML_FLAT_UINT;
				v->uint_value = kind == 0 ? next_random(&rng)
				              : kind == 1 ? next_random(&rng) % 1000 : UINT64_MAX * (r % 2);
				continue;
			}
			v->kind = YAML_FLAT_DOUBLE;
			v->double_value = kind == 3 ? -0.0
			                : kind == 4 ? ldexp((double)(next_random(&rng) >> 12), -1074)
			                : random_value(&rng);
			if (next_random(&rng) % 4 == 0) {
				v->kind = YAML_FLAT_TEXT;
				v->text = texts[k];
				v->length = (size_t)(yaml_flat_double(texts[k], v->double_value) - texts[k]);
				cr_assert_leq(v->length, YAML_FLAT_DOUBLE_MAX);
			}
		}
		if (fast && r > 0) {
			char item[10 * (40 + YAML_FLAT_DOUBLE_MAX + 6) + 8];
			char *end = yaml_flat_item(item, keys, values, count);
			yaml_writer_raw(w, item, (size_t)(end - item));
			continue;
		}
		ha_yaml_begin_map(w, 1);
		for (size_t k = 0; k < count; k++) {
			ha_yaml_key(w, keys[k].text);
			if (values[k].kind == YAML_FLAT_UINT)
				ha_yaml_uint(w, values[k].uint_value);
			else
				ha_yaml_double(w, values[k].double_value);
		}
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	return yaml_memory_close(&m);
}

Test(yaml_flat, rows_are_the_bytes_the_emitter_writes)
{
	size_t nonfinite = 0;
	for (uint64_t seed = 1; seed <= 400; seed++) {
		char *events = flat_document(seed, 0), *fast = flat_document(seed, 1);
		cr_assert_str_eq(fast, events, "seed %llu", (unsigned long long)seed);
		nonfinite += strstr(events, ".nan") != NULL && strstr(events, ".inf") != NULL &&
		             strstr(events, "-.inf") != NULL;
		free(events);
		free(fast);
	}
	cr_assert_gt(nonfinite, 100);
}
