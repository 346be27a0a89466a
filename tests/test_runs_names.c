/* CSV runs files under a tracker's column names (runs.h, struct
 * ha_runs_names): W&B- and MLflow-style headers read into the same runs
 * as headalloc's own names, head_dim from model_dim, and every refusal
 * of a mapping with its message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/runs.h>
#include "input/runs_internal.h"

static const char own[] =
	"heads,head_dim,samples,loss,loss_se\n"
	"8,16,1e6,3.25,\n"
	"4,32,1e7,2.5,0.01\n";

static struct ha_run *read_named(const char *text, const char *spec,
                                 size_t *count)
{
	struct ha_runs_names names;
	struct ha_error err;
	ha_runs_names_init(&names);
	cr_assert_eq(ha_runs_names_parse(&names, spec, &err), HA_OK, "%s",
	             err.message);
	struct ha_run *runs = NULL;
	enum ha_status st = ha_runs_read_string_named(text, strlen(text),
	                                              HA_RUNS_CSV, &names,
	                                              &runs, count, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column, err.message);
	return runs;
}

static void same_runs(const struct ha_run *a, const struct ha_run *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(a[i].heads, b[i].heads, "run %zu", i);
		cr_assert_eq(a[i].head_dim, b[i].head_dim, "run %zu", i);
		cr_assert_eq(a[i].samples, b[i].samples, "run %zu", i);
		cr_assert_eq(a[i].loss, b[i].loss, "run %zu", i);
		cr_assert(a[i].loss_se == b[i].loss_se ||
		          (isnan(a[i].loss_se) && isnan(b[i].loss_se)), "run %zu", i);
	}
}

static struct ha_run *read_own(size_t *n)
{
	struct ha_run *runs = NULL;
	struct ha_error err;
	cr_assert_eq(ha_runs_read_string_named(own, strlen(own), HA_RUNS_CSV,
	                                       NULL, &runs, n, &err), HA_OK);
	return runs;
}

Test(runs_names, wandb_header_reads_the_same_runs)
{
	size_t n0, n1;
	struct ha_run *want = read_own(&n0);
	struct ha_run *got = read_named(
		"\"Name\",\"n_head\",\"n_embd\",\"tokens\",\"val/loss\",\"val/loss_se\"\n"
		"\"a\",\"8\",\"128\",\"1e6\",\"3.25\",\"\"\n"
		"\"b\",\"4\",\"128\",\"1e7\",\"2.5\",\"0.01\"\n",
		"heads=n_head,model_dim=n_embd,samples=tokens,loss=val/loss,"
		"loss_se=val/loss_se", &n1);
	cr_assert_eq(n0, n1);
	same_runs(want, got, n0);
	free(want);
	free(got);
}

Test(runs_names, mlflow_header_reads_the_same_runs)
{
	size_t n0, n1;
	struct ha_run *want = read_own(&n0);
	struct ha_run *got = read_named(
		",run_id,metrics.val_loss,params.n_head,params.head_dim,loss_se,"
		"params.tokens,tags.mlflow.runName\n"
		"0,ab,3.25,8,16,,1e6,x\n"
		"1,cd,2.5,4,32,0.01,1e7,y\n",
		"heads=params.n_head,head_dim=params.head_dim,"
		"samples=params.tokens,loss=metrics.val_loss", &n1);
	cr_assert_eq(n0, n1);
	same_runs(want, got, n0);
	free(want);
	free(got);
}

Test(runs_names, model_dim_without_a_mapping)
{
	size_t n;
	struct ha_run *r = read_named("heads,model_dim,samples,loss\n8,128,1e6,3\n",
	                              "loss=loss", &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0].head_dim, 16);
	free(r);
}

static void bad_read(const char *text, const char *spec, long line,
                     long column, const char *needle)
{
	struct ha_runs_names names;
	struct ha_error err;
	ha_runs_names_init(&names);
	if (spec)
		cr_assert_eq(ha_runs_names_parse(&names, spec, &err), HA_OK);
	struct ha_run *runs = (struct ha_run *)1;
	size_t count = 7;
	enum ha_status st = ha_runs_read_string_named(text, strlen(text),
	                                              HA_RUNS_CSV, &names,
	                                              &runs, &count, &err);
	cr_assert_eq(st, HA_EFORMAT, "%d: %s", (int)st, err.message);
	cr_assert_null(runs);
	cr_assert_eq(count, 0);
	cr_assert_eq(err.line, line, "%ld:%ld %s", err.line, err.column, err.message);
	cr_assert_eq(err.column, column, "%ld:%ld %s", err.line, err.column,
	             err.message);
	cr_assert(strstr(err.message, needle), "\"%s\" lacks \"%s\"", err.message,
	          needle);
}

Test(runs_names, bad_files)
{
	bad_read("n_head,head_dim,samples,loss\n8,16,1e6,3\n", "heads=nhead", 1, 1,
	         "header: expected the column 'nhead' (named for heads), found none");
	bad_read("heads,model_dim,samples,loss\n8,100,1e6,3\n", NULL, 2, 3,
	         "row 1, model_dim: expected a multiple of heads (8), found '100'");
	bad_read("heads,head_dim,model_dim,samples,loss\n8,16,100,1e6,3\n", NULL,
	         2, 6, "row 1, model_dim: expected heads * head_dim = 128, found '100'");
	bad_read("heads,samples,loss\n8,1e6,3\n", NULL, 1, 1,
	         "header: expected the column 'head_dim'");
	bad_read("heads,samples,loss\n8,1e6,3\n", "model_dim=w", 1, 1,
	         "header: expected the column 'w' (named for model_dim)");
	/* optional columns, once named, must be there too */
	bad_read("heads,head_dim,samples,loss\n8,16,1e6,3\n", "kv_heads=n_kv", 1, 1,
	         "header: expected the column 'n_kv' (named for kv_heads), found none");
	bad_read("heads,head_dim,samples,loss\n8,16,1e6,3\n", "loss_se=sd", 1, 1,
	         "header: expected the column 'sd' (named for loss_se), found none");
	bad_read("heads,samples\n8,1e6\n", NULL, 1, 1,
	         "(and optionally loss_se and kv_heads)), found none");
	bad_read("n,head_dim,samples,loss,n\n", "heads=n", 1, 25,
	         "header: expected each column once, found 'n' again (column 1)");
}

