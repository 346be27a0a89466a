/* headalloc.plan: which run to train next (ha_plan_make), and the plan as
 * Python objects read straight from struct ha_plan (no report text in
 * between). */
#include "ha_py.h"

#include <math.h>
#include <stdlib.h>

#include <headalloc/plan.h>
#include <headalloc/runs.h>

static void plan_destroy(PyObject *capsule)
{
	ha_plan_free(PyCapsule_GetPointer(capsule, HA_PY_PLAN_CAPSULE));
}

/* The pool of a tuple of five contiguous columns (heads, head_dim,
 * kv_heads uint64 — 0: heads — samples and cost float64, cost NaN where
 * the options' cost kind applies). */
static int pool_of_columns(PyObject *cols, struct ha_plan_candidate **out,
                           size_t *count)
{
	Py_buffer b[5];
	Py_ssize_t n;
	if (!ha_py_columns(cols, 5, "pool", b, &n))
		return 0;
	int got = 5, ok = 1;
	if (n == 0) {
		ha_py_input_error("pool: no candidates");
		ok = 0;
	}
	struct ha_plan_candidate *pool = ok ? malloc(sizeof *pool * (size_t)n) : NULL;
	if (ok && !pool) {
		PyErr_NoMemory();
		ok = 0;
	}
	for (Py_ssize_t i = 0; ok && i < n; i++) {
		pool[i].heads = ((const uint64_t *)b[0].buf)[i];
		pool[i].head_dim = ((const uint64_t *)b[1].buf)[i];
		pool[i].kv_heads = ((const uint64_t *)b[2].buf)[i];
		if (pool[i].kv_heads == 0)
			pool[i].kv_heads = pool[i].heads;
		pool[i].samples = ((const double *)b[3].buf)[i];
		pool[i].cost = ((const double *)b[4].buf)[i];
	}
	for (int i = 0; i < got; i++)
		PyBuffer_Release(&b[i]);
	if (!ok) {
		free(pool);
		return 0;
	}
	*out = pool;
	*count = (size_t)n;
	return 1;
}

/* A list of doubles from a sequence of numbers, into *out (malloc'd). */
static int doubles_of(PyObject *seq, double **out, size_t *count)
{
	PyObject *fast = PySequence_Fast(seq, "pool_samples: expected a sequence of numbers");
	if (!fast)
		return 0;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	double *v = malloc(sizeof *v * (size_t)(n ? n : 1));
	if (!v) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return 0;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		v[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
		if (v[i] == -1.0 && PyErr_Occurred()) {
			free(v);
			Py_DECREF(fast);
			return 0;
		}
	}
	Py_DECREF(fast);
	*out = v;
	*count = (size_t)n;
	return 1;
}

/* _plan(runs, free, fixed, budget, samples, constraints, huber_delta,
 * resamples, seed, threads, kv_heads, pool, pool_samples, cost,
 * model_dim, next, spend, stop_below, outcomes, progress) -> capsule.
 * runs: None (an initial design) or _calibrate's (source, names); pool:
 * None, a path (a runs file without loss) or five columns; pool_samples:
 * None or a sequence; cost: 0 params-tokens, 1 tokens; kv_heads: 0
 * (G = H), G, or -1 (every divisor of H). */
