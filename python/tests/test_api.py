"""The API's documentation and pictures: every public name has a
docstring, help(headalloc) renders, results draw the --plot pictures."""

import pydoc

import numpy as np
import pytest

import headalloc
from conftest import data


def test_every_public_name_is_documented():
    for name in headalloc.__all__:
        obj = getattr(headalloc, name)
        assert obj.__doc__ and len(obj.__doc__.strip()) > 20, name
    text = pydoc.render_doc(headalloc, renderer=pydoc.plaintext)
    for name in ("allocate", "sweep", "regimes", "calibrate", "hdi", "head_weights"):
        assert name + "(" in text


@pytest.mark.skipif(not headalloc._ext.plot_available, reason="built without PLplot")
def test_pictures(tmp_path):
    results = [headalloc.allocate(512, 1e8), headalloc.sweep(512, [1e4, 1e6, 1e8, 1e10]),
               headalloc.regimes([512, 4096]),
               headalloc.hdi(np.random.default_rng(1).standard_normal((32, 16)), heads=4),
               headalloc.head_weights(data("tests", "data", "cov3.yaml")),
               headalloc.calibrate(data("data", "runs.csv"), bootstrap=20,
                                   target=(512, 1e8))]
    for i, r in enumerate(results):
        png = r._repr_png_()
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), type(r)
        r.plot(tmp_path / ("p%d.svg" % i))
        assert b"<svg" in (tmp_path / ("p%d.svg" % i)).read_bytes()[:400]
    with pytest.raises(headalloc.InputError):
        results[0].plot(tmp_path / "p.jpg")
    assert not (tmp_path / "p.jpg").exists()


def test_model_pickles_by_parameter_name():
    import copy
    import pickle
    models = [headalloc.Model(), headalloc.Model(bias_coef=0.1, var_coef=0.7),
              headalloc.Model(log_bias_coef=5.0, var_coef=0.3, hdi=0.4),
              headalloc.Model(log_var_coef=-1598.0, smoothness=1.5)]
    for m in models:
        back = pickle.loads(pickle.dumps(m))
        assert back == m and back.log_var_coef == m.log_var_coef
        assert copy.deepcopy(m) == m


def test_model_pickled_by_0_2_reads_as_the_same_model(monkeypatch):
    # 0.2 pickled the slots' tuple, a factor and a log scale per
    # coefficient at 1, 2 and 7, 8: the default reduction writes those bytes
    import pickle
    old = headalloc.Model.__new__(headalloc.Model)
    old._values = (2.0, 1.0, 0.3, 0.4, 0.0, 0.5, 0.0, 5.0, 0.0,
                   0.0, 0.28, 1.0, 0.0)
    with monkeypatch.context() as patch:
        patch.setattr(headalloc.Model, "__reduce__", object.__reduce__)
        data = pickle.dumps(old, protocol=4)
    m = pickle.loads(data)
    assert m == headalloc.Model(log_bias_coef=5.0, var_coef=0.3, hdi=0.4)
    assert m.log_bias_coef == 5.0 and m.var_coef == 0.3
