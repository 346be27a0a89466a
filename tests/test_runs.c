/* Runs files (runs.h): the YAML and the CSV reader on good files, on the
 * quirks of exported CSV, on random runs written by an independent writer
 * and read back, and on a bad file for every error path, with its
 * position and message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <headalloc/model.h>
#include <headalloc/runs.h>
#include "input/runs_internal.h"

/* Read text in a format; on HA_OK the caller frees *runs. */
static enum ha_status read_string(const char *text, enum ha_runs_format f,
                                  struct ha_run **runs, size_t *count,
                                  struct ha_error *err)
{
	return ha_runs_read_string_named(text, strlen(text), f, NULL, runs, count,
	                                 err);
}

static struct ha_run *read_ok(const char *text, enum ha_runs_format f,
                              size_t *count)
{
	struct ha_run *runs = NULL;
	struct ha_error err;
	enum ha_status st = read_string(text, f, &runs, count, &err);
	cr_assert_eq(st, HA_OK, "%ld:%ld: %s", err.line, err.column, err.message);
	cr_assert_eq(err.status, HA_OK);
	cr_assert_not_null(runs);
	cr_assert_geq(*count, 1);
	return runs;
}

/* The text must fail with this status at line:column, with a message
 * containing needle, and leave nothing behind. */
static void read_bad(const char *text, size_t length, enum ha_runs_format f,
                     enum ha_status status, long line, long column,
                     const char *needle)
{
	struct ha_run *runs = (struct ha_run *)1;
	size_t count = 7;
	struct ha_error err;
	enum ha_status st = ha_runs_read_string_named(text, length, f, NULL, &runs,
	                                              &count, &err);
	cr_assert_eq(st, status, "status %d for: %s (%s)", (int)st, text,
	             err.message);
	cr_assert_eq(err.status, status);
	cr_assert_null(runs);
	cr_assert_eq(count, 0);
	cr_assert_null(err.file);
	cr_assert_eq(err.line, line, "line %ld:%ld for: %s (%s)", err.line,
	             err.column, text, err.message);
	cr_assert_eq(err.column, column, "column %ld:%ld for: %s (%s)",
	             err.line, err.column, text, err.message);
	cr_assert(strstr(err.message, needle) != NULL,
	          "message \"%s\" lacks \"%s\"", err.message, needle);
}

static void bad_csv(const char *text, long line, long column,
                    const char *needle)
{
	read_bad(text, strlen(text), HA_RUNS_CSV, HA_EFORMAT, line, column,
	         needle);
}

static void bad_yaml(const char *text, long line, long column,
                     const char *needle)
{
	read_bad(text, strlen(text), HA_RUNS_YAML, HA_EFORMAT, line, column,
	         needle);
}

static int same_run(const struct ha_run *a, const struct ha_run *b)
{
	return a->heads == b->heads && a->head_dim == b->head_dim &&
	       a->samples == b->samples && a->loss == b->loss && a->kv_heads == b->kv_heads &&
	       (a->loss_se == b->loss_se ||
	        (isnan(a->loss_se) && isnan(b->loss_se)));
}

/* ---- good files ---------------------------------------------------------- */

Test(runs, yaml_and_csv_of_the_same_runs_agree)
{
	size_t ny, nc;
	struct ha_run *y = read_ok(
		"# two runs\n"
		"runs:\n"
		"  - {heads: 8, head_dim: 16, samples: 1e6, loss: 3.25}\n"
		"  - loss_se: 0.01\n"
		"    loss: 2.5\n"
		"    samples: 10000000\n"
		"    head_dim: 32\n"
		"    heads: 4\n", HA_RUNS_YAML, &ny);
	struct ha_run *c = read_ok("heads,head_dim,samples,loss,loss_se\n"
	                           "8,16,1e6,3.25,\n"
	                           "4,32,10000000,2.5,0.01\n",
	                           HA_RUNS_CSV, &nc);
	cr_assert_eq(ny, 2);
	cr_assert_eq(nc, 2);
	cr_assert_eq(y[0].heads, 8);
	cr_assert_eq(y[0].head_dim, 16);
	cr_assert_eq(y[0].samples, 1e6);
	cr_assert_eq(y[0].loss, 3.25);
	cr_assert(isnan(y[0].loss_se), "an absent loss_se is NaN");
	cr_assert_eq(y[1].loss_se, 0.01);
	for (size_t i = 0; i < 2; i++)
		cr_assert(same_run(&y[i], &c[i]), "run %zu differs", i);
	free(y);
	free(c);
}

