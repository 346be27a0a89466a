/* A report's events (ha_report_new_events) against the same report
 * written as YAML and read back with libyaml's parser: event for event,
 * the same maps, sequences and keys, and each typed scalar the value the
 * YAML text spells (a double bit for bit through strtod, an integer
 * through strtoull); for an allocation with its candidates and for a
 * sweep's table (whose YAML rows go past the emitter as text).  A
 * callback's refusal fails the report. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <yaml.h>

#include <headalloc/headalloc.h>

#include "report/yaml_writer.h"

/* The events as recorded: kind and value. */
enum kind { BEGIN_MAP, BEGIN_SEQ, END, KEY, STRING, UINT, REAL, BOOL, NUL };
struct event {
	enum kind kind;
	char text[96];
	uint64_t u;
	double d;
};
struct record {
	struct event *events;
	size_t count, capacity;
	size_t refuse_at; /* > 0: refuse the event of that number */
};

static int add(struct record *r, struct event e)
{
	if (r->refuse_at && r->count + 1 == r->refuse_at)
		return 1;
	if (r->count == r->capacity) {
		r->capacity = r->capacity ? 2 * r->capacity : 1024;
		r->events = realloc(r->events, r->capacity * sizeof *r->events);
		cr_assert_not_null(r->events);
	}
	r->events[r->count++] = e;
	return 0;
}

static int on_begin(void *ctx, int map) { return add(ctx, (struct event){.kind = map ? BEGIN_MAP : BEGIN_SEQ}); }
static int on_end(void *ctx) { return add(ctx, (struct event){.kind = END}); }
static int on_uint(void *ctx, uint64_t v) { return add(ctx, (struct event){.kind = UINT, .u = v}); }
static int on_real(void *ctx, double v) { return add(ctx, (struct event){.kind = REAL, .d = v}); }
static int on_bool(void *ctx, int v) { return add(ctx, (struct event){.kind = BOOL, .u = (uint64_t)v}); }
static int on_null(void *ctx) { return add(ctx, (struct event){.kind = NUL}); }

static int text_event(void *ctx, enum kind kind, const char *text)
{
	struct event e = {.kind = kind};
	cr_assert_lt(strlen(text), sizeof e.text);
	strcpy(e.text, text);
	return add(ctx, e);
}
static int on_key(void *ctx, const char *k) { return text_event(ctx, KEY, k); }
static int on_string(void *ctx, const char *s) { return text_event(ctx, STRING, s); }

static const struct ha_report_events recorder = {
	on_begin, on_end, on_key, on_string, on_uint, on_real, on_bool, on_null,
};

typedef enum ha_status (*sections_fn)(struct ha_report *r, const void *ctx);

/* The YAML of the sections, into a new string. */
static char *yaml_of(sections_fn fn, const void *ctx)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	struct ha_report *r;
	cr_assert_eq(ha_report_new(f, HA_FORMAT_YAML, &r), HA_OK);
	cr_assert_eq(fn(r, ctx), HA_OK);
	cr_assert_eq(ha_report_end(r), HA_OK);
	ha_report_free(r);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* The value a plain YAML scalar spells, checked against the event. */
static void check_scalar(const struct event *e, const char *s, int quoted)
{
	if (e->kind == STRING) {
		cr_assert_str_eq(e->text, s);
		return;
	}
	cr_assert(!quoted, "a quoted scalar for a typed value: %s", s);
	if (e->kind == UINT)
		cr_assert_eq(strtoull(s, NULL, 10), e->u, "%s", s);
	else if (e->kind == BOOL)
		cr_assert_str_eq(s, e->u ? "true" : "false");
	else if (e->kind == NUL)
		cr_assert_str_eq(s, "null");
	else if (isnan(e->d))
		cr_assert_str_eq(s, ".nan");
	else if (isinf(e->d))
		cr_assert_str_eq(s, e->d > 0 ? ".inf" : "-.inf");
	else
		cr_assert_eq(strtod(s, NULL), e->d, "%s against %.17g", s, e->d);
}

