/* The double formatter (src/lib/report/format_double.c) against the
 * snprintf/strtod ha_format_double it replaced: byte for byte, on the
 * special values, the edges of every binade and decade, exact rounding
 * ties, decimals exactly on a rounding-interval boundary, and 10^6 random
 * values; and its 5^n table against exact integers.  The 10^8-value run
 * is test_format_double_slow.c (meson test --suite slow). */
#include "test_format_double_common.c"

/* Special values, in both modes. */
Test(format_double, special_values)
{
	uint64_t max_subnormal_bits = (UINT64_C(1) << 52) - 1;
	double max_subnormal;
	memcpy(&max_subnormal, &max_subnormal_bits, sizeof max_subnormal);
	const double values[] = {
		0.0, 5e-324, 1e-323, max_subnormal, DBL_MIN, DBL_MAX, DBL_EPSILON,
		1.0, 0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 100.0, 1e8, 1e15, 1e16,
		1e17, 1e21, 1e22, 1e23, 9007199254740992.0, 9007199254740993.0,
		123456789012345678.0, 0.0001, 0.00001, 0.000123456789012345678,
		3.141592653589793, 2.718281828459045, 1e300, 1.7976931348623157e308, 2.2250738585072009e-308,
		2.2250738585072014e-308, 4.9406564584124654e-324,
	};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		double v = values[i];
		for (int k = 0; k < 2; k++, v = -v) {
			check_value(v, 1);
			check_value(nextafter(v, 0.0), 1);
			check_value(nextafter(v, v < 0 ? -INFINITY : INFINITY), 1);
		}
	}
	check_value(NAN, 1);
	check_value(-NAN, 1);
	check_value(INFINITY, 1);
	check_value(-INFINITY, 1);
	char buf[32];
	cr_assert_str_eq(ha_format_double(-0.0, buf), "-0.0");
	cr_assert_str_eq(ha_format_double(0.0, buf), "0.0");
	cr_assert_str_eq(ha_format_double(5e-324, buf), "4.94065645841247e-324");
	cr_assert_str_eq(ha_format_double(DBL_MAX, buf), "1.7976931348623157e+308");
	cr_assert_str_eq(ha_format_double(1e16, buf), "1.0e+16");
	cr_assert_str_eq(ha_format_double(0.0001, buf), "0.0001");
	cr_assert_str_eq(ha_format_double(0.00001, buf), "1.0e-05");
}

/* 2^e for every exponent, its neighbours, and the ends of each binade:
 * the scaled value must hold 17 or 18 digits there (the decimal exponent
 * estimate from the binary one), and the lower neighbour of a power of
 * two is half as far as the upper one. */
Test(format_double, powers_of_two_and_neighbours)
{
	for (int e = -1074; e <= 1023; e++) {
		double p = ldexp(1.0, e);
		double ends[] = {p, nextafter(2 * p, 0.0)};
		for (int i = 0; i < 2 && isfinite(ends[i]); i++) {
			uint64_t bits;
			memcpy(&bits, &ends[i], sizeof bits);
			unsigned biased = (unsigned)(bits >> 52);
			uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
			struct scaled c;
			c.exact = 0;
			if (biased)
				scale(&c, fraction | UINT64_C(1) << 52, (int)biased - 1075);
			else
				scale(&c, fraction, -1074);
			cr_assert(c.s.hi >= UINT64_C(10000000000000000) &&
			                  c.s.hi < UINT64_C(200000000000000000),
			          "2^%d: scaled to %" PRIu64, e, c.s.hi);
		}
		for (int k = 0; k < 2; k++, p = -p) {
			check_value(p, 1);
			double below = p, above = p;
			for (int step = 0; step < 3; step++) {
				below = nextafter(below, 0.0);
				above = nextafter(above, p < 0 ? -INFINITY : INFINITY);
				check_value(below, step == 0);
				check_value(above, step == 0);
			}
		}
	}
}

