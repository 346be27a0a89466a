"""headalloc.calibrate: fit the error model to measured training runs."""

import math
import os
import warnings

import numpy as np

from . import _ext
from ._errors import HeadallocWarning, InputError
from ._model import Model, constraints_tuple
from ._progress import progress_callback
from ._results import _Result

# enum ha_cal_param's order (include/headalloc/calibrate.h).
PARAMETERS = _ext.calibration_parameters()  # the library's names and order
_LOG = {"bias_coef", "var_coef"}
# The CLI's default free set (headalloc-calibrate(1)): the seeds' law.
DEFAULT_FREE = ("irreducible", "bias_coef", "var_coef")
RUN_FIELDS = ("heads", "head_dim", "samples", "loss", "loss_se", "kv_heads")


class Calibration(_Result):
    """A calibration (``headalloc calibrate``).

    Attributes: ``model`` (the calibrated headalloc.Model, usable by
    :func:`allocate`), ``samples`` (its n: the target's, else the runs'
    largest), ``parameters`` (each parameter's value, se, ci95, free,
    at_bound; the coefficients as ln c, scale "log"), ``prediction`` (the
    optimum at the target and the bootstrap's distribution of it, or
    None), ``comparison`` (the ladder of laws with ``compare=True``, or
    None), ``goodness`` (objective, rss, rms, aicc, bic, ...),
    ``bootstrap``, ``residuals`` and ``warnings`` (each also issued as a
    HeadallocWarning).
    """

    def __init__(self, capsule):
        self._capsule = capsule
        values, self.samples = _ext.calibration_model(capsule)
        self.model = Model._from_tuple(values)
        d = self.to_dict()
        cal = d["calibration"]
        self.parameters = cal["parameters"]
        self.bootstrap = cal.get("bootstrap")
        self.residuals = cal.get("residuals")
        self.warnings = list(cal.get("warnings") or [])
        self.goodness = cal.get("goodness") or {
            k: cal[k] for k in ("runs", "huber_delta", "objective", "rss", "rms",
                                "aicc", "bic", "starts") if k in cal}
        self.prediction = d.get("prediction")
        self.comparison = d.get("comparison")
        for w in self.warnings:
            warnings.warn(w, HeadallocWarning, stacklevel=3)

    def _report(self):
        return _ext.report_calibration(self._capsule)

    def _picture(self, name):
        return _ext.plot_calibration(name, self._capsule)

    def __repr__(self):
        p = self.prediction
        at = (" -> %d heads x head_dim %d at D=%d, n=%g" % (
            p["heads"], p["head_dim"], p["budget"], p["samples"])) if p else ""
        return "Calibration(%s%s)" % (self.model, at)


def calibrate(runs, free=None, fix=None, target=None, huber_delta=math.inf, bootstrap=1000,
              seed=None, compare=False, columns=None, progress=None, **constraints):
    """Fit the error model to measured runs (headalloc-model(7), CALIBRATION).

    runs: a runs file (YAML or CSV, headalloc-runs(5)), a list of dicts,
    a mapping of columns or a pandas DataFrame, each run with heads,
    head_dim, samples, loss and optionally loss_se (NaN or None: absent)
    and kv_heads (G, the key/value heads of grouped-query attention,
    dividing heads; NaN or None: heads, as a runs file without it).
    columns maps those names (and model_dim, the width H * d_k, from which
    head_dim = model_dim / heads where there is no head_dim column in a
    CSV file) to the source's own ({"heads": "n_head", "loss": "val/loss"},
    a W&B export; {"loss": "metrics.val_loss"}, MLflow's), for in-memory
    runs and CSV runs files alike (headalloc-runs(5)).

    free: the parameters to fit (default irreducible, bias_coef, var_coef,
    as the CLI; "group_hdi" fits the diversity within a key/value group,
    which needs a run with kv_heads < heads); fix: {name: value} held fixed (bias_coef and var_coef as
    values, or log_bias_coef / log_var_coef exactly); the others keep
    headalloc-model(7)'s defaults.  target=(budget, samples) predicts the
    optimal allocation there, under the keyword constraints
    (head_dim_multiple, min_head_dim, ...).  huber_delta: Huber's δ
    (math.inf, the default: least squares); bootstrap: resamples (0: none); seed: the
    bootstrap's seed (None: the library's default, 1); compare: also fit
    the ladder of laws.  progress: None (tqdm when installed), False, or a
    callable(what, done, total).  The call releases the GIL and refits on
    one thread per online processor (at most 8, the library's threads = 0,
    as the CLI's --threads auto), the result the same for any count.
    """
    cols = _runs_input(runs, columns)
    free_flags = _free_flags(free, fix)
    fixed = _fixed(fix)
    if target is not None:
        try:
            budget, samples = target
        except (TypeError, ValueError):
            raise InputError("target: expected (budget, samples), found %r" % (target,)) from None
        target = (budget, float(samples))
    elif constraints:
        raise InputError("constraints need a target=(budget, samples)")
    cons = constraints_tuple(constraints)
    if seed is None:
        seed = 1
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError("seed: expected a whole number >= 0, found %r" % (seed,))
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise InputError("bootstrap: expected a whole number >= 0, found %r" % (bootstrap,))
    callback = progress_callback(progress)
    try:
        capsule = _ext.calibrate(cols, free_flags, fixed, target, cons, float(huber_delta),
                                 bootstrap, seed, bool(compare), callback)
    finally:
        close = getattr(callback, "close", None)
        if close:
            close()
    return Calibration(capsule)