PyObject *ha_py_plan(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *runs_obj, *free_obj, *fixed_obj, *budget_obj, *cons_obj;
	PyObject *pool_obj, *pool_samples_obj, *progress;
	double samples, huber, spend, stop_below;
	Py_ssize_t resamples, threads, next, outcomes;
	unsigned long long seed, model_dim;
	long long kv_heads;
	int cost;
	if (!PyArg_ParseTuple(args, "OOO!OdOdnKnLOOiKnddnO", &runs_obj, &free_obj,
	                      &PyDict_Type, &fixed_obj, &budget_obj, &samples,
	                      &cons_obj, &huber, &resamples, &seed, &threads,
	                      &kv_heads, &pool_obj, &pool_samples_obj, &cost,
	                      &model_dim, &next, &spend, &stop_below, &outcomes,
	                      &progress))
		return NULL;
	struct ha_plan_options o;
	ha_plan_options_defaults(&o);
	o.cal.huber_delta = huber;
	o.cal.seed = seed;
	if (resamples < 0 || threads < 0 || next < 0 || outcomes < 0)
		return ha_py_input_error("resamples, threads, next and outcomes: expected whole numbers >= 0");
	o.resamples = (size_t)resamples;
	o.cal.threads = (size_t)threads;
	o.next = (size_t)next;
	o.outcomes = (size_t)outcomes;
	o.spend = spend;
	o.stop_below = stop_below;
	o.model_dim = model_dim;
	o.cost = cost ? HA_PLAN_COST_TOKENS : HA_PLAN_COST_PARAMS_TOKENS;
	o.kv_heads = kv_heads < 0 ? HA_PLAN_KV_ALL : (uint64_t)kv_heads;
	if (!ha_py_law(free_obj, fixed_obj, &o.cal.law))
		return NULL;
	if (!ha_py_budget(budget_obj, "budget", &o.cal.target.budget))
		return NULL;
	o.cal.target.samples = samples;
	if (!ha_py_constraints(cons_obj, &o.cal.target.constraints) ||
	    !ha_py_target_feasible(o.cal.target.budget, &o.cal.target.constraints))
		return NULL;

	struct ha_error err;
	ha_error_init(&err);
	enum ha_status st = HA_OK;
	struct ha_run *runs = NULL;
	size_t count = 0;
	struct ha_plan_candidate *pool = NULL;
	double *pool_costs = NULL, *pool_samples = NULL;
	PyObject *runs_path = NULL, *pool_path = NULL, *result = NULL;
	if (runs_obj != Py_None && !ha_py_runs(runs_obj, &runs, &count, &runs_path))
		goto done;
	if (PyTuple_Check(pool_obj)) {
		if (!pool_of_columns(pool_obj, &pool, &o.pool_count))
			goto done;
	} else if (pool_obj != Py_None) {
		if (!PyUnicode_FSConverter(pool_obj, &pool_path))
			goto done;
		struct ha_run *pool_runs = NULL;
		size_t n = 0;
		Py_BEGIN_ALLOW_THREADS
		st = ha_runs_read_pool(PyBytes_AS_STRING(pool_path), HA_RUNS_AUTO, NULL,
		                       &pool_runs, &pool_costs, &n, &err);
		Py_END_ALLOW_THREADS
		if (st != HA_OK) {
			if (!err.file)
				err.file = PyBytes_AS_STRING(pool_path);
			result = ha_py_raise(st, &err);
			goto done;
		}
		pool = malloc(sizeof *pool * (n ? n : 1));
		if (!pool) {
			free(pool_runs);
			PyErr_NoMemory();
			goto done;
		}
		for (size_t i = 0; i < n; i++)
			pool[i] = (struct ha_plan_candidate){pool_runs[i].heads,
			                                     pool_runs[i].head_dim,
			                                     pool_runs[i].kv_heads,
			                                     pool_runs[i].samples,
			                                     pool_costs[i]};
		free(pool_runs);
		o.pool_count = n;
	}
	o.pool = pool;
	if (pool_samples_obj != Py_None) {
		if (!doubles_of(pool_samples_obj, &pool_samples, &o.pool_samples_count))
			goto done;
		o.pool_samples = pool_samples;
	}
	struct ha_py_progress state = {progress, NULL, 0};
	o.progress.fn = ha_py_progress_fn;
	o.progress.ctx = &state;
	struct ha_plan *plan = NULL;
	Py_BEGIN_ALLOW_THREADS
	st = ha_plan_make(runs, count, &o, &plan, &err);
	Py_END_ALLOW_THREADS
	if (st == HA_ECANCELED && state.failed)
		result = NULL; /* the callback's exception (KeyboardInterrupt) */
	else if (st != HA_OK)
		result = ha_py_raise(st, &err);
	else {
		result = PyCapsule_New(plan, HA_PY_PLAN_CAPSULE, plan_destroy);
		if (!result)
			ha_plan_free(plan);
	}
done:
	free(runs);
	free(pool);
	free(pool_costs);
	free(pool_samples);
	Py_XDECREF(runs_path);
	Py_XDECREF(pool_path);
	return result;
}

static PyObject *run_dict(const struct ha_plan_candidate *r)
{
	return Py_BuildValue("{s:K,s:K,s:K,s:d,s:d}", "heads",
	                     (unsigned long long)r->heads, "head_dim",
	                     (unsigned long long)r->head_dim, "kv_heads",
	                     (unsigned long long)r->kv_heads, "samples", r->samples,
	                     "cost", r->cost);
}

/* Set the keys of b (a dict, stolen) into a (a new reference); NULL on
 * failure, both released. */
static PyObject *merged(PyObject *a, PyObject *b)
{
	if (!a || !b || PyDict_Update(a, b) < 0) {
		Py_XDECREF(a);
		Py_XDECREF(b);
		return NULL;
	}
	Py_DECREF(b);
	return a;
}

static PyObject *pick_dict(const struct ha_plan_pick *p)
{
	return merged(run_dict(&p->run),
	              Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:n,s:O,s:s}",
	                            "value", p->value, "value_se", p->value_se,
	                            "value_per_cost", p->value_per_cost,
	                            "batch_cost", p->batch_cost,
	                            "p_correct_before", p->p_correct_before,
	                            "p_correct_after", p->p_correct_after,
	                            "expected_regret_after", p->expected_regret_after,
	                            "degenerate", (Py_ssize_t)p->degenerate,
	                            "extrapolated",
	                            p->extrapolated ? Py_True : Py_False,
	                            "reason", p->reason));
}

static PyObject *candidate_dict(const struct ha_plan_value *v)
{
	return merged(run_dict(&v->run),
	              Py_BuildValue("{s:d,s:d,s:d,s:d,s:n,s:n,s:O}", "value", v->value,
	                            "value_se", v->value_se, "value_per_cost",
	                            v->value_per_cost, "ess_mean", v->ess_mean,
	                            "degenerate", (Py_ssize_t)v->degenerate,
	                            "picked", (Py_ssize_t)v->picked,
	                            "extrapolated",
	                            v->extrapolated ? Py_True : Py_False));
}

