/* The rules of a list of budgets (see budget_list.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/scenario.h>

#include "alloc/solver_internal.h"
#include "base/error_internal.h"
#include "budget_list.h"

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* A sorted copy of budgets, or NULL when out of memory. */
static uint64_t *sorted_copy(const uint64_t *budgets, size_t count)
{
	uint64_t *sorted = malloc((count ? count : 1) * sizeof *sorted);
	if (!sorted)
		return NULL;
	if (count)
		memcpy(sorted, budgets, count * sizeof *sorted);
	qsort(sorted, count, sizeof *sorted, compare_u64);
	return sorted;
}

enum ha_status ha_budget_list_check(const uint64_t *budgets, size_t count,
                                    struct ha_error *err)
{
	if (count > HA_SCENARIO_MAX_BUDGETS)
		return ha_fail(err, HA_EINVAL, "expected at most %zu budgets, "
		               "found %zu", HA_SCENARIO_MAX_BUDGETS, count);
	uint64_t *sorted = sorted_copy(budgets, count);
	if (!sorted)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	uint64_t repeated = 0; /* budgets are >= 1 */
	for (size_t i = 1; i < count && !repeated; i++)
		if (sorted[i] == sorted[i - 1])
			repeated = sorted[i];
	free(sorted);
	if (repeated)
		return ha_fail(err, HA_EINVAL, "invalid value '%" PRIu64
		               "': expected " HA_BUDGET_LIST_ONCE, repeated);
	return HA_OK;
}

enum ha_status ha_budget_list_check_divisors(const uint64_t *budgets,
                                             size_t count,
                                             struct ha_error *err)
{
	uint64_t *sorted = sorted_copy(budgets, count);
	if (!sorted)
		return ha_fail(err, HA_ENOMEM, "out of memory");
	size_t distinct = 0;
	uint64_t divisors = 0;
	for (size_t i = 0; i < count; i++)
		if (i == 0 || sorted[i] != sorted[i - 1]) {
			distinct++;
			divisors += ha_divisor_count(sorted[i]);
		}
	free(sorted);
	if (divisors > HA_SCENARIO_MAX_DIVISORS)
		return ha_fail(err, HA_EINVAL, "the %zu distinct budgets have %"
		               PRIu64 " divisors in all; at most %" PRIu64 " are "
		               "allowed (see LIMITS in headalloc(1))", distinct,
		               divisors, HA_SCENARIO_MAX_DIVISORS);
	return HA_OK;
}
