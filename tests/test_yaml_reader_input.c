/* The YAML reader (src/lib/input/yaml_reader.h) on its input, through
 * the runs schema of yaml_runs_schema.h: NUL and control bytes, the
 * document's structure and the positions of errors, the input limit, and
 * files (the path in the error, streaming past the limit, the wording
 * options). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "yaml_runs_schema.h"

/* ---- the input ----------------------------------------------------------- */

Test(yaml_reader, nul_and_control_characters_in_the_input)
{
	/* libyaml refuses them; the reader points at the byte. */
	const char nul[] = "runs: []\n# \0\n";
	bad_n(nul, sizeof nul - 1, HA_EFORMAT, 2, 3,
	      "invalid input: control characters are not allowed (byte offset "
	      "11)");
	bad("runs:\n  - {heads: \x01}\n", 2, 13,
	    "invalid input: control characters are not allowed (byte offset "
	    "18)");
	bad("runs: [] \x7f\n", 1, 10,
	    "invalid input: control characters are not allowed (byte offset 9)");
	bad("runs: [\xff]\n", 1, 8,
	    "invalid input: invalid leading UTF-8 octet (byte offset 7)");
}

Test(yaml_reader, structure_and_positions)
{
	bad("", 1, 1,
	    "expected a mapping with the key 'runs', found the end of the file");
	bad("- 1\n", 1, 1,
	    "expected a mapping with the key 'runs', found a list");
	bad("runs: []\n---\nruns: []\n", 2, 1,
	    "expected the end of the file, found a second document");
	bad("runs: {heads: 1}\n", 1, 7,
	    "runs: expected a list of runs, found a mapping");
	bad("runs:\n  - 42\n", 2, 5,
	    "runs[0]: expected a mapping {heads, head_dim, ...}, found '42'");
	bad("runs: [{heads: 1, head_dim: 1, samples: 2, loss: 1}\n", 2, 1,
	    "YAML syntax error: did not find expected ',' or ']' while parsing "
	    "a flow sequence");
	bad("runs: [{}, {}, {}, {}, {}]\n", 1, 8,
	    "runs[0]: expected the key 'heads' in this mapping, found none");
	bad("runs:\n  - {heads: 1, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 2, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 3, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 4, head_dim: 1, samples: 2, loss: 1}\n"
	    "  - {heads: 5, head_dim: 1, samples: 2, loss: 1}\n",
	    6, 5, "runs: expected at most 4 entries, found more");
	/* Deep nesting stops at the first unexpected collection. */
	char deep[4096] = "runs: [{heads: ";
	memset(deep + strlen(deep), '[', 3000);
	bad(deep, 1, 16,
	    "runs[0].heads: expected an integer from 1 to 9223372036854775807, "
	    "found a list");
}

Test(yaml_reader, input_limit)
{
	char *text = malloc(MAX_INPUT + 2);
	cr_assert_not_null(text);
	memcpy(text, "runs: []\n", 9);
	memset(text + 9, '#', MAX_INPUT + 1 - 9);
	text[MAX_INPUT + 1] = '\0';
	char msg[96];
	snprintf(msg, sizeof msg,
	         "expected at most %d bytes of input, found more", MAX_INPUT);
	bad_n(text, MAX_INPUT + 1, HA_EFORMAT, 0, 0, msg);
	/* At the limit it reads. */
	struct runs runs;
	struct ha_error err;
	cr_expect_eq(read_text(text, MAX_INPUT, &runs, &err), HA_OK, "%s",
	             err.message);
	runs_free(&runs);
	free(text);
}

static const char *temp_file(const char *text, size_t length)
{
	static char path[512];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/ha-yaml-reader-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, length), (ssize_t)length);
	cr_assert_eq(close(fd), 0);
	return path;
}

Test(yaml_reader, files)
{
	struct ha_yr r;
	struct runs runs;
	struct ha_error err;

	const char good[] = "runs: [{heads: 1, head_dim: 2, samples: 3, loss: 4}]\n";
	const char *path = temp_file(good, sizeof good - 1);
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, path, &options, &err),
	                       &runs),
	             HA_OK, "%s", err.message);
	cr_expect_eq(runs.v[0].loss, 4.0);
	runs_free(&runs);
	unlink(path);

	/* err->file is the caller's path, with the position in it. */
	const char nul[] = "runs: []\n\n  \0";
	path = temp_file(nul, sizeof nul - 1);
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, path, &options, &err),
	                       &runs),
	             HA_EFORMAT);
	cr_expect_eq(err.file, path);
	cr_expect_eq(err.line, 3);
	cr_expect_eq(err.column, 3);
	cr_expect_str_eq(err.message, "invalid input: control characters are "
	                              "not allowed (byte offset 12)");
	unlink(path);

	/* Larger than the limit: found while streaming. */
	char *big = malloc(MAX_INPUT + 100);
	cr_assert_not_null(big);
	memcpy(big, "runs: []\n", 9);
	memset(big + 9, '#', MAX_INPUT + 100 - 9);
	path = temp_file(big, MAX_INPUT + 100);
	free(big);
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, path, &options, &err),
	                       &runs),
	             HA_EFORMAT);
	cr_expect_eq(err.file, path);
	cr_expect(strstr(err.message, "expected at most 4096 bytes of input"),
	          "%s", err.message);
	unlink(path);

	/* Cannot open: no position, the file named; a directory too. */
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, "/nonexistent/x.yaml",
	                                           &options, &err),
	                       &runs),
	             HA_EIO);
	cr_expect_str_eq(err.file, "/nonexistent/x.yaml");
	cr_expect_eq(err.line, 0);
	cr_expect_str_eq(err.message,
	                 "cannot open the file: No such file or directory");
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, "/", &options, &err),
	                       &runs),
	             HA_EIO);
	cr_expect_eq(err.line, 0);

	/* The wording options. */
	struct ha_yr_options worded = {.max_bytes = MAX_INPUT,
	                               .syntax_label = "YAML syntax",
	                               .open_label = "cannot open"};
	cr_assert_eq(read_runs(&r, ha_yr_open_file(&r, "/nonexistent/x.yaml",
	                                           &worded, &err),
	                       &runs),
	             HA_EIO);
	cr_expect_str_eq(err.message, "cannot open: No such file or directory");
	const char *broken = "runs: [\n";
	cr_assert_eq(read_runs(&r, ha_yr_open_text(&r, broken, strlen(broken),
	                                           &worded, &err),
	                       &runs),
	             HA_EFORMAT);
	cr_expect(strncmp(err.message, "YAML syntax: ", 13) == 0, "%s",
	          err.message);

	/* err may be NULL. */
	cr_assert_eq(read_runs(&r, ha_yr_open_text(&r, broken, strlen(broken),
	                                           &options, NULL),
	                       &runs),
	             HA_EFORMAT);
}
