/* Factorisation of 64-bit integers and the divisors of a budget.
 *
 * Small primes are divided out first; what remains is split by the
 * elliptic curve method (up to 48 curves), else by Pollard's rho (Brent's
 * cycle detection, batched gcds, Montgomery products: no division in the
 * loop), and tested with Miller–Rabin
 * on the first twelve prime bases, which is exact below 3.3e24. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/solver_internal.h"
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

/* gcd by Stein's binary algorithm (no division). */
static uint64_t gcd(uint64_t a, uint64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	int shift = __builtin_ctzll(a | b);
	a >>= __builtin_ctzll(a);
	do {
		b >>= __builtin_ctzll(b);
		if (a > b) {
			uint64_t t = a;
			a = b;
			b = t;
		}
		b -= a;
	} while (b);
	return a << shift;
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

/* ---- the elliptic curve method (Lenstra 1987) ---------------------------
 * Montgomery's curves B y^2 = x^3 + A x^2 + x in the coordinates (X : Z)
 * (Montgomery 1987: the ladder's doubling and differential addition),
 * Suyama's parametrisation (a group order divisible by 12), a first stage
 * to B1 and the standard continuation to B2 pairing baby steps u Q with
 * giant steps w D Q (x(wDQ) = x(uQ) modulo p exactly when w D = +-u in
 * the group modulo p).  On semiprimes of two primes near 2^31.5, the
 * rho's worst case, it takes about a third of the rho's time
 * (bench/factor_bench.c); after ECM_CURVES curves without a factor the
 * rho takes over, so that a factor is always found. */

__extension__ typedef __int128 i128;

#define ECM_B1 150
#define ECM_B2 7500
#define ECM_D 210
#define ECM_CURVES 48

static uint64_t sub_mod(uint64_t a, uint64_t b, uint64_t n)
{
	return a >= b ? a - b : a + (n - b);
}

/* a^-1 mod n by Euclid, or 0 with *g = gcd(a, n) when there is none. */
static uint64_t inverse_mod(uint64_t a, uint64_t n, uint64_t *g)
{
	i128 t0 = 0, t1 = 1;
	uint64_t r0 = n, r1 = a % n;
	while (r1) {
		uint64_t q = r0 / r1, r = r0 - q * r1;
		i128 t = t0 - (i128)q * t1;
		r0 = r1;
		r1 = r;
		t0 = t1;
		t1 = t;
	}
	*g = r0;
	if (r0 != 1)
		return 0;
	return (uint64_t)(t0 < 0 ? t0 + (i128)n : t0);
}

struct point {
	uint64_t x, z;
};

struct curve {
	const struct montgomery *m;
	uint64_t a24; /* (A + 2) / 4, Montgomery form */
};

/* 2P. */
static struct point xdbl(const struct curve *e, struct point p)
{
	const struct montgomery *m = e->m;
	uint64_t s = add_mod(p.x, p.z, m->n), d = sub_mod(p.x, p.z, m->n);
	s = mont_mul(m, s, s);
	d = mont_mul(m, d, d);
	uint64_t t = sub_mod(s, d, m->n); /* 4 X Z */
	return (struct point){mont_mul(m, s, d),
	                      mont_mul(m, t, add_mod(d, mont_mul(m, e->a24, t), m->n))};
}

/* P + Q from P - Q = diff. */
static struct point xadd(const struct montgomery *m, struct point p, struct point q,
                         struct point diff)
{
	uint64_t u = mont_mul(m, sub_mod(p.x, p.z, m->n), add_mod(q.x, q.z, m->n));
	uint64_t v = mont_mul(m, add_mod(p.x, p.z, m->n), sub_mod(q.x, q.z, m->n));
	uint64_t plus = add_mod(u, v, m->n), minus = sub_mod(u, v, m->n);
	return (struct point){mont_mul(m, diff.z, mont_mul(m, plus, plus)),
	                      mont_mul(m, diff.x, mont_mul(m, minus, minus))};
}

/* k P (k >= 1) by Montgomery's ladder. */
static struct point ladder(const struct curve *e, struct point p, uint64_t k)
{
	struct point r0 = p, r1 = xdbl(e, p);
	for (int bit = 62 - __builtin_clzll(k | 1); bit >= 0; bit--) {
		if ((k >> bit) & 1) {
			r0 = xadd(e->m, r1, r0, p);
			r1 = xdbl(e, r1);
		} else {
			r1 = xadd(e->m, r1, r0, p);
			r0 = xdbl(e, r0);
		}
	}
	return r0;
}

/* A factor of n from curve sigma's points: 1 < g < n, or 0. */
static uint64_t ecm_curve(const struct montgomery *m, uint64_t sigma,
                          const unsigned char *prime, uint64_t r_mod_n)
{
	uint64_t n = m->n, g;
	/* Suyama: u = sigma^2 - 5, v = 4 sigma, (X : Z) = (u^3 : v^3),
	 * (A + 2) / 4 = (v - u)^3 (3u + v) / (16 u^3 v). */
	uint64_t u = sub_mod(mul_mod(sigma, sigma, n), 5 % n, n), v = mul_mod(4, sigma, n);
	uint64_t u3 = mul_mod(mul_mod(u, u, n), u, n), v3 = mul_mod(mul_mod(v, v, n), v, n);
	uint64_t vu = sub_mod(v, u, n), vu3 = mul_mod(mul_mod(vu, vu, n), vu, n);
	uint64_t num = mul_mod(vu3, add_mod(mul_mod(3, u, n), v, n), n);
	uint64_t den = mul_mod(mul_mod(16, u3, n), v, n);
	uint64_t inv = inverse_mod(den, n, &g);
	if (!inv)
		return g > 1 && g < n ? g : 0;
	struct curve e = {m, mul_mod(mul_mod(num, inv, n), r_mod_n, n)};
	struct point q = {mul_mod(u3, r_mod_n, n), mul_mod(v3, r_mod_n, n)};

	/* stage 1: every prime power up to B1 */
	for (uint64_t p = 2; p <= ECM_B1; p++) {
		if (!prime[p])
			continue;
		uint64_t power = p;
		while (power * p <= ECM_B1)
			power *= p;
		q = ladder(&e, q, power);
	}
	g = gcd(q.z, n);
	if (g != 1)
		return g < n ? g : 0;

	/* stage 2: primes in (B1, B2] as w D +- u */
	enum { BABIES = ECM_D / 4 + 1 };
	struct point baby[BABIES]; /* u Q for odd u = 2i + 1 < D / 2 */
	struct point q2 = xdbl(&e, q);
	baby[0] = q;
	baby[1] = xadd(m, q2, q, q);
	for (int i = 2; i < BABIES; i++)
		baby[i] = xadd(m, baby[i - 1], q2, baby[i - 2]);
	struct point giant = ladder(&e, q, ECM_D), previous = giant, w_point = xdbl(&e, giant);
	uint64_t acc = r_mod_n;
	/* w = 1 first, then w = 2 onwards */
	struct point at = giant;
	for (uint64_t w = 1; w * ECM_D <= ECM_B2 + ECM_D / 2; w++) {
		for (int i = 0; i < BABIES; i++) {
			uint64_t du = 2 * (uint64_t)i + 1, lo = w * ECM_D - du, hi = w * ECM_D + du;
			if (!((lo > ECM_B1 && lo <= ECM_B2 && prime[lo]) ||
			      (hi > ECM_B1 && hi <= ECM_B2 && prime[hi])))
				continue;
			uint64_t diff = sub_mod(mont_mul(m, at.x, baby[i].z),
			                        mont_mul(m, baby[i].x, at.z), n);
			acc = mont_mul(m, acc, diff);
		}
		if (w == 1) {
			at = w_point;
		} else {
			struct point next = xadd(m, at, giant, previous);
			previous = at;
			at = next;
		}
	}
	g = gcd(acc, n);
	return g > 1 && g < n ? g : 0;
}

/* The primes up to B2, sieved once: a thread that finds the table not
 * yet published sieves its own copy and offers it (no two threads ever
 * write the published bytes). */
static unsigned char published[ECM_B2 + 1];
static atomic_int publishing, ready;

static void sieve(unsigned char *prime)
{
	for (uint64_t i = 0; i <= ECM_B2; i++)
		prime[i] = i >= 2;
	for (uint64_t i = 2; i * i <= ECM_B2; i++)
		if (prime[i])
			for (uint64_t j = i * i; j <= ECM_B2; j += i)
				prime[j] = 0;
}

/* A factor of the odd composite n, or 0 after ECM_CURVES curves. */
static uint64_t ecm_factor(uint64_t n)
{
	unsigned char own[ECM_B2 + 1];
	const unsigned char *prime = published;
	if (!atomic_load_explicit(&ready, memory_order_acquire)) {
		sieve(own);
		prime = own;
		if (atomic_exchange(&publishing, 1) == 0) {
			memcpy(published, own, sizeof own);
			atomic_store_explicit(&ready, 1, memory_order_release);
		}
	}
	const struct montgomery mont = montgomery_of(n);
	uint64_t r_mod_n = ((uint64_t)0 - n) % n;
	for (uint64_t sigma = 6; sigma < 6 + ECM_CURVES; sigma++) {
		uint64_t g = ecm_curve(&mont, sigma, prime, r_mod_n);
		if (g)
			return g;
	}
	return 0;
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
	uint64_t factor = ecm_factor(n);
	if (!factor)
		factor = rho_factor(n);
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

/* prod (e_i + 1): the number of divisors of prod p_i^e_i. */
static uint64_t divisors_of(const struct ha_prime_power *f, size_t count)
{
	uint64_t total = 1;
	for (size_t i = 0; i < count; i++)
		total *= f[i].exponent + 1;
	return total;
}

uint64_t ha_divisor_count(uint64_t n)
{
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t count;
	return ha_factorize(n, f, &count) == HA_OK ? divisors_of(f, count) : 0;
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
	uint64_t *d = malloc(divisors_of(f, nf) * sizeof *d);
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
