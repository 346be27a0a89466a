/* --plot-each one picture at a time (src/cli/pictures.c): while picture i
 * is drawn, the pictures before it are closed temporary files, neither
 * in memory nor holding a descriptor; the report comes first, then every
 * picture is renamed into place; a picture that fails leaves nothing.
 * Counted, not timed: the heap in use (glibc's mallinfo2) and the open
 * descriptors at each picture, the files in the directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "atomic_file.h"
#include "../src/cli/pictures.h"

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_COUNTED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_COUNTED 0
#endif
#endif
#ifndef HEAP_COUNTED
#define HEAP_COUNTED 1
#endif

enum { PICTURES = 24, PICTURE_BYTES = 256 * 1024 };

struct seen {
	size_t heap[PICTURES];   /* bytes in use as picture i starts */
	int fds[PICTURES];       /* open descriptors as picture i starts */
	int temps[PICTURES];     /* temporary files in the directory */
	int finals[PICTURES];    /* pictures under their own names */
	size_t fail_at;          /* the picture that fails (PICTURES: none) */
};

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	cr_assert(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Files in the working directory whose names contain what. */
static int count_files(const char *what)
{
	int n = 0;
	DIR *d = opendir(".");
	cr_assert(d);
	for (struct dirent *e; (e = readdir(d));)
		n += strstr(e->d_name, what) != NULL;
	closedir(d);
	return n;
}

static enum ha_status draw(struct ha_plot_target *t, const void *ctx, size_t i,
                           struct ha_error *err)
{
	struct seen *s = (struct seen *)ctx;
	(void)err;
	struct mallinfo2 m = mallinfo2();
	s->heap[i] = m.uordblks + m.hblkhd; /* the heap's, and mmap's */
	s->fds[i] = count_fds();
	s->temps[i] = count_files(".tmp-");
	s->finals[i] = count_files(".svg") - s->temps[i];
	if (i == s->fail_at)
		return HA_EIO;
	/* a picture's worth of bytes, each picture its own */
	static char bytes[PICTURE_BYTES];
	memset(bytes, 'a' + (int)(i % 26), sizeof bytes);
	return fwrite(bytes, 1, sizeof bytes, t->stream) == sizeof bytes ? HA_OK : HA_EIO;
}

static enum ha_status report(struct ha_report *r, const void *ctx,
                             struct ha_error *err)
{
	(void)r;
	(void)err;
	/* the report is written before any picture is in place */
	const struct seen *s = ctx;
	cr_expect_eq(count_files(".svg"), s->fail_at == PICTURES ? PICTURES : 0,
	             "only the temporary pictures exist while the report is written");
	cr_expect_eq(count_files("pic-00.svg.tmp-"), 1, "picture 0 is a temporary file still");
	return HA_OK;
}

static void enter_scratch(void)
{
	char dir[] = "/tmp/test-cli-pictures-XXXXXX";
	cr_assert(mkdtemp(dir));
	cr_assert(chdir(dir) == 0);
}

static int run(struct seen *s)
{
	struct cli_plot plot = {.path = "pic.svg", .format = HA_PLOT_SVG, .each = true};
	return cli_emit_with_pictures("report.txt", HA_FORMAT_TEXT, report, s, &plot,
	                              PICTURES, draw, s);
}

Test(plot_each, one_picture_in_memory_at_a_time)
{
	enter_scratch();
	struct seen s = {.fail_at = PICTURES};
	cr_assert_eq(run(&s), 0);
	for (size_t i = 0; i < PICTURES; i++) {
		/* picture i's own temporary file, and those before it, closed */
		cr_expect_eq(s.temps[i], (int)i + 1, "picture %zu: %d temporary files", i,
		             s.temps[i]);
		cr_expect_eq(s.finals[i], 0, "picture %zu: a picture in place before the report", i);
		cr_expect_eq(s.fds[i], s.fds[0], "picture %zu: %d descriptors open, %d at the first",
		             i, s.fds[i], s.fds[0]);
		if (HEAP_COUNTED)
			cr_expect_lt(s.heap[i], s.heap[0] + PICTURE_BYTES / 4,
			             "picture %zu: %zu bytes in use, %zu at the first: earlier"
			             " pictures kept in memory", i, s.heap[i], s.heap[0]);
	}
	cr_expect_eq(count_files(".tmp-"), 0);
	for (size_t i = 0; i < PICTURES; i++) {
		char name[32];
		snprintf(name, sizeof name, "pic-%02zu.svg", i);
		struct stat st;
		cr_assert(stat(name, &st) == 0, "%s is missing", name);
		cr_expect_eq(st.st_size, PICTURE_BYTES);
		FILE *f = fopen(name, "r");
		cr_assert(f);
		cr_expect_eq(fgetc(f), 'a' + (int)(i % 26), "%s holds another picture", name);
		fclose(f);
	}
	cr_expect_eq(access("report.txt", F_OK), 0);
	if (!HEAP_COUNTED)
		cr_log_info("the heap is not counted under a sanitizer's allocator");
}

Test(plot_each, a_failed_picture_leaves_nothing)
{
	enter_scratch();
	struct seen s = {.fail_at = 9};
	cr_expect_neq(run(&s), 0);
	cr_expect_eq(count_files(".tmp-"), 0, "temporary pictures left behind");
	cr_expect_eq(count_files(".svg"), 0, "a picture written though one failed");
	cr_expect_neq(access("report.txt", F_OK), 0, "a report written though a picture failed");
}
