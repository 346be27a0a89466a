/* Scenario files: the scenario schema (see scenario.h) on top of the YAML
 * reader every YAML input shares (input/yaml_reader.h), which holds the
 * rules on anchors, tags, keys, numbers, strings and positions. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <headalloc/grouped.h>
#include <headalloc/scenario.h>
#include <headalloc/sweep.h>

#include "input/runs_internal.h"
#include "input/yaml_reader.h"
#include "alloc/solver_internal.h"
#include "alloc/model_internal.h"

/* "an integer budget from 1 to HA_BUDGET_MAX", and the like. */
#define WHAT_SIZE 96

static const struct ha_yr_options OPTIONS = {.max_bytes =
                                                     HA_SCENARIO_MAX_FILE};

/* The current event as a sample size, in the domain of a run's. */
static enum ha_status sample_value(struct ha_yr *r, const char *where,
                                   double *out)
{
	return ha_yr_real(r, where, runs_key_what[HA_RUNS_KEY_SAMPLES],
	                  HA_YR_ABOVE, 1.0, RUNS_SAMPLES_MAX, out);
}

/* ---- model and constraints --------------------------------------------- */

/* The model's keys: the four of headalloc-model(7), THE OBJECTS, then those of headalloc-model(7), CALIBRATION (The parameters)
 * (E, γ, κ), the exact logarithms of the coefficients, which a
 * calibrated model needs when c_b or c_v lies beyond a double, and the
 * data term (A, α) and β. */
enum model_key {
	SMOOTHNESS, BIAS_COEF, VAR_COEF, HDI, IRREDUCIBLE, VAR_RATE, VAR_POWER,
	LOG_BIAS_COEF, LOG_VAR_COEF, DATA_COEF, DATA_POWER, VAR_SAMPLES_POWER,
	GROUP_HDI, CALIBRATED
};

static const struct ha_yr_key model_keys[] = {
	[SMOOTHNESS] = {"smoothness", HA_YR_OPTIONAL},
	[BIAS_COEF] = {"bias_coef", HA_YR_OPTIONAL},
	[VAR_COEF] = {"var_coef", HA_YR_OPTIONAL},
	[HDI] = {"hdi", HA_YR_OPTIONAL},
	[IRREDUCIBLE] = {"irreducible", HA_YR_OPTIONAL},
	[VAR_RATE] = {"var_rate", HA_YR_OPTIONAL},
	[VAR_POWER] = {"var_power", HA_YR_OPTIONAL},
	[LOG_BIAS_COEF] = {"log_bias_coef", HA_YR_OPTIONAL},
	[LOG_VAR_COEF] = {"log_var_coef", HA_YR_OPTIONAL},
	[DATA_COEF] = {"data_coef", HA_YR_OPTIONAL},
	[DATA_POWER] = {"data_power", HA_YR_OPTIONAL},
	[VAR_SAMPLES_POWER] = {"var_samples_power", HA_YR_OPTIONAL},
	[GROUP_HDI] = {"group_hdi", HA_YR_OPTIONAL},
	/* a report's word on its model, read back: the coefficients say it */
	[CALIBRATED] = {"calibrated", HA_YR_IGNORED}};

