#!/usr/bin/env python3
"""Compare two versions of golden outputs number by number.

    golden_ulps.py OLD_DIR NEW_DIR

For every file of NEW_DIR that differs from OLD_DIR: its lines are paired
in order (the regeneration changes digits, not lines), and in each changed
line the numbers are paired in order.  Prints the rows (lines) changed,
the numbers changed, and the largest difference in ulps of the printed
numbers (as doubles: an exact count for numbers printed to 17 digits, the
difference of the printed values otherwise, with the digits printed)."""
import math
import os
import re
import struct
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def ordered(x):
    (k,) = struct.unpack("<q", struct.pack("<d", x))
    return k if k >= 0 else -(k & 0x7FFFFFFFFFFFFFFF)


def main(old_dir, new_dir):
    rows = numbers = 0
    worst = (0, None)
    worst_rel = (0.0, None)
    for name in sorted(os.listdir(new_dir)):
        new_path = os.path.join(new_dir, name)
        old_path = os.path.join(old_dir, name)
        with open(new_path) as f:
            new = f.read().splitlines()
        with open(old_path) as f:
            old = f.read().splitlines()
        if new == old:
            continue
        if len(new) != len(old):
            print(f"{name}: {len(old)} -> {len(new)} lines", file=sys.stderr)
            return 1
        for a, b in zip(old, new):
            if a == b:
                continue
            rows += 1
            na, nb = NUMBER.findall(a), NUMBER.findall(b)
            if len(na) != len(nb) or NUMBER.sub("#", a) != NUMBER.sub("#", b):
                print(f"{name}: text changed: {a!r} -> {b!r}", file=sys.stderr)
                return 1
            for x, y in zip(na, nb):
                if x == y:
                    continue
                numbers += 1
                fx, fy = float(x), float(y)
                ulps = abs(ordered(fx) - ordered(fy))
                rel = abs(fx - fy) / max(abs(fx), abs(fy))
                if ulps > worst[0]:
                    worst = (ulps, f"{name}: {x} -> {y}")
                if rel > worst_rel[0]:
                    worst_rel = (rel, f"{name}: {x} -> {y}")
    print(f"rows changed: {rows}; numbers changed: {numbers}")
    print(f"largest change: {worst[0]} ulps ({worst[1]})")
    print(f"largest relative change: {worst_rel[0]:.3g} ({worst_rel[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
