/* headalloc-factor-bench: factorising hard budgets, the library's
 * ha_factorize (elliptic curves, then the rho) against a baseline in the
 * same run: the Pollard-Brent rho alone on Montgomery products, as
 * src/lib/alloc/divisors.c did before the curves (its code, kept here).
 * Two sets: the 6,000 products of primes just above 3036000001 that
 * headalloc-limits passes as --budget (the rho's worst case), and 600
 * products of random primes p in [2e9, 3.04e9], q up to 2^63 / p.  Both
 * methods must return the same factors; best of 3 runs each, in CPU time (the
 * machine may be shared).
 *
 *   meson compile -C build factor-bench && build/bench/headalloc-factor-bench */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "alloc/solver_internal.h"

__extension__ typedef unsigned __int128 u128;

/* ---- the baseline: the rho alone ----------------------------------------- */

struct mont {
	uint64_t n, neg_inv;
};

static uint64_t mont_mul(const struct mont *m, uint64_t a, uint64_t b)
{
	u128 t = (u128)a * b;
	uint64_t k = (uint64_t)t * m->neg_inv;
	u128 kn = (u128)k * m->n;
	u128 high = (t >> 64) + (kn >> 64) + ((uint64_t)t != 0);
	return (uint64_t)(high >= m->n ? high - m->n : high);
}

static uint64_t add_mod(uint64_t a, uint64_t b, uint64_t n)
{
	return a >= n - b ? a - (n - b) : a + b;
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

static uint64_t rho_factor(uint64_t n)
{
	uint64_t inv = n;
	for (int i = 0; i < 5; i++)
		inv *= 2 - n * inv;
	const struct mont m = {n, (uint64_t)0 - inv};
	for (uint64_t c = 1;; c++) {
		uint64_t y = 2, x = 2, saved = 2, g = 1, q = 1;
		const uint64_t batch = 128;
		for (uint64_t r = 1; g == 1; r <<= 1) {
			x = y;
			for (uint64_t i = 0; i < r; i++)
				y = add_mod(mont_mul(&m, y, y), c, n);
			for (uint64_t k = 0; k < r && g == 1; k += batch) {
				saved = y;
				uint64_t steps = r - k < batch ? r - k : batch;
				for (uint64_t i = 0; i < steps; i++) {
					y = add_mod(mont_mul(&m, y, y), c, n);
					q = mont_mul(&m, q, x > y ? x - y : y - x);
				}
				g = gcd(q, n);
			}
		}
		if (g == n) {
			do {
				saved = add_mod(mont_mul(&m, saved, saved), c, n);
				g = gcd(x > saved ? x - saved : saved - x, n);
			} while (g == 1);
		}
		if (g != n)
			return g;
	}
}

/* The smaller prime factor of a semiprime n (both factors above 1000). */
static uint64_t baseline_smaller(uint64_t n)
{
	uint64_t f = rho_factor(n), other = n / f;
	return f < other ? f : other;
}

static uint64_t library_smaller(uint64_t n)
{
	struct ha_prime_power f[HA_MAX_PRIME_FACTORS];
	size_t count;
	if (ha_factorize(n, f, &count) != HA_OK || count == 0)
		return 0;
	return f[0].prime;
}

/* ---- timing ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double best_of_3(uint64_t (*method)(uint64_t), const uint64_t *v, size_t n,
                        uint64_t *smaller)
{
	double best = 1e300;
	for (int rep = 0; rep < 3; rep++) {
		double start = now();
		for (size_t i = 0; i < n; i++)
			smaller[i] = method(v[i]);
		double e = now() - start;
		best = e < best ? e : best;
	}
	return best;
}

static uint64_t state = UINT64_C(88172645463325252);
static uint64_t random_prime(uint64_t lo, uint64_t hi)
{
	for (;;) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		uint64_t x = lo + state % (hi - lo);
		if (ha_is_prime(x))
			return x;
	}
}

static int measure(const char *what, const uint64_t *v, size_t n)
{
	uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	if (!a || !b)
		return 1;
	double base = best_of_3(baseline_smaller, v, n, a);
	double lib = best_of_3(library_smaller, v, n, b);
	int agree = 1;
	for (size_t i = 0; i < n; i++)
		agree &= a[i] == b[i];
	printf("%-44s rho alone %8.3f s, ha_factorize %8.3f s: %5.2fx%s\n", what, base, lib,
	       base / lib, agree ? "" : "  (FACTORS DISAGREE)");
	free(a);
	free(b);
	return !agree;
}

int main(void)
{
	enum { LIMITS = 6000, RANDOM = 600 };
	static uint64_t limits[LIMITS], random[RANDOM];
	uint64_t primes[160];
	size_t np = 0, made = 0;
	for (uint64_t p = UINT64_C(3036000001); np < 160; p += 2)
		if (ha_is_prime(p))
			primes[np++] = p;
	for (size_t i = 0; i < np && made < LIMITS; i++)
		for (size_t j = i + 1; j < np && made < LIMITS; j++)
			limits[made++] = primes[i] * primes[j];
	for (size_t i = 0; i < RANDOM; i++) {
		uint64_t p = random_prime(UINT64_C(2000000000), UINT64_C(3037000499));
		random[i] = p * random_prime(UINT64_C(2000000000), INT64_MAX / p);
	}
	int bad = measure("6000 semiprimes near 2^63 (headalloc-limits)", limits, made);
	bad |= measure("600 random p q, p in [2e9, 3.04e9]", random, RANDOM);
	return bad;
}
