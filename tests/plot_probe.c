/* Helpers of the picture tests: see plot_probe.h. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <png.h>

#include "plot_probe.h"
#include "plot/plot_internal.h"

void picture_draw(struct picture *p, enum ha_plot_format format,
                  probe_draw_fn draw, const void *req)
{
	memset(p, 0, sizeof *p);
	FILE *mem = open_memstream(&p->data, &p->size);
	cr_assert_not_null(mem);
	p->target = (struct ha_plot_target){.stream = mem, .format = format,
	                                    .axes = p->axes,
	                                    .axes_capacity = PROBE_PANELS};
	ha_error_init(&p->err);
	p->status = draw(&p->target, req, &p->err);
	cr_assert_eq(fclose(mem), 0);
}

void picture_free(struct picture *p)
{
	free(p->data);
	p->data = NULL;
}

/* With the request's allocation, or else one made from the request at
 * its n (ha_allocation_result_new with the divisors), as the CLI draws
 * it. */
enum ha_status probe_landscape(struct ha_plot_target *t, const void *req,
                               struct ha_error *err)
{
	const struct probe_landscape_request *lr = req;
	const struct ha_plot_allocation_request *r = lr ? &lr->plot : NULL;
	if (!r || r->allocation || !r->model)
		return ha_plot_allocation(t, r, err);
	struct ha_allocation_result *a = NULL;
	enum ha_status st = ha_allocation_result_new(r->budget, r->constraints, NULL, r->model,
	                                             lr->samples, HA_ALLOCATION_DIVISORS,
	                                             &a, err);
	if (st == HA_OK) {
		struct ha_plot_allocation_request with = *r;
		with.allocation = a;
		st = ha_plot_allocation(t, &with, err);
	}
	ha_allocation_result_free(a);
	return st;
}

/* The picture of a sweep's problem (a struct ha_sweep_request): the
 * sweep run, its regimes made, its picture data made
 * (ha_sweep_picture_new), drawn and freed, as the CLI draws it. */
enum ha_status probe_sweep(struct ha_plot_target *t, const void *req,
                           struct ha_error *err)
{
	const struct ha_sweep_request *problem = req;
	struct ha_sweep_result *result = NULL;
	struct ha_regimes *regimes = NULL;
	struct ha_sweep_picture *picture = NULL;
	enum ha_status st = ha_sweep_run(problem, NULL, &result, err);
	if (st == HA_OK && problem->samples.count > 1)
		st = ha_regimes_new(problem->model, problem->constraints, problem->budgets,
		                    problem->budget_count, NULL, &regimes, err);
	if (st == HA_OK)
		st = ha_sweep_picture_new(&(struct ha_sweep_picture_request){
			.result = result, .regimes = regimes}, &picture, err);
	if (st == HA_OK)
		st = ha_plot_sweep(t, &(struct ha_plot_sweep_request){.picture = picture}, err);
	ha_sweep_picture_free(picture);
	ha_regimes_free(regimes);
	ha_sweep_result_free(result);
	return st;
}

/* With the request's regimes, or else ones made from the request
 * (ha_regimes_new), as the CLI draws them. */
enum ha_status probe_regimes(struct ha_plot_target *t, const void *req,
                             struct ha_error *err)
{
	const struct ha_regimes_request *r = req;
	if (!r || r->regimes || !r->model || !r->budgets || !r->budget_count)
		return ha_plot_regimes(t, req, err);
	struct ha_regimes *g = NULL;
	enum ha_status st = ha_regimes_new(r->model, r->constraints, r->budgets,
	                                   r->budget_count, r->solvers, &g, err);
	if (st == HA_OK) {
		struct ha_regimes_request with = *r;
		with.regimes = g;
		st = ha_plot_regimes(t, &with, err);
	}
	ha_regimes_free(g);
	return st;
}

enum ha_status probe_hdi(struct ha_plot_target *t, const void *req,
                         struct ha_error *err)
{
	return ha_plot_hdi(t, req, err);
}

enum ha_status probe_weights(struct ha_plot_target *t, const void *req,
                             struct ha_error *err)
{
	return ha_plot_head_weights(t, req, err);
}

/* With the request's picture data, or else its calibration's
 * (ha_cal_picture_new), as the CLI draws it. */
