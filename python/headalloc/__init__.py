"""headalloc — how many attention heads H and what head dimension d_k for
a key budget D = H·d_k and n training samples.

The error of multi-head attention seen as an ensemble of Nadaraya–Watson
estimators (headalloc-model(7)) is minimised exactly over the divisor
pairs of D, in log space.  This package is a thin layer over the C
library libheadalloc; every number is the library's, and every result's
``to_dict()`` has the keys of the command line's YAML report.

Functions
---------
allocate(budget, samples, model=None, **constraints) -> Allocation
    (with kv_heads=, max_kv_dim=, ...: a GroupedAllocation)
pareto(budget, samples, model=None, ...) -> Front
sweep(budgets, samples, model=None, **constraints) -> Sweep
regimes(budget, model=None, **constraints) -> Regimes
calibrate(runs, free=None, fix=None, target=None, ...) -> Calibration
hdi(source, heads=None, tensor=None, layout=None) -> HDI
head_weights(covariance) -> HeadWeights
geomspace(start, stop, num) -> ndarray
    values spaced evenly on a log scale, both ends exact (a sweep's n)
logspace(start, stop, num, base=10.0) -> ndarray
    base ** exponents, NumPy's meaning

Classes: Model (the error model's parameters) and the results above;
GroupedAllocation and its Front of GroupedCandidate entries for
grouped-query attention.  Constraints (keywords): head_dim_multiple,
min_head_dim, max_head_dim, min_heads, max_heads.

Errors raise headalloc.Error subclasses (InputError, InfeasibleError,
FileError, NumericError, UnsupportedError) with the file, line and column
at fault; an argument of the wrong type raises TypeError; cautions are
HeadallocWarning.  Every result has ``to_dict()``, ``plot(path)`` and, in
a notebook, its picture inline (``_repr_png_``).

Example::

    >>> import headalloc
    >>> a = headalloc.allocate(512, 1e8)
    >>> a.heads, a.head_dim
    (64, 8)
"""

from __future__ import annotations

import math as _math
import os as _os
import warnings as _warnings
from typing import Any, Optional, Sequence, Union

if _os.environ.get("HEADALLOC_EXTENSION_DIR"):
    # The test suite runs against a build tree: the extension is there.
    __path__.append(_os.environ["HEADALLOC_EXTENSION_DIR"])

import numpy as _np  # noqa: E402

from ._errors import (Error, FileError, HeadallocWarning, InfeasibleError,  # noqa: E402
                      InputError, NumericError, UnsupportedError, bad_value as _bad_value)
from . import _headalloc as _ext  # noqa: E402
from ._model import Model, model_tuple as _model_tuple, constraints_tuple as _cons  # noqa: E402
from ._results import (Allocation, Candidate, HDI, HeadWeights, Layer,  # noqa: E402
                       Regimes, Sweep)
from ._grouped import (Front, GroupedAllocation, GroupedCandidate,  # noqa: E402
                       KV as _KV, split_options as _split_kv)
from ._calibrate import Calibration, calibrate  # noqa: E402
from ._plan import Plan, plan  # noqa: E402
from ._hdi import hdi  # noqa: E402
from ._progress import Progress, progress_callback as _progress_callback  # noqa: E402

__version__: str = _ext.version

__all__ = ["allocate", "pareto", "sweep", "regimes", "calibrate", "plan", "Plan", "hdi", "head_weights",
           "geomspace", "logspace", "Model", "Allocation", "Candidate", "GroupedAllocation",
           "GroupedCandidate", "Front", "Sweep", "Regimes",
           "Calibration", "HDI", "Layer", "HeadWeights", "Error", "InputError",
           "InfeasibleError", "FileError", "NumericError", "UnsupportedError",
           "HeadallocWarning"]

#: A model argument: a Model, a dict of its parameters, a Calibration, or None.
ModelLike = Union[Model, dict, Calibration, None]
#: A whole number of key/value heads, or "auto".
KVHeads = Union[int, str, None]


