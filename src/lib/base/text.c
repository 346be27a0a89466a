/* Text shown on a terminal, and the report formats' names (text.h). */
#include <stdint.h>
#include <string.h>

#include "base/text.h"

/* The length of the unsafe character at s (len bytes left), or 0. */
static size_t unsafe(const unsigned char *s, size_t len)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (len >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	/* U+200E, U+200F: E2 80 8E, 8F; U+202A..U+202E: E2 80 AA..AE;
	 * U+2066..U+2069: E2 81 A6..A9 */
	if (len >= 3 && s[0] == 0xe2 &&
	    ((s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f)) ||
	     (s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
	     (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 3;
	return 0;
}

size_t ha_utf8_length(const unsigned char *p, size_t n)
{
	unsigned char b = p[0];
	size_t len;
	uint32_t min, cp;
	if (b < 0x80)
		return 1;
	if (b >= 0xc2 && b <= 0xdf) {
		len = 2, min = 0x80, cp = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3, min = 0x800, cp = b & 0x0f;
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4, min = 0x10000, cp = b & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t ha_text_unsafe_at(const char *s, size_t len, size_t *width)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, w = 0;
	while (i < len && !(w = unsafe(u + i, len - i)))
		i++;
	if (width)
		*width = w;
	return i;
}

const char *ha_text_safe(const char *s, char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), out = 0;
	for (size_t i = 0; i < len && out + 1 < size;) {
		size_t w = unsafe(u + i, len - i);
		if (w) {
			buf[out++] = '?';
			i += w;
			continue;
		}
		/* a whole UTF-8 sequence, or nothing; a byte of none is '?' */
		size_t n = ha_utf8_length(u + i, len - i);
		if (!n) {
			buf[out++] = '?';
			i++;
			continue;
		}
		if (out + n >= size)
			break;
		memcpy(buf + out, s + i, n);
		out += n;
		i += n;
	}
	buf[out] = '\0';
	return buf;
}

const char *ha_name_fault(const char *s, size_t len, size_t *at)
{
	size_t where = 0;
	const char *fault = NULL;
	if (!s || len == 0) {
		fault = "is empty";
	} else if (len > HA_NAME_MAX_BYTES) {
		where = HA_NAME_MAX_BYTES;
		fault = "is longer than 1024 bytes";
	} else {
		const unsigned char *u = (const unsigned char *)s;
		for (size_t i = 0; i < len && !fault;) {
			size_t w = unsafe(u + i, len - i), n;
			where = i;
			if (w)
				fault = u[i] == 0 ? "holds a NUL byte"
				        : w == 3 ? "holds a bidirectional control character"
				                 : "holds a control character";
			else if (!(n = ha_utf8_length(u + i, len - i)))
				fault = "holds bytes that are not UTF-8";
			else
				i += n;
		}
	}
	if (fault && at)
		*at = where;
	return fault;
}

const char *ha_report_format_str(enum ha_report_format format)
{
	return format == HA_FORMAT_YAML ? "yaml"
	     : format == HA_FORMAT_JSON ? "json" : "text";
}

enum ha_status ha_report_format_parse(const char *text,
                                      enum ha_report_format *out)
{
	if (!text || !out)
		return HA_EINVAL;
	if (strcmp(text, "text") == 0)
		*out = HA_FORMAT_TEXT;
	else if (strcmp(text, "yaml") == 0)
		*out = HA_FORMAT_YAML;
	else if (strcmp(text, "json") == 0)
		*out = HA_FORMAT_JSON;
	else
		return HA_EINVAL;
	return HA_OK;
}
