/* The options headalloc calibrate and headalloc plan share (cal_options.h):
 * the law's free and fixed parameters, the user's laws, the Huber
 * threshold, the bootstrap, the threads, the CSV columns and the
 * target. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

#include "cal_options.h"
#include "common.h"
#include "option_words.h"
#include "parse.h"
#include "value_lists.h"

/* The most bootstrap resamples (each a refit of every run). */
#define BOOTSTRAP_MAX 1000000

static const char names[] = "irreducible, bias_coef, smoothness, var_coef, "
                            "var_rate, var_power, hdi, data_coef, "
                            "data_power, var_samples_power or group_hdi";

/* ---- --free and --fix ------------------------------------------------------- */

typedef int (*item_fn)(struct cli_cal_shared *o, char *item, const char *arg,
                       int *seen);

/* fn(o, item, arg, seen) for each comma-separated item of arg (an empty
 * item is fn's to refuse); seen is a scratch set of parameters. */
static int for_each_item(struct cli_cal_shared *o, const char *arg, item_fn fn)
{
	char *copy = strdup(arg);
	if (!copy)
		return cli_library_failure(NULL, NULL, HA_ENOMEM, NULL);
	int seen[HA_CAL_PARAMS] = {0};
	int rc = EXIT_OK;
	for (char *start = copy;;) {
		char *comma = strchr(start, ',');
		if (comma)
			*comma = '\0';
		rc = fn(o, start, arg, seen);
		if (rc != EXIT_OK || !comma)
			break;
		start = comma + 1;
	}
	free(copy);
	return rc;
}

static int free_item(struct cli_cal_shared *o, char *item, const char *arg,
                     int *seen)
{
	char expected[256];
	snprintf(expected, sizeof expected, "a comma-separated list of %s", names);
	int k = *item ? ha_cal_param_lookup(item) : -1;
	if (k < 0)
		return cli_bad_value("--free", *item ? item : arg, expected);
	if (seen[k])
		return cli_bad_value("--free", arg, "each name once");
	seen[k] = 1;
	o->free[k] = 1;
	return EXIT_OK;
}

/* --free NAME[,NAME...]: the free set, replacing the default (the last
 * --free wins). */
static int parse_free(const char *arg, struct cli_cal_shared *o)
{
	memset(o->free, 0, sizeof o->free);
	o->have_free = 1;
	return for_each_item(o, arg, free_item);
}

static int fix_item(struct cli_cal_shared *o, char *item, const char *arg,
                    int *seen)
{
	char expected[320];
	snprintf(expected, sizeof expected,
	         "NAME=VALUE[,NAME=VALUE...] with NAME %s (or log_bias_coef, "
	         "log_var_coef)", names);
	char *eq = strchr(item, '=');
	if (!*item)
		return cli_bad_value("--fix", arg, expected);
	if (!eq)
		return cli_bad_value("--fix", item, expected);
	*eq = '\0';
	int log_form = strncmp(item, "log_", 4) == 0;
	int k = ha_cal_param_lookup(log_form ? item + 4 : item);
	int known = k >= 0 && (!log_form || ha_cal_param_is_log((enum ha_cal_param)k));
	char name[HA_CAL_NAME_MAX + 4];
	snprintf(name, sizeof name, "%s", item);
	*eq = '=';
	if (!known)
		return cli_bad_value("--fix", item, expected);
	if (seen[k])
		return cli_bad_value("--fix", arg, "each parameter once");
	seen[k] = 1;
	double v = 0.0;
	const char *what = "a finite number";
	int ok = cli_parse_real(eq + 1, &v);
	if (!ha_cal_fixed_in_domain((enum ha_cal_param)k, log_form, v, &what) || !ok) {
		char message[96];
		snprintf(message, sizeof message, "%s = %s", name, what);
		return cli_bad_value("--fix", item, message);
	}
	o->fixed[k] = 1;
	/* The law holds ln c for the coefficients. */
	o->fixed_value[k] = ha_cal_param_is_log((enum ha_cal_param)k) && !log_form
	                            ? log(v)
	                            : v + 0.0;
	return EXIT_OK;
}

/* --fix NAME=VALUE[,...]: cumulative over repeated --fix (a later value
 * of the same parameter wins); within one, each parameter once. */
static int parse_fix(const char *arg, struct cli_cal_shared *o)
{
	return for_each_item(o, arg, fix_item);
}

/* ---- --law ------------------------------------------------------------------ */

static int law_item(struct cli_cal_shared *o, char *item, const char *arg,
                    int *seen)
{
	char expected[256];
	snprintf(expected, sizeof expected,
	         "NAME=PARAM[,PARAM...] with each PARAM once, one of %s", names);
	int k = *item ? ha_cal_param_lookup(item) : -1;
	if (k < 0 || seen[k])
		return cli_bad_value("--law", arg, expected);
	seen[k] = 1;
	o->laws[o->law_count].free[k] = 1;
	return EXIT_OK;
}

