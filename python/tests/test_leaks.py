"""No reference or memory leak over 10,000 calls: the refcounts of
returned objects, Python's allocations (tracemalloc) and the process's
resident memory, for every kind of call."""

import gc
import sys
import tracemalloc

import numpy as np
import pytest

import headalloc
from conftest import data

N = 10000


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


W = np.random.default_rng(3).standard_normal((16, 8))
RUNS = data("data", "runs.csv")

CALLS = {
    "allocate": lambda: headalloc.allocate(512, 1e8, max_heads=64),
    "candidates": lambda: headalloc.allocate(96, 1e6).candidates(),
    "to_dict": lambda: headalloc.allocate(512, 1e8).to_dict(),
    "hdi": lambda: headalloc.hdi(W, heads=4).to_dict(),
    "head_weights": lambda: headalloc.head_weights(np.eye(3) + 0.5).to_dict(),
    "grouped": lambda: headalloc.pareto(512, 1e8, max_kv_dim=256, max_loss_ratio=1.5,
                                        model_dim=512).allocation.to_dict(),
    "grouped sweep": lambda: headalloc.sweep([96, 128], [1e6, 1e8], kv_heads="auto",
                                             max_kv_dim=64).kv_heads,
    "grouped errors": lambda: _raises(lambda: headalloc.allocate(512, 1e8, max_kv_dim=1,
                                                                 min_head_dim=2)),
    "errors": lambda: _raises(lambda: headalloc.allocate(512, 1e8, min_heads=1000)),
    "file errors": lambda: _raises(lambda: headalloc.hdi("/nonexistent.npy", heads=2)),
}


def _raises(f):
    try:
        f()
    except headalloc.Error as e:
        return e
    raise AssertionError("no error")


@pytest.mark.parametrize("name", list(CALLS))
def test_no_leak_over_10000_calls(name):
    call = CALLS[name]
    if sys.flags.dev_mode or __import__("os").environ.get("HEADALLOC_SANITIZED") == "1":
        pytest.skip("memory is measured on an uninstrumented build")
    for _ in range(200):                 # warm caches, imports, freelists
        call()
    r = call()
    assert sys.getrefcount(r) == 2       # r and getrefcount's argument
    gc.collect()
    tracemalloc.start()
    rss0 = rss_kib()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(N):
        call()
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    rss_grown = rss_kib() - rss0
    # A leak of one small object a call is >= 16 bytes x 10,000 = 160 KB.
    assert grown < 64 * 1024, grown
    assert rss_grown < 2048, rss_grown   # KiB: C-side leaks show here


def test_calibration_does_not_leak():
    if __import__("os").environ.get("HEADALLOC_SANITIZED") == "1":
        pytest.skip("memory is measured on an uninstrumented build")
    call = lambda: headalloc.calibrate(RUNS, bootstrap=0, target=(512, 1e8))
    for _ in range(20):
        call()
    rss0 = rss_kib()
    for _ in range(500):
        call()
    assert rss_kib() - rss0 < 2048
