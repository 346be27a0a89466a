"""headalloc — how many attention heads H and what head dimension d_k for
a key budget D = H·d_k and n training samples.

The error of multi-head attention seen as an ensemble of Nadaraya–Watson
estimators (headalloc-model(7)) is minimised exactly over the divisor
pairs of D, in log space.  This package is a thin layer over the C
library libheadalloc; every number is the library's, and every result's
``to_dict()`` has the keys of the CLI's ``--format yaml`` report.

Functions:

    allocate(budget, samples, model=None, **constraints) -> Allocation
    allocate(..., kv_heads=, max_kv_dim=, ...)           -> GroupedAllocation
    pareto(budget, samples, model=None, ...)             -> Front
    sweep(budgets, samples, model=None, **constraints)   -> Sweep
    regimes(budget, model=None, **constraints)           -> Regimes
    calibrate(runs, free=None, fix=None, target=None, ...) -> Calibration
    hdi(source, heads=None, tensor=None, layout=None)    -> HDI
    head_weights(covariance)                             -> HeadWeights
    logspace(start, stop, points)  the CLI's FROM:TO:POINTS sweep values

Classes: Model (the error model's parameters), the results above
(GroupedAllocation and its Front of GroupedCandidate entries for
grouped-query attention).
Constraints (keywords): head_dim_multiple, min_head_dim, max_head_dim,
min_heads, max_heads; grouped-query attention (allocate, pareto, sweep):
kv_heads (G or 'auto'), max_kv_dim, min_kv_heads, max_kv_heads,
group_hdi, layers, kv_bytes, model_dim, and pareto, max_loss_ratio.
Errors raise headalloc.Error subclasses (InputError, InfeasibleError,
IOError, NumericError, UnsupportedError)
with the file, line and column at fault; cautions are HeadallocWarning.

Example::

    >>> import headalloc
    >>> a = headalloc.allocate(512, 1e8)
    >>> a.heads, a.head_dim
    (64, 8)
"""

import os as _os

if _os.environ.get("HEADALLOC_EXTENSION_DIR"):
    # The test suite runs against a build tree: the extension is there.
    __path__.append(_os.environ["HEADALLOC_EXTENSION_DIR"])

from ._errors import (Error, HeadallocWarning, InfeasibleError, InputError,  # noqa: E402
                      IOError, NumericError, UnsupportedError)
from . import _headalloc as _ext  # noqa: E402
from ._model import Model, model_tuple as _model_tuple, constraints_tuple as _cons  # noqa: E402
from ._results import (Allocation, Candidate, HDI, HeadWeights, Layer,  # noqa: E402
                       Regimes, Sweep)
from ._grouped import (Front, GroupedAllocation, GroupedCandidate,  # noqa: E402
                       KV as _KV, split_options as _split_kv)
from ._calibrate import Calibration, calibrate  # noqa: E402
from ._plan import Plan, plan  # noqa: E402
from ._hdi import hdi  # noqa: E402
from ._progress import progress_callback as _progress_callback  # noqa: E402

__version__ = _ext.version

__all__ = ["allocate", "pareto", "sweep", "regimes", "calibrate", "plan", "Plan", "hdi", "head_weights",
           "logspace", "Model", "Allocation", "Candidate", "GroupedAllocation",
           "GroupedCandidate", "Front", "Sweep", "Regimes",
           "Calibration", "HDI", "Layer", "HeadWeights", "Error", "InputError",
           "InfeasibleError", "IOError", "NumericError", "UnsupportedError",
           "HeadallocWarning"]


def allocate(budget, samples, model=None, *, kv_heads=None, max_kv_dim=None,
             min_kv_heads=None, max_kv_heads=None, group_hdi=None, layers=None,
             kv_bytes=None, model_dim=None, pareto=False, max_loss_ratio=None,
             **constraints):
    """The optimal (heads, head_dim) of budget D = heads * head_dim at n =
    samples (``headalloc --budget D --samples n``).

    model: a Model (None: the defaults of headalloc-model(7)); keyword
    constraints: head_dim_multiple, min_head_dim, max_head_dim, min_heads,
    max_heads.  Raises InfeasibleError when no pair meets them.

    Grouped-query attention (``--kv-heads``, headalloc-model(7)): any of
    kv_heads (a whole number G dividing H, or 'auto': G among the
    divisors of H), max_kv_dim (G d <= K), min_kv_heads, max_kv_heads,
    pareto=True (the trade-off front) or max_loss_ratio=R (the front's
    smallest KV cache within R of the unconstrained optimum's error)
    solves over (H, G, d) and returns a GroupedAllocation instead; with
    them group_hdi (the model's, in [0, 1]), layers and kv_bytes (the
    cache in bytes: 2 G d layers kv_bytes a token, defaults 1 and 2) and
    model_dim (the attention's parameters).

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


def pareto(budget, samples, model=None, kv_heads="auto", max_loss_ratio=None, **options):
    """The trade-off front of error against KV cache of one budget at n =
    samples (``headalloc --budget D --samples n --kv-heads auto
    --pareto``): a Front, the non-dominated (error, KV cache) triples (H,
    G, d) meeting every constraint, from the best error to the smallest
    cache, each with its loss_ratio to the unconstrained optimum;
    ``front.chosen`` is the smallest cache within max_loss_ratio (when
    given), ``front.allocation`` the whole GroupedAllocation.  The other
    keywords are allocate()'s."""
    return allocate(budget, samples, model, kv_heads=kv_heads, pareto=True,
                    max_loss_ratio=max_loss_ratio, **options).front


