/* svg_text_check [--list] FILE.svg...: every text of a picture that
 * PLplot's SVG driver wrote measured against the page, against the region
 * it is clipped to, and against every other text.  Prints one line a
 * fault and exits 1 when there is one (2 when a file cannot be read).
 *
 * The driver writes each text as <text font-size transform text-anchor x
 * y> holding <tspan>s (nested for sub- and superscripts: font-size and a
 * dy baseline shift) of characters as &#xNN; references, inside a
 * <g clip-path="url(#ID)"> whose <clipPath> is a polygon.  SVG carries no
 * glyph metrics, so a text's extent comes from a font metric table: the
 * advance widths of DejaVu Sans 2.37 (fonts-dejavu-core, the "sans-serif"
 * fontconfig gives here and the face cairo draws the PNG and PDF
 * pictures with), read from the hmtx table of DejaVuSans.ttf (2048 units
 * an em); its ascender 0.76 em ('l', 1556 units) and descender 0.236 em
 * (483 units).  A character outside the table counts 1 em, more than
 * any glyph of the table.  The marks the legends draw as text (U+25CF,
 * U+25B2, U+25CB) reach from their own glyphs' ink, yMin to yMax of the
 * glyf table, not the font's ascender and descender.  A box is the text's
 * advance from ascender to descender, transformed by the text's matrix
 * and the page's (rotated texts included). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DejaVu Sans advance widths of ' ' (32) to '~' (126), units of 1/2048 em. */
static const unsigned short ascii_width[95] = {
	651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,
	1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716,
	1716, 1087, 2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343,
	1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251,
	1403, 799, 690, 799, 1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298,
	569, 569, 1186, 569, 1995, 1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675,
	1212, 1212, 1075, 1303, 690, 1303, 1716,
};

/* The other characters the pictures use. */
static const struct {
	unsigned code, width;
} other_width[] = {
	{0xd7, 1716},   {0xb2, 821},    {0xb1, 1716},   {0x25cf, 1787}, {0x25b2, 1575},
	{0x25cb, 1787}, {0x3b1, 1350},  {0x3a3, 1294},  {0x221d, 1463}, {0x2264, 1716},
	{0x2265, 1716}, {0x2212, 1716}, {0x3b3, 1212},  {0x3ba, 1207},  {0x2248, 1716},
	{0x2013, 1024}, {0xb7, 651},
};

#define ASCENT (1556.0 / 2048.0)
#define DESCENT (483.0 / 2048.0)

/* The marks' ink above and below the baseline, units of 1/2048 em. */
static const struct {
	unsigned code, above, below;
} mark_ink[] = {{0x25cf, 1312, 252}, {0x25b2, 1316, 252}, {0x25cb, 1321, 257}};

static void vertical(unsigned code, double *above, double *below)
{
	*above = ASCENT;
	*below = DESCENT;
	for (size_t i = 0; i < sizeof mark_ink / sizeof *mark_ink; i++)
		if (mark_ink[i].code == code) {
			*above = mark_ink[i].above / 2048.0;
			*below = mark_ink[i].below / 2048.0;
		}
}

static double em_width(unsigned code)
{
	if (code >= 32 && code < 127)
		return ascii_width[code - 32] / 2048.0;
	for (size_t i = 0; i < sizeof other_width / sizeof *other_width; i++)
		if (other_width[i].code == code)
			return other_width[i].width / 2048.0;
	return 1.0;
}

struct box {
	double x0, y0, x1, y1; /* page points, y down from the top */
};

struct text {
	char words[160];   /* the text, UTF-8 shortened to ASCII ('?') */
	struct box box;
	struct box clip;   /* its clipping region */
};

struct clip {
	char id[48];
	struct box box;
};

/* The value of attribute name in the tag starting at tag (up to '>'). */
static int attribute(const char *tag, const char *name, char *out, size_t size)
{
	const char *end = strchr(tag, '>');
	size_t n = strlen(name);
	for (const char *p = tag; p && (!end || p < end); p = strchr(p + 1, ' ')) {
		const char *q = p;
		while (*q == ' ' || *q == '\n')
			q++;
		if (strncmp(q, name, n) == 0 && q[n] == '=' && q[n + 1] == '"') {
			const char *v = q + n + 2, *close = strchr(v, '"');
			if (!close || (size_t)(close - v) >= size)
				return 0;
			memcpy(out, v, (size_t)(close - v));
			out[close - v] = '\0';
			return 1;
		}
	}
	return 0;
}

/* The bounding box of a <clipPath>'s polygon, in the drawing's own
 * coordinates (y up: the page's group flips it). */