def allocate(budget: int, samples: float, model: ModelLike = None, *,
             kv_heads: KVHeads = None, max_kv_dim: Optional[int] = None,
             min_kv_heads: Optional[int] = None, max_kv_heads: Optional[int] = None,
             group_hdi: Optional[float] = None, layers: Optional[int] = None,
             kv_bytes: Optional[int] = None, model_dim: Optional[int] = None,
             pareto: bool = False, max_loss_ratio: Optional[float] = None,
             **constraints: int) -> Union[Allocation, GroupedAllocation]:
    """The optimal (heads, head_dim) of the key budget D = heads * head_dim
    at n = samples.

    Parameters
    ----------
    budget : int
        The key dimension budget D, from 1 to 2**63 - 1.
    samples : float
        The training samples n, 1 < n <= 1e300.
    model : Model, dict, Calibration or None
        The error model (None: the defaults of headalloc-model(7)).
    kv_heads : int or "auto", optional
        Grouped-query attention: G key/value heads dividing H, or "auto"
        (G among the divisors of H).  With any of kv_heads, max_kv_dim,
        min_kv_heads, max_kv_heads, pareto or max_loss_ratio the optimum
        is over (H, G, d) and the result a GroupedAllocation.
    max_kv_dim : int, optional
        The largest G * d (the KV width).
    min_kv_heads, max_kv_heads : int, optional
        Bounds on G.
    group_hdi : float, optional
        The diversity within a key/value group, in [0, 1].
    layers, kv_bytes : int, optional
        The KV cache is 2 G d layers kv_bytes bytes a token (1 and 2).
    model_dim : int, optional
        The model width, for the attention's parameter count.
    pareto : bool
        Also the trade-off front of error against KV cache.
    max_loss_ratio : float, optional
        Pick the front's smallest cache within this ratio (>= 1) of the
        unconstrained optimum's error.
    **constraints : int
        head_dim_multiple, min_head_dim, max_head_dim, min_heads,
        max_heads.

    Returns
    -------
    Allocation or GroupedAllocation

    Raises
    ------
    InputError
        A value out of its domain.
    InfeasibleError
        No pair (or triple) meets the constraints.

    Examples
    --------
    >>> allocate(512, 1e8).head_dim
    8
    >>> a = allocate(4096, 1e12, kv_heads="auto", max_kv_dim=1024)
    >>> a.heads, a.kv_heads, a.head_dim, a.kv_cache_bytes_per_token
    (256, 64, 16, 4096)
    """
    kv = _KV(dict(kv_heads=kv_heads, max_kv_dim=max_kv_dim, min_kv_heads=min_kv_heads,
                  max_kv_heads=max_kv_heads, group_hdi=group_hdi, layers=layers,
                  kv_bytes=kv_bytes, model_dim=model_dim, pareto=pareto,
                  max_loss_ratio=max_loss_ratio))
    samples = _float("samples", samples)
    values = kv.model(_model_tuple(model))
    if kv.active:
        return GroupedAllocation(budget, samples, values, _cons(constraints), kv)
    return Allocation(budget, samples, values, _cons(constraints),
                      _ext.allocate(budget, samples, values, _cons(constraints)))


def pareto(budget: int, samples: float, model: ModelLike = None, kv_heads: KVHeads = "auto",
           max_loss_ratio: Optional[float] = None, **options: Any) -> Front:
    """The trade-off front of error against KV cache of one budget at n.

    Parameters
    ----------
    budget : int
        The key dimension budget D.
    samples : float
        The training samples n.
    model : Model, dict, Calibration or None
        The error model (None: the defaults).
    kv_heads : int or "auto"
        The key/value heads G, or "auto" (every divisor of H).
    max_loss_ratio : float, optional
        ``front.chosen`` is then the smallest cache within this ratio of
        the unconstrained optimum's error.
    **options
        The other keywords of :func:`allocate`.

    Returns
    -------
    Front
        The non-dominated (error, KV cache) triples (H, G, d) meeting every
        constraint, from the best error to the smallest cache, each with
        its loss_ratio; ``front.allocation`` is the GroupedAllocation.

    Raises
    ------
    InputError, InfeasibleError
        As :func:`allocate`.
    """
    return allocate(budget, samples, model, kv_heads=kv_heads, pareto=True,
                    max_loss_ratio=max_loss_ratio, **options).front