Test(runs, csv_as_trackers_export_it)
{
	/* A BOM, CRLF, an unnamed index column, reordered columns, quoted
	 * cells (numbers too), "" inside quotes, a quoted line break in an
	 * ignored column, blanks around cells, blank and blank-only lines,
	 * non-ASCII text in an ignored column. */
	size_t n;
	struct ha_run *r = read_ok(
		"\xEF\xBB\xBF\r\n"
		",name,loss,heads, head_dim ,samples,notes\r\n"
		"0,\"run \"\"a\"\", 1\",\"3.25\",8 , 16,1e6,\"line one\r\nline two\"\r\n"
		"   \t \r\n"
		"\n"
		"1,caf\xC3\xA9, 2.5 ,4,\t32\t,\"1e7\",\r\n"
		"\r\n", HA_RUNS_CSV, &n);
	cr_assert_eq(n, 2);
	struct ha_run want[2] = {{8, 16, 1e6, 3.25, NAN, 8}, {4, 32, 1e7, 2.5, NAN, 4}};
	for (size_t i = 0; i < 2; i++)
		cr_assert(same_run(&r[i], &want[i]), "run %zu: %llu %llu %g %g", i,
		          (unsigned long long)r[i].heads,
		          (unsigned long long)r[i].head_dim, r[i].samples,
		          r[i].loss);
	free(r);
}

Test(runs, csv_without_a_final_line_end)
{
	size_t n;
	struct ha_run *r = read_ok("heads,head_dim,samples,loss\n2,3,4,5",
	                           HA_RUNS_CSV, &n);
	cr_assert_eq(n, 1);
	cr_assert(same_run(r, &(struct ha_run){2, 3, 4.0, 5.0, NAN, 2}));
	free(r);
	/* A last line of blanks is blank with or without its line end. */
	r = read_ok("heads,head_dim,samples,loss\n2,3,4,5\n \t", HA_RUNS_CSV, &n);
	cr_assert_eq(n, 1);
	free(r);
	r = read_ok("heads,head_dim,samples,loss\n2,3,4,5\r\n  \r\n", HA_RUNS_CSV, &n);
	cr_assert_eq(n, 1);
	free(r);
}

/* splitmix64, for random runs. */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Random runs written by an independent writer (%.17g, random quoting,
 * blanks, column order, line ends and blank lines) read back exactly, in
 * both formats. */
