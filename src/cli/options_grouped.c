/* The grouped-query options of the allocation command: parsed, each
 * checked alone, then together (cli_grouped_check). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "option_words.h"
#include "options_grouped.h"
#include "parse.h"
#include "value_lists.h"

static const char *name_of(int code)
{
	static const char *const names[] = {
		"--kv-heads", "--max-kv-dim", "--min-kv-heads", "--max-kv-heads",
		"--group-hdi", "--layers", "--kv-bytes", "--model-dim", "--pareto",
		"--max-loss-ratio"};
	return names[code - CLI_OPT_KV_HEADS];
}

void cli_grouped_init(struct cli_grouped *g)
{
	memset(g, 0, sizeof *g);
	g->shape = ha_kv_shape_defaults();
}

int cli_grouped_is_option(int code)
{
	return code >= CLI_OPT_KV_HEADS && code <= CLI_OPT_MAX_LOSS_RATIO;
}

void cli_grouped_from_file(struct cli_grouped *g, const struct ha_scenario *sc,
                           const char *config)
{
	g->kv = sc->kv;
	g->shape = sc->kv_shape;
	g->file = sc;
	g->config = config;
	g->active = 1;
}

/* The key of ha_scenario_kv_key for an option's code; -1 for none. */
static int key_of(int code)
{
	switch (code) {
	case CLI_OPT_KV_HEADS: return HA_SCENARIO_KV_HEADS;
	case CLI_OPT_MAX_KV_DIM: return HA_SCENARIO_MAX_KV_DIM;
	case CLI_OPT_MIN_KV_HEADS: return HA_SCENARIO_MIN_KV_HEADS;
	case CLI_OPT_MAX_KV_HEADS: return HA_SCENARIO_MAX_KV_HEADS;
	case CLI_OPT_LAYERS: return HA_SCENARIO_LAYERS;
	case CLI_OPT_KV_BYTES: return HA_SCENARIO_KV_BYTES;
	case CLI_OPT_MODEL_DIM: return HA_SCENARIO_MODEL_DIM;
	default: return -1;
	}
}

static int code_of(int key)
{
	static const int codes[HA_SCENARIO_KV_KEYS] = {
		CLI_OPT_KV_HEADS, CLI_OPT_MAX_KV_DIM, CLI_OPT_MIN_KV_HEADS,
		CLI_OPT_MAX_KV_HEADS, CLI_OPT_LAYERS, CLI_OPT_KV_BYTES,
		CLI_OPT_MODEL_DIM};
	return codes[key];
}

/* Whether key's value is the file's: given there, no option over it. */
static int from_file(const struct cli_grouped *g, int key)
{
	return g->file && g->file->kv_line[key] && !(g->typed & (1u << key));
}

/* A value as the user wrote it: kv_heads 0 is auto, model_dim 0 none. */
static void value_text(int key, uint64_t value, char *buf, size_t size)
{
	if (value == 0 && key == HA_SCENARIO_KV_HEADS)
		snprintf(buf, size, "auto");
	else if (value == 0 && key == HA_SCENARIO_MODEL_DIM)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%" PRIu64, value);
}

/* "--min-kv-heads 8", "kv.min_kv_heads 8 (s.yaml:5:17)" or, for a value
 * neither typed nor in the file, "layers 1 (the default)". */
static const char *describe(const struct cli_grouped *g, int key,
                            uint64_t value, char *buf, size_t size)
{
	static const char *const keys[HA_SCENARIO_KV_KEYS] = {
		"kv_heads", "max_kv_dim", "min_kv_heads", "max_kv_heads",
		"layers", "kv_bytes", "model_dim"};
	char text[32];
	value_text(key, value, text, sizeof text);
	if (from_file(g, key))
		snprintf(buf, size, "kv.%s %s (%s:%u:%u)", keys[key], text,
		         g->config, g->file->kv_line[key], g->file->kv_column[key]);
	else if (g->typed & (1u << key))
		snprintf(buf, size, "%s %s", name_of(code_of(key)), text);
	else
		snprintf(buf, size, "%s %s (the default)", keys[key], text);
	return buf;
}

/* The position of the file's first kv key, for a refusal of the map as a
 * whole: "s.yaml:4:13". */
