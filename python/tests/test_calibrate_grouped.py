"""calibrate() on runs with kv_heads: grouped runs as
dicts, columns or a DataFrame give the CLI's calibration of the same runs
in a CSV file bit for bit, group_hdi can be freed, and the fit recovers
the group_hdi the runs were made with."""

import math

import numpy as np
import pytest

import headalloc
from test_golden import same

GROUP_HDI = 0.4
FREE = ["irreducible", "bias_coef", "var_coef", "group_hdi"]


def synthetic_runs(seed=0, noise=1e-3):
    """Losses of headalloc-model(7)'s grouped law (E = 1.7, c_b = 3, c_v =
    0.5, hdi = 1, the other defaults), written here from the formula, times
    a relative noise of 1e-3."""
    rng = np.random.default_rng(seed)
    runs = []
    for heads in (8, 16):
        for kv_heads in (1, 2, heads):
            for head_dim in (4, 8, 12):
                for samples in (1e4, 1e5, 1e6):
                    g = heads // kv_heads
                    f = (1 + (g - 1) * (1 - GROUP_HDI)) / heads  # rho = 1 - hdi = 0
                    loss = (1.7 + 3 * head_dim ** -2.0
                            + 0.5 * head_dim ** (0.5 * head_dim) / samples * f)
                    loss *= 1 + noise * rng.standard_normal()
                    runs.append(dict(heads=heads, head_dim=head_dim, samples=samples,
                                     loss=loss, kv_heads=kv_heads))
    return runs


def write_csv(path, runs):
    with open(path, "w") as f:
        f.write("heads,head_dim,samples,loss,kv_heads\n")
        for r in runs:
            f.write("%d,%d,%r,%r,%d\n" % (r["heads"], r["head_dim"], r["samples"], r["loss"],
                                          r["kv_heads"]))


def test_grouped_runs_match_cli(cli, tmp_path):
    runs = synthetic_runs()
    write_csv(tmp_path / "runs.csv", runs)
    want = cli("calibrate", "runs.csv", "--free", ",".join(FREE), "--bootstrap", 20,
               "--budget", 4096, "--samples", "1e6", cwd=tmp_path)
    got = headalloc.calibrate(runs, free=FREE, bootstrap=20, target=(4096, 1e6))
    d = got.to_dict()
    same(d, want)
    # the same runs as columns, from a file, and with kv_heads absent (NaN,
    # None) where it equals heads
    columns = {k: [r[k] for r in runs] for k in runs[0]}
    same(headalloc.calibrate(columns, free=FREE, bootstrap=20,
                             target=(4096, 1e6)).to_dict(), want)
    same(headalloc.calibrate(str(tmp_path / "runs.csv"), free=FREE, bootstrap=20,
                             target=(4096, 1e6)).to_dict(), want)
    absent = [dict(r, kv_heads=None if r["kv_heads"] == r["heads"] else r["kv_heads"])
              for r in runs]
    same(headalloc.calibrate(absent, free=FREE, bootstrap=20,
                             target=(4096, 1e6)).to_dict(), want)
    # under a tracker's column name
    renamed = [{("n_kv_head" if k == "kv_heads" else k): v for k, v in r.items()} for r in runs]
    same(headalloc.calibrate(renamed, free=FREE, bootstrap=20, target=(4096, 1e6),
                             columns={"kv_heads": "n_kv_head"}).to_dict(), want)
    assert got.model.group_hdi == want["model"]["group_hdi"]


def test_grouped_dataframe_matches_cli(cli, tmp_path):
    pandas = pytest.importorskip("pandas")
    runs = synthetic_runs(seed=1)
    write_csv(tmp_path / "runs.csv", runs)
    want = cli("calibrate", "runs.csv", "--free", ",".join(FREE), "--bootstrap", 0,
               cwd=tmp_path)
    df = pandas.DataFrame(runs)
    df["kv_heads"] = df["kv_heads"].where(df["kv_heads"] != df["heads"])  # NaN: heads
    assert df["kv_heads"].isna().any()
    same(headalloc.calibrate(df, free=FREE, bootstrap=0).to_dict(), want)


def test_group_hdi_recovered():
    c = headalloc.calibrate(synthetic_runs(seed=2), free=FREE, bootstrap=0)
    p = c.parameters["group_hdi"]
    assert p["free"] and p["se"] > 0
    assert abs(p["value"] - GROUP_HDI) < 4 * p["se"], p
    assert c.model.group_hdi == p["value"]
    # a model with group_hdi fixed wrong fits worse than the free one
    wrong = headalloc.calibrate(synthetic_runs(seed=2), free=FREE[:3],
                                fix={"group_hdi": 0.9}, bootstrap=0)
    assert wrong.goodness["rms_log_residual"] > 10 * c.goodness["rms_log_residual"]
    # the calibrated model allocates grouped
    a = headalloc.allocate(4096, 1e6, c, kv_heads="auto", max_kv_dim=1024)
    assert a.kv_dim <= 1024 and a.model.group_hdi == c.model.group_hdi


def test_grouped_runs_refused():
    ungrouped = [dict(r, kv_heads=r["heads"]) for r in synthetic_runs()]
    with pytest.raises(headalloc.InputError, match="group_hdi: free, but no run has kv_heads"):
        headalloc.calibrate(ungrouped, free=FREE, bootstrap=0)
    bad = synthetic_runs()
    bad[4]["kv_heads"] = 3
    with pytest.raises(headalloc.InputError, match="kv_heads: expected a divisor of heads"):
        headalloc.calibrate(bad, free=FREE, bootstrap=0)
    for value in (0, 2.5, -1, math.inf, "two"):
        bad = synthetic_runs()
        bad[2]["kv_heads"] = value
        with pytest.raises(headalloc.InputError, match="kv_heads") as e:
            headalloc.calibrate(bad, bootstrap=0)
        assert repr(value) in str(e.value) or "expected numbers" in str(e.value)