Test(runs, random_runs_read_back_exactly)
{
	uint64_t s = 42;
	for (int trial = 0; trial < 200; trial++) {
		size_t m = 1 + next_random(&s) % 40;
		struct ha_run *want = calloc(m, sizeof *want);
		cr_assert_not_null(want);
		for (size_t i = 0; i < m; i++) {
			want[i].heads = 1 + next_random(&s) % 1000;
			want[i].head_dim = 1 + next_random(&s) % 1000;
			want[i].samples = 1.0 + exp((double)(next_random(&s) % 6000) / 100.0);
			want[i].loss = exp((double)(next_random(&s) % 2000) / 100.0 - 10.0);
			want[i].loss_se = next_random(&s) % 3 ? NAN : want[i].loss / 97.0;
			want[i].kv_heads = want[i].heads; /* absent: heads */
		}
		/* Column order: a rotation of the five, plus a junk column. */
		static const char *const names[5] = {"heads", "head_dim", "samples",
		                                     "loss", "loss_se"};
		size_t rot = next_random(&s) % 5;
		size_t cap = 256 + m * 256;
		char *csv = malloc(cap), *yaml = malloc(cap);
		cr_assert(csv && yaml);
		size_t c = 0, y = 0;
		const char *eol = trial % 2 ? "\r\n" : "\n";
		c += (size_t)snprintf(csv + c, cap - c, "junk");
		for (size_t k = 0; k < 5; k++)
			c += (size_t)snprintf(csv + c, cap - c, ",%s", names[(k + rot) % 5]);
		c += (size_t)snprintf(csv + c, cap - c, "%s", eol);
		y += (size_t)snprintf(yaml + y, cap - y, "runs:\n");
		for (size_t i = 0; i < m; i++) {
			const struct ha_run *r = &want[i];
			char cell[5][40];
			snprintf(cell[0], 40, "%llu", (unsigned long long)r->heads);
			snprintf(cell[1], 40, "%llu", (unsigned long long)r->head_dim);
			snprintf(cell[2], 40, "%.17g", r->samples);
			snprintf(cell[3], 40, "%.17g", r->loss);
			if (isnan(r->loss_se))
				cell[4][0] = '\0';
			else
				snprintf(cell[4], 40, "%.17g", r->loss_se);
			c += (size_t)snprintf(csv + c, cap - c, "x%zu", i);
			for (size_t k = 0; k < 5; k++) {
				const char *v = cell[(k + rot) % 5];
				if (next_random(&s) % 2)
					c += (size_t)snprintf(csv + c, cap - c, ", \"%s\"\t", v);
				else
					c += (size_t)snprintf(csv + c, cap - c, ",%s", v);
			}
			c += (size_t)snprintf(csv + c, cap - c, "%s%s", eol,
			                      next_random(&s) % 5 ? "" : eol);
			y += (size_t)snprintf(yaml + y, cap - y,
			                      "  - {heads: %s, head_dim: %s, samples: %s, "
			                      "loss: %s", cell[0], cell[1], cell[2],
			                      cell[3]);
			if (!isnan(r->loss_se))
				y += (size_t)snprintf(yaml + y, cap - y, ", loss_se: %s",
				                      cell[4]);
			y += (size_t)snprintf(yaml + y, cap - y, "}\n");
		}
		cr_assert_lt(c, cap);
		cr_assert_lt(y, cap);
		size_t nc, ny;
		struct ha_run *rc = read_ok(csv, HA_RUNS_CSV, &nc);
		struct ha_run *ry = read_ok(yaml, HA_RUNS_YAML, &ny);
		cr_assert_eq(nc, m);
		cr_assert_eq(ny, m);
		for (size_t i = 0; i < m; i++) {
			cr_assert(same_run(&rc[i], &want[i]), "trial %d, CSV run %zu", trial, i);
			cr_assert(same_run(&ry[i], &want[i]), "trial %d, YAML run %zu", trial, i);
		}
		free(rc);
		free(ry);
		free(csv);
		free(yaml);
		free(want);
	}
}

/* ---- bad files ------------------------------------------------------------ */

