/* An exact "%.{15,16,17}g" for doubles, without snprintf or strtod.
 *
 * A finite nonzero double is v = m 2^e (m < 2^53, the IEEE significand).
 * With x = floor(log10 v) and n = 16 - x, the scaled value
 *
 *     S = v 10^n,  10^16 <= S < 2 10^17,
 *
 * holds the 17 leading digits of v in its integer part (18 when
 * S >= 10^17: then the leading digit sits one place higher).  The
 * correctly rounded P-digit decimal is S rounded to a multiple of 10^j
 * (j = 17 - P, plus one when S >= 10^17), exact ties to even as glibc's
 * printf rounds them.  That decimal reads back as v under strtod (which
 * rounds to nearest, ties to even) when it lies inside v's rounding
 * interval: within H = 2^(e-1) 10^n (half an ulp, scaled like S) above S,
 * and within H below (H/2 when v is a power of two above the subnormals,
 * whose lower neighbour is half as far); a decimal exactly on the
 * boundary reads back as v when m is even.
 *
 * S and H are computed in 64.64 fixed point from a 128-bit approximation
 * of 5^n, correct to within a few units of 2^-64 (see TOLERANCE).  Each
 * decision -- is S above or below the midpoint of two decimals, is a
 * decimal inside the interval -- is taken from the fixed-point values when
 * they clear the decision point by more than their error, which is all but
 * never false for a value that is not on the point exactly; otherwise
 * (exact ties, and decimals exactly on a boundary, e.g. 1234567890123456.5
 * at 16 digits) it is settled with big integers. */
#include <stdint.h>
#include <string.h>

#include "format_double.h"


struct u128 {
	uint64_t hi, lo;
};

/* The portable product is compiled into the tests too (HA_FD_PORTABLE_MUL),
 * so that both are checked. */
#if defined(__SIZEOF_INT128__) && !defined(HA_FD_PORTABLE_MUL)
__extension__ typedef unsigned __int128 wide_t;

static struct u128 mul64(uint64_t a, uint64_t b)
{
	wide_t p = (wide_t)a * b;
	struct u128 r = {(uint64_t)(p >> 64), (uint64_t)p};
	return r;
}
#else
static struct u128 mul64(uint64_t a, uint64_t b)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	struct u128 r = {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32),
	                 (mid << 32) | (uint32_t)p00};
	return r;
}
#endif

static int u128_less(struct u128 a, struct u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static struct u128 u128_sub(struct u128 a, struct u128 b)
{
	struct u128 r = {a.hi - b.hi - (a.lo < b.lo), a.lo - b.lo};
	return r;
}

/* a >> s for 0 < s < 128. */
static struct u128 u128_shr(struct u128 a, unsigned s)
{
	struct u128 r;
	if (s >= 64) {
		r.hi = 0;
		r.lo = a.hi >> (s - 64);
	} else {
		r.hi = a.hi >> s;
		r.lo = (a.lo >> s) | (a.hi << (64 - s));
	}
	return r;
}

static unsigned leading_zeros(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
	return (unsigned)__builtin_clzll(x);
#else
	unsigned n = 0;
	while (!(x >> 63)) {
		x <<= 1;
		n++;
	}
	return n;
#endif
}

/* The fixed-point S and H are each within 2 units (2^-64) of the exact
 * values (the 5^n mantissa is within 1 part in 2^127, the shift drops
 * under one unit), so any difference of two of them within 4 units;
 * 32 leaves room and still sends only one value in ~2^58 to the big
 * integers by chance. */
#define TOLERANCE 32

/* -1 or +1 when a is below or above b by more than the tolerance, 0 when
 * they are too close to tell. */
static int compare_fixed(struct u128 a, struct u128 b)
{
	if (u128_less(a, b)) {
		struct u128 d = u128_sub(b, a);
		return d.hi || d.lo > TOLERANCE ? -1 : 0;
	}
	struct u128 d = u128_sub(a, b);
	return d.hi || d.lo > TOLERANCE ? 1 : 0;
}

static const uint64_t pow10_table[18] = {
	UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000),
	UINT64_C(10000), UINT64_C(100000), UINT64_C(1000000),
	UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
	UINT64_C(10000000000), UINT64_C(100000000000),
	UINT64_C(1000000000000), UINT64_C(10000000000000),
	UINT64_C(100000000000000), UINT64_C(1000000000000000),
	UINT64_C(10000000000000000), UINT64_C(100000000000000000),
};

