#!/usr/bin/env python3
"""Regenerate the weight and covariance fixtures of tests/data (run once,
from this directory; needs only the Python standard library).  See
README.md here for what each file encodes."""
import json
import math
import struct

# Integer directions in a plane, so that every dtype (even BF16) holds the
# weights exactly and every cos^2 between two of them is rational.
DIR = {
    0: (1, 0),          # 0 degrees
    22.62: (12, 5),
    36.87: (4, 3),
    45: (1, 1),
    53.13: (3, 4),
    67.38: (5, 12),
    90: (0, 1),
    126.87: (-3, 4),
    135: (-1, 1),
    143.13: (-4, 3),
}

# 12 heads of d_k = 2 in d_model = 4.  Head h is spanned by u in the plane
# (e0, e2) at angle a and v in the plane (e1, e3) at angle b; the principal
# angles between heads h and h' are |a - a'| and |b - b'|, so
# g = (cos^2(a - a') + cos^2(b - b')) / 2.
ANGLES = [(0, 0), (22.62, 0), (36.87, 45), (45, 53.13), (53.13, 36.87),
          (45, 36.87), (45, 36.87), (67.38, 22.62), (135, 45),
          (126.87, 67.38), (143.13, 135), (90, 90)]
# Each head's basis is mixed by an invertible integer matrix [[a, b], [c, d]]
# (columns: a u + c v, b u + d v): same subspace, not orthonormal.
MIX = [(1, 0, 0, 1), (2, 0, 0, 3), (1, 1, 0, 1), (1, 2, 1, 3),
       (3, 1, 1, 1), (1, 0, 0, 1), (2, 1, 1, 1), (0, 1, 1, 0),
       (1, 0, 1, 1), (3, 0, 0, 2), (1, 1, 1, 2), (2, 1, 1, 2)]
H, DK, DM = 12, 2, 4


def head_matrix(angles, mix):
    """W_K^h as d_model rows of d_k columns."""
    (up, uq), (vp, vq) = DIR[angles[0]], DIR[angles[1]]
    u = [up, 0, uq, 0]
    v = [0, vp, 0, vq]
    a, b, c, d = mix
    return [[a * u[i] + c * v[i], b * u[i] + d * v[i]] for i in range(DM)]


def out_in(heads):
    """[H * d_k, d_model] rows (PyTorch layout)."""
    return [[w[i][j] for i in range(DM)] for w in heads for j in range(DK)]


def transpose(rows):
    return [list(r) for r in zip(*rows)]


def cos2(p, q):
    dot = p[0] * q[0] + p[1] * q[1]
    return dot * dot / ((p[0] ** 2 + p[1] ** 2) * (q[0] ** 2 + q[1] ** 2))


def overlaps(angles):
    return [[(cos2(DIR[x[0]], DIR[y[0]]) + cos2(DIR[x[1]], DIR[y[1]])) / 2
             for y in angles] for x in angles]


def f16(x):
    return struct.pack('<e', x)


def bf16(x):
    return struct.pack('<f', x)[2:]  # exact for these small integers


PACK = {'F64': lambda x: struct.pack('<d', x), 'F32': lambda x: struct.pack('<f', x),
        'F16': f16, 'BF16': bf16}


def flat(rows):
    return [x for r in rows for x in r]


def safetensors(path, tensors, header_patch=None, cut=None):
    """tensors: list of (name, dtype, shape, values)."""
    header, data = {}, b''
    for name, dtype, shape, values in tensors:
        blob = b''.join(PACK[dtype](float(x)) for x in values)
        header[name] = {'dtype': dtype, 'shape': shape,
                        'data_offsets': [len(data), len(data) + len(blob)]}
        data += blob
    if header_patch:
        header_patch(header)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    blob = struct.pack('<Q', len(text)) + text + data
    if cut is not None:
        blob = blob[:cut]
    with open(path, 'wb') as f:
        f.write(blob)


