"""The results of headalloc: allocations, sweeps, regimes, HDIs and head
weights.  Each keeps the library's result it was made from, and reads
it: ``to_dict()`` (the report's keys and structure, built by the
library's report from that result, with no text in between),
``plot(path)`` (the command line's picture of it) and ``_repr_png_()``
(so that a notebook shows that picture); none solves again."""

from __future__ import annotations

import collections
import math
import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, KeysView, List, Optional, Union

if TYPE_CHECKING:
    import pandas
    from ._model import Model

import numpy as np

from . import _ext
from ._errors import HeadallocWarning

__all__ = ["Allocation", "Candidate", "Sweep", "Regimes", "HDI", "Layer",
           "HeadWeights"]

Relaxed = collections.namedtuple("Relaxed", "head_dim heads log_mse mse")
Relaxed.__doc__ = """The continuous relaxation: the real head_dim x* and
heads D/x* that minimise the relaxed error, its natural log log_mse and
mse = exp(log_mse) (inf beyond a double)."""
Certificate = collections.namedtuple("Certificate", "method divisors feasible evaluated")
Certificate.__doc__ = """How the optimum is known to be optimal: method
"bracket" (the relaxed objective is unimodal, so a discrete local minimum
is global) or "exhaustive"; the divisors of the budget, the feasible ones
and the model evaluations spent."""
Terms = collections.namedtuple(
    "Terms", "log_bias2 log_variance log_covariance log_mse bias2 variance "
             "covariance mse irreducible log_reducible reducible")
Terms.__doc__ = """The error's additive parts (struct ha_terms): natural
logs (-inf for an exact zero) and plain values (inf beyond a double)."""


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


class _Result:
    """What every result shares: the report, the picture."""

    _plot_fn = None

    def to_dict(self) -> Dict[str, Any]:
        """The report of this result as Python objects.

        Returns
        -------
        dict
            The keys and structure of the command line's YAML report;
            ``.inf`` is ``float('inf')``.
        """
        return self._report()

    def plot(self, path: Union[str, bytes, "os.PathLike[str]"]) -> None:
        """Draw the picture of this result into a file.

        The file is written as the command line writes its pictures: the
        whole picture is drawn first, then written to a temporary file
        beside the target that replaces it only once complete (no failure
        leaves it behind); a symbolic link is followed and kept, a device
        or FIFO written in place, the replaced file's mode kept.

        Parameters
        ----------
        path : path-like
            Ending in .png, .svg or .pdf (the format).

        Raises
        ------
        InputError
            Another extension; or path has other hard links, which would
            keep the old picture.
        FileError
            Writing failed (a full disk, no such directory), or path is
            read-only or another user's: the file is left as it was.
        UnsupportedError
            This build draws no pictures.
        """
        name = os.fsdecode(path)
        _ext.write_file(name, self._picture(name), "plot")

    def _repr_png_(self) -> Optional[bytes]:
        """The picture as PNG bytes, for a notebook (None in a build
        without pictures)."""
        if not _ext.plot_available:
            return None
        return self._picture("picture.png")


class _Erred:
    """The error of a result that holds its terms (Candidate,
    GroupedCandidate)."""

    __slots__ = ()

    @property
    def mse(self) -> float:
        """The error (inf when beyond a double: see log_mse)."""
        return self.terms.mse

    @property
    def log_mse(self) -> float:
        """The natural log of the error, always finite."""
        return self.terms.log_mse


class Candidate(_Erred):
    """One divisor pair of a budget with its error.

    Attributes
    ----------
    heads, head_dim : int
    mse : float
        The error (inf beyond a double).
    log_mse : float
        Its natural log, always finite.
    terms : Terms
        The error's additive parts.
    """

    __slots__ = ("heads", "head_dim", "terms")

    def __init__(self, heads, head_dim, terms):
        self.heads = heads
        self.head_dim = head_dim
        self.terms = Terms(*terms)

    def __repr__(self) -> str:
        return "%s(heads=%d, head_dim=%d, mse=%r)" % (
            type(self).__name__, self.heads, self.head_dim, self.mse)


