"""The package gives the numbers of the CLI's YAML on the golden cases:
the CLI is run with --format yaml, its report read with PyYAML (not the
extension's reader), and compared with the Python results' attributes and
to_dict()."""

import math
import os
import shutil

import numpy as np
import pytest

import headalloc
from conftest import data, golden


def same(a, b):
    """Equal as data, floats bit for bit (inf included)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), (a, b)
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        assert float(a) == float(b) or (math.isnan(a) and math.isnan(b)), (a, b)
    else:
        assert a == b, (a, b)


@pytest.mark.parametrize("case, args, kwargs", [
    ("all-yaml", dict(budget=512, samples=1e8), {}),
    ("constrained", dict(budget=4096, samples=1e9),
     dict(head_dim_multiple=8, min_head_dim=16, max_head_dim=256)),
    ("largest-budget", dict(budget=9223372036854775807, samples=1e8), {}),
    ("budget-one", dict(budget=1, samples=1e8), {}),
])
def test_allocate_matches_cli(cli, case, args, kwargs):
    golden(case)
    flags = ["--budget", args["budget"], "--samples", repr(args["samples"]), "--all"]
    for k, v in kwargs.items():
        flags += ["--" + k.replace("_", "-"), v]
    want = cli(*flags)
    a = headalloc.allocate(args["budget"], args["samples"], **kwargs)
    same(a.to_dict(), want)
    opt = want["optimum"]
    assert (a.heads, a.head_dim) == (opt["heads"], opt["head_dim"])
    assert a.mse == opt["mse"]
    assert a.log_mse / math.log(10) == pytest.approx(opt["log10_mse"], rel=1e-15, abs=1e-300)
    assert a.relaxed.head_dim == want["relaxed"]["head_dim"]
    assert a.certificate.method == want["certificate"]["method"]
    assert a.certificate.evaluated == want["certificate"]["evaluated"]
    got = [(c.heads, c.head_dim, c.mse) for c in a.candidates()]
    assert got == [(c["heads"], c["head_dim"], c["mse"]) for c in want["candidates"]]


def test_model_parameters_match_cli(cli):
    golden("generalised-model-yaml")
    model = headalloc.Model(smoothness=1.5, hdi=0.7, irreducible=0.25, var_rate=0.25,
                            var_power=1, bias_coef=3, var_coef=0.5)
    want = cli("--budget", 768, "--samples", "1e7", "--smoothness", 1.5, "--hdi", 0.7,
               "--irreducible", 0.25, "--var-rate", 0.25, "--var-power", 1,
               "--bias-coef", 3, "--var-coef", 0.5, "--all")
    same(headalloc.allocate(768, 1e7, model).to_dict(), want)
    same(model.to_dict(), want["model"])


def test_sweep_matches_cli(cli):
    golden("sweep-yaml")
    want = cli("--budget", "512,1024", "--samples", "1e4:1e12:9")
    s = headalloc.sweep([512, 1024], headalloc.geomspace(1e4, 1e12, 9))
    same(s.to_dict(), want)
    for key in want["table"][0]:
        np.testing.assert_array_equal(s[key], [row[key] for row in want["table"]])
    same(s.fits, want["fits"])
    assert s.to_dict()["fits"]["by_budget"]


def test_regimes_match_cli(cli):
    golden("regimes-constrained-yaml")
    want = cli("--budget", 4096, "--regimes", "--head-dim-multiple", 8,
               "--max-head-dim", 256)
    r = headalloc.regimes(4096, head_dim_multiple=8, max_head_dim=256)
    same(r.table, want["regimes"])
    np.testing.assert_array_equal(r.head_dim, [x["head_dim"] for x in want["regimes"]])
    assert math.isinf(r.samples_to[-1])


@pytest.mark.parametrize("case, name", [
    ("hdi-f32-yaml", "heads12-f32.safetensors"),
    ("hdi-f16-yaml", "heads12-f16.safetensors"),
    ("hdi-bf16-yaml", "heads12-bf16.safetensors"),
    ("hdi-npy-yaml", "heads12-f32.npy"),
])
def test_hdi_file_matches_cli(cli, tmp_path, case, name):
    golden(case)
    shutil.copy(data("tests", "data", name), tmp_path / name)
    want = cli("hdi", name, "--heads", 12, cwd=tmp_path)
    got = headalloc.hdi(str(tmp_path / name), heads=12)
    d = got.to_dict()
    d["file"] = name
    same(d, want)
    assert got.hdi.tolist() == [l["hdi"] for l in want["layers"]]
    np.testing.assert_array_equal(got.overlaps[0], np.array(want["layers"][0]["overlap"]))


def test_hdi_directory_matches_cli(cli):
    golden("hdi-dir-llama-yaml")
    root = data("tests", "data", "checkpoints")
    directory = os.path.join(root, "llama")
    if not os.path.isdir(directory):
        pytest.skip("no llama checkpoint fixture")
    want = cli("hdi", directory)
    same(headalloc.hdi(directory).to_dict(), want)


def test_head_weights_match_cli(cli):
    golden("weights-yaml")
    path = data("tests", "data", "cov3.yaml")
    want = cli("weights", path)
    w = headalloc.head_weights(path)
    same(w.to_dict(), want)
    assert w.alpha.tolist() == want["alpha"]


def test_calibration_matches_cli(cli, tmp_path):
    golden("calibrate-csv")
    shutil.copy(data("data", "runs.csv"), tmp_path / "runs.csv")
    want = cli("calibrate", "runs.csv", "--budget", 4096, "--samples", "1e10",
               "--bootstrap", 50, "--compare", cwd=tmp_path)
    c = headalloc.calibrate(str(tmp_path / "runs.csv"), target=(4096, 1e10), bootstrap=50,
                            compare=True)
    same(c.to_dict(), want)
    assert c.prediction["head_dim"] == want["prediction"]["head_dim"]
    # The calibrated model reads back exactly, and allocates as the CLI.
    assert c.model.to_dict() == want["model"]
    a = headalloc.allocate(4096, 1e10, c.model)
    assert (a.heads, a.head_dim) == (want["prediction"]["heads"], want["prediction"]["head_dim"])
