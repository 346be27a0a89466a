/* A scratch directory for a test, made by .init and removed by .fini
 * (SCRATCH_PREFIX names it in /tmp), with at("rel") its paths (four live
 * at once) and copy_file() to fill it: the directory tests of the
 * checkpoint readers (test_checkpoint.c, test_checkpoint_strict.c,
 * test_shrink.c).  Needs mkdtemp (_XOPEN_SOURCE 700 before any header). */
#ifndef HA_TEST_SCRATCH_DIR_H
#define HA_TEST_SCRATCH_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SCRATCH_PREFIX
#error "define SCRATCH_PREFIX (e.g. \"/tmp/ha_test_ckpt_\") first"
#endif

static char tmp[64];

static inline void tmp_setup(void)
{
	snprintf(tmp, sizeof tmp, SCRATCH_PREFIX "XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static inline void tmp_teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

static inline char *at(const char *rel)
{
	static char path[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(path[k], sizeof path[k], "%s/%s", tmp, rel);
	return path[k];
}

static inline void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	cr_assert(in && out, "%s -> %s", from, to);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

#endif
