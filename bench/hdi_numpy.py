#!/usr/bin/env python3
"""The HDI of every tensor of a safetensors file, with numpy: the reference
that bench/hdi-bench.sh times headalloc against.

    hdi_numpy.py FILE --heads H [--pattern GLOB]

The same computation as headalloc's (include/headalloc/hdi.h), written as
one would in numpy: per tensor (out-in, [H d_k, d_model], BF16/F16/F32/F64)
the thin SVD of every head at once, the numerical rank by the same rule
(s > max(m, n) eps s_max), the stacked bases' Gram matrix in one product,
per-pair block Frobenius norms.  It streams one tensor at a time.  Prints
one line per tensor, "NAME HDI SECONDS", then the BLAS numpy runs on.
"""
import argparse
import fnmatch
import json
import struct
import sys
import time

import numpy as np

DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2"}


def tensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return 8 + n, header


def load(path, base, t):
    rows, cols = t["shape"]
    start = base + t["data_offsets"][0]
    raw = np.fromfile(path, dtype=DTYPES[t["dtype"]], count=rows * cols,
                      offset=start)
    if t["dtype"] == "BF16":
        raw = (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float64).reshape(rows, cols)


def hdi(w, heads):
    rows, m = w.shape
    n = rows // heads
    # column space of W_K^h (m x n) for every head at once
    u, s, _ = np.linalg.svd(w.reshape(heads, n, m).transpose(0, 2, 1),
                            full_matrices=False)
    tol = max(m, n) * np.finfo(np.float64).eps * s[:, :1]
    keep = s > tol
    rank = keep.sum(axis=1)
    stack = (u * keep[:, None, :]).transpose(0, 2, 1).reshape(heads * n, m)
    gram = stack @ stack.T
    g = (gram.reshape(heads, n, heads, n) ** 2).sum(axis=(1, 3))
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(np.outer(rank, rank) > 0,
                     g / np.sqrt(np.outer(rank, rank)), 0.0)
    g = np.minimum(g, 1.0)
    if heads == 1:
        return 1.0
    return 1.0 - g[np.triu_indices(heads, 1)].mean()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--pattern", default="*")
    a = ap.parse_args()
    base, header = tensors(a.file)
    for name in sorted(header):
        if not fnmatch.fnmatchcase(name, a.pattern):
            continue
        t0 = time.perf_counter()
        value = hdi(load(a.file, base, header[name]), a.heads)
        print(f"{name} {value:.15f} {time.perf_counter() - t0:.4f}",
              flush=True)
    try:
        import threadpoolctl
        for lib in threadpoolctl.threadpool_info():
            print(f"# blas {lib.get('internal_api')} {lib.get('version')} "
                  f"{lib.get('architecture')} threads {lib.get('num_threads')}")
    except ImportError:
        print("# blas: threadpoolctl absent; see numpy.show_config()")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