/* 10^x for every decade, as strtod reads "1e<x>", its neighbours, and the
 * values that round up into the next decade (9.99...e<x>). */
Test(format_double, powers_of_ten_and_neighbours)
{
	for (int x = -324; x <= 308; x++) {
		char text[32];
		snprintf(text, sizeof text, "1e%d", x);
		double p = strtod(text, NULL);
		snprintf(text, sizeof text, "9.9999999999999999e%d", x);
		double nines = strtod(text, NULL);
		snprintf(text, sizeof text, "9.999999999999995e%d", x);
		double nines_half = strtod(text, NULL);
		const double values[] = {p, nines, nines_half, 2 * p, 5 * p, 1.5 * p};
		for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
			double below = values[i], above = values[i];
			check_value(values[i], 1);
			for (int step = 0; step < 4; step++) {
				below = nextafter(below, 0.0);
				above = nextafter(above, INFINITY);
				check_value(below, step == 0);
				check_value(above, step == 0);
			}
		}
	}
}

/* Every integer to 10^5, integers around powers of two and of ten up to
 * 2^80, and random integers below and above 2^53. */
Test(format_double, integers)
{
	for (int i = 0; i <= 100000; i++)
		check_value((double)i, i < 2000);
	for (int e = 0; e <= 80; e++)
		for (int d = -20; d <= 20; d++) {
			check_value(ldexp(1.0, e) + d, 1);
			check_value(pow(10.0, e < 23 ? e : 22) * (e < 23 ? 1.0 : 1024.0) + d, 1);
		}
	struct rng r = {UINT64_C(0x9E3779B97F4A7C15)};
	for (int i = 0; i < 50000; i++) {
		uint64_t u = next_u64(&r);
		check_value((double)(u >> 11), i < 5000);
		check_value((double)(u >> (u % 11)), i < 5000);
	}
}

/* Is v exactly halfway between two `digits`-digit decimals?  "%.*e"
 * prints the exact binary value: a tie ends in 5 at digit digits + 1. */
static int is_tie(double v, int digits)
{
	static char text[1000];
	snprintf(text, sizeof text, "%.*e", 800, fabs(v));
	const char *next = text + 1 + digits; /* "d.ddd": digit i at i + 1 */
	if (*next != '5')
		return 0;
	for (const char *p = next + 1; *p != 'e'; p++)
		if (*p != '0')
			return 0;
	return 1;
}

/* Exact ties, rounded to even by glibc: K / 2^a (K odd) has the expansion
 * K 5^a / 10^a, which ends in 5; picked with 16, 17 or 18 digits, it is a
 * tie at 15, 16 or 17. */
Test(format_double, halfway_cases)
{
	struct rng r = {UINT64_C(0xD1B54A32D192ED03)};
	int ties[18] = {0};
	for (int digits = 15; digits <= 17; digits++)
		for (int a = 1; a <= 60; a++) {
			double lo = pow(10.0, digits) / pow(5.0, a);
			double hi = pow(10.0, digits + 1) / pow(5.0, a);
			if (hi < 1.0 || lo >= 9007199254740992.0)
				continue;
			for (int i = 0; i < 200; i++) {
				double k = floor(lo + (fmin(hi, 9007199254740992.0) - lo) * unit_interval(&r));
				if (k < 1.0)
					continue;
				uint64_t odd = (uint64_t)k | 1;
				double v = ldexp((double)odd, -a);
				ties[digits] += is_tie(v, digits);
				check_value(v, 1);
				check_value(-v, 0);
			}
		}
	/* Integers below 2^53 ending in 5 with 16 digits: ties at 15. */
	for (int i = 0; i < 2000; i++) {
		uint64_t k = UINT64_C(1000000000000000) +
		             next_u64(&r) % (UINT64_C(9007199254740992) - UINT64_C(1000000000000000));
		double v = (double)(k / 10 * 10 + 5);
		ties[15] += is_tie(v, 15);
		check_value(v, 1);
	}
	/* Enough of each for the test to mean something. */
	for (int digits = 15; digits <= 17; digits++)
		cr_assert_gt(ties[digits], 1000, "%d ties at %d digits", ties[digits], digits);
}

