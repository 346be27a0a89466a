/* Text shown on a terminal (see text.h). */
#include <string.h>

#include "base/text.h"

/* The length of the unsafe character at s (len bytes left), or 0. */
static size_t unsafe(const unsigned char *s, size_t len)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (len >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	/* U+202A..U+202E: E2 80 AA..AE; U+2066..U+2069: E2 81 A6..A9 */
	if (len >= 3 && s[0] == 0xe2 &&
	    ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
	     (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 3;
	return 0;
}

size_t ha_text_unsafe_at(const char *s, size_t len, size_t *width)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len; i++) {
		size_t w = unsafe(u + i, len - i);
		if (w) {
			if (width)
				*width = w;
			return i;
		}
	}
	if (width)
		*width = 0;
	return len;
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
		/* a whole UTF-8 sequence, or nothing */
		size_t n = u[i] < 0x80 ? 1 : u[i] >= 0xf0 ? 4 : u[i] >= 0xe0 ? 3 : 2;
		if (n > len - i)
			n = len - i;
		if (out + n >= size)
			break;
		memcpy(buf + out, s + i, n);
		out += n;
		i += n;
	}
	buf[out] = '\0';
	return buf;
}