static enum ha_status model_field(struct ha_yr *r, void *ctx, size_t key,
                                  const char *where)
{
	struct ha_model *m = ctx;
	double v;
	enum ha_status st;
	switch ((enum model_key)key) {
	case SMOOTHNESS:
	case BIAS_COEF:
	case VAR_COEF: {
		double *positive[] = {&m->smoothness, &m->bias_coef, &m->var_coef};
		st = ha_yr_real(r, where, "a number > 0", HA_YR_ABOVE, 0.0,
		                HUGE_VAL, positive[key]);
		/* a coefficient given plain is held plain (its log key is
		 * refused beside it) */
		if (key == BIAS_COEF)
			m->bias_coef_is_log = 0;
		else if (key == VAR_COEF)
			m->var_coef_is_log = 0;
		return st;
	}
	case HDI:
	case GROUP_HDI: {
		double *share = key == HDI ? &m->hdi : &m->group_hdi;
		st = ha_yr_real(r, where, "a number from 0 to 1", HA_YR_FROM,
		                0.0, 1.0, share);
		*share += 0.0; /* -0 reads as 0, as --hdi -0 does */
		return st;
	}
	case DATA_COEF:
		st = ha_yr_real(r, where, "a number >= 0", HA_YR_FROM, 0.0,
		                HUGE_VAL, &m->data_coef);
		m->data_coef += 0.0; /* -0 reads as 0 */
		return st;
	case DATA_POWER:
	case VAR_SAMPLES_POWER:
		return ha_yr_real(r, where, "a number > 0", HA_YR_ABOVE, 0.0,
		                  HUGE_VAL, key == DATA_POWER
		                  ? &m->data_power : &m->var_samples_power);
	case IRREDUCIBLE:
	case VAR_RATE:
	case VAR_POWER: {
		double *nonnegative[] = {&m->irreducible, &m->var_rate,
		                         &m->var_power};
		st = ha_yr_real(r, where, "a number >= 0", HA_YR_FROM, 0.0,
		                HUGE_VAL, nonnegative[key - IRREDUCIBLE]);
		*nonnegative[key - IRREDUCIBLE] += 0.0; /* -0 reads as 0 */
		return st;
	}
	default:
		/* Any finite ln c: the coefficient itself may lie far beyond a
		 * double (ln c_v = -1598 is a real fit). */
		st = ha_yr_real(r, where, "a finite number", HA_YR_FROM, -HUGE_VAL,
		                HUGE_VAL, &v);
		if (st == HA_OK && key == LOG_BIAS_COEF)
			ha_model_set_log_bias_coef(m, v);
		else if (st == HA_OK)
			ha_model_set_log_var_coef(m, v);
		return st;
	}
}

/* A coefficient is given once: plain or as its logarithm. */
static enum ha_status read_model(struct ha_yr *r, const char *where,
                                 struct ha_model *m)
{
	struct ha_yr_map map = HA_YR_MAP(model_keys);
	enum ha_status st = ha_yr_read_map(r, where, "a mapping", &map,
	                                   model_field, m);
	static const enum model_key pairs[2][2] = {{BIAS_COEF, LOG_BIAS_COEF},
	                                           {VAR_COEF, LOG_VAR_COEF}};
	for (int i = 0; i < 2 && st == HA_OK; i++) {
		enum model_key plain = pairs[i][0], logarithm = pairs[i][1];
		if (map.seen[plain] && map.seen[logarithm])
			st = ha_yr_fail_at(r, map.key_at[logarithm], HA_EFORMAT,
			                   "%s.%s: expected %s or %s, not both "
			                   "(%s is at line %lu)", where,
			                   model_keys[logarithm].name,
			                   model_keys[plain].name,
			                   model_keys[logarithm].name,
			                   model_keys[plain].name,
			                   (unsigned long)map.key_at[plain].line + 1);
	}
	return st;
}

static const struct ha_yr_key constraint_keys[] = {
	{"head_dim_multiple", HA_YR_OPTIONAL}, {"min_head_dim", HA_YR_OPTIONAL},
	{"max_head_dim", HA_YR_OPTIONAL}, {"min_heads", HA_YR_OPTIONAL},
	{"max_heads", HA_YR_OPTIONAL}};

struct constraint_ctx {
	struct ha_constraints *c;
	yaml_mark_t value_at[5];
};

static enum ha_status constraint_field(struct ha_yr *r, void *ctx,
                                       size_t key, const char *where)
{
	struct constraint_ctx *cc = ctx;
	uint64_t *fields[] = {&cc->c->head_dim_multiple, &cc->c->min_head_dim,
	                      &cc->c->max_head_dim, &cc->c->min_heads,
	                      &cc->c->max_heads};
	cc->value_at[key] = r->ev.start_mark;
	return ha_yr_uint(r, where, NULL, 0, HA_BUDGET_MAX, fields[key]);
}

static enum ha_status read_constraints(struct ha_yr *r, const char *where,
                                       struct ha_constraints *c)
{
	struct constraint_ctx cc = {.c = c};
	struct ha_yr_map map = HA_YR_MAP(constraint_keys);
	enum ha_status st = ha_yr_read_map(r, where, "a mapping", &map,
	                                   constraint_field, &cc);
	if (st != HA_OK)
		return st;
	if (c->min_head_dim && c->max_head_dim &&
	    c->min_head_dim > c->max_head_dim)
		return ha_yr_fail_at(r, cc.value_at[2], HA_EFORMAT,
		                     "constraints.max_head_dim: expected a value >= "
		                     "min_head_dim (%llu), found %llu",
		                     (unsigned long long)c->min_head_dim,
		                     (unsigned long long)c->max_head_dim);
	if (c->min_heads && c->max_heads && c->min_heads > c->max_heads)
		return ha_yr_fail_at(r, cc.value_at[4], HA_EFORMAT,
		                     "constraints.max_heads: expected a value >= "
		                     "min_heads (%llu), found %llu",
		                     (unsigned long long)c->min_heads,
		                     (unsigned long long)c->max_heads);
	return HA_OK;
}