#include "format_double_pow5.h"

/* 5^n for POW5_LOW <= n < POW5_LOW + POW5_COUNT as m 2^exp2, m in
 * [2^127, 2^128) below 5^n by under one unit (one table entry: a lookup,
 * not a product; the tests recompute every entry with exact integers). */
static struct u128 pow5_approx(int n, int *exp2)
{
	const struct pow5_entry *t = &pow5_table[n - POW5_LOW];
	struct u128 m = {t->hi, t->lo};
	*exp2 = t->exp2;
	return m;
}

#include "format_double_big.h"

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FD_LITTLE_ENDIAN 1
#include "format_double_render.h"
#else
#define FD_LITTLE_ENDIAN 0
#endif

/* One double, scaled. */
struct scaled {
	uint64_t m;       /* v = m 2^e */
	int e;
	int lower_closer; /* a power of two above the subnormals */
	int n;            /* S = v 10^n */
	int shift;        /* 1 when S >= 10^17 */
	struct u128 s, h; /* S and H in 64.64 fixed point */
	int exact;        /* every decision with big integers */
};

static ALWAYS_INLINE void scale(struct scaled *c, uint64_t m, int e)
{
	c->m = m;
	c->e = e;
	unsigned sm = leading_zeros(m);
	int log2v = e + 63 - (int)sm;
	/* floor(log2v log10(2)), exact for |log2v| <= 1650 (checked for
	 * every double exponent by the tests' powers of two). */
	int x = log2v >= 0 ? (log2v * 78913) >> 18
	                   : -((-log2v * 78913 + (1 << 18) - 1) >> 18);
	c->n = 16 - x;
	int p2;
	struct u128 p5 = pow5_approx(c->n, &p2);
	/* S 2^64 = (m 2^sm) p5 2^(e - sm + p2 + n + 64), the product of 192
	 * bits between 2^190 and 2^192, S 2^64 below 2^122. */
	uint64_t mm = m << sm;
	struct u128 low = mul64(p5.lo, mm), high = mul64(p5.hi, mm);
	uint64_t r1 = low.hi + high.lo;
	struct u128 top = {high.hi + (r1 < low.hi), r1};
	int down = -(e - (int)sm + p2 + c->n + 64) - 64; /* 4..11 */
	c->s = u128_shr(top, (unsigned)down);
	/* H 2^64 = p5 2^(p2 + e - 1 + n + 64), between 2^63 and 2^121. */
	c->h = u128_shr(p5, (unsigned)-(p2 + e - 1 + c->n + 64));
	c->shift = c->s.hi >= UINT64_C(100000000000000000);
}

/* v / 10^j for j <= 17; the shortest formats' j <= 3 by constants the
 * compiler turns into products. */
static uint64_t divide_pow10(uint64_t v, int j)
{
	switch (j) {
	case 0:
		return v;
	case 1:
		return v / 10;
	case 2:
		return v / 100;
	case 3:
		return v / 1000;
	default:
		return v / pow10_table[j];
	}
}

/* S rounded to a multiple of 10^j (0 <= j <= 17), divided by 10^j. */
static uint64_t round_scaled(const struct scaled *c, int j)
{
	uint64_t unit = pow10_table[j];
	uint64_t q = divide_pow10(c->s.hi, j);
	struct u128 rest = {c->s.hi - q * unit, c->s.lo};
	struct u128 half = {unit / 2, j ? 0 : UINT64_C(1) << 63};
	int side = c->exact ? 0 : compare_fixed(rest, half);
	if (side == 0) /* 2S against (2q + 1) 10^j */
		side = compare_exact(c->m, c->n, c->e + c->n + 1, 2 * q + 1, j, j);
	return q + (side > 0 || (side == 0 && (q & 1)));
}