/* --law NAME=PARAM[,PARAM...]: one more law of the comparison, its free
 * parameters named as --free takes them; NAME a new one. */
static int parse_law(const char *arg, struct cli_cal_shared *o)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;
	if (!eq || len == 0 || len >= HA_CAL_NAME_MAX || !eq[1])
		return cli_bad_value("--law", arg, "NAME=PARAM[,PARAM...] with a "
		                     "name of at most 31 characters and at least one "
		                     "PARAM");
	/* the name is a row of the report: the one name rule (text.h) */
	const char *fault = ha_name_fault(arg, len, NULL);
	if (fault) {
		char expected[160];
		snprintf(expected, sizeof expected, "a NAME of UTF-8 text without "
		         "control or bidirectional characters (this one %s)", fault);
		return cli_bad_value("--law", arg, expected);
	}
	if (o->law_count == HA_CAL_USER_LAWS_MAX)
		return cli_bad_value("--law", arg, "at most 16 laws of your own");
	struct ha_cal_law ladder[HA_CAL_LADDER];
	ha_cal_ladder(&o->cal->law, ladder);
	struct ha_cal_law *law = &o->laws[o->law_count];
	memset(law, 0, sizeof *law);
	memcpy(law->name, arg, len);
	for (size_t i = 0; i < HA_CAL_LADDER; i++)
		if (strcmp(law->name, ladder[i].name) == 0)
			return cli_bad_value("--law", arg, "a name that is not a law of "
			                     "the ladder (seeds, smoothness, power_s2, "
			                     "power, rate, seeds+data, power+data)");
	for (size_t i = 0; i < o->law_count; i++)
		if (strcmp(law->name, o->laws[i].name) == 0)
			return cli_bad_value("--law", arg, "a name not given to another "
			                     "--law");
	int rc = for_each_item(o, eq + 1, law_item);
	if (rc == EXIT_OK)
		o->law_count++;
	return rc;
}

/* ---- the other options ------------------------------------------------------ */

static int parse_count(const char *option, const char *arg, uint64_t *out)
{
	if (!cli_parse_uint(arg, 1, HA_BUDGET_MAX, out))
		return cli_bad_value(option, arg, CLI_WHOLE_NUMBER);
	return EXIT_OK;
}

void cli_cal_shared_init(struct cli_cal_shared *s, struct ha_cal_options *cal)
{
	memset(s, 0, sizeof *s);
	s->cal = cal;
	s->free[HA_CAL_IRREDUCIBLE] = 1;
	s->free[HA_CAL_BIAS_COEF] = 1;
	s->free[HA_CAL_VAR_COEF] = 1;
}

int cli_cal_is_option(int code)
{
	return (code >= CLI_CAL_OPT_FREE && code <= CLI_CAL_OPT_COLUMNS) ||
	       code == 'b' || code == 'n' || code == 'm';
}

static int apply_columns(struct cli_cal_shared *o, const char *arg)
{
	struct ha_error err;
	ha_runs_names_init(&o->columns);
	if (ha_runs_names_parse(&o->columns, arg, &err) == HA_OK)
		return EXIT_OK;
	char safe[HA_ERROR_MESSAGE_MAX];
	fprintf(stderr, "headalloc: --columns: %s\n",
	        ha_text_safe(err.message, safe, sizeof safe));
	return EXIT_USAGE;
}

/* The target and its constraints. */
static int apply_target(struct cli_cal_shared *o, int code, const char *arg)
{
	struct ha_cal_target *t = &o->cal->target;
	struct ha_constraints *c = &t->constraints;
	switch (code) {
	case 'b':
		o->have_budget = 1;
		return parse_count("--budget", arg, &t->budget);
	case 'n':
		o->have_samples = 1;
		if (!cli_parse_real(arg, &t->samples) ||
		    !(t->samples > 1.0 && t->samples <= 1e300))
			return cli_bad_value("--samples", arg,
			                     "a number n with 1 < n <= 1e300");
		return EXIT_OK;
	case 'm':
		o->have_constraint = 1;
		return parse_count("--head-dim-multiple", arg, &c->head_dim_multiple);
	case CLI_CAL_OPT_MIN_HEAD_DIM:
		o->have_constraint = 1;
		return parse_count("--min-head-dim", arg, &c->min_head_dim);
	case CLI_CAL_OPT_MAX_HEAD_DIM:
		o->have_constraint = 1;
		return parse_count("--max-head-dim", arg, &c->max_head_dim);
	case CLI_CAL_OPT_MIN_HEADS:
		o->have_constraint = 1;
		return parse_count("--min-heads", arg, &c->min_heads);
	default:
		o->have_constraint = 1;
		return parse_count("--max-heads", arg, &c->max_heads);
	}
}

