"""headalloc.Model: the parameters of the error model (headalloc-model(7))."""

from __future__ import annotations

import math
import operator
from typing import Any, Dict

from . import _ext
from ._errors import InputError, bad_value

# struct ha_model's fields in order, as the extension takes them: each
# coefficient is one number, and a flag says whether it holds the log.
_FIELDS = ("smoothness", "bias_coef", "var_coef", "hdi", "irreducible",
           "var_rate", "var_power", "bias_coef_is_log", "var_coef_is_log",
           "data_coef", "data_power", "var_samples_power", "group_hdi")
_DEFAULTS = _ext.model_defaults()  # ha_model_defaults(), not a copy
# The names a scenario file's model takes (headalloc-scenario(5)).
PARAMETERS = ("smoothness", "bias_coef", "var_coef", "hdi", "irreducible",
              "var_rate", "var_power", "log_bias_coef", "log_var_coef",
              "data_coef", "data_power", "var_samples_power", "group_hdi")

_CONSTRAINTS = ("head_dim_multiple", "min_head_dim", "max_head_dim",
                "min_heads", "max_heads")


class Model:
    """The error model of H heads of dimension d at n samples::

        MSE = E + A n^-α + c_b d^-s + c_v d^(γ d + κ) / n^β · (ρ + (1 − ρ)/H),  ρ = 1 − hdi

    and with G key/value heads shared by groups of g = H/G query heads
    (``allocate(..., kv_heads=G)``) the last factor is
    F = (1 + (g − 1) ρ_g + (H − g) ρ) / H, ρ_g = 1 − group_hdi.

    Parameters
    ----------
    **params : float
        Any parameter by its scenario-file name: ``smoothness`` (s),
        ``bias_coef`` (c_b) or ``log_bias_coef`` (ln c_b), ``var_coef`` (c_v)
        or ``log_var_coef`` (ln c_v), ``hdi``, ``irreducible`` (E),
        ``var_rate`` (γ), ``var_power`` (κ), ``data_coef`` (A),
        ``data_power`` (α), ``var_samples_power`` (β), ``group_hdi`` (the
        diversity of query heads that share a key/value head, in [0, 1], used
        by the grouped allocation); the others keep the defaults of
        headalloc-model(7) (s = 2, c_b = c_v = 1, hdi = 1, E = 0, γ = 1/2,
        κ = 0, A = 0, β = 1, group_hdi = 0).  A coefficient given by its logarithm is kept exactly, however
        far beyond a double it lies (a calibrated ln c_v of −1598 is real).

    Raises
    ------
    InputError
        An unknown name, or a value outside its domain.

    Examples
    --------
    >>> Model(smoothness=1.5, hdi=0.8).smoothness
    1.5
    """

    __slots__ = ("_values",)

    def __init__(self, **params: float) -> None:
        self._values = _values_of(params)
        if not _ext.model_valid(self._values):
            raise InputError("model: the parameters are outside their domain")

    @classmethod
    def _from_tuple(cls, values):
        self = cls.__new__(cls)
        self._values = tuple(bool(v) if f.endswith("_is_log") else float(v)
                             for f, v in zip(_FIELDS, values))
        return self

    @classmethod
    def from_yaml(cls, path: Any) -> "Model":
        """The model of a scenario file or of a calibration's YAML report,
        read exactly.

        Parameters
        ----------
        path : path-like

        Returns
        -------
        Model

        Raises
        ------
        InputError
            The file's model is malformed or out of its domain.
        FileError
            The file cannot be read.
        """
        return cls._from_tuple(_ext.model_from_yaml(str(path)))

    # -- the parameters ---------------------------------------------------
    smoothness = property(lambda self: self._values[0], doc="s > 0")
    hdi = property(lambda self: self._values[3], doc="the Head Diversity Index in [0, 1]")
    irreducible = property(lambda self: self._values[4], doc="E >= 0")
    var_rate = property(lambda self: self._values[5], doc="γ >= 0")
    var_power = property(lambda self: self._values[6], doc="κ >= 0")
    data_coef = property(lambda self: self._values[9], doc="A >= 0 of the data term A n^-α")
    data_power = property(lambda self: self._values[10], doc="α > 0")
    var_samples_power = property(lambda self: self._values[11], doc="β > 0: the variance falls as n^-β")
    group_hdi = property(lambda self: self._values[12],
                         doc="diversity within a key/value group, in [0, 1]")

    @property
    def log_bias_coef(self) -> float:
        """ln c_b, exact."""
        return _log_of(self._values[1], self._values[7])

    @property
    def log_var_coef(self) -> float:
        """ln c_v, exact."""
        return _log_of(self._values[2], self._values[8])

    @property
    def bias_coef(self) -> float:
        """c_b (inf when beyond a double: see log_bias_coef)."""
        return _plain_of(self._values[1], self._values[7])

    @property
    def var_coef(self) -> float:
        """c_v (inf when beyond a double, 0.0 below: see log_var_coef)."""
        return _plain_of(self._values[2], self._values[8])

    def to_dict(self) -> Dict[str, Any]:
        """The model as the report writes it: a scenario file's model.

        Returns
        -------
        dict
        """
        return _ext.report_model(None, None, self._values, (0, 0, 0, 0, 0))["model"]

    def __reduce__(self):
        # by parameter name, so that a pickle outlives the tuple's layout
        return (_model_of, (self._parameters(),))

    def __setstate__(self, state):
        # a pickle of 0.2, whose tuple held a factor and a log scale per
        # coefficient where it now holds the value and whether it is a log
        _, slots = state
        v = list(slots["_values"])
        for i, scale in ((1, 7), (2, 8)):
            if v[scale]:
                v[i], v[scale] = math.log(v[i]) + v[scale], True
            else:
                v[scale] = False
        self._values = tuple(v)

    def _parameters(self) -> Dict[str, float]:
        params = dict(zip(_FIELDS, self._values))
        for coef in ("bias_coef", "var_coef"):
            if params.pop(coef + "_is_log"):
                params["log_" + coef] = params.pop(coef)
        return params

    def __eq__(self, other) -> bool:
        return isinstance(other, Model) and self._values == other._values

    def __hash__(self) -> int:
        return hash(self._values)

    def __repr__(self) -> str:
        d = self.to_dict()
        return "Model(%s)" % ", ".join("%s=%r" % kv for kv in d.items())


