/* libFuzzer target: the covariance YAML reader and the weights solver. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <headalloc/headalloc.h>
#include "input/covariance_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double *sigma = NULL;
	size_t heads = 0;
	struct ha_error err;
	enum ha_status st = ha_covariance_parse((const char *)data, size, &sigma,
	                                        &heads, &err);
	if (st != HA_OK) {
		/* A failure has a message, no file (this is text) and, when it
		 * is in the contents, a position. */
		if (sigma || err.message[0] == '\0' || err.status != st ||
		    err.file != NULL ||
		    (st == HA_EFORMAT && err.line == 0 &&
		     size <= HA_COVARIANCE_MAX_FILE))
			abort();
		return 0;
	}
	if (heads == 0 || heads > HA_COVARIANCE_MAX_HEADS)
		abort();
	for (size_t i = 0; i < heads * heads; i++)
		if (!isfinite(sigma[i]))
			abort();
	struct ha_head_weights w;
	if (heads <= 64 && ha_covariance_weights(sigma, heads, &w, &err) == HA_OK)
		ha_head_weights_finish(&w);
	free(sigma);
	return 0;
}
