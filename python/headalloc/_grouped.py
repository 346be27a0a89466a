"""Grouped-query attention (headalloc-model(7), GROUPED-QUERY ATTENTION):
H query heads in G key/value groups, the allocation over (H, G, d), its
KV cache and the trade-off front of error against cache."""

from __future__ import annotations

import collections
import math
import operator
from typing import TYPE_CHECKING, Any, Dict, Optional

if TYPE_CHECKING:
    import pandas
    from ._model import Model

from . import _ext
from ._errors import InputError, UnsupportedError, bad_value
from ._results import Terms, _Erred, _Result, _exp

__all__ = ["GroupedAllocation", "GroupedCandidate", "Front"]

# The keyword options, the CLI's --kv-heads ... --max-loss-ratio.
KV_BOUNDS = ("max_kv_dim", "min_kv_heads", "max_kv_heads")
KV_SHAPE = ("layers", "kv_bytes", "model_dim")
KV_OPTIONS = ("kv_heads",) + KV_BOUNDS + ("group_hdi",) + KV_SHAPE + (
    "pareto", "max_loss_ratio")
_BUDGET_MAX = 9223372036854775807  # HA_BUDGET_MAX

GroupedRelaxed = collections.namedtuple("GroupedRelaxed",
                                        "head_dim kv_heads heads kv_dim log_mse mse")
GroupedRelaxed.__doc__ = """The continuous relaxation over real (d, G):
head_dim x*, kv_heads G*, heads D/x*, kv_dim G* x*, the natural log of
its error log_mse and mse = exp(log_mse) (inf beyond a double)."""
GroupedCertificate = collections.namedtuple(
    "GroupedCertificate", "method divisors head_dims candidates feasible bound")
GroupedCertificate.__doc__ = """How the grouped optimum is known: method
"exhaustive" (every divisor triple (H, G, d) evaluated), the divisors of
D, the feasible head dimensions, the candidate triples evaluated, those
meeting the KV constraints, and the bound prod (e_i + 1)(e_i + 2)/2 on
the triples of D = prod p_i^e_i."""


class KV:
    """The KV options of a call, parsed and checked (each argument alone,
    then together, with messages naming the arguments and values)."""

    __slots__ = ("active", "values", "group_hdi", "pareto", "max_loss_ratio",
                 "given")

    def __init__(self, options):
        self.given = {k: v for k, v in options.items() if v is not None and v is not False}
        kv_heads = options.get("kv_heads")
        if kv_heads is None or kv_heads == "auto":
            g = 0
        elif isinstance(kv_heads, str):
            bad_value("kv_heads", kv_heads, "auto or " + _WHOLE)
        else:
            g = _count("kv_heads", kv_heads, "auto or " + _WHOLE)
        counts = {name: _count(name, options.get(name)) for name in KV_BOUNDS + KV_SHAPE}
        self.group_hdi = options.get("group_hdi")
        if self.group_hdi is not None:
            try:
                x = float(self.group_hdi)
            except (TypeError, ValueError):
                x = math.nan
            expected, inside = _ext.model_param_domain("group_hdi", x)
            if isinstance(self.group_hdi, bool) or not inside:
                bad_value("group_hdi", self.group_hdi, expected)
            self.group_hdi = x + 0.0  # -0 reads as 0
        self.pareto = options.get("pareto", False)
        if not isinstance(self.pareto, bool):
            raise InputError("pareto: expected True or False, found %r" % (self.pareto,))
        ratio = options.get("max_loss_ratio")
        if ratio is not None:
            try:
                r = float(ratio)
            except (TypeError, ValueError):
                r = math.nan
            if isinstance(ratio, bool) or not (r >= 1.0 and math.isfinite(r)):
                bad_value("max_loss_ratio", ratio, "a finite number >= 1")
            ratio = r
        self.max_loss_ratio = ratio
        self.active = (options.get("kv_heads") is not None or self.pareto or
                       ratio is not None or any(counts[k] for k in KV_BOUNDS))
        companions = [k for k in ("group_hdi",) + KV_SHAPE if options.get(k) is not None]
        if companions and not self.active:
            raise InputError("group_hdi, layers, kv_bytes and model_dim go with kv_heads, "
                             "max_kv_dim, min_kv_heads, max_kv_heads, pareto or "
                             "max_loss_ratio")
        lo, hi = counts["min_kv_heads"], counts["max_kv_heads"]
        if lo and hi and lo > hi:
            raise InputError("min_kv_heads %d is larger than max_kv_heads %d" % (lo, hi))
        if g and lo and g < lo:
            raise InputError("kv_heads %d is below min_kv_heads %d" % (g, lo))
        if g and hi and g > hi:
            raise InputError("kv_heads %d is above max_kv_heads %d" % (g, hi))
        self.values = (g,) + tuple(counts[k] for k in KV_BOUNDS + KV_SHAPE)

    def model(self, values):
        """The model tuple with group_hdi set when it was given."""
        if self.group_hdi is None:
            return values
        return tuple(values[:12]) + (self.group_hdi,)


