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
#include <pthread.h>
#include <stdatomic.h>
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

/* The exact decisions: the sign of a 5^a5 2^a2 - c 5^c5 2^c2 with big
 * integers, for the values the fixed-point path cannot tell apart (exact
 * ties, decimals on a rounding-interval boundary) and for the tests'
 * all-exact mode; and the table of 5^n, computed with them. */

/* 5^b, 0 <= b < 28. */
static const uint64_t pow5_small[28] = {
	UINT64_C(1), UINT64_C(5), UINT64_C(25), UINT64_C(125), UINT64_C(625),
	UINT64_C(3125), UINT64_C(15625), UINT64_C(78125), UINT64_C(390625),
	UINT64_C(1953125), UINT64_C(9765625), UINT64_C(48828125),
	UINT64_C(244140625), UINT64_C(1220703125), UINT64_C(6103515625),
	UINT64_C(30517578125), UINT64_C(152587890625), UINT64_C(762939453125),
	UINT64_C(3814697265625), UINT64_C(19073486328125),
	UINT64_C(95367431640625), UINT64_C(476837158203125),
	UINT64_C(2384185791015625), UINT64_C(11920928955078125),
	UINT64_C(59604644775390625), UINT64_C(298023223876953125),
	UINT64_C(1490116119384765625), UINT64_C(7450580596923828125),
};

/* Big integers for the exact decisions: at most ~850 bits occur (the
 * bound comes from the extreme doubles: 2^-1074 compares 5^337 times a
 * 55-bit number with 2^739 times a 58-bit one). */
enum { BIG_LIMBS = 40 };

struct big {
	int n; /* limbs in use, the top one nonzero */
	uint32_t w[BIG_LIMBS];
};

static void big_set(struct big *b, uint64_t v)
{
	b->w[0] = (uint32_t)v;
	b->w[1] = (uint32_t)(v >> 32);
	b->n = v >> 32 ? 2 : v ? 1 : 0;
}

static void big_mul32(struct big *b, uint32_t f)
{
	uint64_t carry = 0;
	for (int i = 0; i < b->n; i++) {
		uint64_t t = (uint64_t)b->w[i] * f + carry;
		b->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry)
		b->w[b->n++] = (uint32_t)carry;
}

static void big_mul_pow5(struct big *b, int k)
{
	for (; k >= 13; k -= 13)
		big_mul32(b, (uint32_t)pow5_small[13]);
	if (k)
		big_mul32(b, (uint32_t)pow5_small[k]);
}

static void big_shl(struct big *b, int k)
{
	int limbs = k / 32, bits = k % 32;
	if (b->n == 0)
		return;
	if (bits) {
		uint32_t out = b->w[b->n - 1] >> (32 - bits);
		for (int i = b->n - 1; i > 0; i--)
			b->w[i] = (b->w[i] << bits) | (b->w[i - 1] >> (32 - bits));
		b->w[0] <<= bits;
		if (out)
			b->w[b->n++] = out;
	}
	if (limbs) {
		memmove(b->w + limbs, b->w, (size_t)b->n * sizeof *b->w);
		memset(b->w, 0, (size_t)limbs * sizeof *b->w);
		b->n += limbs;
	}
}

/* The sign of a 5^a5 2^a2 - c 5^c5 2^c2. */
static int compare_exact(uint64_t a, int a5, int a2, uint64_t c, int c5, int c2)
{
	struct big left, right;
	big_set(&left, a);
	big_set(&right, c);
	if (a5 > c5)
		big_mul_pow5(&left, a5 - c5);
	else
		big_mul_pow5(&right, c5 - a5);
	if (a2 > c2)
		big_shl(&left, a2 - c2);
	else
		big_shl(&right, c2 - a2);
	if (left.n != right.n)
		return left.n > right.n ? 1 : -1;
	for (int i = left.n - 1; i >= 0; i--)
		if (left.w[i] != right.w[i])
			return left.w[i] > right.w[i] ? 1 : -1;
	return 0;
}

/* Big integer b / 5, rounded down. */
static void big_div5(struct big *b)
{
	uint64_t rest = 0;
	for (int i = b->n - 1; i >= 0; i--) {
		uint64_t t = rest << 32 | b->w[i];
		b->w[i] = (uint32_t)(t / 5);
		rest = t % 5;
	}
	while (b->n && b->w[b->n - 1] == 0)
		b->n--;
}