static const char *kv_position(const struct cli_grouped *g, char *buf,
                               size_t size)
{
	unsigned line = 0, column = 0;
	for (int k = 0; k < HA_SCENARIO_KV_KEYS; k++)
		if (g->file->kv_line[k] && (!line || g->file->kv_line[k] < line ||
		                            (g->file->kv_line[k] == line &&
		                             g->file->kv_column[k] < column))) {
			line = g->file->kv_line[k];
			column = g->file->kv_column[k];
		}
	if (line)
		snprintf(buf, size, "%s:%u:%u", g->config, line, column);
	else /* an empty map */
		snprintf(buf, size, "%s", g->config);
	return buf;
}

/* Room for a value described with its file's name and position. */
enum { DESCRIBED = 4200 };

static int count(int code, const char *arg, uint64_t *out)
{
	if (!cli_parse_uint(arg, 1, HA_BUDGET_MAX, out))
		return cli_bad_number(name_of(code), arg, CLI_WHOLE_NUMBER);
	return EXIT_OK;
}

int cli_grouped_option(struct cli_grouped *g, struct ha_model *m, int code,
                       const char *arg)
{
	double v;
	if (key_of(code) >= 0)
		g->typed |= 1u << key_of(code);
	if (code != CLI_OPT_GROUP_HDI && key_of(code) < HA_SCENARIO_LAYERS)
		g->active_typed = 1;
	switch (code) {
	case CLI_OPT_KV_HEADS:
		g->active = 1;
		if (cli_word_index(CLI_WORDS_KV_HEADS, arg) == 0) {
			g->kv.kv_heads = 0;
			return EXIT_OK;
		}
		if (!cli_parse_uint(arg, 1, HA_BUDGET_MAX, &g->kv.kv_heads))
			return cli_bad_number(name_of(code), arg,
			                      "auto or " CLI_WHOLE_NUMBER);
		return EXIT_OK;
	case CLI_OPT_MAX_KV_DIM:
		g->active = 1;
		return count(code, arg, &g->kv.max_kv_dim);
	case CLI_OPT_MIN_KV_HEADS:
		g->active = 1;
		return count(code, arg, &g->kv.min_kv_heads);
	case CLI_OPT_MAX_KV_HEADS:
		g->active = 1;
		return count(code, arg, &g->kv.max_kv_heads);
	case CLI_OPT_GROUP_HDI:
		g->companions = 1;
		g->have_group_hdi = 1;
		if (!cli_parse_real(arg, &m->group_hdi) ||
		    !(m->group_hdi >= 0.0 && m->group_hdi <= 1.0))
			return cli_bad_number(name_of(code), arg, "a number from 0 to 1");
		m->group_hdi += 0.0; /* -0 reads as 0 */
		return EXIT_OK;
	case CLI_OPT_LAYERS:
		g->companions = 1;
		return count(code, arg, &g->shape.layers);
	case CLI_OPT_KV_BYTES:
		g->companions = 1;
		return count(code, arg, &g->shape.kv_bytes);
	case CLI_OPT_MODEL_DIM:
		g->companions = 1;
		return count(code, arg, &g->shape.model_dim);
	case CLI_OPT_PARETO:
		g->active = 1;
		g->pareto = 1;
		return EXIT_OK;
	case CLI_OPT_MAX_LOSS_RATIO:
		g->active = 1;
		if (!cli_parse_real(arg, &v) || !(v >= 1.0))
			return cli_bad_number(name_of(code), arg, "a finite number >= 1");
		g->max_loss_ratio = v;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

int cli_grouped_check(const struct cli_grouped *g, const uint64_t *budgets,
                      size_t budget_count, size_t sample_count, int all,
                      int regimes, int has_models, int plot)
{
	const struct ha_kv_constraints *kv = &g->kv;
	if (!g->active) {
		if (g->companions)
			return cli_usage_error(NULL, "--group-hdi, --layers, --kv-bytes "
			                       "and --model-dim go with --kv-heads, "
			                       "--max-kv-dim, --min-kv-heads, "
			                       "--max-kv-heads, --pareto or "
			                       "--max-loss-ratio");
		return EXIT_OK;
	}
	int sweep = budget_count != 1 || sample_count != 1;
	char at[DESCRIBED], lo[DESCRIBED], hi[DESCRIBED];
	if (((sample_count == 0 && !regimes) || has_models) && !g->active_typed)
		return cli_file_error("%s: kv: the grouped allocation needs sample "
		                      "sizes (samples or --samples), without a model "
		                      "table", kv_position(g, at, sizeof at));
	if ((sample_count == 0 && !regimes) || has_models)
		return cli_usage_error(NULL, "the grouped allocation (--kv-heads, "
		                       "--max-kv-dim, --pareto ...) needs --samples, "
		                       "without a model table");
	if (sweep && (g->pareto || g->max_loss_ratio > 0.0))
		return cli_usage_error(NULL, "--pareto and --max-loss-ratio need a "
		                       "single budget and a single value of --samples "
		                       "(a sweep's rows are each point's optimum under "
		                       "--kv-heads or --max-kv-dim)");
	if (all && !g->active_typed)
		return cli_file_error("%s: kv: the grouped allocation does not go "
		                      "with %s", kv_position(g, at, sizeof at),
		                      all > 1 ? "report.all" : "--all");
	if (all > 1)
		return cli_usage_error(NULL, "the grouped allocation does not go with "
		                       "report.all (%s)", g->config);
	if (all)
		return cli_usage_error(NULL, "the grouped allocation does not go with "
		                       "--all");
	/* the table's joint bounds before any output (a budget alone past its
	 * bound is refused later, in the words of what would evaluate it) */
	int each_within = 1;
	for (size_t i = 0; i < budget_count; i++)
		each_within &= ha_grouped_triple_bound(budgets[i]) <= HA_GROUPED_MAX_TRIPLES;
	struct ha_error err;
	if (sweep && !regimes && each_within &&
	    ha_grouped_sweep_check(budgets, budget_count, sample_count, &err) != HA_OK)
		return cli_file_error("%s", err.message);
	if (plot && !sweep && !g->pareto && !regimes)
		return cli_usage_error(NULL, "--plot of the grouped allocation draws "
		                       "its trade-off front: it needs --pareto");
	/* each pair (low, high, the words for the one that is out of order) */
	static const struct { int low, high, blame_high; const char *words; } order[] = {
		{HA_SCENARIO_MIN_KV_HEADS, HA_SCENARIO_MAX_KV_HEADS, 0, "is larger than"},
		{HA_SCENARIO_MIN_KV_HEADS, HA_SCENARIO_KV_HEADS, 1, "is below"},
		{HA_SCENARIO_KV_HEADS, HA_SCENARIO_MAX_KV_HEADS, 0, "is above"}};
	const uint64_t value[] = {
		[HA_SCENARIO_KV_HEADS] = kv->kv_heads,
		[HA_SCENARIO_MIN_KV_HEADS] = kv->min_kv_heads,
		[HA_SCENARIO_MAX_KV_HEADS] = kv->max_kv_heads};
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		int a = order[i].low, b = order[i].high;
		if (!value[a] || !value[b] || value[a] <= value[b])
			continue;
		if (order[i].blame_high) {
			a = order[i].high;
			b = order[i].low;
		}
		return cli_usage_error(NULL, "%s %s %s",
		                       describe(g, a, value[a], lo, sizeof lo),
		                       order[i].words,
		                       describe(g, b, value[b], hi, sizeof hi));
	}
	for (size_t i = 0; i < budget_count; i++) {
		if (ha_kv_shape_validate(&g->shape, budgets[i]) == HA_OK)
			continue;
		char dim[DESCRIBED];
		describe(g, HA_SCENARIO_LAYERS, g->shape.layers, lo, sizeof lo);
		describe(g, HA_SCENARIO_KV_BYTES, g->shape.kv_bytes, hi, sizeof hi);
		describe(g, HA_SCENARIO_MODEL_DIM, g->shape.model_dim, dim, sizeof dim);
		unsigned shape_typed = g->typed & (1u << HA_SCENARIO_LAYERS |
		                                   1u << HA_SCENARIO_KV_BYTES |
		                                   1u << HA_SCENARIO_MODEL_DIM);
		if (!shape_typed && g->file) {
			char layers[32], bytes[32], model_dim[32];
			value_text(HA_SCENARIO_LAYERS, g->shape.layers, layers, sizeof layers);
			value_text(HA_SCENARIO_KV_BYTES, g->shape.kv_bytes, bytes, sizeof bytes);
			value_text(HA_SCENARIO_MODEL_DIM, g->shape.model_dim, model_dim,
			           sizeof model_dim);
			return cli_file_error("%s: kv: layers %s, kv_bytes %s and "
			                      "model_dim %s at budget %" PRIu64 ": the KV "
			                      "cache or the attention's parameters exceed "
			                      "2^64-1", kv_position(g, at, sizeof at),
			                      layers, bytes, model_dim, budgets[i]);
		}
		return cli_usage_error(NULL, "%s, %s and %s at budget %" PRIu64
		                       ": the KV cache or the attention's parameters "
		                       "exceed 2^64-1", lo, hi, dim, budgets[i]);
	}
	return EXIT_OK;
}
