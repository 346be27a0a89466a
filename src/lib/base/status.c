#include <headalloc/status.h>
#include <headalloc/version.h>

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