/* Does the decimal d 10^(j - n) read back as v? */
static int reads_back(const struct scaled *c, uint64_t d, int j)
{
	int even = !(c->m & 1), k = j - c->n;
	struct u128 decimal = {d * pow10_table[j], 0};
	int above = !u128_less(decimal, c->s);
	if (!c->exact) {
		struct u128 reach = c->h;
		if (!above && c->lower_closer)
			reach = u128_shr(reach, 1);
		int side = compare_fixed(above ? u128_sub(decimal, c->s)
		                               : u128_sub(c->s, decimal),
		                         reach);
		if (side)
			return side < 0;
	}
	/* Against v's upper and lower boundaries, (2m + 1) 2^(e-1) and
	 * (2m - 1) 2^(e-1) or (4m - 1) 2^(e-2). */
	int up = compare_exact(d, k, k, 2 * c->m + 1, 0, c->e - 1);
	int low = c->lower_closer
	                  ? compare_exact(d, k, k, 4 * c->m - 1, 0, c->e - 2)
	                  : compare_exact(d, k, k, 2 * c->m - 1, 0, c->e - 1);
	return (up < 0 || (up == 0 && even)) && (low > 0 || (low == 0 && even));
}

/* The fast path: the decisions of round_scaled and reads_back (exact == 0)
 * from the fixed-point values alone, for a unit the compiler knows (so
 * that its divisions are products); a decision too close to tell sets
 * *unsure, and the caller then takes round_scaled and reads_back.  near()
 * is compare_fixed's "0" for the signed 128-bit difference hi:lo (and
 * for -2^64 too, which only sends a value the slow way). */
static ALWAYS_INLINE int near(uint64_t hi, uint64_t lo)
{
	if (hi + 1 > 1) /* hi is neither 0 nor -1: far, the common case */
		return 0;
	return hi == 0 ? lo <= TOLERANCE : 0 - lo <= TOLERANCE;
}

static ALWAYS_INLINE uint64_t fast_round(const struct scaled *c, uint64_t unit,
                                         int *unsure)
{
	uint64_t q = c->s.hi / unit;
	uint64_t half_lo = unit == 1 ? UINT64_C(1) << 63 : 0;
	/* rest - half, rest = S - q unit, half = unit / 2 */
	uint64_t lo = c->s.lo - half_lo;
	uint64_t hi = c->s.hi - q * unit - unit / 2 - (c->s.lo < half_lo);
	*unsure |= near(hi, lo);
	return q + ((int64_t)hi >= 0);
}

static ALWAYS_INLINE int fast_reads_back(const struct scaled *c, uint64_t d,
                                         uint64_t unit, int *unsure)
{
	uint64_t decimal = d * unit; /* the decimal's S, its fraction 0 */
	struct u128 dist, reach = c->h;
	if (decimal > c->s.hi || (decimal == c->s.hi && c->s.lo == 0)) {
		dist.hi = decimal - c->s.hi - (c->s.lo != 0);
		dist.lo = 0 - c->s.lo;
	} else {
		dist.hi = c->s.hi - decimal;
		dist.lo = c->s.lo;
		if (c->lower_closer)
			reach = u128_shr(reach, 1);
	}
	/* dist - reach: below it reads back */
	uint64_t lo = dist.lo - reach.lo;
	uint64_t hi = dist.hi - reach.hi - (dist.lo < reach.lo);
	*unsure |= near(hi, lo);
	return (int64_t)hi < 0;
}

/* format_dotted's choice of 15, 16 or 17 digits for S of unit16 = 10^j16;
 * 0 when a decision is too close to tell. */
