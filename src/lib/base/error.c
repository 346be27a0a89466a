/* The statuses' words, and struct ha_error: failure details in caller
 * storage. */
#include <stdarg.h>
#include <stdio.h>

#include <headalloc/version.h>

#include "error_internal.h"

void ha_error_init(struct ha_error *err)
{
	if (err)
		*err = (struct ha_error){.status = HA_OK};
}

HA_PRINTF(5, 0)
static void set_message(struct ha_error *err, enum ha_status status,
                        long line, long column, const char *fmt, va_list ap)
{
	if (!err)
		return;
	err->status = status;
	if (vsnprintf(err->message, sizeof err->message, fmt, ap) < 0)
		err->message[0] = '\0';
	/* Messages quote names from the file: a control character in one
	 * (a newline above all) must not break the message's one line. */
	for (char *c = err->message; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	err->line = line;
	err->column = column;
}

enum ha_status ha_fail_at(struct ha_error *err, enum ha_status status,
                          long line, long column, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(err, status, line, column, fmt, ap);
	va_end(ap);
	return status;
}

enum ha_status ha_fail(struct ha_error *err, enum ha_status status,
                       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(err, status, 0, 0, fmt, ap);
	va_end(ap);
	return status;
}

const char *ha_status_str(enum ha_status status)
{
	switch (status) {
	case HA_OK: return "success";
	case HA_EINVAL: return "invalid argument";
	case HA_ENOMEM: return "out of memory";
	case HA_EINFEASIBLE: return "no feasible allocation";
	case HA_ENUMERIC: return "numerical method failed";
	case HA_EIO: return "input/output error";
	case HA_EFORMAT: return "malformed input";
	case HA_EUNSUPPORTED: return "unsupported input";
	case HA_EDEGENERATE: return "too few distinct points to fit";
	case HA_ECANCELED: return "cancelled";
	}
	return "unknown status";
}

const char *ha_version(void)
{
	return HA_VERSION_STRING;
}
