/* headalloc — status codes shared by every module.
 *
 * The library never prints and never exits: every fallible function returns
 * an enum ha_status and the caller (the CLI, or any other user) turns it into
 * a message for people.  The numeric values are stable. */
#ifndef HEADALLOC_STATUS_H
#define HEADALLOC_STATUS_H

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ha_status {
	HA_OK = 0,          /* success */
	HA_EINVAL = 1,      /* an argument is out of its domain */
	HA_ENOMEM = 2,      /* an allocation failed */
	HA_EINFEASIBLE = 3, /* no divisor pair meets the constraints */
	HA_ENUMERIC = 4,    /* a numerical method failed to converge */
	HA_EIO = 5,         /* reading or writing a stream failed */
	HA_EFORMAT = 6,     /* malformed input data (file contents) */
	HA_EUNSUPPORTED = 7, /* valid input that this version cannot handle */
	HA_EDEGENERATE = 8,  /* too few distinct points for a fit */
	HA_ECANCELED = 9     /* a progress callback asked to stop */
};

/* A short, static, lower-case description of a status ("no feasible
 * allocation", ...).  Never NULL; unknown values give "unknown status". */
HA_API const char *ha_status_str(enum ha_status status);

/* The version of the library loaded, "X.Y.Z" (that of the headers
 * compiled against is HA_VERSION_STRING, version.h). */
HA_API const char *ha_version(void);

#ifdef __cplusplus
}
#endif
#endif