def sweep(budgets, samples, model=None, progress=None, *, kv_heads=None, max_kv_dim=None,
          min_kv_heads=None, max_kv_heads=None, group_hdi=None, layers=None,
          kv_bytes=None, model_dim=None, pareto=False, max_loss_ratio=None,
          **constraints):
    """Every (budget, n) solved, n outer, and the scaling-law fits
    (``headalloc --budget B1,B2 --samples ...``).

    budgets: an int or a sequence; samples: a number or a sequence (see
    logspace() for the CLI's FROM:TO:POINTS).  progress: None (a tqdm bar
    when tqdm is installed, shown once the work has taken a second), False
    (none), or a callable(what, done, total) told of the rows solved (what
    is "rows"); raising in it stops the sweep with that exception, as
    Ctrl-C does.  Returns a Sweep: the table's columns as NumPy arrays and
    ``fits``.  Sweeps of 2048 rows or more are solved on one thread per
    online processor (at most 8, the library's threads = 0, as the CLI's
    --threads auto), every row the same for any count.

    The keywords of allocate() apply to every row: with kv_heads,
    max_kv_dim, min_kv_heads or max_kv_heads each row is the grouped
    optimum over (H, G, d) of its (n, D), with the columns kv_heads,
    kv_dim and kv_cache_bytes_per_token (the CLI's grouped sweep);
    pareto and max_loss_ratio need a single point (allocate()).
    """
    kv = _KV(dict(kv_heads=kv_heads, max_kv_dim=max_kv_dim, min_kv_heads=min_kv_heads,
                  max_kv_heads=max_kv_heads, group_hdi=group_hdi, layers=layers,
                  kv_bytes=kv_bytes, model_dim=model_dim, pareto=pareto,
                  max_loss_ratio=max_loss_ratio))
    if kv.pareto or kv.max_loss_ratio is not None:
        raise InputError("%s: a sweep's rows are each point's optimum under kv_heads "
                         "or max_kv_dim; the front needs a single budget and n "
                         "(allocate or pareto)" % ("pareto=True" if kv.pareto else
                                                   "max_loss_ratio=%r" % kv.max_loss_ratio))
    callback = _progress_callback(progress)
    try:
        return Sweep(_seq(budgets), [_float("samples", s) for s in _seq(samples)],
                     kv.model(_model_tuple(model)), _cons(constraints), callback,
                     kv.values if kv.active else None)
    finally:
        close = getattr(callback, "close", None)
        if close:
            close()


def regimes(budget, model=None, **constraints):
    """The exact regimes in n of a budget (or of each of a sequence of
    budgets): every (heads, head_dim) that is ever optimal as n grows, and
    on which interval of n (``headalloc --budget D --regimes``).

    The KV keywords of allocate() but pareto and max_loss_ratio (kv_heads,
    max_kv_dim, min_kv_heads, max_kv_heads, group_hdi, layers, kv_bytes,
    model_dim) give the regimes over (H, G, d) under those constraints,
    with the columns kv_heads and kv_dim (``--regimes --kv-heads ...``)."""
    kv, constraints = _split_kv(constraints)
    if kv.pareto or kv.max_loss_ratio is not None:
        raise InputError("regimes: %s: the front needs a single budget and n "
                         "(allocate or pareto)" % ("pareto=True" if kv.pareto else
                                                   "max_loss_ratio=%r" % kv.max_loss_ratio))
    return Regimes(_seq(budget), kv.model(_model_tuple(model)), _cons(constraints),
                   kv.values if kv.active else None)


def head_weights(covariance):
    """Optimal head weights α = Σ⁻¹1 / (1ᵀΣ⁻¹1) for the H x H covariance Σ
    of the heads' outputs (``headalloc weights``): a square array, or the
    path of a covariance file."""
    import numpy as np
    if isinstance(covariance, (str, bytes, _os.PathLike)):
        return HeadWeights(_ext.head_weights(_os.fsdecode(covariance)))
    return HeadWeights(_ext.head_weights(np.ascontiguousarray(covariance, dtype=np.float64)))


def logspace(start, stop, points):
    """points log-spaced values from start to stop, both ends exact: the
    values of the CLI's ``--samples FROM:TO:POINTS``."""
    return _ext.sweep_values(float(start), float(stop), int(points))


def _seq(x):
    if isinstance(x, (str, bytes)):
        raise InputError("expected a number or a sequence of numbers, found %r" % (x,))
    try:
        return list(x)
    except TypeError:
        return [x]


def _float(name, x):
    try:
        return float(x)
    except (TypeError, ValueError):
        raise InputError("%s: expected a number, found %r" % (name, x)) from None
