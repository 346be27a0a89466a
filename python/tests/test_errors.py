"""Bad input raises headalloc.Error subclasses with the file, line and
column; cautions are HeadallocWarning."""

import warnings

import numpy as np
import pytest

import headalloc
from conftest import data


@pytest.mark.parametrize("call", [
    lambda: headalloc.allocate(0, 1e8),
    lambda: headalloc.allocate(2 ** 63, 1e8),
    lambda: headalloc.allocate(-4, 1e8),
    lambda: headalloc.allocate(512.5, 1e8),
    lambda: headalloc.allocate(512, 1.0),
    lambda: headalloc.allocate(512, float("nan")),
    lambda: headalloc.allocate(512, "many"),
    lambda: headalloc.allocate(512, 1e8, min_heads=8, max_heads=4),
    lambda: headalloc.Model(smoothness=-1),
    lambda: headalloc.Model(hdi=1.5),
    lambda: headalloc.Model(var_coef=float("inf")),
    lambda: headalloc.Model(bias_coef=2, log_bias_coef=1),
    lambda: headalloc.Model(heads=3),
    lambda: headalloc.hdi(np.zeros((6, 4)), heads=4),
    lambda: headalloc.hdi(np.ones((6, 4, 2)), heads=2),
    lambda: headalloc.hdi(np.zeros((6, 4), dtype=np.int32), heads=2),
    lambda: headalloc.hdi(np.array([[1.0, np.nan], [0, 1]]), heads=2),
    lambda: headalloc.hdi(np.eye(4), heads=0),
    lambda: headalloc.hdi(np.eye(4), heads=2, layout="sideways"),
    lambda: headalloc.head_weights(np.array([[1.0, 2.0], [0.0, 1.0]])),
    lambda: headalloc.calibrate([{"heads": 8, "head_dim": 8, "samples": 1e6, "loss": -1}] * 5,
                                bootstrap=0),
    lambda: headalloc.calibrate([{"heads": 0.5, "head_dim": 8, "samples": 1e6, "loss": 1}],
                                bootstrap=0),
    lambda: headalloc.calibrate([{"heads": 8, "head_dim": 8, "samples": 1e6}], bootstrap=0),
    lambda: headalloc.calibrate(data("data", "runs.csv"), free=["nonsense"]),
    lambda: headalloc.calibrate(data("data", "runs.csv"), fix={"bias_coef": 0}),
    lambda: headalloc.calibrate(data("data", "runs.csv"), huber_delta=-1, bootstrap=0),
])
def test_input_errors(call):
    with pytest.raises(headalloc.InputError) as e:
        call()
    assert isinstance(e.value, ValueError) and isinstance(e.value, headalloc.Error)
    assert str(e.value)


def test_unknown_constraint_is_a_type_error():
    with pytest.raises(TypeError):
        headalloc.allocate(512, 1e8, min_head=4)


def test_infeasible():
    with pytest.raises(headalloc.InfeasibleError):
        headalloc.allocate(512, 1e8, min_heads=1000)


def test_io_error_names_the_file(tmp_path):
    missing = str(tmp_path / "nothing.safetensors")
    with pytest.raises(headalloc.FileError) as e:
        headalloc.hdi(missing, heads=2)
    assert isinstance(e.value, OSError) and e.value.file == missing
    with pytest.raises(headalloc.FileError):
        headalloc.calibrate(str(tmp_path / "runs.csv"))


def test_format_error_has_line_and_column(tmp_path):
    bad = tmp_path / "scenario.yaml"
    bad.write_text("budgets: [512]\nmodel:\n  smoothness: -1\n")
    with pytest.raises(headalloc.InputError) as e:
        headalloc.Model.from_yaml(bad)
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), 3, 15)
    assert str(e.value).startswith("%s:3:15: " % bad)
    runs = tmp_path / "runs.csv"
    runs.write_text("heads,head_dim,samples,loss\n8,8,1e6,2\n8,16,1e6,x\n")
    with pytest.raises(headalloc.InputError) as e:
        headalloc.calibrate(str(runs))
    assert (e.value.line, e.value.column) == (3, 10)
    cov = data("tests", "data", "cov-bad-value.yaml")
    with pytest.raises(headalloc.InputError) as e:
        headalloc.head_weights(cov)
    assert e.value.file == cov and e.value.line > 0


def test_warnings():
    with pytest.warns(headalloc.HeadallocWarning, match="singular"):
        headalloc.head_weights(data("tests", "data", "cov-singular.yaml"))
    one_n = [{"heads": h, "head_dim": d, "samples": 1e6, "loss": l} for h, d, l in
             [(32, 8, 2.43791), (16, 16, 1.91131), (8, 32, 2.15375), (16, 12, 2.10414),
              (8, 24, 1.89903), (4, 32, 2.38548)]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = headalloc.calibrate(one_n, bootstrap=30, target=(512, 1e6))
    mine = [str(w.message) for w in caught if w.category is headalloc.HeadallocWarning]
    assert mine == c.warnings and any("same" in m or "one" in m for m in mine)
    one_zero = np.vstack([np.zeros((2, 8)), np.eye(2, 8)])
    with pytest.warns(headalloc.HeadallocWarning, match="1 of 2 heads is all zero"):
        headalloc.hdi(one_zero, heads=2)