Test(runs, yaml_errors_name_the_value)
{
	bad_yaml("runs: []\n", 1, 7, "runs: expected at least one run, found an empty list");
	bad_yaml("runs:\n  - {heads: 0, head_dim: 8, samples: 1e6, loss: 2}\n",
	         2, 13, "runs[0].heads: expected an integer from 1 to 9223372036854775807, found '0'");
	bad_yaml("runs:\n  - {heads: 1, head_dim: 8, samples: 1e6, loss: 2}\n"
	         "  - {heads: 1, head_dim: 8, samples: 1, loss: 2}\n",
	         3, 38, "runs[1].samples: expected a number > 1 and <= 1e300, found '1'");
	bad_yaml("runs:\n  - {heads: 1, head_dim: 8, samples: 1e301, loss: 2}\n",
	         2, 38, "runs[0].samples: expected a number > 1 and <= 1e300");
	bad_yaml("runs:\n  - {heads: 1, head_dim: 8, samples: 9, loss: 0}\n",
	         2, 47, "runs[0].loss: expected a number > 0, found '0'");
	bad_yaml("runs:\n  - {heads: 1, head_dim: 8, samples: 9, loss: 1, loss_se: -1}\n",
	         2, 59, "runs[0].loss_se: expected a number > 0, found '-1'");
	bad_yaml("runs:\n  - {heads: 1, head_dim: 8, samples: 9}\n",
	         2, 5, "runs[0]: expected the key 'loss' in this mapping, found none");
	bad_yaml("runs:\n  - {heads: 1, heads: 2}\n", 2, 16,
	         "runs[0]: expected each key once, found 'heads' again");
	bad_yaml("runs:\n  - {heads: 1, head_dim: 8, samples: 9, loss: 1, lr: 3}\n",
	         2, 50, "expected one of the keys heads, head_dim, samples, loss, loss_se, kv_heads, found 'lr'");
	bad_yaml("runs:\n  - {heads: 3037000500, head_dim: 3037000500, samples: 9, loss: 1}\n",
	         2, 5, "runs[0]: expected heads * head_dim <= 9223372036854775807, found 3037000500 * 3037000500");
	bad_yaml("heads: 1\n", 1, 1, "expected one of the keys runs, found 'heads'");
	bad_yaml("- 1\n", 1, 1, "expected a mapping with the key 'runs', found a list");
	bad_yaml("runs: 3\n", 1, 7, "runs: expected a list of runs, found '3'");
	bad_yaml("{}\n", 1, 1, "expected the key 'runs' in this mapping, found none");
	bad_yaml("runs:\n  - [1, 2]\n", 2, 5,
	         "runs[0]: expected a mapping {heads, head_dim, samples, loss, loss_se?}, found a list");
	bad_yaml("", 1, 1, "expected a mapping with the key 'runs'");
}

Test(runs, csv_errors_name_the_row_and_column)
{
	static const char h[] = "heads,head_dim,samples,loss\n";
	char text[512];
#define WITH_HEADER(rows) (snprintf(text, sizeof text, "%s%s", h, rows), text)
	bad_csv(WITH_HEADER("1,2,3,4\n0,2,3,4\n"), 3, 1,
	        "row 2, heads: expected an integer from 1 to 9223372036854775807, found '0'");
	bad_csv(WITH_HEADER("1,2.5,3,4\n"), 2, 3,
	        "row 1, head_dim: expected an integer from 1 to 9223372036854775807, found '2.5'");
	bad_csv(WITH_HEADER("1,2,1,4\n"), 2, 5,
	        "row 1, samples: expected a number > 1 and <= 1e300, found '1'");
	bad_csv(WITH_HEADER("1,2,3,-4\n"), 2, 7, "row 1, loss: expected a number > 0, found '-4'");
	bad_csv(WITH_HEADER("1,2,3,inf\n"), 2, 7, "row 1, loss: expected a number > 0, found 'inf'");
	bad_csv(WITH_HEADER("1,2,3,\"\"\n"), 2, 7, "row 1, loss: expected a number > 0, found an empty quoted cell");
	bad_csv(WITH_HEADER("1,2,3\n"), 2, 6, "row 1: expected 4 cells as in the header, found 3");
	bad_csv(WITH_HEADER("1,2,3,4,5\n"), 2, 9, "row 1: expected 4 cells as in the header, found more");
	bad_csv(WITH_HEADER("3037000500,3037000500,3,4\n"), 2, 12,
	        "row 1: expected heads * head_dim <= 9223372036854775807");
	bad_csv("heads,head_dim,samples,loss,loss_se\n1,2,3,4,0\n", 2, 9,
	        "row 1, loss_se: expected a number > 0, found '0'");
	/* Positions count characters, not bytes: "é" is one column. */
	bad_csv("name,heads,head_dim,samples,loss\n\xC3\xA9,1,2,3,x\n", 2, 9,
	        "row 1, loss: expected a number > 0, found 'x'");
	/* A quoted line break moves the line on. */
	bad_csv("name,heads,head_dim,samples,loss\n\"a\nb\",1,2,3,x\n", 3, 10,
	        "row 1, loss: expected a number > 0, found 'x'");
#undef WITH_HEADER
}

