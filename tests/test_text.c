/* Text shown on a terminal (text.h): which characters are unsafe, and
 * the safe copy. */
#include <criterion/criterion.h>
#include <string.h>

#include <headalloc/headalloc.h>
#include "base/text.h"

Test(text, finds_each_kind_of_unsafe_character)
{
	const struct {
		const char *s;
		size_t at, width;
	} cases[] = {
		{"plain", 5, 0},
		{"a\x1b[31m", 1, 1},        /* ESC, C0 */
		{"\x7f", 0, 1},             /* DEL */
		{"ab\xc2\x9b" "31m", 2, 2}, /* U+009B CSI, C1 */
		{"\xc2\x80", 0, 2},         /* U+0080, first C1 */
		{"\xc2\xa0", 2, 0},         /* U+00A0 no-break space: shown */
		{"x\xe2\x80\xae", 1, 3},    /* U+202E right-to-left override */
		{"\xe2\x81\xa9", 0, 3},     /* U+2069 pop directional isolate */
		{"\xe2\x80\xa9", 3, 0},     /* U+2029 paragraph separator: not
		                               a control to a terminal */
		{"\xc3\xa9t\xc3\xa9", 5, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t w = 99;
		size_t at = ha_text_unsafe_at(cases[i].s, strlen(cases[i].s), &w);
		cr_expect_eq(at, cases[i].at, "case %zu: at %zu", i, at);
		cr_expect_eq(w, cases[i].width, "case %zu: width %zu", i, w);
	}
	/* a NUL inside the length counts */
	cr_expect_eq(ha_text_unsafe_at("a\0b", 3, NULL), 1);
}

Test(text, safe_copies_replace_and_never_cut_a_character)
{
	char buf[16];
	cr_expect_str_eq(ha_text_safe("a\x1b[1m\xc2\x9b" "b", buf, sizeof buf),
	                 "a?[1m?b");
	cr_expect_str_eq(ha_text_safe("\xe2\x80\xaeok", buf, sizeof buf), "?ok");
	/* 5 bytes of room: "ab" and one 2-byte character fit, the next
	 * does not and is not cut */
	cr_expect_str_eq(ha_text_safe("ab\xc3\xa9\xc3\xa9", buf, 5), "ab\xc3\xa9");
	cr_expect_str_eq(ha_text_safe("ab\xc3\xa9\xc3\xa9", buf, 4), "ab");
	cr_expect_str_eq(ha_text_safe("abc", buf, 1), "");
}
