/* Shared by test_format_double.c (CI) and test_format_double_slow.c (the
 * 10^8-value run): the snprintf/strtod formatter ha_format_double used to
 * be, as the reference; the check of one value against it; random values.
 *
 * The formatter's source is compiled in, so its internals (the exact
 * big-integer path, the 5^n table, the scaling) can be checked directly,
 * and with the portable 64x64 product: the library's own build (with
 * unsigned __int128 where the compiler has it) is checked through
 * ha_format_double. */
#define HA_FD_PORTABLE_MUL
#include "../src/lib/report/format_double.c"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/yaml_writer.h"

/* The %g part of the old ha_format_double, verbatim. */
static void old_g(double value, char buf[32])
{
	snprintf(buf, 32, "%.16g", value);
	if (strtod(buf, NULL) != value) {
		snprintf(buf, 32, "%.17g", value);
	} else {
		char shorter[32];
		snprintf(shorter, sizeof shorter, "%.15g", value);
		if (strtod(shorter, NULL) == value)
			strcpy(buf, shorter);
	}
}

/* The old ha_format_double, verbatim but for the %g part above. */
static char *old_format_double(double value, char buf[32])
{
	if (isnan(value)) {
		strcpy(buf, "nan");
		return buf;
	}
	if (isinf(value)) {
		strcpy(buf, value > 0 ? "inf" : "-inf");
		return buf;
	}
	old_g(value, buf);
	if (!strchr(buf, '.')) {
		char *exponent = strchr(buf, 'e');
		char tail[32] = "";
		if (exponent) {
			strcpy(tail, exponent);
			*exponent = '\0';
		}
		strcat(buf, ".0");
		strcat(buf, tail);
	}
	return buf;
}

/* Check one value: the library's ha_format_double against the old one,
 * the compiled-in formatter (portable product; its fast path and its
 * general path; with exact != 0 also with every decision in big integers)
 * against the old %g, and the text read
 * back by strtod as the same double, sign included.  Returns nothing:
 * the first difference fails the test with the value in hex. */
static void check_value(double v, int exact)
{
	char want[32], got[32];
	old_format_double(v, want);
	ha_format_double(v, got);
	if (strcmp(want, got) != 0)
		cr_assert_fail("%a: ha_format_double gives \"%s\", snprintf/strtod gave \"%s\"",
		               v, got, want);
	if (!isfinite(v))
		return;
	double back = strtod(got, NULL);
	if (back != v || signbit(back) != signbit(v))
		cr_assert_fail("%a: \"%s\" reads back as %a", v, got, back);
	/* The one-pass ".0" form, compiled in (portable product). */
	char got_dotted[32];
	size_t dotted_len = format_dotted(v, got_dotted, 0, 1);
	if (strcmp(want, got_dotted) != 0 || dotted_len != strlen(want))
		cr_assert_fail("%a: format_dotted gives \"%s\", snprintf/strtod gave \"%s\"",
		               v, got_dotted, want);
	char want_g[32], got_g[32];
	old_g(v, want_g);
	size_t len = format_dotted(v, got_g, 0, 0);
	if (strcmp(want_g, got_g) != 0 || len != strlen(want_g))
		cr_assert_fail("%a: the portable product gives \"%s\", %%g gave \"%s\"",
		               v, got_g, want_g);
	format_general(v, got_g, 0, 1); /* what the fast path hands over */
	if (strcmp(want, got_g) != 0)
		cr_assert_fail("%a: the general path gives \"%s\", snprintf/strtod gave \"%s\"",
		               v, got_g, want);
	if (exact) {
		format_dotted(v, got_g, 1, 0);
		if (strcmp(want_g, got_g) != 0)
			cr_assert_fail("%a: the exact path gives \"%s\", %%g gave \"%s\"",
			               v, got_g, want_g);
	}
}

/* xorshift64*: fixed seeds, the same values every run. */
struct rng {
	uint64_t state;
};

static uint64_t next_u64(struct rng *r)
{
	uint64_t x = r->state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return x * UINT64_C(2685821657736338717);
}

static double unit_interval(struct rng *r)
{
	return (double)(next_u64(r) >> 11) / 9007199254740992.0;
}

/* Any bit pattern: every exponent equally likely, NaN and inf included. */
static double random_bits(struct rng *r)
{
	uint64_t bits = next_u64(r);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

/* Values of the kinds a report prints, in turn: probabilities in [0, 1),
 * magnitudes log-uniform over [1e-12, 1e16] (sample counts, errors,
 * dimensions), short decimals (0.001, 2.5: a scenario's inputs),
 * integers below 2^53, and integers above it (as doubles). */
static double random_typical(struct rng *r)
{
	static const double tens[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
	uint64_t kind = next_u64(r) % 5, u = next_u64(r);
	double sign = u & 1 ? -1.0 : 1.0;
	switch (kind) {
	case 0:
		return unit_interval(r);
	case 1:
		return sign * exp(log(1e-12) + unit_interval(r) * (log(1e16) - log(1e-12)));
	case 2:
		return sign * (double)(u % 100000000) / tens[(u >> 40) % 9];
	case 3:
		return (double)(u >> 11);
	default:
		return sign * (double)(u >> (u % 64));
	}
}
