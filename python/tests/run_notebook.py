"""Run examples/headalloc.ipynb top to bottom in a fresh kernel (nbclient)
and fail on any error; check that it is kept with its outputs stripped
and that every result the notebook shows comes with its picture.

    run_notebook.py NOTEBOOK

Exit status 0 (ran), 1 (an error, or a check failed), 77 (skipped: nbclient
or ipykernel is not installed; Debian: python3-nbclient python3-ipykernel).
"""

import os
import sys

SKIP = 77


def main(path):
    if os.environ.get("HEADALLOC_SANITIZED") == "1":
        # The kernel is a second interpreter with its own C++ libraries
        # (zmq) under the preloaded sanitizer runtime: the plain builds run
        # the notebook, the sanitizer build the pytest suite.
        print("skipped: a sanitizer build")
        return SKIP
    try:
        import nbclient
        import nbformat
        import ipykernel  # noqa: F401  (the kernel nbclient starts)
    except ImportError as e:
        print("skipped: %s (apt-get install python3-nbclient python3-ipykernel)" % e)
        return SKIP
    nb = nbformat.read(path, as_version=4)
    stored = [c for c in nb.cells if c.cell_type == "code" and
              (c.get("outputs") or c.get("execution_count") is not None)]
    if stored:
        print("%s: %d code cells keep their outputs; strip them "
              "(jupyter nbconvert --clear-output)" % (path, len(stored)))
        return 1
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel debugger noise
    # The kernel is this interpreter (ipykernel's native kernel), with this
    # environment: the build tree's package when run by meson.
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(
                                         os.path.abspath(path))}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        print(e)
        return 1
    import headalloc
    pictures = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            if out.output_type == "error":
                print("cell failed: %s" % out.ename)
                return 1
            data = out.get("data", {})
            if "image/png" in data:
                pictures += 1
    # allocate, the sweep, the calibration, the HDI and the front
    wanted = 5 if headalloc._ext.plot_available else 0
    print("%s: ran %d cells, %d pictures inline" % (
        path, sum(c.cell_type == "code" for c in nb.cells), pictures))
    if pictures < wanted:
        print("expected %d pictures inline, found %d" % (wanted, pictures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
