"""hdi() of arrays, tensors, state dicts and modules: the HDI of the same
weights written to a file, and of real PyTorch attention layers against
an independent NumPy computation of headalloc-model(7)'s definition."""

import json
import struct

import numpy as np
import pytest

import headalloc

try:
    import torch
except ImportError:   # python3-torch is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch (python3-torch) is not installed")


def reference_hdi(w, heads, layout="out-in"):
    """headalloc-model(7), THE HEAD DIVERSITY INDEX, with NumPy's SVD:
    Q_h spans W_K^h's columns (rank by the max(m, d) eps sigma_max rule),
    g = ||Q_h^T Q_h'||_F^2 / sqrt(r_h r_h'), HDI = 1 - mean over pairs."""
    w = np.asarray(w, dtype=np.float64)
    if layout == "out-in":
        w = w.T                                     # d_model x (H d_k)
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
    pairs = heads * (heads - 1) / 2
    return 1 - np.sum(np.triu(g, 1)) / pairs, g


def write_safetensors(path, tensors):
    """A safetensors file written by hand (no safetensors package)."""
    header, blobs, offset = {}, [], 0
    codes = {np.dtype(np.float32): "F32", np.dtype(np.float64): "F64",
             np.dtype(np.float16): "F16"}
    for name, a in tensors.items():
        raw = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": codes[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


@pytest.fixture
def weights():
    rng = np.random.default_rng(7)
    return rng.standard_normal((48, 32))       # 6 heads of 8, d_model 32, out-in


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_numpy_equals_safetensors_file(tmp_path, weights, dtype):
    a = weights.astype(dtype)
    write_safetensors(tmp_path / "w.safetensors", {"k": a})
    from_file = headalloc.hdi(str(tmp_path / "w.safetensors"), heads=6)
    from_array = headalloc.hdi(a, heads=6)
    assert from_array.hdi.tolist() == from_file.hdi.tolist()
    np.testing.assert_array_equal(from_array.overlaps[0], from_file.overlaps[0])
    assert from_array.baseline.tolist() == from_file.baseline.tolist()


def test_numpy_equals_npy_file(tmp_path, weights):
    np.save(tmp_path / "w.npy", weights)
    assert headalloc.hdi(weights, heads=6).hdi.tolist() == \
        headalloc.hdi(str(tmp_path / "w.npy"), heads=6).hdi.tolist()
    # Fortran order and in-out layout read the same weights.
    assert headalloc.hdi(np.asfortranarray(weights), heads=6).hdi.tolist() == \
        headalloc.hdi(weights, heads=6).hdi.tolist()
    assert headalloc.hdi(weights.T.copy(), heads=6, layout="in-out").hdi[0] == \
        pytest.approx(headalloc.hdi(weights, heads=6).hdi[0], abs=1e-13)


def test_array_against_numpy_reference(weights):
    want, g = reference_hdi(weights, 6)
    got = headalloc.hdi(weights, heads=6)
    assert got.hdi[0] == pytest.approx(want, abs=1e-12)
    np.testing.assert_allclose(got.overlaps[0], g, atol=1e-12)
    assert got.baseline[0] == 1 - 8 / 32


def test_state_dict_selects_by_pattern(weights):
    sd = {"layer.1.k": weights, "layer.0.k": weights[::-1].copy(), "bias": np.zeros(3)}
    got = headalloc.hdi(sd, heads=6, tensor="layer.*.k")
    assert got.names == ["layer.0.k", "layer.1.k"]
    assert got.hdi[1] == headalloc.hdi(weights, heads=6).hdi[0]


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_torch_tensor_equals_file(tmp_path, weights, dtype):
    t = torch.from_numpy(weights).to(getattr(torch, dtype))
    as_np = t.to(torch.float64).numpy()        # exact: every dtype widens to double
    got = headalloc.hdi(t, heads=6)
    assert got.hdi.tolist() == headalloc.hdi(as_np, heads=6).hdi.tolist()
    if dtype != "bfloat16":
        write_safetensors(tmp_path / "t.safetensors", {"k": t.numpy()})
        assert got.hdi.tolist() == \
            headalloc.hdi(str(tmp_path / "t.safetensors"), heads=6).hdi.tolist()
    else:
        assert got.hdi.tolist() == headalloc.hdi(
            str(_bf16_file(tmp_path, t)), heads=6).hdi.tolist()


def _bf16_file(tmp_path, t):
    raw = t.contiguous().view(torch.int16).numpy().astype("<i2").tobytes()
    text = json.dumps({"k": {"dtype": "BF16", "shape": list(t.shape),
                             "data_offsets": [0, len(raw)]}}).encode()
    path = tmp_path / "bf16.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw)
    return path


@needs_torch
def test_multihead_attention_against_numpy():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(embed_dim=64, num_heads=8)
    got = headalloc.hdi(mha)
    key = mha.in_proj_weight.detach().numpy()[64:128]
    want, g = reference_hdi(key, 8)
    assert got.names == ["in_proj_weight[k]"]
    assert got.hdi[0] == pytest.approx(want, abs=1e-6)   # float32 weights, double maths
    np.testing.assert_allclose(got.overlaps[0], g, atol=1e-6)


@needs_torch
def test_transformer_encoder_against_numpy():
    torch.manual_seed(1)
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64)
    enc = torch.nn.TransformerEncoder(layer, num_layers=3)
    got = headalloc.hdi(enc)
    assert len(got) == 3
    for i, mod in enumerate(enc.layers):
        key = mod.self_attn.in_proj_weight.detach().numpy()[32:64]
        assert got.hdi[i] == pytest.approx(reference_hdi(key, 4)[0], abs=1e-6)
    assert got.mean_hdi == pytest.approx(float(np.mean(got.hdi)), abs=1e-15)


@needs_torch
def test_no_attention_module_is_an_input_error():
    with pytest.raises(headalloc.InputError):
        headalloc.hdi(torch.nn.Linear(4, 4))


@pytest.mark.parametrize("make", [
    lambda: np.broadcast_to(np.ones(2048)[:, None], (2048, 102400)),
    lambda: np.broadcast_to(np.ones(2048, dtype=">f4")[:, None], (2048, 102400)),
    lambda: {"k": np.broadcast_to(np.ones(2048, dtype=np.float16)[:, None], (2048, 102400))},
])
def test_work_limit_comes_before_any_copy(make):
    """A 16 KB broadcast view of a [2048, 102400] tensor (1.6 GB as doubles)
    is refused by the work limit on its shape, before a copy or conversion:
    the peak of traced allocations (NumPy's included) stays small."""
    import tracemalloc
    view = make()
    tracemalloc.start()
    try:
        with pytest.raises(headalloc.UnsupportedError, match=r"\[2048, 102400\].*multiply-adds"):
            headalloc.hdi(view, heads=16, progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak


@needs_torch
def test_work_limit_comes_before_a_tensor_is_made_contiguous():
    t = torch.ones(2048, 1).expand(2048, 102400)
    with pytest.raises(headalloc.UnsupportedError, match="multiply-adds"):
        headalloc.hdi(t, heads=16, progress=False)