def _free_flags(free, fix):
    names = DEFAULT_FREE if free is None else ([free] if isinstance(free, str) else list(free))
    for n in names:
        if n not in PARAMETERS:
            raise InputError("free: unknown parameter %r (expected one of %s)"
                             % (n, ", ".join(PARAMETERS)))
    fixed_names = {_base(n) for n in (fix or {})}
    if free is not None and fixed_names & set(names):
        raise InputError("%s is in free and in fix" % sorted(fixed_names & set(names))[0])
    return tuple(int(p in names and p not in fixed_names) for p in PARAMETERS)


def _base(name):
    return name[4:] if name.startswith("log_") and name[4:] in _LOG else name


def _fixed(fix):
    out = {}
    for name, value in (fix or {}).items():
        base = _base(name)
        if base not in PARAMETERS:
            raise InputError("fix: unknown parameter %r (expected one of %s, or "
                             "log_bias_coef, log_var_coef)" % (name, ", ".join(PARAMETERS)))
        k = PARAMETERS.index(base)
        if k in out:
            raise InputError("fix: %s given twice" % base)
        v = float(value)
        if base in _LOG and base == name:
            if not v > 0:
                raise InputError("fix: %s = %r: expected a number > 0" % (name, value))
            v = math.log(v)
        out[k] = v
    return out


def _runs_input(runs, columns):
    """A path (str) or the five columns the extension reads."""
    if isinstance(runs, (str, bytes, os.PathLike)):
        if columns:
            if not isinstance(columns, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in columns.items()):
                raise InputError("columns: expected a dict {key: column name}, found %r"
                                 % (columns,))
            return (os.fsdecode(runs), dict(columns))   # the library maps them
        return os.fsdecode(runs)
    names = {f: (columns or {}).get(f, f) for f in RUN_FIELDS}
    if hasattr(runs, "to_dict") and hasattr(runs, "columns"):      # a DataFrame
        table = {f: runs[names[f]].to_numpy() for f in RUN_FIELDS if names[f] in runs.columns}
    elif isinstance(runs, dict):
        table = {f: runs[names[f]] for f in RUN_FIELDS if names[f] in runs}
    else:
        rows = list(runs)
        table = {}
        for f in RUN_FIELDS:
            if any(names[f] in r for r in rows):
                table[f] = [r.get(names[f]) for r in rows]
    for f in RUN_FIELDS[:4]:
        if f not in table:
            raise InputError("runs: no column %r" % names[f])
    n = len(table["heads"])
    out = []
    for f in RUN_FIELDS:
        col = table.get(f)
        if col is None:
            out.append(np.zeros(n, dtype=np.uint64) if f == "kv_heads" else np.full(n, np.nan))
            continue
        try:
            a = np.array([np.nan if v is None else v for v in col], dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("runs: column %r: expected numbers" % names[f]) from None
        if len(a) != n:
            raise InputError("runs: column %r has %d values, heads %d" % (names[f], len(a), n))
        if f in ("heads", "head_dim", "kv_heads"):
            # kv_heads: None or NaN (a DataFrame's missing value) is heads
            absent = np.isnan(a) if f == "kv_heads" else np.zeros(n, dtype=bool)
            bad = np.flatnonzero(~(absent | (np.isfinite(a) & (a >= 1) & (a == np.floor(a))
                                             & (a < 2.0 ** 63))))
            if bad.size:
                raise InputError("run %d: %s must be a whole number >= 1, found %r"
                                 % (bad[0] + 1, f, col[bad[0]]))
            a = np.array([0 if m else int(v) for v, m in zip(col, absent)], dtype=np.uint64)
        out.append(np.ascontiguousarray(a))
    return tuple(out)