def sweep(budgets: Union[int, Sequence[int]], samples: Union[float, Sequence[float]],
          model: ModelLike = None, progress: Progress = None, *,
          kv_heads: KVHeads = None, max_kv_dim: Optional[int] = None,
          min_kv_heads: Optional[int] = None, max_kv_heads: Optional[int] = None,
          group_hdi: Optional[float] = None, layers: Optional[int] = None,
          kv_bytes: Optional[int] = None, model_dim: Optional[int] = None,
          pareto: bool = False, max_loss_ratio: Optional[float] = None,
          **constraints: int) -> Sweep:
    """Every (budget, n) solved, n outer, with the scaling-law fits.

    Sweeps of 2048 rows or more are solved on one thread per online
    processor (at most 8, the library's threads = 0), every row the same
    for any count.

    Parameters
    ----------
    budgets : int or sequence of int
        The budgets D, each once (their divisors at most 4194304 in all).
    samples : float or sequence of float
        The values of n (:func:`geomspace` spaces them on a log scale).
    model : Model, dict, Calibration or None
        The error model (None: the defaults).
    progress : None, bool or callable
        None: a tqdm bar when tqdm is installed, shown once the work has
        taken a second; False: none; or a callable(what, done, total)
        told of the rows solved (what is "rows"); raising in it stops the
        sweep with that exception, as Ctrl-C does.
    kv_heads, max_kv_dim, min_kv_heads, max_kv_heads, group_hdi, layers, kv_bytes, model_dim
        As :func:`allocate`: each row is then the grouped optimum over
        (H, G, d), with the columns kv_heads, kv_dim and
        kv_cache_bytes_per_token.
    pareto, max_loss_ratio
        Refused: the front needs a single budget and n.
    **constraints : int
        As :func:`allocate`.

    Returns
    -------
    Sweep
        The table's columns as NumPy arrays (``to_pandas()`` for a
        DataFrame) and ``fits``.

    Raises
    ------
    InputError, InfeasibleError
        As :func:`allocate`.
    """
    kv = _KV(dict(kv_heads=kv_heads, max_kv_dim=max_kv_dim, min_kv_heads=min_kv_heads,
                  max_kv_heads=max_kv_heads, group_hdi=group_hdi, layers=layers,
                  kv_bytes=kv_bytes, model_dim=model_dim, pareto=pareto,
                  max_loss_ratio=max_loss_ratio))
    if kv.pareto or kv.max_loss_ratio is not None:
        raise InputError("pareto and max_loss_ratio need a single budget and a single "
                         "value of samples (a sweep's rows are each point's optimum "
                         "under kv_heads or max_kv_dim)")
    callback = _progress_callback(progress)
    try:
        return Sweep(_seq(budgets), [_float("samples", s) for s in _seq(samples)],
                     kv.model(_model_tuple(model)), _cons(constraints), callback,
                     kv.values if kv.active else None)
    finally:
        close = getattr(callback, "close", None)
        if close:
            close()


def regimes(budget: Union[int, Sequence[int]], model: ModelLike = None,
            **constraints: Any) -> Regimes:
    """The exact regimes in n of a budget (or of each of several): every
    (heads, head_dim) that is ever optimal as n grows, and on which
    interval of n.

    Parameters
    ----------
    budget : int or sequence of int
        The budgets D, each once.
    model : Model, dict, Calibration or None
        The error model (None: the defaults).
    **constraints
        As :func:`allocate`, its KV keywords included but pareto and
        max_loss_ratio: the regimes are then over (H, G, d), with the
        columns kv_heads and kv_dim.

    Returns
    -------
    Regimes

    Raises
    ------
    InputError, InfeasibleError
        As :func:`allocate`.
    """
    kv, constraints = _split_kv(constraints)
    if kv.pareto or kv.max_loss_ratio is not None:
        raise InputError("regimes: %s: the front needs a single budget and n "
                         "(allocate or pareto)" % ("pareto=True" if kv.pareto else
                                                   "max_loss_ratio=%r" % kv.max_loss_ratio))
    return Regimes(_seq(budget), kv.model(_model_tuple(model)), _cons(constraints),
                   kv.values if kv.active else None)


