/* Factorisation of 64-bit integers and the divisors of a budget.
 *
 * Small primes are divided out first; what remains is split by Pollard's
 * rho (Brent's cycle detection, batched gcds, Montgomery products: no
 * division in the loop) and tested with Miller–Rabin
 * on the first twelve prime bases, which is exact below 3.3e24. */
#include <stdlib.h>
#include <string.h>

#include <headalloc/divisors.h>
#include <headalloc/model.h>

__extension__ typedef unsigned __int128 u128;

static uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m)
{
	return (uint64_t)((u128)a * b % m);
}

static uint64_t pow_mod(uint64_t base, uint64_t exp, uint64_t m)
{
	uint64_t result = 1 % m;
	base %= m;
	while (exp) {
		if (exp & 1)
			result = mul_mod(result, base, m);
		base = mul_mod(base, base, m);
		exp >>= 1;
	}
	return result;
}

static const uint64_t small_primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

/* One Miller–Rabin round: 1 if n (odd, > base) is a strong probable prime
 * to this base. */
static int strong_probable_prime(uint64_t n, uint64_t base)
{
	uint64_t d = n - 1;
	unsigned r = 0;
	while ((d & 1) == 0) {
		d >>= 1;
		r++;
	}
	uint64_t x = pow_mod(base, d, n);
	if (x == 1 || x == n - 1)
		return 1;
	for (unsigned i = 1; i < r; i++) {
		x = mul_mod(x, x, n);
		if (x == n - 1)
			return 1;
	}
	return 0;
}

