/* libFuzzer target: the runs-file readers (runs.h), YAML and CSV, on the
 * same bytes.  Every input either reads, with every run in its domain, or
 * fails with a status, a message and (for the contents) a position. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <headalloc/model.h>
#include <headalloc/runs.h>
#include "input/runs_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, enum ha_runs_format f)
{
	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_error err;
	enum ha_status st = ha_runs_read_string_named((const char *)data, size,
	                                              f, NULL, &runs, &count,
	                                              &err);
	if (st == HA_OK) {
		if (!runs || count == 0 || count > HA_RUNS_MAX)
			abort();
		for (size_t i = 0; i < count; i++) {
			const struct ha_run *r = &runs[i];
			if (r->heads == 0 || r->head_dim == 0 ||
			    r->heads > HA_BUDGET_MAX / r->head_dim ||
			    !(r->samples > 1.0 && r->samples <= 1e300) ||
			    !(r->loss > 0.0 && isfinite(r->loss)) ||
			    !(isnan(r->loss_se) ||
			      (r->loss_se > 0.0 && isfinite(r->loss_se))))
				abort();
		}
	} else if (runs != NULL || count != 0 || err.message[0] == '\0' ||
	           err.status != st || err.file != NULL || err.line < 0 ||
	           err.column < 0 ||
	           (st == HA_EFORMAT && err.line == 0 && size <= HA_RUNS_MAX_FILE)) {
		abort();
	}
	free(runs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, HA_RUNS_YAML);
	check(data, size, HA_RUNS_CSV);
	return 0;
}