class Allocation(Candidate, _Result):
    """The optimal allocation of one budget at one n.

    Attributes
    ----------
    heads, head_dim : int
        The optimum.
    mse, log_mse : float
        Its error and the error's natural log.
    terms : Terms
    relaxed : Relaxed
        The continuous relaxation.
    certificate : Certificate
        How the optimum is known to be optimal.
    budget : int
    samples : float
    model : Model
    constraints : dict
    """

    __slots__ = ("budget", "samples", "relaxed", "certificate", "_model",
                 "_constraints", "_capsule")

    def __init__(self, budget, samples, model, constraints, raw):
        heads, head_dim, terms, relaxed, certificate, self._capsule = raw
        super().__init__(heads, head_dim, terms)
        self.budget = int(budget)
        self.samples = float(samples)
        self.relaxed = Relaxed(relaxed[0], relaxed[1], relaxed[2], _exp(relaxed[2]))
        self.certificate = Certificate(*certificate)
        self._model = model
        self._constraints = constraints

    @property
    def model(self) -> "Model":
        """The model solved (a headalloc.Model)."""
        from ._model import Model
        return Model._from_tuple(self._model)

    @property
    def constraints(self) -> Dict[str, int]:
        """The constraints in force, as keyword arguments."""
        from ._model import _CONSTRAINTS
        return {k: v for k, v in zip(_CONSTRAINTS, self._constraints) if v}

    def candidates(self) -> List[Candidate]:
        """Every feasible (heads, head_dim) of the budget, best first.

        Returns
        -------
        list of Candidate
        """
        return [Candidate(*row) for row in _ext.candidates(self._capsule)]

    def _report(self):
        return _ext.report_allocation(self._capsule)

    def _picture(self, name):
        return _ext.plot_allocation(name, self._capsule)

    def __repr__(self) -> str:
        return ("Allocation(budget=%d, samples=%g: heads=%d, head_dim=%d, mse=%r)"
                % (self.budget, self.samples, self.heads, self.head_dim, self.mse))