/* The events of fn against its YAML, read back. */
static void check_against_yaml(sections_fn fn, const void *ctx)
{
	struct record rec = {0};
	struct ha_report *r;
	cr_assert_eq(ha_report_new_events(&recorder, &rec, &r), HA_OK);
	cr_assert_eq(fn(r, ctx), HA_OK);
	cr_assert_eq(ha_report_end(r), HA_OK);
	ha_report_free(r);

	char *text = yaml_of(fn, ctx);
	yaml_parser_t p;
	cr_assert(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	size_t at = 0;
	int keys[64] = {0}, depth = 0, expect_key[64] = {0};
	for (int done = 0; !done;) {
		yaml_event_t y;
		cr_assert(yaml_parser_parse(&p, &y));
		switch (y.type) {
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			cr_assert_lt(at, rec.count);
			cr_assert_eq(rec.events[at++].kind,
			             y.type == YAML_MAPPING_START_EVENT ? BEGIN_MAP : BEGIN_SEQ);
			if (depth > 0 && expect_key[depth - 1])
				keys[depth - 1] = !keys[depth - 1];
			cr_assert_lt(depth, 63);
			expect_key[depth] = y.type == YAML_MAPPING_START_EVENT;
			keys[depth++] = 1;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			cr_assert_eq(rec.events[at++].kind, END);
			depth--;
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)y.data.scalar.value;
			const struct event *e = &rec.events[at++];
			cr_assert_leq(at, rec.count);
			if (expect_key[depth - 1] && keys[depth - 1]) {
				cr_assert_eq(e->kind, KEY, "at %s", s);
				cr_assert_str_eq(e->text, s);
			} else {
				check_scalar(e, s, y.data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
			}
			if (expect_key[depth - 1])
				keys[depth - 1] = !keys[depth - 1];
			break;
		}
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&y);
	}
	cr_assert_eq(at, rec.count, "every event read back");
	yaml_parser_delete(&p);
	free(text);
	free(rec.events);
}

static enum ha_status allocation_sections(struct ha_report *r, const void *ctx)
{
	const struct ha_allocation_result *a = ctx;
	struct ha_model m = ha_model_defaults();
	return ha_report_allocation(r, &(struct ha_allocation_request){
		.model = &m, .solution = &a->solution, .candidates = a->candidates,
		.candidate_count = a->candidate_count}, NULL);
}

Test(report_events, an_allocation_is_its_yaml)
{
	struct ha_model m = ha_model_defaults();
	double n_samples = 1e9;
	struct ha_allocation_result *a;
	cr_assert_eq(ha_allocation_result_new(720720, NULL, NULL, &m, n_samples,
	                                      HA_ALLOCATION_CANDIDATES, &a, NULL), HA_OK);
	check_against_yaml(allocation_sections, a);
	ha_allocation_result_free(a);
}

static enum ha_status table_sections(struct ha_report *r, const void *ctx)
{
	struct ha_sweep_result *result = (struct ha_sweep_result *)ctx;
	return ha_report_table(r, &(struct ha_table_request){.result = result}, NULL);
}

Test(report_events, a_table_is_its_yaml, .timeout = 600)
{
	static const uint64_t budgets[] = {512, 768, 4096};
	struct ha_model m = ha_model_defaults();
	struct ha_sweep_result *result;
	cr_assert_eq(ha_sweep_run(&(struct ha_sweep_request){
		.model = &m, .budgets = budgets, .budget_count = 3,
		.samples = {.count = 2000, .from = 1e3, .to = 1e15}}, NULL, &result, NULL), HA_OK);
	check_against_yaml(table_sections, result);
	ha_sweep_result_free(result);
}

Test(report_events, a_refused_event_fails_the_report)
{
	struct ha_model m = ha_model_defaults();
	double n_samples = 1e9;
	struct ha_allocation_result *a;
	cr_assert_eq(ha_allocation_result_new(512, NULL, NULL, &m, n_samples,
	                                      HA_ALLOCATION_CANDIDATES, &a, NULL), HA_OK);
	struct record rec = {.refuse_at = 7};
	struct ha_report *r;
	cr_assert_eq(ha_report_new_events(&recorder, &rec, &r), HA_OK);
	allocation_sections(r, a);
	cr_assert_eq(ha_report_end(r), HA_EIO);
	cr_assert_eq(rec.count, 6, "no event after the refusal (%zu)", rec.count);
	ha_report_free(r);
	ha_allocation_result_free(a);
	struct ha_report_events partial = recorder;
	partial.real = NULL;
	cr_assert_eq(ha_report_new_events(&partial, &rec, &r), HA_EINVAL);
	cr_assert_null(r);
	cr_assert_eq(ha_report_new_events(NULL, &rec, &r), HA_EINVAL);
	free(rec.events);
}