static size_t read_clips(const char *svg, struct clip *clips, size_t room, double height)
{
	size_t n = 0;
	for (const char *p = svg; n < room && (p = strstr(p, "<clipPath")); p++) {
		char id[48], points[512];
		const char *poly = strstr(p, "<polygon");
		if (!attribute(p, "id", id, sizeof id) || !poly ||
		    !attribute(poly, "points", points, sizeof points))
			continue;
		struct box b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
		for (char *s = points; *s;) {
			char *e;
			double x = strtod(s, &e);
			if (e == s || *e != ',')
				break;
			double y = strtod(e + 1, &s);
			b.x0 = fmin(b.x0, x);
			b.x1 = fmax(b.x1, x);
			b.y0 = fmin(b.y0, height - y);
			b.y1 = fmax(b.y1, height - y);
			while (*s == ' ')
				s++;
		}
		snprintf(clips[n].id, sizeof clips[n].id, "%s", id);
		clips[n++].box = b;
	}
	return n;
}

/* Measure one <text> element: its run of characters in text space (x
 * along the baseline, y down), then its matrix and the page's flip. */
static void measure(const char *tag, double height, struct text *t)
{
	char value[160];
	double size = attribute(tag, "font-size", value, sizeof value) ? atof(value) : 10.0;
	double a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;
	if (attribute(tag, "transform", value, sizeof value))
		sscanf(value, "matrix(%lf %lf %lf %lf %lf %lf)", &a, &b, &c, &d, &e, &f);
	double x = attribute(tag, "x", value, sizeof value) ? atof(value) : 0.0;
	double y = attribute(tag, "y", value, sizeof value) ? atof(value) : 0.0;
	char anchor[16] = "start";
	attribute(tag, "text-anchor", anchor, sizeof anchor);

	/* the run: widths at each tspan's size, tops and bottoms at its shift */
	double sizes[16] = {size}, shifts[16] = {0}, advance = 0.0;
	double top = INFINITY, bottom = -INFINITY;
	int depth = 0;
	size_t w = 0;
	const char *p = strchr(tag, '>') + 1, *end = strstr(p, "</text>");
	while (p < end) {
		if (strncmp(p, "<tspan", 6) == 0) {
			double s = sizes[depth], dy = 0.0;
			if (attribute(p, "font-size", value, sizeof value))
				s = atof(value);
			if (attribute(p, "dy", value, sizeof value))
				dy = atof(value);
			if (depth < 15) {
				depth++;
				sizes[depth] = s;
				shifts[depth] = shifts[depth - 1] + dy;
			}
			p = strchr(p, '>') + 1;
		} else if (strncmp(p, "</tspan>", 8) == 0) {
			depth -= depth > 0;
			p += 8;
		} else if (strncmp(p, "&#x", 3) == 0) {
			char *after;
			unsigned code = (unsigned)strtoul(p + 3, &after, 16);
			double above, below;
			vertical(code, &above, &below);
			advance += em_width(code) * sizes[depth];
			top = fmin(top, shifts[depth] - above * sizes[depth]);
			bottom = fmax(bottom, shifts[depth] + below * sizes[depth]);
			if (w + 1 < sizeof t->words)
				t->words[w++] = code >= 32 && code < 127 ? (char)code : '?';
			p = after + (*after == ';');
		} else {
			p++;
		}
	}
	t->words[w] = '\0';
	if (w == 0)
		top = bottom = 0.0;
	double x0 = x - (strcmp(anchor, "middle") == 0 ? 0.5 * advance
	                 : strcmp(anchor, "end") == 0 ? advance : 0.0);
	double corners[4][2] = {{x0, y + top}, {x0 + advance, y + top},
	                        {x0, y + bottom}, {x0 + advance, y + bottom}};
	t->box = (struct box){INFINITY, INFINITY, -INFINITY, -INFINITY};
	for (int k = 0; k < 4; k++) {
		double u = a * corners[k][0] + c * corners[k][1] + e;
		double v = b * corners[k][0] + d * corners[k][1] + f;
		/* the page's group: matrix(1 0 0 -1 0 height) */
		v = height - v;
		t->box.x0 = fmin(t->box.x0, u);
		t->box.x1 = fmax(t->box.x1, u);
		t->box.y0 = fmin(t->box.y0, v);
		t->box.y1 = fmax(t->box.y1, v);
	}
}

static int inside(const struct box *in, const struct box *out)
{
	const double tol = 0.5;
	return in->x0 >= out->x0 - tol && in->x1 <= out->x1 + tol &&
	       in->y0 >= out->y0 - tol && in->y1 <= out->y1 + tol;
}