def _model_of(params):
    return Model(**params)


def _values_of(params):
    values = dict(zip(_FIELDS, _DEFAULTS))
    for name, value in params.items():
        if name not in PARAMETERS:
            raise InputError("model: unknown parameter %r (expected one of %s)"
                             % (name, ", ".join(PARAMETERS)))
        if name.startswith("log_"):
            plain = name[4:]
            if plain in params:
                raise InputError("model: give %s or %s, not both" % (plain, name))
            log = _number(name, value)
            # as ha_model_set_log_*: ln c = 0 is held as the plain c = 1
            values[plain] = log if log != 0.0 else 1.0
            values[plain + "_is_log"] = log != 0.0
        else:
            values[name] = _number(name, value)
            if name.endswith("_coef") and name != "data_coef":
                values[name + "_is_log"] = False
    return tuple(bool(values[f]) if f.endswith("_is_log") else values[f]
                 for f in _FIELDS)


def _number(name, value):
    """A parameter's value in its domain, refused in the command line's
    words for the same value (the library's domains)."""
    expected, _ = _ext.model_param_domain(name, 1.0)
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        v = None
    if v is None or isinstance(value, bool) or not _ext.model_param_domain(name, v)[1]:
        bad_value(name, value, expected)
    return v


def _log_of(value, is_log):
    return value if is_log else math.log(value)


def _plain_of(value, is_log):
    if not is_log:
        return value
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def model_tuple(model):
    """The extension's tuple of a Model (None: the defaults)."""
    if model is None:
        return _DEFAULTS
    if isinstance(model, Model):
        return model._values
    if isinstance(model, dict):
        return Model(**model)._values
    if hasattr(model, "model") and isinstance(model.model, Model):
        return model.model._values   # a Calibration
    raise TypeError("model: expected a headalloc.Model, a dict or None, found %r"
                    % type(model).__name__)


def constraints_tuple(constraints, where="constraints"):
    """The extension's tuple of keyword constraints."""
    for name in constraints:
        if name not in _CONSTRAINTS:
            raise TypeError("%s: unknown constraint %r (expected one of %s)"
                            % (where, name, ", ".join(_CONSTRAINTS)))
    for name, value in constraints.items():
        if value is not None:
            _constraint(name, value)
    return tuple(constraints.get(name) or 0 for name in _CONSTRAINTS)


_BUDGET_MAX = 9223372036854775807  # HA_BUDGET_MAX


def _constraint(name, value):
    """A constraint given: a whole number from 1 (None: not given), in the
    command line's words."""
    try:
        v = operator.index(value)
    except TypeError:
        v = None
    if isinstance(value, bool) or v is None or not 1 <= v <= _BUDGET_MAX:
        bad_value(name, value, "a whole number from 1 to %d" % _BUDGET_MAX)