def split_options(kwargs):
    """(KV options, the other keywords: the constraints on (H, d))."""
    kv = {k: kwargs.pop(k) for k in list(kwargs) if k in KV_OPTIONS}
    return KV(kv), kwargs


_WHOLE = "a whole number from 1 to %d" % _BUDGET_MAX


def _count(name, value, expected=_WHOLE):
    if value is None:
        return 0
    try:
        v = operator.index(value)
    except TypeError:
        v = None
    if isinstance(value, bool) or v is None or not 1 <= v <= _BUDGET_MAX:
        bad_value(name, value, expected)
    return v


class GroupedCandidate(_Erred):
    """One triple (H, G, d) of a budget: heads, kv_heads (G), group_size
    (H/G query heads a key/value head), head_dim, kv_dim (G d),
    kv_cache_bytes_per_token (2 G d layers kv_bytes), attention_params
    (2 model_dim (D + G d), None without model_dim), loss_ratio (its
    error over the unconstrained optimum's), mse, log_mse and terms."""

    __slots__ = ("heads", "kv_heads", "group_size", "head_dim", "kv_dim",
                 "kv_cache_bytes_per_token", "attention_params", "loss_ratio", "terms")

    def __init__(self, raw, with_params):
        (self.heads, self.kv_heads, self.group_size, self.head_dim, self.kv_dim,
         self.kv_cache_bytes_per_token, params, self.loss_ratio, terms) = raw
        self.attention_params = params if with_params else None
        self.terms = Terms(*terms)

    def __repr__(self) -> str:
        return ("%s(heads=%d, kv_heads=%d, head_dim=%d, kv_cache_bytes_per_token=%d, "
                "mse=%r, loss_ratio=%r)" % (
                    type(self).__name__, self.heads, self.kv_heads, self.head_dim,
                    self.kv_cache_bytes_per_token, self.mse, self.loss_ratio))


