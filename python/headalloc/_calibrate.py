"""headalloc.calibrate: fit the error model to measured training runs."""

from __future__ import annotations

import math
import numbers
import operator
import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

if TYPE_CHECKING:
    import pandas

import numpy as np

from . import _ext
from ._errors import HeadallocWarning, InputError, bad_value
from ._model import Model, constraints_tuple
from ._progress import Progress, progress_callback
from ._results import _Result

# enum ha_cal_param's order (include/headalloc/calibrate.h).
PARAMETERS = _ext.calibration_parameters()  # the library's names and order
_LOG = {"bias_coef", "var_coef"}
# The CLI's default free set (headalloc-calibrate(1)): the seeds' law.
DEFAULT_FREE = ("irreducible", "bias_coef", "var_coef")
# The command line's limits (headalloc-calibrate(1)).
BOOTSTRAP_MAX = 1000000
SEED_MAX = 2 ** 64 - 1
THREADS_MAX = 1024
LAW_NAME_MAX = 31
LAWS_MAX = 16
BOOTSTRAP_KINDS = ("cases", "residuals", "wild")  # enum ha_cal_bootstrap_kind's order
_PARAM_LIST = ("irreducible, bias_coef, smoothness, var_coef, var_rate, var_power, hdi, "
               "data_coef, data_power, var_samples_power or group_hdi")


