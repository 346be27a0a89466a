"""Safe in threads and signals: pictures from 8 threads at once, plot(path)
by the command line's rules for output files, and Ctrl-C and progress
callbacks serviced during a calibration's fits and comparison."""

import os
import stat
import subprocess
import sys
import textwrap
import warnings

import pytest

import headalloc
from conftest import data

RUNS = data("data", "runs.yaml")
needs_plot = pytest.mark.skipif(not headalloc._ext.plot_available,
                                reason="this build draws no pictures")
PNG = b"\x89PNG\r\n\x1a\n"


def run_python(code, timeout=600, **kwargs):
    """code in a fresh interpreter with this one's environment (a crash or
    a prompt there fails the test, not the suite)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout,
                          input="", **kwargs)


@needs_plot
def test_pictures_from_eight_threads_at_once(tmp_path):
    """8 threads each draw several kinds of picture at once, the GIL
    released around each: no crash, no prompt for a device on stdin, and
    every picture the same bytes as the one drawn alone; each also writes
    its pictures to files (the writer's refusals are per thread)."""
    locked = tmp_path / "locked.png"
    locked.write_bytes(b"keep")
    os.chmod(locked, 0o444)
    out = run_python("""
        import os, threading, warnings, sys
        import headalloc
        directory, locked = %r, %r
        warnings.simplefilter("ignore")
        cal = headalloc.calibrate(%r, bootstrap=20, target=(512, 1e8), progress=False)
        results = [headalloc.allocate(512, 1e8), headalloc.allocate(4096, 1e12),
                   headalloc.sweep([256, 1024], headalloc.geomspace(1e4, 1e12, 20)),
                   headalloc.regimes([512, 768]), cal,
                   headalloc.pareto(4096, 1e12, max_kv_dim=1024).allocation]
        names = ["p.png", "p.svg"]
        alone = {(i, n): r._picture(n) for i, r in enumerate(results) for n in names}
        bad, errors = [], []
        start = threading.Barrier(8)
        def work(k):
            try:
                start.wait()
                for round in range(3):
                    for i, r in enumerate(results):
                        n = names[(k + i + round) %% 2]
                        if r._picture(n) != alone[(i, n)]:
                            bad.append((k, i, n))
                    path = os.path.join(directory, "t%%d-%%d.png" %% (k, round))
                    results[k %% len(results)].plot(path)
                    with open(path, "rb") as f:
                        if f.read() != alone[(k %% len(results), "p.png")]:
                            bad.append((k, round, path))
                    try:
                        results[0].plot(locked)
                        bad.append((k, round, "replaced a read-only file"))
                    except headalloc.FileError as e:
                        if "it is read-only" not in str(e):
                            bad.append((k, round, str(e)))
            except BaseException as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("pictures", 8 * 3 * len(results), "differ", len(bad), "errors", errors)
    """ % (str(tmp_path), str(locked), RUNS))
    assert out.returncode == 0, out.stderr
    assert "pictures 144 differ 0 errors []" in out.stdout, out.stdout + out.stderr
    assert "device" not in (out.stdout + out.stderr).lower()
    assert len(list(tmp_path.glob("t*-*.png"))) == 24
    assert locked.read_bytes() == b"keep"
    assert no_temporary_files(tmp_path)


def no_temporary_files(directory):
    return [n for n in os.listdir(directory) if ".tmp-" in n] == []


@needs_plot
def test_plot_over_a_symlink_replaces_the_file_it_names(tmp_path):
    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.png"
    link.symlink_to(real)
    headalloc.allocate(512, 1e8).plot(link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes().startswith(PNG)
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640    # the mode is kept
    assert no_temporary_files(tmp_path)


@needs_plot
def test_plot_refuses_a_read_only_file(tmp_path):
    target = tmp_path / "ro.png"
    target.write_bytes(b"keep me")
    os.chmod(target, 0o444)
    with pytest.raises(headalloc.FileError) as e:
        headalloc.allocate(512, 1e8).plot(target)
    assert "refusing to replace" in str(e.value) and "read-only" in str(e.value)
    assert target.read_bytes() == b"keep me"
    assert no_temporary_files(tmp_path)


@needs_plot
def test_plot_refuses_a_hard_linked_file(tmp_path):
    target = tmp_path / "a.png"
    target.write_bytes(b"keep me")
    os.link(target, tmp_path / "b.png")
    with pytest.raises(headalloc.InputError, match="other hard link"):
        headalloc.allocate(512, 1e8).plot(target)
    assert (tmp_path / "b.png").read_bytes() == b"keep me"


@needs_plot
def test_plot_writes_a_device_in_place(tmp_path):
    sink = tmp_path / "null.png"
    sink.symlink_to("/dev/null")
    headalloc.allocate(512, 1e8).plot(sink)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    full = tmp_path / "full.png"
    full.symlink_to("/dev/full")
    with pytest.raises(headalloc.FileError, match="No space left on device"):
        headalloc.allocate(512, 1e8).plot(full)


@needs_plot
def test_plot_on_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path):
    """A write that fails part way (the file size limit, as a full disk
    would): FileError, the old picture intact, no temporary file."""
    target = tmp_path / "old.png"
    target.write_bytes(b"the old picture")
    out = run_python("""
        import resource, signal, headalloc
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            headalloc.allocate(512, 1e8).plot(%r)
        except headalloc.FileError as e:
            print("FileError", e)
    """ % str(target))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("FileError plot: cannot write"), out.stdout
    assert target.read_bytes() == b"the old picture"
    assert no_temporary_files(tmp_path)


@needs_plot
def test_plot_into_a_missing_directory(tmp_path):
    with pytest.raises(headalloc.FileError, match="No such file or directory"):
        headalloc.allocate(512, 1e8).plot(tmp_path / "no" / "p.png")


def test_ctrl_c_during_the_comparison():
    """SIGINT while calibrate(compare=True) is in its comparison (the GIL
    released, no progress callback of the user's) raises
    KeyboardInterrupt within the comparison's longest silence, long before
    the call would end."""
    out = run_python("""
        import os, signal, threading, time, warnings
        import headalloc
        warnings.simplefilter("ignore")
        t0 = time.monotonic()
        headalloc.calibrate(%(runs)r, compare=True, target=(512, 1e8), progress=False)
        whole = time.monotonic() - t0
        sent = []
        def interrupt():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        seen = []
        def progress(what, done, total):
            if what == "laws" and not seen:
                seen.append(1)
                threading.Timer(0.02, interrupt).start()
        t0 = time.monotonic()
        try:
            headalloc.calibrate(%(runs)r, compare=True, target=(512, 1e8),
                                progress=progress)
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted %%.2f after the signal; the whole call %%.2f" %%
                  (time.monotonic() - sent[0], whole))
    """ % {"runs": RUNS})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("interrupted"), out.stdout + out.stderr
    latency, whole = [float(w) for w in out.stdout.split() if w[0].isdigit()]
    assert latency < 1.0, out.stdout


def test_progress_callback_during_the_comparison():
    seen = []

    def progress(what, done, total):
        seen.append((what, done, total))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", headalloc.HeadallocWarning)
        headalloc.calibrate(RUNS, bootstrap=30, compare=True, target=(512, 1e8),
                            progress=progress)
    laws = [(d, t) for w, d, t in seen if w == "laws"]
    assert laws and all(t == laws[0][1] for _, t in laws)
    assert [d for d, _ in laws] == sorted(d for d, _ in laws) and laws[-1][0] == laws[0][1]
    # the bootstrap's resamples come first, then the laws, then the
    # comparison's resamples (the calling thread reports those it finished)
    first_law = seen.index(("laws",) + laws[0])
    assert any(w == "resamples" for w, _, _ in seen[:first_law])
    assert any(w == "resamples" for w, _, _ in seen[first_law:])
    assert all(w in ("fits", "resamples", "laws") for w, _, _ in seen)

    class Stop(Exception):
        pass

    def stop_at_the_laws(what, done, total):
        if what == "laws":
            raise Stop()

    with pytest.raises(Stop):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", headalloc.HeadallocWarning)
            headalloc.calibrate(RUNS, bootstrap=30, compare=True, progress=stop_at_the_laws)
