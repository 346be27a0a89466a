"""headalloc.hdi: the Head Diversity Index of key projections given as a
file, a model directory, arrays, a state dict or a PyTorch module."""

from __future__ import annotations

import fnmatch
import os
import sys
from typing import Any, Optional

import numpy as np

from . import _ext
from ._errors import InputError, UnsupportedError, bad_value
from ._progress import Progress, progress_callback
from ._results import HDI


def hdi(source: Any, heads: Optional[int] = None, tensor: Optional[str] = None,
        layout: Optional[str] = None, progress: Progress = None) -> HDI:
    """The Head Diversity Index (HDI) of key projections.

    Parameters
    ----------
    source : path, array, dict of arrays or torch.nn.Module
        * a path, read by the same rules and with the same messages as
          ``headalloc hdi PATH``: a weights file (.safetensors, .npy or
          ONNX; ``heads`` required; ``tensor`` a name or fnmatch pattern
          selecting tensors, else the tensors whose names say they are
          key projections, or a file's one tensor) or a Hugging Face
          model directory, given as the directory, its config.json or
          its model.safetensors.index.json (its key projections are
          found by the model type; ``heads`` re-cuts each key block;
          ``tensor`` selects tensors by name instead, with ``heads`` then
          required, and ``layout`` applies only with ``tensor``);
        * a 2-D NumPy array or torch.Tensor (float16, bfloat16, float32,
          float64, either byte order) of one key projection, ``heads``
          required; a C-contiguous native float64 array is read where it
          lies, without a copy;
        * a dict of arrays or tensors (a state dict): the tensors whose
          names match ``tensor`` (all when None), ``heads`` required;
        * a torch.nn.Module: the key block of every
          nn.MultiheadAttention's in_proj_weight (or its k_proj_weight)
          with its num_heads, and the key projections of Hugging Face
          attention modules (k_proj, key, k or GPT-2's c_attn) found by
          walking the module, with their key heads.
    heads : int, optional
        The key heads of each tensor.
    tensor : str, optional
        A tensor's name or an fnmatch pattern.
    layout : {"out-in", "in-out"}, optional
        "out-in" ([H d_k, d_model], PyTorch's nn.Linear; the default) or
        "in-out" ([d_model, H d_k], GPT-2's Conv1D, JAX).  Modules are
        read in their own layouts; a model directory's preset knows its
        layout, so with a directory ``layout`` needs ``tensor``.
    progress : None, bool or callable
        None (a tqdm bar when tqdm is installed, shown once the work has
        taken a second), False (none), or a callable(what, done, total)
        told after each layer measured (what is "layers"); raising in it
        stops the call with that exception, as Ctrl-C does.

    Returns
    -------
    HDI
        Per layer ``hdi``, ``baseline`` (the expected HDI of random heads
        of the same shape) and ``overlaps`` as NumPy arrays; zero or
        lower-rank heads in ``warnings``, each also issued as a
        HeadallocWarning.

    Raises
    ------
    InputError
        A bad value: heads that do not divide the tensor, a tensor whose
        heads are all zero, an unknown layout, a layout for a model
        directory without tensor.
    UnsupportedError
        A dtype that is not floating point, or a tensor whose pairwise
        overlaps cost more than a 4096 x 4096 layer's (checked on the
        shape, before the tensor is copied or converted).
    FileError
        A file cannot be read.
    """
    callback = progress_callback(progress)
    try:
        return _measure(source, heads, tensor, layout, callback)
    finally:
        if hasattr(callback, "close"):
            callback.close()


def _measure(source, heads, tensor, layout, callback):
    if layout is not None and layout not in ("out-in", "in-out"):
        bad_value("layout", layout, "out-in or in-out")
    if isinstance(source, (str, bytes, os.PathLike)):
        # the library's resolver, as the command line's: it is told
        # whether a layout was given (a model directory's preset knows it)
        return HDI(_ext.hdi_path(os.fsdecode(source), tensor, _heads(heads, 0), layout,
                                 callback))
    layout = layout or "out-in"
    if _is_module(source):
        items = _module_keys(source)
        if not items:
            raise InputError("hdi: the module has no attention layer headalloc recognises "
                             "(nn.MultiheadAttention, Hugging Face k_proj/key/k/c_attn)")
        return HDI(_ext.hdi_arrays(items, "out-in", type(source).__name__, callback))
    if isinstance(source, dict):
        names = [n for n in source if tensor is None or n == tensor
                 or fnmatch.fnmatchcase(n, tensor)]
        if tensor is not None and tensor in source:
            names = [tensor]
        if not names:
            raise InputError("hdi: no tensor matches %r" % (tensor,))
        h = _heads(heads)
        items = [(n,) + _buffer(source[n], n, h, layout) + (h,) for n in sorted(names)]
        return HDI(_ext.hdi_arrays(items, layout, "state dict", callback))
    name = tensor or "array"
    h = _heads(heads)
    return HDI(_ext.hdi_arrays([(name,) + _buffer(source, name, h, layout) + (h,)],
                               layout, name, callback))