/* The significant digits (trailing zeros dropped) and the decimal
 * exponent of the leading digit, of "%.*e" text or of n 10^t. */
static void digits_of_text(const char *text, char *digits, int *exponent)
{
	size_t k = 0;
	for (const char *p = text; *p != 'e'; p++)
		if (*p != '.')
			digits[k++] = *p;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	*exponent = atoi(strchr(text, 'e') + 1);
}

static void digits_of_integer(uint64_t n, int t, char *digits, int *exponent)
{
	int len = snprintf(digits, 32, "%" PRIu64, n);
	*exponent = len - 1 + t;
	while (len > 1 && digits[len - 1] == '0')
		digits[--len] = '\0';
}

/* Decimals exactly on the boundary of a rounding interval, where strtod
 * rounds to even: the old code kept or dropped the digits by the parity
 * of m.  With v = m 2^e, the upper boundary is (2m + 1) 2^(e-1); when
 * 2m + 1 = r 5^t (r odd) it is the decimal r 2^(e-1-t) 10^t, which has 15
 * or 16 digits for suitable e and t, and is then what v rounds to. */
Test(format_double, interval_boundaries)
{
	struct rng r = {UINT64_C(0x8CB92BA72F3D8DD7)};
	int on_boundary = 0, even = 0;
	for (int e = 2; e <= 80; e++)
		for (int t = 1; t < e && t <= 23; t++) {
			uint64_t five_t = 1;
			for (int i = 0; i < t; i++)
				five_t *= 5;
			/* 2m + 1 = r 5^t in (2^53, 2^54) */
			uint64_t r_lo = (UINT64_C(1) << 53) / five_t + 1;
			uint64_t r_hi = (UINT64_C(1) << 54) / five_t;
			int shift = e - 1 - t;
			if (r_hi <= r_lo + 2 || shift > 10)
				continue;
			for (int i = 0; i < 40; i++) {
				uint64_t odd = (r_lo + next_u64(&r) % (r_hi - r_lo)) | 1;
				uint64_t w = odd * five_t;
				if (w <= UINT64_C(1) << 53 || w >= UINT64_C(1) << 54)
					continue;
				uint64_t m = (w - 1) / 2;
				double v = ldexp((double)m, e);
				check_value(v, 1);
				char want[32], got[32], text[48];
				int want_exp, got_exp;
				digits_of_integer(odd << shift, t, want, &want_exp);
				for (int digits = 15; digits <= 16; digits++) {
					snprintf(text, sizeof text, "%.*e", digits - 1, v);
					digits_of_text(text, got, &got_exp);
					if (strcmp(want, got) == 0 && want_exp == got_exp) {
						on_boundary++;
						even += !(m & 1);
					}
				}
			}
		}
	cr_assert_gt(on_boundary, 1000, "%d decimals on a boundary", on_boundary);
	cr_assert(even > on_boundary / 4 && on_boundary - even > on_boundary / 4,
	          "%d of %d with m even", even, on_boundary);
}

/* 10^6 random values: half any bit pattern, half of the kinds a report
 * prints; every tenth also through the exact path. */
Test(format_double, random_values)
{
	struct rng r = {UINT64_C(0x2545F4914F6CDD1D)};
	for (int i = 0; i < 500000; i++) {
		check_value(random_bits(&r), i % 10 == 0);
		check_value(random_typical(&r), i % 10 == 0);
	}
}

/* The 8-digit converter against snprintf: every y below 10^5, near every
 * power of ten, and every 997th (test_format_double_slow.c: every y). */