class Calibration(_Result):
    """A calibration: the error model fitted to measured runs.

    Attributes
    ----------
    model : Model
        The calibrated model, usable by :func:`allocate`.
    samples : float
        Its n: the target's, else the runs' largest.
    parameters : list of dict
        Each parameter's value, se, ci95, free, at_bound (the coefficients
        as ln c, scale "log").
    prediction : dict or None
        The optimum at the target and the bootstrap's distribution of it.
    comparison : dict or None
        The ladder of laws (``compare=True`` or ``laws``); as a DataFrame
        by :meth:`comparison_to_pandas`.
    goodness : dict
        objective, rss, rms, aicc, bic, ...
    bootstrap : dict or None
    residuals : list of dict
        Each run with its fitted loss and log residual; as a DataFrame by
        :meth:`to_pandas`.
    warnings : list of str
        Each also issued as a HeadallocWarning.
    """

    def __init__(self, capsule: Any) -> None:
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

    def to_pandas(self) -> "pandas.DataFrame":
        """The runs with their fitted values and residuals.

        Returns
        -------
        pandas.DataFrame
            One row a run, in the runs' order: heads, head_dim, samples,
            loss, loss_se (NaN where a run has none), fitted (the
            calibrated model's loss; inf beyond a double), log_fitted (its
            natural log, exact), residual (ln loss - ln fitted) and
            standardised (the residual over se / loss: the residual the
            fit weighs; the residual itself without loss_se).

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        import pandas
        return pandas.DataFrame(_ext.calibration_runs(self._capsule))

    def comparison_to_pandas(self) -> "pandas.DataFrame":
        """The comparison of laws, one row a law.

        Returns
        -------
        pandas.DataFrame
            The columns of the report's laws (law, free, k, rss, aicc, bic,
            loo_rmse, weight, heads, head_dim, share, ...), a nested map
            flattened into prefixed columns (huber_objective, ...).

        Raises
        ------
        InputError
            The calibration was made without a comparison.
        ImportError
            pandas is not installed.
        """
        import pandas
        if not self.comparison:
            raise InputError("comparison_to_pandas: the calibration has no comparison "
                             "(calibrate(..., compare=True) or laws=)")
        rows = []
        for law in self.comparison.get("laws", []):
            row = {}
            for key, value in law.items():
                if isinstance(value, dict):
                    row.update({"%s_%s" % (key, k): v for k, v in value.items()})
                else:
                    row[key] = value
            rows.append(row)
        return pandas.DataFrame(rows)

    def _report(self) -> bytes:
        return _ext.report_calibration(self._capsule)

    def _picture(self, name: str) -> bytes:
        return _ext.plot_calibration(name, self._capsule)

    def __repr__(self) -> str:
        p = self.prediction
        at = (" -> %d heads x head_dim %d at D=%d, n=%g" % (
            p["heads"], p["head_dim"], p["budget"], p["samples"])) if p else ""
        return "Calibration(%s%s)" % (self.model, at)


RunsLike = Union[str, bytes, "os.PathLike[str]", Mapping[str, Sequence[Any]],
                 Iterable[Mapping[str, Any]], Any]


def calibrate(runs: RunsLike, free: Union[str, Sequence[str], None] = None,
              fix: Optional[Mapping[str, float]] = None,
              target: Optional[Tuple[int, float]] = None, huber_delta: float = math.inf,
              bootstrap: int = 1000, seed: Optional[int] = None, compare: bool = False,
              columns: Optional[Mapping[str, str]] = None, progress: Progress = None, *,
              bootstrap_kind: str = "cases",
              laws: Optional[Mapping[str, Sequence[str]]] = None,
              threads: Union[int, str, None] = None,
              **constraints: int) -> Calibration:
    """Fit the error model to measured runs (headalloc-model(7), CALIBRATION).

    Parameters
    ----------
    runs : path, DataFrame, mapping of columns or list of dicts
        A runs file (YAML or CSV, headalloc-runs(5)), a pandas DataFrame
        (a tracker's export), a mapping of columns or a list of dicts, each
        run with heads, head_dim (or model_dim: head_dim = model_dim /
        heads), samples, loss and optionally loss_se (NaN or None: absent)
        and kv_heads (G dividing heads; NaN or None: heads); other columns
        are ignored.  Runs in memory are read by the rules of a CSV file
        of the same rows and refused in its words, less its
        ``FILE:LINE:COLUMN:`` ("row 2, samples: expected a number > 1 and
        <= 1e300, found '1'": the row counted from 1 among the runs, the
        value as a cell holding it would show it).
    free : str or sequence of str, optional
        The parameters to fit (default irreducible, bias_coef, var_coef);
        "group_hdi" needs a run with kv_heads < heads.
    fix : mapping, optional
        {name: value} held fixed (bias_coef and var_coef as values, or
        log_bias_coef / log_var_coef exactly); the others keep the
        defaults of headalloc-model(7).
    target : (int, float), optional
        (budget, samples): predict the optimal allocation there, under the
        keyword constraints.
    huber_delta : float
        Huber's delta, > 0 (math.inf, the default: least squares).
    bootstrap : int
        Resamples, from 0 (none) to 1000000.
    seed : int, optional
        The bootstrap's seed, from 0 to 2**64 - 1 (None: 1).
    compare : bool
        Also fit the ladder of laws.
    columns : mapping, optional
        The source's own names of the fields ({"heads": "n_head",
        "model_dim": "n_embd", "loss": "val/loss"}), for in-memory runs
        and CSV files alike: a key other than heads, head_dim, model_dim,
        samples, loss, loss_se or kv_heads, and a named column the runs
        lack, are refused as by the command line.
    progress : None, bool or callable
        None (tqdm when installed), False, or a callable(what, done, total)
        told of the resamples, then with a comparison of the laws fitted
        and their resamples; raising in it (or Ctrl-C) stops the fit.
    bootstrap_kind : {"cases", "residuals", "wild"}
        Resample the runs, the log residuals of the fitted curve
        (leverage-modified), or give each run's own residual a random sign
        (headalloc-calibrate(1)).
    laws : mapping of str to sequence of str, optional
        Laws of your own for the comparison, {name: free parameters}
        (at most 16; names of at most 31 characters, none a ladder law's);
        the parameters a law leaves fixed keep the main fit's values.
    threads : int or "auto", optional
        Threads for the refits, 1 to 1024 (at most 8 are used; None or
        "auto": one per processor); the result is the same whatever the
        count.
    **constraints : int
        head_dim_multiple, min_head_dim, ... for the target's allocation.

    Returns
    -------
    Calibration

    Raises
    ------
    InputError
        A bad value, a bad or missing column of the runs, or runs the fit
        cannot use.
    FileError
        The runs file cannot be read.
    InfeasibleError
        No allocation at the target meets the constraints.
    KeyboardInterrupt
        Ctrl-C during the fit (or the progress callback's exception).

    Notes
    -----
    The call releases the GIL and refits on the threads asked for (None:
    one per online processor, at most 8, the library's threads = 0), the
    result the same for any count.
    """
    cols = _runs_input(runs, columns)
    free_flags = _free_flags(free, fix)
    fixed = _fixed(fix)
    if target is not None:
        try:
            budget, samples = target
        except (TypeError, ValueError):
            raise InputError("target: expected (budget, samples), found %r" % (target,)) from None
        target = (budget, _number("target samples", samples))
    elif constraints:
        raise InputError("the constraints on the allocation go with target budget and "
                         "target samples")
    cons = constraints_tuple(constraints)
    seed = 1 if seed is None else _whole("seed", seed, 0, SEED_MAX)
    bootstrap = _whole("bootstrap", bootstrap, 0, BOOTSTRAP_MAX)
    try:
        delta = float(huber_delta)
    except (TypeError, ValueError, OverflowError):
        delta = math.nan
    if isinstance(huber_delta, bool) or not delta > 0:
        bad_value("huber_delta", huber_delta, "a finite number > 0, or inf")
    options = (_bootstrap_kind(bootstrap_kind), _threads(threads), _laws(laws))
    callback = progress_callback(progress)
    try:
        capsule = _ext.calibrate(cols, free_flags, fixed, target, cons, delta,
                                 bootstrap, seed, bool(compare), callback, options)
    finally:
        close = getattr(callback, "close", None)
        if close:
            close()
    return Calibration(capsule)


def _whole(name: str, value: Any, lo: int, hi: int) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        v = None
    if isinstance(value, bool) or v is None or not lo <= v <= hi:
        bad_value(name, value, "a whole number from %d to %d" % (lo, hi))
    return v


def _number(name: str, value: Any) -> float:
    """A number (NaN included: the library names its domain)."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        bad_value(name, value, "a number")
    if isinstance(value, bool):
        bad_value(name, value, "a number")
    return v


def _bootstrap_kind(kind: Any) -> int:
    if kind not in BOOTSTRAP_KINDS:
        bad_value("bootstrap_kind", kind, "cases, residuals or wild")
    return BOOTSTRAP_KINDS.index(kind)


def _threads(threads: Any) -> int:
    """0 for one per processor, as struct ha_cal_options takes it."""
    if threads is None or threads == "auto":
        return 0
    try:
        v = operator.index(threads)
    except TypeError:
        v = None
    if isinstance(threads, bool) or v is None or not 1 <= v <= THREADS_MAX:
        bad_value("threads", threads, "auto or a whole number from 1 to %d" % THREADS_MAX)
    return v


def _laws(laws: Optional[Mapping[str, Sequence[str]]]) -> Tuple[Tuple[str, Tuple[int, ...]], ...]:
    """((name, free flags), ...) of the user's laws; the library checks the
    names against the ladder's and each other."""
    if laws is None:
        return ()
    if not isinstance(laws, Mapping):
        raise TypeError("laws: expected a mapping {name: [parameter, ...]}")
    if len(laws) > LAWS_MAX:
        bad_value("laws", list(laws), "at most %d laws of your own" % LAWS_MAX)
    out = []
    for name, params in laws.items():
        if not isinstance(name, str):
            raise TypeError("laws: a law's name must be a str, found %r" % (name,))
        names = [params] if isinstance(params, str) else list(params)
        if not name or len(name.encode()) > LAW_NAME_MAX or not names:
            bad_value("laws", {name: params},
                      "{NAME: [PARAM, ...]} with a name of at most %d characters and "
                      "at least one PARAM" % LAW_NAME_MAX)
        # The command line's checks of --law, in its order and words.
        fault = _ext.name_fault(name)
        if fault:
            bad_value("laws", {name: params}, "a NAME of UTF-8 text without control or "
                      "bidirectional characters (this one %s)" % fault)
        ladder = _ext.ladder_laws()
        if name in ladder:
            bad_value("laws", {name: params}, "a name that is not a law of the ladder (%s)"
                      % ", ".join(ladder))
        if len(set(names)) != len(names) or not all(p in PARAMETERS for p in names):
            bad_value("laws", names,
                      "{NAME: [PARAM, ...]} with each PARAM once, one of " + _PARAM_LIST)
        out.append((name, tuple(int(p in names) for p in PARAMETERS)))
    return tuple(out)


def _free_flags(free: Union[str, Sequence[str], None],
                fix: Optional[Mapping[str, float]]) -> Tuple[int, ...]:
    names = DEFAULT_FREE if free is None else ([free] if isinstance(free, str) else list(free))
    for n in names:
        if n not in PARAMETERS:   # the command line shows the item, or all for ''
            bad_value("free", n if n else free, "a list of " + _PARAM_LIST)
    if not names:
        bad_value("free", free, "one or more of " + _PARAM_LIST)
    if len(set(names)) != len(names):
        bad_value("free", free, "each name once")
    fixed_names = {_base(n) for n in (fix or {})}
    if free is not None and fixed_names & set(names):
        raise InputError("%s is in free and in fix" % sorted(fixed_names & set(names))[0])
    return tuple(int(p in names and p not in fixed_names) for p in PARAMETERS)


def _base(name: str) -> str:
    return name[4:] if name.startswith("log_") and name[4:] in _LOG else name


def _fixed(fix: Optional[Mapping[str, float]]) -> Dict[int, float]:
    out = {}
    for name, value in (fix or {}).items():
        words = _ext.cal_fixed_domain(name, 1.0)[0] if isinstance(name, str) else None
        if words is None:
            bad_value("fix", {name: value}, "{NAME: VALUE, ...} with NAME %s (or "
                      "log_bias_coef, log_var_coef)" % _PARAM_LIST)
        base = _base(name)
        k = PARAMETERS.index(base)
        if k in out:
            bad_value("fix", dict(fix), "each parameter once")
        try:
            v = float(value)
        except (TypeError, ValueError, OverflowError):
            v = math.nan
        # the domain of the value as given (c_b, not ln c_b): the library's
        if isinstance(value, bool) or not _ext.cal_fixed_domain(name, v)[1]:
            bad_value("fix", {name: value}, "%s = %s" % (name, words))
        out[k] = math.log(v) if base in _LOG and base == name else v
    return out


# enum ha_runs_key's order (include/headalloc/runs.h): the columns the
# extension reads from memory.
RUNS_KEYS = _ext.runs_keys()


def _runs_input(runs: Any, columns: Optional[Mapping[str, str]]) -> Any:
    """(source, names) for the extension: source a path, or the columns of
    runs in memory as float64 arrays in RUNS_KEYS' order (None for a column
    the table lacks, NaN for a None); names the columns= mapping, which the
    library checks as the command line's --columns.  The library then
    reads the columns with the rules and words of a CSV file of the same
    rows (ha_runs_from_columns)."""
    if columns is not None and (not isinstance(columns, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in columns.items())):
        raise InputError("columns: expected a dict {key: column name}, found %r"
                         % (columns,))
    names = dict(columns) if columns else None
    if isinstance(runs, (str, bytes, os.PathLike)):
        return (os.fsdecode(runs), names)   # the library maps them
    header = {k: (names or {}).get(k, k) for k in RUNS_KEYS}
    if hasattr(runs, "to_dict") and hasattr(runs, "columns"):      # a DataFrame
        table = {k: runs[header[k]] for k in RUNS_KEYS if header[k] in runs.columns}
        count = len(runs)
    elif isinstance(runs, Mapping):
        table = {k: runs[header[k]] for k in RUNS_KEYS if header[k] in runs}
        count = len(next(iter(table.values()))) if table else 0
    else:
        rows = list(runs)
        for r in rows:
            if not isinstance(r, Mapping):
                raise TypeError("runs: expected a path, a DataFrame, a mapping of columns "
                                "or an iterable of mappings, found an item %r" % (r,))
        table = {k: [r.get(header[k]) for r in rows] for k in RUNS_KEYS
                 if any(header[k] in r for r in rows)}
        count = len(rows)
    out = []
    for key in RUNS_KEYS:
        if key not in table:
            out.append(None)
            continue
        a = _float_column(key, table[key])
        if len(a) != count:
            raise InputError("runs: column %r has %d values, expected %d"
                             % (header[key], len(a), count))
        out.append(a)
    return (tuple(out), names)


def _float_column(key: str, values: Any) -> "np.ndarray":
    """values as contiguous float64, None (and a DataFrame's NA) as NaN; a
    value that is no real number (text, a bool) refused as the CSV reader
    refuses its cell."""
    if hasattr(values, "to_numpy") and hasattr(values, "dtype"):    # a Series
        import pandas.api.types as types
        if types.is_numeric_dtype(values.dtype) and not types.is_bool_dtype(values.dtype):
            return np.ascontiguousarray(values.to_numpy(dtype=np.float64, na_value=np.nan))
        values = values.to_numpy()
    a = values
    if not isinstance(values, np.ndarray):
        a = np.asarray(values)
        if a.dtype.kind not in "iufO":   # mixed items: each as it was given
            a = np.array(list(values), dtype=object)
    if a.ndim != 1:
        raise InputError("runs: column %r: expected one value a run, found an array "
                         "of shape %r" % (key, a.shape))
    if a.dtype.kind in "iuf":
        return np.ascontiguousarray(a, dtype=np.float64)
    out = np.empty(len(a), dtype=np.float64)
    for i, v in enumerate(a):
        if v is None or (isinstance(v, float) and math.isnan(v)) or _is_na(v):
            out[i] = math.nan
        elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.number)):
            _ext.runs_refuse(i + 1, RUNS_KEYS.index(key), str(v))
        else:
            out[i] = float(v)
    return out


def _is_na(value: Any) -> bool:
    """pandas' missing value (pandas.NA, NaT), without importing pandas."""
    return type(value).__name__ in ("NAType", "NaTType")
