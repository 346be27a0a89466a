"""The package's conventions: bad values raise headalloc.Error subclasses
with the command line's words, names that shadow no builtin, NumPy's
meaning of logspace, type hints and numpydoc docstrings on the whole
public API, and the calibration's keywords and DataFrames."""

import inspect
import os
import re
import subprocess
import typing
import warnings

import numpy as np
import pytest

import headalloc
from conftest import data

RUNS = data("data", "runs.yaml")


def quiet_calibrate(*args, **kwargs):
    kwargs.setdefault("progress", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", headalloc.HeadallocWarning)
        return headalloc.calibrate(*args, **kwargs)


def cli_message(*args):
    """The CLI's one-line message for args (exit status 2), without its
    'headalloc: --option: ' prefix."""
    cli = os.environ.get("HEADALLOC")
    if not cli:
        pytest.skip("HEADALLOC (the built CLI) is not set: run through meson test")
    out = subprocess.run([cli, *args], capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    return out.stderr.strip().split(": ", 2)[2]


@pytest.mark.parametrize("call, option, value", [
    (lambda: quiet_calibrate(RUNS, seed=2 ** 64, bootstrap=0), "--seed", "18446744073709551616"),
    (lambda: quiet_calibrate(RUNS, seed=-1, bootstrap=0), "--seed", "-1"),
    (lambda: quiet_calibrate(RUNS, bootstrap=1000001), "--bootstrap", "1000001"),
    (lambda: quiet_calibrate(RUNS, huber_delta=0, bootstrap=0), "--huber-delta", "0"),
    (lambda: quiet_calibrate(RUNS, huber_delta=float("nan"), bootstrap=0),
     "--huber-delta", "nan"),
    (lambda: quiet_calibrate(RUNS, bootstrap_kind="jackknife", bootstrap=0),
     "--bootstrap-kind", "jackknife"),
    (lambda: quiet_calibrate(RUNS, threads=0, bootstrap=0), "--threads", "0"),
    (lambda: quiet_calibrate(RUNS, threads="many", bootstrap=0), "--threads", "many"),
])
def test_bad_values_have_the_cli_words(call, option, value):
    """The same bad value: an InputError whose words after the value are
    the CLI's (the CLI names --option and quotes the text typed, Python
    names the keyword and shows the value's repr)."""
    with pytest.raises(headalloc.InputError) as e:
        call()
    expected = cli_message("calibrate", RUNS, option, value).split(": expected ", 1)[1]
    assert str(e.value).split(": expected ", 1)[1] == expected
    assert str(e.value).startswith(option[2:].replace("-", "_") + ": invalid value ")


@pytest.mark.parametrize("call", [
    lambda: quiet_calibrate(RUNS, bootstrap=10 ** 20),        # was OverflowError
    lambda: quiet_calibrate(RUNS, huber_delta="x", bootstrap=0),  # was ValueError
    lambda: quiet_calibrate(RUNS, fix={"hdi": "x"}, bootstrap=0),
    lambda: quiet_calibrate(RUNS, target=(512, "x"), bootstrap=0),
    lambda: quiet_calibrate(RUNS, free=[], bootstrap=0),       # was accepted
    lambda: quiet_calibrate(RUNS, free=["hdi", "hdi"], bootstrap=0),
    lambda: quiet_calibrate(RUNS, laws={"power": ["irreducible"]}, bootstrap=0),
    lambda: quiet_calibrate(RUNS, laws={"mine": ["noise"]}, bootstrap=0),
    lambda: quiet_calibrate(RUNS, laws={"x" * 32: ["hdi"]}, bootstrap=0),
    lambda: quiet_calibrate(RUNS, laws={"mine": []}, bootstrap=0),
    lambda: headalloc.hdi(np.ones((8, 4)), heads=float("inf")),  # was OverflowError
    lambda: headalloc.head_weights([[1, 2], [3]]),               # was ValueError
    lambda: headalloc.geomspace(10, 1, 5),
    lambda: headalloc.logspace(1e4, 1e12, 5),
])
def test_bad_values_raise_errors_of_the_package(call):
    with pytest.raises(headalloc.InputError):
        call()


def test_the_laws_name_of_the_ladder_is_the_cli_refusal():
    with pytest.raises(headalloc.InputError, match="not a law of the ladder"):
        quiet_calibrate(RUNS, laws={"power": ["irreducible", "var_power"]}, bootstrap=0)


def test_big_endian_float64_is_read_not_refused():
    """A big-endian float64 array is float64 byte-swapped: the same HDI as
    the native array, never 'not floating point'."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((64, 16))
    native = headalloc.hdi(w, heads=8)
    swapped = headalloc.hdi(w.astype(">f8"), heads=8)
    assert swapped.hdi.tolist() == native.hdi.tolist()
    half = headalloc.hdi(w.astype(">f4"), heads=8)
    assert half.hdi[0] == pytest.approx(native.hdi[0], rel=1e-5)
    with pytest.raises(headalloc.UnsupportedError, match="not floating point"):
        headalloc.hdi(w.astype(">i8"), heads=8)


def test_geomspace_values_and_logspace_exponents():
    g = headalloc.geomspace(1e4, 1e12, 9)
    assert g[0] == 1e4 and g[-1] == 1e12
    assert np.allclose(g, np.geomspace(1e4, 1e12, 9), rtol=1e-14)
    assert np.allclose(headalloc.logspace(4, 12, 9), np.logspace(4, 12, 9), rtol=1e-14)
    assert np.allclose(headalloc.logspace(0, 3, 4, base=2.0), [1, 2, 4, 8])
    # values where exponents are meant: named, with the way out
    with pytest.raises(headalloc.InputError, match="geomspace"):
        headalloc.logspace(1e4, 1e12, 9)


def test_file_error_is_an_oserror_and_no_builtin_is_shadowed():
    assert issubclass(headalloc.FileError, OSError)
    assert issubclass(headalloc.FileError, headalloc.Error)
    for name in headalloc.__all__:
        assert name not in dir(__builtins__) if isinstance(__builtins__, type(os)) \
            else name not in __builtins__, name
    with pytest.raises(headalloc.FileError):
        headalloc.hdi("/nonexistent/w.npy", heads=1)
    with pytest.warns(DeprecationWarning, match="FileError"):
        assert headalloc.IOError is headalloc.FileError


PUBLIC_FUNCTIONS = [getattr(headalloc, n) for n in headalloc.__all__
                    if inspect.isfunction(getattr(headalloc, n))]


def public_methods():
    for name in headalloc.__all__:
        cls = getattr(headalloc, name)
        if not inspect.isclass(cls) or issubclass(cls, (BaseException, Warning)):
            continue
        for attr, member in vars(cls).items():
            if inspect.isfunction(member) and not attr.startswith("_"):
                yield "%s.%s" % (name, attr), member


@pytest.mark.parametrize("fn", PUBLIC_FUNCTIONS, ids=lambda f: f.__name__)
def test_public_functions_are_typed_and_documented(fn):
    """Every parameter and the return have a type hint that resolves;
    the docstring has numpydoc's Parameters, Returns and Raises and cites
    no command-line flag."""
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters]
    assert set(params) <= set(hints), set(params) - set(hints)
    assert "return" in hints
    doc = inspect.getdoc(fn)
    for section in ("Parameters\n----------", "Returns\n-------", "Raises\n------"):
        assert section in doc, (fn.__name__, section)
    for p in params:
        assert re.search(r"^\**%s\b|, \**%s\b" % (p, p), doc, re.M), (fn.__name__, p)
    assert not re.search(r"(^|\s|`)--[a-z]", doc), fn.__name__


@pytest.mark.parametrize("name, method", list(public_methods()), ids=lambda x: x
                         if isinstance(x, str) else "")
def test_public_methods_are_typed_and_documented(name, method):
    pandas = pytest.importorskip("pandas")
    hints = typing.get_type_hints(method, localns={"pandas": pandas})
    assert "return" in hints, name
    doc = inspect.getdoc(method)
    assert doc and not re.search(r"(^|\s|`)--[a-z]", doc), name
    if inspect.signature(method).parameters.keys() - {"self"}:
        assert "Parameters\n----------" in doc, name


def test_classes_are_documented_without_cli_flags():
    for name in headalloc.__all__:
        obj = getattr(headalloc, name)
        if inspect.isclass(obj):
            doc = inspect.getdoc(obj) or ""
            assert doc, name
            assert not re.search(r"(^|\s|`)--[a-z]", doc), name
    assert not re.search(r"(^|\s|`)--[a-z]", headalloc.__doc__)


def test_py_typed_marks_the_package():
    assert os.path.exists(os.path.join(os.path.dirname(headalloc.__file__), "py.typed"))
    build = os.environ.get("HEADALLOC_EXTENSION_DIR")
    if build:   # installed with the package: meson's install plan lists it
        plan = os.path.join(build, "..", "meson-info", "intro-installed.json")
        if os.path.exists(plan):
            with open(plan) as f:
                assert "py.typed" in f.read()


# ---- the calibration's keywords and frames ---------------------------------

def test_bootstrap_kind_threads_and_laws_reach_the_library():
    a = quiet_calibrate(RUNS, bootstrap=40, bootstrap_kind="residuals", threads=1,
                        laws={"mine": ["irreducible", "bias_coef", "var_coef", "hdi"]})
    b = quiet_calibrate(RUNS, bootstrap=40, bootstrap_kind="residuals", threads=3,
                        laws={"mine": ["irreducible", "bias_coef", "var_coef", "hdi"]})
    c = quiet_calibrate(RUNS, bootstrap=40)
    assert a.bootstrap["kind"] == "residuals" and c.bootstrap["kind"] == "cases"
    w = quiet_calibrate(RUNS, bootstrap=40, bootstrap_kind="wild", threads=2)
    assert w.bootstrap["kind"] == "wild"
    assert a.to_dict() == b.to_dict()          # the thread count changes nothing
    mine = [law for law in a.comparison["laws"] if law["law"] == "mine"]
    assert len(mine) == 1 and mine[0]["user"] is True
    assert sorted(mine[0]["free"]) == ["bias_coef", "hdi", "irreducible", "var_coef"]
    assert c.comparison is None


def test_calibration_to_pandas_is_the_runs_with_fits_and_residuals():
    pandas = pytest.importorskip("pandas")
    cal = quiet_calibrate(RUNS, bootstrap=0)
    frame = cal.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert frame.columns.tolist() == ["heads", "head_dim", "samples", "loss", "loss_se",
                                      "fitted", "log_fitted", "residual", "standardised"]
    # the report's rows (its decimals round-trip): the same runs and fits
    report = pandas.DataFrame(cal.residuals)
    for col in report.columns:
        assert frame[col].tolist() == report[col].tolist(), col
    # the residual is ln loss - ln fitted, and without loss_se the standardised
    # residual is the residual
    assert np.allclose(frame["residual"], np.log(frame["loss"]) - frame["log_fitted"],
                       rtol=0, atol=1e-12)
    assert np.allclose(np.exp(frame["log_fitted"]), frame["fitted"], rtol=1e-12)
    assert frame["loss_se"].isna().all()
    assert frame["standardised"].tolist() == frame["residual"].tolist()
    # with loss_se the standardised residual is the residual over se / loss
    runs = report[["heads", "head_dim", "samples", "loss"]].assign(
        loss_se=0.02 * report["loss"])
    weighted = quiet_calibrate(runs, bootstrap=0).to_pandas()
    assert np.allclose(weighted["standardised"], weighted["residual"] / 0.02, rtol=1e-12)
    with pytest.raises(headalloc.InputError, match="no comparison"):
        cal.comparison_to_pandas()


def test_comparison_as_a_dataframe():
    pytest.importorskip("pandas")
    cal = quiet_calibrate(RUNS, bootstrap=20, compare=True, target=(512, 1e8))
    frame = cal.comparison_to_pandas()
    laws = cal.comparison["laws"]
    assert frame["law"].tolist() == [law["law"] for law in laws]
    assert np.allclose(frame["weight"].dropna(), [l["weight"] for l in laws if "weight" in l])
    assert "huber_objective" in frame.columns
