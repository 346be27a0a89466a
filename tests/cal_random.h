/* What the calibration tests share besides their runs: a 64-bit linear
 * congruential generator (Knuth's MMIX constants), seeded by the test
 * (CAL_TEST_SEED, or rng_state set) so that a failure repeats, with a
 * uniform deviate in (0, 1) and a normal one by Box–Muller; and whether
 * a calibration warned. */
#ifndef HA_TEST_CAL_RANDOM_H
#define HA_TEST_CAL_RANDOM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <headalloc/calibrate.h>

#ifndef CAL_TEST_SEED
#define CAL_TEST_SEED 12345
#endif

static uint64_t rng_state = CAL_TEST_SEED;

static inline double unit(void)
{
	rng_state = rng_state * UINT64_C(6364136223846793005) +
	            UINT64_C(1442695040888963407);
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static inline double gauss(void)
{
	return sqrt(-2.0 * log(unit())) * cos(6.283185307179586 * unit());
}

/* Whether c warned of kind, in a message holding text (NULL: any). */
static inline int warned(const struct ha_calibration *c,
                         enum ha_cal_warning_kind kind, const char *text)
{
	for (size_t i = 0; i < c->warning_count; i++)
		if (c->warnings[i].kind == kind &&
		    (!text || strstr(c->warnings[i].message, text)))
			return 1;
	return 0;
}

#endif