Test(format_double, eight_digits)
{
	char got[9] = "", want[16];
	for (uint32_t y = 0; y < 100000000; y += y < 100000 ? 1 : 997) {
		put8(got, y);
		snprintf(want, sizeof want, "%08" PRIu32, y);
		cr_assert_str_eq(got, want);
	}
	for (uint32_t p = 10; p <= 100000000; p *= 10)
		for (uint32_t y = p - 3; y < p + 3 && y < 100000000; y++) {
			put8(got, y);
			snprintf(want, sizeof want, "%08" PRIu32, y);
			cr_assert_str_eq(got, want);
		}
}

/* Unsigned integers against snprintf's "%" PRIu64: every value to 10^6,
 * each side of every power of ten and of two, and random values. */
static void check_uint(uint64_t v)
{
	char got[32], want[32];
	memset(got, 'x', sizeof got);
	size_t n = ha_fd_format_uint(v, got);
	got[n] = '\0';
	snprintf(want, sizeof want, "%" PRIu64, v);
	if (strcmp(got, want) != 0 || n != strlen(want))
		cr_assert_fail("%" PRIu64 ": ha_fd_format_uint gives \"%s\"", v, got);
	memset(got, 'x', sizeof got);
	*ha_fd_put_uint(got, v) = '\0';
	if (strcmp(got, want) != 0)
		cr_assert_fail("%" PRIu64 ": ha_fd_put_uint gives \"%s\"", v, got);
}

Test(format_double, unsigned_integers)
{
	for (uint64_t v = 0; v <= 1000000; v++)
		check_uint(v);
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10)
		for (uint64_t d = 0; d < 4; d++) {
			check_uint(p + d);
			check_uint(p - d);
		}
	for (int e = 0; e < 64; e++)
		for (uint64_t d = 0; d < 4; d++) {
			check_uint((UINT64_C(1) << e) + d);
			check_uint((UINT64_C(1) << e) - d);
		}
	check_uint(UINT64_MAX);
	struct rng r = {UINT64_C(0x3C6EF372FE94F82B)};
	for (int i = 0; i < 200000; i++) {
		uint64_t u = next_u64(&r);
		check_uint(u);
		check_uint(u >> (u % 64));
	}
}

/* A small big integer of its own (16-bit limbs, multiplied by 5 one
 * factor at a time), to check the formatter's arithmetic independently. */
enum { NUM_LIMBS = 160 };

struct num {
	int n;
	uint32_t d[NUM_LIMBS]; /* 16 bits each */
};

static void num_set(struct num *a, uint64_t hi, uint64_t lo)
{
	a->n = 8;
	for (int i = 0; i < 4; i++) {
		a->d[i] = (uint32_t)(lo >> (16 * i)) & 0xffff;
		a->d[i + 4] = (uint32_t)(hi >> (16 * i)) & 0xffff;
	}
	while (a->n > 0 && a->d[a->n - 1] == 0)
		a->n--;
}

static void num_mul5(struct num *a, int times)
{
	for (; times > 0; times--) {
		uint32_t carry = 0;
		for (int i = 0; i < a->n; i++) {
			uint32_t t = a->d[i] * 5 + carry;
			a->d[i] = t & 0xffff;
			carry = t >> 16;
		}
		if (carry)
			a->d[a->n++] = carry;
		cr_assert_lt(a->n, NUM_LIMBS);
	}
}

static void num_double(struct num *a, int times)
{
	for (; times > 0; times--) {
		uint32_t carry = 0;
		for (int i = 0; i < a->n; i++) {
			uint32_t t = (a->d[i] << 1) | carry;
			a->d[i] = t & 0xffff;
			carry = t >> 16;
		}
		if (carry)
			a->d[a->n++] = carry;
		cr_assert_lt(a->n, NUM_LIMBS);
	}
}

