/* The options whose value is a word (or a word besides a number): one
 * table of their words, from which the parsers take what they accept and
 * what their messages say is expected, and --completion what it offers,
 * so that none of the three can fall behind the others. */
#ifndef HEADALLOC_CLI_OPTION_WORDS_H
#define HEADALLOC_CLI_OPTION_WORDS_H

#include <stddef.h>

enum cli_words {
	CLI_WORDS_FORMAT,         /* --format, -f */
	CLI_WORDS_LAYOUT,         /* --layout, --hdi-layout */
	CLI_WORDS_FUSED,          /* --fused */
	CLI_WORDS_FUSED_ORDER,    /* --fused-order */
	CLI_WORDS_BOOTSTRAP_KIND, /* --bootstrap-kind */
	CLI_WORDS_KV_HEADS,       /* --kv-heads: auto, or a number */
	CLI_WORDS_THREADS,        /* --threads: auto, or a number */
	CLI_WORDS_HUBER_DELTA,    /* --huber-delta: inf, or a number */
	CLI_WORDS_COST,           /* plan --cost */
	CLI_WORDS_COUNT
};

#define CLI_WORDS_MAX 4

struct cli_word_option {
	const char *options;                 /* bash case pattern: "--format|-f" */
	const char *words[CLI_WORDS_MAX + 1]; /* NULL-terminated */
};

extern const struct cli_word_option cli_word_options[CLI_WORDS_COUNT];

/* The index of arg among set's words, or -1. */
int cli_word_index(enum cli_words set, const char *arg);

/* "text, yaml or json": set's words for a message, in buf (size bytes). */
const char *cli_words_expected(enum cli_words set, char *buf, size_t size);

#endif
