#!/usr/bin/env python3
"""Benchmark of `headalloc plan` against experiment-selection baselines.

Synthetic truths (laws of the calibration's ladder and laws outside it)
give every run of a pool a loss; each strategy reveals runs one at a time
from the same pool, under the same budget, starting from the same initial
design; at 5%, 10%, 20% and 40% of the pool's total cost the same decision
rule picks the allocation at the target (D, N) from the runs revealed so
far, and the benchmark scores it against the truth's exact optimum.

    python3 bench/plan_bench.py [--instances N] [--quick] [--seed S]
                                [--output FILE.md] [--headalloc PATH]

With --replay RUNSFILE it replays a logged ablation instead (see
bench/README.md).  Not a timed test: the CPU times it prints are for
orientation, measured with getrusage(RUSAGE_CHILDREN) around each child.
"""

import argparse
import json
import math
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from plan_cli import Cli
from plan_replay import replay
from plan_strategies import run_strategy
from plan_truths import (BUDGET, IN_LADDER, LEVELS, OUTSIDE, POOL_HEAD_DIMS, STRATEGIES,
                         make_instance, mean_se, true_regret)
# --quick checks that the benchmark runs, not what it measures: a smaller
# posterior and simulation in every plan call.
QUICK_PLAN_ARGS = ["--bootstrap", "10", "--outcomes", "32"]
# With --plan-stop ignore, plan's sequence cut at its first stop: the row
# --plan-stop honour would have given, from the same run.
PLAN_STOPPING = "plan, stopping"


def evaluate_instance(args):
    inst, exe, rule, strategies, plan_args, honour_stop = args
    with tempfile.TemporaryDirectory(prefix="plan_bench.") as tmp:
        cli = Cli(exe, tmp, rule, plan_args)
        pool = inst["pool"]
        total = sum(c["cost"] for c in pool)
        initial, initial_from = cli.initial_design(inst)
        cache = {}
        decision_cpu = []

        def decide(prefix):
            key = tuple(sorted(prefix))
            if key not in cache:
                rest = [c for i, c in enumerate(pool) if i not in key]
                d, cpu = cli.decide(inst, [pool[i] for i in prefix], rest)
                cache[key] = d
                decision_cpu.append(cpu)
            return cache[key]

        out = dict(index=inst["index"], family=inst["family"], d_opt=inst["d_opt"],
                   allocator=cli.allocator_optimum(inst),
                   initial=len(initial), initial_from=initial_from,
                   initial_share=sum(pool[i]["cost"] for i in initial) / total,
                   strategies={})
        def levels_of(seq):
            levels = []
            for f in LEVELS:
                prefix, spent = [], 0.0
                for i in seq:
                    if spent + pool[i]["cost"] > f * total * (1 + 1e-12):
                        break
                    spent += pool[i]["cost"]
                    prefix.append(i)
                if len(prefix) < len(initial):
                    prefix = list(initial)    # the initial design is never cut
                    spent = sum(pool[i]["cost"] for i in prefix)
                d = decide(prefix)
                levels.append(dict(head_dim=d, correct=(d == inst["d_opt"]),
                                   regret=true_regret(inst, d), runs=len(prefix),
                                   spent=spent / total))
            return levels

        for k, name in enumerate(strategies):
            rng = np.random.default_rng([inst["seed"], k])
            seq, step_cpu, fallbacks, stopped_at = run_strategy(name, inst, cli, initial, rng,
                                                                 honour_stop)
            stop = None
            if stopped_at is not None:
                d = decide(seq[:stopped_at])
                stop = dict(runs=stopped_at, correct=(d == inst["d_opt"]),
                            spent=sum(pool[i]["cost"] for i in seq[:stopped_at]) / total)
            out["strategies"][name] = dict(levels=levels_of(seq), step_cpu=step_cpu,
                                           fallbacks=fallbacks, sequence=seq, stop=stop)
            if name == "plan" and not honour_stop:
                # The picks before plan's first stop are the same whether
                # the stop is honoured or not, so one run scores both.
                cut = seq if stopped_at is None else seq[:stopped_at]
                out["strategies"][PLAN_STOPPING] = dict(
                    levels=levels_of(cut), step_cpu=[c for c in step_cpu if c[1] < len(cut)],
                    fallbacks=fallbacks, sequence=cut, stop=stop)
        out["decision_cpu"] = decision_cpu
        out["failures"] = cli.failures
        return out