/* A list of f(item) for count items of size `size` from base. */
static PyObject *list_of(const void *base, size_t count, size_t size,
                         PyObject *(*f)(const void *))
{
	PyObject *list = PyList_New((Py_ssize_t)count);
	for (size_t i = 0; list && i < count; i++) {
		PyObject *item = f((const char *)base + i * size);
		if (!item) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, item);
	}
	return list;
}

static PyObject *pick_item(const void *p)
{
	return pick_dict(p);
}

static PyObject *candidate_item(const void *v)
{
	return candidate_dict(v);
}

static PyObject *law_item(const void *l)
{
	const struct ha_plan_law *law = l;
	return Py_BuildValue("{s:s,s:d,s:n,s:d}", "law", law->name, "weight",
	                     law->weight, "samples", (Py_ssize_t)law->samples,
	                     "sigma", law->sigma);
}

static PyObject *sample_item(const void *n)
{
	return PyFloat_FromDouble(*(const double *)n);
}

static PyObject *method_dict(const struct ha_plan_method *m)
{
	PyObject *laws = list_of(m->laws, m->law_count, sizeof *m->laws, law_item);
	PyObject *pool = m->pool_samples
	                         ? list_of(m->pool_samples, m->pool_samples_count,
	                                   sizeof *m->pool_samples, sample_item)
	                         : (Py_INCREF(Py_None), Py_None);
	if (!laws || !pool) {
		Py_XDECREF(laws);
		Py_XDECREF(pool);
		return NULL;
	}
	return Py_BuildValue(
		"{s:n,s:N,s:O,s:n,s:O,s:d,s:n,s:n,s:n,s:K,s:d,s:N,s:s,s:K}",
		"samples", (Py_ssize_t)m->samples, "laws", laws, "main_law_only",
		m->main_law_only ? Py_True : Py_False, "outcomes",
		(Py_ssize_t)m->outcomes, "sigma_from_se",
		m->sigma_from_se ? Py_True : Py_False, "sigma", m->sigma,
		"degenerate", (Py_ssize_t)m->degenerate, "evaluations",
		(Py_ssize_t)m->evaluations, "refits", (Py_ssize_t)m->refits, "seed",
		(unsigned long long)m->seed, "ess_threshold", m->ess_threshold,
		"pool_samples", pool, "cost",
		m->cost == HA_PLAN_COST_TOKENS ? "tokens" : "params-tokens",
		"model_dim", (unsigned long long)m->model_dim);
}

/* _plan_dict(capsule) -> {budget, samples, runs, initial, decision,
 * plan, candidates, stop, stop_below, method}. */
PyObject *ha_py_plan_dict(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *capsule;
	if (!PyArg_ParseTuple(args, "O", &capsule))
		return NULL;
	const struct ha_plan *p = PyCapsule_GetPointer(capsule, HA_PY_PLAN_CAPSULE);
	if (!p)
		return NULL;
	const struct ha_plan_decision *d = &p->decision;
	PyObject *decision =
		d->defined ? Py_BuildValue("{s:K,s:K,s:K,s:d,s:d,s:O}", "heads",
		                           (unsigned long long)d->heads, "head_dim",
		                           (unsigned long long)d->head_dim, "kv_heads",
		                           (unsigned long long)d->kv_heads, "p_correct",
		                           d->p_correct, "expected_regret",
		                           d->expected_regret, "extrapolated",
		                           d->extrapolated ? Py_True : Py_False)
		           : Py_BuildValue("{s:s}", "undefined", d->undefined_reason);
	PyObject *picks = list_of(p->picks, p->pick_count, sizeof *p->picks, pick_item);
	PyObject *candidates = list_of(p->candidates, p->candidate_count,
	                               sizeof *p->candidates, candidate_item);
	PyObject *method = method_dict(&p->method);
	if (!decision || !picks || !candidates || !method) {
		Py_XDECREF(decision);
		Py_XDECREF(picks);
		Py_XDECREF(candidates);
		Py_XDECREF(method);
		return NULL;
	}
	PyObject *measured =
		p->runs ? Py_BuildValue("(KK)",
		                        (unsigned long long)p->measured_head_dims[0],
		                        (unsigned long long)p->measured_head_dims[1])
		        : (Py_INCREF(Py_None), Py_None);
	if (!measured) {
		Py_DECREF(decision);
		Py_DECREF(picks);
		Py_DECREF(candidates);
		Py_DECREF(method);
		return NULL;
	}
	return Py_BuildValue("{s:K,s:d,s:n,s:N,s:O,s:N,s:N,s:N,s:O,s:d,s:N}", "budget",
	                     (unsigned long long)p->budget, "samples", p->samples,
	                     "runs", (Py_ssize_t)p->runs, "measured_head_dims",
	                     measured, "initial",
	                     p->initial ? Py_True : Py_False, "decision", decision,
	                     "plan", picks, "candidates", candidates, "stop",
	                     p->stop ? Py_True : Py_False, "stop_below",
	                     p->stop_below, "method", method);
}
