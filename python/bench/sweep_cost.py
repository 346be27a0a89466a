"""A sweep in Python against the CLI, measured in one run:

  - the CPU time (user + system, every thread) of a 10^5-point sweep,
    headalloc.sweep(512, geomspace(1e4, 1e12, 10^5)) in a fresh Python,
    from the import to the columns (less the bare import), against the
    CLI writing the same table (headalloc --budget 512 --samples
    1e4:1e12:100000 --format yaml > /dev/null); the aim is at most 2x;
  - the peak RSS of a 10^6-point sweep in Python (the aim: under 300 MB)
    beside the CLI's for the same table.

Each figure is the best of `repeats` runs (child processes, their
resources read from wait4).

    /usr/bin/python3 python/bench/sweep_cost.py CLI [repeats]
(with PYTHONPATH and HEADALLOC_EXTENSION_DIR as for the tests, or an
installed headalloc)."""

import os
import subprocess
import sys

SWEEP = """
import headalloc
s = headalloc.sweep(512, headalloc.geomspace(1e4, 1e12, {points}), progress=False)
assert len(s) == {points} and s["heads"].sum() > 0
"""
IMPORT = "import headalloc"


def child(argv):
    """CPU seconds (user + system) and peak RSS (MB) of one child."""
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null)
        _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit("%s failed: status %d" % (argv[:3], status))
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def best(argv, repeats):
    runs = [child(argv) for _ in range(repeats)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def main():
    cli = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    py = sys.executable
    cli_table = [cli, "--budget", "512", "--samples", "1e4:1e12:100000", "--format", "yaml"]
    bare, _ = best([py, "-c", IMPORT], repeats)
    py_cpu, _ = best([py, "-c", SWEEP.format(points=100000)], repeats)
    cli_cpu, _ = best(cli_table, repeats)
    sweep_cpu = py_cpu - bare
    print("10^5-point sweep, CPU (user + system), best of %d:" % repeats)
    print("  Python headalloc.sweep(): %.3f s (%.3f s with the import, %.3f s the import)"
          % (sweep_cpu, py_cpu, bare))
    print("  CLI, the same table in YAML: %.3f s" % cli_cpu)
    print("  ratio: %.2fx the CLI (aim: at most 2x)" % (sweep_cpu / cli_cpu))
    _, py_rss = best([py, "-c", SWEEP.format(points=1000000)], 1)
    _, cli_rss = best([cli, "--budget", "512", "--samples", "1e4:1e12:1000000",
                       "--format", "yaml"], 1)
    print("10^6-point sweep, peak RSS:")
    print("  Python headalloc.sweep(): %.1f MB (aim: under 300 MB)" % py_rss)
    print("  CLI, the same table in YAML: %.1f MB" % cli_rss)


if __name__ == "__main__":
    main()