/* ---- budgets and samples: a scalar or a list ---------------------------- */

/* The array a scalar or list is read into: owned by the scenario, so it is
 * freed with it whatever happens. */
struct list_ctx {
	void **array;
	size_t *count;
	size_t size;
	size_t cap;
	const char *what; /* one budget */
	int budgets;        /* budgets, else sample sizes */
	yaml_mark_t *marks; /* budgets: where each item is, for duplicates */
	size_t marks_cap;
};

/* Room for item i, then *count = i + 1 once the item reads. */
static enum ha_status list_item(struct ha_yr *r, void *ctx, size_t i,
                                const char *where)
{
	struct list_ctx *l = ctx;
	enum ha_status st = ha_yr_grow(r, l->array, &l->cap, i, l->size);
	if (st == HA_OK && l->budgets)
		st = ha_yr_grow(r, (void **)&l->marks, &l->marks_cap, i,
		                sizeof *l->marks);
	if (st == HA_OK && l->budgets) {
		l->marks[i] = r->ev.start_mark;
		st = ha_yr_uint(r, where, l->what, 1, HA_BUDGET_MAX,
		                (uint64_t *)*l->array + i);
	} else if (st == HA_OK) {
		st = sample_value(r, where, (double *)*l->array + i);
	}
	if (st == HA_OK)
		*l->count = i + 1;
	return st;
}

/* A scalar, or a non-empty list of scalars.  Anything else is "expected
 * WHAT"; an empty list "expected at least one ONE". */
static enum ha_status read_scalar_or_list(struct ha_yr *r, const char *where,
                                          const char *what, const char *one,
                                          size_t max, struct list_ctx *l)
{
	if (ha_yr_at(r, YAML_SCALAR_EVENT))
		return list_item(r, l, 0, where);
	yaml_mark_t start = r->ev.start_mark;
	size_t n;
	enum ha_status st = ha_yr_read_seq(r, where, what, max, list_item, l,
	                                   &n);
	if (st == HA_OK && n == 0)
		return ha_yr_fail_at(r, start, HA_EFORMAT,
		                     "%s: expected at least one %s, found an empty "
		                     "list", where, one);
	return st;
}

struct indexed {
	uint64_t value;
	size_t index;
};

static int by_value_then_index(const void *a, const void *b)
{
	const struct indexed *x = a, *y = b;
	if (x->value != y->value)
		return (x->value > y->value) - (x->value < y->value);
	return (x->index > y->index) - (x->index < y->index);
}

/* A budget listed twice cannot mean anything but a slip (its rows would
 * be printed and fitted twice): refused at its second place. */
static enum ha_status check_repeated(struct ha_yr *r, const char *where,
                                     const uint64_t *v, size_t n,
                                     const yaml_mark_t *marks)
{
	if (n < 2)
		return HA_OK;
	struct indexed *s = malloc(n * sizeof *s);
	if (!s)
		return ha_yr_nomem(r);
	for (size_t i = 0; i < n; i++)
		s[i] = (struct indexed){v[i], i};
	qsort(s, n, sizeof *s, by_value_then_index);
	size_t first = 0, again = 0;
	for (size_t i = 1; i < n; i++)
		if (s[i].value == s[i - 1].value &&
		    (!again || s[i].index < again)) {
			first = s[i - 1].index;
			again = s[i].index;
		}
	free(s);
	if (!again)
		return HA_OK;
	return ha_yr_fail_at(r, marks[again], HA_EFORMAT,
	                     "%s[%zu]: expected each budget once, found %llu "
	                     "again (first at %s[%zu])", where, again,
	                     (unsigned long long)v[again], where, first);
}

