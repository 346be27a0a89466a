/* A plan (headalloc plan; headalloc-model(7), PLANNING): the runs to
 * train next, the decision at the target, the stop and how it was
 * estimated.  YAML and JSON keys target, plan, decision, stop,
 * initial_design, candidates and method; text: the same account in lines
 * and a table.  The plan is rendered as it is: nothing is computed
 * here. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_internal.h"

static const char *cost_name(enum ha_plan_cost c)
{
	return c == HA_PLAN_COST_TOKENS ? "tokens" : "params-tokens";
}

/* ---- YAML ------------------------------------------------------------------ */

static void yaml_run(struct ha_yaml_writer *w, const struct ha_plan_candidate *r)
{
	ha_yaml_key_uint(w, "heads", r->heads);
	ha_yaml_key_uint(w, "head_dim", r->head_dim);
	ha_yaml_key_uint(w, "kv_heads", r->kv_heads);
	ha_yaml_key_double(w, "samples", r->samples);
	ha_yaml_key_double(w, "cost", r->cost);
}

static void yaml_picks(struct ha_yaml_writer *w, const struct ha_plan *p)
{
	int valued = !p->initial;
	ha_yaml_key_seq(w, "plan", p->pick_count == 0);
	for (size_t i = 0; i < p->pick_count; i++) {
		const struct ha_plan_pick *k = &p->picks[i];
		ha_yaml_begin_map(w, 1);
		yaml_run(w, &k->run);
		yaml_maybe(w, "value", valued, k->value);
		yaml_maybe(w, "value_se", valued, k->value_se);
		yaml_maybe(w, "value_per_cost", valued, k->value_per_cost);
		ha_yaml_key_double(w, "batch_cost", k->batch_cost);
		yaml_maybe(w, "p_correct_before", valued, k->p_correct_before);
		yaml_maybe(w, "p_correct_after", valued, k->p_correct_after);
		yaml_maybe(w, "expected_regret_after", valued, k->expected_regret_after);
		if (valued) {
			ha_yaml_key_uint(w, "degenerate_outcomes",
			                 k->degenerate);
			ha_yaml_key_bool(w, "extrapolated", k->extrapolated);
		} else {
			ha_yaml_key_string(w, "reason", k->reason);
		}
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
}

static void yaml_decision(struct ha_yaml_writer *w, const struct ha_plan_decision *d)
{
	ha_yaml_key_map(w, "decision", 1);
	static const char *const keys[] = {"heads", "head_dim", "kv_heads"};
	const uint64_t v[] = {d->heads, d->head_dim, d->kv_heads};
	for (size_t i = 0; i < 3; i++)
		yaml_maybe_uint(w, keys[i], d->defined, v[i]);
	yaml_maybe(w, "p_correct", d->defined, d->p_correct);
	yaml_maybe(w, "expected_regret", d->defined, d->expected_regret);
	if (d->defined)
		ha_yaml_key_bool(w, "extrapolated", d->extrapolated);
	else
		ha_yaml_key_string(w, "undefined", d->undefined_reason);
	ha_yaml_end_map(w);
}

static void yaml_candidates(struct ha_yaml_writer *w, const struct ha_plan *p)
{
	ha_yaml_key_seq(w, "candidates", p->candidate_count == 0);
	for (size_t i = 0; i < p->candidate_count; i++) {
		const struct ha_plan_value *v = &p->candidates[i];
		ha_yaml_begin_map(w, 1);
		yaml_run(w, &v->run);
		yaml_maybe(w, "value", !p->initial, v->value);
		yaml_maybe(w, "value_se", !p->initial, v->value_se);
		yaml_maybe(w, "value_per_cost", !p->initial, v->value_per_cost);
		yaml_maybe(w, "ess", !p->initial, v->ess_mean);
		ha_yaml_key_uint(w, "picked", v->picked);
		if (!p->initial)
			ha_yaml_key_bool(w, "extrapolated", v->extrapolated);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
}

static void yaml_method(struct ha_yaml_writer *w, const struct ha_plan *p)
{
	const struct ha_plan_method *m = &p->method;
	ha_yaml_key_map(w, "method", 0);
	ha_yaml_key_string(w, "posterior", p->initial ? "none (no fit yet)"
	                   : m->main_law_only ? "the main law's bootstrap refits"
	                                      : "the laws' refits by Akaike weight");
	ha_yaml_key_uint(w, "samples", m->samples);
	ha_yaml_key_seq(w, "laws", m->law_count == 0);
	for (size_t i = 0; i < m->law_count; i++) {
		ha_yaml_begin_map(w, 1);
		ha_yaml_key_string(w, "law", m->laws[i].name);
		ha_yaml_key_double(w, "weight", m->laws[i].weight);
		ha_yaml_key_uint(w, "samples", m->laws[i].samples);
		ha_yaml_key_double(w, "sigma", m->laws[i].sigma);
		ha_yaml_end_map(w);
	}
	ha_yaml_end_seq(w);
	ha_yaml_key_uint(w, "outcomes", m->outcomes);
	yaml_maybe(w, "sigma", !p->initial, m->sigma);
	ha_yaml_key_string(w, "sigma_from",
	                   m->sigma_from_se ? "loss_se" : "residual scale");
	ha_yaml_key_double(w, "ess_threshold", m->ess_threshold);
	ha_yaml_key_uint(w, "degenerate_outcomes", m->degenerate);
	ha_yaml_key_uint(w, "evaluations", m->evaluations);
	ha_yaml_key_uint(w, "refits", m->refits);
	ha_yaml_key_uint(w, "seed", m->seed);
	ha_yaml_key_string(w, "cost", cost_name(m->cost));
	yaml_maybe_uint(w, "model_dim", m->model_dim != 0, m->model_dim);
	ha_yaml_key_seq(w, "pool_samples", 1);
	for (size_t i = 0; i < m->pool_samples_count; i++)
		ha_yaml_double(w, m->pool_samples[i]);
	ha_yaml_end_seq(w);
	ha_yaml_key_bool(w, "pool_samples_default", m->pool_samples_default);
	ha_yaml_end_map(w);
}

static void yaml_plan(struct ha_yaml_writer *w, const struct ha_plan *p)
{
	ha_yaml_key_map(w, "target", 1);
	ha_yaml_key_uint(w, "budget", p->budget);
	ha_yaml_key_double(w, "samples", p->samples);
	ha_yaml_key_uint(w, "runs", p->runs);
	if (yaml_key_defined(w, "measured_head_dims", p->runs != 0)) {
		ha_yaml_begin_seq(w, 1);
		ha_yaml_uint(w, p->measured_head_dims[0]);
		ha_yaml_uint(w, p->measured_head_dims[1]);
		ha_yaml_end_seq(w);
	}
	ha_yaml_end_map(w);
	yaml_picks(w, p);
	yaml_decision(w, &p->decision);
	ha_yaml_key_bool(w, "stop", p->stop);
	ha_yaml_key_double(w, "stop_below", p->stop_below);
	ha_yaml_key_bool(w, "initial_design", p->initial);
	yaml_candidates(w, p);
	yaml_method(w, p);
}

/* ---- text ------------------------------------------------------------------ */

static void text_decision(FILE *f, const struct ha_plan *p)
{
	const struct ha_plan_decision *d = &p->decision;
	char b[32];
	if (!d->defined) {
		fprintf(f, "decision     undefined: no fit yet (%s)\n", d->undefined_reason);
		return;
	}
	fprintf(f, "decision     %" PRIu64 " heads x head_dim %" PRIu64, d->heads,
	        d->head_dim);
	if (d->kv_heads != d->heads)
		fprintf(f, ", %" PRIu64 " kv heads", d->kv_heads);
	fprintf(f, ": optimal with probability %.1f%%, expected regret %s\n",
	        100.0 * d->p_correct, report_human(d->expected_regret, b));
	if (d->extrapolated)
		fprintf(f, "             head_dim %" PRIu64 " lies outside the "
		        "measured head dims [%" PRIu64 ", %" PRIu64 "]: an "
		        "extrapolation in d\n", d->head_dim, p->measured_head_dims[0],
		        p->measured_head_dims[1]);
}

static void text_picks(FILE *f, const struct ha_plan *p)
{
	if (!p->pick_count) {
		fputs(p->initial ? "initial      no run needed from the pool\n"
		      : p->candidate_count ? "plan         no run picked\n"
		                           : "plan         the decision alone: no "
		                             "candidate valued\n", f);
		return;
	}
	if (p->initial)
		fputs("\ninitial design (too few runs to fit), cheapest first:\n", f);
	else
		fputs("\nnext runs, picked greedily by value per unit cost of the batch:\n", f);
	fprintf(f, "%3s %6s %8s %8s %10s %11s", "#", "heads", "head_dim",
	        "kv_heads", "samples", "cost");
	if (p->initial)
		fputs("  reason\n", f);
	else
		fprintf(f, " %9s %9s %11s %9s %9s\n", "value", "se", "value/cost",
		        "p_before", "p_after");
	int marked = 0;
	for (size_t i = 0; i < p->pick_count; i++) {
		const struct ha_plan_pick *k = &p->picks[i];
		char b[32], b2[32];
		fprintf(f, "%3zu %6" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10s %11s",
		        i + 1, k->run.heads, k->run.head_dim, k->run.kv_heads,
		        report_human(k->run.samples, b), report_human(k->run.cost, b2));
		if (p->initial) {
			fprintf(f, "  %s\n", k->reason);
			continue;
		}
		fprintf(f, " %9.4f %9.4f %11s %8.1f%% %8.1f%%%s\n", k->value,
		        k->value_se, report_human(k->value_per_cost, b),
		        100.0 * k->p_correct_before, 100.0 * k->p_correct_after,
		        k->extrapolated ? " *" : "");
		marked |= k->extrapolated;
	}
	if (marked)
		fprintf(f, "  * head_dim outside the measured head dims [%" PRIu64
		        ", %" PRIu64 "]: its value rests on the laws' extrapolation "
		        "in d (--min-head-dim, --max-head-dim bound the pool)\n",
		        p->measured_head_dims[0], p->measured_head_dims[1]);
}

static void text_method(FILE *f, const struct ha_plan *p)
{
	const struct ha_plan_method *m = &p->method;
	char b[32];
	if (!p->initial) {
		fprintf(f, "posterior    %zu samples: ", m->samples);
		if (m->main_law_only)
			fputs("the main law's bootstrap refits (no law has an AICc)", f);
		for (size_t i = 0; i < m->law_count && !m->main_law_only; i++)
			fprintf(f, "%s%s %.3f", i ? ", " : "", m->laws[i].name,
			        m->laws[i].weight);
		fputc('\n', f);
	}
	if (!p->initial && m->evaluations) {
		fprintf(f, "simulation   %zu outcomes a candidate, run noise sigma %s "
		        "in ln L (%s), seed %" PRIu64 "\n", m->outcomes,
		        report_human(m->sigma, b),
		        m->sigma_from_se ? "from loss_se" : "the laws' residual scale",
		        m->seed);
		fprintf(f, "             %zu of %zu outcomes degenerate (ESS below "
		        "%.3g): their likelihood tempered to that ESS, not "
		        "refitted\n", m->degenerate, m->evaluations, m->ess_threshold);
	}
	if (m->pool_samples_count) {
		fputs("pool         n", f);
		for (size_t i = 0; i < m->pool_samples_count; i++)
			fprintf(f, "%s %s", i ? "," : "", report_human(m->pool_samples[i], b));
		fprintf(f, "%s\n", m->pool_samples_default
		                       ? " (the default: log-spaced from N/1000 to N/10)"
		                       : "");
	}
	fprintf(f, "cost         %s", cost_name(m->cost));
	if (m->model_dim)
		fprintf(f, " at model_dim %" PRIu64, m->model_dim);
	fputc('\n', f);
}

static void text_plan(FILE *f, const struct ha_plan *p, const char *runs_file)
{
	char b[32];
	fprintf(f, "plan         budget %" PRIu64 ", samples %s, from %zu run%s",
	        p->budget, report_human(p->samples, b), p->runs,
	        p->runs == 1 ? "" : "s");
	if (runs_file)
		fprintf(f, " of %s", runs_file);
	fprintf(f, "; %zu candidate%s\n", p->candidate_count,
	        p->candidate_count == 1 ? "" : "s");
	text_decision(f, p);
	text_picks(f, p);
	fputc('\n', f);
	if (!p->initial && p->candidate_count) {
		if (p->stop)
			fprintf(f, "stop         no candidate raises the probability by more "
			        "than %s: train the target now\n",
			        report_human(p->stop_below, b));
		else
			fprintf(f, "stop         no: a candidate raises the probability by "
			        "more than %s\n", report_human(p->stop_below, b));
	}
	text_method(f, p);
}

/* ---- the section ----------------------------------------------------------- */

enum ha_status ha_report_plan(struct ha_report *r, const struct ha_plan_request *req,
                              struct ha_error *err)
{
	enum ha_status st = report_start(r, req, err);
	if (st != HA_OK)
		return st;
	const struct ha_plan *p = req->plan;
	if (!p || (p->pick_count && !p->picks) ||
	    (p->candidate_count && !p->candidates) ||
	    (p->method.law_count && !p->method.laws) ||
	    (p->method.pool_samples_count && !p->method.pool_samples))
		return report_fail(r, err, HA_EINVAL, "a plan report needs a whole plan");
	if (r->yaml)
		yaml_plan(r->yaml, p);
	else
		text_plan(r->stream, p, req->runs_file);
	return report_end(r, err);
}
