/* What the tests of the pictures share: drawing into memory, reading a
 * PNG back (libpng) and finding a value's pixel from the axes the picture
 * reports, checking that an SVG is well-formed XML and reading its text. */
#ifndef HEADALLOC_TESTS_PLOT_PROBE_H
#define HEADALLOC_TESTS_PLOT_PROBE_H

#include <stddef.h>

#include <headalloc/headalloc.h>

#define PROBE_PANELS 16

/* A picture in memory and the target that drew it. */
struct picture {
	char *data;
	size_t size;
	struct ha_plot_target target;
	struct ha_plot_axes axes[PROBE_PANELS];
	enum ha_status status;
	struct ha_error err;
};

typedef enum ha_status (*probe_draw_fn)(struct ha_plot_target *t,
                                        const void *req, struct ha_error *err);

/* Draw into p (free with picture_free); p->status says how it went. */
void picture_draw(struct picture *p, enum ha_plot_format format,
                  probe_draw_fn draw, const void *req);
void picture_free(struct picture *p);

/* The landscape's request, and the n its allocation is made at. */
struct probe_landscape_request {
	struct ha_plot_allocation_request plot;
	double samples;
};

/* The five pictures behind one signature (the landscape's request a
 * struct probe_landscape_request). */
enum ha_status probe_landscape(struct ha_plot_target *t, const void *req,
                               struct ha_error *err);
enum ha_status probe_sweep(struct ha_plot_target *t, const void *req,
                           struct ha_error *err);
enum ha_status probe_regimes(struct ha_plot_target *t, const void *req,
                             struct ha_error *err);
enum ha_status probe_hdi(struct ha_plot_target *t, const void *req,
                         struct ha_error *err);
enum ha_status probe_weights(struct ha_plot_target *t, const void *req,
                             struct ha_error *err);
enum ha_status probe_calibration(struct ha_plot_target *t, const void *req,
                                 struct ha_error *err);

/* Drawn in every format, valid in it (a PNG libpng decodes, at least
 * 800 x 600; a well-formed SVG; a framed PDF without a creation date),
 * and the same bytes twice. */
void probe_check_valid(probe_draw_fn draw, const void *req);

/* ---- PNG ------------------------------------------------------------------ */

struct image {
	unsigned width, height;
	unsigned char *rgb; /* width * height * 3 */
};

/* Decode a PNG picture (asserting it is one); the IHDR's size must be
 * the picture's.  Free with image_free. */
struct image image_decode(const struct picture *p);
void image_free(struct image *im);

/* Draw a PNG (asserting it is drawn) and decode it into *im. */
struct picture probe_png(probe_draw_fn draw, const void *req, struct image *im);

/* The pixel (column, row from the top-left) of world (x, y) in panel. */
void probe_locate(const struct picture *p, size_t panel, double x, double y,
                  int *col, int *row);

/* Whether a pixel within radius of (col, row) has colour rgb, each
 * channel within tol. */
int probe_near(const struct image *im, int col, int row, int radius,
               const unsigned rgb[3], int tol);

/* The colour at (col, row), for messages: "(r, g, b)". */
const char *probe_colour(const struct image *im, int col, int row);

/* Assert that a pixel within radius of world (x, y) of panel has colour
 * rgb (each channel within 6), or that none has. */
#define EXPECT_NEAR(im, p, panel, x, y, radius, rgb, what)                             \
	do {                                                                          \
		int col_, row_;                                                       \
		probe_locate((p), (panel), (x), (y), &col_, &row_);                   \
		cr_assert(probe_near((im), col_, row_, (radius), (rgb), 6),           \
		          "%s: expected (%u, %u, %u) near pixel (%d, %d), found %s",  \
		          (what), (rgb)[0], (rgb)[1], (rgb)[2], col_, row_,            \
		          probe_colour((im), col_, row_));                            \
	} while (0)

#define EXPECT_NOT_NEAR(im, p, panel, x, y, radius, rgb, what)                         \
	do {                                                                          \
		int col_, row_;                                                       \
		probe_locate((p), (panel), (x), (y), &col_, &row_);                   \
		cr_assert(!probe_near((im), col_, row_, (radius), (rgb), 6),          \
		          "%s: (%u, %u, %u) near pixel (%d, %d)", (what), (rgb)[0],    \
		          (rgb)[1], (rgb)[2], col_, row_);                             \
	} while (0)

/* Viridis at t, from the nine control points the library documents,
 * interpolated linearly in RGB (independently of the library's code). */
void probe_viridis(double t, unsigned rgb[3]);

/* ---- SVG ------------------------------------------------------------------ */

/* 1 when text is well-formed XML (one root; tags nest and match;
 * attributes quoted; only the five named entities and numeric ones); else
 * 0 with the reason in why. */
int xml_well_formed(const char *text, size_t size, char *why, size_t why_size);

/* The character data of every <text> element, entities decoded to UTF-8,
 * one element a line, in a new string. */
char *svg_text(const char *text, size_t size);

#endif