static enum ha_status read_budgets(struct ha_yr *r, const char *where,
                                   struct ha_scenario *sc)
{
	char what[WHAT_SIZE];
	snprintf(what, sizeof what, "an integer budget from 1 to %llu",
	         (unsigned long long)HA_BUDGET_MAX);
	struct list_ctx l = {(void **)&sc->budgets, &sc->budget_count,
	                     sizeof *sc->budgets, 0, what, 1, NULL, 0};
	enum ha_status st = read_scalar_or_list(
		r, where, "an integer budget or a list of them", "budget",
		HA_SCENARIO_MAX_BUDGETS, &l);
	if (st == HA_OK)
		st = check_repeated(r, where, sc->budgets, sc->budget_count,
		                    l.marks);
	free(l.marks);
	return st;
}

static const struct ha_yr_key sweep_keys[] = {{"from", HA_YR_REQUIRED},
                                              {"to", HA_YR_REQUIRED},
                                              {"points", HA_YR_REQUIRED}};

struct sweep {
	double from, to;
	uint64_t points;
	yaml_mark_t to_at;
};

static enum ha_status sweep_field(struct ha_yr *r, void *ctx, size_t key,
                                  const char *where)
{
	struct sweep *s = ctx;
	if (key == 2)
		return ha_yr_uint(r, where, NULL, 2, HA_SCENARIO_MAX_POINTS,
		                  &s->points);
	if (key == 1)
		s->to_at = r->ev.start_mark;
	return sample_value(r, where, key == 0 ? &s->from : &s->to);
}

/* {from, to, points}: log-spaced sample sizes. */
static enum ha_status read_sweep(struct ha_yr *r, const char *where,
                                 struct ha_scenario *sc)
{
	struct sweep s = {0};
	struct ha_yr_map map = HA_YR_MAP(sweep_keys);
	enum ha_status st = ha_yr_read_map(r, where, "a mapping", &map,
	                                   sweep_field, &s);
	if (st != HA_OK)
		return st;
	if (!(s.from < s.to))
		return ha_yr_fail_at(r, s.to_at, HA_EFORMAT,
		                     "%s.to: expected a number > from (%.17g), "
		                     "found %.17g", where, s.from, s.to);
	sc->samples = malloc((size_t)s.points * sizeof *sc->samples);
	if (!sc->samples)
		return ha_yr_nomem(r);
	struct ha_samples range = {NULL, (size_t)s.points, s.from, s.to};
	for (uint64_t i = 0; i < s.points; i++)
		sc->samples[i] = ha_samples_value(&range, (size_t)i);
	sc->sample_count = (size_t)s.points;
	return HA_OK;
}

/* samples: a number, a list of numbers, or {from, to, points}. */
static enum ha_status read_samples(struct ha_yr *r, const char *where,
                                   struct ha_scenario *sc)
{
	if (ha_yr_at(r, YAML_MAPPING_START_EVENT))
		return read_sweep(r, where, sc);
	struct list_ctx l = {(void **)&sc->samples, &sc->sample_count,
	                     sizeof *sc->samples, 0, NULL, 0, NULL, 0};
	return read_scalar_or_list(r, where,
	                           "a number, a list or {from, to, points}",
	                           "sample size", HA_SCENARIO_MAX_POINTS, &l);
}

/* ---- report ------------------------------------------------------------ */

static const struct ha_yr_key report_keys[] = {{"all", HA_YR_OPTIONAL},
                                               {"regimes", HA_YR_OPTIONAL},
                                               {"format", HA_YR_OPTIONAL}};

static const char *const FORMAT_WORDS[] = {"text", "yaml", "json"};
static const enum ha_report_format FORMATS[] = {HA_FORMAT_TEXT,
                                                HA_FORMAT_YAML,
                                                HA_FORMAT_JSON};

static enum ha_status report_field(struct ha_yr *r, void *ctx, size_t key,
                                   const char *where)
{
	struct ha_scenario *sc = ctx;
	if (key == 0)
		return ha_yr_bool(r, where, &sc->report_all);
	if (key == 1)
		return ha_yr_bool(r, where, &sc->report_regimes);
	size_t i;
	enum ha_status st = ha_yr_word(r, where, "text, yaml or json",
	                               FORMAT_WORDS, 3, &i);
	if (st == HA_OK)
		sc->report_format = FORMATS[i];
	return st;
}

/* ---- the public-model table -------------------------------------------- */

static const struct ha_yr_key entry_keys[] = {
	{"name", HA_YR_REQUIRED},    {"budget", HA_YR_OPTIONAL},
	{"heads", HA_YR_REQUIRED},   {"head_dim", HA_YR_REQUIRED},
	{"samples", HA_YR_OPTIONAL}, {"note", HA_YR_OPTIONAL},
	{"kv_heads", HA_YR_OPTIONAL}};

