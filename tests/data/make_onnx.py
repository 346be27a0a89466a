#!/usr/bin/python3
"""Regenerate the ONNX models of tests/data/onnx (run once, from this
directory, with Debian's python3-onnx: /usr/bin/python3 make_onnx.py).

mixed.onnx holds one key projection W (48 x 32, out-in: 6 heads of 8 in
d_model 32; small integers over 8, so that every dtype holds it exactly) in
each way an ONNX file can: an initializer in raw_data (FLOAT), a Constant
node's value in float_data (FLOAT), in int32_data (FLOAT16, BFLOAT16), in
double_data (DOUBLE), raw BFLOAT16, and external data in mixed.bin; plus a
1-D bias and an INT64 shape.  Every one has the same HDI.
tests/onnx_numpy.py checks each against NumPy.

warned.onnx: W as a FLOAT16 Constant, its head 2 zeroed and its head 4 of
rank 1 (tests/cli/cases/hdi-onnx-warned.test).  big-external.onnx: an
[8192, 8192] FLOAT initializer in external data big.bin, which the case
makes as a sparse file (the work limit refuses it before reading).

The bad-*.onnx models are hostile (tests/bad-input/hdi-bad-onnx-*.test)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx")


def key_weights():
    rng = np.random.default_rng(20)
    return rng.integers(-8, 9, size=(48, 32)).astype(np.float64) / 8


def bits16(a, dtype):
    """The 16-bit patterns of a (exact in both types) as int32 values."""
    if dtype == TensorProto.FLOAT16:
        return a.astype(np.float16).view(np.uint16).astype(np.int32)
    return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.int32)


def typed(name, dtype, a):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(a.shape)
    if dtype == TensorProto.FLOAT:
        t.float_data.extend(a.ravel().tolist())
    elif dtype == TensorProto.DOUBLE:
        t.double_data.extend(a.ravel().tolist())
    else:
        t.int32_data.extend(bits16(a, dtype).ravel().tolist())
    return t


def raw(name, dtype, a):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(a.shape)
    if dtype == TensorProto.BFLOAT16:
        t.raw_data = bits16(a, dtype).astype("<u2").tobytes()
    else:
        np_type = {TensorProto.FLOAT: "<f4", TensorProto.DOUBLE: "<f8",
                   TensorProto.FLOAT16: "<f2"}[dtype]
        t.raw_data = a.astype(np_type).tobytes()
    return t


def external(name, a, location, offset):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(a.shape)
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)),
                 ("length", str(a.size * 4))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def constant(t):
    return helper.make_node("Constant", [], [t.name], value=t)


def model(initializers=(), constants=(), nodes=()):
    nodes = [constant(t) for t in constants] + list(nodes)
    outputs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None)
               for n in nodes[:1]]
    g = helper.make_graph(nodes, "g", [], outputs, list(initializers))
    m = helper.make_model(g, producer_name="headalloc tests/data/make_onnx.py")
    m.opset_import[0].version = 13
    return m


def save(m, name):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(HERE, exist_ok=True)
    w = key_weights()
    blob = np.zeros(16, "<f4").tobytes() + w.astype("<f4").tobytes()
    with open(os.path.join(HERE, "mixed.bin"), "wb") as f:
        f.write(blob)
    save(model(initializers=[raw("init_raw_f32", TensorProto.FLOAT, w),
                             raw("bias", TensorProto.FLOAT, np.ones(48)),
                             external("ext_f32", w, "mixed.bin", 64)],
               constants=[typed("const_f32", TensorProto.FLOAT, w),
                          typed("const_f16", TensorProto.FLOAT16, w),
                          typed("const_bf16", TensorProto.BFLOAT16, w),
                          raw("const_raw_bf16", TensorProto.BFLOAT16, w),
                          typed("const_f64", TensorProto.DOUBLE, w),
                          helper.make_tensor("shape", TensorProto.INT64, [2], [48, 32])]),
         "mixed.onnx")

    v = w.copy()
    v[16:24] = 0
    v[32:40] = w[32]
    save(model(constants=[typed("k", TensorProto.FLOAT16, v)]), "warned.onnx")
    t = external("k", np.zeros((8192, 8192)), "big.bin", 0)
    save(model(initializers=[t]), "big-external.onnx")

    # Hostile: dims that disagree with the data; negative and
    # overflowing dims; external data outside the directory or past its
    # file's end; int32_data that is no 16-bit pattern.
    t = raw("k", TensorProto.FLOAT, w)
    t.dims[:] = [48, 33]
    save(model(initializers=[t]), "bad-dims-data.onnx")
    t = raw("k", TensorProto.FLOAT, w)
    t.dims[:] = [-48, 32]
    save(model(initializers=[t]), "bad-dims-negative.onnx")
    t = raw("k", TensorProto.FLOAT, w)
    t.dims[:] = [1 << 62, 1 << 3]
    save(model(initializers=[t]), "bad-dims-overflow.onnx")
    save(model(initializers=[external("k", w, "../mixed.bin", 64)]),
         "bad-external-dotdot.onnx")
    save(model(initializers=[external("k", w, "/etc/passwd", 0)]),
         "bad-external-absolute.onnx")
    save(model(initializers=[external("k", w, "mixed.bin", 128)]),
         "bad-external-past-end.onnx")
    t = typed("k", TensorProto.FLOAT16, w)
    t.int32_data[5] = 70000
    save(model(constants=[t]), "bad-int32-data.onnx")

    # Nesting: a Constant node whose attribute holds a graph with such a
    # node, 40 times (each level nests three messages: 120 > 64).
    g = helper.make_graph([], "leaf", [], [])
    for _ in range(40):
        node = helper.make_node("If", ["c"], ["y"], then_branch=g)
        g = helper.make_graph([node], "g", [], [])
    m = helper.make_model(g)
    with open(os.path.join(HERE, "bad-nesting.onnx"), "wb") as f:
        f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