def npy(path, descr, shape, values, header=None):
    if header is None:
        header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
            descr, ', '.join(str(s) for s in shape) + (',' if len(shape) == 1 else ''))
    h = header.encode()
    pad = -(10 + len(h) + 1) % 64
    h += b' ' * pad + b'\n'
    fmt = {'<f2': '<e', '<f4': '<f', '<f8': '<d'}[descr]
    data = b''.join(struct.pack(fmt, float(x)) for x in values)
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h + data)


def main():
    heads = [head_matrix(a, m) for a, m in zip(ANGLES, MIX)]
    w = out_in(heads)
    shape = [H * DK, DM]
    for dtype in ('F32', 'F16', 'BF16'):
        safetensors('heads12-%s.safetensors' % dtype.lower(),
                    [('k_proj.weight', dtype, shape, flat(w))])
    npy('heads12-f32.npy', '<f4', shape, flat(w))
    npy('heads12-in-out.npy', '<f8', [DM, H * DK], flat(transpose(w)))
    # What np.save(W.T) writes: the transpose [4, 24] in Fortran order,
    # whose bytes are W's in C order.
    npy('heads12-fortran.npy', '<f8', [DM, H * DK], flat(w),
        header="{'descr': '<f8', 'fortran_order': True, 'shape': (%d, %d), }"
        % (DM, H * DK))

    # Layer 1: the same angles in reverse order, head 3 of rank 1 (both
    # columns along u) and head 7 all zero.
    l1 = [head_matrix(a, m) for a, m in zip(reversed(ANGLES), MIX)]
    u3 = head_matrix(list(reversed(ANGLES))[3], (1, 0, 0, 1))
    l1[3] = [[r[0], 2 * r[0]] for r in u3]
    l1[7] = [[0, 0] for _ in range(DM)]
    safetensors('two-layers.safetensors', [
        ('model.layers.0.self_attn.k_proj.weight', 'F32', shape, flat(w)),
        ('model.layers.1.self_attn.k_proj.weight', 'F64', shape, flat(out_in(l1))),
        ('model.layers.0.self_attn.q_proj.weight', 'BF16', shape,
         flat(out_in(list(reversed(heads))))),
        ('model.norm.weight', 'F32', [DM], [1.0] * DM),
    ])

    # Broken files: a 2-head [4, 2] F32 tensor spoilt one way each.
    small = ('k', 'F32', [4, 2], [1, 0, 0, 1, 1, 1, 2, 3])
    safetensors('bad-truncated.safetensors', [small], cut=90)
    with open('bad-header-length.safetensors', 'wb') as f:
        f.write(struct.pack('<Q', 4096) + b'{"k":{"dtype":"F32"')
    safetensors('bad-offsets-range.safetensors', [small],
                lambda hd: hd['k'].update(data_offsets=[32, 64]))
    two = [small, ('q', 'F32', [4, 2], [0] * 8)]
    safetensors('bad-offsets-overlap.safetensors', two,
                lambda hd: hd['q'].update(data_offsets=[16, 48]))
    safetensors('bad-dtype.safetensors', [small],
                lambda hd: hd['k'].update(dtype='F31'))
    safetensors('bad-nonfinite.safetensors',
                [('k', 'F32', [4, 2], [1, 0, 0, 1, float('inf'), 1, 2, 3])])
    npy('bad-header.npy', '<f4', [4, 2], [0] * 8,
        header="{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2), ")

    g = overlaps(ANGLES)
    pairs = [(g[i][j], i, j) for i in range(H) for j in range(i + 1, H)]
    print('layer 0 HDI', 1 - 2 * sum(p[0] for p in pairs) / (H * (H - 1)))
    print('max', max(pairs), 'min', min(pairs))
    print('sorted', sorted(p[0] for p in pairs)[:3], sorted(p[0] for p in pairs)[-3:])
    for row in g:
        print(' '.join('%.6f' % x for x in row))


if __name__ == '__main__':
    main()