struct entry_ctx {
	struct ha_scenario_entry *e;
	yaml_mark_t budget_at, kv_heads_at;
};

static enum ha_status entry_field(struct ha_yr *r, void *ctx, size_t key,
                                  const char *where)
{
	struct entry_ctx *ec = ctx;
	struct ha_scenario_entry *e = ec->e;
	switch (key) {
	case 0:
		return ha_yr_string(r, where, HA_SCENARIO_MAX_STRING, &e->name);
	case 1:
		ec->budget_at = r->ev.start_mark;
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &e->budget);
	case 2:
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &e->heads);
	case 3:
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &e->head_dim);
	case 4:
		e->has_samples = 1;
		return sample_value(r, where, &e->samples);
	case 5:
		return ha_yr_string(r, where, HA_SCENARIO_MAX_STRING, &e->note);
	default:
		ec->kv_heads_at = r->ev.start_mark;
		return ha_yr_uint(r, where, NULL, 1, HA_BUDGET_MAX, &e->kv_heads);
	}
}

/* models: the table, and the room its array has. */
struct models_ctx {
	struct ha_scenario *sc;
	size_t cap;
};

/* models[i]: counted before it is read, so that the scenario frees what
 * a failed row allocated. */
static enum ha_status entry_item(struct ha_yr *r, void *ctx, size_t i,
                                 const char *where)
{
	struct models_ctx *mc = ctx;
	struct ha_scenario *sc = mc->sc;
	enum ha_status st = ha_yr_grow(r, (void **)&sc->models, &mc->cap, i,
	                               sizeof *sc->models);
	if (st != HA_OK)
		return st;
	struct ha_scenario_entry *e = &sc->models[i];
	memset(e, 0, sizeof *e);
	sc->model_count = i + 1;

	struct entry_ctx ec = {.e = e};
	struct ha_yr_map map = HA_YR_MAP(entry_keys);
	st = ha_yr_read_map(r, where, "a mapping {name, heads, head_dim, ...}",
	                    &map, entry_field, &ec);
	if (st != HA_OK)
		return st;
	if (e->heads > HA_BUDGET_MAX / e->head_dim)
		return ha_yr_fail_at(r, map.start, HA_EFORMAT,
		                     "%s: expected heads * head_dim <= %llu, found "
		                     "%llu * %llu", where,
		                     (unsigned long long)HA_BUDGET_MAX,
		                     (unsigned long long)e->heads,
		                     (unsigned long long)e->head_dim);
	uint64_t product = e->heads * e->head_dim;
	if (map.seen[1] && e->budget != product)
		return ha_yr_fail_at(r, ec.budget_at, HA_EFORMAT,
		                     "%s.budget: expected heads * head_dim = %llu, "
		                     "found %llu", where,
		                     (unsigned long long)product,
		                     (unsigned long long)e->budget);
	e->budget = product;
	if (map.seen[6] && e->heads % e->kv_heads != 0)
		return ha_yr_fail_at(r, ec.kv_heads_at, HA_EFORMAT,
		                     "%s.kv_heads: expected a divisor of heads = "
		                     "%llu, found %llu", where,
		                     (unsigned long long)e->heads,
		                     (unsigned long long)e->kv_heads);
	if (!map.seen[6])
		e->kv_heads = e->heads;
	return HA_OK;
}

/* ---- kv ---------------------------------------------------------------- */

static const struct ha_yr_key kv_keys[HA_SCENARIO_KV_KEYS] = {
	[HA_SCENARIO_KV_HEADS] = {"kv_heads", HA_YR_OPTIONAL},
	[HA_SCENARIO_MAX_KV_DIM] = {"max_kv_dim", HA_YR_OPTIONAL},
	[HA_SCENARIO_MIN_KV_HEADS] = {"min_kv_heads", HA_YR_OPTIONAL},
	[HA_SCENARIO_MAX_KV_HEADS] = {"max_kv_heads", HA_YR_OPTIONAL},
	[HA_SCENARIO_LAYERS] = {"layers", HA_YR_OPTIONAL},
	[HA_SCENARIO_KV_BYTES] = {"kv_bytes", HA_YR_OPTIONAL},
	[HA_SCENARIO_MODEL_DIM] = {"model_dim", HA_YR_OPTIONAL}};