/* The sign of (ahi:alo) 5^a5 2^a2 - (bhi:blo) 5^b5 2^b2. */
static int exact_sign(uint64_t ahi, uint64_t alo, int a5, int a2,
                      uint64_t bhi, uint64_t blo, int b5, int b2)
{
	static struct num a, b;
	num_set(&a, ahi, alo);
	num_set(&b, bhi, blo);
	num_mul5(a5 > b5 ? &a : &b, abs(a5 - b5));
	num_double(a2 > b2 ? &a : &b, abs(a2 - b2));
	if (a.n != b.n)
		return a.n > b.n ? 1 : -1;
	for (int i = a.n - 1; i >= 0; i--)
		if (a.d[i] != b.d[i])
			return a.d[i] > b.d[i] ? 1 : -1;
	return 0;
}

/* Every 5^n the formatter scales with, each an entry of its table
 * (computed at first use): the mantissa's top bit set, below the exact
 * value by under one unit, never above (exact where 5^n has at most 128
 * bits), and the table covers exactly the exponents scale() asks for. */
Test(format_double, pow5_table_entries)
{
	cr_assert_eq(POW5_LOW, -292);
	cr_assert_eq(POW5_LOW + POW5_COUNT - 1, 340);
	for (int n = -292; n <= 340; n++) {
		int exp2;
		struct u128 m = pow5_approx(n, &exp2);
		cr_assert(m.hi >> 63, "5^%d: mantissa not normalised", n);
		/* m 2^exp2 <= 5^n < (m + 1) 2^exp2 */
		int below = exact_sign(m.hi, m.lo, 0, exp2, 0, 1, n, 0);
		cr_assert_leq(below, 0, "5^%d above", n);
		if (n >= 0 && n <= 55)
			cr_assert_eq(below, 0, "5^%d not exact", n);
		uint64_t lo1 = m.lo + 1, hi1 = m.hi + (lo1 < 1);
		cr_assert_gt(exact_sign(hi1, lo1, 0, exp2, 0, 1, n, 0), 0,
		             "5^%d a unit or more below", n);
	}
}

/* The premise of the fixed-point decisions (TOLERANCE): S 2^64 and
 * H 2^64 as computed are at most 2 units below the exact values, for
 * the extremes and for random values of every exponent. */
static void check_scaling(double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
	if (biased == 0x7ff || (biased == 0 && fraction == 0))
		return;
	struct scaled c;
	c.exact = 0;
	uint64_t m = biased ? fraction | UINT64_C(1) << 52 : fraction;
	int e = biased ? (int)biased - 1075 : -1074;
	scale(&c, m, e);
	/* S 2^64 = m 5^n 2^(e + n + 64), H 2^64 = 5^n 2^(e - 1 + n + 64) */
	cr_assert_leq(exact_sign(c.s.hi, c.s.lo, 0, 0, 0, m, c.n, e + c.n + 64), 0,
	              "%a: S above", v);
	uint64_t lo = c.s.lo + 2, hi = c.s.hi + (lo < 2);
	cr_assert_gt(exact_sign(hi, lo, 0, 0, 0, m, c.n, e + c.n + 64), 0,
	             "%a: S more than 2 units below", v);
	cr_assert_leq(exact_sign(c.h.hi, c.h.lo, 0, 0, 0, 1, c.n, e - 1 + c.n + 64), 0,
	              "%a: H above", v);
	lo = c.h.lo + 2;
	hi = c.h.hi + (lo < 2);
	cr_assert_gt(exact_sign(hi, lo, 0, 0, 0, 1, c.n, e - 1 + c.n + 64), 0,
	             "%a: H more than 2 units below", v);
}

Test(format_double, scaling_error_within_tolerance)
{
	struct rng r = {UINT64_C(0x6A09E667F3BCC909)};
	for (int e = -1074; e <= 1023; e++) {
		double p = ldexp(1.0, e);
		check_scaling(p);
		check_scaling(nextafter(2 * p, 0.0));
		/* a random significand in this binade */
		double v = p * (1.0 + unit_interval(&r));
		check_scaling(v);
	}
	for (int i = 0; i < 3000; i++)
		check_scaling(random_bits(&r));
	check_scaling(5e-324);
	check_scaling(DBL_MAX);
}
