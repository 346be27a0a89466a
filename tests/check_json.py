#!/usr/bin/python3
"""--format json is the YAML report in the other syntax of the same writer.

For every golden case (tests/cli/cases/*.test) whose command runs
headalloc with -f yaml / --format yaml, run the case's command with
$HEADALLOC set to this script: each such call runs the real binary as
asked (its output goes on to the rest of the command unchanged) and once
more with --format json, and checks that json.loads of the JSON equals the
YAML parsed as data, where a YAML float beyond a double (.inf, -.inf,
.nan) must be JSON's null and a finite float the same double.  Every
other value (integers, strings, booleans, null, the keys and their order)
must be equal as it is.  Fails when a case's JSON does not parse, differs
from its YAML, or when no call was compared at all.

    check_json.py BINARY CASE_DIR
Needs Debian's python3-yaml (PyYAML): run it with /usr/bin/python3.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # meson counts 77 as skipped, and says so
    print("skipped: Debian's python3-yaml (PyYAML) is not installed")
    sys.exit(77)

def yaml_args(args):
    """The index of the format's value in args, or None for no YAML."""
    for i, a in enumerate(args):
        if a in ("--format=yaml", "-fyaml"):
            return i
        if a in ("-f", "--format") and i + 1 < len(args) and args[i + 1] == "yaml":
            return i + 1
    return None


def with_json(args, at):
    out = list(args)
    out[at] = {"--format=yaml": "--format=json", "-fyaml": "-fjson"}.get(out[at], "json")
    return out


def output_file(args):
    """The index of the value of -o/--output, or None."""
    for i, a in enumerate(args):
        if a in ("-o", "--output") and i + 1 < len(args):
            return i + 1
        if a.startswith("--output="):
            return i
    return None


# Keys whose value was beyond a double with no log10_KEY beside it: said,
# not failed (the YAML report has no such key for them either).
UNLOGGED = set()


def path_of(value):
    """The file of an -o value: "FILE" or "--output=FILE"."""
    return value[len("--output="):] if value.startswith("--output=") else value


def compare(y, j, where):
    """None when the JSON value j equals the YAML value y, else a message."""
    if isinstance(y, bool) or y is None or isinstance(y, str):
        return None if type(j) is type(y) and j == y else f"{where}: yaml {y!r}, json {j!r}"
    if isinstance(y, int):
        return None if type(j) is int and j == y else f"{where}: yaml {y!r}, json {j!r}"
    if isinstance(y, float):
        if not math.isfinite(y):
            return None if j is None else f"{where}: yaml {y!r}, json {j!r} (want null)"
        ok = isinstance(j, (int, float)) and not isinstance(j, bool) and float(j) == y
        return None if ok else f"{where}: yaml {y!r}, json {j!r}"
    if isinstance(y, list):
        if not isinstance(j, list) or len(j) != len(y):
            return f"{where}: yaml a list of {len(y)}, json {type(j).__name__}"
        for k, (a, b) in enumerate(zip(y, j)):
            m = compare(a, b, f"{where}[{k}]")
            if m:
                return m
        return None
    if isinstance(y, dict):
        if not isinstance(j, dict) or list(j.keys()) != [str(k) for k in y.keys()]:
            return f"{where}: keys yaml {list(y)}, json {list(j) if isinstance(j, dict) else j!r}"
        for k in y:
            v = y[k]
            if isinstance(v, float) and not math.isfinite(v) and f"log10_{k}" not in y:
                UNLOGGED.add(str(k))
            m = compare(y[k], j[str(k)], f"{where}.{k}")
            if m:
                return m
        return None
    return f"{where}: unexpected YAML value {y!r}"


def wrap(real, args):
    """Be headalloc for a case's command; compare when it asks for YAML."""
    done = subprocess.run([real] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    at = yaml_args(args)
    if at is not None and done.returncode == 0:
        jargs = with_json(args, at)
        o = output_file(args)
        log = os.environ["HA_JSON_LOG"]
        with tempfile.TemporaryDirectory() as tmp:
            if o is not None:
                yaml_text = open(path_of(args[o]), "rb").read()
                json_path = os.path.join(tmp, "out.json")
                jargs[o] = "--output=" + json_path if args[o].startswith("--output=") else json_path
            else:
                yaml_text = done.stdout
            again = subprocess.run([real] + jargs, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            json_text = again.stdout if o is None else open(json_path, "rb").read()
        try:
            message = compare(yaml.safe_load(yaml_text), json.loads(json_text), "$")
        except (ValueError, yaml.YAMLError) as e:
            message = f"does not parse: {e}"
        if again.returncode != 0:
            message = f"--format json exits {again.returncode}"
        with open(log, "a") as f:
            f.write(("ok " if message is None else "FAIL ") + " ".join(args) +
                    ("" if message is None else ": " + message) + "\n")
            for k in sorted(UNLOGGED):
                f.write(f"unlogged {k}\n")
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.flush()
    return done.returncode


def command_of(case):
    lines = open(case, encoding="utf-8").read().split("\n")
    out, inside = [], False
    for line in lines:
        if line.startswith("--- "):
            inside = line == "--- command"
            continue
        if inside:
            out.append(line)
    return "\n".join(out)


def main(binary, cases):
    me = os.path.abspath(__file__)
    failures = compared = 0
    unlogged = set()
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".test"):
            continue
        case = os.path.join(cases, name)
        command = command_of(case)
        if "yaml" not in command:
            continue
        # The cases that kill headalloc on purpose (signals, a file-size
        # limit) would kill this wrapper instead, or be ignored by it
        # (Python ignores SIGPIPE): the run then goes to its end, and a
        # 10^6-row report is parsed by PyYAML for an hour.  They are about
        # --output, not about the syntax; every other configuration runs
        # them.
        if "kill -" in command or "ulimit -f" in command:
            print(f"{name}: left out (it signals or limits headalloc)")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, ".json-log")
            wrapper = os.path.join(tmp, ".headalloc")
            with open(wrapper, "w") as f:
                f.write(f'#!/bin/sh\nexec /usr/bin/python3 "{me}" --wrap "$@"\n')
            os.chmod(wrapper, 0o755)
            env = dict(os.environ, HEADALLOC=wrapper, HA_JSON_REAL=os.path.abspath(binary),
                       HA_JSON_LOG=log, TMP=tmp, LC_ALL="C")
            subprocess.run(["bash", "-c", command, os.path.abspath(case)], cwd=tmp, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            lines = open(log).read().splitlines() if os.path.exists(log) else []
        for line in lines:
            if line.startswith("unlogged "):
                unlogged.add(line.split()[1])
                continue
            compared += 1
            if line.startswith("FAIL"):
                failures += 1
                print(f"{name}: {line}")
        print(f"{name}: {len(lines)} YAML report(s) compared with their JSON")
    print(f"{compared} reports compared, {failures} differ")
    if unlogged:
        print("beyond a double without a log10_ key beside it (null in JSON, .inf in YAML):",
              ", ".join(sorted(unlogged)))
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--wrap":
        sys.exit(wrap(os.environ["HA_JSON_REAL"], sys.argv[2:]))
    sys.exit(main(sys.argv[1], sys.argv[2]))
