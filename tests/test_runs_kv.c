/* kv_heads in runs (runs.h): the key/value heads of grouped-query runs,
 * read from YAML, CSV (under its own name and a tracker's) and columns
 * in memory, defaulting to heads, and refused with its position when it
 * does not divide heads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/runs.h>
#include "input/runs_internal.h"

static struct ha_run *read_ok(const char *text, enum ha_runs_format f,
                              const struct ha_runs_names *names, size_t *n)
{
	struct ha_run *runs = NULL;
	struct ha_error err;
	enum ha_status st = ha_runs_read_string_named(text, strlen(text), f,
	                                              names, &runs, n, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column, err.message);
	return runs;
}

static void read_bad(const char *text, enum ha_runs_format f, long line,
                     long column, const char *needle)
{
	struct ha_run *runs = NULL;
	size_t n = 7;
	struct ha_error err;
	enum ha_status st = ha_runs_read_string_named(text, strlen(text), f,
	                                              NULL, &runs, &n, &err);
	cr_assert_eq(st, HA_EFORMAT, "status %d for %s", (int)st, text);
	cr_assert_null(runs);
	cr_assert_eq(n, 0);
	cr_assert_eq(err.line, line, "%ld:%ld %s", err.line, err.column, err.message);
	cr_assert_eq(err.column, column, "%ld:%ld %s", err.line, err.column,
	             err.message);
	cr_assert(strstr(err.message, needle), "\"%s\" lacks \"%s\"", err.message,
	          needle);
}

Test(runs_kv, yaml_and_csv_read_kv_heads_defaulting_to_heads)
{
	size_t n;
	struct ha_run *y = read_ok(
		"runs:\n"
		"  - {heads: 8, head_dim: 16, samples: 1e6, loss: 3.2, kv_heads: 2}\n"
		"  - {heads: 4, head_dim: 32, samples: 1e6, loss: 3.1}\n",
		HA_RUNS_YAML, NULL, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(y[0].kv_heads, 2);
	cr_assert_eq(y[1].kv_heads, 4);
	free(y);
	struct ha_run *c = read_ok("heads,kv_heads,head_dim,samples,loss\n"
	                           "8,1,16,1e6,3.2\n"
	                           "8,,16,1e6,3.2\n"
	                           "6,3,16,1e6,3.2\n",
	                           HA_RUNS_CSV, NULL, &n);
	cr_assert_eq(n, 3);
	cr_assert_eq(c[0].kv_heads, 1);
	cr_assert_eq(c[1].kv_heads, 8);
	cr_assert_eq(c[2].kv_heads, 3);
	free(c);
	struct ha_run *w = read_ok("heads,head_dim,samples,loss\n4,8,1e6,2\n",
	                           HA_RUNS_CSV, NULL, &n);
	cr_assert_eq(w[0].kv_heads, 4);
	free(w);
}

Test(runs_kv, a_tracker_name_maps_to_kv_heads)
{
	struct ha_runs_names names;
	ha_runs_names_init(&names);
	struct ha_error err;
	cr_assert_eq(ha_runs_names_parse(&names, "heads=n_head,kv_heads=n_kv_head",
	                                 &err), HA_OK, "%s", err.message);
	size_t n;
	struct ha_run *r = read_ok("n_head,n_kv_head,head_dim,samples,loss\n"
	                           "32,8,128,1e9,2.5\n", HA_RUNS_CSV, &names, &n);
	cr_assert_eq(r[0].heads, 32);
	cr_assert_eq(r[0].kv_heads, 8);
	free(r);
}

Test(runs_kv, kv_heads_that_does_not_divide_heads_is_refused_where_it_stands)
{
	read_bad("runs:\n  - {heads: 8, head_dim: 16, samples: 1e6, loss: 3.2, "
	         "kv_heads: 3}\n", HA_RUNS_YAML, 2, 65,
	         "runs[0].kv_heads: expected a divisor of heads (8), found 3");
	read_bad("runs:\n  - {heads: 8, head_dim: 16, samples: 1e6, loss: 3.2, "
	         "kv_heads: 0}\n", HA_RUNS_YAML, 2, 65,
	         "runs[0].kv_heads: expected an integer from 1 to");
	read_bad("runs:\n  - {heads: 8, head_dim: 16, samples: 1e6, loss: 3.2, "
	         "kv_heads: 16}\n", HA_RUNS_YAML, 2, 65,
	         "expected a divisor of heads (8), found 16");
	read_bad("heads,head_dim,samples,loss,kv_heads\n8,16,1e6,3.2,2\n"
	         "8,16,1e6,3.2,5\n", HA_RUNS_CSV, 3, 14,
	         "row 2, kv_heads: expected a divisor of heads (8), found 5");
	read_bad("heads,head_dim,samples,loss,kv_heads\n8,16,1e6,3.2,2.5\n",
	         HA_RUNS_CSV, 2, 14,
	         "row 1, kv_heads: expected an integer from 1 to 9223372036854775807, "
	         "found '2.5'");
}

Test(runs_kv, columns_in_memory)
{
	const double heads[] = {8, 8, 6}, dims[] = {16, 16, 16};
	const double samples[] = {1e6, 1e7, 1e8}, loss[] = {3, 2, 1};
	const double kv[] = {2, NAN, 3}, bad[] = {2, 3, 3};
	struct ha_runs_columns c = {3, heads, dims, NULL, samples, loss, NULL, kv, NULL};
	struct ha_run *r = NULL;
	size_t n;
	struct ha_error err;
	cr_assert_eq(ha_runs_from_columns(&c, &r, &n, &err), HA_OK, "%s", err.message);
	cr_assert_eq(r[0].kv_heads, 2);
	cr_assert_eq(r[1].kv_heads, 8);
	cr_assert_eq(r[2].kv_heads, 3);
	free(r);
	c.kv_heads = NULL;
	cr_assert_eq(ha_runs_from_columns(&c, &r, &n, &err), HA_OK, "%s", err.message);
	cr_assert_eq(r[2].kv_heads, 6);
	free(r);
	c.kv_heads = bad;
	cr_assert_eq(ha_runs_from_columns(&c, &r, &n, &err), HA_EFORMAT);
	cr_assert_null(r);
	cr_assert_eq(err.line, 2);
	cr_assert_eq(err.column, 7);
	cr_assert(strstr(err.message, "row 2, kv_heads: expected a divisor of heads"),
	          "%s", err.message);
}
