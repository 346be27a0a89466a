/* Words the pictures share with the reports: failures and the model. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plot_internal.h"

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
	append(dst, size, &used, "model: s = %.6g, c#db#u = %.6g, c#dv#u = %.6g, hdi = %.6g",
	       m->smoothness, m->bias_coef, m->var_coef, m->hdi);
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
