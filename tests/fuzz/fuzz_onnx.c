/* libFuzzer target: the ONNX reader (an image in memory: its framing
 * check, protobuf-c's unpacking under the bounded allocator, the tensor
 * directory, every tensor's data).  A refusal must say why in one line. */
#include <string.h>

#include "fuzz_weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ha_weights *w = NULL;
	struct ha_error err;
	if (ha_weights_open_memory(data, size, HA_WEIGHTS_FORMAT_ONNX, NULL,
	                           &w, &err) != HA_OK &&
	    (err.message[0] == '\0' || strchr(err.message, '\n')))
		abort();
	ha_weights_free(w);
	fuzz_weights(data, size, HA_WEIGHTS_FORMAT_ONNX);
	return 0;
}
