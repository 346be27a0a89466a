/* headalloc — factorisation and divisors of a budget D <= 2^63 - 1.
 *
 * Deterministic Miller–Rabin (exact for every 64-bit integer), the elliptic
 * curve method and Pollard's rho (Brent's variant) where the curves fail;
 * never trial division up to D. */
#ifndef HEADALLOC_INTERNAL_DIVISORS_H
#define HEADALLOC_INTERNAL_DIVISORS_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/status.h>

/* The most distinct primes any 64-bit integer has. */
#define HA_MAX_PRIME_FACTORS 15

/* The most divisors any D < 2^63 has (D = 9200527969062830400;
 * 103,680 is the record below 10^18; see headalloc-model(7), DIVISORS OF LARGE BUDGETS). */
#define HA_MAX_DIVISORS 161280

struct ha_prime_power {
	uint64_t prime;
	unsigned exponent;
};

/* true (1) if n is prime, deterministically for every 64-bit n. */
int ha_is_prime(uint64_t n);

/* Factor n >= 1 into at most HA_MAX_PRIME_FACTORS prime powers, primes
 * ascending, into caller storage; *count receives how many (0 for n = 1).
 * HA_EINVAL for n = 0 or a NULL pointer. */
enum ha_status ha_factorize(uint64_t n,
                            struct ha_prime_power factors[HA_MAX_PRIME_FACTORS],
                            size_t *count);

/* All divisors of n (1 <= n <= HA_BUDGET_MAX) in ascending order, in a new
 * array the caller frees with free().  HA_EINVAL for n out of range or a
 * NULL pointer, HA_ENOMEM when allocation fails (then *out is NULL). */
enum ha_status ha_divisors(uint64_t n, uint64_t **out, size_t *count);

/* The number of divisors of n >= 1 from its factorisation, without listing
 * them (0 on error). */
uint64_t ha_divisor_count(uint64_t n);

#endif