Test(runs, csv_syntax_errors)
{
	bad_csv("", 1, 1, "expected a header row naming the columns heads, head_dim (or model_dim), samples and loss");
	bad_csv("\n  \n\r\n", 4, 1, "found an empty file");
	bad_csv("heads,head_dim,samples,loss\n", 1, 1,
	        "expected at least one run after the header row, found none");
	bad_csv("heads,head_dim,loss\n1,2,3\n", 1, 1,
	        "header: expected the column 'samples'");
	bad_csv("heads,head_dim,samples,loss,heads\n", 1, 29,
	        "header: expected each column once, found 'heads' again (column 1)");
	bad_csv("heads,head_dim,samples,loss\n1,2\"x\",3,4\n", 2, 4,
	        "expected a quote only around a whole cell");
	bad_csv("heads,head_dim,samples,loss\n1,\"2\" x,3,4\n", 2, 7,
	        "expected a comma or the end of the line after a quoted cell, found 'x'");
	bad_csv("heads,head_dim,samples,loss\n1,2,3,\"4\n", 2, 7,
	        "expected a closing quote for this cell, found the end of the file");
	bad_csv("heads,head_dim,samples,loss\r1,2,3,4\r\n", 1, 28,
	        "expected a line feed after a carriage return");
	bad_csv("heads,head_dim,samples,loss\n1,2,3,4\x01\n", 2, 8,
	        "expected text, found the control character 0x01");
	bad_csv("heads,head_dim,samples,loss\n1,2,3,4\x7f\n", 2, 8,
	        "expected text, found the control character 0x7F");
	bad_csv("heads,head_dim,samples,loss\n1,2,3,\xC3\n", 2, 7,
	        "expected UTF-8 text, found the byte 0xC3");
	/* Overlong forms and surrogates are not UTF-8. */
	bad_csv("heads,head_dim,samples,loss\n1,2,3,\xC0\xAF\n", 2, 7,
	        "expected UTF-8 text, found the byte 0xC0");
	bad_csv("heads,head_dim,samples,loss\n1,2,3,\xED\xA0\x80\n", 2, 7,
	        "expected UTF-8 text, found the byte 0xED");
	bad_csv("\xFF\xFEh\0", 1, 1, "expected UTF-8 text, found a UTF-16 byte-order mark");
	static const char nul[] = "heads,head_dim,samples,loss\n1,2,3,4\0\n";
	read_bad(nul, sizeof nul - 1, HA_RUNS_CSV, HA_EFORMAT, 2, 8,
	         "expected text, found a NUL byte");
	char long_cell[200];
	snprintf(long_cell, sizeof long_cell, "heads,head_dim,samples,loss\n1,2,3,%0100d\n", 4);
	bad_csv(long_cell, 2, 7, "row 1, loss: expected a number > 0, found '0000");
}

Test(runs, at_most_the_maximum_of_runs)
{
	size_t rows = HA_RUNS_MAX + 1, cap = 64 + rows * 12;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	size_t n = (size_t)snprintf(text, cap, "heads,head_dim,samples,loss\n");
	for (size_t i = 0; i < rows; i++)
		n += (size_t)snprintf(text + n, cap - n, "1,2,3,4\n");
	read_bad(text, n, HA_RUNS_CSV, HA_EFORMAT, (long)HA_RUNS_MAX + 2, 1,
	         "expected at most 100000 runs, found more");
	/* One fewer is fine. */
	size_t count;
	struct ha_run *runs = NULL;
	cr_assert_eq(ha_runs_read_string_named(text, n - 8, HA_RUNS_CSV, NULL,
	                                       &runs, &count, NULL), HA_OK);
	cr_assert_eq(count, HA_RUNS_MAX);
	free(runs);
	free(text);
}

