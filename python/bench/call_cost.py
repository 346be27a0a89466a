"""The cost of a Python call against the same call in C:
headalloc.allocate(512, 1e8) (timeit, best of 5 rounds) against
ha_solve(512, NULL, model at n = 1e8) (call_cost.c, best of 5 rounds),
both measured in this run.

    /usr/bin/python3 python/bench/call_cost.py BUILD/python/call-cost-c
(with PYTHONPATH and HEADALLOC_EXTENSION_DIR as for the tests, or an
installed headalloc)."""

import subprocess
import sys
import timeit

import headalloc

c_seconds = float(subprocess.run([sys.argv[1]], check=True, capture_output=True,
                                 text=True).stdout)
n = 50000
py_seconds = min(timeit.repeat(lambda: headalloc.allocate(512, 1e8), number=n, repeat=5)) / n
print("C ha_solve(512, 1e8):            %.2f us" % (c_seconds * 1e6))
print("Python headalloc.allocate(512, 1e8): %.2f us" % (py_seconds * 1e6))
print("binding's cost: %.2f us a call (%.2fx the C call)"
      % ((py_seconds - c_seconds) * 1e6, py_seconds / c_seconds))