class _Columns(_Result):
    """Columns of a table as NumPy arrays, by the report's names."""

    def __init__(self, rows):
        self.columns = {}
        if rows:
            for key in rows[0]:
                self.columns[key] = np.array([r[key] for r in rows])

    def __getitem__(self, name):
        return self.columns[name]

    def __getattr__(self, name):
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(name)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def keys(self) -> KeysView[str]:
        """The column names (the report's keys).

        Returns
        -------
        KeysView of str
        """
        return self.columns.keys()

    def to_pandas(self) -> "pandas.DataFrame":
        """The table as a DataFrame.

        Returns
        -------
        pandas.DataFrame
            One column an array, by the report's names.

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        import pandas
        return pandas.DataFrame(self.columns)

    def __dir__(self):
        return list(super().__dir__()) + list(self.columns)


class Sweep(_Columns):
    """Every (budget, n) solved, n outer, at most 10^6 rows; the columns
    are filled from the library's rows.

    Attributes
    ----------
    columns : dict of numpy.ndarray
        The table's columns (budget, samples, heads, head_dim, mse,
        log10_mse, relaxed_head_dim, relaxed_heads; of a grouped sweep also
        kv_heads, kv_dim and kv_cache_bytes_per_token), also as
        ``sweep["heads"]`` or ``sweep.heads``; ``to_pandas()`` for a
        DataFrame.
    fits : dict
        The scaling-law fits of the report.
    """

    def __init__(self, budgets, samples, model, constraints, progress=None, kv=None):
        super().__init__([])
        self._capsule, self.columns = _ext.sweep(budgets, samples, model, constraints,
                                                 progress, kv)
        self._fits = None

    @property
    def fits(self) -> Optional[Dict[str, Any]]:
        """The report's fits (``fits`` of ``to_dict()``): by_budget and
        by_samples."""
        if self._fits is None:
            self._fits = _ext.report_sweep(self._capsule, True).get("fits")
        return self._fits

    def _report(self):
        return _ext.report_sweep(self._capsule)

    def _picture(self, name):
        return _ext.plot_sweep(name, self._capsule)

    def __repr__(self) -> str:
        return "Sweep(%d rows: %s)" % (len(self), ", ".join(self.columns))


class Regimes(_Columns):
    """The exact regimes in n of each budget.

    Attributes
    ----------
    columns : dict of numpy.ndarray
        budget, heads, head_dim, samples_from, samples_to,
        log10_samples_from, log10_samples_to (inf beyond a double, the
        log10 exact), one row a regime; over (H, G, d) also kv_heads (each
        regime's G) and kv_dim (G d).  ``to_pandas()`` for a DataFrame.
    table : list of dict
        The same, one dict a regime.
    """

    def __init__(self, budgets, model, constraints, kv=None):
        self._capsule = _ext.regimes(list(budgets), None, model, constraints, kv)
        self.table = self._report().get("regimes", [])
        super().__init__(self.table)

    def _report(self):
        return _ext.report_regimes(self._capsule)

    def _picture(self, name):
        return _ext.plot_regimes(name, self._capsule)

    def __repr__(self) -> str:
        return "Regimes(%d regimes)" % len(self)


Layer = collections.namedtuple(
    "Layer", "name heads head_dim model_dim hdi baseline_hdi overlap rank rank_deficient")
Layer.__doc__ = """The HDI of one tensor: its heads, head_dim and
model_dim, the HDI, the random baseline (the expected HDI of random heads
of its shape), the H x H overlap matrix, each head's numerical rank and
how many heads are rank-deficient."""


class HDI(_Result):
    """The Head Diversity Index of each layer.

    Attributes
    ----------
    layers : list of Layer
    hdi, baseline : numpy.ndarray
        One value a layer: the HDI and the expected HDI of random heads of
        the same shape.
    overlaps : list of numpy.ndarray
        The H x H overlap matrices.
    mean_hdi, mean_baseline_hdi : float
    warnings : list of str
        The library's word on a model directory (both model.safetensors
        and its index there, tensors a pattern passed by), on heads whose
        weights are all zero (each counts as overlapping no other head,
        which raises the HDI) or of lower rank (their overlaps are taken
        over the rank they have);
        each is also issued once as a HeadallocWarning when the result is
        made, so that ``warnings.catch_warnings`` or ``-W error`` can act
        on it.
    warning_details : list of tuple
        The same as (kind, layer index, message), kind "directory",
        "zero heads", "low rank" or "skipped" (tensors a pattern passed
        by for not being 2-D); the layer index is None for "directory"
        and "skipped".
    """

    def __init__(self, capsule):
        self._capsule = capsule
        (layers, self.mean_hdi, self.mean_baseline_hdi, self.layout, self.source,
         details) = _ext.hdi_values(capsule)
        self.layers = [Layer(*row) for row in layers]
        self.hdi = np.array([l.hdi for l in self.layers])
        self.baseline = np.array([l.baseline_hdi for l in self.layers])
        self.overlaps = [l.overlap for l in self.layers]
        self.names = [l.name for l in self.layers]
        self.warning_details = list(details)
        self.warnings = [message for _, _, message in details]
        for message in self.warnings:
            warnings.warn(message, HeadallocWarning, stacklevel=4)  # hdi()'s caller

    def _report(self):
        return _ext.report_hdi(self._capsule)

    def _picture(self, name):
        return _ext.plot_hdi(name, self._capsule)

    def __len__(self) -> int:
        return len(self.layers)

    def __repr__(self) -> str:
        return "HDI(%d layers, mean_hdi=%r, mean_baseline_hdi=%r)" % (
            len(self.layers), self.mean_hdi, self.mean_baseline_hdi)


class HeadWeights(_Result):
    """Optimal head weights for a covariance S of the heads' outputs.

    Attributes
    ----------
    alpha : numpy.ndarray
        The weights (they sum to 1).
    error_optimal, error_uniform, gain : float
        alpha' S alpha, the uniform weights' error, and their ratio.
    pseudo_inverse, null_space : bool
        S is singular (the pseudo-inverse was used), and whether 1 lies in
        its null space.
    rank : int
    min_eigenvalue : float
    covariance : numpy.ndarray
    """

    def __init__(self, capsule):
        self._capsule = capsule
        (self.alpha, self.error_optimal, self.error_uniform, self.gain,
         pinv, null, self.rank, self.covariance, self.min_eigenvalue) = \
            _ext.head_weights_values(capsule)
        self.pseudo_inverse = bool(pinv)
        self.null_space = bool(null)
        if self.pseudo_inverse:
            warnings.warn("the covariance is singular (rank %d of %d): the weights use "
                          "its pseudo-inverse" % (self.rank, len(self.alpha)),
                          HeadallocWarning, stacklevel=3)

    def _report(self):
        return _ext.report_head_weights(self._capsule)

    def _picture(self, name):
        return _ext.plot_head_weights(name, self._capsule)

    def __repr__(self) -> str:
        return "HeadWeights(heads=%d, gain=%r)" % (len(self.alpha), self.gain)
