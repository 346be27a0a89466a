/* Shared body of the weights fuzz targets: open an image in memory, then
 * read every tensor and, when it is a small matrix, compute its HDI. */
#include <stdint.h>
#include <stdlib.h>

#include <headalloc/headalloc.h>
#include "tensors/weights_internal.h"

static void fuzz_weights(const uint8_t *data, size_t size,
                         enum ha_weights_format format)
{
	struct ha_weights *w = NULL;
	struct ha_error err;
	if (ha_weights_open_memory(data, size, format, "fuzz", &w, &err) != HA_OK)
		return;
	for (size_t i = 0; i < ha_weights_count(w); i++) {
		struct ha_tensor_info info;
		double *v = NULL;
		if (ha_weights_info(w, i, &info) != HA_OK ||
		    info.elements > 4096 ||
		    ha_weights_read(w, i, &v, &err) != HA_OK)
			continue;
		if (info.ndim == 2) {
			for (size_t heads = 1; heads <= 3; heads++) {
				struct ha_hdi_tensor t;
				for (int l = 0; l < 2; l++)
					if (ha_hdi_compute(v, (size_t)info.shape[0],
					                   (size_t)info.shape[1], heads,
					                   (enum ha_layout)l, info.name, &t,
					                   &err) == HA_OK)
						ha_hdi_tensor_finish(&t);
			}
		}
		free(v);
	}
	ha_weights_free(w);
}