enum ha_status probe_calibration(struct ha_plot_target *t, const void *req,
                                 struct ha_error *err)
{
	const struct ha_plot_calibration_request *r = req;
	if (!r || r->picture || !r->calibration)
		return ha_plot_calibration(t, req, err);
	struct ha_cal_picture *data = NULL;
	enum ha_status st = ha_cal_picture_new(r->calibration, &data, err);
	if (st == HA_OK) {
		struct ha_plot_calibration_request with = *r;
		with.picture = data;
		st = ha_plot_calibration(t, &with, err);
	}
	ha_cal_picture_free(data);
	return st;
}

void probe_check_valid(probe_draw_fn draw, const void *req)
{
	static const enum ha_plot_format formats[] = {HA_PLOT_SVG, HA_PLOT_PNG, HA_PLOT_PDF};
	for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
		struct picture a, b;
		picture_draw(&a, formats[f], draw, req);
		cr_assert_eq(a.status, HA_OK, "%s: %s", ha_plot_format_str(formats[f]), a.err.message);
		picture_draw(&b, formats[f], draw, req);
		cr_assert_eq(b.status, HA_OK);
		cr_assert(a.size == b.size && memcmp(a.data, b.data, a.size) == 0,
		          "%s: two drawings differ", ha_plot_format_str(formats[f]));
		char why[160];
		if (formats[f] == HA_PLOT_SVG)
			cr_assert(xml_well_formed(a.data, a.size, why, sizeof why), "SVG: %s", why);
		if (formats[f] == HA_PLOT_PNG) {
			struct image im = image_decode(&a);
			cr_assert_geq(im.width, 800);
			cr_assert_geq(im.height, 600);
			image_free(&im);
		}
		if (formats[f] == HA_PLOT_PDF) {
			cr_assert_eq(memcmp(a.data, "%PDF-", 5), 0);
			cr_assert(a.size > 6 && memmem(a.data + a.size - 7, 7, "%%EOF", 5),
			          "a PDF ends with %%%%EOF");
			cr_assert_null(memmem(a.data, a.size, "/CreationDate", 13),
			               "the creation date is blanked");
		}
		picture_free(&a);
		picture_free(&b);
	}
}

/* ---- PNG -------------------------------------------------------------------- */

static unsigned big_endian(const unsigned char *b)
{
	return (unsigned)b[0] << 24 | (unsigned)b[1] << 16 | (unsigned)b[2] << 8 | b[3];
}

struct image image_decode(const struct picture *p)
{
	static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	cr_assert_gt(p->size, 33, "no PNG: %zu bytes", p->size);
	const unsigned char *b = (const unsigned char *)p->data;
	cr_assert_eq(memcmp(b, signature, 8), 0, "no PNG signature");
	cr_assert_eq(memcmp(b + 12, "IHDR", 4), 0, "the first chunk is not IHDR");
	unsigned w = big_endian(b + 16), h = big_endian(b + 20);
	cr_assert_eq(w, p->target.width);
	cr_assert_eq(h, p->target.height);

	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	cr_assert(png_image_begin_read_from_memory(&img, p->data, p->size),
	          "libpng: %s", img.message);
	img.format = PNG_FORMAT_RGB;
	struct image out = {img.width, img.height, malloc(PNG_IMAGE_SIZE(img))};
	cr_assert_not_null(out.rgb);
	cr_assert(png_image_finish_read(&img, NULL, out.rgb, 0, NULL), "libpng: %s",
	          img.message);
	cr_assert_eq(out.width, w);
	cr_assert_eq(out.height, h);
	return out;
}

void image_free(struct image *im)
{
	free(im->rgb);
	im->rgb = NULL;
}

struct picture probe_png(probe_draw_fn draw, const void *req, struct image *im)
{
	struct picture p;
	picture_draw(&p, HA_PLOT_PNG, draw, req);
	cr_assert_eq(p.status, HA_OK, "%s", p.err.message);
	*im = image_decode(&p);
	return p;
}

void probe_locate(const struct picture *p, size_t panel, double x, double y,
                  int *col, int *row)
{
	cr_assert_lt(panel, p->target.axes_count);
	const struct ha_plot_axes *a = &p->axes[panel];
	double fx = a->left + (x - a->x_min) / (a->x_max - a->x_min) * (a->right - a->left);
	double fy = a->bottom + (y - a->y_min) / (a->y_max - a->y_min) * (a->top - a->bottom);
	*col = (int)lround(fx * p->target.width);
	*row = (int)lround((1.0 - fy) * p->target.height);
}

static const unsigned char *pixel(const struct image *im, int col, int row)
{
	return im->rgb + ((size_t)row * im->width + (size_t)col) * 3;
}