static enum ha_status kv_field(struct ha_yr *r, void *ctx, size_t key,
                               const char *where)
{
	struct ha_scenario *sc = ctx;
	sc->kv_line[key] = (unsigned)r->ev.start_mark.line + 1;
	sc->kv_column[key] = (unsigned)r->ev.start_mark.column + 1;
	uint64_t *fields[] = {&sc->kv.kv_heads, &sc->kv.max_kv_dim,
	                      &sc->kv.min_kv_heads, &sc->kv.max_kv_heads,
	                      &sc->kv_shape.layers, &sc->kv_shape.kv_bytes,
	                      &sc->kv_shape.model_dim};
	if (key == HA_SCENARIO_KV_HEADS && ha_yr_is_word(r, "auto")) {
		sc->kv.kv_heads = 0;
		return HA_OK;
	}
	return ha_yr_uint(r, where, key == HA_SCENARIO_KV_HEADS
	                  ? "auto or an integer from 1 to 9223372036854775807" : NULL,
	                  1, HA_BUDGET_MAX, fields[key]);
}

/* Refuse the first pair of min_kv_heads <= kv_heads <= max_kv_heads (of
 * those given) out of order, at the later key's value; kv_heads auto (0)
 * bounds nothing. */
static enum ha_status check_order(struct ha_yr *r, const char *where,
                                  const struct ha_scenario *sc)
{
	static const int pairs[][2] = {
		{HA_SCENARIO_MIN_KV_HEADS, HA_SCENARIO_MAX_KV_HEADS},
		{HA_SCENARIO_MIN_KV_HEADS, HA_SCENARIO_KV_HEADS},
		{HA_SCENARIO_KV_HEADS, HA_SCENARIO_MAX_KV_HEADS}};
	const uint64_t value[] = {
		[HA_SCENARIO_KV_HEADS] = sc->kv.kv_heads,
		[HA_SCENARIO_MIN_KV_HEADS] = sc->kv.min_kv_heads,
		[HA_SCENARIO_MAX_KV_HEADS] = sc->kv.max_kv_heads};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		int lo = pairs[i][0], hi = pairs[i][1];
		if (!value[lo] || !value[hi] || value[lo] <= value[hi])
			continue;
		int later = sc->kv_line[lo] > sc->kv_line[hi] ||
		            (sc->kv_line[lo] == sc->kv_line[hi] &&
		             sc->kv_column[lo] > sc->kv_column[hi]) ? lo : hi;
		yaml_mark_t at = {0, sc->kv_line[later] - 1, sc->kv_column[later] - 1};
		return ha_yr_fail_at(r, at, HA_EFORMAT,
		                     "%s.%s: expected %s <= %s, found %" PRIu64
		                     " > %" PRIu64, where, kv_keys[later].name,
		                     kv_keys[lo].name, kv_keys[hi].name, value[lo],
		                     value[hi]);
	}
	return HA_OK;
}

/* The `kv` map: the same keys, in the same form, as the kv map of a
 * grouped allocation's YAML report, so that the report reads back as a
 * scenario. */
static enum ha_status read_kv(struct ha_yr *r, const char *where,
                              struct ha_scenario *sc)
{
	struct ha_yr_map map = HA_YR_MAP(kv_keys);
	enum ha_status st = ha_yr_read_map(r, where, "a mapping", &map, kv_field, sc);
	if (st != HA_OK)
		return st;
	sc->has_kv = 1;
	return check_order(r, where, sc);
}

/* ---- the document ------------------------------------------------------ */

enum top_key {
	MODEL, CONSTRAINTS, BUDGETS, SAMPLES, REPORT, MODELS, KV,
	CALIBRATION, PREDICTION, COMPARISON
};

/* The last three are the other keys of a calibration report (`headalloc
 * calibrate --format yaml`), whose `model` a scenario reads: so that the
 * report itself is a scenario, they are accepted and their values
 * skipped.  They are not scenario keys, and messages do not list them. */
static const struct ha_yr_key top_keys[] = {
	[MODEL] = {"model", HA_YR_OPTIONAL},
	[CONSTRAINTS] = {"constraints", HA_YR_OPTIONAL},
	[BUDGETS] = {"budgets", HA_YR_OPTIONAL},
	[SAMPLES] = {"samples", HA_YR_OPTIONAL},
	[REPORT] = {"report", HA_YR_OPTIONAL},
	[MODELS] = {"models", HA_YR_OPTIONAL},
	[KV] = {"kv", HA_YR_OPTIONAL},
	[CALIBRATION] = {"calibration", HA_YR_IGNORED},
	[PREDICTION] = {"prediction", HA_YR_IGNORED},
	[COMPARISON] = {"comparison", HA_YR_IGNORED}};