/* Bits [from, from + 64) of b. */
static uint64_t big_window(const struct big *b, int from)
{
	int limb = from / 32, bit = from % 32;
	uint64_t w[3];
	for (int i = 0; i < 3; i++)
		w[i] = limb + i < b->n ? b->w[limb + i] : 0;
	uint64_t low = w[0] | w[1] << 32;
	return bit ? low >> bit | w[2] << (64 - bit) : low;
}

/* 5^n for the exponents scale() asks for, POW5_LOW <= n < POW5_LOW +
 * POW5_COUNT, as floor(5^n 2^-exp2) with the mantissa in [2^127, 2^128):
 * exact where 5^n has at most 128 bits, below 5^n by under one unit
 * elsewhere.  Computed once, at first use, from exact integers (the tests
 * recompute every entry with their own). */
enum { POW5_LOW = -292, POW5_COUNT = 633 };

static struct pow5_entry {
	uint64_t hi, lo;
	int exp2;
} pow5_table[POW5_COUNT];
static atomic_int pow5_ready;

/* The entry of 5^n from b = 5^n 2^shift rounded down, b of at least 128
 * bits: its top 128 bits (a floor of a floor is the floor). */
static void pow5_set(int n, const struct big *b, int shift)
{
	int length = 32 * b->n - (int)leading_zeros(b->w[b->n - 1]) + 32;
	struct pow5_entry *t = &pow5_table[n - POW5_LOW];
	t->hi = big_window(b, length - 64);
	t->lo = big_window(b, length - 128);
	t->exp2 = length - 128 - shift;
}

static void pow5_fill(void)
{
	/* 5^n 2^128 upwards from n = 0; 2^1248 / 5^m downwards (5^292 has
	 * 679 bits: the quotients keep more than 128) */
	struct big b;
	big_set(&b, 1);
	big_shl(&b, 128);
	for (int n = 0; n < POW5_LOW + POW5_COUNT; n++) {
		pow5_set(n, &b, 128);
		big_mul32(&b, 5);
	}
	big_set(&b, 1);
	big_shl(&b, 32 * (BIG_LIMBS - 1));
	for (int n = -1; n >= POW5_LOW; n--) {
		big_div5(&b);
		pow5_set(n, &b, 32 * (BIG_LIMBS - 1));
	}
	atomic_store_explicit(&pow5_ready, 1, memory_order_release);
}

/* 5^n as m 2^exp2, m the table's mantissa (a lookup, not a product). */
static struct u128 pow5_approx(int n, int *exp2)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (!atomic_load_explicit(&pow5_ready, memory_order_acquire))
		pthread_once(&once, pow5_fill);
	const struct pow5_entry *t = &pow5_table[n - POW5_LOW];
	struct u128 m = {t->hi, t->lo};
	*exp2 = t->exp2;
	return m;
}

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FD_LITTLE_ENDIAN 1

/* format_double.c's digits and their rendering in registers, where bytes
 * are stored low first.
 *
 * Writing the 17 digits to a scratch buffer and copying runs of them on
 * (at an offset, around the point) read bytes just written by other
 * stores, which the processor cannot forward to a wider load: each such
 * copy waited for the stores to reach the cache (perf: a third of the
 * formatter's cycles).  Here the text is a 24-byte little-endian number
 * in three words, byte k the k-th character: the digits are shifted and
 * masked into place, the point and the zeros OR-ed in, and the three
 * words stored once. */
/* The 8 digits of y < 10^8, zero-padded, the first in the low byte: in
 * SWAR steps, each lane a number at most 9999, then 99, then 9: 4 + 4
 * digits in the two 32-bit halves, each split by 100 (a / 100 is a 10486
 * / 2^20 for a < 10^4) into 2-digit lanes of 16 bits, each split by 10
 * (b / 10 is b 103 / 2^10 for b < 100) into one digit a byte.  A lane's
 * product spills into the lane below only above the bits the mask keeps.
 * The tests check every y. */
static ALWAYS_INLINE uint64_t swar8(uint32_t y)
{
	uint64_t high = y / 10000;
	uint64_t x = high | (y - high * 10000) << 32;
	uint64_t t = ((x * 10486) >> 20) & UINT64_C(0x0000007f0000007f);
	x = t | (x - t * 100) << 16;
	t = ((x * 103) >> 10) & UINT64_C(0x000f000f000f000f);
	return (t | (x - t * 10) << 8) | UINT64_C(0x3030303030303030);
}

/* 24 bytes of text, byte k of w[k / 8] at bits 8 (k % 8). */
struct text24 {
	uint64_t w[3];
};

