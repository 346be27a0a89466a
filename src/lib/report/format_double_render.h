/* format_double.c's digits and their rendering in registers, where bytes
 * are stored low first (included by format_double.c only).
 *
 * Writing the 17 digits to a scratch buffer and copying runs of them on
 * (at an offset, around the point) read bytes just written by other
 * stores, which the processor cannot forward to a wider load: each such
 * copy waited for the stores to reach the cache (perf: a third of the
 * formatter's cycles).  Here the text is a 24-byte little-endian number
 * in three words, byte k the k-th character: the digits are shifted and
 * masked into place, the point and the zeros OR-ed in, and the three
 * words stored once.  ALWAYS_INLINE is format_double.c's. */
#ifndef HEADALLOC_FORMAT_DOUBLE_RENDER_H
#define HEADALLOC_FORMAT_DOUBLE_RENDER_H

#include <stdint.h>
#include <string.h>

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

#endif