# ---------------------------------------------------------------------------
# Tables

def tables(results, strategies, rule, args, elapsed):
    lines = []
    n = len(results)
    lines.append(f"# plan_bench: {n} instances, seed {args.seed}, decision rule: "
                 + ("plan --next 0" if rule == "plan" else
                    "STAND-IN (calibrate --compare, most frequent allocation of the "
                    "model-averaged distribution; plan's decision was not available)"))
    lines.append("")
    fams = {}
    for r in results:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    lines.append("Families: " + ", ".join(f"{k} {v}" for k, v in fams.items())
                 + f". D = {BUDGET}, pool head dims {POOL_HEAD_DIMS[0]}-{POOL_HEAD_DIMS[-1]}"
                 f" ({len(POOL_HEAD_DIMS)}) x 4-6 token counts from 1e6 by sqrt(10), cost = D n,"
                 " target N = 10 x the largest pool n.")
    init = [r["initial_share"] for r in results]
    lines.append(f"Initial design: {results[0]['initial']} runs ({results[0]['initial_from']}),"
                 f" {100 * min(init):.1f}%-{100 * max(init):.1f}% of the pool's cost"
                 " (a level below it uses the initial design alone).")
    lines.append("")
    head = "| strategy | " + " | ".join(f"P(correct) @{int(f * 100)}%" for f in LEVELS) \
        + " | " + " | ".join(f"regret @{int(f * 100)}%" for f in LEVELS) \
        + " | runs @40% | CPU s/step |"
    lines.append(head)
    lines.append("|" + "---|" * (2 + 2 * len(LEVELS) + 1))
    for name in strategies:
        cells = []
        for j in range(len(LEVELS)):
            c = [1.0 if r["strategies"][name]["levels"][j]["correct"] else 0.0 for r in results]
            p = sum(c) / n
            cells.append(f"{100 * p:.0f}% ± {100 * math.sqrt(p * (1 - p) / n):.0f}")
        for j in range(len(LEVELS)):
            m, se, k = mean_se([r["strategies"][name]["levels"][j]["regret"] for r in results])
            cells.append(f"{100 * m:.3f}% ± {100 * se:.3f}" + ("" if k == n else f" ({n - k} none)"))
        runs40 = np.mean([r["strategies"][name]["levels"][-1]["runs"] for r in results])
        cpu = [c[0] for r in results for c in r["strategies"][name]["step_cpu"]]
        cells.append(f"{runs40:.1f}")
        cells.append(f"{np.mean(cpu):.3f}" if cpu else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("P(correct): share of instances whose decision is the truth's exact optimum"
                 " at (D, N) (± binomial standard error); regret: (true loss of the decision"
                 " - true minimum) / true minimum, mean ± standard error; runs: revealed"
                 " runs at 40%; CPU s/step: selection only (child processes by"
                 " getrusage(RUSAGE_CHILDREN) plus this process's time), not the decision.")
    lines.append("")
    # by group
    lines.append("| strategy | group | " + " | ".join(f"P @{int(f * 100)}%" for f in LEVELS) + " |")
    lines.append("|" + "---|" * (2 + len(LEVELS)))
    for name in strategies:
        for group, members in (("in-ladder", IN_LADDER), ("outside", OUTSIDE)):
            rs = [r for r in results if r["family"] in members]
            if not rs:
                continue
            cells = []
            for j in range(len(LEVELS)):
                p = np.mean([r["strategies"][name]["levels"][j]["correct"] for r in rs])
                cells.append(f"{100 * p:.0f}% ± {100 * math.sqrt(p * (1 - p) / len(rs)):.0f} (n={len(rs)})")
            lines.append(f"| {name} | {group} | " + " | ".join(cells) + " |")
    lines.append("")
    if "plan" in strategies:
        at12 = [c for r in results for c in r["strategies"]["plan"]["step_cpu"] if c[1] == 12]
        if at12:
            lines.append(f"plan steps with 12 runs revealed: CPU {np.mean([c[0] for c in at12]):.3f} s"
                         f" mean, {max(c[0] for c in at12):.3f} s max over {len(at12)} steps"
                         f" (pools of {min(c[2] for c in at12)}-{max(c[2] for c in at12)} candidates).")
    if "plan" in strategies:
        stops = [r["strategies"]["plan"]["stop"] for r in results if r["strategies"]["plan"]["stop"]]
        if stops:
            lines.append(f"plan said stop (train the target now) in {len(stops)} of {n} instances,"
                         f" after {np.mean([s['runs'] for s in stops]):.1f} runs and"
                         f" {100 * np.mean([s['spent'] for s in stops]):.1f}% of the pool's cost on average;"
                         f" its decision there was right in {sum(s['correct'] for s in stops)} of them"
                         + (" (plan spends no more after a stop: --plan-stop honour)."
                            if args.plan_stop == "honour" else
                            " (the benchmark goes on with plan's best pick after a stop)."))
        else:
            lines.append(f"plan never said stop in {n} instances.")
    checked = [r for r in results if r["allocator"] is not None]
    agree = sum(r["allocator"] == r["d_opt"] for r in checked)
    lines.append(f"Truth check: headalloc's allocator under the truth's parameters gives the"
                 f" benchmark's exact optimum in {agree} of {len(checked)} instances"
                 " (more-heads has no allocator form).")
    dec = [c for r in results for c in r["decision_cpu"]]
    fails = sum(len(r["failures"]) for r in results)
    fb = {s: sum(r["strategies"][s]["fallbacks"] for r in results) for s in strategies}
    lines.append(f"Decision CPU: {np.mean(dec):.3f} s a call over {len(dec)} calls."
                 f" CLI failures: {fails}. Random fallbacks (no fit / TPE stuck): "
                 + ", ".join(f"{k} {v}" for k, v in fb.items() if v) + "."
                 f" Wall time {elapsed:.0f} s.")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------

def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def numpy_scalar(o):
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"{type(o).__name__} is not JSON")