/* Bytes [0, n) of all ones, 0 <= n <= 24. */
static ALWAYS_INLINE uint64_t word_low(int bytes)
{
	return bytes >= 8 ? ~UINT64_C(0) : bytes <= 0 ? 0 : (UINT64_C(1) << (8 * bytes)) - 1;
}

static ALWAYS_INLINE struct text24 t24_low(int n)
{
	struct text24 m = {{word_low(n), word_low(n - 8), word_low(n - 16)}};
	return m;
}

/* t moved k bytes up (0 <= k < 8), the top bytes dropped. */
static ALWAYS_INLINE struct text24 t24_up(struct text24 t, int k)
{
	if (k == 0)
		return t;
	int s = 8 * k;
	struct text24 r = {{t.w[0] << s, t.w[1] << s | t.w[0] >> (64 - s),
	                    t.w[2] << s | t.w[1] >> (64 - s)}};
	return r;
}

/* t moved k bytes down (0 <= k < 8), zeros coming in at the top. */
static ALWAYS_INLINE struct text24 t24_down(struct text24 t, int k)
{
	if (k == 0)
		return t;
	int s = 8 * k;
	struct text24 r = {{t.w[0] >> s | t.w[1] << (64 - s),
	                    t.w[1] >> s | t.w[2] << (64 - s), t.w[2] >> s}};
	return r;
}

static ALWAYS_INLINE struct text24 t24_and(struct text24 a, struct text24 b)
{
	struct text24 r = {{a.w[0] & b.w[0], a.w[1] & b.w[1], a.w[2] & b.w[2]}};
	return r;
}

static ALWAYS_INLINE struct text24 t24_or(struct text24 a, struct text24 b)
{
	struct text24 r = {{a.w[0] | b.w[0], a.w[1] | b.w[1], a.w[2] | b.w[2]}};
	return r;
}

static ALWAYS_INLINE struct text24 t24_not(struct text24 a)
{
	struct text24 r = {{~a.w[0], ~a.w[1], ~a.w[2]}};
	return r;
}

/* The byte c at position k (0 <= k < 24). */
static ALWAYS_INLINE struct text24 t24_byte(unsigned char c, int k)
{
	uint64_t v = (uint64_t)c << (8 * (k % 8));
	struct text24 r = {{k < 8 ? v : 0, k >= 8 && k < 16 ? v : 0, k >= 16 ? v : 0}};
	return r;
}

/* Word by word from registers (one copy of the struct would go through
 * the stack, and a wide load of it wait for the stores). */
static ALWAYS_INLINE void t24_store(char *out, struct text24 t)
{
	uint64_t w0 = t.w[0], w1 = t.w[1], w2 = t.w[2];
	memcpy(out, &w0, 8);
	memcpy(out + 8, &w1, 8);
	memcpy(out + 16, &w2, 8);
}

/* The text of d < 10^17 zero-padded to 17 digits, the rest zero. */
static ALWAYS_INLINE struct text24 t24_digits17(uint64_t d)
{
	uint64_t high = d / 100000000;
	uint32_t top = (uint32_t)(high / 100000000);
	uint64_t w0 = swar8((uint32_t)(high - (uint64_t)top * 100000000));
	uint64_t w1 = swar8((uint32_t)(d - high * 100000000));
	struct text24 t = {{(uint64_t)('0' + top) | w0 << 8, w0 >> 56 | w1 << 8, w1 >> 56}};
	return t;
}

/* render()'s text for out with room for 24 bytes written: d (`digits`
 * digits, the first nonzero; d < 10^digits), leading exponent x.  The
 * same bytes as render() up to the returned end; past it, what the
 * caller overwrites. */
