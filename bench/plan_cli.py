"""The headalloc command line as bench/plan_bench.py calls it: runs and pool
files, the decision rule, plan's picks, the smoothness law's fit."""

import csv
import json
import math
import os
import resource
import subprocess

import numpy as np

from plan_truths import SMOOTHNESS_FREE

# ---------------------------------------------------------------------------
# The headalloc CLI

class Cli:
    def __init__(self, exe, workdir, decision_rule, plan_args=()):
        self.exe = exe
        # Every plan call runs on one thread (instances run in parallel)
        # with the caller's extra options (--quick's smaller simulation).
        self.plan_args = ["--threads", "1", "--quiet"] + list(plan_args)
        self.dir = workdir
        self.rule = decision_rule
        self.calls = 0
        self.failures = []

    def run(self, args):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([self.exe] + args, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        self.calls += 1
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or [""]
            self.failures.append(f"{args[0]} exit {proc.returncode}: {tail[0]}")
            return None, cpu
        try:
            return json.loads(proc.stdout), cpu
        except json.JSONDecodeError:
            self.failures.append(f"{args[0]}: unreadable JSON")
            return None, cpu

    def write_runs(self, name, rows, with_loss):
        path = os.path.join(self.dir, name)
        with open(path, "w", newline="") as f:
            cols = ["heads", "head_dim", "samples", "loss" if with_loss else "cost"]
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow([r["heads"], r["head_dim"], repr(float(r["samples"])),
                            repr(float(r["loss" if with_loss else "cost"]))])
        return path

    def target_args(self, inst):
        return (["--budget", str(inst["budget"]), "--samples", repr(inst["n_target"])]
                + inst.get("constraints", []))

    def decide(self, inst, runs, pool):
        """The decision at the target from the runs revealed: plan's
        decision with --next 0, or (stand-in) the most frequent allocation
        of calibrate's model-averaged distribution."""
        runs_file = self.write_runs("runs.csv", runs, True)
        if self.rule == "plan":
            pool_file = self.write_runs("pool.csv", pool, False)
            out, cpu = self.run(["plan", runs_file] + self.target_args(inst)
                                + ["--pool", pool_file, "--next", "0",
                                   "--seed", str(inst["seed"]), "--format", "json"]
                                + self.plan_args)
            if out is None:
                return None, cpu
            return out["decision"]["head_dim"], cpu
        out, cpu = self.run(["calibrate", runs_file] + self.target_args(inst)
                            + ["--compare", "--bootstrap", "50", "--threads", "1",
                               "--quiet", "--seed", str(inst["seed"]),
                               "--format", "json"])
        if out is None:
            return None, cpu
        averaged = out.get("comparison", {}).get("averaged") or []
        if not averaged:
            return None, cpu
        best = max(averaged, key=lambda a: a["share"])
        return best["head_dim"], cpu

    def plan_next(self, inst, runs, pool):
        runs_file = self.write_runs("runs.csv", runs, True)
        pool_file = self.write_runs("pool.csv", pool, False)
        out, cpu = self.run(["plan", runs_file] + self.target_args(inst)
                            + ["--pool", pool_file, "--next", "1",
                               "--seed", str(inst["seed"]), "--format", "json"]
                            + self.plan_args)
        if out is None or not out.get("plan"):
            return None, cpu, out
        pick = out["plan"][0]
        for i, c in enumerate(pool):
            if (c["heads"] == pick["heads"] and c["head_dim"] == pick["head_dim"]
                    and math.isclose(c["samples"], pick["samples"], rel_tol=1e-9)):
                return i, cpu, out
        self.failures.append("plan picked a run outside the pool")
        return None, cpu, out

    def initial_design(self, inst):
        """plan's initial design (no runs) where available, else the
        stand-in: 5 distinct head dims at the smallest n plus the middle
        head dim at the next two n."""
        pool = inst["pool"]
        if self.rule == "plan":
            pool_file = self.write_runs("pool.csv", pool, False)
            out, _ = self.run(["plan"] + self.target_args(inst)
                              + ["--pool", pool_file, "--seed", str(inst["seed"]),
                                 "--format", "json"] + self.plan_args)
            if out and out.get("plan"):
                picks = []
                for pick in out["plan"]:
                    for i, c in enumerate(pool):
                        if (c["heads"] == pick["heads"] and c["head_dim"] == pick["head_dim"]
                                and math.isclose(c["samples"], pick["samples"], rel_tol=1e-9)):
                            picks.append(i)
                if picks:
                    return picks, "plan"
        ns = sorted({c["samples"] for c in pool})
        want = [(d, ns[0]) for d in (8, 16, 24, 32, 64)] + [(24, ns[1]), (24, ns[2])]
        picks = [i for i, c in enumerate(pool) if (c["head_dim"], c["samples"]) in want]
        return picks, "stand-in"

    def allocator_optimum(self, inst):
        """The allocator's optimum under the truth's parameters, for a check
        of the benchmark's own formula; None for a law it cannot express
        (a bias that falls with n)."""
        p = inst["truth"]
        if p["delta"] != 0:
            return None
        args = ["--budget", str(inst["budget"]), "--samples", repr(inst["n_target"]),
                "--smoothness", repr(p["s"]), "--log-bias-coef", repr(p["ln_cb"]),
                "--log-var-coef", repr(p["ln_cv"]), "--var-rate", repr(p["gamma"]),
                "--var-power", repr(p["kappa"]), "--hdi", repr(1.0 - p["rho"]),
                "--irreducible", repr(p["E"]), "--var-samples-power", repr(p["beta"]),
                "--format", "json"]
        if p["A"] > 0:
            args += ["--data-coef", repr(p["A"]), "--data-power", repr(p["alpha"])]
        out, _ = self.run(args)
        return None if out is None else out["optimum"]["head_dim"]

    def fit_smoothness(self, runs):
        runs_file = self.write_runs("fit.csv", runs, True)
        out, cpu = self.run(["calibrate", runs_file, "--free", SMOOTHNESS_FREE,
                             "--huber-delta", "inf", "--bootstrap", "0",
                             "--threads", "1", "--quiet", "--format", "json"])
        if out is None:
            return None, cpu
        par = out["calibration"]["parameters"]
        return np.array([par["irreducible"]["value"], par["bias_coef"]["value"],
                         par["smoothness"]["value"], par["var_coef"]["value"]]), cpu

