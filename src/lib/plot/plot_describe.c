/* Words the pictures share with the reports: failures and the model. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plot_internal.h"
#include "alloc/model_internal.h"

enum ha_status plot_solve_failed(struct ha_error *err, enum ha_status st,
                                 uint64_t budget)
{
	if (st == HA_EINFEASIBLE)
		return ha_fail(err, st, "no (heads, head_dim) pair of budget %" PRIu64
		               " meets the constraints", budget);
	return ha_fail(err, st, "solving: %s", ha_status_str(st));
}

/* Append to dst (of size) at *used, never past its end. */
static void append(char *dst, size_t size, size_t *used, const char *fmt, ...)
	HA_PRINTF(4, 5);

static void append(char *dst, size_t size, size_t *used, const char *fmt, ...)
{
	if (*used >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dst + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

void plot_describe_model(char *dst, size_t size, const struct ha_model *m,
                         const struct ha_constraints *c,
                         const struct ha_hdi_source *source)
{
	size_t used = 0;
	dst[0] = '\0';
	/* The model as given, as the text report writes it: a coefficient
	 * set from its logarithm as that logarithm (a calibrated c_v may lie
	 * far beyond a double), E, gamma and kappa where they differ from
	 * the defaults. */
	const struct ha_model d = ha_model_defaults();
	append(dst, size, &used, "model: s = %.6g", m->smoothness);
	if (!m->bias_coef_is_log)
		append(dst, size, &used, ", c#db#u = %.6g", m->bias_coef);
	else
		append(dst, size, &used, ", ln c#db#u = %.6g",
		       ha_model_log_bias_coef(m));
	if (!m->var_coef_is_log)
		append(dst, size, &used, ", c#dv#u = %.6g", m->var_coef);
	else
		append(dst, size, &used, ", ln c#dv#u = %.6g",
		       ha_model_log_var_coef(m));
	append(dst, size, &used, ", hdi = %.6g", m->hdi);
	if (m->irreducible != d.irreducible)
		append(dst, size, &used, ", E = %.6g", m->irreducible);
	if (m->var_rate != d.var_rate)
		append(dst, size, &used, ", #gg = %.6g", m->var_rate);
	if (m->var_power != d.var_power)
		append(dst, size, &used, ", #gk = %.6g", m->var_power);
	if (source && source->file) {
		char file[80];
		plot_escape(file, sizeof file, source->file, 40);
		append(dst, size, &used, " (measured: %zu tensor%s of %s)", source->tensors,
		       source->tensors == 1 ? "" : "s", file);
	}
	append(dst, size, &used, ";  constraints:");
	const struct { const char *name; uint64_t value; } fields[] = {
		{"head_dim multiple of", c ? c->head_dim_multiple : 0},
		{"head_dim >=", c ? c->min_head_dim : 0},
		{"head_dim <=", c ? c->max_head_dim : 0},
		{"heads >=", c ? c->min_heads : 0},
		{"heads <=", c ? c->max_heads : 0},
	};
	int any = 0;
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		if (!fields[i].value)
			continue;
		append(dst, size, &used, "%s %s %" PRIu64, any ? "," : "", fields[i].name,
		       fields[i].value);
		any = 1;
	}
	if (!any)
		append(dst, size, &used, " none");
}

/* "kv heads auto, max kv_dim 1024; 2 layers, 2 bytes an element" */
void plot_describe_kv(char *dst, size_t size, const struct ha_model *model,
                      const struct ha_kv_constraints *kv,
                      const struct ha_kv_shape *shape_or_null)
{
	struct ha_kv_shape shape = shape_or_null ? *shape_or_null : ha_kv_shape_defaults();
	int n;
	if (kv && kv->kv_heads)
		n = snprintf(dst, size, "kv heads %" PRIu64, kv->kv_heads);
	else
		n = snprintf(dst, size, "kv heads auto");
	size_t used = n > 0 && (size_t)n < size ? (size_t)n : 0;
	const struct { const char *name; uint64_t value; } fields[] = {
		{"max kv_dim", kv ? kv->max_kv_dim : 0},
		{"kv heads >=", kv ? kv->min_kv_heads : 0},
		{"kv heads <=", kv ? kv->max_kv_heads : 0},
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		if (!fields[i].value || used >= size)
			continue;
		n = snprintf(dst + used, size - used, ", %s %" PRIu64, fields[i].name,
		             fields[i].value);
		used += n > 0 && (size_t)n < size - used ? (size_t)n : 0;
	}
	if (used < size)
		snprintf(dst + used, size - used, ";  %" PRIu64 " layer%s, %" PRIu64
		         " byte%s an element, group_hdi = %.6g", shape.layers,
		         shape.layers == 1 ? "" : "s", shape.kv_bytes,
		         shape.kv_bytes == 1 ? "" : "s", model->group_hdi);
}
