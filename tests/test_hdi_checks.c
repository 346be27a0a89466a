/* The rules every report of HDIs applies in the library (hdi.h): the work
 * limit before any data is read, all-zero tensors refused, zero and
 * lower-rank heads returned as warnings in the result, progress and
 * cancellation, and options that can grow (a shorter struct from an
 * older caller gets the defaults). */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <headalloc/headalloc.h>
#include "hdi/hdi_internal.h"
#include "hdi_measure_file.h"

static char path[64];

static void setup(void)
{
	snprintf(path, sizeof path, "/tmp/ha_test_hdi_checks_XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(hdi_checks, .init = setup, .fini = teardown);

/* A safetensors file of F64 tensors named t0, t1, ... of rows x cols
 * each (values NULL: a sparse file, its data never read). */
static void write_f64(size_t n, size_t rows, size_t cols,
                      const double *const *values)
{
	char header[1024];
	size_t hl = 0, bytes = rows * cols * 8;
	hl += (size_t)snprintf(header, sizeof header, "{");
	for (size_t i = 0; i < n; i++)
		hl += (size_t)snprintf(header + hl, sizeof header - hl,
		                       "%s\"t%zu\":{\"dtype\":\"F64\",\"shape\":[%zu,%zu],"
		                       "\"data_offsets\":[%zu,%zu]}",
		                       i ? "," : "", i, rows, cols, i * bytes,
		                       (i + 1) * bytes);
	header[hl++] = '}';
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	for (int b = 0; b < 8; b++)
		fputc((int)((uint64_t)hl >> (8 * b)) & 0xff, f);
	fwrite(header, 1, hl, f);
	for (size_t i = 0; values && i < n; i++)
		for (size_t k = 0; k < rows * cols; k++) {
			unsigned char le[8];
			uint64_t u;
			memcpy(&u, &values[i][k], 8);
			for (int b = 0; b < 8; b++)
				le[b] = (unsigned char)(u >> (8 * b));
			fwrite(le, 1, 8, f);
		}
	cr_assert_eq(fclose(f), 0);
	if (!values)
		cr_assert_eq(truncate(path, (off_t)(8 + hl + n * bytes)), 0);
}

/* out-in, H = 3, d_k = 2, d_model = 3: head 1 of rank 1, head 2 zero */
static const double deficient[18] = {
	1, 0, 0, 0, 1, 0, 2, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
};

Test(hdi_checks, warnings_come_back_in_the_result)
{
	const double *v[] = {deficient};
	write_f64(1, 6, 3, v);
	struct ha_hdi_report *r;
	struct ha_error err;
	cr_assert_eq(hdi_measure_file(path, NULL, 3, HA_LAYOUT_OUT_IN, &r, &err),
	             HA_OK, "%s", err.message);
	cr_assert_eq(r->warning_count, 2);
	cr_assert_eq(r->warnings[0].kind, HA_HDI_WARN_ZERO_HEADS);
	cr_assert_eq(r->warnings[0].tensor, 0);
	cr_assert_not_null(strstr(r->warnings[0].message, "1 of 3 heads is all zero (head 2)"),
	                   "%s", r->warnings[0].message);
	cr_assert_eq(r->warnings[1].kind, HA_HDI_WARN_LOW_RANK);
	cr_assert_not_null(strstr(r->warnings[1].message, "rank below 2 (head 1)"),
	                   "%s", r->warnings[1].message);
	ha_hdi_report_free(r);
}

Test(hdi_checks, full_rank_heads_warn_nothing)
{
	const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	const double *v[] = {eye};
	write_f64(1, 3, 3, v);
	struct ha_hdi_report *r;
	struct ha_error err;
	cr_assert_eq(hdi_measure_file(path, NULL, 3, HA_LAYOUT_OUT_IN, &r, &err), HA_OK);
	cr_assert_eq(r->warning_count, 0);
	cr_assert_null(r->warnings);
	ha_hdi_report_free(r);
}

Test(hdi_checks, all_zero_heads_are_refused)
{
	const double zero[18] = {0};
	const double *v[] = {zero};
	write_f64(1, 6, 3, v);
	struct ha_hdi_report *r = (void *)1;
	struct ha_error err;
	cr_assert_eq(hdi_measure_file(path, NULL, 3, HA_LAYOUT_OUT_IN, &r, &err),
	             HA_EDEGENERATE);
	cr_assert_null(r);
	cr_assert_not_null(strstr(err.message, "all 3 heads are zero"), "%s", err.message);
}

/* [1, 266240] in-out with 1024 heads: 266240^2 > 2^36 multiply-adds.
 * The file is sparse: refused before any data is read. */
Test(hdi_checks, work_limit_before_the_data)
{
	write_f64(1, 1, 266240, NULL);
	struct ha_hdi_report *r = (void *)1;
	struct ha_error err;
	cr_assert_eq(hdi_measure_file(path, NULL, 1024, HA_LAYOUT_IN_OUT, &r, &err),
	             HA_EUNSUPPORTED);
	cr_assert_null(r);
	cr_assert_not_null(strstr(err.message, "more than the limit"), "%s", err.message);
	/* 260 heads of 1024 over d_model 1 is the same work: the limit is on
	 * (H d_k)^2 d_model, not on the heads. */
	cr_assert_eq(hdi_measure_file(path, NULL, 260, HA_LAYOUT_IN_OUT, &r, &err),
	             HA_EUNSUPPORTED);
}

struct calls {
	uint64_t done[4], total[4];
	size_t count;
	int stop_at;
};

static int record(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct calls *c = ctx;
	cr_assert_str_eq(what, "layers");
	if (c->count < 4) {
		c->done[c->count] = done;
		c->total[c->count] = total;
	}
	c->count++;
	return c->stop_at && (int)done == c->stop_at;
}

Test(hdi_checks, progress_and_cancel)
{
	const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	const double *v[] = {eye, eye, eye};
	write_f64(3, 3, 3, v);
	struct ha_weights *w;
	struct ha_error err;
	cr_assert_eq(ha_weights_open(path, &w, &err), HA_OK);
	struct calls c = {0};
	struct ha_hdi_options opt = HA_HDI_OPTIONS_INIT;
	opt.progress = (struct ha_progress){record, &c};
	struct ha_hdi_report *r;
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, 3, HA_LAYOUT_OUT_IN, &opt, &r, &err), HA_OK);
	cr_assert_eq(c.count, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(c.done[i], i + 1);
		cr_assert_eq(c.total[i], 3);
	}
	ha_hdi_report_free(r);

	c = (struct calls){.stop_at = 2};
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, 3, HA_LAYOUT_OUT_IN, &opt, &r, &err),
	             HA_ECANCELED);
	cr_assert_null(r);
	cr_assert_eq(c.count, 2);

	/* A caller built when the options ended before progress: its size
	 * says so, and the progress field (garbage to it) is not used. */
	c = (struct calls){0};
	opt.size = offsetof(struct ha_hdi_options, progress);
	cr_assert_eq(ha_hdi_measure_weights(w, NULL, 3, HA_LAYOUT_OUT_IN, &opt, &r, &err), HA_OK);
	cr_assert_eq(c.count, 0);
	ha_hdi_report_free(r);
	ha_weights_free(w);
}