static ALWAYS_INLINE int fast_digits(const struct scaled *c, uint64_t unit16,
                                     uint64_t *d)
{
	int unsure = 0, digits = 16;
	*d = fast_round(c, unit16, &unsure);
	if (!fast_reads_back(c, *d, unit16, &unsure)) {
		*d = fast_round(c, unit16 / 10, &unsure);
		digits = 17;
	} else {
		uint64_t d15 = fast_round(c, unit16 * 10, &unsure);
		if (fast_reads_back(c, d15, unit16 * 10, &unsure)) {
			*d = d15;
			digits = 15;
		}
	}
	return unsure ? 0 : digits;
}

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The 8 digits of y < 10^8, zero-padded.  Where bytes are stored low
 * first, by swar8 (format_double_render.h).  Elsewhere, pairs from a
 * table: f = y 2^32 / 10^6 in 32.32 fixed
 * point; its integer part is the first pair of digits, and each product of
 * its fraction by 100 brings the next pair (f may be up to 4294 units
 * high but never low: the constant's excess, 0.07, times y < 10^8, over
 * 2^24, adds under half a unit, the truncating shift loses under one, the
 * + 1 makes up for it).  The tests check every y. */
static ALWAYS_INLINE void put8(char *p, uint32_t y)
{
#if FD_LITTLE_ENDIAN
	uint64_t x = swar8(y);
	memcpy(p, &x, 8);
#else
	/* ceil(2^56 / 10^6); y times it stays below 2^63 */
	uint64_t f = (((uint64_t)y * UINT64_C(72057594038)) >> 24) + 1;
	memcpy(p, digit_pairs + 2 * (f >> 32), 2);
	for (int i = 1; i < 4; i++) {
		f = (f & 0xffffffff) * 100;
		memcpy(p + 2 * i, digit_pairs + 2 * (f >> 32), 2);
	}
#endif
}

size_t ha_fd_format_uint(uint64_t value, char *buf)
{
	if (value >= 100000000) {
		char digits[20];
		size_t n = 0;
		do {
			digits[n++] = (char)('0' + value % 10);
			value /= 10;
		} while (value);
		for (size_t i = 0; i < n; i++)
			buf[i] = digits[n - 1 - i];
		return n;
	}
	if (value < 10000) { /* the common case: a head count, a budget */
		char text[8];
		memcpy(text, digit_pairs + 2 * (value / 100), 2);
		memcpy(text + 2, digit_pairs + 2 * (value % 100), 2);
		unsigned n = 1 + (value >= 10) + (value >= 100) + (value >= 1000);
		memcpy(buf, text + 4 - n, 4);
		return n;
	}
	/* 8 digits, then the last n of them: n = 1 + floor(log10 value) */
	char text[16] = {0};
	put8(text, (uint32_t)value);
	unsigned bits = 64 - leading_zeros(value | 1);
	unsigned n = (bits * 1233) >> 12; /* floor(log10 2^bits), or one more */
	n += (value | 1) >= pow10_table[n]; /* 0 has one digit */
	memcpy(buf, text + 8 - n, 8);
	return n;
}

/* The 17 digits of d < 10^17, zero-padded. */
static ALWAYS_INLINE void put17(char *p, uint64_t d)
{
	uint64_t high = d / 100000000;
	uint32_t top = (uint32_t)(high / 100000000);
	p[0] = (char)('0' + top);
	put8(p + 1, (uint32_t)(high - (uint64_t)top * 100000000));
	put8(p + 9, (uint32_t)(d - high * 100000000));
}

/* d (`digits` digits, the first nonzero) with leading exponent x, as
 * "%g" prints it with that precision: trailing zeros dropped, the
 * exponent form when x < -4 or x >= digits.  dotted != 0 writes ".0"
 * after a mantissa without a point (before its exponent), as YAML 1.1's
 * floats need.  Runs of digits are copied whole, not a byte at a time. */
