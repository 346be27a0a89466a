#!/usr/bin/env python3
"""Write a LLaMA-7B-shaped key-projection file for bench/hdi-bench.sh.

    hdi_gen.py OUT [--layers 32] [--rows 4096] [--cols 4096] [--seed 1]

OUT is a .safetensors file of LAYERS BF16 tensors
model.layers.N.self_attn.k_proj.weight of [ROWS, COLS], with random
signs and mantissas and magnitudes in [2^-7, 2^-5): full-rank heads, as
real weights have.  Only the standard library: it runs without numpy, at
disk speed (the bytes come from random.randbytes, and one translate of
every high byte sets the exponent).
"""
import argparse
import json
import random
import struct


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    size = a.rows * a.cols * 2
    header = {"__metadata__": {"format": "pt"}}
    for i in range(a.layers):
        header[f"model.layers.{i}.self_attn.k_proj.weight"] = {
            "dtype": "BF16",
            "shape": [a.rows, a.cols],
            "data_offsets": [i * size, (i + 1) * size],
        }
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    # bfloat16, little-endian: the high byte is the sign and the top seven
    # exponent bits; 0x3c there gives exponents 120 and 121.
    high = bytes((b & 0x80) | 0x3C for b in range(256))
    rng = random.Random(a.seed)
    with open(a.out, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _ in range(a.layers):
            data = bytearray(rng.randbytes(size))
            data[1::2] = data[1::2].translate(high)
            f.write(data)


if __name__ == "__main__":
    main()
