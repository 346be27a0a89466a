"""The cost of a Python call against the same call in C:
headalloc.allocate(512, 1e8) (timeit, best of 5 rounds) against
ha_solve(512, NULL, model at n = 1e8) (call_cost.c, best of 5 rounds),
both measured in this run; then the grouped allocation with its front,
headalloc.allocate(4096, 1e12, kv_heads="auto", max_kv_dim=1024,
pareto=True) against the C calls it makes (call-cost-c grouped).

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

c_grouped = float(subprocess.run([sys.argv[1], "grouped"], check=True, capture_output=True,
                                 text=True).stdout)
n = 1000
py_grouped = min(timeit.repeat(lambda: headalloc.allocate(4096, 1e12, kv_heads="auto",
                                                          max_kv_dim=1024, pareto=True),
                               number=n, repeat=5)) / n
print("C ha_grouped_solve(4096, 1e12, max_kv_dim 1024, front):  %.2f us" % (c_grouped * 1e6))
print("Python allocate(4096, 1e12, kv_heads='auto', max_kv_dim=1024, pareto=True): %.2f us"
      % (py_grouped * 1e6))
print("binding's cost: %.2f us a grouped call (%.2fx the C calls)"
      % ((py_grouped - c_grouped) * 1e6, py_grouped / c_grouped))