Test(runs, arguments_and_formats)
{
	struct ha_run *runs;
	size_t count;
	cr_assert_eq(ha_runs_read_string_named("x", 1, HA_RUNS_AUTO, NULL, &runs, &count, NULL),
	             HA_EINVAL);
	cr_assert_eq(ha_runs_read_string_named(NULL, 1, HA_RUNS_CSV, NULL, &runs, &count, NULL),
	             HA_EINVAL);
	cr_assert_eq(ha_runs_read_string_named("x", 1, HA_RUNS_CSV, NULL, NULL, &count, NULL),
	             HA_EINVAL);
	cr_assert_eq(ha_runs_read_file(NULL, HA_RUNS_CSV, &runs, &count, NULL),
	             HA_EINVAL);
	cr_assert_eq(ha_runs_format_of("a.csv"), HA_RUNS_CSV);
	cr_assert_eq(ha_runs_format_of("dir.csv/A.CsV"), HA_RUNS_CSV);
	cr_assert_eq(ha_runs_format_of(".csv"), HA_RUNS_CSV);
	cr_assert_eq(ha_runs_format_of("a.yaml"), HA_RUNS_YAML);
	cr_assert_eq(ha_runs_format_of("acsv"), HA_RUNS_YAML);
	cr_assert_eq(ha_runs_format_of("csv"), HA_RUNS_YAML);
	cr_assert_eq(ha_runs_format_of(NULL), HA_RUNS_YAML);
}

/* Files: the format by the name, the file named in errors, exit-1 kinds of
 * failure for a file that cannot be opened. */
Test(runs, files_by_their_names)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof dir, "%s/ha-runs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	char csv[600], yaml[600];
	snprintf(csv, sizeof csv, "%s/r.CSV", dir);
	snprintf(yaml, sizeof yaml, "%s/r.txt", dir);
	FILE *f = fopen(csv, "wb");
	cr_assert_not_null(f);
	fputs("heads,head_dim,samples,loss\n1,2,3,4\n1,2,3,x\n", f);
	cr_assert_eq(fclose(f), 0);
	f = fopen(yaml, "wb");
	cr_assert_not_null(f);
	fputs("runs: [{heads: 1, head_dim: 2, samples: 3, loss: 4}]\n", f);
	cr_assert_eq(fclose(f), 0);

	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_error err;
	cr_assert_eq(ha_runs_read_file(yaml, HA_RUNS_AUTO, &runs, &count, &err), HA_OK);
	cr_assert_eq(count, 1);
	free(runs);
	cr_assert_eq(ha_runs_read_file(csv, HA_RUNS_AUTO, &runs, &count, &err),
	             HA_EFORMAT);
	cr_assert_eq(err.file, csv);
	cr_assert_eq(err.line, 3);
	cr_assert_eq(err.column, 7);
	/* The YAML reader on the CSV file: a plain scalar, not a mapping. */
	cr_assert_eq(ha_runs_read_file(csv, HA_RUNS_YAML, &runs, &count, &err),
	             HA_EFORMAT);
	cr_assert_eq(err.file, csv);
	cr_assert(strstr(err.message, "expected a mapping with the key 'runs'"));
	unlink(csv);
	unlink(yaml);
	cr_assert_eq(ha_runs_read_file(csv, HA_RUNS_AUTO, &runs, &count, &err), HA_EIO);
	cr_assert_eq(err.file, csv);
	cr_assert_eq(err.line, 0);
	cr_assert(strstr(err.message, "cannot open the file"), "%s", err.message);
	cr_assert_eq(ha_runs_read_file(yaml, HA_RUNS_AUTO, &runs, &count, &err), HA_EIO);
	cr_assert_eq(err.file, yaml);
	cr_assert_null(runs);
	/* A directory is not a runs file. */
	cr_assert_eq(ha_runs_read_file(dir, HA_RUNS_CSV, &runs, &count, &err), HA_EIO);
	rmdir(dir);
}

/* ---- runs from columns in memory (ha_runs_from_columns) --------------- */

/* The runs of a DataFrame's columns are those of the same table as CSV,
 * field for field; head_dim derived from model_dim where only it is
 * given; each bad value named by its row and column. */
