/* Tests of the head weights from a head covariance (covariance.h): hand-
 * solved, diagonal, singular and degenerate matrices, the refused ones,
 * and the covariance YAML read from a file (written here, into a
 * temporary directory) and from memory with every error's position. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>

#include "weights_files.h"
#include "input/covariance_internal.h"

TestSuite(hdi, .init = weights_setup, .fini = weights_teardown);

Test(hdi, covariance_hand_solved_3x3)
{
	/* Sigma^-1 = (1/4) [[3,-2,1],[-2,4,-2],[1,-2,3]], Sigma^-1 1 =
	 * (1/2, 0, 1/2): alpha = (1/2, 0, 1/2), error 1, uniform 10/9. */
	const double s[9] = {2, 1, 0, 1, 2, 1, 0, 1, 2};
	struct ha_head_weights hw;
	struct ha_error err;
	cr_assert_eq(ha_covariance_weights(s, 3, &hw, &err), HA_OK);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert(fabs(hw.alpha[1]) < 1e-14);
	cr_assert(fabs(hw.alpha[2] - 0.5) < 1e-14);
	cr_assert(fabs(hw.error_optimal - 1.0) < 1e-14);
	cr_assert(fabs(hw.error_uniform - 10.0 / 9.0) < 1e-14);
	cr_assert(fabs(hw.gain - 10.0 / 9.0) < 1e-14);
	cr_assert_eq(hw.pseudo_inverse, 0);
	cr_assert_eq(hw.rank, 3);
	cr_assert(fabs(hw.min_eigenvalue - (2.0 - sqrt(2.0))) < 1e-14);
	ha_head_weights_finish(&hw);
	ha_head_weights_finish(NULL);
}

Test(hdi, covariance_diagonal_and_singular)
{
	/* diag(1, 2, 4): alpha proportional to (1, 1/2, 1/4) */
	const double d[9] = {1, 0, 0, 0, 2, 0, 0, 0, 4};
	struct ha_head_weights hw;
	cr_assert_eq(ha_covariance_weights(d, 3, &hw, NULL), HA_OK);
	cr_assert(fabs(hw.alpha[0] - 4.0 / 7.0) < 1e-14);
	cr_assert(fabs(hw.alpha[2] - 1.0 / 7.0) < 1e-14);
	cr_assert(fabs(hw.error_optimal - 4.0 / 7.0) < 1e-14);
	ha_head_weights_finish(&hw);

	/* singular: two copies of one head, pseudo-inverse, flag set */
	const double s[4] = {1, 1, 1, 1};
	cr_assert_eq(ha_covariance_weights(s, 2, &hw, NULL), HA_OK);
	cr_assert_eq(hw.pseudo_inverse, 1);
	cr_assert_eq(hw.rank, 1);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert(fabs(hw.error_optimal - 1.0) < 1e-14);
	cr_assert(fabs(hw.gain - 1.0) < 1e-14);
	ha_head_weights_finish(&hw);

	/* zero matrix: every alpha has error 0; the null-space rule gives the
	 * uniform one */
	const double z[4] = {0, 0, 0, 0};
	cr_assert_eq(ha_covariance_weights(z, 2, &hw, NULL), HA_OK);
	cr_assert_eq(hw.null_space, 1);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert_eq(hw.gain, 1.0);
	ha_head_weights_finish(&hw);

	/* a head with no variance: all the weight on it, error 0, which the
	 * pseudo-inverse alone would miss (it gives alpha = (1, 0), error 1) */
	const double n[4] = {1, 0, 0, 0};
	cr_assert_eq(ha_covariance_weights(n, 2, &hw, NULL), HA_OK);
	cr_assert_eq(hw.null_space, 1);
	cr_assert(fabs(hw.alpha[0]) < 1e-14 && fabs(hw.alpha[1] - 1.0) < 1e-14);
	cr_assert_eq(hw.error_optimal, 0.0);
	cr_assert(fabs(hw.error_uniform - 0.25) < 1e-15);
	cr_assert(isinf(hw.gain));
	ha_head_weights_finish(&hw);

	/* entries near the largest double: no overflow on the way */
	const double big[4] = {1e308, 0, 0, 1e308};
	cr_assert_eq(ha_covariance_weights(big, 2, &hw, NULL), HA_OK);
	cr_assert(fabs(hw.alpha[0] - 0.5) < 1e-14);
	cr_assert(fabs(hw.error_optimal / 0.5e308 - 1.0) < 1e-14);
	cr_assert(fabs(hw.gain - 1.0) < 1e-14);
	ha_head_weights_finish(&hw);
}