static enum ha_status top_field(struct ha_yr *r, void *ctx, size_t key,
                                const char *where)
{
	struct ha_scenario *sc = ctx;
	struct ha_yr_map map;
	struct models_ctx mc = {sc, 0};
	size_t n;
	switch ((enum top_key)key) {
	case MODEL:
		return read_model(r, where, &sc->model);
	case CONSTRAINTS:
		return read_constraints(r, where, &sc->constraints);
	case BUDGETS:
		return read_budgets(r, where, sc);
	case SAMPLES:
		return read_samples(r, where, sc);
	case REPORT:
		map = HA_YR_MAP(report_keys);
		return ha_yr_read_map(r, where, "a mapping", &map, report_field,
		                      sc);
	case KV:
		return read_kv(r, where, sc);
	default:
		return ha_yr_read_seq(r, where, "a list of models",
		                      HA_SCENARIO_MAX_MODELS, entry_item, &mc, &n);
	}
}

static enum ha_status read_document(struct ha_yr *r, struct ha_scenario *sc)
{
	static const char what[] = "a mapping of scenario keys";
	enum ha_status st = ha_yr_begin_document(r, what);
	if (st != HA_OK)
		return st;
	struct ha_yr_map map = HA_YR_MAP(top_keys);
	st = ha_yr_read_map(r, "", what, &map, top_field, sc);
	if (st != HA_OK)
		return st;
	/* A calibration report gives a model and no budget: the budget is
	 * the command line's. */
	if (!map.seen[BUDGETS] && !map.seen[MODELS] && !map.seen[CALIBRATION])
		return ha_yr_fail_at(r, map.start, HA_EFORMAT,
		                     "expected the key 'budgets' or 'models', "
		                     "found neither");
	if ((uint64_t)sc->budget_count * sc->sample_count > HA_SCENARIO_MAX_ROWS)
		return ha_yr_fail_at(r, map.key_at[SAMPLES], HA_EFORMAT,
		                     "samples: expected at most %llu rows (budgets "
		                     "x sample sizes), found %zu x %zu",
		                     (unsigned long long)HA_SCENARIO_MAX_ROWS,
		                     sc->budget_count, sc->sample_count);
	return ha_yr_end_document(r);
}

/* ---- entry points ------------------------------------------------------ */

void ha_scenario_free(struct ha_scenario *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->model_count; i++) {
		free(sc->models[i].name);
		free(sc->models[i].note);
	}
	free(sc->models);
	free(sc->budgets);
	free(sc->samples);
	free(sc);
}

/* Read a scenario from an opened reader into *out. */
static enum ha_status run(struct ha_yr *r, enum ha_status st,
                          struct ha_scenario **out)
{
	struct ha_scenario *sc = NULL;
	if (st == HA_OK) {
		sc = calloc(1, sizeof *sc);
		if (!sc)
			st = ha_yr_nomem(r);
	}
	if (st == HA_OK) {
		sc->kv_shape = ha_kv_shape_defaults();
		sc->model = ha_model_defaults();
		sc->report_format = HA_FORMAT_TEXT;
		st = read_document(r, sc);
	}
	ha_yr_close(r);
	if (st != HA_OK) {
		ha_scenario_free(sc);
		return st;
	}
	*out = sc;
	return HA_OK;
}

enum ha_status ha_scenario_read_file(const char *path,
                                     struct ha_scenario **out,
                                     struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if (!path || !out)
		return ha_fail(err, HA_EINVAL, "expected a path and a result "
		               "pointer, found NULL");
	struct ha_yr r;
	return run(&r, ha_yr_open_file(&r, path, &OPTIONS, err), out);
}

enum ha_status ha_scenario_read_string(const char *text, size_t len,
                                       struct ha_scenario **out,
                                       struct ha_error *err)
{
	ha_error_init(err);
	if (out)
		*out = NULL;
	if ((!text && len > 0) || !out)
		return ha_fail(err, HA_EINVAL, "expected a text and a result "
		               "pointer, found NULL");
	struct ha_yr r;
	return run(&r, ha_yr_open_text(&r, text, len, &OPTIONS, err), out);
}
