/* Covariance files (see covariance.h); the head weights computed from
 * them are in solve/head_weights.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <headalloc/covariance.h>

#include "base/open_file.h"
#include "base/error_internal.h"

struct yreader {
	yaml_parser_t parser;
	yaml_event_t event;
	int have_event;
	struct ha_error *err;
};

static enum ha_status at_event(struct yreader *r, enum ha_status st,
                               const char *what)
{
	return ha_fail_at(r->err, st, (long)r->event.start_mark.line + 1,
	                  (long)r->event.start_mark.column + 1, "%s", what);
}

/* The next event into r->event (the previous one is deleted). */
static enum ha_status next(struct yreader *r)
{
	if (r->have_event)
		yaml_event_delete(&r->event);
	r->have_event = 0;
	if (!yaml_parser_parse(&r->parser, &r->event)) {
		if (r->parser.error == YAML_MEMORY_ERROR)
			return ha_fail(r->err, HA_ENOMEM, "out of memory");
		const yaml_mark_t *m = &r->parser.problem_mark;
		return ha_fail_at(r->err, HA_EFORMAT, (long)m->line + 1,
		                  (long)m->column + 1, "YAML syntax: %s%s%s",
		                  r->parser.problem ? r->parser.problem : "error",
		                  r->parser.context ? " " : "",
		                  r->parser.context ? r->parser.context : "");
	}
	r->have_event = 1;
	if (r->event.type == YAML_ALIAS_EVENT)
		return at_event(r, HA_EFORMAT, "YAML aliases are not supported");
	return HA_OK;
}

static enum ha_status expect(struct yreader *r, yaml_event_type_t type,
                             const char *what)
{
	enum ha_status st = next(r);
	if (st != HA_OK)
		return st;
	if (r->event.type != type)
		return at_event(r, HA_EFORMAT, what);
	return HA_OK;
}

/* The current scalar event as a finite number. */
static enum ha_status scalar_number(struct yreader *r, double *out)
{
	const char *s = (const char *)r->event.data.scalar.value;
	size_t n = r->event.data.scalar.length;

	if (r->event.type != YAML_SCALAR_EVENT)
		return at_event(r, HA_EFORMAT, "expected a number");
	if (r->event.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return at_event(r, HA_EFORMAT,
		                "expected a number, found a quoted string");
	if (n == 0 || n > 64 || strspn(s, "0123456789+-.eE") != n)
		return ha_fail_at(r->err, HA_EFORMAT,
		                  (long)r->event.start_mark.line + 1,
		                  (long)r->event.start_mark.column + 1,
		                  "'%.64s' is not a finite decimal number", s);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end != s + n || !isfinite(v))
		return ha_fail_at(r->err, HA_EFORMAT,
		                  (long)r->event.start_mark.line + 1,
		                  (long)r->event.start_mark.column + 1,
		                  "'%.64s' is not a finite decimal number", s);
	*out = v;
	return HA_OK;
}

