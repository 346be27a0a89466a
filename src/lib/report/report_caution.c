/* The word of caution for an answer of the default model (see
 * report_internal.h): its coefficients are shapes, not measurements. */
#include <stdio.h>

#include <headalloc/model.h>

#include "report/report_internal.h"
#include "alloc/model_internal.h"

int report_model_calibrated(const struct ha_model *m)
{
	const struct ha_model d = ha_model_defaults();
	return ha_model_log_bias_coef(m) != ha_model_log_bias_coef(&d) ||
	       ha_model_log_var_coef(m) != ha_model_log_var_coef(&d) ||
	       m->smoothness != d.smoothness || m->irreducible != d.irreducible ||
	       m->var_rate != d.var_rate || m->var_power != d.var_power ||
	       m->data_coef != d.data_coef ||
	       m->var_samples_power != d.var_samples_power;
}

void report_text_caution(FILE *f, const struct ha_model *m)
{
	if (!report_model_calibrated(m))
		fputs("note: the model's coefficients are headalloc's defaults, "
		      "a shape, not a measurement; fit them to your own runs "
		      "with 'headalloc calibrate'\n", f);
}
