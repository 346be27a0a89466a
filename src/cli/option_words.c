/* The table of option_words.h. */
#include <stdio.h>
#include <string.h>

#include "option_words.h"

const struct cli_word_option cli_word_options[CLI_WORDS_COUNT] = {
	[CLI_WORDS_FORMAT] = {"--format|-f", {"text", "yaml", "json"}},
	[CLI_WORDS_LAYOUT] = {"--layout|--hdi-layout", {"out-in", "in-out"}},
	[CLI_WORDS_FUSED] = {"--fused", {"qkv", "kv", "none"}},
	[CLI_WORDS_FUSED_ORDER] = {"--fused-order", {"concat", "per-head"}},
	[CLI_WORDS_BOOTSTRAP_KIND] = {"--bootstrap-kind", {"cases", "residuals", "wild"}},
	[CLI_WORDS_KV_HEADS] = {"--kv-heads", {"auto"}},
	[CLI_WORDS_THREADS] = {"--threads", {"auto"}},
	[CLI_WORDS_HUBER_DELTA] = {"--huber-delta", {"inf"}},
	[CLI_WORDS_COST] = {"--cost", {"tokens", "params-tokens"}},
};

int cli_word_index(enum cli_words set, const char *arg)
{
	const char *const *w = cli_word_options[set].words;
	for (int i = 0; w[i]; i++)
		if (strcmp(arg, w[i]) == 0)
			return i;
	return -1;
}

const char *cli_words_expected(enum cli_words set, char *buf, size_t size)
{
	const char *const *w = cli_word_options[set].words;
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; w[i] && used < size; i++) {
		const char *sep = i == 0 ? "" : w[i + 1] ? ", " : " or ";
		int n = snprintf(buf + used, size - used, "%s%s", sep, w[i]);
		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}