static ALWAYS_INLINE char *render(char *out, uint64_t d, int digits, int x, int dotted,
                                   int roomy)
{
#if FD_LITTLE_ENDIAN
	if (roomy)
		return render_in_registers(out, d, digits, x, dotted);
#endif
	/* The digits, then room for the fixed-size copies below to read. */
	char text[17 + 17];
	put17(text, d);
	const char *first = text + 17 - digits;
	int used = digits;
	while (first[used - 1] == '0')
		used--;
	if (x < -4 || x >= digits) {
		*out++ = first[0];
		if (used > 1) {
			*out = '.';
			if (roomy) /* at most 1 + 1 + 16 + 5 bytes of out */
				memcpy(out + 1, first + 1, 16);
			else
				memcpy(out + 1, first + 1, (size_t)(used - 1));
			out += used;
		} else if (dotted) {
			memcpy(out, ".0", 2);
			out += 2;
		}
		*out++ = 'e';
		*out++ = x < 0 ? '-' : '+';
		int ax = x < 0 ? -x : x;
		if (ax >= 100) {
			*out++ = (char)('0' + ax / 100);
			ax %= 100;
		}
		memcpy(out, digit_pairs + 2 * ax, 2);
		return out + 2;
	}
	if (x < 0) {
		/* "0." and -x - 1 zeros (at most 3), then the digits */
		memcpy(out, "0.000", 5);
		out += 1 - x;
		if (roomy) /* out is at most 5 bytes in */
			memcpy(out, first, 17);
		else
			memcpy(out, first, (size_t)used);
		return out + used;
	}
	int whole = x + 1;
	if (used > whole && roomy) {
		/* whole <= 16 and used <= 17 here: copies of fixed size (no call)
		 * into a scratch line, then 24 bytes of it, within the
		 * HA_FD_BUFSIZE bytes of out (after a sign); what lies past
		 * the text's end is the caller's to overwrite. */
		char line[17 + 17];
		memcpy(line, first, 16);
		line[whole] = '.';
		memcpy(line + whole + 1, first + whole, 16);
		memcpy(out, line, 24);
		return out + used + 1;
	}
	if (used > whole) {
		memcpy(out, first, (size_t)whole);
		out[whole] = '.';
		memcpy(out + whole + 1, first + whole, (size_t)(used - whole));
		return out + used + 1;
	}
	memcpy(out, first, (size_t)used);
	memset(out + used, '0', (size_t)(whole - used));
	out += whole;
	if (dotted) {
		memcpy(out, ".0", 2);
		out += 2;
	}
	return out;
}

/* Round to `digits` digits and render; returns the end of the text. */
static ALWAYS_INLINE char *render_rounded(char *out, const struct scaled *c, uint64_t d,
                            int digits, int dotted, int roomy)
{
	int x = 16 - c->n + c->shift;
	if (d == pow10_table[digits]) {
		d /= 10; /* 9.99...5 rounded up to 10.0...: one more decade */
		x++;
	}
	return render(out, d, digits, x, dotted, roomy);
}

/* The general path: the fixed-point decisions, each settled with big
 * integers when too close to tell; exact != 0 takes every decision with
 * big integers: slow, for the tests to check the fixed-point paths
 * against. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static size_t format_general(double value, char *buf, int exact, int dotted)
{
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	char *out = buf;
	if (bits >> 63)
		*out++ = '-';
	unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
	if (biased == 0x7ff) {
		memcpy(out, fraction ? "nan" : "inf", 4);
		return (size_t)(out + 3 - buf);
	}
	if (biased == 0 && fraction == 0) {
		if (dotted) {
			memcpy(out, "0.0", 4);
			return (size_t)(out + 3 - buf);
		}
		memcpy(out, "0", 2);
		return (size_t)(out + 1 - buf);
	}
	struct scaled c;
	c.exact = exact;
	c.lower_closer = fraction == 0 && biased > 1;
	if (biased)
		scale(&c, fraction | UINT64_C(1) << 52, (int)biased - 1075);
	else
		scale(&c, fraction, -1074);

	/* The old snprintf/strtod order: 16 digits; if they read back, 15
	 * when those do too; if not, 17, which always do. */
	int j16 = 1 + c.shift;
	uint64_t d16 = round_scaled(&c, j16);
	if (!reads_back(&c, d16, j16))
		out = render_rounded(out, &c, round_scaled(&c, j16 - 1), 17, dotted, 1);
	else {
		uint64_t d15 = round_scaled(&c, j16 + 1);
		if (reads_back(&c, d15, j16 + 1))
			out = render_rounded(out, &c, d15, 15, dotted, 1);
		else
			out = render_rounded(out, &c, d16, 16, dotted, 1);
	}
	*out = '\0';
	return (size_t)(out - buf);
}

