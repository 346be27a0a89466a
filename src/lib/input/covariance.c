/* Covariance files (see covariance.h): the schema on top of the YAML
 * reader every YAML input shares (yaml_reader.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/covariance.h>
#include "base/number.h"

#include "base/error_internal.h"
#include "yaml_reader.h"
#include "input/covariance_internal.h"

static const struct ha_yr_options OPTIONS = {
	.max_bytes = HA_COVARIANCE_MAX_FILE,
	/* The wording of these two messages before the reader was shared
	 * with scenario files; golden outputs print them. */
	.syntax_label = "YAML syntax",
	.open_label = "cannot open",
};

/* The matrix as it is read: the first row fixes H. */
struct matrix {
	double *first; /* the first row, while it is read */
	size_t cap;    /* its room */
	double *m;     /* H x H, once the first row is read */
	size_t h;
};

/* The current event as a matrix entry, in this format's own words. */
static enum ha_status number(struct ha_yr *r, double *out)
{
	if (!ha_yr_at(r, YAML_SCALAR_EVENT))
		return ha_yr_fail_here(r, HA_EFORMAT, "expected a number");
	if (r->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "expected a number, found a quoted string");
	if (!ha_yr_plain_real(r, out))
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "'%.*s' is not a finite decimal number%s",
		                       HA_NUMBER_MAX_LENGTH,
		                       (const char *)r->ev.data.scalar.value,
		                       ha_yr_leading_zero(r)
		                               ? " (a leading zero: YAML 1.1 "
		                                 "reads it as octal)"
		                               : "");
	return HA_OK;
}

/* Entry `col` of row `row`: passed through ctx as {matrix, row}. */
struct row_ctx {
	struct matrix *mx;
	size_t row;
};

static enum ha_status entry_item(struct ha_yr *r, void *ctx, size_t col,
                                 const char *where)
{
	(void)where;
	struct row_ctx *rc = ctx;
	struct matrix *mx = rc->mx;
	double v = 0.0;
	enum ha_status st = number(r, &v);
	if (st != HA_OK)
		return st;
	/* A variance below zero is not a rounding error the eigenvalue test
	 * should forgive ("singular", gain inf): it is a wrong number. */
	if (col == rc->row && v < 0.0)
		return ha_yr_fail_here(r, HA_EFORMAT, "covariance row %zu, column "
		                       "%zu is a variance: expected a number >= 0, "
		                       "found %s", col + 1, col + 1,
		                       (const char *)r->ev.data.scalar.value);
	if (rc->row > 0) {
		if (col >= mx->h)
			return ha_yr_fail_here(r, HA_EFORMAT, "covariance row longer "
			                       "than the first row");
		mx->m[rc->row * mx->h + col] = v;
		return HA_OK;
	}
	if (col == HA_COVARIANCE_MAX_HEADS)
		return ha_yr_fail_here(r, HA_EUNSUPPORTED,
		                       "covariance row longer than the limit of %d "
		                       "heads", HA_COVARIANCE_MAX_HEADS);
	st = ha_yr_grow(r, (void **)&mx->first, &mx->cap, col, sizeof v);
	if (st == HA_OK)
		mx->first[col] = v;
	return st;
}

static enum ha_status row_item(struct ha_yr *r, void *ctx, size_t row,
                               const char *where)
{
	struct matrix *mx = ctx;
	if (!ha_yr_at(r, YAML_SEQUENCE_START_EVENT))
		return ha_yr_fail_here(r, HA_EFORMAT, "each covariance row must be "
		                       "a sequence of numbers");
	if (row > 0 && row >= mx->h)
		return ha_yr_fail_here(r, HA_EFORMAT, "more rows than columns: the "
		                       "covariance matrix must be square");
	yaml_mark_t row_at = r->ev.start_mark;
	struct row_ctx rc = {mx, row};
	size_t cols;
	enum ha_status st = ha_yr_read_seq(r, where, "a row", SIZE_MAX,
	                                   entry_item, &rc, &cols);
	if (st != HA_OK)
		return st;
	if (row > 0) {
		if (cols != mx->h)
			return ha_yr_fail_at(r, row_at, HA_EFORMAT,
			                     "covariance row %zu has %zu numbers, the "
			                     "first row %zu", row + 1, cols, mx->h);
		return HA_OK;
	}
	if (cols == 0)
		return ha_yr_fail_at(r, row_at, HA_EFORMAT, "empty covariance row");
	mx->h = cols;
	mx->m = malloc(cols * cols * sizeof *mx->m);
	if (!mx->m)
		return ha_yr_nomem(r);
	memcpy(mx->m, mx->first, cols * sizeof *mx->m);
	return HA_OK;
}

/* The value of `covariance`. */
static enum ha_status matrix_field(struct ha_yr *r, void *ctx, size_t key,
                                   const char *where)
{
	(void)key;
	if (!ha_yr_at(r, YAML_SEQUENCE_START_EVENT))
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "'covariance' must be a sequence of rows");
	size_t rows;
	enum ha_status st = ha_yr_read_seq(r, where, "a list of rows", SIZE_MAX,
	                                   row_item, ctx, &rows);
	if (st != HA_OK)
		return st;
	struct matrix *mx = ctx;
	if (rows == 0)
		return ha_yr_fail_here(r, HA_EFORMAT, "empty covariance matrix");
	if (rows != mx->h)
		return ha_yr_fail_here(r, HA_EFORMAT,
		                       "covariance matrix is not square: %zu rows "
		                       "of %zu numbers", rows, mx->h);
	return HA_OK;
}

static const struct ha_yr_key keys[] = {{"covariance", HA_YR_REQUIRED}};

/* The document of an opened reader (st: how opening went). */
static enum ha_status read_document(struct ha_yr *r, enum ha_status st,
                                    double **sigma, size_t *heads)
{
	static const char what[] = "a mapping with the key 'covariance'";
	struct matrix mx = {0};
	struct ha_yr_map map = HA_YR_MAP(keys);
	if (st == HA_OK)
		st = ha_yr_begin_document(r, what);
	if (st == HA_OK)
		st = ha_yr_read_map(r, "", what, &map, matrix_field, &mx);
	if (st == HA_OK)
		st = ha_yr_end_document(r);
	ha_yr_close(r);
	free(mx.first);
	if (st != HA_OK) {
		free(mx.m);
		return st;
	}
	*sigma = mx.m;
	*heads = mx.h;
	return HA_OK;
}

enum ha_status ha_covariance_parse(const char *text, size_t size,
                                   double **sigma, size_t *heads,
                                   struct ha_error *err)
{
	ha_error_init(err);
	if (sigma)
		*sigma = NULL;
	if (heads)
		*heads = 0;
	if ((!text && size) || !sigma || !heads)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	struct ha_yr r;
	return read_document(&r, ha_yr_open_text(&r, text, size, &OPTIONS, err),
	                     sigma, heads);
}

enum ha_status ha_covariance_read(const char *path, double **sigma,
                                  size_t *heads, struct ha_error *err)
{
	ha_error_init(err);
	if (sigma)
		*sigma = NULL;
	if (heads)
		*heads = 0;
	if (!path || !sigma || !heads)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	struct ha_yr r;
	return read_document(&r, ha_yr_open_file(&r, path, &OPTIONS, err),
	                     sigma, heads);
}