static void bad_spec(const char *spec, const char *needle)
{
	struct ha_runs_names names;
	struct ha_error err;
	ha_runs_names_init(&names);
	cr_assert_eq(ha_runs_names_parse(&names, spec, &err), HA_EINVAL, "%s", spec);
	cr_assert(strstr(err.message, needle), "\"%s\" lacks \"%s\"", err.message,
	          needle);
}

Test(runs_names, bad_specs)
{
	bad_spec("width=n_embd", "expected a key heads, head_dim, model_dim, "
	         "samples, loss, loss_se or kv_heads, found 'width'");
	bad_spec("loss=a,loss=b", "expected each key once, found 'loss' again");
	bad_spec("heads=loss", "found 'loss' for both heads and loss");
	bad_spec("heads=a,loss=a", "found 'a' for both heads and loss");
	bad_spec("heads", "expected KEY=COLUMN");
	bad_spec("=x", "expected KEY=COLUMN");
	bad_spec("heads=", "heads: expected a column name");
	bad_spec("heads=n,", "expected KEY=COLUMN");
	char long_name[300];
	memset(long_name, 'a', sizeof long_name);
	memcpy(long_name, "loss=", 5);
	long_name[sizeof long_name - 1] = '\0';
	bad_spec(long_name, "loss: expected a column name of 1 to 255 bytes");
	struct ha_runs_names names;
	struct ha_error err;
	ha_runs_names_init(&names);
	cr_assert_eq(ha_runs_names_set(&names, "loss", "a\nb", &err), HA_EINVAL);
	cr_assert_eq(ha_runs_names_set(&names, "loss", "val/loss", &err), HA_OK);
	struct ha_run *runs = NULL;
	size_t n = 0;
	cr_assert_eq(ha_runs_read_string_named("runs: []", 8, HA_RUNS_YAML, &names,
	                                       &runs, &n, &err), HA_EINVAL);
	cr_assert(strstr(err.message, "expected a CSV file"));
}
