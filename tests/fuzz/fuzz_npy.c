/* libFuzzer target: the .npy reader. */
#include "fuzz_weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_weights(data, size, HA_WEIGHTS_FORMAT_NPY);
	return 0;
}
