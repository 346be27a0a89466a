/* Factorisation and divisors against known values and trial division. */
#include <stdlib.h>

#include <criterion/criterion.h>

#include "alloc/solver_internal.h"
#include <headalloc/model.h>

static uint64_t naive_divisor_count(uint64_t n)
{
	uint64_t count = 0;
	for (uint64_t d = 1; d * d <= n; d++)
		if (n % d == 0)
			count += (d * d == n) ? 1 : 2;
	return count;
}

static int naive_is_prime(uint64_t n)
{
	if (n < 2)
		return 0;
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

Test(divisors, primality_agrees_with_trial_division_below_100000)
{
	for (uint64_t n = 0; n < 100000; n++)
		cr_assert_eq(ha_is_prime(n), naive_is_prime(n), "n = %llu",
		             (unsigned long long)n);
}

Test(divisors, known_large_primes_and_composites)
{
	cr_assert(ha_is_prime(UINT64_C(2305843009213693951)));  /* 2^61 - 1 */
	cr_assert(ha_is_prime(UINT64_C(9223372036854775783)));  /* largest < 2^63 */
	cr_assert(ha_is_prime(UINT64_C(18446744073709551557))); /* largest < 2^64 */
	/* Strong pseudoprimes to several small bases. */
	cr_assert(!ha_is_prime(UINT64_C(3215031751)));
	cr_assert(!ha_is_prime(UINT64_C(3825123056546413051)));
	cr_assert(!ha_is_prime(UINT64_C(4611686014132420609))); /* (2^31-1)^2 */
}

Test(divisors, counts_of_known_values)
{
	cr_assert_eq(ha_divisor_count(1), 1);
	cr_assert_eq(ha_divisor_count(512), 10);
	cr_assert_eq(ha_divisor_count(4544), 14); /* 2^6 * 71 */
	cr_assert_eq(ha_divisor_count(UINT64_C(4611686018427387904)), 63); /* 2^62 */
	cr_assert_eq(ha_divisor_count(UINT64_C(897612484786617600)), 103680);
	/* The record below 2^63 (103,680 is the record below 1e18: headalloc-model(7), DIVISORS OF LARGE BUDGETS). */
	cr_assert_eq(ha_divisor_count(UINT64_C(9200527969062830400)), HA_MAX_DIVISORS);
	cr_assert_eq(ha_divisor_count(UINT64_C(8976124847866176000)), 153600);
	cr_assert_eq(ha_divisor_count(UINT64_C(9223372036854775783)), 2);
	cr_assert_eq(ha_divisor_count(UINT64_C(9223372036854775807)), 96);
	cr_assert_eq(ha_divisor_count(0), 0);
}

Test(divisors, counts_agree_with_trial_division_up_to_20000)
{
	for (uint64_t n = 1; n <= 20000; n++)
		cr_assert_eq(ha_divisor_count(n), naive_divisor_count(n), "n = %llu",
		             (unsigned long long)n);
}

static void check_factorisation(uint64_t n)
{
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t count;
	cr_assert_eq(ha_factorize(n, f, &count), HA_OK);
	uint64_t product = 1;
	for (size_t i = 0; i < count; i++) {
		cr_assert(ha_is_prime(f[i].prime), "%llu not prime",
		          (unsigned long long)f[i].prime);
		if (i)
			cr_assert_gt(f[i].prime, f[i - 1].prime);
		for (unsigned e = 0; e < f[i].exponent; e++)
			product *= f[i].prime;
	}
	cr_assert_eq(product, n, "n = %llu", (unsigned long long)n);
}

Test(divisors, factorisations_multiply_back)
{
	/* Semiprimes of two ~31-bit primes, prime powers, random values. */
	check_factorisation(UINT64_C(4611685975477714963)); /* (2^31-1)(2^31-19) */
	check_factorisation(UINT64_C(9223372036854775807)); /* 7^2 73 127 337 92737 649657 */
	check_factorisation(UINT64_C(3486784401));          /* 3^20 */
	check_factorisation(UINT64_C(9223371873002223329)); /* 3037000453 * 3037000493 */
	cr_assert_eq(ha_divisor_count(UINT64_C(9223371873002223329)), 4);
	cr_assert_eq(ha_divisor_count(UINT64_C(9223372021822390277)), 4); /* (2^32-5)(2^31-1) */
	uint64_t x = 88172645463325252u;
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_factorisation((x >> 1) | 1);
		check_factorisation(x >> 1 ? x >> 1 : 1);
	}
}

Test(divisors, list_is_sorted_complete_and_divides)
{
	uint64_t *d;
	size_t count;
	uint64_t n = UINT64_C(897612484786617600);
	cr_assert_eq(ha_divisors(n, &d, &count), HA_OK);
	cr_assert_eq(count, 103680);
	cr_assert_eq(d[0], 1);
	cr_assert_eq(d[count - 1], n);
	for (size_t i = 0; i < count; i++) {
		cr_assert_eq(n % d[i], 0);
		if (i)
			cr_assert_gt(d[i], d[i - 1]);
		/* d and n/d pair up from the two ends. */
		cr_assert_eq(d[i] * d[count - 1 - i], n);
	}
	free(d);
}

