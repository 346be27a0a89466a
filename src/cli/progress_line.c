/* The progress line (progress_line.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress_line.h"

/* The line on the screen, for cli_progress_clear(). */
static struct cli_progress *active;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* At most ten redraws a second; the last step is always drawn. */
static int draw(void *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct cli_progress *p = ctx;
	if (p->mode == CLI_PROGRESS_OFF)
		return 0;
	double t = now();
	if (p->mode == CLI_PROGRESS_AUTO && (!p->terminal || t - p->start < 1.0))
		return 0;
	if (p->drawn && t - p->last < 0.1 && done != total)
		return 0;
	p->last = t;
	p->drawn = true;
	if (total)
		fprintf(stderr, "\rheadalloc: %s: %" PRIu64 "/%" PRIu64 " %s (%d%%)\033[K",
		        p->label, done, total, what, (int)(100.0 * (double)done / (double)total));
	else
		fprintf(stderr, "\rheadalloc: %s: %" PRIu64 " %s\033[K", p->label,
		        done, what);
	fflush(stderr);
	return 0;
}

struct ha_progress cli_progress_begin(struct cli_progress *p,
                                      enum cli_progress_mode mode,
                                      const char *label)
{
	*p = (struct cli_progress){.mode = mode, .label = label};
	p->start = p->last = now();
	p->terminal = isatty(STDERR_FILENO) == 1;
	active = p;
	return (struct ha_progress){draw, p};
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = false;
	if (active == p)
		active = NULL;
}

void cli_progress_clear(void)
{
	if (active && active->drawn) {
		fputs("\r\033[K", stderr);
		active->drawn = false;
	}
}