int cli_cal_option(struct cli_cal_shared *o, int code, const char *arg)
{
	struct ha_cal_options *cal = o->cal;
	uint64_t u;
	switch (code) {
	case CLI_CAL_OPT_COLUMNS:
		return apply_columns(o, arg);
	case CLI_CAL_OPT_FREE:
		return parse_free(arg, o);
	case CLI_CAL_OPT_FIX:
		return parse_fix(arg, o);
	case CLI_CAL_OPT_HUBER_DELTA:
		if (cli_word_index(CLI_WORDS_HUBER_DELTA, arg) == 0) {
			cal->huber_delta = INFINITY;
			return EXIT_OK;
		}
		if (!cli_parse_real(arg, &cal->huber_delta) ||
		    !(cal->huber_delta > 0.0))
			return cli_bad_value("--huber-delta", arg,
			                     "a finite number > 0, or inf");
		return EXIT_OK;
	case CLI_CAL_OPT_LAW:
		cal->compare = 1;
		return parse_law(arg, o);
	case CLI_CAL_OPT_BOOTSTRAP:
		if (!cli_parse_uint(arg, 0, BOOTSTRAP_MAX, &u))
			return cli_bad_value("--bootstrap", arg,
			                     "a whole number from 0 to 1000000");
		cal->bootstrap = (size_t)u;
		o->have_bootstrap = 1;
		return EXIT_OK;
	case CLI_CAL_OPT_SEED:
		if (!cli_parse_uint(arg, 0, UINT64_MAX, &cal->seed))
			return cli_bad_value("--seed", arg, "a whole number from 0 to "
			                     "18446744073709551615");
		return EXIT_OK;
	case CLI_CAL_OPT_THREADS: {
		size_t threads;
		if (!cli_parse_threads(arg, &threads))
			return cli_bad_value("--threads", arg, CLI_THREADS_EXPECTED);
		cal->threads = threads;
		return EXIT_OK;
	}
	}
	return apply_target(o, code, arg);
}

int cli_cal_finish(struct cli_cal_shared *o, const char *command)
{
	struct ha_cal_options *cal = o->cal;
	const struct ha_constraints *c = &cal->target.constraints;
	if (c->min_head_dim && c->max_head_dim && c->min_head_dim > c->max_head_dim)
		return cli_usage_error(command, "--min-head-dim %" PRIu64
		                       " is larger than --max-head-dim %" PRIu64,
		                       c->min_head_dim, c->max_head_dim);
	if (c->min_heads && c->max_heads && c->min_heads > c->max_heads)
		return cli_usage_error(command, "--min-heads %" PRIu64
		                       " is larger than --max-heads %" PRIu64,
		                       c->min_heads, c->max_heads);
	for (int k = 0; k < HA_CAL_PARAMS; k++) {
		if (!o->fixed[k])
			continue;
		if (o->have_free && o->free[k])
			return cli_usage_error(command, "%s is in --free and in --fix",
			                       ha_cal_param_str((enum ha_cal_param)k));
		o->free[k] = 0; /* fixed out of the default free set */
		cal->law.value[k] = o->fixed_value[k];
	}
	for (int k = 0; k < HA_CAL_PARAMS; k++)
		cal->law.free[k] = o->free[k];
	cal->laws = o->law_count ? o->laws : NULL;
	cal->law_count = o->law_count;
	return EXIT_OK;
}

/* No allocation of the target budget meets the constraints: said before
 * the fit, in the allocator's words. */
static int infeasible(const struct ha_cal_target *t)
{
	const struct ha_constraints *c = &t->constraints;
	const struct { const char *name; uint64_t value; } items[] = {
		{"--head-dim-multiple", c->head_dim_multiple},
		{"--min-head-dim", c->min_head_dim},
		{"--max-head-dim", c->max_head_dim},
		{"--min-heads", c->min_heads},
		{"--max-heads", c->max_heads},
	};
	fprintf(stderr, "headalloc: no (heads, head_dim) pair of budget %" PRIu64
	        " meets the constraints:", t->budget);
	for (size_t i = 0; i < sizeof items / sizeof *items; i++)
		if (items[i].value)
			fprintf(stderr, " %s %" PRIu64, items[i].name, items[i].value);
	fputc('\n', stderr);
	return cli_exit_status(HA_EINFEASIBLE);
}

int cli_cal_check_target(const struct ha_cal_target *t)
{
	if (!t->budget)
		return EXIT_OK;
	struct ha_solver *solver = NULL;
	enum ha_status st = ha_solver_new(t->budget, &t->constraints, &solver);
	ha_solver_free(solver);
	if (st == HA_EINFEASIBLE)
		return infeasible(t);
	if (st != HA_OK)
		return cli_library_failure("--budget", NULL, st, NULL);
	return EXIT_OK;
}