int probe_near(const struct image *im, int col, int row, int radius,
               const unsigned rgb[3], int tol)
{
	for (int r = row - radius; r <= row + radius; r++)
		for (int c = col - radius; c <= col + radius; c++) {
			if (r < 0 || c < 0 || r >= (int)im->height || c >= (int)im->width)
				continue;
			const unsigned char *px = pixel(im, c, r);
			int ok = 1;
			for (int k = 0; k < 3; k++)
				ok &= abs((int)px[k] - (int)rgb[k]) <= tol;
			if (ok)
				return 1;
		}
	return 0;
}

const char *probe_colour(const struct image *im, int col, int row)
{
	static char buf[64];
	if (col < 0 || row < 0 || col >= (int)im->width || row >= (int)im->height)
		return "(outside the picture)";
	const unsigned char *px = pixel(im, col, row);
	snprintf(buf, sizeof buf, "(%u, %u, %u)", px[0], px[1], px[2]);
	return buf;
}

void probe_viridis(double t, unsigned rgb[3])
{
	static const double points[9][3] = {
		{68, 1, 84},   {71, 44, 122},  {59, 81, 139},  {44, 113, 142},
		{33, 144, 141}, {39, 173, 129}, {92, 200, 99}, {170, 220, 50},
		{253, 231, 37},
	};
	double at = fmin(fmax(t, 0.0), 1.0) * 8.0;
	int i = at >= 8.0 ? 7 : (int)at;
	for (int k = 0; k < 3; k++)
		rgb[k] = (unsigned)lround(points[i][k] + (at - i) * (points[i + 1][k] - points[i][k]));
}

/* ---- SVG -------------------------------------------------------------------- */

struct cursor {
	const char *p, *end, *start;
	char *why;
	size_t why_size;
};

static int fail(struct cursor *c, const char *what)
{
	int left = (int)(c->end - c->p < 40 ? c->end - c->p : 40);
	snprintf(c->why, c->why_size, "%s at byte %td: %.*s", what, c->p - c->start,
	         left, c->p);
	return 0;
}

static int starts(const struct cursor *c, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(c->end - c->p) >= n && memcmp(c->p, s, n) == 0;
}

static int skip_past(struct cursor *c, const char *s)
{
	const char *found = memmem(c->p, (size_t)(c->end - c->p), s, strlen(s));
	if (!found)
		return 0;
	c->p = found + strlen(s);
	return 1;
}

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && isspace((unsigned char)*c->p))
		c->p++;
}

static int name(struct cursor *c, char *out, size_t size)
{
	size_t n = 0;
	if (c->p >= c->end || !(isalpha((unsigned char)*c->p) || *c->p == '_' || *c->p == ':'))
		return 0;
	while (c->p < c->end && (isalnum((unsigned char)*c->p) || strchr("_:.-", *c->p))) {
		if (n + 1 < size)
			out[n++] = *c->p;
		c->p++;
	}
	out[n] = '\0';
	return 1;
}

/* An entity after '&': named (the five of XML) or numeric. */
static int entity(struct cursor *c)
{
	static const char *const named[] = {"lt;", "gt;", "amp;", "quot;", "apos;"};
	for (size_t i = 0; i < 5; i++)
		if (starts(c, named[i])) {
			c->p += strlen(named[i]);
			return 1;
		}
	if (!starts(c, "#"))
		return 0;
	c->p++;
	int hex = c->p < c->end && *c->p == 'x';
	c->p += hex;
	const char *digits = c->p;
	while (c->p < c->end && (hex ? isxdigit((unsigned char)*c->p) : isdigit((unsigned char)*c->p)))
		c->p++;
	if (c->p == digits || c->p >= c->end || *c->p != ';')
		return 0;
	c->p++;
	return 1;
}

/* Character data up to the next '<'. */
static int text(struct cursor *c)
{
	while (c->p < c->end && *c->p != '<') {
		if (*c->p == '&') {
			c->p++;
			if (!entity(c))
				return fail(c, "a malformed entity");
		} else {
			c->p++;
		}
	}
	return 1;
}

static int misc(struct cursor *c)
{
	if (starts(c, "<?"))
		return skip_past(c, "?>") ? 1 : fail(c, "an unclosed processing instruction");
	if (starts(c, "<!--"))
		return skip_past(c, "-->") ? 1 : fail(c, "an unclosed comment");
	if (starts(c, "<!DOCTYPE")) {
		/* PLplot's has no internal subset: up to '>' outside quotes */
		char quote = 0;
		for (c->p += 9; c->p < c->end; c->p++) {
			if (quote && *c->p == quote)
				quote = 0;
			else if (!quote && (*c->p == '"' || *c->p == '\''))
				quote = *c->p;
			else if (!quote && *c->p == '>') {
				c->p++;
				return 1;
			}
		}
		return fail(c, "an unclosed DOCTYPE");
	}
	return -1;
}

