"""hdi() and sweep() through the library's policy: the work limit, the
warnings on zero and lower-rank heads (the same words as the CLI's), and
progress callbacks called on the caller's thread with the GIL held."""

import os
import subprocess
import threading
import warnings

import numpy as np
import pytest

import headalloc
from conftest import CLI, data
from test_hdi_inputs import write_safetensors

CHECKPOINTS = data("tests", "data", "checkpoints")


def zero_and_low_rank():
    """6 heads of 8 in d_model 32 (out-in): head 2 all zero, head 4 of
    rank 3."""
    w = np.random.default_rng(11).standard_normal((48, 32))
    w[16:24] = 0.0
    w[32:40] = np.random.default_rng(12).standard_normal((8, 3)) @ \
        np.random.default_rng(13).standard_normal((3, 32))
    return w


def cli_warnings(path, *args):
    if not CLI or not os.path.exists(CLI):
        pytest.skip("HEADALLOC (the built CLI) is not set: run through meson test")
    out = subprocess.run([CLI, "hdi", path, *args, "--format", "yaml"], check=True,
                         capture_output=True, text=True)
    prefix = "headalloc: warning: %s: " % path
    lines = out.stderr.splitlines()
    assert all(line.startswith(prefix) for line in lines), lines
    return [line[len(prefix):] for line in lines]


def test_array_warnings_are_the_cli_words(tmp_path):
    w = zero_and_low_rank()
    path = str(tmp_path / "k.safetensors")
    write_safetensors(path, {"k": w})
    with pytest.warns(headalloc.HeadallocWarning) as caught:
        r = headalloc.hdi(w, heads=6, tensor="k")
    assert len(r.warnings) == 2
    assert [k for k, _, _ in r.warning_details] == ["zero heads", "low rank"]
    assert "head 2" in r.warnings[0] and "head 4" in r.warnings[1]
    assert [str(c.message) for c in caught] == r.warnings
    # the same weights in a file: the same words, from the CLI and from
    # hdi(path)
    assert cli_warnings(path, "--heads", "6") == r.warnings
    with pytest.warns(headalloc.HeadallocWarning):
        f = headalloc.hdi(path, heads=6)
    assert f.warnings == r.warnings
    assert f.hdi[0] == pytest.approx(r.hdi[0], abs=1e-12)


def test_no_warning_for_full_rank_heads():
    w = np.random.default_rng(3).standard_normal((48, 32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = headalloc.hdi(w, heads=6)
    assert r.warnings == [] and r.warning_details == []


def test_state_dict_warning_names_its_tensor():
    sd = {"a.k": np.random.default_rng(5).standard_normal((48, 32)),
          "b.k": zero_and_low_rank()}
    with pytest.warns(headalloc.HeadallocWarning):
        r = headalloc.hdi(sd, heads=6)
    assert [i for _, i, _ in r.warning_details] == [1, 1]
    assert all("tensor 'b.k'" in m for m in r.warnings)


def test_all_zero_array_is_refused():
    with pytest.raises(headalloc.InputError, match="all 4 heads are zero"):
        headalloc.hdi(np.zeros((16, 8)), heads=4)


def test_work_limit_applies_to_arrays():
    # (H d_k)^2 d_model = 8192^2 * 1100 > 2^36: refused before any SVD
    # (np.zeros pages are not touched until read).
    w = np.zeros((8192, 1100))
    w[0, 0] = 1.0
    with pytest.raises(headalloc.UnsupportedError, match="multiply-adds"):
        headalloc.hdi(w, heads=2)


def recorder(log, stop_at=None, exc=ValueError):
    caller = threading.get_ident()

    def progress(what, done, total):
        # on the caller's thread, with the GIL: Python objects work here
        assert threading.get_ident() == caller
        log.append((what, done, total, float(np.sum(np.arange(3)))))
        if stop_at is not None and done >= stop_at:
            raise exc("stop at %d" % done)
    return progress


def test_directory_progress_counts_layers():
    log = []
    r = headalloc.hdi(os.path.join(CHECKPOINTS, "llama-groups"), progress=recorder(log))
    assert len(r) == 3
    assert [(w, d, t) for w, d, t, _ in log] == [("layers", 1, 3), ("layers", 2, 3),
                                                  ("layers", 3, 3)]
    assert all(x == 3.0 for *_, x in log)


def test_state_dict_progress_counts_arrays():
    rng = np.random.default_rng(9)
    sd = {"l%d.k" % i: rng.standard_normal((16, 8)) for i in range(4)}
    log = []
    headalloc.hdi(sd, heads=2, progress=recorder(log))
    assert [(d, t) for _, d, t, _ in log] == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_file_progress_and_false():
    log = []
    path = data("tests", "data", "two-layers.safetensors")
    r = headalloc.hdi(path, heads=4, tensor="*k_proj*", progress=recorder(log))
    assert len(r) == 2
    assert [(d, t) for _, d, t, _ in log] == [(1, 2), (2, 2)]
    q = headalloc.hdi(path, heads=4, tensor="*k_proj*", progress=False)
    assert np.array_equal(q.hdi, r.hdi)


@pytest.mark.parametrize("source", ["directory", "state dict"])
def test_raising_progress_stops_hdi(source):
    class Stop(Exception):
        pass
    log = []
    if source == "directory":
        args = (os.path.join(CHECKPOINTS, "llama-groups"),)
        kwargs = {}
    else:
        rng = np.random.default_rng(2)
        args = ({"l%d" % i: rng.standard_normal((16, 8)) for i in range(3)},)
        kwargs = {"heads": 2}
    with pytest.raises(Stop, match="stop at 2"):
        headalloc.hdi(*args, progress=recorder(log, stop_at=2, exc=Stop), **kwargs)
    assert [d for _, d, _, _ in log] == [1, 2]


def test_sweep_progress_counts_rows():
    log = []
    budgets = [256, 512, 1024]
    samples = headalloc.geomspace(1e4, 1e12, 50)
    s = headalloc.sweep(budgets, samples, progress=recorder(log))
    assert len(s) == 150
    assert log and all(w == "rows" and t == 150 for w, _, t, _ in log)
    done = [d for _, d, _, _ in log]
    assert done == sorted(done) and done[-1] == 150
    quiet = headalloc.sweep(budgets, samples, progress=False)
    assert np.array_equal(quiet["mse"], s["mse"])


def test_raising_progress_stops_sweep():
    class Stop(Exception):
        pass
    log = []
    with pytest.raises(Stop):
        headalloc.sweep(list(range(64, 4096 + 1, 64)), headalloc.geomspace(1e4, 1e12, 200),
                        progress=recorder(log, stop_at=1, exc=Stop))
    assert len(log) == 1


def test_progress_from_two_threads_at_once():
    """Two sweeps in two threads, each calling back into Python: the GIL
    is taken and given back around every call, so neither deadlocks."""
    results, errors = {}, []

    def work(key):
        try:
            log = []
            headalloc.sweep([128, 256, 512, 1024], headalloc.geomspace(1e4, 1e12, 400),
                            progress=recorder(log))
            results[key] = log[-1][1]
        except Exception as e:   # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and results == {0: 1600, 1: 1600}


def test_progress_is_type_checked():
    with pytest.raises(TypeError):
        headalloc.hdi(np.ones((4, 4)), heads=2, progress=3)
    with pytest.raises(TypeError):
        headalloc.sweep(512, 1e8, progress="bar")
