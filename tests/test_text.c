/* Text shown on a terminal (text.h): which characters are unsafe, and
 * the safe copy. */
#include <criterion/criterion.h>
#include <iconv.h>
#include <stdint.h>
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

/* The one name rule (ha_name_fault): each fault by name and position. */
Test(text, the_name_rule_names_each_fault)
{
	const struct {
		const char *s;
		size_t len, at;
		const char *fault; /* NULL: a name */
	} cases[] = {
		{"k_proj.weight", 13, 0, NULL},
		{"t\xc3\xaa" "te", 5, 0, NULL},             /* UTF-8 */
		{"", 0, 0, "is empty"},
		{"a\nverdict", 9, 1, "holds a control character"},
		{"a\0b", 3, 1, "holds a NUL byte"},
		{"ab\xc2\x9b", 4, 2, "holds a control character"}, /* C1 */
		{"x\xe2\x80\xae", 4, 1, "holds a bidirectional control character"},
		{"\xe2\x81\xa6", 3, 0, "holds a bidirectional control character"},
		{"a\xe2\x80\x8e", 4, 1, "holds a bidirectional control character"},
		{"a\xe2\x80\x8f", 4, 1, "holds a bidirectional control character"},
		{"ok\xff", 3, 2, "holds bytes that are not UTF-8"},
		{"\xc0\xaf", 2, 0, "holds bytes that are not UTF-8"},   /* overlong */
		{"\xed\xa0\x80", 3, 0, "holds bytes that are not UTF-8"}, /* surrogate */
		{"\xf4\x90\x80\x80", 4, 0, "holds bytes that are not UTF-8"}, /* > U+10FFFF */
		{"ab\xe2\x82", 4, 2, "holds bytes that are not UTF-8"},  /* cut short */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t at = 99;
		const char *f = ha_name_fault(cases[i].s, cases[i].len, &at);
		if (!cases[i].fault) {
			cr_expect_null(f, "case %zu: %s", i, f);
			continue;
		}
		cr_expect(f && strcmp(f, cases[i].fault) == 0, "case %zu: %s", i,
		          f ? f : "(none)");
		cr_expect_eq(at, cases[i].at, "case %zu: at %zu", i, at);
	}
	char longest[HA_NAME_MAX_BYTES + 1];
	memset(longest, 'a', sizeof longest);
	cr_expect_null(ha_name_fault(longest, HA_NAME_MAX_BYTES, NULL));
	cr_expect_str_eq(ha_name_fault(longest, HA_NAME_MAX_BYTES + 1, NULL),
	                 "is longer than 1024 bytes");
}

/* Its UTF-8 check against glibc's decoder (iconv to UTF-32), on random
 * strings of printable ASCII and high bytes other than the lead bytes of
 * the C1 controls (C2) and of the bidirectional characters (E2): there
 * the only fault can be bytes that are not UTF-8. */
Test(text, the_name_rule_reads_utf8_as_iconv_does)
{
	iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
	cr_assert_neq(cd, (iconv_t)-1);
	uint64_t state = 12345;
	size_t valid = 0, invalid = 0;
	for (int trial = 0; trial < 200000; trial++) {
		char s[8];
		size_t len = 1 + trial % 7;
		for (size_t i = 0; i < len; i++) {
			state = state * 6364136223846793005u + 1442695040888963407u;
			unsigned b = (unsigned)(state >> 56);
			if (b < 0x80)
				b = 0x20 + b % 0x5f; /* printable ASCII */
			if (b == 0xc2 || b == 0xe2)
				b = 'x';
			s[i] = (char)b;
		}
		char out[64], *in = s, *o = out;
		size_t inleft = len, outleft = sizeof out;
		iconv(cd, NULL, NULL, NULL, NULL);
		int ok = iconv(cd, &in, &inleft, &o, &outleft) != (size_t)-1 &&
		         inleft == 0;
		const char *f = ha_name_fault(s, len, NULL);
		cr_assert_eq(f == NULL, ok, "trial %d: %s, iconv %s", trial,
		             f ? f : "a name", ok ? "accepts" : "refuses");
		if (f)
			cr_assert_str_eq(f, "holds bytes that are not UTF-8");
		valid += ok;
		invalid += !ok;
	}
	iconv_close(cd);
	cr_expect_gt(valid, 1000);
	cr_expect_gt(invalid, 1000);
}