int ha_is_prime(uint64_t n)
{
	if (n < 2)
		return 0;
	for (size_t i = 0; i < sizeof small_primes / sizeof *small_primes; i++) {
		if (n == small_primes[i])
			return 1;
		if (n % small_primes[i] == 0)
			return 0;
	}
	for (size_t i = 0; i < sizeof small_primes / sizeof *small_primes; i++)
		if (!strong_probable_prime(n, small_primes[i]))
			return 0;
	return 1;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Montgomery multiplication modulo an odd n (Montgomery 1985; R = 2^64):
 * a b R^-1 mod n for a, b < n, without a division.  The rho iteration
 * below runs on it directly: y -> y^2 R^-1 + c is as good a quadratic map
 * modulo each prime factor as y^2 + c, and the gcds are unchanged by the
 * unit R.  neg_inv is -n^-1 mod 2^64. */
struct montgomery {
	uint64_t n, neg_inv;
};

static struct montgomery montgomery_of(uint64_t n)
{
	/* Newton's iteration doubles the correct low bits of n^-1 each step:
	 * n is its own inverse to 3 bits (n odd), so 5 steps give 96 > 64. */
	uint64_t inv = n;
	for (int i = 0; i < 5; i++)
		inv *= 2 - n * inv;
	return (struct montgomery){n, (uint64_t)0 - inv};
}

static uint64_t mont_mul(const struct montgomery *m, uint64_t a, uint64_t b)
{
	u128 t = (u128)a * b;
	uint64_t k = (uint64_t)t * m->neg_inv;
	u128 kn = (u128)k * m->n;
	/* t + kn is divisible by 2^64: its low halves sum to 0 mod 2^64,
	 * carrying one unless both are 0. */
	u128 high = (t >> 64) + (kn >> 64) + ((uint64_t)t != 0);
	return (uint64_t)(high >= m->n ? high - m->n : high);
}

/* a + b mod n for a, b < n. */
static uint64_t add_mod(uint64_t a, uint64_t b, uint64_t n)
{
	return a >= n - b ? a - (n - b) : a + b;
}

/* A non-trivial factor of the odd composite n (Brent's variant of
 * Pollard's rho, Brent 1980, on Montgomery products); tries successive
 * polynomial constants until one works. */
static uint64_t rho_factor(uint64_t n)
{
	const struct montgomery mont = montgomery_of(n);
	for (uint64_t c = 1;; c++) {
		uint64_t y = 2, x = 2, saved = 2, g = 1, q = 1;
		const uint64_t batch = 128;
		for (uint64_t r = 1; g == 1; r <<= 1) {
			x = y;
			for (uint64_t i = 0; i < r; i++)
				y = add_mod(mont_mul(&mont, y, y), c, n);
			for (uint64_t k = 0; k < r && g == 1; k += batch) {
				saved = y;
				uint64_t steps = r - k < batch ? r - k : batch;
				for (uint64_t i = 0; i < steps; i++) {
					y = add_mod(mont_mul(&mont, y, y), c, n);
					q = mont_mul(&mont, q, x > y ? x - y : y - x);
				}
				g = gcd(q, n);
			}
		}
		if (g == n) {
			/* The batch overshot: step one at a time from its start. */
			do {
				saved = add_mod(mont_mul(&mont, saved, saved), c, n);
				g = gcd(x > saved ? x - saved : saved - x, n);
			} while (g == 1);
		}
		if (g != n)
			return g;
	}
}

static void add_prime(struct ha_prime_power *f, size_t *count, uint64_t p,
                      unsigned exponent)
{
	for (size_t i = 0; i < *count; i++) {
		if (f[i].prime == p) {
			f[i].exponent += exponent;
			return;
		}
	}
	f[*count].prime = p;
	f[*count].exponent = exponent;
	(*count)++;
}

/* Split n (> 1, free of primes below 1000) into primes, recursively. */
static void split(uint64_t n, struct ha_prime_power *f, size_t *count)
{
	if (n == 1)
		return;
	if (ha_is_prime(n)) {
		add_prime(f, count, n, 1);
		return;
	}
	uint64_t factor = rho_factor(n);
	split(factor, f, count);
	split(n / factor, f, count);
}

static int by_prime(const void *a, const void *b)
{
	uint64_t x = ((const struct ha_prime_power *)a)->prime;
	uint64_t y = ((const struct ha_prime_power *)b)->prime;
	return (x > y) - (x < y);
}

enum ha_status ha_factorize(uint64_t n,
                            struct ha_prime_power factors[HA_MAX_PRIME_FACTORS],
                            size_t *count)
{
	if (n == 0 || !factors || !count)
		return HA_EINVAL;
	*count = 0;
	for (uint64_t p = 2; p < 1000 && p * p <= n; p += (p == 2) ? 1 : 2) {
		unsigned e = 0;
		while (n % p == 0) {
			n /= p;
			e++;
		}
		if (e)
			add_prime(factors, count, p, e);
	}
	split(n, factors, count);
	qsort(factors, *count, sizeof *factors, by_prime);
	return HA_OK;
}

uint64_t ha_divisor_count(uint64_t n)
{
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t count;
	if (ha_factorize(n, f, &count) != HA_OK)
		return 0;
	uint64_t total = 1;
	for (size_t i = 0; i < count; i++)
		total *= f[i].exponent + 1;
	return total;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

enum ha_status ha_divisors(uint64_t n, uint64_t **out, size_t *count)
{
	if (!out || !count)
		return HA_EINVAL;
	*out = NULL;
	*count = 0;
	if (n == 0 || n > HA_BUDGET_MAX)
		return HA_EINVAL;

	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t nf;
	enum ha_status st = ha_factorize(n, f, &nf);
	if (st != HA_OK)
		return st;
	size_t total = 1;
	for (size_t i = 0; i < nf; i++)
		total *= f[i].exponent + 1;

	uint64_t *d = malloc(total * sizeof *d);
	if (!d)
		return HA_ENOMEM;
	/* Each prime power multiplies the divisors found so far. */
	size_t have = 1;
	d[0] = 1;
	for (size_t i = 0; i < nf; i++) {
		size_t base = have;
		uint64_t power = 1;
		for (unsigned e = 1; e <= f[i].exponent; e++) {
			power *= f[i].prime;
			for (size_t j = 0; j < base; j++)
				d[have++] = d[j] * power;
		}
	}
	qsort(d, have, sizeof *d, by_value);
	*out = d;
	*count = have;
	return HA_OK;
}