Test(hdi, covariance_rejects_asymmetric_and_nonfinite)
{
	const double a[4] = {1, 0.5, 0.5 + 1e-9, 1};
	struct ha_head_weights hw;
	struct ha_error err;
	cr_assert_eq(ha_covariance_weights(a, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "not symmetric"), "%s", err.message);
	cr_assert_null(hw.alpha);
	const double b[4] = {1, 0.5, 0.5 * (1 + 1e-14), 1};
	cr_assert_eq(ha_covariance_weights(b, 2, &hw, &err), HA_OK);
	ha_head_weights_finish(&hw);
	const double c[4] = {1, NAN, NAN, 1};
	cr_assert_eq(ha_covariance_weights(c, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "not finite"), "%s", err.message);
	cr_assert_eq(ha_covariance_weights(c, 0, &hw, &err), HA_EINVAL);
	/* not a covariance: a negative eigenvalue */
	const double neg[4] = {1, 2, 2, 1};
	cr_assert_eq(ha_covariance_weights(neg, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "not positive semi-definite"), "%s", err.message);
	cr_assert_null(hw.alpha);
	/* a negative variance, however small, is no rounding error: it was
	 * once taken for a singular matrix with gain inf */
	const double tiny[4] = {1, 0, 0, -1e-12};
	cr_assert_eq(ha_covariance_weights(tiny, 2, &hw, &err), HA_EFORMAT);
	cr_assert(strstr(err.message, "row 2, column 2 is a variance"), "%s",
	          err.message);
	cr_assert_null(hw.alpha);
}

Test(hdi, covariance_yaml_read)
{
	const char *text = "# head covariance\ncovariance:\n"
	                   "  - [2, 1, 0]\n  - [1, 2.0, 1e0]\n  - [0, 1, 2]\n";
	const char *p = write_file("cov.yaml", text, strlen(text));
	double *s;
	size_t h;
	struct ha_error err;
	cr_assert_eq(ha_covariance_read(p, &s, &h, &err), HA_OK, "%s",
	             err.message);
	cr_assert_eq(h, 3);
	cr_assert_eq(s[5], 1.0);
	cr_assert_eq(s[8], 2.0);
	free(s);
	const char *flow = "{covariance: [[4]]}";
	cr_assert_eq(ha_covariance_parse(flow, strlen(flow), &s, &h, &err), HA_OK);
	cr_assert_eq(h, 1);
	cr_assert_eq(s[0], 4.0);
	free(s);
	cr_assert_eq(ha_covariance_read("/nonexistent/cov.yaml", &s, &h, &err),
	             HA_EIO);
}

struct bad_yaml {
	const char *text;
	enum ha_status status;
	const char *needle;
	long line, column;
};

Test(hdi, covariance_yaml_errors)
{
	const struct bad_yaml cases[] = {
		{"", HA_EFORMAT, "found the end of the file", 1, 1},
		{"covariance: [[1, 2], [3]]\n", HA_EFORMAT, "row 2 has 1", 1, 22},
		{"covariance: [[1, 2], [3, 4], [5, 6]]\n", HA_EFORMAT,
		 "more rows than columns", 1, 30},
		{"covariance: [[1, 2]]\n", HA_EFORMAT, "not square", 1, 20},
		{"covariance:\n  - [1, \"2\"]\n  - [2, 1]\n", HA_EFORMAT, "quoted",
		 2, 9},
		{"covariance:\n  - [1, .nan]\n  - [2, 1]\n", HA_EFORMAT,
		 "'.nan' is not a finite", 2, 9},
		{"covariance: [[1, 1e999], [1, 1]]\n", HA_EFORMAT, "1e999", 1, 18},
		{"covariance: [[1, x], [1, 1]]\n", HA_EFORMAT, "'x' is not", 1, 18},
		{"heads: 2\n", HA_EFORMAT, "expected one of the keys covariance", 1, 1},
		{"- 1\n", HA_EFORMAT, "expected a mapping", 1, 1},
		{"covariance: [[1, 2], [2, 1]]\ncovariance: [[1]]\n", HA_EFORMAT,
		 "expected each key once", 2, 1},
		{"covariance: [[1, [2]], [2, 1]]\n", HA_EFORMAT, "expected a number",
		 1, 18},
		{"covariance: [1, 2]\n", HA_EFORMAT, "sequence of numbers", 1, 14},
		{"covariance: 3\n", HA_EFORMAT, "must be a sequence", 1, 13},
		{"covariance: [[]]\n", HA_EFORMAT, "empty covariance row", 1, 14},
		{"covariance: [[1, 2]\n", HA_EFORMAT, "YAML syntax", 2, 1},
		{"covariance: &a [[1]]\nx: *a\n", HA_EFORMAT, "the anchor '&a'", 1, 13},
		{"covariance: [[1]]\n---\ncovariance: [[1]]\n", HA_EFORMAT,
		 "found a second document", 2, 1},
		{"{}\n", HA_EFORMAT, "expected the key 'covariance'", 1, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double *s = (double *)&s;
		size_t h;
		struct ha_error err;
		enum ha_status st = ha_covariance_parse(
			cases[i].text, strlen(cases[i].text), &s, &h, &err);
		cr_assert_eq(st, cases[i].status, "case %zu: status %d (%s)", i,
		             st, err.message);
		cr_assert_null(s);
		cr_assert(strstr(err.message, cases[i].needle),
		          "case %zu: message '%s' lacks '%s'", i, err.message,
		          cases[i].needle);
		if (cases[i].line)
			cr_assert(err.line == cases[i].line &&
			          err.column == cases[i].column,
			          "case %zu (%s): at %ld:%ld, want %ld:%ld", i,
			          err.message, err.line, err.column, cases[i].line,
			          cases[i].column);
	}
}