Test(runs, from_columns_as_a_dataframe_gives_them)
{
	static const char csv[] =
		"heads,head_dim,samples,loss,loss_se\n"
		"8,16,1e6,3.21,\n"
		"4,32,1e7,2.87,0.01\n"
		"16,8,3e8,2.5,0.02\n";
	struct ha_run *want = NULL, *got = NULL, *derived = NULL;
	size_t nw = 0, ng = 0, nd = 0;
	struct ha_error err;
	cr_assert_eq(ha_runs_read_string_named(csv, sizeof csv - 1, HA_RUNS_CSV, NULL,
	                                       &want, &nw, &err),
	             HA_OK, "%s", err.message);
	const double heads[] = {8, 4, 16}, dims[] = {16, 32, 8}, width[] = {128, 128, 128};
	const double samples[] = {1e6, 1e7, 3e8}, loss[] = {3.21, 2.87, 2.5};
	const double se[] = {NAN, 0.01, 0.02};
	struct ha_runs_columns c = {3, heads, dims, NULL, samples, loss, se, NULL, NULL};
	cr_assert_eq(ha_runs_from_columns(&c, &got, &ng, &err), HA_OK, "%s", err.message);
	struct ha_runs_columns w = {3, heads, NULL, width, samples, loss, se, NULL, NULL};
	cr_assert_eq(ha_runs_from_columns(&w, &derived, &nd, &err), HA_OK, "%s", err.message);
	cr_assert_eq(ng, nw);
	cr_assert_eq(nd, nw);
	for (size_t i = 0; i < nw; i++) {
		const struct ha_run *runs[] = {&got[i], &derived[i]};
		for (int k = 0; k < 2; k++) {
			cr_assert_eq(runs[k]->heads, want[i].heads);
			cr_assert_eq(runs[k]->head_dim, want[i].head_dim);
			cr_assert_eq(runs[k]->samples, want[i].samples);
			cr_assert_eq(runs[k]->loss, want[i].loss);
			cr_assert_eq(isnan(runs[k]->loss_se), isnan(want[i].loss_se));
			if (!isnan(want[i].loss_se))
				cr_assert_eq(runs[k]->loss_se, want[i].loss_se);
		}
	}
	free(want);
	free(got);
	free(derived);
}