def _heads(heads, default=None):
    """The heads given, from 1 to the library's HA_HDI_MAX_HEADS, in the
    command line's words for --heads (default: what None means)."""
    if heads is None:
        if default is None:
            raise InputError("heads is required for an array or a state dict")
        return default
    try:
        h = int(heads)
    except (TypeError, ValueError, OverflowError):
        h = None
    if isinstance(heads, bool) or h is None or h != heads or not 1 <= h <= _ext.hdi_max_heads:
        bad_value("heads", heads, "a whole number from 1 to %d" % _ext.hdi_max_heads)
    return h


_KINDS = {np.dtype(np.float64): "d", np.dtype(np.float32): "f", np.dtype(np.float16): "e"}


def _check_work(shape, name, heads, layout):
    """The library's checks of a tensor's shape alone, before any copy or
    conversion (a broadcast view of a few bytes may stand for gigabytes):
    2-D and within the work limit, as the command line checks a tensor
    before reading it."""
    if len(shape) != 2:
        raise UnsupportedError("tensor '%s' has %d dimensions; a key projection must be "
                               "2-D" % (name, len(shape)))
    _ext.hdi_check_work(name, int(shape[0]), int(shape[1]), heads, layout)


def _buffer(x, name, heads, layout):
    """(array, kind) for the extension: C-contiguous, without a copy when
    it already is; bfloat16 as its bits (uint16).  The work limit is
    checked on the shape first."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        _check_work(tuple(x.shape), name, heads, layout)
        t = x.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        t = t.contiguous()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16), "b"
        if t.dtype not in (torch.float16, torch.float32, torch.float64):
            raise UnsupportedError("tensor '%s': dtype %s is not floating point (float16, "
                                   "bfloat16, float32, float64)" % (name, t.dtype))
        x = t.numpy()
    shape = getattr(x, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        _check_work(shape, name, heads, layout)
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        raise InputError("tensor '%s': expected an array of numbers" % name) from None
    _check_work(a.shape, name, heads, layout)
    # A byte order other than the machine's is the same dtype, swapped:
    # read as the machine's (a copy), never refused as another type.
    native = a.dtype.newbyteorder("=") if a.dtype.kind == "f" else a.dtype
    kind = _KINDS.get(native)
    if kind is None:
        raise UnsupportedError("tensor '%s': dtype %s is not floating point (float16, "
                               "bfloat16, float32, float64)" % (name, a.dtype))
    if a.dtype != native:
        a = a.astype(native)
    return np.ascontiguousarray(a), kind


def _is_module(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.nn.Module)


# Attributes of Hugging Face attention modules that hold the key heads.
_HEAD_ATTRS = ("num_key_value_heads", "num_kv_heads", "n_kv_heads", "num_heads",
               "num_attention_heads", "n_heads", "n_head")


def _module_heads(m):
    for attr in _HEAD_ATTRS:
        v = getattr(m, attr, None)
        if isinstance(v, int) and v > 0:
            return v
    config = getattr(m, "config", None)
    for attr in ("num_key_value_heads", "num_attention_heads", "n_head", "num_heads"):
        v = getattr(config, attr, None)
        if isinstance(v, int) and v > 0:
            return v
    return None


def _module_keys(module):
    """[(name, array, kind, heads)] of every key projection in module."""
    import torch.nn as nn
    items = []
    for name, m in module.named_modules():
        if isinstance(m, nn.MultiheadAttention):
            e = m.embed_dim
            if m._qkv_same_embed_dim:
                w, label = m.in_proj_weight[e:2 * e], "in_proj_weight[k]"
            else:
                w, label = m.k_proj_weight, "k_proj_weight"
            full = (name + "." if name else "") + label
            items.append((full,) + _buffer(w, full, m.num_heads, "out-in") + (m.num_heads,))
            continue
        heads = _module_heads(m)
        if heads is None:
            continue
        key = next((getattr(m, a) for a in ("k_proj", "key", "k")
                    if isinstance(getattr(m, a, None), nn.Linear)), None)
        if key is not None:
            w = key.weight
        elif type(getattr(m, "c_attn", None)).__name__ == "Conv1D":
            d = m.c_attn.weight.shape[0]
            w = m.c_attn.weight[:, d:2 * d].t()  # GPT-2: q|k|v, in-out
        else:
            continue
        full = (name + "." if name else "") + "key"
        items.append((full,) + _buffer(w, full, heads, "out-in") + (heads,))
    return items