static int overlap(const struct box *p, const struct box *q)
{
	const double tol = 0.5;
	return fmin(p->x1, q->x1) - fmax(p->x0, q->x0) > tol &&
	       fmin(p->y1, q->y1) - fmax(p->y0, q->y0) > tol;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t size = 0, room = 1 << 16;
	char *data = malloc(room + 1);
	for (size_t got; data && (got = fread(data + size, 1, room - size, f)) > 0;) {
		size += got;
		if (size == room) {
			char *grown = realloc(data, 2 * room + 1);
			if (!grown) {
				free(data);
				data = NULL;
				break;
			}
			data = grown;
			room *= 2;
		}
	}
	fclose(f);
	if (data)
		data[size] = '\0';
	return data;
}

static void print_box(const struct box *b)
{
	printf("[%.1f, %.1f] x [%.1f, %.1f]", b->x0, b->x1, b->y0, b->y1);
}

/* The faults of one picture: 0, the count, or -1 when it cannot be read. */
static int check(const char *path, int list)
{
	char *svg = slurp(path);
	char value[64];
	const char *root = svg ? strstr(svg, "<svg") : NULL;
	if (!root || !attribute(root, "viewBox", value, sizeof value)) {
		fprintf(stderr, "svg_text_check: %s: not an SVG picture\n", path);
		free(svg);
		return -1;
	}
	double w, h;
	sscanf(value, "0 0 %lf %lf", &w, &h);
	const struct box page = {0.0, 0.0, w, h};
	static struct clip clips[256];
	size_t nclips = read_clips(svg, clips, 256, h);
	size_t ntexts = 0, room = 64;
	struct text *texts = malloc(room * sizeof *texts);
	const char *clip_at = NULL;
	for (const char *p = svg; texts && (p = strstr(p, "<")); p++) {
		if (strncmp(p, "<g", 2) == 0 && p[2] != 'r' && attribute(p, "clip-path", value, sizeof value))
			clip_at = p;
		if (strncmp(p, "<text", 5) != 0)
			continue;
		if (ntexts == room) {
			struct text *grown = realloc(texts, 2 * room * sizeof *texts);
			if (!grown)
				break;
			texts = grown;
			room *= 2;
		}
		struct text *t = &texts[ntexts++];
		measure(p, h, t);
		t->clip = page;
		char id[64];
		if (clip_at && attribute(clip_at, "clip-path", id, sizeof id))
			for (size_t k = 0; k < nclips; k++)
				if (strncmp(id, "url(#", 5) == 0 && strncmp(id + 5, clips[k].id, strlen(clips[k].id)) == 0 &&
				    id[5 + strlen(clips[k].id)] == ')')
					t->clip = clips[k].box;
	}
	int faults = 0;
	for (size_t i = 0; texts && i < ntexts; i++) {
		const struct text *t = &texts[i];
		if (list) {
			printf("%s: '%s' ", path, t->words);
			print_box(&t->box);
			printf("\n");
		}
		if (!t->words[0] || strspn(t->words, " ") == strlen(t->words))
			continue;
		if (!inside(&t->box, &page)) {
			printf("%s: '%s' ", path, t->words);
			print_box(&t->box);
			printf(" leaves the page [0, %g] x [0, %g]\n", w, h);
			faults++;
		} else if (!inside(&t->box, &t->clip)) {
			printf("%s: '%s' ", path, t->words);
			print_box(&t->box);
			printf(" is cut by its clipping region ");
			print_box(&t->clip);
			printf("\n");
			faults++;
		}
		for (size_t j = i + 1; j < ntexts; j++) {
			const struct text *u = &texts[j];
			if (!u->words[0] || strspn(u->words, " ") == strlen(u->words))
				continue;
			if (overlap(&t->box, &u->box)) {
				printf("%s: '%s' ", path, t->words);
				print_box(&t->box);
				printf(" overlaps '%s' ", u->words);
				print_box(&u->box);
				printf("\n");
				faults++;
			}
		}
	}
	if (!texts || ntexts == 0) {
		printf("%s: no text measured\n", path);
		faults++;
	}
	free(texts);
	free(svg);
	return faults;
}

int main(int argc, char **argv)
{
	int list = argc > 1 && strcmp(argv[1], "--list") == 0, status = 0;
	for (int i = 1 + list; i < argc; i++) {
		int faults = check(argv[i], list);
		if (faults < 0)
			return 2;
		if (faults)
			status = 1;
	}
	return status;
}