def head_weights(covariance: Union[str, bytes, "_os.PathLike[str]", _np.ndarray,
                                   Sequence[Sequence[float]]]) -> HeadWeights:
    """Optimal head weights alpha = S^-1 1 / (1' S^-1 1) for the H x H
    covariance S of the heads' outputs.

    Parameters
    ----------
    covariance : path or array_like
        A square matrix, or the path of a covariance file.

    Returns
    -------
    HeadWeights

    Raises
    ------
    InputError
        Not a square matrix of finite numbers, or not a covariance.
    FileError
        The file cannot be read.
    """
    if isinstance(covariance, (str, bytes, _os.PathLike)):
        return HeadWeights(_ext.head_weights(_os.fsdecode(covariance)))
    try:
        matrix = _np.ascontiguousarray(covariance, dtype=_np.float64)
    except (TypeError, ValueError):
        raise InputError("covariance: expected a square 2-D array of numbers") from None
    return HeadWeights(_ext.head_weights(matrix))


# The command line's limit on a sweep's points (FROM:TO:POINTS).
_POINTS_MAX = 1000000


def geomspace(start: float, stop: float, num: int) -> _np.ndarray:
    """num values from start to stop spaced evenly on a log scale, both
    ends exact: the values of n a sweep is usually given (NumPy's
    ``geomspace``, computed as the library computes a sweep's values).

    Parameters
    ----------
    start, stop : float
        The ends, 0 < start < stop, finite.
    num : int
        How many values, from 2 to 1000000.

    Returns
    -------
    numpy.ndarray
        float64, increasing.

    Raises
    ------
    InputError
        The ends or the count out of their domain.

    Examples
    --------
    >>> geomspace(1e4, 1e12, 3)
    array([1.e+04, 1.e+08, 1.e+12])
    """
    a, b = _float("geomspace start", start), _float("geomspace stop", stop)
    n = _whole("geomspace num", num)
    if not (0 < a < b and _math.isfinite(b)) or not 2 <= n <= _POINTS_MAX:
        _bad_value("geomspace", (start, stop, num),
                   "(start, stop, num) with 0 < start < stop (finite) and 2 <= num <= %d"
                   % _POINTS_MAX)
    return _ext.sweep_values(a, b, n)


def logspace(start: float, stop: float, num: int = 50, base: float = 10.0) -> _np.ndarray:
    """base ** x for num values x from start to stop, evenly spaced: NumPy's
    ``logspace``, whose ends are exponents.  Values from a to b are
    ``geomspace(a, b, num)``.

    Parameters
    ----------
    start, stop : float
        The exponents of the ends.
    num : int
        How many values, from 2 to 1000000.
    base : float
        The base, > 0 and not 1.

    Returns
    -------
    numpy.ndarray
        float64.

    Raises
    ------
    InputError
        An end beyond a double (start and stop are exponents: a value such
        as 1e8 is a job for geomspace), or num or base out of its domain.

    Examples
    --------
    >>> logspace(4, 12, 3)
    array([1.e+04, 1.e+08, 1.e+12])
    """
    a, b = _float("logspace start", start), _float("logspace stop", stop)
    n = _whole("logspace num", num)
    g = _float("logspace base", base)
    if not 2 <= n <= _POINTS_MAX:
        _bad_value("logspace num", num, "a whole number from 2 to %d" % _POINTS_MAX)
    if not (g > 0 and g != 1 and _math.isfinite(g)):
        _bad_value("logspace base", base, "a finite number > 0 other than 1")
    for name, x in (("start", a), ("stop", b)):
        if not _math.isfinite(x) or abs(x * _math.log(g)) > 700:
            _bad_value("logspace " + name, x,
                       "an exponent of base (NumPy's logspace); %r ** %r is beyond a "
                       "double: for values from start to stop use geomspace" % (g, x))
    return _np.power(g, _np.linspace(a, b, n))


def __getattr__(name: str) -> Any:
    if name == "IOError":
        _warnings.warn("headalloc.IOError is now headalloc.FileError (it shadowed the "
                       "builtin)", DeprecationWarning, stacklevel=2)
        return FileError
    raise AttributeError("module 'headalloc' has no attribute %r" % name)


def _seq(x: Any) -> list:
    if isinstance(x, (str, bytes)):
        raise InputError("expected a number or a sequence of numbers, found %r" % (x,))
    try:
        return list(x)
    except TypeError:
        return [x]


def _float(name: str, x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        raise InputError("%s: expected a number, found %r" % (name, x)) from None


def _whole(name: str, x: Any) -> int:
    import operator
    try:
        v = operator.index(x)
    except TypeError:
        v = None
    if isinstance(x, bool) or v is None:
        _bad_value(name, x, "a whole number")
    return v