/* format_general's text, by the fast path for a normal double (its
 * scaled value in registers, not in memory for the general path: that
 * one scales again, for the few values whose decisions are too close). */
static size_t format_dotted(double value, char *buf, int exact, int dotted)
{
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
	if (!exact && biased != 0 && biased != 0x7ff) {
		uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1), d;
		struct scaled c;
		c.exact = 0;
		c.lower_closer = fraction == 0 && biased > 1;
		scale(&c, fraction | UINT64_C(1) << 52, (int)biased - 1075);
		int digits = c.shift ? fast_digits(&c, 100, &d) : fast_digits(&c, 10, &d);
		if (digits) {
			char *out = buf;
			if (bits >> 63)
				*out++ = '-';
			out = render_rounded(out, &c, d, digits, dotted, 1);
			*out = '\0';
			return (size_t)(out - buf);
		}
	}
	return format_general(value, buf, exact, dotted);
}

size_t ha_fd_format(double value, char *buf)
{
	return format_dotted(value, buf, 0, 0);
}

size_t ha_fd_format_dotted(double value, char *buf)
{
	return format_dotted(value, buf, 0, 1);
}

/* The sign, and the text of the values without digits; NULL for a
 * finite nonzero value, with *c scaled and out past the sign. */
static char *start(double value, char *buf, struct scaled *c, char **out,
                   size_t *length)
{
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	*out = buf;
	if (bits >> 63)
		*(*out)++ = '-';
	unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
	if (biased == 0x7ff) {
		memcpy(*out, fraction ? "nan" : "inf", 4);
		*length = (size_t)(*out + 3 - buf);
		return buf;
	}
	if (biased == 0 && fraction == 0) {
		memcpy(*out, "0", 2);
		*length = (size_t)(*out + 1 - buf);
		return buf;
	}
	c->exact = 0;
	c->lower_closer = fraction == 0 && biased > 1;
	if (biased)
		scale(c, fraction | UINT64_C(1) << 52, (int)biased - 1075);
	else
		scale(c, fraction, -1074);
	return NULL;
}

size_t ha_fd_format_g(double value, int precision, char *buf)
{
	struct scaled c = {0}; /* set by start() (the compiler may not see it) */
	char *out;
	size_t length;
	if (start(value, buf, &c, &out, &length))
		return length; /* "%g" of 0 is "0", as of inf and nan */
	/* S has 17 digits (18 with shift): round off the last 17 - P. */
	int j = 17 - precision + c.shift;
	out = render_rounded(out, &c, round_scaled(&c, j), precision, 0, 0);
	*out = '\0';
	return (size_t)(out - buf);
}

size_t ha_fd_format_f(double value, int precision, char *buf)
{
	struct scaled c = {0}; /* set by start() (the compiler may not see it) */
	char *out;
	size_t length;
	if (start(value, buf, &c, &out, &length))
		return 0; /* not here: "%f" writes 0.000000 and such */
	/* The unit of the last decimal is 10^-P = 10^(j - n) in S. */
	int j = c.n - precision;
	if (j < 0 || j > 17)
		return 0; /* digits beyond S's, or a value below the last decimal */
	uint64_t q = round_scaled(&c, j);
	uint64_t unit = pow10_table[precision];
	uint64_t whole = q / unit, part = q - whole * unit;
	char digits[20];
	int n = 0;
	do {
		digits[n++] = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole);
	while (n)
		*out++ = digits[--n];
	if (precision > 0) {
		*out++ = '.';
		for (int i = precision - 1; i >= 0; i--) {
			out[i] = (char)('0' + part % 10);
			part /= 10;
		}
		out += precision;
	}
	*out = '\0';
	return (size_t)(out - buf);
}
