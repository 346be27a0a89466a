/* The bootstrap's random streams: one per (seed, resample index), so that
 * a resample draws the same runs whichever thread refits it and however
 * many threads there are.  splitmix64 (Steele, Lea and Flood 2014) maps
 * the 64-bit seed and the index into the 256-bit state of xoshiro256**
 * (Blackman and Vigna 2018): every seed in [0, 2^64) gives a different
 * first stream (the seed's mix is a bijection).  Not installed. */
#ifndef HEADALLOC_CALIBRATE_RNG_H
#define HEADALLOC_CALIBRATE_RNG_H

#include <stddef.h>
#include <stdint.h>

struct cal_rng {
	uint64_t s[4];
};

/* One splitmix64 step: advances *x and returns its mix. */
static inline uint64_t cal_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The stream of resample `index` under `seed`. */
static inline void cal_rng_init(struct cal_rng *r, uint64_t seed, uint64_t index)
{
	uint64_t x = seed;
	uint64_t key = cal_splitmix64(&x); /* a bijection of the seed */
	x = key ^ (index * UINT64_C(0xd1b54a32d192ed03));
	for (int i = 0; i < 4; i++)
		r->s[i] = cal_splitmix64(&x);
}

static inline uint64_t cal_rng_next(struct cal_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t result = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

/* Uniform in [0, n), n >= 1, without modulo bias (rejection). */
static inline uint64_t cal_rng_below(struct cal_rng *r, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;
	do
		v = cal_rng_next(r);
	while (v >= limit);
	return v % n;
}

/* A case resample of m runs from r: each run's multiplicity in weight. */
static inline void cal_rng_cases(struct cal_rng *r, double *weight, size_t m)
{
	for (size_t i = 0; i < m; i++)
		weight[i] = 0.0;
	for (size_t i = 0; i < m; i++)
		weight[cal_rng_below(r, m)] += 1.0;
}

#endif
