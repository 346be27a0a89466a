"""hdi(path) and ``headalloc hdi PATH`` resolve a path with one library
call: the same bad directory or file gives the same message, and the
options that do not go with a source the same refusal, each in its own
words (``--heads`` on the command line, ``heads`` here)."""

import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

import headalloc
from conftest import CLI, data

CHECKPOINTS = data("tests", "data", "checkpoints")


def cli_refusal(*args, cwd):
    """(exit status, the one line on stderr) of a refused `headalloc hdi`."""
    if not CLI or not os.path.exists(CLI):
        pytest.skip("HEADALLOC (the built CLI) is not set: run through meson test")
    out = subprocess.run([CLI, "hdi", *map(str, args)], capture_output=True, text=True,
                         cwd=cwd)
    lines = out.stderr.splitlines()
    assert out.returncode != 0 and out.stdout == "" and len(lines) == 1, out
    assert lines[0].startswith("headalloc: "), lines
    return out.returncode, lines[0][len("headalloc: "):]


def python_refusal(path, **kwargs):
    with pytest.raises(headalloc.Error) as caught:
        headalloc.hdi(path, **kwargs)
    return caught.value


def write_safetensors(path, tensors):
    header, body = {}, b""
    for name, a in tensors.items():
        raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    text = repr(header).replace("'", '"').encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + body)


# Bad model directories, given as the directory and as its config.json
# (which Python used to read as a weights file).
BAD_DIRECTORIES = ["bad-config-json", "bad-model-type", "bad-no-weights",
                   "bad-missing-shard", "bad-gqa-groups", "bad-field-type",
                   "bad-index-json", "bad-pytorch-only"]


@pytest.mark.parametrize("name", BAD_DIRECTORIES)
@pytest.mark.parametrize("as_config", [False, True])
def test_bad_directory_same_message(monkeypatch, name, as_config):
    path = os.path.join(name, "config.json") if as_config else name
    if not os.path.exists(os.path.join(CHECKPOINTS, path)):
        pytest.skip("no fixture " + path)
    status, line = cli_refusal(path, cwd=CHECKPOINTS)
    monkeypatch.chdir(CHECKPOINTS)
    e = python_refusal(path)
    assert str(e) == line
    # an unreadable file is a FileError (the CLI's I/O status), bad
    # contents an InputError (its usage status)
    assert isinstance(e, headalloc.FileError) == (status == 1)


@pytest.mark.parametrize("name", ["bad-dtype.safetensors", "bad-truncated.safetensors",
                                  "bad-header.npy", "missing.safetensors"])
def test_bad_file_same_message(monkeypatch, name):
    root = data("tests", "data")
    status, line = cli_refusal(name, "--heads", 2, cwd=root)
    monkeypatch.chdir(root)
    e = python_refusal(name, heads=2)
    assert str(e) == line
    assert isinstance(e, headalloc.FileError) == (status == 1)


def test_file_without_key_names_same_message(monkeypatch, tmp_path):
    # Python used to measure every tensor of the file; now, as the CLI,
    # only those named as keys, and none is here.
    w = np.random.default_rng(3).standard_normal((8, 4))
    write_safetensors(tmp_path / "w.safetensors", {"layer0.w": w, "layer1.w": w})
    _, line = cli_refusal("w.safetensors", "--heads", 2, cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    assert str(python_refusal("w.safetensors", heads=2)) == line
    assert "no tensor's name says it is a key projection" in line
    got = headalloc.hdi("w.safetensors", heads=2, tensor="layer1.w")
    assert got.names == ["layer1.w"]


def test_heads_not_dividing_a_directory_same_message(monkeypatch):
    _, line = cli_refusal("llama", "--heads", 3, cwd=CHECKPOINTS)
    assert line.startswith("--heads: ")  # the CLI names the option first
    monkeypatch.chdir(CHECKPOINTS)
    assert str(python_refusal("llama", heads=3)) == line[len("--"):]


# Options that do not go with the source: the CLI's usage errors, which
# Python used to pass to the reader (tensor without heads) or ignore
# (layout without tensor).
@pytest.mark.parametrize("path, cli_args, kwargs", [
    ("llama", ["--tensor", "*k_proj.weight"], {"tensor": "*k_proj.weight"}),
    ("llama/config.json", ["--layout", "in-out"], {"layout": "in-out"}),
    ("llama/model-00001-of-00002.safetensors", [], {}),
])
def test_option_rules_same_words(monkeypatch, path, cli_args, kwargs):
    status, line = cli_refusal(path, *cli_args, cwd=CHECKPOINTS)
    assert status == 2 and line.endswith(" (try 'headalloc hdi --help')")
    monkeypatch.chdir(CHECKPOINTS)
    e = python_refusal(path, **kwargs)
    assert isinstance(e, headalloc.InputError) and e.file is None
    assert str(e) == line[:-len(" (try 'headalloc hdi --help')")].replace("--", "")


def test_config_json_measures_its_directory():
    directory = os.path.join(CHECKPOINTS, "llama")
    by_dir = headalloc.hdi(directory)
    for name in ["config.json", "model.safetensors.index.json"]:
        got = headalloc.hdi(os.path.join(directory, name))
        assert got.names == by_dir.names
        assert got.hdi.tolist() == by_dir.hdi.tolist()


def test_heads_reason_reaches_the_report(cli):
    # Python's report used to give the config's reason for heads it had
    # re-cut; now the CLI's, in Python's words.
    directory = os.path.join(CHECKPOINTS, "llama")
    want = cli("hdi", directory, "--heads", 2)["checkpoint"]["heads_reason"]
    with pytest.warns(headalloc.HeadallocWarning):
        got = headalloc.hdi(directory, heads=2).to_dict()["checkpoint"]["heads_reason"]
    assert want.startswith("as --heads says, instead of the config's ")
    assert got == want.replace("--heads", "heads")


def test_directory_warning_same_words(tmp_path):
    # The plan's word about a directory, which the CLI prints and Python
    # used to drop, is the result's first warning.
    m = tmp_path / "m"
    shutil.copytree(os.path.join(CHECKPOINTS, "mistral"), m)
    (m / "model.safetensors.index.json").write_text('{"weight_map": {}}')
    if not CLI or not os.path.exists(CLI):
        pytest.skip("HEADALLOC (the built CLI) is not set: run through meson test")
    out = subprocess.run([CLI, "hdi", "m"], capture_output=True, text=True, cwd=tmp_path,
                         check=True)
    prefix = "headalloc: warning: m: "
    cli_lines = [l[len(prefix):] for l in out.stderr.splitlines() if l.startswith(prefix)]
    assert cli_lines and "are both here" in cli_lines[0]
    with pytest.warns(headalloc.HeadallocWarning) as caught:
        got = headalloc.hdi(str(m))
    assert got.warning_details[0] == ("directory", None, cli_lines[0])
    assert got.warnings == cli_lines
    assert str(caught[0].message) == cli_lines[0]
