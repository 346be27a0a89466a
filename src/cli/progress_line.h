/* The progress line: long library work (struct ha_progress) drawn as one
 * updating line on stderr, "headalloc: hdi: 12/32 layers (37%)", when
 * stderr is a terminal and the work has taken more than a second, or
 * always with --progress; never with --quiet.  The line is erased when
 * the work ends, so what stays on the terminal is the command's own
 * output, and in a pipe nothing is written at all (outputs stay
 * byte-identical). */
#ifndef HEADALLOC_CLI_PROGRESS_LINE_H
#define HEADALLOC_CLI_PROGRESS_LINE_H

#include <stdbool.h>

#include <headalloc/headalloc.h>

enum cli_progress_mode {
	CLI_PROGRESS_AUTO,  /* a terminal, after a second */
	CLI_PROGRESS_FORCE, /* --progress: from the start, wherever stderr is */
	CLI_PROGRESS_OFF    /* --quiet */
};

struct cli_progress {
	enum cli_progress_mode mode;
	const char *label;   /* "hdi" */
	double start, last;  /* monotonic seconds */
	bool terminal;       /* stderr is a terminal */
	bool drawn;          /* a line is on the screen */
};

/* Start timing work named label (a static string) and return the
 * callback to put in the library's request; p must outlive the work. */
struct ha_progress cli_progress_begin(struct cli_progress *p,
                                      enum cli_progress_mode mode,
                                      const char *label);

/* The work is over (done, failed or cancelled): erase the line, if one
 * was drawn. */
void cli_progress_end(struct cli_progress *p);

/* Erase the line being drawn, if any, before a message on stderr (the
 * next step draws it again). */
void cli_progress_clear(void);

#endif
