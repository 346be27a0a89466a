"""Shared fixtures: the built CLI, the source tree, an independent YAML
reader (PyYAML) for the CLI's reports."""

import os
import re
import subprocess

import pytest
import yaml

SOURCE_ROOT = os.environ.get("HEADALLOC_SOURCE_ROOT",
                             os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("HEADALLOC")


def pytest_collection_modifyitems(config, items):
    """A sanitizer build by a compiler whose runtime the suite cannot
    preload (python/meson.build: gcc's libasan and libubsan only)."""
    if os.environ.get("HEADALLOC_SANITIZER_RUNTIME") == "0":
        skip = pytest.mark.skip(reason="extension built with sanitizers whose runtime "
                                       "is not preloaded into python (non-gcc build)")
        for item in items:
            item.add_marker(skip)


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2's floats (1e8 as well as 1.0e8)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|^[-+]?\.inf$|^\.nan$"),
    list("-+0123456789."))


def load_yaml(text):
    return yaml.load(text, Loader=_Loader)


def data(*parts):
    return os.path.join(SOURCE_ROOT, *parts)


@pytest.fixture
def cli():
    """run(args...) -> the CLI's YAML report as Python objects."""
    if not CLI or not os.path.exists(CLI):
        pytest.skip("HEADALLOC (the built CLI) is not set: run through meson test")

    def run(*args, cwd=None):
        out = subprocess.run([CLI, *map(str, args), "--format", "yaml"], check=True,
                             capture_output=True, text=True, cwd=cwd)
        return load_yaml(out.stdout)
    return run


def golden(name):
    """The golden case a comparison mirrors must exist (tests/cli/cases)."""
    path = data("tests", "cli", "cases", name + ".test")
    assert os.path.exists(path), path
    return path
