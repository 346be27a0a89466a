/* The rules of a list of budgets given by a caller (library-internal):
 * the command line's --budget and the Python package's budgets check
 * them here, so both refuse the same lists with the same words. */
#ifndef HEADALLOC_BUDGET_LIST_H
#define HEADALLOC_BUDGET_LIST_H

#include <stddef.h>
#include <stdint.h>

#include <headalloc/error.h>
#include <headalloc/status.h>

/* What a budget given twice breaks, in "expected ..." words. */
#define HA_BUDGET_LIST_ONCE "each budget once, found it twice"

/* budgets[0 .. count) (each already from 1 to HA_BUDGET_MAX): at most
 * HA_SCENARIO_MAX_BUDGETS of them, each once.  HA_OK, or HA_EINVAL with
 * err's message in the words that follow the list's name ("expected at
 * most 100000 budgets, found 100001", "invalid value '512': expected
 * each budget once, found it twice": the smallest budget given twice);
 * HA_ENOMEM. */
enum ha_status ha_budget_list_check(const uint64_t *budgets, size_t count,
                                    struct ha_error *err);

/* The distinct budgets' divisors, which the solvers list, at most
 * HA_SCENARIO_MAX_DIVISORS in all: HA_OK, or HA_EINVAL with err's
 * message after the list's name ("the 80 distinct budgets have 5195376
 * divisors in all; at most 4194304 are allowed (see LIMITS in
 * headalloc(1))").  budgets may repeat a value; each counts once.
 * HA_ENOMEM. */
enum ha_status ha_budget_list_check_divisors(const uint64_t *budgets,
                                             size_t count,
                                             struct ha_error *err);

#endif