Test(divisors, rejects_out_of_range)
{
	uint64_t *d = (uint64_t *)1;
	size_t count = 7;
	cr_assert_eq(ha_divisors(0, &d, &count), HA_EINVAL);
	cr_assert_null(d);
	cr_assert_eq(ha_divisors(HA_BUDGET_MAX + 1, &d, &count), HA_EINVAL);
	cr_assert_eq(ha_divisors(12, NULL, &count), HA_EINVAL);
	cr_assert_eq(ha_divisors(1, &d, &count), HA_OK);
	cr_assert_eq(count, 1);
	cr_assert_eq(d[0], 1);
	free(d);
}

/* A prime near start: the first of start, start + 2, ... that ha_is_prime
 * accepts, checked by trial division (odd start, below 2^32). */
static uint64_t prime_from(uint64_t start)
{
	for (uint64_t p = start | 1;; p += 2) {
		if (!ha_is_prime(p))
			continue;
		for (uint64_t d = 3; d * d <= p; d += 2)
			cr_assert(p % d != 0, "%llu is not prime", (unsigned long long)p);
		return p;
	}
}

/* Semiprimes near 2^63, both primes near 2^31.5 (the hardest
 * case of the rho: it takes ~2^16 steps each), factorised exactly: the
 * primes built, found again.  (The speed of the Montgomery products is
 * measured by bench/headalloc-limits, not here.) */
Test(divisors, semiprimes_near_2_63_factorise_exactly, .timeout = 600)
{
	uint64_t p = prime_from(UINT64_C(3036000001));
	for (int i = 0; i < 40; i++) {
		uint64_t q = prime_from(p + 2 + 2 * (uint64_t)i * 1000);
		uint64_t n = p * q;
		cr_assert_lt(n, UINT64_C(9223372036854775807));
		struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
		size_t count;
		cr_assert_eq(ha_factorize(n, f, &count), HA_OK);
		cr_assert_eq(count, 2, "%llu: %zu factors", (unsigned long long)n, count);
		cr_assert_eq(f[0].prime, p);
		cr_assert_eq(f[1].prime, q);
		cr_assert_eq(f[0].exponent, 1);
		cr_assert_eq(f[1].exponent, 1);
		cr_assert_eq(ha_divisor_count(n), 4);
	}
	/* A square of a prime near 2^31.5, and the largest budget. */
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t count;
	cr_assert_eq(ha_factorize(p * p, f, &count), HA_OK);
	cr_assert(count == 1 && f[0].prime == p && f[0].exponent == 2);
}

/* A prime in [lo, hi) drawn from a fixed xorshift stream, certified by
 * trial division (independently of ha_is_prime). */
static uint64_t stream_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t random_trial_prime(uint64_t lo, uint64_t hi)
{
	for (;;) {
		stream_state ^= stream_state << 13;
		stream_state ^= stream_state >> 7;
		stream_state ^= stream_state << 17;
		uint64_t x = (lo + stream_state % (hi - lo)) | 1;
		if (x < hi && naive_is_prime(x))
			return x;
	}
}

static void expect_factors(uint64_t n, const uint64_t *primes, const unsigned *exps,
                           size_t count)
{
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t got;
	cr_assert_eq(ha_factorize(n, f, &got), HA_OK);
	cr_assert_eq(got, count, "%llu: %zu prime factors, expected %zu",
	             (unsigned long long)n, got, count);
	for (size_t i = 0; i < count; i++)
		cr_assert(f[i].prime == primes[i] && f[i].exponent == exps[i],
		          "%llu: factor %zu is %llu^%u, expected %llu^%u", (unsigned long long)n, i,
		          (unsigned long long)f[i].prime, f[i].exponent,
		          (unsigned long long)primes[i], exps[i]);
}

/* The elliptic curve method (then the rho) on random semiprimes of two
 * primes in [2^30, 2^31.5], random products of three primes near 2^21,
 * and p^2 q: every factor built by trial division, found again. */
Test(divisors, random_hard_composites_factorise_exactly, .timeout = 600)
{
	for (int i = 0; i < 150; i++) {
		uint64_t p = random_trial_prime(UINT64_C(1) << 30, UINT64_C(3037000499));
		uint64_t q = random_trial_prime(UINT64_C(1) << 30, UINT64_C(3037000499));
		uint64_t lo = p < q ? p : q, hi = p < q ? q : p;
		if (lo == hi)
			expect_factors(lo * hi, &lo, (unsigned[]){2}, 1);
		else
			expect_factors(lo * hi, (uint64_t[]){lo, hi}, (unsigned[]){1, 1}, 2);
	}
	for (int i = 0; i < 60; i++) {
		uint64_t t[3];
		for (int k = 0; k < 3; k++)
			t[k] = random_trial_prime(UINT64_C(1) << 20, UINT64_C(1) << 21);
		if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
			continue;
		for (int a = 0; a < 3; a++) /* ascending */
			for (int b = a + 1; b < 3; b++)
				if (t[b] < t[a]) {
					uint64_t s = t[a];
					t[a] = t[b];
					t[b] = s;
				}
		expect_factors(t[0] * t[1] * t[2], t, (unsigned[]){1, 1, 1}, 3);
	}
	for (int i = 0; i < 30; i++) {
		uint64_t p = random_trial_prime(UINT64_C(1) << 20, UINT64_C(1) << 21);
		uint64_t q = random_trial_prime(UINT64_C(1) << 20, UINT64_C(1) << 21);
		if (p == q)
			continue;
		uint64_t n = p * p * q;
		if (p < q)
			expect_factors(n, (uint64_t[]){p, q}, (unsigned[]){2, 1}, 2);
		else
			expect_factors(n, (uint64_t[]){q, p}, (unsigned[]){1, 2}, 2);
	}
}