static ALWAYS_INLINE char *render_in_registers(char *out, uint64_t d, int digits, int x,
                                        int dotted)
{
	/* the digits from the first, `used` of them after trailing zeros */
	struct text24 text = t24_down(t24_digits17(d), 17 - digits);
	int used = digits;
	for (uint64_t rest = d; rest % 10 == 0 && used > 1; rest /= 10)
		used--;
	text = t24_and(text, t24_low(used));
	if (x < -4 || x >= digits) {
		/* d.ddd then the exponent */
		int whole = 1;
		if (used > 1 || dotted) {
			struct text24 tail = used > 1 ? t24_and(t24_up(text, 1), t24_not(t24_low(2)))
			                              : t24_byte('0', 2);
			text = t24_or(t24_or(t24_and(text, t24_low(whole)), t24_byte('.', whole)), tail);
			t24_store(out, text);
			out += used > 1 ? used + 1 : 3;
		} else {
			t24_store(out, text);
			out += 1;
		}
		*out++ = 'e';
		*out++ = x < 0 ? '-' : '+';
		int ax = x < 0 ? -x : x;
		if (ax >= 100) {
			*out++ = (char)('0' + ax / 100);
			ax %= 100;
		}
		out[0] = (char)('0' + ax / 10);
		out[1] = (char)('0' + ax % 10);
		return out + 2;
	}
	if (x < 0) {
		/* "0." and -x - 1 zeros (at most 3), then the digits */
		int lead = 1 - x;
		struct text24 zeros = t24_and((struct text24){{UINT64_C(0x3030303030303030), 0, 0}},
		                              t24_low(lead));
		zeros = t24_or(t24_and(zeros, t24_not(t24_byte(0xff, 1))), t24_byte('.', 1));
		t24_store(out, t24_or(zeros, t24_up(text, lead)));
		return out + lead + used;
	}
	int whole = x + 1;
	if (used > whole) {
		struct text24 tail = t24_and(t24_up(text, 1), t24_not(t24_low(whole + 1)));
		t24_store(out, t24_or(t24_or(t24_and(text, t24_low(whole)),
		                             t24_byte('.', whole)), tail));
		return out + used + 1;
	}
	/* an integer: the zeros up to the point, then ".0" when dotted */
	struct text24 pad = t24_and(t24_and(t24_low(whole), t24_not(t24_low(used))),
	                            (struct text24){{UINT64_C(0x3030303030303030),
	                                             UINT64_C(0x3030303030303030),
	                                             UINT64_C(0x3030303030303030)}});
	text = t24_or(text, pad);
	if (dotted)
		text = t24_or(text, t24_or(t24_byte('.', whole), t24_byte('0', whole + 1)));
	t24_store(out, text);
	return out + whole + (dotted ? 2 : 0);
}
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
 * first, by swar8 (above).  Elsewhere, pairs from a
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
 * floats need.  roomy != 0: out has room for render_in_registers' 24
 * bytes, where bytes are stored low first. */
static ALWAYS_INLINE char *render(char *out, uint64_t d, int digits, int x, int dotted,
                                   int roomy)
{
#if FD_LITTLE_ENDIAN
	if (roomy)
		return render_in_registers(out, d, digits, x, dotted);
#endif
	char text[17];
	put17(text, d);
	const char *first = text + 17 - digits;
	int used = digits;
	while (first[used - 1] == '0')
		used--;
	if (x < -4 || x >= digits) {
		*out++ = first[0];
		if (used > 1) {
			*out = '.';
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
		memcpy(out, first, (size_t)used);
		return out + used;
	}
	int whole = x + 1;
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
/* The sign, and the text of the values without digits ("%g"'s, or with
 * ".0" after a zero when dotted); NULL for a finite nonzero value, with
 * *c scaled (every decision with big integers when exact) and out past
 * the sign. */
static char *start(double value, char *buf, struct scaled *c, char **out,
                   size_t *length, int exact, int dotted)
{
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	*out = buf;
	if (bits >> 63)
		*(*out)++ = '-';
	unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
	if (biased == 0x7ff || (biased == 0 && fraction == 0)) {
		const char *text = biased ? fraction ? "nan" : "inf" : dotted ? "0.0" : "0";
		size_t n = strlen(text);
		memcpy(*out, text, n + 1);
		*length = (size_t)(*out + n - buf);
		return buf;
	}
	c->exact = exact;
	c->lower_closer = fraction == 0 && biased > 1;
	if (biased)
		scale(c, fraction | UINT64_C(1) << 52, (int)biased - 1075);
	else
		scale(c, fraction, -1074);
	return NULL;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static size_t format_general(double value, char *buf, int exact, int dotted)
{
	struct scaled c = {0}; /* set by start() (the compiler may not see it) */
	char *out;
	size_t length;
	if (start(value, buf, &c, &out, &length, exact, dotted))
		return length;
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

size_t ha_fd_format_dotted(double value, char *buf)
{
	return format_dotted(value, buf, 0, 1);
}

size_t ha_fd_format_g(double value, int precision, char *buf)
{
	struct scaled c = {0}; /* set by start() (the compiler may not see it) */
	char *out;
	size_t length;
	if (start(value, buf, &c, &out, &length, 0, 0))
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
	if (start(value, buf, &c, &out, &length, 0, 0))
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