class GroupedAllocation(GroupedCandidate, _Result):
    """The optimal grouped-query allocation of one budget at one n: the
    optimum's
    fields (those of GroupedCandidate) under every constraint;
    ``unconstrained``, the optimum without the KV constraints (every
    loss_ratio's reference); ``relaxed`` (GroupedRelaxed), the
    ``certificate`` (GroupedCertificate); ``front`` (a Front, with
    pareto=True, else None); ``chosen``, the front's smallest cache within
    ``max_loss_ratio`` (or None without it).  ``to_dict()`` is the CLI's
    YAML report; ``plot(path)`` draws the front (pareto=True)."""

    __slots__ = ("budget", "samples", "unconstrained", "relaxed", "certificate",
                 "chosen", "max_loss_ratio", "kv", "_capsule", "_model",
                 "_constraints", "_front")

    def __init__(self, budget, samples, model, constraints, kv):
        self._capsule = _ext.grouped(budget, samples, model, constraints, kv.values,
                                     kv.pareto, kv.max_loss_ratio or 0.0)
        optimum, unconstrained, relaxed, certificate, front, chosen = \
            _ext.grouped_values(self._capsule)
        with_params = kv.values[6] != 0
        super().__init__(optimum, with_params)
        self.budget = int(budget)
        self.samples = float(samples)
        self._model = model
        self._constraints = constraints
        self.kv = dict(kv.given)
        self.unconstrained = GroupedCandidate(unconstrained, with_params)
        self.relaxed = GroupedRelaxed(*relaxed, _exp(relaxed[4]))
        self.certificate = GroupedCertificate(*certificate)
        self.max_loss_ratio = kv.max_loss_ratio
        self._front = None
        if front is not None:
            self._front = [GroupedCandidate(r, with_params) for r in front]
        self.chosen = None if chosen is None else self._front[chosen]

    @property
    def front(self) -> Optional["Front"]:
        """The trade-off front (a Front), or None unless asked for
        (pareto=True or max_loss_ratio).  A new Front a call, over the
        same entries: the Front refers to this allocation, which keeps
        only the entries (no reference cycle)."""
        if self._front is None:
            return None
        front = Front(self._front, self)
        front.chosen = self.chosen
        return front

    @property
    def model(self) -> "Model":
        """The model solved (a headalloc.Model, group_hdi included)."""
        from ._model import Model
        return Model._from_tuple(self._model)

    @property
    def constraints(self) -> Dict[str, int]:
        """The constraints on (H, d) in force, as keyword arguments."""
        from ._model import _CONSTRAINTS
        return {k: v for k, v in zip(_CONSTRAINTS, self._constraints) if v}

    def candidates(self) -> list:
        """Not for the grouped allocation: its candidates are the front
        (pareto=True).

        Raises
        ------
        UnsupportedError
            Always.
        """
        raise UnsupportedError("candidates(): the grouped allocation lists its "
                               "trade-off front instead (allocate(..., pareto=True))")

    def _report(self):
        return _ext.report_grouped(self._capsule)

    def _picture(self, name):
        if self._front is None:
            raise InputError("plot: the grouped allocation's picture is its trade-off "
                             "front: allocate(..., pareto=True)")
        return _ext.plot_grouped(name, self._capsule)

    def _repr_png_(self):
        return None if self._front is None else super()._repr_png_()

    def __repr__(self) -> str:
        return ("GroupedAllocation(budget=%d, samples=%g: heads=%d, kv_heads=%d, "
                "head_dim=%d, kv_cache_bytes_per_token=%d, mse=%r%s)" % (
                    self.budget, self.samples, self.heads, self.kv_heads, self.head_dim,
                    self.kv_cache_bytes_per_token, self.mse,
                    "" if self._front is None else ", front of %d" % len(self._front)))


class Front(list):
    """The trade-off front of a grouped allocation: its non-dominated
    (error, KV cache) triples as GroupedCandidate objects, from the best
    error to the smallest cache.  ``allocation`` is the
    GroupedAllocation it belongs to, ``chosen`` the entry within
    max_loss_ratio (or None); ``to_pandas()`` gives the report's columns;
    ``plot(path)`` and a notebook draw the front's picture."""

    def __init__(self, items, allocation):
        super().__init__(items)
        self.allocation = allocation
        self.chosen = None

    def to_dict(self) -> list:  # type: ignore[override]
        """The front as the report writes it.

        Returns
        -------
        list of dict
        """
        return self.allocation.to_dict()["front"]

    def to_pandas(self) -> "pandas.DataFrame":
        """The front as a DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row an entry, the report's keys as columns.

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        import pandas
        return pandas.DataFrame(self.to_dict())

    def plot(self, path: Any) -> None:
        """Draw the front into a file, as :meth:`GroupedAllocation.plot`.

        Parameters
        ----------
        path : path-like
            Ending in .png, .svg or .pdf.

        Raises
        ------
        InputError, FileError
            As :meth:`GroupedAllocation.plot`.
        """
        self.allocation.plot(path)

    def _repr_png_(self) -> Any:
        return self.allocation._repr_png_()

    def __repr__(self) -> str:
        return "Front(%s)" % list.__repr__(self)
