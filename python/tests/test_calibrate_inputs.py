"""calibrate() of runs in memory: a DataFrame, a list of dicts and a
mapping of columns give the calibration of the CSV file of the same runs."""

import csv
import math

import numpy as np
import pytest

import headalloc
from conftest import data


def runs_of_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        out.append({"heads": int(r["heads"]), "head_dim": int(r["head_dim"]),
                    "samples": float(r["samples"]), "loss": float(r["loss"]),
                    "loss_se": float(r["loss_se"]) if r.get("loss_se") else None})
    return out


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("heads,head_dim,samples,loss,loss_se\n")
        for r in rows:
            se = "" if r["loss_se"] is None else repr(r["loss_se"])
            f.write("%d,%d,%r,%r,%s\n" % (r["heads"], r["head_dim"], r["samples"],
                                         r["loss"], se))


KW = dict(target=(512, 1e8), bootstrap=40, seed=3)


@pytest.fixture
def runs(tmp_path):
    rows = runs_of_csv(data("data", "runs.csv"))
    rows[0]["loss_se"] = 0.02          # one run with a standard error
    path = tmp_path / "runs.csv"
    write_csv(path, rows)
    return rows, str(path)


def test_list_of_dicts_equals_csv(runs):
    rows, path = runs
    assert headalloc.calibrate(rows, **KW).to_dict()["calibration"] == \
        headalloc.calibrate(path, **KW).to_dict()["calibration"]


def test_dataframe_equals_csv(runs):
    pandas = pytest.importorskip("pandas")
    rows, path = runs
    df = pandas.DataFrame(rows)
    from_df = headalloc.calibrate(df, **KW)
    from_csv = headalloc.calibrate(path, **KW)
    assert from_df.to_dict()["calibration"] == from_csv.to_dict()["calibration"]
    assert from_df.model == from_csv.model
    assert from_df.prediction == from_csv.prediction


def test_columns_and_mapping(runs):
    rows, path = runs
    cols = {"H": [r["heads"] for r in rows], "d": [r["head_dim"] for r in rows],
            "n": np.array([r["samples"] for r in rows]),
            "val/loss": [r["loss"] for r in rows], "se": [r["loss_se"] for r in rows]}
    got = headalloc.calibrate(cols, columns={"heads": "H", "head_dim": "d", "samples": "n",
                                             "loss": "val/loss", "loss_se": "se"}, **KW)
    assert got.parameters == headalloc.calibrate(path, **KW).parameters


def test_csv_file_under_tracker_names(runs, tmp_path):
    """columns= maps a CSV file's W&B-style header (head_dim from n_embd /
    n_head) onto the same runs as the file under headalloc's names."""
    rows, path = runs
    wandb = tmp_path / "wandb.csv"
    with open(wandb, "w") as f:
        f.write('"Name","n_head","n_embd","tokens","val/loss","val/loss_se"\n')
        for i, r in enumerate(rows):
            se = "" if r["loss_se"] is None else repr(r["loss_se"])
            f.write('"run-%d","%d","%d","%r","%r","%s"\n' % (
                i, r["heads"], r["heads"] * r["head_dim"], r["samples"], r["loss"], se))
    got = headalloc.calibrate(str(wandb), columns={
        "heads": "n_head", "model_dim": "n_embd", "samples": "tokens",
        "loss": "val/loss", "loss_se": "val/loss_se"}, **KW)
    want = headalloc.calibrate(path, **KW)
    assert got.parameters == want.parameters
    assert got.prediction == want.prediction
    with pytest.raises(headalloc.InputError, match="named for loss"):
        headalloc.calibrate(str(wandb), columns={"heads": "n_head", "model_dim": "n_embd",
                                                 "samples": "tokens", "loss": "val_loss"},
                            **KW)
    with pytest.raises(headalloc.InputError, match="expected a key heads"):
        headalloc.calibrate(str(wandb), columns={"width": "n_embd"}, **KW)


def test_fix_free_and_model_use(runs):
    rows, _ = runs
    c = headalloc.calibrate(rows, free=["bias_coef", "var_coef", "smoothness"],
                            fix={"irreducible": 1.5}, bootstrap=0)
    p = c.parameters
    assert p["irreducible"]["free"] is False and p["irreducible"]["value"] == 1.5
    assert p["smoothness"]["free"] is True
    assert c.model.irreducible == 1.5
    assert c.model.log_var_coef == p["var_coef"]["value"]      # exact, ln c
    assert headalloc.allocate(512, 1e8, c.model).mse > 1.5


def test_progress_callable_and_interrupt(runs):
    rows, _ = runs
    if not headalloc._ext.bootstrap_progress:
        pytest.skip("the library's bootstrap takes no progress callback yet "
                    "(struct ha_cal_options.progress)")
    calls = []

    def stop(what, done, total):
        calls.append((what, done, total))
        if len(calls) == 2:
            raise KeyboardInterrupt
    import time
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        headalloc.calibrate(rows, bootstrap=100000, progress=stop)
    assert time.monotonic() - start < 30   # stopped, not run to the end
    assert calls[0][2] == 100000