static void columns_bad(const struct ha_runs_columns *c, enum ha_status status,
                        long row, long column, const char *needle)
{
	struct ha_run *runs = (struct ha_run *)1;
	size_t count = 7;
	struct ha_error err;
	cr_assert_eq(ha_runs_from_columns(c, &runs, &count, &err), status, "%s", err.message);
	cr_assert_null(runs);
	cr_assert_eq(count, 0);
	cr_assert_eq(err.line, row, "%s", err.message);
	cr_assert_eq(err.column, column, "%s", err.message);
	cr_assert(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
}

Test(runs, from_columns_refuses_values_outside_their_domains)
{
	const double heads[] = {8, 4}, dims[] = {16, 32}, samples[] = {1e6, 1e7};
	const double loss[] = {3.2, 2.9};
	struct ha_runs_columns ok = {2, heads, dims, NULL, samples, loss, NULL, NULL, NULL};
	struct ha_runs_columns c = ok;
	const double half[] = {8, 2.5};
	c.heads = half;
	columns_bad(&c, HA_EFORMAT, 2, 1, "row 2, heads: expected an integer from 1 to "
	            "9223372036854775807, found '2.5'");
	c = ok;
	const double width[] = {128, 130};
	c.head_dim = NULL;
	c.model_dim = width;
	columns_bad(&c, HA_EFORMAT, 2, 3, "row 2, model_dim: expected a multiple of heads "
	            "(4), found '130'");
	c = ok;
	const double wrong_width[] = {128, 64};
	c.model_dim = wrong_width;
	columns_bad(&c, HA_EFORMAT, 2, 3, "row 2, model_dim: expected heads * head_dim = "
	            "128, found '64'");
	c = ok;
	const double one[] = {1e6, 1.0};
	c.samples = one;
	columns_bad(&c, HA_EFORMAT, 2, 4, "row 2, samples: expected a number > 1 and <= "
	            "1e300, found '1'");
	c = ok;
	const double nan_loss[] = {NAN, 1.0};
	c.loss = nan_loss;
	columns_bad(&c, HA_EFORMAT, 1, 5, "row 1, loss: expected a number > 0, found 'nan'");
	c = ok;
	const double neg_se[] = {0.01, -0.1};
	c.loss_se = neg_se;
	columns_bad(&c, HA_EFORMAT, 2, 6, "row 2, loss_se: expected a number > 0, found '-0.1'");
	c = ok;
	const double big[] = {4294967296.0, 4};
	const double big_d[] = {4294967296.0, 32};
	c.heads = big;
	c.head_dim = big_d;
	columns_bad(&c, HA_EFORMAT, 1, 2, "row 1: expected heads * head_dim <= "
	            "9223372036854775807, found 4294967296 * 4294967296");
	c = ok;
	c.head_dim = NULL;
	columns_bad(&c, HA_EFORMAT, 0, 0, "header: expected the column 'head_dim' (a header "
	            "row naming");
	c = ok;
	c.count = 0;
	columns_bad(&c, HA_EFORMAT, 0, 0, "expected at least one run after the header row");
	columns_bad(NULL, HA_EINVAL, 0, 0, "NULL");
}

/* Columns under a tracker's names: a named column that is NULL is the
 * header's missing column, in the CSV reader's words; two keys named for
 * one column are refused before any value. */
Test(runs, from_columns_under_names)
{
	const double heads[] = {8}, dims[] = {16}, samples[] = {1e6}, loss[] = {2};
	struct ha_runs_names names;
	struct ha_error err;
	ha_runs_names_init(&names);
	cr_assert_eq(ha_runs_names_set(&names, "kv_heads", "n_kv_head", &err), HA_OK);
	struct ha_runs_columns c = {1, heads, dims, NULL, samples, loss, NULL, NULL, &names};
	columns_bad(&c, HA_EFORMAT, 0, 0, "header: expected the column 'n_kv_head' (named "
	            "for kv_heads), found none");
	const double kv[] = {4};
	c.kv_heads = kv;
	struct ha_run *runs = NULL;
	size_t n = 0;
	cr_assert_eq(ha_runs_from_columns(&c, &runs, &n, &err), HA_OK, "%s", err.message);
	cr_assert_eq(runs[0].kv_heads, 4);
	free(runs);
	ha_runs_names_init(&names);
	cr_assert_eq(ha_runs_names_set(&names, "heads", "loss", &err), HA_OK);
	columns_bad(&c, HA_EINVAL, 0, 0, "loss");
}

/* Each refusal of the columns is the CSV reader's for the same rows, its
 * message the same once the file's position is set aside. */
Test(runs, from_columns_refuse_as_the_csv_file_of_the_same_rows)
{
	const struct {
		const char *csv;
		struct ha_runs_columns c;
	} cases[] = {
		{"heads,head_dim,samples,loss\n8,16,1e6,2\n4,32,1,2\n",
		 {2, (double[]){8, 4}, (double[]){16, 32}, NULL, (double[]){1e6, 1}, (double[]){2, 2},
		  NULL, NULL, NULL}},
		{"heads,head_dim,samples,loss\n0,16,1e6,2\n",
		 {1, (double[]){0}, (double[]){16}, NULL, (double[]){1e6}, (double[]){2}, NULL, NULL, NULL}},
		{"heads,model_dim,samples,loss\n12,256,1e6,2\n",
		 {1, (double[]){12}, NULL, (double[]){256}, (double[]){1e6}, (double[]){2}, NULL,
		  NULL, NULL}},
		{"heads,head_dim,samples,loss,kv_heads\n8,16,1e6,2,3\n",
		 {1, (double[]){8}, (double[]){16}, NULL, (double[]){1e6}, (double[]){2}, NULL,
		  (double[]){3}, NULL}},
		{"heads,head_dim,samples\n8,16,1e6\n",
		 {1, (double[]){8}, (double[]){16}, NULL, (double[]){1e6}, NULL, NULL, NULL, NULL}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct ha_run *runs = NULL;
		size_t n = 0;
		struct ha_error from_file, from_memory;
		cr_assert_eq(ha_runs_read_string_named(cases[i].csv, strlen(cases[i].csv),
		                                       HA_RUNS_CSV, NULL, &runs, &n,
		                                       &from_file), HA_EFORMAT);
		cr_assert_eq(ha_runs_from_columns(&cases[i].c, &runs, &n, &from_memory),
		             HA_EFORMAT);
		cr_assert_str_eq(from_memory.message, from_file.message);
	}
}
