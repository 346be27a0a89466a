/* libFuzzer target: the covariance YAML reader and the weights solver. */
#include <stdint.h>
#include <stdlib.h>

#include <headalloc/headalloc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double *sigma = NULL;
	size_t heads = 0;
	struct ha_error err;
	if (ha_covariance_parse((const char *)data, size, &sigma, &heads,
	                        &err) != HA_OK)
		return 0;
	struct ha_head_weights w;
	if (heads <= 64 && ha_covariance_weights(sigma, heads, &w, &err) == HA_OK)
		ha_head_weights_clear(&w);
	free(sigma);
	return 0;
}
