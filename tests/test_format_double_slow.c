/* The double formatter against the snprintf/strtod ha_format_double it
 * replaced on 10^8 random values (half any bit pattern, half of the kinds
 * a report prints), 10^6 of them also through the exact path.  Minutes,
 * not seconds: meson suite 'slow', outside a plain `meson test`. */
#include "test_format_double_common.c"

#include <time.h>

Test(format_double_slow, hundred_million_random_values, .timeout = 3600)
{
	enum { VALUES = 100000000 };
	struct rng r = {UINT64_C(0xBB67AE8584CAA73B)};
	struct timespec start, end;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0; i < VALUES / 2; i++) {
		check_value(random_bits(&r), i % 100 == 0);
		check_value(random_typical(&r), i % 100 == 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	cr_log_info("%d values checked in %.1f s", VALUES,
	            (double)(end.tv_sec - start.tv_sec) +
	                    1e-9 * (double)(end.tv_nsec - start.tv_nsec));
}

Test(format_double_slow, every_eight_digit_block)
{
	char got[9] = "", want[16];
	for (uint32_t y = 0; y < 100000000; y++) {
		put8(got, y);
		snprintf(want, sizeof want, "%08" PRIu32, y);
		if (strcmp(got, want) != 0)
			cr_assert_fail("put8(%" PRIu32 ") gives %s", y, got);
	}
}
