/* The double formatter's exact decisions (format_double.c, which alone
 * includes this file): the sign of a 5^a5 2^a2 - c 5^c5 2^c2 with big
 * integers, for the values the fixed-point path cannot tell apart (exact
 * ties, decimals on a rounding-interval boundary) and for the tests'
 * all-exact mode. */

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
