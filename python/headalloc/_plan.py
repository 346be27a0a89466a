"""headalloc.plan: which run to train next to decide the allocation."""

import math
import os
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Union

if TYPE_CHECKING:
    import pandas

import numpy as np

from . import _ext
from ._calibrate import RunsLike, _fixed, _free_flags, _runs_input
from ._errors import InputError, bad_value
from ._model import constraints_tuple
from ._progress import Progress, progress_callback
from ._results import _Result

_COSTS = ("params-tokens", "tokens")
_POOL_FIELDS = ("heads", "head_dim", "kv_heads", "samples", "cost")


class Plan(_Result):
    """A plan: the decision at the target and the runs to train next.

    Attributes
    ----------
    decision : dict
        ``heads``, ``head_dim``, ``kv_heads``, ``p_correct`` (the
        posterior probability that it is the optimum) and
        ``expected_regret``, and ``extrapolated`` (its head_dim lies
        outside ``measured_head_dims``); or ``{"undefined": reason}`` for
        an initial design.
    measured_head_dims : tuple of int or None
        The runs' smallest and largest head_dim (None without runs).  A
        decision, pick or candidate outside them is ``extrapolated``: its
        value rests on the laws' extrapolation in d.
    picks : list of dict
        The runs to train, in order: the run, its ``cost``, ``value``
        (the expected rise of ``p_correct``), ``value_per_cost``,
        ``p_correct_before``, ``p_correct_after``, ``extrapolated`` and, for an initial
        design, its ``reason``.
    candidates : list of dict
        Every candidate of the pool, valued alone.
    stop : bool
        No candidate is worth more than ``stop_below``: train the target.
    method : dict
        The posterior (laws and weights, samples), the simulation
        (outcomes, sigma, degenerate outcomes) and the seed.
    """

    def __init__(self, capsule):
        self._capsule = capsule
        d = _ext.plan_dict(capsule)
        self._dict = d
        self.budget = d["budget"]
        self.samples = d["samples"]
        self.initial = d["initial"]
        self.decision = d["decision"]
        self.measured_head_dims = d["measured_head_dims"]
        self.picks = d["plan"]
        self.candidates = d["candidates"]
        self.stop = d["stop"]
        self.method = d["method"]

    def to_dict(self) -> Dict[str, Any]:
        """The plan as Python objects, read from the library's result: the
        keys of the command's YAML report (``plan`` is the picks) and
        ``candidates``."""
        return self._dict

    def to_pandas(self, which: str = "plan") -> "pandas.DataFrame":
        """The picks or every candidate as a pandas DataFrame.

        Parameters
        ----------
        which : {"plan", "candidates"}
            The picks, in order, or every candidate of the pool.
        """
        import pandas as pd
        if which not in ("plan", "candidates"):
            raise InputError("which: expected 'plan' or 'candidates', found %r" % (which,))
        return pd.DataFrame(self._dict[which])

    def _picture(self, name):
        return _ext.plot_plan(name, self._capsule)

    def __repr__(self) -> str:
        d = self.decision
        if "undefined" in d:
            head = "initial design of %d runs" % len(self.picks)
        else:
            head = "decision %d x %d (p %.3f)" % (d["heads"], d["head_dim"], d["p_correct"])
        return "Plan(D=%d, n=%g: %s, %d picks%s)" % (
            self.budget, self.samples, head, len(self.picks), ", stop" if self.stop else "")


# The most picks of a plan (HA_PLAN_PICKS_MAX).
_PICKS_MAX = 1000


def _ranged(value, low, high):
    """A whole number from low to high (not a bool)."""
    return (not isinstance(value, bool) and isinstance(value, (int, np.integer))
            and low <= value <= high)


