/* libFuzzer target: the scenario-file reader.  Every input either reads
 * or fails with a status and a message; a success is freed whole. */
#include <stdint.h>
#include <stdlib.h>

#include <headalloc/scenario.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ha_scenario *sc = NULL;
	struct ha_error err;
	enum ha_status st = ha_scenario_read_string((const char *)data, size, &sc, &err);
	if (st == HA_OK) {
		/* What was read is within its documented ranges. */
		for (size_t i = 0; i < sc->sample_count; i++)
			if (!(sc->samples[i] > 1.0 && sc->samples[i] <= 1e300))
				abort();
		for (size_t i = 0; i < sc->budget_count; i++)
			if (sc->budgets[i] == 0 || sc->budgets[i] > HA_BUDGET_MAX)
				abort();
	} else if (sc != NULL || err.message[0] == '\0' || err.status != st ||
	           err.file != NULL || err.line < 0 || err.column < 0 ||
	           (st == HA_EFORMAT && err.line == 0 &&
	            size <= HA_SCENARIO_MAX_FILE)) {
		/* A failure has a message, no file (this is text) and, when it
		 * is in the contents, a position. */
		abort();
	}
	ha_scenario_free(sc);
	return 0;
}
