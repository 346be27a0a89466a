"""headalloc.plan against the CLI's headalloc plan: the same decision and
picks from the same runs, the result read from the library's struct."""
import json
import math
import os
import subprocess

import pytest

import headalloc

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data")
RUNS = os.path.join(DATA, "runs.yaml")
CLI = os.environ.get("HEADALLOC")


def cli_plan(*args):
    out = subprocess.run([CLI, "plan", *args, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.skipif(not CLI, reason="HEADALLOC not set")
def test_plan_equals_the_cli():
    p = headalloc.plan(RUNS, 512, 1e8, next=2, outcomes=64, resamples=20)
    c = cli_plan(RUNS, "--budget", "512", "--samples", "1e8", "--next", "2",
                 "--outcomes", "64", "--bootstrap", "20")
    for key in ("heads", "head_dim", "kv_heads"):
        assert p.decision[key] == c["decision"][key]
    assert p.decision["p_correct"] == pytest.approx(c["decision"]["p_correct"], rel=1e-12)
    assert [(r["heads"], r["head_dim"], r["samples"]) for r in p.picks] == \
        [(r["heads"], r["head_dim"], r["samples"]) for r in c["plan"]]
    for a, b in zip(p.picks, c["plan"]):
        assert a["value"] == pytest.approx(b["value"], rel=1e-12, abs=1e-15)
    assert p.stop == c["stop"]


def test_plan_is_a_result():
    p = headalloc.plan(RUNS, 512, 1e8, next=1, outcomes=32, resamples=10)
    assert 0.0 <= p.decision["p_correct"] <= 1.0
    assert len(p.picks) == 1 and p.picks[0]["cost"] > 0
    # a Monte-Carlo mean of a quantity whose expectation is >= 0
    assert all(math.isfinite(c["value"]) and c["value"] >= -4 * c["value_se"] - 1e-12
               for c in p.candidates)
    df = p.to_pandas("candidates")
    assert len(df) == len(p.candidates) and {"heads", "value", "cost"} <= set(df.columns)
    assert p.to_dict()["decision"] == p.decision
    assert "Plan(D=512" in repr(p)


def test_initial_design_without_runs():
    p = headalloc.plan(None, 4096, 1e9, min_head_dim=16, max_head_dim=256)
    assert p.initial and "undefined" in p.decision
    assert len(p.picks) >= 4 and all(r["reason"] for r in p.picks)
    assert len({r["head_dim"] for r in p.picks}) >= 4


def test_pool_in_memory_and_its_refusals():
    pool = [{"heads": h, "head_dim": 512 // h, "samples": n}
            for h in (4, 8, 16, 32, 64) for n in (1e6, 1e7)]
    p = headalloc.plan(RUNS, 512, 1e8, pool=pool, outcomes=32, resamples=10)
    assert {(c["heads"], c["samples"]) for c in p.candidates} <= {(r["heads"], r["samples"]) for r in pool}
    with pytest.raises(headalloc.InputError, match="loss"):
        headalloc.plan(RUNS, 512, 1e8, pool=[{"heads": 8, "head_dim": 64, "samples": 1e6, "loss": 2.0}])
    with pytest.raises(headalloc.InputError):
        headalloc.plan(RUNS, 512, 1e8, pool=[{"heads": 8, "head_dim": 64, "samples": 1e6, "cost": -1.0}])
    with pytest.raises(headalloc.InputError):
        headalloc.plan(RUNS, 512, 1e8, cost="flops")
    with pytest.raises(headalloc.InputError):
        headalloc.plan(RUNS, 512, 1e8, next=-1)


def test_plot(tmp_path):
    p = headalloc.plan(RUNS, 512, 1e8, next=1, outcomes=32, resamples=10)
    out = tmp_path / "plan.svg"
    if not headalloc._ext.plot_available:
        # A build without PLplot refuses the picture and writes nothing.
        with pytest.raises(headalloc.UnsupportedError):
            p.plot(out)
        assert not out.exists()
        return
    p.plot(out)
    assert out.read_bytes().startswith(b"<?xml")