def _real_in(value, inside):
    """A real number (not a bool) for which inside holds."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return not isinstance(value, bool) and bool(inside(v))


def _whole(name, value, low=0):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InputError("%s: expected a whole number >= %d, found %r" % (name, low, value))
    return int(value)


def _pool_input(pool):
    """None, a path, or the five columns of a pool (a DataFrame, a dict of
    columns or a list of dicts: heads, head_dim, samples, optional
    kv_heads and cost; no loss)."""
    if pool is None:
        return None
    if isinstance(pool, (str, bytes, os.PathLike)):
        return os.fsdecode(pool)
    if hasattr(pool, "to_dict") and hasattr(pool, "columns"):
        table = {c: pool[c].to_numpy() for c in pool.columns}
    elif isinstance(pool, dict):
        table = dict(pool)
    else:
        rows = list(pool)
        keys = set().union(*(r.keys() for r in rows)) if rows else set()
        table = {k: [r.get(k, math.nan) for r in rows] for k in keys}
    if "loss" in table:
        raise InputError("pool: a candidate has no loss yet (found a loss column)")
    unknown = set(table) - set(_POOL_FIELDS)
    if unknown:
        raise InputError("pool: unknown column %r" % sorted(unknown)[0])
    for need in ("heads", "head_dim", "samples"):
        if need not in table:
            raise InputError("pool: missing column %r" % need)
    n = len(table["heads"])
    out = []
    for f in _POOL_FIELDS:
        integer = f in ("heads", "head_dim", "kv_heads")
        col = table.get(f)
        if col is None:
            col = np.zeros(n, np.uint64) if integer else np.full(n, math.nan)
        arr = np.asarray(col, dtype=np.float64)
        if arr.shape != (n,):
            raise InputError("pool: column %r has %d values, expected %d" % (f, arr.size, n))
        if integer:
            bad = ~(np.isfinite(arr) & (arr >= (0 if f == "kv_heads" else 1)) & (arr == np.floor(arr)))
            if f == "kv_heads":
                bad &= ~np.isnan(arr)
                arr = np.where(np.isnan(arr), 0, arr)
            if bad.any():
                raise InputError("pool: row %d, %s: expected a whole number >= 1, found %r"
                                 % (int(np.argmax(bad)) + 1, f, col[int(np.argmax(bad))]))
            arr = arr.astype(np.uint64)
        out.append(np.ascontiguousarray(arr))
    return tuple(out)


def plan(runs: Optional[RunsLike] = None, budget: Optional[int] = None,
         samples: Optional[float] = None, *, pool: Optional[RunsLike] = None,
         pool_samples: Optional[Sequence[float]] = None, cost: str = "params-tokens",
         model_dim: int = 0, next: int = 1, spend: float = 0.0, stop_below: float = 0.01,
         outcomes: int = 256, resamples: int = 50, kv_heads: Union[int, str, None] = None,
         free: Union[str, Sequence[str], None] = None,
         fix: Optional[Mapping[str, float]] = None, huber_delta: float = math.inf,
         seed: int = 1, threads: int = 0, columns: Optional[Mapping[str, str]] = None,
         progress: Progress = None, **constraints: int) -> "Plan":
    """Which run to train next to decide the allocation at a target.

    Parameters
    ----------
    runs : str, path, DataFrame, dict of columns, list of dicts or None
        The runs trained so far (heads, head_dim or model_dim, samples,
        loss, and optionally loss_se and kv_heads), read and refused as for
        :func:`calibrate` (in memory: by a CSV file's rules and words);
        None (or too few to fit) asks for an initial design.
    budget, samples : int, float
        The target: the key dimension D and the training-set size n to
        decide at.
    pool : str, path, DataFrame, dict, list of dicts or None
        The runs you could train (no loss; an optional cost column); None
        builds it from every allocation of D at each of ``pool_samples``.
    pool_samples : sequence of float or None
        The n of the built pool (default: 4 log-spaced from N/1000 to N/10).
    cost : {"params-tokens", "tokens"}
        A candidate's cost: 6 P n (P the attention's parameters for
        ``model_dim``, else D) or n.
    model_dim : int
        The model width for the params-tokens cost (0: none).
    next : int
        How many runs to pick (greedily, each conditioned on simulated
        outcomes of the ones before); 0 with ``spend=0``: the decision alone.
    spend : float
        Pick while the batch's cost stays within it (0: no budget).
    stop_below : float
        The stop rule's threshold on a run's value, in (0, 1).
    outcomes, resamples : int
        Simulated outcomes a candidate; posterior refits a law.
    kv_heads : int, "auto" or None
        Key/value heads of the allocations: None (G = H), a number, or
        "auto" (every divisor of H).
    free, fix, huber_delta, seed, threads, columns
        As for :func:`calibrate`.
    progress : None, False or callable
        As for :func:`calibrate`; told of the candidates valued.
    **constraints
        The allocator's constraints on the target's allocations.

    Returns
    -------
    Plan

    Raises
    ------
    InputError
        A bad value, a pool with losses, an empty pool, a cost <= 0.
    InfeasibleError
        No allocation of the budget meets the constraints.
    """
    if budget is None or samples is None:
        raise InputError("budget and samples: the target is required")
    cols = None if runs is None else _runs_input(runs, columns)
    if cost not in _COSTS:
        bad_value("cost", cost, "tokens or params-tokens")
    if pool is not None and pool_samples is not None:
        raise InputError("pool and pool_samples are two pools: give one")
    if not _ranged(next, 0, _PICKS_MAX):
        bad_value("next", next, "a whole number from 0 to %d" % _PICKS_MAX)
    if not _ranged(outcomes, 2, 1000000):
        bad_value("outcomes", outcomes, "a whole number from 2 to 1000000")
    if not _real_in(spend, lambda v: v >= 0 and math.isfinite(v)):
        bad_value("spend", spend, "a finite number > 0")  # 0: the default, none
    if not _real_in(stop_below, lambda v: 0 < v < 1):
        bad_value("stop_below", stop_below, "a probability strictly between 0 and 1")
    if kv_heads is None:
        kv = 0
    elif kv_heads == "auto":
        kv = -1
    else:
        kv = _whole("kv_heads", kv_heads, 1)
    if pool_samples is not None:
        for v in pool_samples:
            if not _real_in(v, lambda x: 1 < x <= 1e300):
                bad_value("pool_samples", v, "a number n with 1 < n <= 1e300")
        pool_samples = [float(v) for v in pool_samples]
    callback = progress_callback(progress)
    try:
        capsule = _ext.plan(cols, _free_flags(free, fix), _fixed(fix), budget, float(samples),
                            constraints_tuple(constraints), float(huber_delta),
                            _whole("resamples", resamples), _whole("seed", seed),
                            _whole("threads", threads), kv, _pool_input(pool), pool_samples,
                            _COSTS.index(cost), _whole("model_dim", model_dim),
                            _whole("next", next), float(spend), float(stop_below),
                            _whole("outcomes", outcomes), callback)
    finally:
        close = getattr(callback, "close", None)
        if close:
            close()
    return Plan(capsule)
