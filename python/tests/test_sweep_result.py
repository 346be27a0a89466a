"""A sweep and an allocation keep the library's result they were made
from: the sweep's columns are filled from its rows (checked against the
report's table, built from the same result by the report's events, and
against the CLI), its fits and picture read it (the picture is the
CLI's, byte for byte), nothing is solved again (the progress callback is
not called again), and the CLI's limit of rows applies."""

import os
import subprocess

import numpy as np
import pytest

import headalloc
from conftest import CLI

KEYS = ["budget", "samples", "heads", "head_dim", "mse", "log10_mse",
        "relaxed_head_dim", "relaxed_heads"]


def test_columns_are_the_reports_rows():
    calls = []
    s = headalloc.sweep([512, 768, 4096], headalloc.geomspace(1e3, 1e15, 3000),
                        progress=lambda *a: calls.append(a))
    assert calls and calls[-1] == ("rows", 9000, 9000)
    assert list(s.keys()) == KEYS
    assert len(s) == 9000
    for k in ("budget", "heads", "head_dim"):
        assert s[k].dtype == np.int64
    d = s.to_dict()
    table = d["table"]
    assert len(table) == 9000
    for k in KEYS:
        np.testing.assert_array_equal(s[k], [row[k] for row in table])
    assert s.fits == d["fits"]
    assert len(s.fits["by_samples"]) == 3000
    assert s["budget"][:3].tolist() == [512, 768, 4096]
    # the report and the picture read the result: no row is solved again
    n = len(calls)
    s.to_dict()
    if headalloc._ext.plot_available:
        s._repr_png_()
    assert len(calls) == n


def test_grouped_columns():
    s = headalloc.sweep([4096, 8192], [1e6, 1e9], kv_heads="auto", max_kv_dim=512,
                        progress=False)
    table = s.to_dict()["table"]
    for k in ("kv_heads", "kv_dim", "kv_cache_bytes_per_token"):
        np.testing.assert_array_equal(s[k], [row[k] for row in table])
    assert (s["kv_dim"] <= 512).all()


def test_the_clis_limit_of_rows():
    with pytest.raises(headalloc.InputError,
                       match=r"a table of 2 budgets x 500001 values of n: at most "
                             r"1000000 rows"):
        headalloc.sweep([512, 1024], headalloc.geomspace(1e4, 1e12, 500001),
                        progress=False)


@pytest.mark.skipif(not CLI or not headalloc._ext.plot_available,
                    reason="needs the CLI and pictures")
def test_the_picture_is_the_clis(tmp_path):
    s = headalloc.sweep([512, 1024], headalloc.geomspace(1e4, 1e12, 9), progress=False)
    s.plot(tmp_path / "py.svg")
    subprocess.run([CLI, "--budget", "512,1024", "--samples", "1e4:1e12:9",
                    "--plot", str(tmp_path / "cli.svg"), "--output", os.devnull],
                   check=True)
    assert (tmp_path / "py.svg").read_bytes() == (tmp_path / "cli.svg").read_bytes()


def test_allocation_reads_its_result(tmp_path):
    a = headalloc.allocate(720720, 1e9)
    d = a.to_dict()
    got = [(c.heads, c.head_dim, c.mse) for c in a.candidates()]
    assert got == [(c["heads"], c["head_dim"], c["mse"]) for c in d["candidates"]]
    assert (a.heads, a.head_dim) == (d["optimum"]["heads"], d["optimum"]["head_dim"])
    assert got[0][:2] == (a.heads, a.head_dim)
    if headalloc._ext.plot_available:
        a.plot(tmp_path / "a.svg")
        assert b"<svg" in (tmp_path / "a.svg").read_bytes()[:400]
