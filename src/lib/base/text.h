/* headalloc — text that is shown on a terminal: names read from files
 * (scenario model names, tensor names) and values echoed in messages.
 *
 * One rule for every reader: a character that a terminal acts on instead
 * of showing, or that reorders what is shown, has no place in a name.
 * Those are the C0 controls U+0000..U+001F, DEL U+007F, the C1 controls
 * U+0080..U+009F (UTF-8 C2 80..C2 9F: U+009B is a one-character escape
 * sequence to many terminals), and the bidirectional overrides and
 * isolates U+202A..U+202E and U+2066..U+2069.  Readers refuse names with
 * them; messages show them as '?'. */
#ifndef HEADALLOC_INTERNAL_TEXT_H
#define HEADALLOC_INTERNAL_TEXT_H

#include <stddef.h>

/* The byte offset of the first such character in s[0..len), or len when
 * there is none; *width (when not NULL) is its length in bytes. */
size_t ha_text_unsafe_at(const char *s, size_t len, size_t *width);

/* s with each such character replaced by '?', into buf of size > 0 bytes,
 * cut short (never inside a UTF-8 sequence) when it does not fit.
 * Returns buf. */
const char *ha_text_safe(const char *s, char *buf, size_t size);

#endif