int xml_well_formed(const char *textp, size_t size, char *why, size_t why_size)
{
	struct cursor c = {textp, textp + size, textp, why, why_size};
	char stack[256][64];
	int depth = 0, roots = 0;
	why[0] = '\0';
	if (memchr(textp, '\0', size))
		return fail(&c, "a NUL byte");
	while (c.p < c.end) {
		if (*c.p != '<') {
			if (depth == 0) {
				skip_space(&c);
				if (c.p < c.end && *c.p != '<')
					return fail(&c, "text outside the root");
				continue;
			}
			if (!text(&c))
				return 0;
			continue;
		}
		int m = misc(&c);
		if (m == 0)
			return 0;
		if (m == 1)
			continue;
		c.p++;
		if (c.p < c.end && *c.p == '/') {
			char tag[64];
			c.p++;
			if (!name(&c, tag, sizeof tag))
				return fail(&c, "an end tag without a name");
			if (depth == 0 || strcmp(stack[depth - 1], tag) != 0)
				return fail(&c, "an end tag that closes no open element");
			depth--;
			skip_space(&c);
			if (c.p >= c.end || *c.p != '>')
				return fail(&c, "an unclosed end tag");
			c.p++;
			continue;
		}
		if (depth == 0 && roots++)
			return fail(&c, "a second root element");
		if (depth == 256)
			return fail(&c, "elements nested too deeply for this check");
		if (!name(&c, stack[depth], sizeof stack[depth]))
			return fail(&c, "a start tag without a name");
		for (;;) {
			const char *before = c.p;
			skip_space(&c);
			if (starts(&c, "/>")) {
				c.p += 2;
				break;
			}
			if (starts(&c, ">")) {
				c.p++;
				depth++;
				break;
			}
			char attribute[64];
			if (c.p == before || !name(&c, attribute, sizeof attribute))
				return fail(&c, "a malformed attribute");
			skip_space(&c);
			if (c.p >= c.end || *c.p != '=')
				return fail(&c, "an attribute without a value");
			c.p++;
			skip_space(&c);
			if (c.p >= c.end || (*c.p != '"' && *c.p != '\''))
				return fail(&c, "an unquoted attribute value");
			char quote = *c.p++;
			while (c.p < c.end && *c.p != quote) {
				if (*c.p == '<')
					return fail(&c, "'<' in an attribute value");
				if (*c.p++ == '&' && !entity(&c))
					return fail(&c, "a malformed entity in an attribute");
			}
			if (c.p >= c.end)
				return fail(&c, "an unclosed attribute value");
			c.p++;
		}
	}
	if (depth != 0)
		return fail(&c, "an element left open");
	if (roots != 1)
		return fail(&c, "no root element");
	return 1;
}

static size_t put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

char *svg_text(const char *textp, size_t size)
{
	char *out = malloc(size + 1);
	cr_assert_not_null(out);
	size_t o = 0;
	int in_text = 0;
	for (const char *p = textp, *end = textp + size; p < end;) {
		if (*p == '<') {
			if (strncmp(p, "<text", 5) == 0 && (p[5] == ' ' || p[5] == '\n' || p[5] == '>'))
				in_text = 1;
			else if (strncmp(p, "</text>", 7) == 0) {
				in_text = 0;
				out[o++] = '\n';
			}
			const char *close = memchr(p, '>', (size_t)(end - p));
			p = close ? close + 1 : end;
			continue;
		}
		if (in_text && *p == '&' && p[1] == '#') {
			int hex = p[2] == 'x';
			char *stop;
			unsigned long cp = strtoul(p + 2 + hex, &stop, hex ? 16 : 10);
			o += put_utf8(out + o, cp);
			p = *stop == ';' ? stop + 1 : stop;
			continue;
		}
		if (in_text && *p == '&') {
			static const struct { const char *name; char c; } named[] = {
				{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''},
			};
			size_t i = 0;
			while (i < 5 && strncmp(p, named[i].name, strlen(named[i].name)) != 0)
				i++;
			out[o++] = i < 5 ? named[i].c : '&';
			p += i < 5 ? strlen(named[i].name) : 1;
			continue;
		}
		if (in_text && *p != '\n')
			out[o++] = *p;
		p++;
	}
	out[o] = '\0';
	return out;
}