/* The `covariance:` value, from its SEQUENCE-START on. */
static enum ha_status parse_matrix(struct yreader *r, double **sigma,
                                   size_t *heads)
{
	double *m = NULL, *first = NULL;
	size_t h = 0, rows = 0, cap = 0;
	enum ha_status st = expect(r, YAML_SEQUENCE_START_EVENT,
	                           "'covariance' must be a sequence of rows");
	if (st != HA_OK)
		return st;
	for (;;) {
		if ((st = next(r)) != HA_OK)
			goto fail;
		if (r->event.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (r->event.type != YAML_SEQUENCE_START_EVENT) {
			st = at_event(r, HA_EFORMAT,
			              "each covariance row must be a sequence of "
			              "numbers");
			goto fail;
		}
		if (rows > 0 && rows >= h) {
			st = at_event(r, HA_EFORMAT,
			              "more rows than columns: the covariance "
			              "matrix must be square");
			goto fail;
		}
		long row_line = (long)r->event.start_mark.line + 1;
		long row_col = (long)r->event.start_mark.column + 1;
		size_t cols = 0;
		for (;;) {
			if ((st = next(r)) != HA_OK)
				goto fail;
			if (r->event.type == YAML_SEQUENCE_END_EVENT)
				break;
			double v = 0.0;
			if ((st = scalar_number(r, &v)) != HA_OK)
				goto fail;
			if (rows == 0) {
				if (cols == HA_COVARIANCE_MAX_HEADS) {
					st = at_event(r, HA_EUNSUPPORTED,
					              "covariance row longer than the "
					              "limit of 4096 heads");
					goto fail;
				}
				if (cols == cap) {
					size_t nc = cap ? 2 * cap : 16;
					double *p = realloc(first, nc * sizeof *p);
					if (!p) {
						st = ha_fail(r->err, HA_ENOMEM,
						             "out of memory");
						goto fail;
					}
					first = p;
					cap = nc;
				}
				first[cols] = v;
			} else {
				if (cols >= h) {
					st = at_event(r, HA_EFORMAT,
					              "covariance row longer than the "
					              "first row");
					goto fail;
				}
				m[rows * h + cols] = v;
			}
			cols++;
		}
		if (rows == 0) {
			if (cols == 0) {
				st = ha_fail_at(r->err, HA_EFORMAT, row_line, row_col,
				                "empty covariance row");
				goto fail;
			}
			h = cols;
			m = malloc(h * h * sizeof *m);
			if (!m) {
				st = ha_fail(r->err, HA_ENOMEM, "out of memory");
				goto fail;
			}
			memcpy(m, first, h * sizeof *m);
		} else if (cols != h) {
			st = ha_fail_at(r->err, HA_EFORMAT, row_line, row_col,
			                "covariance row %zu has %zu numbers, the "
			                "first row %zu", rows + 1, cols, h);
			goto fail;
		}
		rows++;
	}
	if (rows == 0) {
		st = at_event(r, HA_EFORMAT, "empty covariance matrix");
		goto fail;
	}
	if (rows != h) {
		st = ha_fail_at(r->err, HA_EFORMAT,
		                (long)r->event.start_mark.line + 1,
		                (long)r->event.start_mark.column + 1,
		                "covariance matrix is not square: %zu rows of %zu "
		                "numbers", rows, h);
		goto fail;
	}
	free(first);
	*sigma = m;
	*heads = h;
	return HA_OK;
fail:
	free(first);
	free(m);
	return st;
}

enum ha_status ha_covariance_parse(const char *text, size_t size,
                                   double **sigma, size_t *heads,
                                   struct ha_error *err)
{
	ha_error_clear(err);
	if (sigma)
		*sigma = NULL;
	if (heads)
		*heads = 0;
	if ((!text && size) || !sigma || !heads)
		return ha_fail(err, HA_EINVAL, "NULL argument");

	struct yreader r = {.err = err};
	double *m = NULL;
	size_t h = 0;
	enum ha_status st;
	if (!yaml_parser_initialize(&r.parser))
		return ha_fail(err, HA_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&r.parser,
	                             (const unsigned char *)(text ? text : ""),
	                             size);

	if ((st = expect(&r, YAML_STREAM_START_EVENT, "expected a YAML stream")) ||
	    (st = next(&r)))
		goto out;
	if (r.event.type != YAML_DOCUMENT_START_EVENT) {
		st = at_event(&r, HA_EFORMAT,
		              "empty file: expected a mapping with the key "
		              "'covariance'");
		goto out;
	}
	if ((st = expect(&r, YAML_MAPPING_START_EVENT,
	                 "expected a mapping with the key 'covariance'")))
		goto out;
	for (;;) {
		if ((st = next(&r)))
			goto out;
		if (r.event.type == YAML_MAPPING_END_EVENT)
			break;
		if (r.event.type != YAML_SCALAR_EVENT ||
		    strcmp((const char *)r.event.data.scalar.value,
		           "covariance") != 0 ||
		    r.event.data.scalar.length != strlen("covariance")) {
			st = at_event(&r, HA_EFORMAT,
			              "unknown key: the only key is 'covariance'");
			goto out;
		}
		if (m) {
			st = at_event(&r, HA_EFORMAT, "repeated key 'covariance'");
			goto out;
		}
		if ((st = parse_matrix(&r, &m, &h)))
			goto out;
	}
	if (!m) {
		st = at_event(&r, HA_EFORMAT, "missing key 'covariance'");
		goto out;
	}
	if ((st = expect(&r, YAML_DOCUMENT_END_EVENT,
	                 "expected the end of the document")) ||
	    (st = expect(&r, YAML_STREAM_END_EVENT,
	                 "expected one YAML document only")))
		goto out;
out:
	if (r.have_event)
		yaml_event_delete(&r.event);
	yaml_parser_delete(&r.parser);
	if (st != HA_OK) {
		free(m);
		return st;
	}
	*sigma = m;
	*heads = h;
	return HA_OK;
}

enum ha_status ha_covariance_read(const char *path, double **sigma,
                                  size_t *heads, struct ha_error *err)
{
	ha_error_clear(err);
	if (sigma)
		*sigma = NULL;
	if (!path || !sigma || !heads)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	FILE *f = ha_open_input(path);
	if (!f)
		return ha_fail(err, HA_EIO, "cannot open: %s", strerror(errno));

	char *buf = NULL;
	size_t len = 0, cap = 0;
	enum ha_status st = HA_OK;
	for (;;) {
		if (len == cap) {
			if (cap > HA_COVARIANCE_MAX_FILE) {
				st = ha_fail(err, HA_EFORMAT,
				             "file larger than the limit of %u bytes",
				             HA_COVARIANCE_MAX_FILE);
				break;
			}
			size_t nc = cap ? 2 * cap : 4096;
			if (nc > HA_COVARIANCE_MAX_FILE + 1)
				nc = HA_COVARIANCE_MAX_FILE + 1;
			char *p = realloc(buf, nc + 1);
			if (!p) {
				st = ha_fail(err, HA_ENOMEM, "out of memory");
				break;
			}
			buf = p;
			cap = nc;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f))
				st = ha_fail(err, HA_EIO, "read error");
			break;
		}
	}
	fclose(f);
	if (st == HA_OK)
		st = ha_covariance_parse(buf, len, sigma, heads, err);
	free(buf);
	return st;
}