class Journal:
    """--results FILE: one JSON line per finished instance after a header
    line naming what was run, so that a long run stopped (or split across
    sittings) goes on where it stopped instead of starting again."""

    def __init__(self, path, config):
        self.path, self.done = path, {}
        header = json.dumps(dict(plan_bench=config), sort_keys=True)
        if os.path.exists(path):
            with open(path) as f:
                lines = f.read().splitlines()
            if not lines or lines[0] != header:
                sys.exit(f"plan_bench: --results {path}: written by another configuration"
                         f" (first line {lines[0][:120] if lines else 'missing'!r});"
                         " name a new file")
            for k, line in enumerate(lines[1:], 2):
                try:
                    r = json.loads(line)
                except ValueError:
                    # A line cut by a stop mid-write: that instance runs again.
                    print(f"plan_bench: {path}:{k}: unfinished line dropped", file=sys.stderr)
                    continue
                self.done[r["index"]] = r
            with open(path, "w") as f:
                f.write("\n".join([header] + [json.dumps(r, default=numpy_scalar)
                                              for r in self.done.values()]) + "\n")
        else:
            with open(path, "w") as f:
                f.write(header + "\n")

    def add(self, r):
        with open(self.path, "a") as f:
            f.write(json.dumps(r, default=numpy_scalar) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.done[r["index"]] = r


def has_plan(exe):
    if not os.access(exe, os.X_OK):
        return False
    proc = subprocess.run([exe, "plan", "--help"], capture_output=True, text=True)
    return proc.returncode == 0 and "--pool" in proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=100)
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 3 instances")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--output", help="also write the table as Markdown to this file")
    ap.add_argument("--results", metavar="FILE.jsonl",
                    help="keep each finished instance here and skip those already in it")
    ap.add_argument("--headalloc", default=os.environ.get("HEADALLOC", "build/src/cli/headalloc"))
    ap.add_argument("--workers", type=int, default=2, help="at most 2")
    ap.add_argument("--decision", choices=("auto", "plan", "calibrate"), default="auto",
                    help="plan's decision (--next 0) or the calibrate stand-in")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--plan-stop", choices=("honour", "ignore"), default="honour",
                    help="when plan says stop: spend no more (default), or go on picking")
    ap.add_argument("--check-truths", action="store_true",
                    help="only check the truths' optima against headalloc's allocator")
    ap.add_argument("--replay", metavar="RUNSFILE")
    ap.add_argument("--replay-budget", type=int, default=512)
    ap.add_argument("--replay-orders", type=int, default=50)
    ap.add_argument("--replay-start", type=int, default=4,
                    help="the first prefix length a random order is judged at")
    args = ap.parse_args()
    if args.workers < 1 or args.workers > 2:
        ap.error("--workers: 1 or 2")
    if args.instances < 1:
        ap.error("--instances: at least 1")
    if not os.access(args.headalloc, os.X_OK):
        ap.error(f"--headalloc: {args.headalloc} is not an executable (build it first)")
    rule = args.decision
    if rule == "auto":
        rule = "plan" if has_plan(args.headalloc) else "calibrate"
    if rule == "plan" and not has_plan(args.headalloc):
        ap.error(f"--decision plan: {args.headalloc} has no plan command")
    strategies = [s for s in args.strategies.split(",") if s]
    for s in strategies:
        if s not in STRATEGIES:
            ap.error(f"--strategies: unknown {s}")
    if rule != "plan" and "plan" in strategies:
        strategies.remove("plan")
        print("plan_bench: headalloc has no plan command: strategy plan left out, "
              "decisions by the calibrate stand-in", file=sys.stderr)
    start = time.time()
    if args.check_truths:
        with tempfile.TemporaryDirectory(prefix="plan_bench.") as tmp:
            cli = Cli(args.headalloc, tmp, rule)
            pairs = [(inst, cli.allocator_optimum(inst))
                     for inst in (make_instance(i, args.seed) for i in range(args.instances))]
        checked = [(inst, a) for inst, a in pairs if a is not None]
        wrong = [inst["index"] for inst, a in checked if a != inst["d_opt"]]
        print(f"plan_bench: the allocator gives the exact optimum of {len(checked) - len(wrong)}"
              f" of {len(checked)} truths" + (f"; not of instances {wrong}" if wrong else ""))
        sys.exit(1 if wrong else 0)
    if args.replay:
        text = replay(args, rule)
    else:
        count = 3 if args.quick else args.instances
        plan_args = QUICK_PLAN_ARGS if args.quick else []
        journal = Journal(args.results, dict(
            seed=args.seed, rule=rule, strategies=strategies, plan_stop=args.plan_stop,
            plan_args=plan_args)) if args.results else None
        results = list(journal.done.values()) if journal else []
        results = [r for r in results if r["index"] < count]
        insts = [make_instance(i, args.seed) for i in range(count)
                 if not any(r["index"] == i for r in results)]
        if results:
            print(f"plan_bench: {len(results)} of {count} instances from {args.results}",
                  file=sys.stderr)
        jobs = [(inst, args.headalloc, rule, strategies, plan_args, args.plan_stop == "honour")
                for inst in insts]

        def finished(r):
            results.append(r)
            if journal:
                journal.add(r)
            print(f"plan_bench: {len(results)}/{count} instances", file=sys.stderr, flush=True)
            if args.output and len(results) < count:
                # A long run can be stopped with the table so far.
                done = sorted(results, key=lambda x: x["index"])
                write_atomically(args.output, f"PARTIAL: {len(done)} of {count} instances\n\n"
                                 + tables(done, shown, rule, args, time.time() - start))

        shown = list(strategies)
        if "plan" in shown and args.plan_stop == "ignore":
            shown.insert(shown.index("plan") + 1, PLAN_STOPPING)
        if args.workers == 1 or len(jobs) <= 1:
            for j in jobs:
                finished(evaluate_instance(j))
        else:
            with multiprocessing.Pool(args.workers) as p:
                for r in p.imap_unordered(evaluate_instance, jobs):
                    finished(r)
        results.sort(key=lambda r: r["index"])
        text = tables(results, shown, rule, args, time.time() - start)
        missing = [(r["index"], s, j) for r in results for s in shown
                   for j, lv in enumerate(r["strategies"][s]["levels"]) if lv["head_dim"] is None]
        if missing:
            # A missing decision is a failure of the command line, counted
            # as wrong in the table; the smoke run fails on it.
            first = next((r["failures"][0] for r in results if r["failures"]), "no failure logged")
            print(f"plan_bench: {len(missing)} decisions missing (first: instance {missing[0][0]},"
                  f" {missing[0][1]}): {first}", file=sys.stderr)
            if args.quick:
                sys.stdout.write(text)
                sys.exit(1)
    sys.stdout.write(text)
    if args.output:
        write_atomically(args.output, text)


if __name__ == "__main__":
    main()
