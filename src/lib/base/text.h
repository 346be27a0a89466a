/* headalloc — text that is shown on a terminal: names read from files
 * (scenario model names, tensor names) and values echoed in messages.
 *
 * One rule for every reader: a character that a terminal acts on instead
 * of showing, or that reorders what is shown, has no place in a name.
 * Those are the C0 controls U+0000..U+001F, DEL U+007F, the C1 controls
 * U+0080..U+009F (UTF-8 C2 80..C2 9F: U+009B is a one-character escape
 * sequence to many terminals), and the bidirectional overrides and
 * isolates U+202A..U+202E and U+2066..U+2069 and the marks U+200E and
 * U+200F.  Readers refuse names with them (ha_name_fault); messages show
 * them as '?'. */
#ifndef HEADALLOC_INTERNAL_TEXT_H
#define HEADALLOC_INTERNAL_TEXT_H

#include <stddef.h>

#include <headalloc/format.h>
#include <headalloc/status.h>

/* The byte offset of the first such character in s[0..len), or len when
 * there is none; *width (when not NULL) is its length in bytes. */
size_t ha_text_unsafe_at(const char *s, size_t len, size_t *width);

/* s with each such character, and each byte that begins no valid UTF-8
 * sequence, replaced by '?', into buf of size > 0 bytes,
 * cut short (never inside a UTF-8 sequence) when it does not fit.
 * Returns buf. */
const char *ha_text_safe(const char *s, char *buf, size_t size);

/* The length of the UTF-8 sequence at p (n > 0 bytes left), or 0 when
 * it is not a valid one: no overlong form, no surrogate, nothing above
 * U+10FFFF (RFC 3629). */
size_t ha_utf8_length(const unsigned char *p, size_t n);

/* The longest name, in bytes. */
#define HA_NAME_MAX_BYTES ((size_t)1024)

/* The one rule for a name that reaches a report or a message: a tensor's
 * name from any weights format, a law's, a model's, a column's.  A name
 * is 1 to HA_NAME_MAX_BYTES bytes of valid UTF-8 (no overlong form, no
 * surrogate, nothing above U+10FFFF) holding none of the characters
 * above (so no NUL).  NULL when s[0..len) is a name; otherwise what is
 * wrong with it, as words that follow the name in a message ("holds a
 * control character"), and *at (when not NULL) the byte offset of the
 * fault. */
const char *ha_name_fault(const char *s, size_t len, size_t *at);

/* The names of the report formats, which the CLI and scenario files
 * write: "text", "yaml" or "json" (never NULL); parsed exactly
 * (HA_EINVAL, *out untouched, for anything else or a NULL argument). */
const char *ha_report_format_str(enum ha_report_format format);
enum ha_status ha_report_format_parse(const char *text,
                                      enum ha_report_format *out);

#endif
