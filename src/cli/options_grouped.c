/* The grouped-query options of the allocation command: parsed, each
 * checked alone, then together (cli_grouped_check). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common.h"
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
	switch (code) {
	case CLI_OPT_KV_HEADS:
		g->active = 1;
		if (strcmp(arg, "auto") == 0) {
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
	if ((sample_count == 0 && !regimes) || has_models)
		return cli_usage_error(NULL, "the grouped allocation (--kv-heads, "
		                       "--max-kv-dim, --pareto ...) needs --samples, "
		                       "without a model table");
	if (sweep && (g->pareto || g->max_loss_ratio > 0.0))
		return cli_usage_error(NULL, "--pareto and --max-loss-ratio need a "
		                       "single budget and a single value of --samples "
		                       "(a sweep's rows are each point's optimum under "
		                       "--kv-heads or --max-kv-dim)");
	if (all)
		return cli_usage_error(NULL, "the grouped allocation does not go with "
		                       "--all");
	if (plot && !sweep && !g->pareto && !regimes)
		return cli_usage_error(NULL, "--plot of the grouped allocation draws "
		                       "its trade-off front: it needs --pareto");
	if (kv->min_kv_heads && kv->max_kv_heads && kv->min_kv_heads > kv->max_kv_heads)
		return cli_usage_error(NULL, "--min-kv-heads %" PRIu64 " is larger "
		                       "than --max-kv-heads %" PRIu64,
		                       kv->min_kv_heads, kv->max_kv_heads);
	if (kv->kv_heads && kv->min_kv_heads && kv->kv_heads < kv->min_kv_heads)
		return cli_usage_error(NULL, "--kv-heads %" PRIu64 " is below "
		                       "--min-kv-heads %" PRIu64, kv->kv_heads,
		                       kv->min_kv_heads);
	if (kv->kv_heads && kv->max_kv_heads && kv->kv_heads > kv->max_kv_heads)
		return cli_usage_error(NULL, "--kv-heads %" PRIu64 " is above "
		                       "--max-kv-heads %" PRIu64, kv->kv_heads,
		                       kv->max_kv_heads);
	for (size_t i = 0; i < budget_count; i++)
		if (ha_kv_shape_validate(&g->shape, budgets[i]) != HA_OK)
			return cli_usage_error(NULL, "--layers %" PRIu64 ", --kv-bytes %"
			                       PRIu64 " and --model-dim %" PRIu64 " at budget %"
			                       PRIu64 ": the KV cache or the attention's "
			                       "parameters exceed 2^64-1", g->shape.layers,
			                       g->shape.kv_bytes, g->shape.model_dim,
			                       budgets[i]);
	return EXIT_OK;
}
